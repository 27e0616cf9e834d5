"""A fork's --set value is one its replay's reader reads back, or it is refused first."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.safety.strictjson import INT_MAX, INT_MIN
from tests.forge import GOLDEN, invoke

# 1ri's morale_cause (an int | None) is null at seq 3: set_path has no value to compare with.
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


@pytest.mark.parametrize("value", [str(INT_MAX), str(INT_MIN)])
def test_a_value_in_range_forks_and_verifies(tmp_path: Path, value: str) -> None:
    """The range's ends fork, and the fork verifies."""
    out = tmp_path / "f.jsonl"
    args = ["fork", str(GOLDEN), "--at", AT, "--set", f"state.units.1ri.morale_cause={value}"]
    assert invoke(*args, "--out", str(out)).exit_code == 0
    result = invoke("verify", str(out))
    assert result.exit_code == 0, result.output


@pytest.mark.parametrize(
    ("value", "shown"),
    [("[1, [2.5, null]]", "[1, [2.5, null]]"), ("x", '"x"'), ("2024-01-01", '"2024-01-01"')],
)
def test_a_value_its_field_does_not_declare_is_refused_though_the_field_is_null(
    tmp_path: Path, value: str, shown: str
) -> None:
    """A null field's value has no type to compare with, but the field has a declared
    one (``int | None``): nested lists and text (a date is text, as in a scenario file)
    are refused in one line, exit 2, and nothing is written (they went into the battle
    as they were, and into the events that named the unit's morale cause)."""
    out = tmp_path / "f.jsonl"
    args = ["fork", str(GOLDEN), "--at", AT, "--set", f"state.units.1ri.morale_cause={value}"]
    result = invoke(*args, "--out", str(out))
    assert result.exit_code == 2, result.output
    assert result.stderr == (
        "battlesim: error: --set state.units.1ri.morale_cause: input should be a valid "
        f"integer (the field is int | None), not {shown}\n"
    )
    assert list(tmp_path.iterdir()) == []
