"""A fork is written only if every tool can read it, and only a field its replay keeps.

A fork's change goes into the battle as it is. A value the rules carry into later events
(a morale word the format's events do not take, a seq named as a cause that is not an
earlier one) made a file that re-simulated, so ``verify`` passed it, while ``show``,
``why``, ``report`` and ``diff`` refused it; a field the scenario fixes (a ship's damage
capacity) is left out of the snapshots, so ``show`` gave one value before the next
snapshot and the scenario's after it. Both are refused now, one line and exit 2, and
nothing is written (an earlier file at ``--out`` is kept).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from engine.log import EventLog
from sim import api
from sim.cli import cli

ROOT = Path(__file__).resolve().parents[2]
STONE_WALL = ROOT / "replays" / "stone_wall-s1862.jsonl"
CARRIERS = ROOT / "replays" / "carrier_duel-s688.jsonl"
MORALE_WORDS = "'good', 'spent', 'disrupted', 'routed' or 'eliminated'"


@pytest.fixture(autouse=True)
def as_installed(monkeypatch: pytest.MonkeyPatch) -> None:
    """Lines as an installed battlesim writes them: the suite's line check off (it would
    refuse the first untrue event itself, with its own words: the test after these)."""
    monkeypatch.setattr(EventLog, "check_lines", False)


def _fork(replay: Path, at: int, out: Path, *sets: str) -> Result:
    args = ["fork", str(replay), "--at", str(at), *(a for s in sets for a in ("--set", s))]
    return CliRunner().invoke(cli, [*args, "-o", str(out)])


def _left(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


@pytest.fixture
def loose_state(monkeypatch: pytest.MonkeyPatch) -> None:
    """A state field declared more loosely than the events that record it (a plugin's
    ``morale: str``): the fork's own check of the value's type passes it, and the checks
    after the battle are what refuse it. A musket unit's morale is declared as its events'
    words, so ``morale=panicked`` is refused before any fighting
    (:func:`test_a_morale_word_no_unit_has_is_refused_before_the_battle`)."""
    from sim.replay import fork

    monkeypatch.setattr(fork, "_check_declared", lambda *_: None)


def test_a_morale_word_no_unit_has_is_refused_before_the_battle(tmp_path: Path) -> None:
    result = _fork(STONE_WALL, 14, tmp_path / "f.jsonl", "state.units.28ma.morale=panicked")
    assert (result.exit_code, result.output) == (
        2,
        f"battlesim: error: --set state.units.28ma.morale: 'panicked' is not one of "
        f"{MORALE_WORDS}\n",
    )
    assert _left(tmp_path) == []


@pytest.mark.usefixtures("loose_state")
@pytest.mark.parametrize("name", ["f.jsonl", "f.jsonl.gz"])
def test_a_morale_word_the_events_refuse_is_refused_and_nothing_is_written(
    tmp_path: Path, name: str
) -> None:
    result = _fork(STONE_WALL, 14, tmp_path / name, "state.units.28ma.morale=panicked")
    assert result.exit_code == 2
    assert result.output == (
        'battlesim: error: --set state.units.28ma.morale="panicked": the battle it makes '
        "writes an event no reader takes (line 18 (seq 16): bad event: "
        f"musket.morale_tested.before: Input should be {MORALE_WORDS}); nothing was written\n"
    )
    assert _left(tmp_path) == []  # no replay, no .partial


@pytest.mark.usefixtures("loose_state")
def test_with_the_line_check_on_it_is_refused_all_the_same(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(EventLog, "check_lines", True)
    result = _fork(STONE_WALL, 14, tmp_path / "f.jsonl", "state.units.28ma.morale=panicked")
    assert result.exit_code == 2
    assert result.output.startswith(
        'battlesim: error: --set state.units.28ma.morale="panicked": the rules cannot fight on '
        "with it (UntrustedLine: MoraleTested seq 16 does not validate: "
    )
    assert _left(tmp_path) == []


def test_a_cause_that_is_no_earlier_seq_is_refused(tmp_path: Path) -> None:
    result = _fork(
        STONE_WALL,
        10,
        tmp_path / "f.jsonl",
        "state.units.69ny.morale=routed",
        "state.units.69ny.morale_cause=500",
    )
    assert result.exit_code == 2
    assert result.output.endswith(
        "the rules cannot fight on with it (UnlawfulCause: ruleset 'musket' records event "
        "'musket.moved' at seq 25 with cause 500, which is not an earlier event's seq: "
        "a cause names the event, already recorded, that brought this one about (its replay "
        "would not verify)); nothing was written\n"
    )


def test_a_refused_fork_keeps_the_file_already_at_out(tmp_path: Path) -> None:
    """What was at ``--out`` (an earlier fork, which a fork replaces) survives a refusal."""
    out = tmp_path / "f.jsonl"
    assert _fork(STONE_WALL, 10, out, "state.units.69ny.morale=routed").exit_code == 0
    before = out.read_bytes()
    assert _fork(STONE_WALL, 14, out, "state.units.28ma.morale=panicked").exit_code == 2
    assert out.read_bytes() == before
    assert _left(tmp_path) == ["f.jsonl"]


def test_a_fork_every_tool_reads_is_written_and_shown(tmp_path: Path) -> None:
    out = tmp_path / "f.jsonl.gz"
    assert _fork(STONE_WALL, 10, out, "state.units.69ny.morale=routed").exit_code == 0
    for command in (["verify", str(out)], ["show", str(out)], ["why", str(out), "20"]):
        result = CliRunner().invoke(cli, command)
        assert result.exit_code == 0, (command, result.output)


@pytest.mark.parametrize("field", ["damage", "aa", "kind", "name"])
def test_a_field_the_scenario_fixes_cannot_be_forked(tmp_path: Path, field: str) -> None:
    """A snapshot leaves a fixed field out: forked, show --turn would disagree with itself."""
    value = '"x"' if field in ("kind", "name") else "50"
    result = _fork(CARRIERS, 0, tmp_path / "f.jsonl", f"state.ships.zuikaku.{field}={value}")
    assert result.exit_code == 2
    assert result.output == (
        f"battlesim: error: --set state.ships.zuikaku.{field}: {field} is fixed by the "
        "scenario (no event changes it, and the replay's snapshots do not keep it): fork "
        "what the battle changes, or run an edited scenario\n"
    )
    assert _left(tmp_path) == []


def test_a_change_the_rules_cannot_fight_on_with_names_the_set(tmp_path: Path) -> None:
    result = _fork(STONE_WALL, 10, tmp_path / "f.jsonl", "state.units.69ny.weapon=laser")
    assert result.exit_code == 2
    assert result.output == (
        'battlesim: error: --set state.units.69ny.weapon="laser": the rules cannot fight on '
        "with it (KeyError: 'laser'); nothing was written\n"
    )
    assert _left(tmp_path) == []


def test_a_write_that_fails_is_the_files_fault_not_the_sets(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Disk full or file too large while the fork is written: `cannot write`, as before,
    not "the rules cannot fight on with it"."""
    from engine.replayfile.sinks import FileSink

    real = FileSink.write
    written = [0]

    def full(self: FileSink, line: str | bytes) -> None:
        written[0] += 1
        if written[0] > 30:
            raise OSError(27, "File too large")
        real(self, line)

    monkeypatch.setattr(FileSink, "write", full)
    out = tmp_path / "f.jsonl"
    result = _fork(STONE_WALL, 10, out, "state.units.69ny.morale=routed")
    assert (result.exit_code, result.output) == (
        2,
        f"battlesim: error: cannot write {out}: File too large\n",
    )
    assert _left(tmp_path) == []


