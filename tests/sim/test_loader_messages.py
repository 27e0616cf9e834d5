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


TEMPLATES = Path(__file__).resolve().parents[2] / "sim" / "rulesets"


def _template(ruleset: str) -> str:
    """A ruleset's template.yaml, valid, as ``new`` writes it."""
    text = (TEMPLATES / ruleset / "template.yaml").read_text(encoding="utf-8")
    return _valid(text.replace("{name}", '"A test"'))


def test_a_side_id_used_twice_is_one_problem_naming_both_lines() -> None:
    """Two sides of one id are one problem, at the second and naming the first's line: the
    orders of the second side's units at the first's were each said 'is not an enemy unit'
    too (both sides read as one), consequences of the id alone."""
    text = VALID.read_text(encoding="utf-8").replace("held_by: red", "held_by: blue")
    text = _valid(text.replace("order: {kind: engage, target: r1}", "")).replace(
        "at: [1, 1]", "at: [1, 1]\n        order: {kind: charge, target: b1}"
    )
    assert _problems(text.replace("- id: red", "- id: blue")) == [
        "t.yaml:34: sides.1.id: side id 'blue' is used twice (first on line 15)"
    ]


def test_a_unit_of_its_own_side_is_still_no_enemy_with_two_sides_of_one_id() -> None:
    """Beside two sides of one id, an order naming a unit of its own side is still said
    to name no enemy: the sides are told apart by their place, not their id."""
    text = VALID.read_text(encoding="utf-8").replace("target: r1", "target: b2")
    text = text.replace("held_by: red", "held_by: blue")
    assert _problems(text.replace("- id: red", "- id: blue")) == [
        "t.yaml:26: sides.0.units.0.order.target: 'b2' is not an enemy unit",
        "t.yaml:34: sides.1.id: side id 'blue' is used twice (first on line 15)",
    ]


def test_a_becmi_side_id_used_twice_is_one_problem_naming_both_lines() -> None:
    """becmi: a combatant's target on the other side is not 'not an enemy' because both
    sides have one id; the id is the one problem."""
    osric = "tactics: advance\n      - id: osric"
    text = _valid(_template("becmi").replace(osric, "target: g1\n        " + osric, 1))
    assert _problems(text.replace("- id: goblins", "- id: party")) == [
        "t.yaml:41: sides.1.id: side id 'party' is used twice (first on line 16)"
    ]


def test_an_id_already_used_by_another_kind_names_the_first_of_that_kind() -> None:
    """flattop: a base given a ship's id names the ship's line, not the task force's that
    comes before it."""
    text = _template("flattop")
    assert _problems(text.replace("- id: base1", "- id: ca1")) == [
        "t.yaml:52: sides.1.bases.0.id: base id 'ca1' is already used by a ship (first on line 49)"
    ]


def test_a_becmi_id_used_twice_names_the_combatant_not_the_side_of_that_id() -> None:
    """becmi: a combatant may share its side's id; a monster given that id too names the
    character's line as the first use, not the side's."""
    text = _valid(_template("becmi").replace("- id: hilda", "- id: party"))
    assert _problems(text.replace("{id: g2,", "{id: party,")) == [
        "t.yaml:46: sides.1.monsters.1.id: id 'party' is used twice (first on line 19)"
    ]


def test_a_side_id_in_another_case_is_offered_the_side() -> None:
    """An objective's ``held_by`` written in the wrong case is offered the side, as an
    order's target is offered its unit (it said only ``no side 'RED'``)."""
    text = VALID.read_text(encoding="utf-8").replace("held_by: red", "held_by: RED")
    assert _problems(text) == [
        "t.yaml:13: victory.objectives.0.held_by: no side 'RED'; did you mean 'red'?"
    ]


@pytest.mark.parametrize(
    ("written", "said"),
    [
        ("rulset: musket", ["t.yaml:2: rulset: unknown field; did you mean 'ruleset'?",
                            "t.yaml:22: sides.0.units.0.strength: 0 is less than 1, the least "
                            "it may be"]),
        ("rulset: broadside", ["t.yaml:2: rulset: unknown field; did you mean 'ruleset'?",
                               "t.yaml:2: rulset: unknown ruleset 'broadside'; installed: "
                               "becmi, flattop, musket"]),
    ],
)  # fmt: skip
def test_a_misspelt_ruleset_key_is_an_unknown_field_at_its_line(
    written: str, said: list[str]
) -> None:
    """A misspelt ``ruleset:`` is said as every misspelt field is, at its line (it said
    ``ruleset: missing`` at the file's first key), and the file is read with the rule
    system it names, so the rest of its problems come in the same pass."""
    text = VALID.read_text(encoding="utf-8").replace("strength: 400", "strength: 0", 1)
    assert _problems(text.replace("ruleset: musket", written)) == said


@pytest.mark.parametrize(
    ("written", "said"),
    [
        ("break_losses: 35", "sides.1.break_losses: 35 is more than 1: a share of the side's "
                             "men, 0 to 1 (0.35 for 35 %)"),
        ("break_units: 100", "sides.1.break_units: 100 is more than 1: a share of the side's "
                             "units, 0 to 1 (1 for 100 %)"),
        ("break_losses: 350", "sides.1.break_losses: 350 is more than 1, the most it may be"),
        ("break_losses: 1.4999988", "sides.1.break_losses: 1.4999988 is more than 1, the most "
                                    "it may be"),
    ],
)  # fmt: skip
def test_a_share_written_as_a_percent_says_it_is_a_share(written: str, said: str) -> None:
    """A share (0 to 1) given a number from 1 to 100 says what it is a share of and how to
    write the percent meant; a number past 100, or with more decimals than a percent is
    written with (calibrate's probe just inside a range's end), is said as before."""
    text = VALID.read_text(encoding="utf-8").replace(
        "retreat: north", f"retreat: north\n    {written}"
    )
    assert _problems(text) == [f"t.yaml:37: {said}"]


@pytest.mark.parametrize(
    ("ruleset", "option", "said"),
    [
        ("musket", "rout_loss: 30", "30 is more than 1: a share of the unit's starting "
                                    "strength, 0 to 1 (0.3 for 30 %)"),
        ("musket", "disrupted_fire_factor: 50", "50 is more than 1, the most it may be"),
        ("flattop", "cripple_fraction: 50", "50 is more than 1: a share of the ship's damage "
                                            "factor, 0 to 1 (0.5 for 50 %)"),
    ],
)  # fmt: skip
def test_an_option_that_is_a_share_says_so_and_a_factor_does_not(
    ruleset: str, option: str, said: str
) -> None:
    """Every field documented as a share says so given a percent; a factor bounded by 1
    (the fire of a disrupted unit, x0.5) is no share and is said as before."""
    lines = _template(ruleset).splitlines()
    seed = next(i for i, line in enumerate(lines) if line.startswith("seed:"))
    lines.insert(seed + 1, f"options: {{{option}}}")  # the templates set no options
    got = _problems("\n".join(lines) + "\n")
    name = option.partition(":")[0]
    assert [p.split(": ", 2)[1:] for p in got] == [[f"options.{name}", said]]
