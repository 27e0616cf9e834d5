"""Did-you-mean suggestions and one-pass validation (sim.text.suggest, sim.scenario.diagnose)."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import BaseModel, ConfigDict, ValidationError

from sim.rulesets.musket.model.scenario import MusketScenario
from sim.scenario.diagnose import hint_known, known_fields, one_per_field, untagged
from sim.scenario.load import (
    ScenarioError,
    error_message,
    load_scenario,
    parse_yaml,
    validate_data,
)
from sim.text.suggest import did_you_mean, known

VALID = Path(__file__).resolve().parents[1] / "data" / "valid_small.yaml"


def test_did_you_mean_picks_the_closest_or_nothing() -> None:
    """Close names are suggested (case aside); far ones are not; ties go to sorted order."""
    assert did_you_mean("strenght", ["strength", "quality"]) == "; did you mean 'strength'?"
    assert did_you_mean("c", ["A", "B", "C"]) == "; did you mean 'C'?"
    assert did_you_mean("laser", ["smoothbore", "carbine"]) == ""
    assert known(["b", "a", "c"], limit=2) == "a, b, …"


def test_known_fields_follow_the_model_through_lists_and_unions() -> None:
    """At sides.0.units.0 the unit's fields are known; at the top the scenario's."""
    unit = known_fields(MusketScenario, ("sides", 0, "units", 0))
    assert {"strength", "quality", "weapon", "order", "at"} <= unit
    assert {"turns", "map", "sides", "victory"} <= known_fields(MusketScenario, ())


def test_hint_known_rewrites_a_close_unknown_name() -> None:
    """'unknown weapon ...; known: ...' becomes a suggestion only when one is close."""
    far = "unknown weapon 'laser'; known: carbine, smoothbore"
    assert hint_known(far) == far
    near = "unknown weapon 'carbin'; known: carbine, smoothbore"
    assert hint_known(near) == "unknown weapon 'carbin'; did you mean 'carbine'?"


def _problems(text: str) -> list[str]:
    data, lines = parse_yaml(text, "t.yaml")
    with pytest.raises(ScenarioError) as info:
        validate_data(data, lines, "t.yaml")
    return [str(p) for p in info.value.problems]


def test_a_typo_is_reported_once_and_read_as_meant() -> None:
    """'strenght' is one problem (not also 'strength missing'); the cross checks still run."""
    text = VALID.read_text(encoding="utf-8").replace("strength: 400", "strenght: 400", 1)
    text = text.replace("at: [1, 1]", "at: [1, 9]")
    assert _problems(text) == [
        "t.yaml:22: sides.0.units.0.strenght: unknown field; did you mean 'strength'?",
        "t.yaml:44: sides.1.units.0.at: hex [1, 9] is off the 6x6 map",
    ]


R2 = """      - id: r2
        name: Second Red
        kind: infantry
        strength: 400
        quality: C
        weapon: rifle_musket
        at: [9, 9]
"""


def test_consequences_of_a_left_out_unit_are_not_repeated() -> None:
    """Broken r1 is reported, and r2 off the map; 'no unit r1' (b1's order target) is not."""
    text = VALID.read_text(encoding="utf-8").rstrip("\n") + "\n" + R2
    text = text.replace(
        "strength: 400\n        quality: C\n        weapon: rifle_musket\n        at: [1, 1]",
        "strength: 0\n        quality: C\n        weapon: rifle_musket\n        at: [1, 1]",
    )
    assert _problems(text) == [
        "t.yaml:41: sides.1.units.0.strength: 0 is less than 1, the least it may be",
        "t.yaml:51: sides.1.units.1.at: hex [9, 9] is off the 6x6 map",
    ]


TEMPLATES = Path(__file__).resolve().parents[2] / "sim" / "rulesets"


@pytest.mark.parametrize(
    ("ruleset", "edits", "expected"),
    [
        ("musket", [("- id: b2", "- id: b1"), ("strength: 450 ", "strength: -4 ")],
         ["sides.0.units.0.strength: -4 is less than 1, the least it may be",
          "sides.0.units.1.id: unit id 'b1' is used twice (first on line 31)"]),
        ("musket", [("at: [5, 8]", "at: [4, 8]"), ("strength: 450 ", "strength: -4 ")],
         ["sides.0.units.0.strength: -4 is less than 1, the least it may be",
          "sides.0.units.1.at: hex [4, 8] already holds 'b1'"]),
        ("becmi", [("{id: g2,", "{id: g1,"), ("ac: 6, hp: 4,", "ac: 6, hp: 0,")],
         ["sides.1.monsters.0.hp: 0 is less than 1, the least it may be",
          "sides.1.monsters.1.id: id 'g1' is used twice (first on line 44)"]),
    ],
)  # fmt: skip
def test_a_sibling_clash_is_reported_beside_a_units_own_type_error(
    ruleset: str, edits: list[tuple[str, str]], expected: list[str], tmp_path: Path
) -> None:
    """A unit with a bad field is mended to check its other fields; what its presence makes
    outside it (a sibling with its id, a unit in its hex) is reported in the same pass too
    (it was seen only once the bad field was fixed, unless the unit came later)."""
    text = (TEMPLATES / ruleset / "template.yaml").read_text(encoding="utf-8")
    for old, new in edits:
        assert text.count(old) >= 1, old
        text = text.replace(old, new, 1)
    path = tmp_path / "s.yaml"
    path.write_text(text.replace("{name}", '"A test"'), encoding="utf-8")
    with pytest.raises(ScenarioError) as exc:
        load_scenario(path)
    assert [f"{p.field}: {p.message}" for p in exc.value.problems] == expected


@pytest.mark.parametrize(
    ("bad", "said"),
    [
        ("at: abc", "sides.0.units.0.at: 'abc' is not a list"),
        ("at: [4, 8, 2]", "sides.0.units.0.at: [4, 8, 2] has 3 items: at most 2"),
        ("at: 4, 8", "sides.0.units.0.at: '4, 8' is not a list: write it in brackets, [4, 8]"),
        ("at: -1,8", "sides.0.units.0.at: '-1,8' is not a list: write it in brackets, [-1, 8]"),
    ],
)
def test_a_hex_lent_to_a_unit_with_a_bad_at_is_not_said_to_clash(
    bad: str, said: str, tmp_path: Path
) -> None:
    """A unit whose ``at`` is no hex is mended with its sibling's (b2's [5, 8]) to check its
    other fields; that b2's hex then "already holds 'b1'" is the mending's, not the file's (it
    was said as a second problem, at a line the file has right)."""
    text = (TEMPLATES / "musket" / "template.yaml").read_text(encoding="utf-8")
    assert text.count("at: [4, 8]") == 1 and "at: [5, 8]" in text
    path = tmp_path / "s.yaml"
    path.write_text(text.replace("at: [4, 8]", bad).replace("{name}", '"A test"'), "utf-8")
    with pytest.raises(ScenarioError) as exc:
        load_scenario(path)
    assert [f"{p.field}: {p.message}" for p in exc.value.problems] == [said]


def test_the_problems_are_said_in_the_files_order(tmp_path: Path) -> None:
    """Three bad options, written in the order ``fire_scael``, ``rout_contagion``,
    ``fire_hcv``, are said in that order, line by line (they were said bottom to top:
    pydantic's model order, an unknown field last)."""
    text = (TEMPLATES / "musket" / "template.yaml").read_text(encoding="utf-8")
    assert "\noptions:" not in text and text.count("\nturns:") == 1
    block = "options:\n  fire_scael: 2\n  rout_contagion: 9\n  fire_hcv: -5\nturns:"
    path = tmp_path / "s.yaml"
    text = text.replace("\nturns:", "\n" + block, 1).replace("{name}", '"A test"')
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ScenarioError) as exc:
        load_scenario(path)
    said = [(p.field, p.message) for p in exc.value.problems]
    assert said == [
        ("options.fire_scael", "unknown field; did you mean 'fire_scale'?"),
        ("options.rout_contagion", "9 is more than 3, the most it may be"),
        ("options.fire_hcv", "-5 is less than 0, the least it may be"),
    ]
    lines = [p.line for p in exc.value.problems]
    assert lines == sorted(lines) and len(set(lines)) == 3