@pytest.mark.parametrize(
    ("replay", "at", "change", "told"),
    [
        # the winner names no side: the fork's outcome and narrative raise (it was written,
        # over the file at --out, and then `fork` exited 2); musket's audit_change, which
        # verify runs, refuses it, so it is the line's: it said "is one its ruleset's tools
        # cannot read: ruleset 'musket': narrate raised KeyError: 'zzz' at line 48 (seq 46)"
        (STONE_WALL, 46, "winner=zzz",
         "writes an event no reader takes (line 48 (seq 46): cannot follow from the battle so "
         "far: winner: unknown side 'zzz')"),
        # a strike's target no ship is: verify passed the fork, show and report refused it
        (ROOT / "replays" / "coral_sea-s1942.jsonl", 2, "target=mo_mainx",
         "is one its ruleset's tools cannot read: ruleset 'flattop': narrate raised KeyError: "
         "'mo_mainx' at line 4 (seq 2) (at report.py:"),
    ],
)  # fmt: skip
def test_a_fork_its_rulesets_tools_cannot_read_is_refused_and_out_is_kept(
    tmp_path: Path, replay: Path, at: int, change: str, told: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """(A strike's target no unit is is refused before the battle now, as `show --unit`
    refuses it, and a winner no side is by musket's audit_change: those checks are off
    here, as for a field no check knows names a unit or side.)"""
    from sim.replay import fork

    monkeypatch.setattr(fork, "_unit_ids", lambda loaded, path, was, value: value)
    monkeypatch.setattr(fork, "_check_lawful", lambda loaded, at_seq, fields: None)
    out = tmp_path / "f.jsonl"
    assert _fork(STONE_WALL, 19, out, "passed=true", "after=good").exit_code == 0
    before = out.read_bytes()
    result = _fork(replay, at, out, change)
    assert result.exit_code == 2
    field, value = change.split("=")
    assert result.output.startswith(
        f'battlesim: error: --set {field}="{value}": the battle it makes {told}'
    )
    assert result.output.endswith("; nothing was written\n")
    assert result.output.count("\n") == 1
    assert out.read_bytes() == before
    assert _left(tmp_path) == ["f.jsonl"]


def test_a_fork_whose_rulesets_narrate_raises_on_a_lawful_event_names_the_ruleset(
    tmp_path: Path,
) -> None:
    """A narrate that raises on the battle-ended event of a lawful fork: the fork is what its
    rules make (fought again, it is the same), so the failure is the ruleset's, named as a
    hook's is, not the file's line."""
    from sim.contract import get_ruleset

    ruleset = get_ruleset("musket")
    narrate = ruleset.narrate

    def broken(scenario: object, state: object, event: object) -> str | None:
        if getattr(event, "type", "") == "musket.battle_ended":
            raise KeyError("boom")
        return narrate(scenario, state, event)

    out = tmp_path / "f.jsonl"
    object.__setattr__(ruleset, "narrate", broken)
    try:
        result = _fork(STONE_WALL, 19, out, "passed=true", "after=good")
    finally:
        object.__setattr__(ruleset, "narrate", narrate)
    line = broken.__code__.co_firstlineno + 2
    assert (result.exit_code, result.output) == (
        2,
        'battlesim: error: --set passed=true, after="good": the battle it makes is one its '
        "ruleset's tools cannot read: ruleset 'musket': narrate raised KeyError: 'boom' at line "
        f"71 (seq 69) (at test_fork_readback.py:{line}); nothing was written\n",
    )
    assert _left(tmp_path) == []


@pytest.mark.parametrize(
    ("at", "change", "error"),
    [(19, "unit=nonexist", "KeyError: 'nonexist'"), (5, "target=zz", "KeyError: 'zz'")],
)
def test_a_changed_event_the_rules_cannot_apply_is_the_changes_doing(
    tmp_path: Path, at: int, change: str, error: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The changed event itself fails to apply: named as the --set's, not a bare error.
    (A unit the battle lacks is refused before the battle now, as `show --unit` refuses it
    (:func:`test_a_unit_the_battle_lacks_is_refused_as_show_unit_refuses_it`): that check
    is off here, as for a field no check knows names a unit.)"""
    from sim.replay import fork

    monkeypatch.setattr(fork, "_unit_ids", lambda loaded, path, was, value: value)
    result = _fork(STONE_WALL, at, tmp_path / "f.jsonl", change)
    field, value = change.split("=")
    assert result.exit_code == 2
    assert result.output == (
        f'battlesim: error: --set {field}="{value}": the rules cannot fight on with it '
        f"({error}); nothing was written\n"
    )
    assert _left(tmp_path) == []


def test_a_state_change_at_a_turns_end_is_refused(tmp_path: Path) -> None:
    """Seq 20 is turn 1's engine.turn_ended: an override after it was in show --turn 1's
    state and not in show --unit's (nor in the turn's digest)."""
    result = _fork(STONE_WALL, 20, tmp_path / "f.jsonl", "state.units.69ny.strength=50")
    assert result.exit_code == 2
    assert result.output == (
        "battlesim: error: --at 20: engine.turn_ended is the engine's record of turn 1's end, "
        "after the turn's state digest, so a state change there would be in no turn's end "
        "(show --turn and show --unit would disagree): fork the state at an event of the "
        "battle (the nearest: seq 19 or 21)\n"
    )
    assert _left(tmp_path) == []


def test_a_state_change_at_a_rounds_end_says_round(tmp_path: Path) -> None:
    """becmi's turns are rounds: the refusal said "turn 1's end" of a becmi battle."""
    replay = STONE_WALL.parent / "dungeon_skirmish-s3.jsonl"
    ends = [e.seq for e in api.load_replay(replay).events if e.type == "engine.turn_ended"]
    result = _fork(replay, ends[0], tmp_path / "f.jsonl", "state.combatants.alaric.hp=5")
    assert result.exit_code == 2
    said = result.output
    assert "engine.turn_ended is the engine's record of round 1's end, after the round's" in said
    assert "would be in no round's end" in said and " turn" not in said


@pytest.mark.parametrize(
    ("replay", "at", "change", "units"),
    [
        (STONE_WALL, 41, "unit=nobody", "116pa, 18ga, 1ri, 24ga, 24nc, 27nc, 28ma, 46nc"),
        (ROOT / "replays" / "tavern_brawl-s377.jsonl", 15, "target=nobody", "grub, snaga"),
        (ROOT / "replays" / "tavern_brawl-s377.jsonl", 17, "fled=[nobody]", "grub, snaga"),
        (ROOT / "replays" / "coral_sea-s1942.jsonl", 9, "ship=nobody", "aoba, astoria"),
    ],
)
def test_a_unit_the_battle_lacks_is_refused_as_show_unit_refuses_it(
    tmp_path: Path, replay: Path, at: int, change: str, units: str
) -> None:
    """`--set unit=nobody` (target, ship, fled) fought on until the rules failed on it and
    said "the rules cannot fight on with it (KeyError: 'nobody')", or a hook's KeyError
    "at report.py:151": refused before the battle in `show --unit`'s words, nothing written."""
    result = _fork(replay, at, tmp_path / "f.jsonl", change)
    field = change.split("=", maxsplit=1)[0]
    assert result.exit_code == 2
    assert result.output.startswith(
        f"battlesim: error: --set {field}: no unit 'nobody' in this battle; units: {units}"
    )
    assert "KeyError" not in result.output
    assert _left(tmp_path) == []


def test_a_unit_is_set_by_its_name_as_show_unit_takes_it(tmp_path: Path) -> None:
    """`--set target="28th Massachusetts"` sets the unit's id, as `show --unit` takes a name
    (a target of the firer's enemy: 18th Georgia, its own side's, is refused by musket's
    audit_change); `unit=69NY` (not an id nor a name) is refused with the id meant."""
    result = _fork(STONE_WALL, 40, tmp_path / "f.jsonl", "target=28th Massachusetts")
    assert result.exit_code == 0, result.output
    assert api.load_replay(tmp_path / "f.jsonl").header.fork.event == {"target": "28ma"}
    near = _fork(STONE_WALL, 41, tmp_path / "g.jsonl", "unit=69NY")
    assert (near.exit_code, near.output) == (
        2,
        "battlesim: error: --set unit: no unit '69NY' in this battle; did you mean '69ny'?\n",
    )
