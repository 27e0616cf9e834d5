"""``battlesim run SCENARIO --set FIELD=VALUE``: a scenario fought with fields changed.

A field is named as a study's factor names it (``options.fire_scale``,
``sides.csa.units.0.strength``); the scenario with the values set is validated as the file
is and is the one the replay's header holds, so the replay is the battle a file with those
values written in would give, byte for byte, and verifies without the file. The file is
not touched. A path to no field, two that set one field, a value the scenario refuses or
an argument without ``=`` is one line on stderr and exit 2, and nothing is written.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from sim import api
from tests.batch.helpers import SCENARIOS, invoke

STONE_WALL = SCENARIOS / "stone_wall.yaml"


def _written_in(tmp_path: Path, edit: dict[str, object]) -> Path:
    """A copy of the stone wall, named as it is, with ``edit`` written into its options."""
    data = yaml.safe_load(STONE_WALL.read_text(encoding="utf-8"))
    data.setdefault("options", {}).update(edit)
    folder = tmp_path / "copy"
    folder.mkdir()
    path = folder / STONE_WALL.name
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("sets", "edit"),
    [
        (["options.fire_scale=1.5"], {"fire_scale": 1.5}),
        (
            ["options.rout_contagion=2", "options.fire_hcv=30"],
            {"rout_contagion": 2, "fire_hcv": 30},
        ),
    ],
)
def test_the_replay_is_the_battle_of_a_file_with_the_values_written_in(
    tmp_path: Path, sets: list[str], edit: dict[str, object]
) -> None:
    """``--set`` on an option the file writes or leaves out at its default (a later option):
    the replay is byte for byte the one fought from a copy with the values written, its
    header's scenario holds them, it verifies, and the scenario file is unchanged."""
    before = STONE_WALL.read_bytes()
    out = tmp_path / "set.jsonl"
    args = [a for s in sets for a in ("--set", s)]
    result = invoke("run", STONE_WALL, "--seed", "7", "-o", out, *args)
    assert result.exit_code == 0, result.output
    written = api.run(_written_in(tmp_path, edit), seed=7, out=tmp_path / "file.jsonl")
    assert out.read_bytes() == Path(written.replay).read_bytes()
    header = json.loads(out.read_text(encoding="utf-8").splitlines()[0])
    for key, value in edit.items():
        assert header["scenario"]["options"][key] == value
    assert api.verify_replay(out).ok
    assert STONE_WALL.read_bytes() == before


def test_a_unit_field_by_its_sides_and_units_ids(tmp_path: Path) -> None:
    """``sides.<id>.units.<id>.strength``, as a factor names it: the header's unit (and so
    the battle) starts with it; the other units as the file has them."""
    data = yaml.safe_load(STONE_WALL.read_text(encoding="utf-8"))
    side = data["sides"][1]
    unit, other = side["units"][0], side["units"][1]
    out = tmp_path / "u.jsonl"
    field = f"sides.{side['id']}.units.{unit['id']}.strength=77"
    assert invoke("run", STONE_WALL, "-o", out, "--set", field).exit_code == 0
    header = json.loads(out.read_text(encoding="utf-8").splitlines()[0])
    units = header["scenario"]["sides"][1]["units"]
    assert (units[0]["id"], units[0]["strength"]) == (unit["id"], 77)
    assert (units[1]["id"], units[1]["strength"]) == (other["id"], other["strength"])


def _refused(tmp_path: Path, *sets: str) -> str:
    out = tmp_path / "r.jsonl"
    result = invoke("run", STONE_WALL, "-o", out, *[a for s in sets for a in ("--set", s)])
    assert result.exit_code == 2, result.output
    assert not out.exists() and not list(tmp_path.iterdir())
    lines = result.stderr.splitlines()
    assert len(lines) == 1, lines
    return lines[0]


def test_a_path_to_no_field_names_the_nearest(tmp_path: Path) -> None:
    assert _refused(tmp_path, "options.fire_scal=1.5") == (
        f"{STONE_WALL}: --set options.fire_scal: no field 'fire_scal' in options; "
        "did you mean 'options.fire_scale'?"
    )


