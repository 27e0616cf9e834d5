"""A fork's changes are told in plain words in `show --events` and `why`, as `--set` wrote them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from sim import api
from sim.cli import cli
from sim.replay.analysis import plain

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = ROOT / "tests" / "data" / "replays" / "stone_wall-s1862-musket-rules1.jsonl"
CHECK = next(
    e
    for e in api.load_replay(GOLDEN).events
    if e.type == "musket.morale_tested" and e.unit == "69ny" and not e.passed
)
"""The golden's first failed morale check of the 69th New York."""


def _invoke(*args: str | Path) -> Result:
    result = CliRunner().invoke(cli, [str(a) for a in args])
    assert result.exit_code == 0, result.output
    return result


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (True, "true"),
        (False, "false"),
        (None, "null"),
        (2, "2"),
        (0.5, "0.5"),
        ("routed", "routed"),
        ("1861", "'1861'"),  # --set would read 1861 as a number
        ("true", "'true'"),
        ("", "''"),
        ("it's, odd", "'it''s, odd'"),  # a comma would split the list of changes
        ([[5, 9], [5, 8]], "[[5, 9], [5, 8]]"),
        ({"a": "x", "b": None}, "{a: x, b: null}"),
    ],
)
def test_a_value_is_written_as_set_takes_it(value: Any, text: str) -> None:
    """JSON's true/false/null, bare words, text quoted only where YAML would misread it."""
    assert plain(value) == text


def test_a_changed_event_ends_with_its_changes_in_plain_words(tmp_path: Path) -> None:
    """The forked check ends `[counterfactual: after=<word>, passed=true]` in show and why."""
    out = tmp_path / "held.jsonl"
    at = str(CHECK.seq)
    _invoke("fork", GOLDEN, "--at", at, "--set", "passed=true", "--set", f"after={CHECK.before}",
            "--out", out)  # fmt: skip
    tail = f" [counterfactual: after={CHECK.before}, passed=true]"
    shown = _invoke("show", out, "--events", "--seqs", "--unit", "69ny", "--type", "morale_tested")
    [line] = [x for x in shown.stdout.splitlines() if x.startswith(f"[seq {at}] ")]
    assert line.endswith(tail), line
    why = _invoke("why", out, at).stdout.splitlines()
    assert why[-1].endswith(tail), why[-1]
    assert why[-1].split("] ", 1)[1] == line.split("] ", 1)[1]


def test_a_state_override_is_told_in_plain_words(tmp_path: Path) -> None:
    """`Turn 2 — counterfactual: PATH set to VALUE`, a number bare and a number-like name quoted."""
    out = tmp_path / "fs.jsonl"
    _invoke("fork", GOLDEN, "--at", "10", "--set", "state.units.wash.strength=2",
            "--set", "state.units.69ny.name='1861'", "--out", out)  # fmt: skip
    shown = _invoke("show", out, "--events", "--seqs", "--turn", "2").stdout.splitlines()
    assert [x for x in shown if "counterfactual" in x] == [
        "[seq 11] Turn 2 — counterfactual: units.69ny.name set to '1861'",
        "[seq 12] Turn 2 — counterfactual: units.wash.strength set to 2",
    ]
    assert _invoke("why", out, "12").stdout.splitlines()[-1] == (
        "  → [seq 12] Turn 2 — counterfactual: units.wash.strength set to 2"
    )
