"""A fork of a fork keeps its parent's changes only where they still name the event they
were made on, holds those it keeps to ``audit_change``, and ``verify`` catches a change
applied to another event.

A fork at seq N re-makes the battle from N on: a change its parent made at a later seq
was made on an event of the parent's battle, which this one need not have (a state
change logs an override and shifts every later seq by one; any change may alter what
follows). Before, the parent's change was applied at its seq to whatever event landed
there — Hornet's crippling torpedo hit fell on the dive bombers' attack ("0 + 1 hits →
4/6"), the 69th New York's charge on the 28th Massachusetts' — and ``verify`` called the
file lawful. Such a change is now left out, with one line on stderr: the fork is the
fork of its parent's battle as it was before the change (derived here by forking the
grandparent at N with the same ``--set``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import Result

from engine.log import Fork
from tests.forge import bodies, invoke

ROOT = Path(__file__).resolve().parents[2]
STONE_WALL = ROOT / "replays" / "stone_wall-s1862.jsonl"
CARRIER_DUEL = ROOT / "replays" / "carrier_duel-s688.jsonl"
DUNGEON = ROOT / "replays" / "dungeon_skirmish-s3.jsonl"

CHARGE_69NY = 19
"""The 69th New York's charge check, thrown back; Pat's fork makes it go in."""
HORNET_TORPEDOED = 19
"""Zuikaku's torpedo bombers hit the crippled Hornet twice more (3 → 5 of 6 hits); the
dive bombers' attack before it (seq 18) takes her from 0 to 3."""
MIRELA_SHOT = 7
"""Goblin archer 3's arrow takes Mirela from 11 hp to 7; archer 2's before it (seq 6),
from 14 to 11."""

PARENTS: dict[str, tuple[Path, int, tuple[str, ...]]] = {
    "musket": (STONE_WALL, CHARGE_69NY, ("passed=true", "after=good")),
    "flattop": (
        CARRIER_DUEL,
        HORNET_TORPEDOED,
        ("result.hits=1", "hits_taken=1", "hits_after=4"),
    ),
    "becmi": (DUNGEON, MIRELA_SHOT, ("hp_after=1",)),
}
"""Per ruleset: a golden replay, the seq of a change the audit accepts, and the change."""
SHOWN = {
    "musket": 'after="good", passed=true',
    "flattop": "hits_after=4, hits_taken=1, result.hits=1",
    "becmi": "hp_after=1",
}
"""The parent's change as the note names it: its fields sorted, values as JSON."""
EARLIER: dict[str, tuple[int, str]] = {
    "musket": (10, "state.units.69ny.name='1861'"),
    "flattop": (10, "state.task_forces.tf16.cap=4"),
    "becmi": (4, "state.combatants.pip.hp=5"),
}
"""A state change before the parent's: its override shifts every later seq by one."""


def _fork(replay: Path, at: int, sets: tuple[str, ...], out: Path) -> Result:
    return invoke("fork", str(replay), "--at", str(at), *_sets(sets), "--out", str(out))


def _sets(sets: tuple[str, ...]) -> list[str]:
    return [a for s in sets for a in ("--set", s)]


def _parent(tmp_path: Path, ruleset: str) -> tuple[Path, Path, int]:
    """The golden, its fork at the seq of :data:`PARENTS`, and that seq."""
    golden, at, sets = PARENTS[ruleset]
    parent = tmp_path / f"{ruleset}-parent.jsonl"
    made = _fork(golden, at, sets, parent)
    assert made.exit_code == 0, made.output
    return golden, parent, at


def _events(path: Path) -> list[str]:
    """Every line after the header, without its chain hash (the headers differ)."""
    return bodies(path)[1:]


def _note(at: int, ruleset: str, before: int) -> str:
    return (
        f"battlesim: note: the parent's change at seq {at} ({SHOWN[ruleset]}) is left out: "
        f"this fork changes the battle at seq {before}, before it, so seq {at} need not be "
        "the event that change was made on\n"
    )


