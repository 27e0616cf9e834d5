"""Strict scalar types: YAML 1.1 booleans, text and fractions never pass as numbers or booleans.

Every scenario, study, campaign and ``--set`` value is read with YAML 1.2's
booleans (only ``true``/``false``) and validated as the JSON it is
(:func:`sim.contract.bases.validate_plain`), so ``seed: yes`` is not seed 1,
``hp: true`` not 1 hp, ``ac: "6"`` not 6 and ``hp: 24.0`` not 24.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sim.cli import cli
from sim.scenario.load import CoreLoader, ScenarioError, load_scenario, parse_yaml

TAVERN = Path("scenarios/tavern_brawl.yaml").read_text(encoding="utf-8")
STONE = Path("scenarios/stone_wall.yaml").read_text(encoding="utf-8")
# the same scenario in block style, one field a line (the shipped file writes units as flow maps)
STONE_BLOCK = yaml.safe_dump(yaml.safe_load(STONE), sort_keys=False)

# (scenario text, the line's exact text, field path as the error names it)
FIELDS = [
    (
        TAVERN,
        "        level: 4             # THAC0 17 (seed L24, F 4-6)",
        "sides.0.characters.0.level",
    ),
    (TAVERN, "        hp: 24", "sides.0.characters.0.hp"),
    (TAVERN, "        ac: 6\n", "sides.1.monsters.0.ac"),
    (
        TAVERN,
        "  monster_morale: true # orcs may bolt for the door (2d6 against ML 8)",
        "options.monster_morale",
    ),
    (STONE_BLOCK, "    strength: 260\n", "sides.0.units.0.strength"),
]

# YAML text → how it must be refused: a word every message has
BAD_FOR_INT = {
    "yes": "'yes' is not an integer",
    "on": "'on' is not an integer",
    "no": "'no' is not an integer",
    "true": "true is not an integer",
    '"6"': "'6' is text, not an integer: write the number without quotes",
    "24.0": "24.0 is not an integer: write 24",
    "6.5": "6.5 is not an integer",
    # YAML 1.2's numbers: an exponent needs no decimal point, a leading zero is not octal
    "6e0": "6e0 is not an integer: write 6",
    "25E-1": "25E-1 is not an integer",
    '"1e3"': "'1e3' is text, not an integer: write the number without quotes",
}
BAD_FOR_BOOL = {
    '"yes"': "'yes' is not true or false (write true or false)",
    "yes": "'yes' is not true or false (write true or false)",
    "off": "'off' is not true or false (write true or false)",
    '"true"': "'true' is not true or false (write true or false)",
    "1": "1 is not true or false",
}


def _with(text: str, line: str, value: str) -> str:
    key, _, _ = line.strip().partition(":")
    indent = line[: len(line) - len(line.lstrip())]
    new = f"{indent}{key}: {value}" + ("\n" if line.endswith("\n") else "")
    assert text.count(line) >= 1
    return text.replace(line, new, 1)


def _line_of(text: str, line: str) -> int:
    return text[: text.index(line)].count("\n") + 1


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(case=st.sampled_from(FIELDS), data=st.data())
def test_a_wrong_scalar_is_refused_in_one_line_naming_file_line_and_field(
    case: tuple[str, str, str], data: st.DataObject, tmp_path: Path
) -> None:
    """Each bad value of an integer or true/false field: one problem at its file, line, field."""
    text, line, field = case
    bad = BAD_FOR_BOOL if field.endswith("monster_morale") else BAD_FOR_INT
    value = data.draw(st.sampled_from(sorted(bad)))
    path, problems = _refused(text, line, value, tmp_path)
    assert problems == [f"{path}:{_line_of(text, line)}: {field}: " + bad[value]]


def _refused(text: str, line: str, value: str, folder: Path) -> tuple[Path, list[str]]:
    """The scenario ``text`` with ``line``'s value made ``value``: its file and problems."""
    path = folder / "s.yaml"
    path.write_text(_with(text, line, value), encoding="utf-8")
    with pytest.raises(ScenarioError) as exc:
        load_scenario(path)
    return path, [str(p) for p in exc.value.problems]


@pytest.mark.parametrize("value", sorted(BAD_FOR_INT))
def test_every_bad_integer_is_refused_with_its_words(value: str, tmp_path: Path) -> None:
    """Each of them, on one field (the sampled test above may not draw every one)."""
    text, line, field = FIELDS[-1]
    path, problems = _refused(text, line, value, tmp_path)
    assert problems == [f"{path}:{_line_of(text, line)}: {field}: " + BAD_FOR_INT[value]]


def test_seed_yes_exits_2_with_one_line(tmp_path: Path) -> None:
    """``seed: yes`` (YAML 1.1's true) is refused by run: exit 2, one line, no battle fought."""
    path = tmp_path / "s.yaml"
    path.write_text(re.sub(r"(?m)^seed: .*$", "seed: yes", STONE), encoding="utf-8")
    out = tmp_path / "r.jsonl"
    result = CliRunner().invoke(cli, ["run", str(path), "--out", str(out)])
    assert result.exit_code == 2
    line = _line_of(STONE, "\nseed:") + 1
    assert result.output == f"{path}:{line}: seed: 'yes' is not an integer\n"
    assert not out.exists()


