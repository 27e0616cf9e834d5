"""Battle state of the ``becmi`` ruleset, and the one function that changes it.

:func:`apply` is the only writer of state: the live simulation calls it
(through the engine's recorder) for each event it logs, and replay folds
the logged events through it.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from functools import singledispatch
from typing import Any

from engine.events import Event
from sim.rulesets.becmi.events import (
    Attacked,
    BattleEnded,
    Initiative,
    Joined,
    MoraleChecked,
    Moved,
    Recovered,
    Struck,
    Wrestled,
)
from sim.rulesets.becmi.scenario import BecmiScenario, CharacterSpec

__all__ = [
    "BattleState",
    "Bout",
    "CombatantState",
    "SideState",
    "apply",
    "apply_event",
    "initial_state",
    "restore",
    "snapshot",
]

Point = tuple[int, int]


@dataclass(slots=True)
class CombatantState:
    """One combatant's changing state (its fixed data stays in the scenario)."""

    id: str
    side: str
    name: str
    kind: str
    hp_max: int
    hp: int
    at: Point
    cover: str
    cover_kind: str
    status: str = "ok"
    """``ok``, ``dead`` or ``fled``."""
    unconscious: bool = False
    wakes_round: int = 0
    """First round a knocked-out combatant is awake again."""
    stunned_through: int = 0
    """Last round of a stun (0: never stunned)."""
    bout: str | None = None
    moved_round: int = 0
    wrestled_round: int = 0
    """Last round it wrestled (a bout's round is every member's action)."""
    harmed_round: int = 0
    harmed_phase: str = ""
    harmed_by: str = ""
    """Side whose blow last stunned, knocked out or killed it (for simultaneous ties)."""
    fallen_by: int | None = None
    """Seq of the event that killed, knocked out or routed it; None while it stands."""

    @property
    def present(self) -> bool:
        """Alive and still in the fight (not fled)."""
        return self.status == "ok"

    @property
    def conscious(self) -> bool:
        """Present and awake: able to fight."""
        return self.status == "ok" and not self.unconscious

    def stunned(self, round_: int) -> bool:
        """True while a stun lasts (never before one: round 0, the start, is no stun)."""
        return self.stunned_through > 0 and round_ <= self.stunned_through


@dataclass(slots=True)
class Bout:
    """A wrestling bout: two teams and the hold between them (−3 … 3)."""

    id: str
    aggressors: list[str]
    defenders: list[str]
    hold: int = 0
    resolved_round: int = 0
    last_round: int | None = None
    """Seq of the bout's latest round: the hold the next round starts from."""


@dataclass(slots=True)
class SideState:
    """One side: this round's initiative and the morale triggers already spent."""

    id: str
    name: str
    initiative: int = 0
    first_fallen_checked: bool = False
    half_out_checked: bool = False


@dataclass(slots=True)
class BattleState:
    """The whole fight: combatants in scenario order, sides, bouts, outcome."""

    combatants: dict[str, CombatantState]
    sides: dict[str, SideState]
    bouts: dict[str, Bout] = field(default_factory=dict)
    order: list[str] = field(default_factory=list)
    """Side ids in this round's initiative order."""
    round: int = 0
    """The round under way (set by its initiative)."""
    ended: bool = False
    ended_turn: int = 0
    winner: str | None = None
    reason: str = ""


_COMBATANT_FIELDS = tuple(f.name for f in fields(CombatantState))
_SIDE_FIELDS = tuple(f.name for f in fields(SideState))


def initial_state(sc: BecmiScenario) -> BattleState:
    """Build the state at the start of the fight from its scenario."""
    combatants = {
        c.id: CombatantState(
            id=c.id,
            side=s.id,
            name=c.name,
            kind="character" if isinstance(c, CharacterSpec) else "monster",
            hp_max=c.hp,
            hp=c.hp,
            at=(c.at[0], c.at[1]),
            cover=c.cover.amount,
            cover_kind=c.cover.kind,
        )
        for s in sc.sides
        for c in s.combatants
    }
    sides = {s.id: SideState(s.id, s.name) for s in sc.sides}
    return BattleState(combatants=combatants, sides=sides, order=[s.id for s in sc.sides])


def snapshot(state: BattleState) -> dict[str, Any]:
    """Return the state as plain JSON data (for digests and tests)."""
    return {
        "combatants": [
            {k: getattr(c, k) for k in _COMBATANT_FIELDS} for c in state.combatants.values()
        ],
        "sides": [{k: getattr(s, k) for k in _SIDE_FIELDS} for s in state.sides.values()],
        "bouts": [
            {
                "id": b.id,
                "aggressors": list(b.aggressors),
                "defenders": list(b.defenders),
                "hold": b.hold,
                "resolved_round": b.resolved_round,
                "last_round": b.last_round,
            }
            for b in state.bouts.values()
        ],
        "order": list(state.order),
        "round": state.round,
        "ended": state.ended,
        "ended_turn": state.ended_turn,
        "winner": state.winner,
        "reason": state.reason,
    }