@pytest.mark.parametrize("ruleset", ["musket", "flattop", "becmi"])
def test_a_fork_before_its_parents_change_leaves_that_change_out(
    tmp_path: Path, ruleset: str
) -> None:
    """The fork of a fork at an earlier seq is the grandparent's fork there, event for
    event; stderr names the change left out; it verifies."""
    golden, parent, at = _parent(tmp_path, ruleset)
    before, change = EARLIER[ruleset]
    child, direct = tmp_path / "child.jsonl", tmp_path / "direct.jsonl"
    made = _fork(parent, before, (change,), child)
    assert (made.exit_code, made.stderr) == (0, _note(at, ruleset, before))
    assert made.stdout.startswith(f"forked {parent} at seq {before}: ")
    assert _fork(golden, before, (change,), direct).exit_code == 0
    assert _events(child) == _events(direct)
    header = json.loads(bodies(child)[0])["fork"]
    assert (header["at_seq"], header["earlier"]["at_seq"]) == (before, at)  # the lineage kept
    checked = invoke("verify", str(child))
    assert (checked.exit_code, checked.stdout.split(":")[0]) == (0, "OK")


def test_the_reviewers_flattop_case_no_longer_lands_on_the_dive_bombers(tmp_path: Path) -> None:
    """Forked at 10, the battle's seq 19 is the dive bombers' attack on Hornet: as the
    rules fought it (0 + 3 hits, 3/6, crippled), not the torpedoes' change (1 hit, 4/6)."""
    _, parent, _ = _parent(tmp_path, "flattop")
    child = tmp_path / "child.jsonl"
    assert _fork(parent, 10, ("state.task_forces.tf16.cap=4",), child).exit_code == 0
    attack = json.loads(_events(child)[HORNET_TORPEDOED])
    assert (attack["seq"], attack["aircraft"], attack["ship"]) == (19, "dive_bomber", "hornet")
    assert (attack["hits_before"], attack["hits_taken"], attack["hits_after"]) == (0, 3, 3)
    told = invoke("show", str(child), "--events", "--seqs", "--turn", "3")
    assert "counterfactual: hits_after" not in told.stdout


def test_a_change_of_events_before_the_parents_leaves_it_out_too(tmp_path: Path) -> None:
    """No override needed: the 116th Pennsylvania going in at seq 16 changes what follows,
    and the 69th's forked charge at 19 landed on the 28th Massachusetts' check."""
    golden, parent, at = _parent(tmp_path, "musket")
    child, direct = tmp_path / "child.jsonl", tmp_path / "direct.jsonl"
    sets = ("passed=true", "after=good")
    made = _fork(parent, 16, sets, child)
    assert (made.exit_code, made.stderr) == (0, _note(at, "musket", 16))
    assert _fork(golden, 16, sets, direct).exit_code == 0
    assert _events(child) == _events(direct)
    assert invoke("verify", str(child)).exit_code == 0


def test_a_fork_at_the_parents_seq_or_after_it_keeps_the_parents_change(tmp_path: Path) -> None:
    """Changes at or before this fork's seq are its parent's battle, kept and verified; no
    note is printed."""
    _, parent, at = _parent(tmp_path, "flattop")
    later = tmp_path / "later.jsonl"
    zuikaku = ("result.hits=2", "hits_taken=2", "hits_after=2", "status_after=afloat")
    made = _fork(parent, 29, zuikaku, later)  # Hornet's dive bombers hit Zuikaku 3 times
    assert (made.exit_code, made.stderr) == (0, ""), made.output
    events = [json.loads(e) for e in _events(later)]
    assert (events[at]["hits_taken"], events[at]["hits_after"]) == (1, 4)
    assert (events[29]["ship"], events[29]["hits_after"]) == ("zuikaku", 2)
    assert invoke("verify", str(later)).exit_code == 0
    same = tmp_path / "same.jsonl"
    made = _fork(parent, at, ("state.task_forces.tf16.cap=0",), same)
    assert (made.exit_code, made.stderr) == (0, ""), made.output
    events = [json.loads(e) for e in _events(same)]
    assert (events[at]["hits_after"], events[at + 1]["type"]) == (4, "engine.override")
    assert invoke("verify", str(same)).exit_code == 0


