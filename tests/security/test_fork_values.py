"""A fork's --set value is one its replay's reader reads back, or it is refused first."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.strictjson import INT_MAX, INT_MIN
from tests.forge import GOLDEN, invoke

# 1ri's morale_cause is null at seq 3: a null field takes a value of any type.
AT = "3"


@pytest.mark.parametrize(
    ("value", "fragment"),
    [
        (str(INT_MAX + 1), f"{INT_MAX + 1} is out of range"),
        (str(INT_MIN - 1), f"{INT_MIN - 1} is out of range"),
        (f"[1, [{INT_MAX + 1}]]", f"{INT_MAX + 1} is out of range"),
        ("!!binary aGk=", "tag 'tag:yaml.org,2002:binary' is not allowed"),
    ],
)
def test_a_value_no_replay_can_hold_is_refused_before_anything_is_written(
    tmp_path: Path, value: str, fragment: str
) -> None:
    """An integer beyond a replay's 64-bit range (the reader refuses it: the fork
    would be DAMAGED at line 1) or a tag: exit 2, one line, nothing written."""
    out = tmp_path / "f.jsonl"
    args = ["fork", str(GOLDEN), "--at", AT, "--set", f"state.units.1ri.morale_cause={value}"]
    result = invoke(*args, "--out", str(out))
    assert result.exit_code == 2, result.output
    assert result.stderr.count("\n") == 1 and fragment in result.stderr, result.stderr
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    "value", [str(INT_MAX), str(INT_MIN), "[1, [2.5, null]]", "x", "2024-01-01"]
)
def test_a_value_in_range_forks_and_verifies(tmp_path: Path, value: str) -> None:
    """The range's ends, nested lists and text fork, and the fork verifies (a date is
    text, as in a scenario file: the one value reader, :mod:`sim.scenario.values`)."""
    out = tmp_path / "f.jsonl"
    args = ["fork", str(GOLDEN), "--at", AT, "--set", f"state.units.1ri.morale_cause={value}"]
    assert invoke(*args, "--out", str(out)).exit_code == 0
    result = invoke("verify", str(out))
    assert result.exit_code == 0, result.output