def restore(sc: BecmiScenario, data: dict[str, Any]) -> BattleState:
    """Rebuild a state from its :func:`snapshot` (as read back from JSON)."""
    del sc  # the snapshot is complete; the scenario is part of the interface
    combatants = {}
    for row in data["combatants"]:
        fields_ = dict(row)
        fields_["at"] = (fields_["at"][0], fields_["at"][1])
        combatants[fields_["id"]] = CombatantState(**fields_)
    bouts = {
        row["id"]: Bout(
            row["id"],
            list(row["aggressors"]),
            list(row["defenders"]),
            row["hold"],
            row["resolved_round"],
            row["last_round"],
        )
        for row in data["bouts"]
    }
    return BattleState(
        combatants=combatants,
        sides={row["id"]: SideState(**row) for row in data["sides"]},
        bouts=bouts,
        order=list(data["order"]),
        round=data["round"],
        ended=data["ended"],
        ended_turn=data["ended_turn"],
        winner=data["winner"],
        reason=data["reason"],
    )


def _leave_bout(state: BattleState, c: CombatantState) -> None:
    """Take a fallen or fled combatant out of its bout; a team left empty ends the bout."""
    if c.bout is None:
        return
    bout = state.bouts[c.bout]
    for team in (bout.aggressors, bout.defenders):
        if c.id in team:
            team.remove(c.id)
    c.bout = None
    if not bout.aggressors or not bout.defenders:
        _dissolve(state, bout)


def _dissolve(state: BattleState, bout: Bout) -> None:
    for cid in (*bout.aggressors, *bout.defenders):
        state.combatants[cid].bout = None
    del state.bouts[bout.id]


def _harm(state: BattleState, c: CombatantState, turn: int, phase: str, by: str) -> None:
    c.harmed_round, c.harmed_phase = turn, phase
    c.harmed_by = state.combatants[by].side


def _wound(
    state: BattleState, c: CombatantState, hp: int, killed: bool, e: Event, phase: str, by: str
) -> None:
    c.hp = hp
    if killed:
        c.status = "dead"
        c.fallen_by = e.seq
        _harm(state, c, e.turn, phase, by)
        _leave_bout(state, c)


@singledispatch
def apply(event: Event, state: BattleState) -> None:
    """Apply one event to the state (dispatch on the event's class)."""
    raise TypeError(f"becmi cannot apply {type(event).__name__}")


def apply_event(state: BattleState, event: Event) -> None:
    """The engine's argument order: ``(state, event)``."""
    apply(event, state)


@apply.register
def _(event: Initiative, state: BattleState) -> None:
    for sid, roll in event.rolls.items():
        state.sides[sid].initiative = roll
    state.order = list(event.order)
    state.round = event.turn


@apply.register
def _(event: Recovered, state: BattleState) -> None:
    c = state.combatants[event.combatant]
    c.unconscious = False
    c.fallen_by = None


@apply.register
def _(event: Moved, state: BattleState) -> None:
    c = state.combatants[event.combatant]
    c.at = (event.to[0], event.to[1])
    c.moved_round = event.turn
    if event.left_cover:
        c.cover, c.cover_kind = "none", "soft"


@apply.register
def _(event: Attacked, state: BattleState) -> None:
    target = state.combatants[event.target]
    _wound(state, target, event.hp_after, event.killed, event, event.phase, event.attacker)


@apply.register
def _(event: Struck, state: BattleState) -> None:
    target = state.combatants[event.target]
    _wound(state, target, event.hp_after, event.killed, event, event.phase, event.attacker)
    if event.killed:
        return
    if event.stunned:
        target.stunned_through = event.turn + event.stun_rounds
        _harm(state, target, event.turn, event.phase, event.attacker)
    if event.knocked_out_rounds > 0:
        target.unconscious = True
        target.fallen_by = event.seq
        target.wakes_round = event.turn + event.knocked_out_rounds + 1
        _leave_bout(state, target)


@apply.register
def _(event: Wrestled, state: BattleState) -> None:
    if event.started:
        aggressors = [w.id for w in event.aggressors.members]
        defenders = [w.id for w in event.defenders.members]
        state.bouts[event.bout] = Bout(event.bout, aggressors, defenders)
        for cid in (*aggressors, *defenders):
            state.combatants[cid].bout = event.bout
    bout = state.bouts[event.bout]
    bout.hold = event.hold_after
    bout.resolved_round = event.turn
    bout.last_round = event.seq
    for w in (*event.aggressors.members, *event.defenders.members):
        state.combatants[w.id].wrestled_round = event.turn
    pinner = event.aggressors.leader if event.hold_after > 0 else event.defenders.leader
    for pin in event.pins:
        c = state.combatants[pin.combatant]
        _wound(state, c, pin.hp_after, pin.killed, event, event.phase, pinner)
    if event.ended and event.bout in state.bouts:
        _dissolve(state, state.bouts[event.bout])


@apply.register
def _(event: Joined, state: BattleState) -> None:
    bout = state.bouts[event.bout]
    team = bout.aggressors if event.team == "aggressors" else bout.defenders
    team.append(event.combatant)
    state.combatants[event.combatant].bout = event.bout


@apply.register
def _(event: MoraleChecked, state: BattleState) -> None:
    side = state.sides[event.side]
    side.first_fallen_checked = True
    if event.trigger == "half_out":
        side.half_out_checked = True
    for cid in event.fled:
        c = state.combatants[cid]
        c.status = "fled"
        c.fallen_by = event.seq
        _leave_bout(state, c)


@apply.register
def _(event: BattleEnded, state: BattleState) -> None:
    state.ended = True
    state.ended_turn = event.turn
    state.winner = event.winner
    state.reason = event.reason