def test_a_value_the_scenario_refuses_names_the_flag_and_no_line(tmp_path: Path) -> None:
    """The file was valid: the problem is the value set, so no line of the file is named."""
    assert _refused(tmp_path, "options.rout_contagion=9") == (
        f"{STONE_WALL}: --set options.rout_contagion: 9 is more than 3, the most it may be"
    )


def test_a_hex_written_without_brackets_is_said_how_to_write(tmp_path: Path) -> None:
    """``at=9,9`` reaches the scenario as the text '9,9': it is said to be no list, and how
    to write one; the hex lent to check the unit's other fields is not said to clash with a
    sibling's (tests/sim/test_diagnose.py)."""
    assert _refused(tmp_path, "sides.usa.units.116pa.at=9,9") == (
        f"{STONE_WALL}: --set sides.usa.units.116pa.at: '9,9' is not a list: write it in "
        "brackets, [9, 9]"
    )
    assert _refused(tmp_path, "sides.usa.units.116pa.at=abc") == (
        f"{STONE_WALL}: --set sides.usa.units.116pa.at: 'abc' is not a list"
    )


def test_one_field_set_twice_or_inside_another_is_refused(tmp_path: Path) -> None:
    assert _refused(tmp_path, "options.fire_scale=1", "options.fire_scale=2") == (
        f"{STONE_WALL}: --set options.fire_scale: sets what --set options.fire_scale sets; "
        "give each field once"
    )
    assert _refused(tmp_path, "map.terrain.0=x", "map.terrain.0.cover=1") == (
        f"{STONE_WALL}: --set map.terrain.0.cover: sets what --set map.terrain.0 sets; "
        "give each field once"
    )


@pytest.mark.parametrize(
    ("given", "said"),
    [
        ("options.fire_scale", "expected FIELD=VALUE"),
        ("=5", "expected FIELD=VALUE"),
        ("options={}", "set one field at a time, not a mapping"),
        ("options.fire_scale=*a", "aliases (*a) are not allowed in a value"),
        ("options.fire_scale=[1,", "not valid YAML: while parsing a flow node (line 1), "
         "expected the node content, but found '<stream end>'"),
        ("options.fire_scale=99999999999999999999999999", "99999999999999999999999999 is out "
         "of range (a replay holds integers from -9223372036854775808 to 18446744073709551615)"),
    ],
)  # fmt: skip
def test_an_argument_that_is_no_assignment_names_the_file_and_the_flag(
    tmp_path: Path, given: str, said: str
) -> None:
    """An argument without ``=`` or a value that is no plain data: one line naming the
    scenario file and the flag, as a value the scenario refuses is named (it named the flag
    alone, after ``battlesim: error:``)."""
    assert _refused(tmp_path, given) == f"{STONE_WALL}: --set {given!r}: {said}"


@pytest.mark.parametrize(
    ("given", "said"),
    [
        ("ruleset=flattop", "a scenario's ruleset cannot be set: it decides what every other "
         "field of the file is (a battle of another ruleset is another file: battlesim new "
         "RULESET NAME.yaml)"),
        ("ruleset=musket", "a scenario's ruleset cannot be set: it decides what every other "
         "field of the file is (a battle of another ruleset is another file: battlesim new "
         "RULESET NAME.yaml)"),
        ("name=My wall", "the battle's name cannot be set: a replay names its scenario file "
         "and verify holds the battle's name to that file's; copy the file to fight it under "
         "another name"),
    ],
)  # fmt: skip
def test_the_ruleset_and_the_name_are_refused_in_one_line(
    tmp_path: Path, given: str, said: str
) -> None:
    """``--set ruleset=flattop`` was refused in 49 lines, one for each musket field flattop
    does not have; ``--set name=…`` was fought, and its replay failed ``verify`` (MISMATCH at
    line 1: the file it names, stone_wall.yaml, is the scenario "Stone wall at Marye's
    Heights", not this battle's 'My wall')."""
    field = given.partition("=")[0]
    assert _refused(tmp_path, given) == f"{STONE_WALL}: --set {field}: {said}"


