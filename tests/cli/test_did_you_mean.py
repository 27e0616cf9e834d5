""" "Did you mean" for every name a user types, and never a poor match (issue 24)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from sim.cli import cli
from sim.replay.file import ReplayFile
from sim.replay.fork import FIXED
from sim.text.suggest import close_names, did_you_mean, edit_distance

REPO = Path(__file__).resolve().parents[2]
SCENARIOS = REPO / "scenarios"
GOLDEN = REPO / "replays" / "stone_wall-s1862.jsonl"


def _invoke(*args: str) -> Result:
    result = CliRunner().invoke(cli, list(args), prog_name="battlesim")
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result


def _edited(tmp_path: Path, name: str, old: str, new: str) -> Path:
    text = (SCENARIOS / name).read_text()
    assert text.count(old) >= 1, old
    path = tmp_path / name
    path.write_text(text.replace(old, new, 1))
    return path


def test_edit_distance_counts_a_swap_as_one_edit() -> None:
    """Insert, delete, change and a swap of neighbours are one edit each."""
    assert edit_distance("fire_hvc", "fire_hcv") == 1
    assert edit_distance("24gaa", "24ga") == 1
    assert edit_distance("strenght", "strength") == 1
    assert edit_distance("cruiser", "carrier") == 3
    assert edit_distance("", "abc") == 3


def test_a_poor_match_is_never_offered() -> None:
    """'cruiser' is not 'carrier'; a word of a name is: both cruisers, in sorted order."""
    kinds = ["carrier", "light_carrier", "battleship", "heavy_cruiser", "light_cruiser"]
    assert did_you_mean("cruiser", kinds) == "; did you mean 'heavy_cruiser' or 'light_cruiser'?"
    assert did_you_mean("cruiser", ["carrier", "destroyer", "auxiliary"]) == ""
    assert did_you_mean("tank", ["carrier", "destroyer"]) == ""
    assert close_names("c", ["A", "B", "C"]) == ["C"]
    assert close_names("restore-invert", ["restore-inverts-snapshot", "fold"]) == [
        "restore-inverts-snapshot"
    ]


def test_enum_value_kind_cruiser_suggests_the_cruisers(tmp_path: Path) -> None:
    """`kind: cruiser` in a flattop scenario names heavy_cruiser and light_cruiser, not carrier."""
    path = _edited(tmp_path, "carrier_duel.yaml", "kind: heavy_cruiser", "kind: cruiser")
    result = _invoke("validate", str(path))
    assert result.exit_code == 2
    assert result.stderr.endswith(
        "or 'auxiliary'; did you mean 'heavy_cruiser' or 'light_cruiser'?\n"
    )


@pytest.mark.parametrize(
    ("scenario", "old", "new", "line"),
    [
        (
            "stone_wall.yaml",
            "target: 24ga}",
            "target: 24gaa}",
            "sides.0.units.1.order.target: no unit '24gaa'; did you mean '24ga'?",
        ),
        (
            "dungeon_skirmish.yaml",
            "target: alaric",
            "target: alaricc",
            "sides.1.monsters.4.target: no combatant 'alaricc'; did you mean 'alaric'?",
        ),
        (
            "carrier_duel.yaml",
            "target: shokaku}",
            "target: shokaku2}",
            "sides.0.strikes.0.attacks.0.target: no ship 'shokaku2' in kido; "
            "did you mean 'shokaku'?",
        ),
        (
            "carrier_duel.yaml",
            "target: kido",
            "target: kid0",
            "sides.0.strikes.0.target: 'kid0' is not a task force of red; did you mean 'kido'?",
        ),
    ],
)
def test_a_misspelt_unit_id_gets_a_suggestion(
    tmp_path: Path, scenario: str, old: str, new: str, line: str
) -> None:
    """Orders and targets naming no unit suggest the enemy unit meant, in every ruleset."""
    result = _invoke("validate", str(_edited(tmp_path, scenario, old, new)))
    assert result.exit_code == 2
    assert line in result.stderr.splitlines()[0], result.stderr


def test_sweep_path_suggests_the_field_meant(tmp_path: Path) -> None:
    """`--sweep options.fire_hvc` names options.fire_hcv instead of listing 37 fields."""
    out = str(tmp_path / "b")
    scenario = str(SCENARIOS / "stone_wall.yaml")
    result = _invoke("batch", scenario, "--sweep", "options.fire_hvc=1,2", "--runs", "1", "-o", out)
    assert (result.exit_code, result.stderr) == (
        2,
        f"battlesim: error: {scenario}: --sweep options.fire_hvc: no field 'fire_hvc' in options; "
        "did you mean 'options.fire_hcv'?\n",
    )
    result = _invoke(
        "batch", scenario, "--sweep", "sides.csa.units.phi.strength=1,2", "--runs", "1", "-o", out
    )
    assert result.stderr == (
        f"battlesim: error: {scenario}: --sweep sides.csa.units.phi.strength: no item with id "
        "'phi' in "
        "sides.csa.units; did you mean 'sides.csa.units.phil'?\n"
    )


def test_fork_set_suggests_the_event_or_state_field_meant(tmp_path: Path) -> None:
    """A misspelt event field, state field or unit id after `--set` gets a suggestion."""
    out = str(tmp_path / "f.jsonl")
    cases = {
        "rol=6": "--set rol: no field 'rol' in event musket.morale_tested (seq 8); "
        "did you mean 'roll'?",
        "state.units.69ny.strenght=6": "--set state.units.69ny.strenght: no field 'strenght'; "
        "did you mean 'strength'?",
        "state.units.69nyy.strength=6": "--set state.units.69nyy.strength: no unit '69nyy' in "
        "this battle; did you mean '69ny'?",
    }
    for assignment, message in cases.items():
        result = _invoke("fork", str(GOLDEN), "--at", "8", "--set", assignment, "-o", out)
        assert (result.exit_code, result.stderr) == (2, f"battlesim: error: {message}\n")


def test_fork_set_of_a_name_near_none_lists_what_may_be_set(tmp_path: Path) -> None:
    """With no name close enough, `--set` lists the event's fields a fork may change (not the
    log's and clock's: FIXED) or the state's names there it may set (not the ruleset's
    derived fields), sorted, up to twenty."""
    replay = ReplayFile(GOLDEN)
    event = replay.event(8)
    settable = sorted(name for name in type(event).model_fields if name not in FIXED)
    derived = replay.ruleset.derived_fields  # refused wherever they stand: not offered
    unit = replay.after(8).units["69ny"]
    names = sorted(f.name for f in dataclasses.fields(unit) if f.name not in derived)
    assert {"hex", "side"} <= set(derived) and "hex" not in names
    assert len(names) <= 20 and len(settable) <= 20
    out = str(tmp_path / "f.jsonl")
    cases = {
        "nosuch=6": f"--set nosuch: no field 'nosuch' in event {event.type} (seq 8); "
        f"it has {', '.join(settable)}",
        "state.units.69ny.zzz=6": f"--set state.units.69ny.zzz: no field 'zzz'; "
        f"it has {', '.join(names)}",
    }
    for assignment, message in cases.items():
        result = _invoke("fork", str(GOLDEN), "--at", "8", "--set", assignment, "-o", out)
        assert (result.exit_code, result.stderr) == (2, f"battlesim: error: {message}\n")


def test_new_suggests_the_ruleset_meant(tmp_path: Path) -> None:
    """`new muskett` suggests musket; a name near none lists the installed rulesets."""
    result = _invoke("new", "muskett", str(tmp_path / "x.yaml"))
    assert (result.exit_code, result.stderr) == (
        2,
        "battlesim: error: unknown ruleset 'muskett'; did you mean 'musket'?\n",
    )
    result = _invoke("check-ruleset", "becmii")
    assert result.stderr == "battlesim: error: unknown ruleset 'becmii'; did you mean 'becmi'?\n"


def test_two_letter_names_one_edit_apart_are_not_close() -> None:
    """'r9' is not 'r1': one edit in two letters is no near miss."""
    assert did_you_mean("r9", ["r1", "b1"]) == ""
    assert did_you_mean("r1x", ["r1", "b1"]) == "; did you mean 'r1'?"
