"""A state override must fit its field's declared type, also where the value it replaces is
None (``set_path`` can only compare with the value there): ``morale_cause`` is an
``int | None``, and a float or text there went into the forked battle's events as it was."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Literal

import pytest
from click.testing import CliRunner, Result
from pydantic import ValidationError

from engine.projection import set_path
from sim import api
from sim.cli import cli
from sim.contract.parts import row
from sim.replay.fork import ForkError, _check_declared

ROOT = Path(__file__).resolve().parents[2]
REPLAY = ROOT / "replays" / "stone_wall-s1862.jsonl"


def _fork(tmp_path: Path, *sets: str) -> tuple[int, str, Path]:
    out = tmp_path / "f.jsonl"
    args = ["fork", str(REPLAY), "--at", "22", *(a for s in sets for a in ("--set", s))]
    result = CliRunner().invoke(cli, [*args, "-o", str(out)])
    return result.exit_code, result.output, out


@pytest.mark.parametrize(("value", "shown"), [("2.0", "2.0"), ("abc", '"abc"'), ("true", "true")])
def test_a_value_its_declared_type_refuses_is_one_line_and_exit_2(
    tmp_path: Path, value: str, shown: str
) -> None:
    unit = api.state_at(REPLAY, 1).units["88ny"]
    assert unit.morale_cause is None  # what the override replaces: set_path cannot tell
    code, output, out = _fork(
        tmp_path, "state.units.88ny.morale=routed", f"state.units.88ny.morale_cause={value}"
    )
    assert code == 2
    assert output.splitlines() == [
        "battlesim: error: --set state.units.88ny.morale_cause: input should be a valid "
        f"integer (the field is int | None), not {shown}"
    ]
    assert not out.exists()


def test_a_value_of_its_declared_type_is_forked_and_named_as_the_routs_cause(
    tmp_path: Path,
) -> None:
    code, output, out = _fork(
        tmp_path, "state.units.88ny.morale=routed", "state.units.88ny.morale_cause=5"
    )
    assert code == 0, output
    events = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()[1:-1]]
    routs = [e for e in events if e.get("unit") == "88ny" and e.get("reason") == "rout"]
    assert routs and routs[0]["cause"] == 5
    assert CliRunner().invoke(cli, ["verify", str(out)]).exit_code == 0


@row
class _Part:
    at: tuple[int, int]
    cause: int | None = None


def test_the_value_is_checked_as_stored_a_list_given_for_a_tuple_kept_as_one() -> None:
    """``set_path`` keeps a list given for a tuple as a tuple; the declared type is checked
    against what it stored (a tuple field takes ``[1, 2]``), and a null field's refusal
    names the value given."""
    state = {"p": _Part(at=(0, 0))}
    set_path(state, "p.at", [1, 2], counts=True)
    _check_declared(state, "p.at", [1, 2])
    assert state["p"].at == (1, 2)
    set_path(state, "p.cause", [1, 2], counts=True)
    with pytest.raises(ForkError, match=r"p\.cause: .*\(the field is int \| None\), not \[1, 2\]"):
        _check_declared(state, "p.cause", [1, 2])


OLD_FORK = ROOT / "tests" / "data" / "replays" / "stone_wall-s1862-fork-cause-float.jsonl"
"""A fork written before ``fork`` checked a null field's declared type (at ``1b3995a``:
``--at 22 --set state.units.88ny.morale=routed --set state.units.88ny.morale_cause=2.0``)."""


def test_a_fork_made_before_the_check_still_verifies_and_shows() -> None:
    """Its override holds ``2.0``, which the rout's events wrote as the seq ``2`` (they
    were validated then); fought again today they are validated still, where the cause
    is not a whole number, so the fork re-simulates byte for byte and ``show`` reads it."""
    header = json.loads(OLD_FORK.read_text(encoding="utf-8").splitlines()[0])
    assert header["fork"]["state"]["units.88ny.morale_cause"] == 2.0
    causes = [json.loads(line).get("cause") for line in OLD_FORK.read_text().splitlines()[1:-1]]
    assert 2 in causes and all(type(c) is int for c in causes if c is not None)
    verified = CliRunner().invoke(cli, ["verify", str(OLD_FORK)])
    assert verified.exit_code == 0, verified.output
    assert "re-simulates byte for byte" in verified.output
    assert CliRunner().invoke(cli, ["show", str(OLD_FORK)]).exit_code == 0


@pytest.mark.parametrize(
    ("replay", "seq", "field"),
    [
        ("stone_wall-s1862", 5, "result.casualties"),
        ("stone_wall-s1862", 5, "result.guns_lost"),
        ("stone_wall-s1862", 5, "result.fatigue_added"),
        ("carrier_duel-s688", 18, "hits_after"),
        ("carrier_duel-s688", 18, "hits_taken"),
        ("carrier_duel-s688", 18, "result.hits"),
    ],
)
def test_a_count_an_event_records_cannot_be_forked_negative(
    tmp_path: Path, replay: str, seq: int, field: str
) -> None:
    """`--set result.casualties=-50` gave a regiment 50 men back and verify called the fork
    lawful (`--set state.…strength=-5` was refused): the events' counts are whole numbers
    from 0, and the changed event, validated as a whole, is refused in one line, exit 2."""
    out = tmp_path / "f.jsonl"
    args = ["fork", str(ROOT / "replays" / f"{replay}.jsonl"), "--at", str(seq)]
    result = CliRunner().invoke(cli, [*args, "--set", f"{field}=-5", "-o", str(out)])
    assert (result.exit_code, result.stdout, result.stderr) == (
        2,
        "",
        f"battlesim: error: --set {field}: -5 is less than 0, the least it may be\n",
    )
    assert not out.exists()


def test_an_event_the_changes_battle_cannot_build_is_the_changes_one_line() -> None:
    """An event the fork's battle could not build past the change (a state the rules then
    record in an event field that refuses it) said the rules must have changed since the
    parent was written, over four lines ending in pydantic's web address: past the change it
    is the change's, and either way one line (the model, the field, the message)."""
    from pydantic import BaseModel

    from sim.replay.fork import _not_built

    class Attacked(BaseModel):
        status_before: Literal["afloat", "crippled", "sunk"]

    with pytest.raises(ValidationError) as refused:
        Attacked(status_before="snuk")  # type: ignore[arg-type]
    past = _not_built(refused.value, True, 3, [("state.ships.shoho.hits", 9)])
    assert str(past) == (
        "--set state.ships.shoho.hits=9: the battle it makes builds an event its class "
        "refuses (Attacked status_before: Input should be 'afloat', 'crippled' or 'sunk'); "
        "nothing was written"
    )
    before = _not_built(refused.value, False, 3, [("state.ships.shoho.hits", 9)])
    assert str(before) == (
        "--at 3: re-simulating the parent does not reach the same event there (the rules "
        "changed since it was written?): Attacked status_before: Input should be 'afloat', "
        "'crippled' or 'sunk'"
    )