def test_a_no_op_before_the_parents_change_is_refused_against_the_battle_it_leaves(
    tmp_path: Path,
) -> None:
    """A roll the rules do not act on, forked before the parent's change: the battle after
    it is the parent's without that change, so the fork tells of nothing; refused."""
    _, parent, at = _parent(tmp_path, "musket")
    out = tmp_path / "child.jsonl"
    made = _fork(parent, 16, ("roll=1",), out)
    assert made.exit_code == 2
    assert made.stderr == (  # one line: no note beside a refusal
        "battlesim: error: --set roll=1: the battle it makes is the one its parent makes "
        f"without its change at seq {at} (left out): the rules do not act on the change "
        "(every event after seq 16 and the final state are that battle's), so the fork would "
        "tell of a change that did not happen; change what the event's result does to the "
        "units (its fields that `battlesim show --events` narrates as the outcome), or a "
        "state field with state.…; nothing was written\n"
    )
    assert not out.exists()


def _old_chain(self: Fork) -> dict[int, Fork]:
    """``Fork.chain`` as battlesim had it: every change of the lineage at its own seq."""
    found = _old_chain(self.earlier) if self.earlier is not None else {}
    before = found.get(self.at_seq)
    if before is None:
        found[self.at_seq] = self
    else:
        merged = {"event": {**before.event, **self.event}, "state": {**before.state, **self.state}}
        found[self.at_seq] = self.model_copy(update=merged)
    return found


@pytest.mark.parametrize(
    ("ruleset", "line"),
    [
        (
            "musket",
            "MISMATCH at seq 19 (line 21): event musket.morale_tested differs from "
            "re-simulation in: after, passed; first turn whose state differs: 1",
        ),
        (
            "flattop",
            "MISMATCH at seq 19 (line 21): event flattop.attacked differs from re-simulation "
            "in: hits_after, hits_taken, result.hits; first turn whose state differs: 3",
        ),
        (
            "becmi",
            "MISMATCH at seq 7 (line 9): event becmi.attacked differs from re-simulation in: "
            "hp_after; first round whose state differs: 1",
        ),
    ],
)
def test_verify_reports_a_parents_change_applied_to_another_event(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, ruleset: str, line: str
) -> None:
    """A fork written as battlesim wrote it before (the parent's change at its seq, on
    whatever event came there) verified as lawful; it is now a mismatch at that seq,
    saying which change it is and why it is left out."""
    _, parent, at = _parent(tmp_path, ruleset)
    before, change = EARLIER[ruleset]
    child = tmp_path / "child.jsonl"
    monkeypatch.setattr(Fork, "chain", _old_chain)
    assert _fork(parent, before, (change,), child).exit_code == 0
    monkeypatch.undo()
    checked = invoke("verify", str(child))
    assert checked.exit_code == 1
    assert checked.stdout == (
        f"{line}; seq {at} is where the header's earlier fork changed its parent's battle "
        f"({SHOWN[ruleset]}), a change left out since the fork at seq {before} changed the "
        "battle before it: this file applies it to another event\n"
    )