class _Forest(BaseModel):
    model_config = ConfigDict(extra="forbid")
    density: float


class _River(BaseModel):
    model_config = ConfigDict(extra="forbid")
    width: int


class _Patch(BaseModel):
    model_config = ConfigDict(extra="forbid")
    terrain: _Forest | _River
    share: bool | float | None = None


class _Map(BaseModel):
    model_config = ConfigDict(extra="forbid")
    patches: list[_Patch]


def _said(data: dict[str, object]) -> list[tuple[tuple[str | int, ...], str]]:
    try:
        _Map.model_validate(data)
    except ValidationError as exc:
        found = [(tuple(e["loc"]), error_message(e)) for e in exc.errors()]
        return one_per_field(_Map, found)
    raise AssertionError("valid")


def test_a_union_tag_is_dropped_and_a_misspelt_field_under_it_kept() -> None:
    """A value fitting none of a union's types is one problem at the field (its alternatives'
    tags, ``share.bool`` and ``share.float``, dropped); a misspelt field inside a union of
    models keeps its name (``terrain.densty``), its alternative's tag alone dropped."""
    assert _said({"patches": [{"terrain": {"density": 0.5}, "share": [1, 2]}]}) == [
        (("patches", 0, "share"), "[1, 2] is not true or false, nor a number")
    ]
    said = _said({"patches": [{"terrain": {"density": 0.5, "densty": 0.6}}]})
    assert (("patches", 0, "terrain", "densty"), "unknown field") in said
    assert untagged(_Map, ("patches", 0, "terrain", "_Forest", "densty")) == (
        "patches", 0, "terrain", "densty",
    )  # fmt: skip


def test_an_unknown_name_of_any_length_is_echoed_by_its_start_and_its_length() -> None:
    """A ruleset's ``unknown weapon '…'`` of a 3,000-character name made a 3,154-character
    line: the name is shown by its first characters and its length, the known names kept."""
    said = hint_known("unknown weapon '" + "x" * 3000 + "'; known: carbine, smoothbore")
    assert (
        said == "unknown weapon '" + "x" * 58 + "…' (3,000 characters); known: carbine, smoothbore"
    )
    assert hint_known("unknown weapon 'muskt'; known: musket") == (
        "unknown weapon 'muskt'; did you mean 'musket'?"
    )


def test_a_text_too_long_is_shown_by_its_start_and_counted_once() -> None:
    """A side's name of 200 characters (at most 120): its start, then its length, once (it
    said "'xxx…' (202 characters) has 200 characters", the first count with the quotes)."""
    import yaml

    data = yaml.safe_load(VALID.read_text(encoding="utf-8"))
    data["turns"]["start"] = "14:00"  # PyYAML's 840 (base 60); battlesim reads the text
    data["sides"][0]["name"] = "x" * 200
    with pytest.raises(ScenarioError) as info:
        validate_data(data, {}, "long.yaml")
    (problem,) = info.value.problems
    assert (problem.field, problem.message) == (
        "sides.0.name",
        "'" + "x" * 58 + "… has 200 characters: at most 120",
    )
