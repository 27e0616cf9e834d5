"""A scenario's slips said as one line each, with what was meant (sim.scenario.load)."""

from __future__ import annotations

from pathlib import Path

import pytest

from sim.scenario.load import ScenarioError, parse_yaml, validate_data

VALID = Path(__file__).resolve().parents[1] / "data" / "valid_small.yaml"
RED_BLOCK = """      - id: r1
        name: First Red
        kind: infantry
        strength: 400
        quality: C
        weapon: rifle_musket
        at: [1, 1]
"""
RED_FLOW = (
    "      - {id: r1, name: First Red, kind: infantry, strength: 400, quality: C,\n"
    "         weapon: rifle_musket, at: [1, 1]}\n"
)


def _problems(text: str) -> list[str]:
    data, lines = parse_yaml(text, "t.yaml")
    with pytest.raises(ScenarioError) as info:
        validate_data(data, lines, "t.yaml")
    return [str(p) for p in info.value.problems]


def _valid(text: str) -> str:
    """``text`` that must be found valid (so that only the edit made after is wrong)."""
    validate_data(*parse_yaml(text, "t.yaml"), "t.yaml")
    return text


def _red_in_braces() -> str:
    """valid_small.yaml with red's unit written as one flow mapping (on lines 38-39)."""
    text = VALID.read_text(encoding="utf-8")
    assert text.endswith(RED_BLOCK)
    return _valid(text.replace(RED_BLOCK, RED_FLOW))


@pytest.mark.parametrize(
    ("written", "said"),
    [
        ("at: 3,1}", "3 is not a list: inside {…} a comma ends a field, and 1 was read as a "
                     "field of its own; write it in brackets, at: [3, 1]"),
        ("at: 3, 1}", "3 is not a list: inside {…} a comma ends a field, and 1 was read as a "
                      "field of its own; write it in brackets, at: [3, 1]"),
        ("at: 3,1,2}", "3 is not a list: inside {…} a comma ends a field, and 1, 2 were read "
                       "as fields of their own; write it in brackets, at: [3, 1, 2]"),
    ],
)  # fmt: skip
def test_a_list_without_brackets_in_braces_is_one_problem(written: str, said: str) -> None:
    """``{…, at: 3,1}``, the brackets forgotten inside braces, is one problem at ``at`` that
    says what was meant: YAML reads ``at: 3`` and a key ``1`` of no value, which was a second
    line of its own (``sides.1.units.0.1: unknown field``), a consequence of the first."""
    text = _red_in_braces().replace("at: [1, 1]}", written)
    assert _problems(text) == [f"t.yaml:39: sides.1.units.0.at: {said}"]


def test_a_number_key_not_beside_a_list_field_is_still_an_unknown_field() -> None:
    """A key that is a number is read as a list's lost item only right after a list field
    that holds one number, on its line: elsewhere it is an unknown field, as before."""
    text = _red_in_braces().replace("{id: r1,", "{id: r1, 7,")
    assert _problems(text) == ["t.yaml:38: sides.1.units.0.7: unknown field"]