def test_verify_holds_the_parents_change_left_out_by_an_event_fork(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No override, so the audit still runs at 19: the 28th Massachusetts "passing" at
    or under -6 with a 4 breaks it, named with the change it was not made for."""
    _, parent, _ = _parent(tmp_path, "musket")
    child = tmp_path / "child.jsonl"
    monkeypatch.setattr(Fork, "chain", _old_chain)
    assert _fork(parent, 16, ("passed=true", "after=good"), child).exit_code == 0
    monkeypatch.undo()
    checked = invoke("verify", str(child))
    assert checked.exit_code == 1
    first, _, rest = checked.stdout.partition("; seq 19 is where")
    assert first.startswith("INVARIANT broken at seq 19 (line 21): musket.morale_tested: ")
    assert rest == (
        f" the header's earlier fork changed its parent's battle ({SHOWN['musket']}), a "
        "change left out since the fork at seq 16 changed the battle before it: this file "
        "applies it to another event\n"
    )


def _unchecked(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, *args: Any) -> Path:
    """A fork made without ``audit_change`` (as a battlesim before it made one)."""
    from sim.replay import fork

    monkeypatch.setattr(fork, "_check_lawful", lambda loaded, at_seq, fields: None)
    out = tmp_path / "unchecked.jsonl"
    made = _fork(*args, out)
    assert made.exit_code == 0, made.output
    monkeypatch.undo()
    return out


HORNET_SUNK_ABOARD = (
    "hornet sinks: every one of the 8 AF aboard is lost (lost_hangar "
    '{"dive_bomber": 2, "torpedo_bomber": 1, "fighter": 5}), not 0 (none)'
)


@pytest.mark.parametrize("later", [False, True])
def test_a_fork_keeping_a_change_no_dice_could_make_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, later: bool
) -> None:
    """Hornet sunk with her 8 AF still aboard (a fork older than the audit of losses
    aboard), forked again at that seq or after it, was written with the change inherited
    and unchecked; it is held to ``audit_change`` as the fork's own change is."""
    sunk = ("hits_taken=3", "hits_after=6", "status_after=sunk")
    parent = _unchecked(tmp_path, monkeypatch, CARRIER_DUEL, HORNET_TORPEDOED, sunk)
    at = 29 if later else HORNET_TORPEDOED
    out = tmp_path / "child.jsonl"
    made = _fork(parent, at, ("state.task_forces.kido.cap=1",), out)
    assert made.exit_code == 2
    assert made.stderr == (
        f"battlesim: error: --at {at}: its parent's change at seq 19 (hits_after=6, "
        'hits_taken=3, status_after="sunk"), which this fork keeps: the rules could not make '
        f"flattop.attacked (seq 19) so: {HORNET_SUNK_ABOARD}\n"
    )
    assert not out.exists()


def test_a_musket_fork_keeping_fire_on_its_own_side_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """46th North Carolina's volley at seq 40 given to the 69th New York, firing on the
    116th Pennsylvania of its own side, then forked at the next event."""
    parent = _unchecked(tmp_path, monkeypatch, STONE_WALL, 40, ("unit=69ny",))
    made = _fork(parent, 41, ("state.units.wash.strength=3",), tmp_path / "child.jsonl")
    assert (made.exit_code, made.stderr) == (
        2,
        'battlesim: error: --at 41: its parent\'s change at seq 40 (unit="69ny"), which this '
        "fork keeps: the rules could not make musket.fired (seq 40) so: 69ny fired on 116pa, "
        "a unit of its own side (usa)\n",
    )


def test_verify_holds_a_changed_event_after_a_state_override_to_audit_change(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The full audit stops at a state override (the rules' bookkeeping no longer holds),
    but a change made after it must still be one the rules could make: the 69th New York
    firing on its own side after Battery A was forked to 2 guns verified as lawful."""
    guns = tmp_path / "guns.jsonl"
    assert _fork(STONE_WALL, 10, ("state.units.1ri.strength=2",), guns).exit_code == 0
    volley = next(
        e["seq"]
        for e in map(json.loads, _events(guns))
        if e.get("type") == "musket.fired" and (e["unit"], e["target"]) == ("46nc", "116pa")
    )
    child = _unchecked(tmp_path, monkeypatch, guns, volley, ("unit=69ny",))
    checked = invoke("verify", str(child))
    assert (checked.exit_code, checked.stdout) == (
        1,
        f"INVARIANT broken at seq {volley} (line {volley + 2}): musket.fired: 69ny fired on "
        "116pa, a unit of its own side (usa)\n",
    )


def test_verify_holds_a_becmi_fork_to_audit_change_though_becmi_has_no_audit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """becmi has no full ``audit``, so ``verify`` checked nothing of its forks: goblin
    archer 4 shooting goblin 3 instead of Alaric (seq 76), forked unchecked, was lawful."""
    child = _unchecked(tmp_path, monkeypatch, DUNGEON, 76, ("target=g3",))
    checked = invoke("verify", str(child))
    assert (checked.exit_code, checked.stdout) == (
        1,
        "INVARIANT broken at seq 76 (line 78): becmi.attacked: g4 attacks g3, a combatant of "
        "its own side (goblins)\n",
    )