@pytest.mark.parametrize(
    ("replay", "field", "said"),
    [
        ("tavern_brawl-s377", "state.combatants.grub.status=dancing",
         "'dancing' is not one of 'ok', 'dead' or 'fled'"),
        ("coral_sea-s1942", "state.ships.lexington.status=snuk",
         "'snuk' is not one of 'afloat', 'crippled' or 'sunk'"),
        ("carrier_duel-s688", "state.strikes.hor_dawn.status=flying",
         "'flying' is not one of 'planned', 'spotted', 'airborne', 'recovered', "
         "'destroyed', 'ditched' or 'cancelled'"),
        ("stone_wall-s1862", "state.units.69ny.quality=Z",
         "'Z' is not one of 'A', 'B', 'C', 'D', 'E' or 'F'"),
        ("stone_wall-s1862", "state.units.69ny.morale=shaken",
         "'shaken' is not one of 'good', 'spent', 'disrupted', 'routed' or 'eliminated'"),
        ("stone_wall-s1862", "state.units.69ny.formation=square",
         "'square' is not one of 'line' or 'column'"),
        ("stone_wall-s1862", "state.units.1ri.ammo=none",
         "'none' is not one of 'full' or 'low'"),
        ("stone_wall-s1862", "state.units.1ri.kind=cavalry2",
         "'cavalry2' is not one of 'infantry', 'cavalry' or 'artillery'"),
    ],
)  # fmt: skip
def test_a_status_the_rules_do_not_have_is_refused(
    tmp_path: Path, replay: str, field: str, said: str
) -> None:
    """`state.combatants.grub.status=dancing` took Grub out of the fight unseen (his row
    still said nothing), and verify called it lawful: a status is one of the words the
    rules give it, and another is refused in one line, exit 2, nothing written. A musket
    unit's quality, morale, formation, ammunition and kind, and a strike's status, were
    any text (`quality=Z` forked, and the battle went on with a quality no table has):
    each is now the words its scenario field takes."""
    out = tmp_path / "f.jsonl"
    parent = ROOT / "replays" / f"{replay}.jsonl"
    result = CliRunner().invoke(
        cli, ["fork", str(parent), "--at", "3", "--set", field, "-o", str(out)]
    )
    path = field.split("=", 1)[0]
    assert (result.exit_code, result.stderr) == (2, f"battlesim: error: --set {path}: {said}\n")
    assert not out.exists()