def test_the_description_and_a_side_s_name_set_are_fought_and_verify(tmp_path: Path) -> None:
    """The description and a side's name are free: fought, and the replay verifies."""
    out = tmp_path / "d.jsonl"
    result = invoke(
        "run", STONE_WALL, "-o", out, "--set", "description=Another day",
        "--set", "sides.csa.name=Конфедерация",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("stone_wall.yaml (seed 1862): Конфедерация wins after ")
    assert api.verify_replay(out).ok


def test_an_index_from_the_end_of_a_list_of_one_is_refused_saying_how_to_count(
    tmp_path: Path,
) -> None:
    """Thorgrim is the one character of his side: ``characters.1`` and ``characters.-1``
    (Python's last item, read as an id) are refused saying how many items there are and how
    an index counts (they said "has 1 items" and "no item with id '-1' … (ids: thorgrim)")."""
    brawl = SCENARIOS / "tavern_brawl.yaml"
    said = []
    for index in ("1", "-1"):
        result = invoke("run", brawl, "-o", tmp_path / "b.jsonl",
                        "--set", f"sides.thorgrim.characters.{index}.hp=5")  # fmt: skip
        assert result.exit_code == 2
        said += result.stderr.splitlines()
    assert said == [
        f"{brawl}: --set sides.thorgrim.characters.1.hp: sides.thorgrim.characters has 1 item; "
        "no index 1",
        f"{brawl}: --set sides.thorgrim.characters.-1.hp: no index -1 in "
        "sides.thorgrim.characters: an index counts from 0, not back from the end (1 item: "
        "only 0)",
    ]
    assert not list(tmp_path.iterdir())


@pytest.mark.parametrize(
    ("given", "said"),
    [
        ("sides.csa.units.phil.strength=-5", "-5 is less than 1, the least it may be"),
        ("sides.1.units.phil.strength=-5", "-5 is less than 1, the least it may be"),
        ("sides.csa.name=" + "x" * 121, "'" + "x" * 58 + "… has 121 characters: at most 120"),
    ],
)
def test_a_value_refused_at_a_path_through_ids_names_the_flag_as_typed(
    tmp_path: Path, given: str, said: str
) -> None:
    """A path through a side's and a unit's ids: the refusal names ``--set`` as typed, as it
    does a path of keys (it named the field by its indexes, ``sides.1.units.2.strength: … (after
    --set sides.csa.units.phil.strength)``)."""
    assert _refused(tmp_path, given) == f"{STONE_WALL}: --set {given.partition('=')[0]}: {said}"


def test_a_calibrations_patch_is_fought_as_its_fields_set(tmp_path: Path) -> None:
    """``--patch DIR/patch.yaml`` (calibrate's best point, ``field.path: value`` a line, its
    comments too) fights the battle those fields set with ``--set`` give, byte for byte: the
    patch of a fit on history cases, which has no ``calibrated.yaml``, can be applied."""
    patch = tmp_path / "patch.yaml"
    patch.write_text(
        "# battlesim calibrate fit.yaml: the best point (trial 7, objective 0.006).\n"
        "map.terrain.0.cover: -20\nsides.usa.break_losses: 0.5784646632163474\n",
        encoding="utf-8",
    )
    fort = SCENARIOS / "fort_wagner.yaml"
    by_patch = invoke("run", fort, "--patch", patch, "-o", tmp_path / "p.jsonl")
    assert by_patch.exit_code == 0, by_patch.output
    by_set = invoke(
        "run", fort, "--set", "map.terrain.0.cover=-20",
        "--set", "sides.usa.break_losses=0.5784646632163474", "-o", tmp_path / "s.jsonl",
    )  # fmt: skip
    assert by_set.exit_code == 0, by_set.output
    assert (tmp_path / "p.jsonl").read_bytes() == (tmp_path / "s.jsonl").read_bytes()
    # with --set beside it, each field still once
    both = invoke(
        "run", fort, "--patch", patch, "--set", "options.fire_scale=1.5", "-o", tmp_path / "b.jsonl"
    )  # not into the folder the suite runs from
    assert both.exit_code == 0, both.output


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "- map.terrain.0.cover\n",
            "{p}: not a patch: write one field.path: value a line, as calibrate's patch.yaml does",
        ),
        (
            "a: [1\n",
            "{p}:2: not valid YAML: while parsing a flow sequence (line 1), expected ',' or "
            "']', but got '<stream end>'",
        ),
        (
            "map.terain.0.cover: -20\n",
            "{p}:1: map.terain.0.cover: no field 'terain' in map; did you mean 'map.terrain'?",
        ),
        (
            "# the best point\noptions.fire_scale: 1.5\nmap.terain.0.cover: -20\n",
            "{p}:3: map.terain.0.cover: no field 'terain' in map; did you mean 'map.terrain'?",
        ),
        (
            "options.fire_scale: 1.5\nsides.usa.units.0.strength: -3\n",
            "{p}:2: sides.usa.units.0.strength: -3 is less than 1, the least it may be",
        ),
        (  # a nested mapping would replace the whole section (every wall and wood gone)
            "map:\n  width: 12\n  height: 12\n",
            "{p}:1: map: set one field at a time, not a mapping: write map.width: 12 a line, "
            "as calibrate's patch.yaml does",
        ),
        (
            "options.fire_scale: 1.5\noptions: {close_fire_factor: 2}\n",
            "{p}:2: options: set one field at a time, not a mapping: write "
            "options.close_fire_factor: 2 a line, as calibrate's patch.yaml does",
        ),
        (
            "options: {}\n",
            "{p}:1: options: set one field at a time, not a mapping: write options.FIELD: "
            "VALUE a line, as calibrate's patch.yaml does",
        ),
        (
            "ruleset: becmi\n",
            "{p}:1: ruleset: a scenario's ruleset cannot be set: it decides what every other "
            "field of the file is (a battle of another ruleset is another file: battlesim new "
            "RULESET NAME.yaml)",
        ),
    ],
)  # fmt: skip
def test_a_patch_that_cannot_be_applied_is_one_line_and_exit_2(
    tmp_path: Path, text: str, message: str
) -> None:
    patch = tmp_path / "patch.yaml"
    patch.write_text(text, encoding="utf-8")
    fort = SCENARIOS / "fort_wagner.yaml"
    result = invoke("run", fort, "--patch", patch, "-o", tmp_path / "p.jsonl")
    assert result.exit_code == 2
    assert result.stderr.splitlines() == [message.format(p=patch, s=fort)]
    assert not (tmp_path / "p.jsonl").exists()


def test_a_set_beside_a_patch_is_named_as_typed_and_the_patch_by_its_line(
    tmp_path: Path,
) -> None:
    """A field in both is refused at the ``--set`` (the later), naming the patch's line it
    sets again; a ``--set`` beside a patch is still named as typed."""
    patch = tmp_path / "patch.yaml"
    patch.write_text("map.terrain.0.cover: -20\noptions.fire_scale: 1.5\n", encoding="utf-8")
    fort = SCENARIOS / "fort_wagner.yaml"
    for given, message in (
        (
            "options.fire_scale=2",
            f"{fort}: --set options.fire_scale: sets what options.fire_scale ({patch}:2) sets; "
            "give each field once",
        ),
        (
            "map.terain.0.cover=1",
            f"{fort}: --set map.terain.0.cover: no field 'terain' in map; did you mean "
            "'map.terrain'?",
        ),
    ):
        result = invoke("run", fort, "--patch", patch, "--set", given, "-o", tmp_path / "p.jsonl")
        assert [result.exit_code, result.stderr.splitlines()] == [2, [message]]
        assert not (tmp_path / "p.jsonl").exists()
