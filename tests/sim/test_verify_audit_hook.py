"""A ruleset's audit hook that raises is the ruleset's bug, not the replay's damage.

``verify`` folds the recorded events and asks the ruleset's ``audit`` about each. Where
the recorded line is byte for byte the re-simulation's own (and every line before it
was), the event is what the rules make, so an audit that raises on it has failed: one
line naming the ruleset, the hook and the seq, exit 2 (it said "INVARIANT broken",
exit 1, as if the file were damaged). On a line the re-simulation did not write, what
the audit raises is the forged line's doing: the replay differs, exit 1.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from sim.cli import cli
from sim.contract import get_ruleset
from tests.forge import GOLDEN, forge

SEQ = 10


def _verify(path: Path) -> Result:
    return CliRunner().invoke(cli, ["verify", str(path)], prog_name="battlesim")


@pytest.fixture
def raising_audit() -> Iterator[list[int]]:
    """musket's audit raising KeyError at seq 10 (and auditing as before elsewhere); the
    seqs it was asked about."""
    ruleset = get_ruleset("musket")
    audit = ruleset.audit
    assert audit is not None
    asked: list[int] = []

    def broken(scenario: Any, state: Any, event: Any) -> str | None:
        asked.append(event.seq)
        if event.seq == SEQ:
            raise KeyError("boom")
        return audit(scenario, state, event)

    object.__setattr__(ruleset, "audit", broken)
    try:
        yield asked
    finally:
        object.__setattr__(ruleset, "audit", audit)


def test_an_audit_that_raises_on_the_rules_own_event_is_a_hook_error(
    raising_audit: list[int],
) -> None:
    result = _verify(GOLDEN)
    assert result.exit_code == 2, result.output
    assert result.stdout == ""
    assert result.stderr.startswith(
        "battlesim: error: ruleset 'musket': audit raised KeyError: 'boom' at seq 10"
    )
    assert len(result.stderr.splitlines()) == 1 and "Traceback" not in result.stderr
    assert raising_audit[-1] == SEQ  # asked in order, up to the event it raised on


def test_an_audit_that_raises_on_a_forged_line_means_the_replay_differs(
    raising_audit: list[int], tmp_path: Path
) -> None:
    """The line at seq 10 resealed with its turn one later: not the re-simulation's line."""

    def edit(texts: list[str]) -> list[str]:
        line = json.loads(texts[SEQ + 1])
        assert line["seq"] == SEQ
        line["turn"] += 1
        return [*texts[: SEQ + 1], json.dumps(line, separators=(",", ":")), *texts[SEQ + 2 :]]

    result = _verify(forge(tmp_path, edit))
    assert result.exit_code == 1, result.output
    assert "error" not in result.output and f"seq {SEQ}" in result.output


def test_the_same_replay_verifies_with_the_audit_as_shipped() -> None:
    assert _verify(GOLDEN).exit_code == 0