def test_yaml_1_1_words_are_text_and_true_false_are_booleans() -> None:
    """Only true/false (any of YAML 1.2's spellings) are booleans; yes/no/on/off/y/n are text."""
    data, _ = parse_yaml("[yes, no, on, off, y, n, Yes, ON, true, False, TRUE]", "f")
    assert data == ["yes", "no", "on", "off", "y", "n", "Yes", "ON", True, False, True]
    import yaml

    assert yaml.load("a: yes", Loader=CoreLoader) == {"a": "yes"}


def test_float_fields_still_take_integers_and_text_fields_refuse_numbers(tmp_path: Path) -> None:
    """A float field written as an integer loads as a float; a number where text goes is refused."""
    path = tmp_path / "s.yaml"
    path.write_text(
        STONE.replace("    break_losses: 0.4", "    break_losses: 1", 1), encoding="utf-8"
    )
    _, sc = load_scenario(path)
    assert [s.break_losses for s in sc.sides] == [1.0, 0.5]  # type: ignore[attr-defined]
    assert type(sc.sides[0].break_losses) is float  # type: ignore[attr-defined]
    path.write_text(STONE.replace("\nname: ", "\nname: 1863 #", 1), encoding="utf-8")
    with pytest.raises(
        ScenarioError, match=r"name: 1863 is a number, not text: quote it \('1863'\)"
    ):
        load_scenario(path)


@pytest.mark.parametrize("name", sorted(p.name for p in Path("scenarios").glob("*.yaml")))
def test_every_shipped_file_still_loads(name: str) -> None:
    """Scenarios, studies and campaigns shipped in scenarios/ load under strict types."""
    from sim.batch.inputs.target import load_campaign
    from sim.batch.planning.spec import load_study

    path = Path("scenarios") / name
    text = path.read_text(encoding="utf-8")
    if re.search(r"(?m)^targets:", text):
        from sim.calibrate.spec import load_calibration

        load_calibration(path)
    elif re.search(r"(?m)^campaign:", text):
        load_campaign(path)
    elif re.search(r"(?m)^scenario:", text):
        load_study(path)
    else:
        load_scenario(path)


@pytest.mark.parametrize(
    ("line", "value", "message"),
    [
        # a boolean where text goes is no number (it said "true is a number, not text")
        ("name: ", "true", "name: true is true or false, not text: quote it ('true')"),
        # a number where text goes is quoted as written (it said "quote it ('8')" for 08)
        ("name: ", "08", "name: 08 is a number, not text: quote it ('08')"),
        ("name: ", "1e3", "name: 1e3 is a number, not text: quote it ('1e3')"),
        # NaN fails a bound (pydantic: "should be less than or equal to 1000"): say what it is
        ("  fire_hcv: ", ".nan", "options.fire_hcv: NaN is not a number here: write a number"),
    ],
)
def test_a_boolean_for_text_and_a_nan_for_a_bounded_number_say_what_they_are(
    line: str, value: str, message: str, tmp_path: Path
) -> None:
    text = STONE if line != "  fire_hcv: " else STONE + "options:\n  fire_hcv: 25\n"
    old = next(t for t in text.splitlines() if t.startswith(line))
    path = tmp_path / "s.yaml"
    path.write_text(text.replace(old + "\n", f"{line}{value}\n", 1), encoding="utf-8")
    with pytest.raises(ScenarioError) as exc:
        load_scenario(path)
    assert [p.field + ": " + p.message for p in exc.value.problems] == [message]


@pytest.mark.parametrize(
    ("old", "new", "said"),
    [
        ("strength: 260,", "strength: 100000,",
         "sides.0.units.0.strength: 100000 is more than 10000, the most it may be"),
        ("strength: 260,", "strength: 0,",
         "sides.0.units.0.strength: 0 is less than 1, the least it may be"),
        ("quality: C,", "quality: Q,",
         "sides.0.units.0.quality: 'Q' is not one of 'A', 'B', 'C', 'D', 'E' or 'F'"),
        ("at: [4, 6]", "at: [4, 6, 1]", "sides.0.units.0.at: [4, 6, 1] has 3 items: at most 2"),
        ("name: Stone wall at Marye's Heights", "name: ''", "name: is empty: write it out"),
        ("seed: 1862", "seed: ~", "seed: null is not an integer"),
        ("seed: 1862", "seed: .nan", "seed: .nan is not an integer"),
        ("    - terrain: stone_wall\n", "    - terrain: stone_wall\n      cover: -40%\n",
         "map.terrain.0.cover: '-40%' is not an integer: write it without '%' (-40)"),
        ("strength: 260,", "strength: 1.0e+400,", "sides.0.units.0.strength: 1.0e+400 is not an "
         "integer"),  # as written: it reads as infinity
    ],
)  # fmt: skip
def test_a_value_out_of_bounds_or_choices_is_said_in_plain_words_with_the_value(
    old: str, new: str, said: str, tmp_path: Path
) -> None:
    """The errors a file most often has — a number out of its bounds, a choice not among the
    choices, a list too long, an empty name, a null — are said with the value as the file
    wrote it (pydantic's "Input should be less than or equal to 10000" named no value, and
    ``seed: ~`` was shown as Python's ``None``)."""
    assert old in STONE
    path = tmp_path / "s.yaml"
    path.write_text(STONE.replace(old, new, 1), encoding="utf-8")
    with pytest.raises(ScenarioError) as refused:
        load_scenario(path)
    first = refused.value.problems[0]
    assert f"{first.field}: {first.message}" == said