def _said(result: Result, lead: str) -> str:
    """A refusal's words after ``lead`` (the file and the flag), exit 2 asserted."""
    assert result.exit_code == 2 and result.stderr.startswith(lead), result.output
    return result.stderr.removeprefix(lead)


@pytest.mark.parametrize(
    ("field", "at", "state", "value"),
    [
        ("options.alternative_fire", 19, "passed", "maybe"),
        ("options.alternative_fire", 19, "passed", "3"),
        ("sides.csa.units.wash.strength", 14, "state.units.wash.strength", "abc"),
        ("sides.csa.units.wash.strength", 14, "state.units.wash.strength", "2.0"),
        ("sides.csa.units.wash.strength", 14, "state.units.wash.strength", "null"),
    ],
)
def test_a_value_of_another_type_is_refused_in_run_sets_words(
    tmp_path: Path, field: str, at: int, state: str, value: str
) -> None:
    """`fork --set passed=maybe` says what `run --set` says of a true-or-false field given
    maybe, and a count given text what it says of a strength (it said `passed is a bool, not
    a str`, `units.wash.strength is an int, not a str`)."""
    scenario = ROOT / "scenarios" / "stone_wall.yaml"
    ran = CliRunner().invoke(cli, ["run", str(scenario), "--set", f"{field}={value}"])
    reason = _said(ran, f"{scenario}: --set {field}: ")
    out = tmp_path / "f.jsonl"
    args = ["fork", str(REPLAY), "--at", str(at), "--set", f"{state}={value}", "-o", str(out)]
    forked = CliRunner().invoke(cli, args)
    assert _said(forked, f"battlesim: error: --set {state}: ") == reason
    assert not out.exists()


@pytest.mark.parametrize(
    ("replay", "at", "path"),
    [
        (REPLAY, 14, "state.units.{}.strength"),
        (ROOT / "replays" / "dungeon_skirmish-s3.jsonl", 9, "state.combatants.{}.hp"),
    ],
)
@pytest.mark.parametrize("unit", ["nosuch", "69nyy"])
def test_a_unit_the_battle_lacks_is_said_as_show_unit_says_it(
    tmp_path: Path, replay: Path, at: int, path: str, unit: str
) -> None:
    """`fork --set state.units.nosuch.strength=5` says there is no unit 'nosuch', with the ids
    or the one meant, as `show --unit nosuch` does (it said `no field 'nosuch'`)."""
    shown = CliRunner().invoke(cli, ["show", str(replay), "--unit", unit])
    reason = _said(shown, f"battlesim: error: --unit {unit}: ")
    assert reason.startswith(f"no unit '{unit}' in this battle; ")
    field, out = path.format(unit), tmp_path / "f.jsonl"
    args = ["fork", str(replay), "--at", str(at), "--set", f"{field}=5", "-o", str(out)]
    forked = CliRunner().invoke(cli, args)
    assert _said(forked, f"battlesim: error: --set {field}: ") == reason
    assert not out.exists()


@pytest.mark.parametrize(
    ("field", "at", "forked", "value"),
    [
        ("sides.csa.units.wash", 14, "state.units.wash", "3"),
        ("sides.csa.units.wash", 14, "state.units.wash", "[1, 2]"),
        ("sides.csa.units.wash", 14, "state.units.wash", "null"),
        ("sides.csa", 14, "state.sides.csa", "3"),
        ("map", 5, "result", "3"),
        ("sides.csa.units.wash.at", 0, "path", "3"),
        ("sides.csa.units.wash.at", 0, "start", "abc"),
        ("sides.csa.units.wash.name", 5, "unit", "[1]"),
        ("sides.csa.units.wash.name", 14, "state.units.wash.morale", "[1]"),
    ],
)
def test_a_value_of_another_shape_is_refused_in_run_sets_words(
    tmp_path: Path, field: str, at: int, forked: str, value: str
) -> None:
    """A single value for what holds fields (a unit's or a side's state, a fire's result), a
    scalar for a list (a move's path) and a list for text are refused as `run --set` refuses
    them in a scenario (`3 is not a mapping of fields`, `3 is not a list`, `[1] is a list,
    not text`); fork said them in Python's names for its own classes, `units.wash is a
    UnitState, not an int`, `path is a list, not an int`, `morale is a str, not a list`."""
    scenario = ROOT / "scenarios" / "stone_wall.yaml"
    ran = CliRunner().invoke(cli, ["run", str(scenario), "--set", f"{field}={value}"])
    reason = _said(ran, f"{scenario}: --set {field}: ")
    out = tmp_path / "f.jsonl"
    args = ["fork", str(REPLAY), "--at", str(at), "--set", f"{forked}={value}", "-o", str(out)]
    result = CliRunner().invoke(cli, args)
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == f"battlesim: error: --set {forked}: {reason}"
    assert not out.exists()
