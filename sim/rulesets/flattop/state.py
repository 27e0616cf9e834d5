"""Battle state of the ``flattop`` ruleset, and the one function that changes it.

:func:`apply` is the only writer of state: the live simulation calls it
(through the engine's recorder) for each event it logs, and replay folds the
logged events through it.  Every number an event changes was decided before
the event was made; apply only writes it down.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import singledispatch
from typing import Any

from engine.events import Event
from sim.rulesets.flattop.data import AIRCRAFT
from sim.rulesets.flattop.events import (
    AirCombat,
    AntiAircraft,
    Attacked,
    BattleEnded,
    CapRearming,
    Launched,
    Rearmed,
    Recovered,
    Spotted,
    StrikeCancelled,
    TargetSunk,
)
from sim.rulesets.flattop.scenario import FlattopScenario

__all__ = [
    "BattleState",
    "DeckState",
    "ShipState",
    "SideState",
    "StrikeState",
    "TaskForceState",
    "apply",
    "apply_event",
    "initial_state",
    "restore",
    "snapshot",
]

Counts = dict[str, int]


def _counts(given: Mapping[str, int] | None = None) -> Counts:
    """Air factors by type, every type present, in the fixed type order."""
    return {t: (given or {}).get(t, 0) for t in AIRCRAFT}


@dataclass(slots=True)
class ShipState:
    """One ship's changing state; its fixed data stays in the scenario."""

    id: str
    side: str
    task_force: str
    name: str
    kind: str
    aa: int
    damage: int
    anchored: bool
    hits: int = 0
    status: str = "afloat"
    status_cause: int | None = None
    """Seq of the attack that crippled or sank it; None while afloat."""


@dataclass(slots=True)
class DeckState:
    """The aircraft of a carrier or a base, by box.

    ``ready`` is the Ready box, by strike (the strike spotted there) and type.
    """

    id: str
    side: str
    name: str
    carrier: bool
    hangar: Counts
    rearming: Counts = field(default_factory=_counts)
    ready: dict[str, Counts] = field(default_factory=dict)

    def ready_total(self) -> int:
        """Air factors in the Ready box."""
        return sum(sum(c.values()) for c in self.ready.values())

    def aboard(self) -> int:
        """Air factors aboard: Ready box, rearming and hangar."""
        return self.ready_total() + sum(self.rearming.values()) + sum(self.hangar.values())


@dataclass(slots=True)
class TaskForceState:
    """A task force's combat air patrol."""

    id: str
    side: str
    name: str
    cap: int
    fought_turn: int = field(default=0, compare=False)
    fought_strike: str = field(default="", compare=False)
    """The last turn in which its CAP fought a raid (0: none yet).  Read only within that
    turn (``cap_engagement: once_per_turn``), so it is not in the snapshot: a snapshot and
    a digest are taken between turns, when it no longer matters (and a version-1 replay's
    digests stay what they were).  ``fought_strike``: the raid it fought then."""


@dataclass(slots=True)
class StrikeState:
    """A strike: where it is and what is left of it."""

    id: str
    side: str
    name: str
    origin: str
    target: str
    status: str = "planned"
    """planned, spotted, airborne, recovered, destroyed (none came back), ditched or cancelled."""
    escort: int = 0
    attacks: list[int] = field(default_factory=list)
    spoiled: list[int] = field(default_factory=list, compare=False)
    """Air factors of each attack whose attack AA fire spoiled (``aa_spoiled_per_kill``):
    still in ``attacks``, they fly home without attacking.  Read only between the AA fire
    and the attacks, at one minute, so it is not in the snapshot (as a CAP's
    ``fought_turn``), and older replays' digests stay what they were."""

    def attacking(self, index: int) -> int:
        """Air factors of attack ``index`` that make its attack: those left, less the spoiled."""
        return self.attacks[index] - (self.spoiled[index] if self.spoiled else 0)


@dataclass(slots=True)
class SideState:
    """One side: air factors lost, by cause."""

    id: str
    name: str
    air_lost: Counts = field(
        default_factory=lambda: {"air_combat": 0, "anti_aircraft": 0, "aboard": 0, "ditched": 0}
    )


@dataclass(slots=True)
class BattleState:
    """The whole battle, every mapping in scenario order."""

    ships: dict[str, ShipState]
    decks: dict[str, DeckState]
    task_forces: dict[str, TaskForceState]
    strikes: dict[str, StrikeState]
    sides: dict[str, SideState]
    ended: bool = False
    ended_turn: int = 0
    winner: str | None = None
    reason: str = ""
    points: dict[str, int] = field(default_factory=dict)


def initial_state(sc: FlattopScenario) -> BattleState:
    """Build the state at the start of the battle from its scenario."""
    ships: dict[str, ShipState] = {}
    decks: dict[str, DeckState] = {}
    tfs: dict[str, TaskForceState] = {}
    strikes: dict[str, StrikeState] = {}
    for side in sc.sides:
        for tf in side.task_forces:
            tfs[tf.id] = TaskForceState(tf.id, side.id, tf.name, tf.cap)
            for s in tf.ships:
                damage = s.damage_factor(sc.options)
                ships[s.id] = ShipState(
                    s.id, side.id, tf.id, s.name, s.kind, s.aa_factor, damage, s.anchored
                )
                if s.aircraft:
                    decks[s.id] = DeckState(
                        s.id,
                        side.id,
                        s.name,
                        True,
                        _counts({str(t): n for t, n in s.aircraft.items()}),
                    )
        for b in side.bases:
            decks[b.id] = DeckState(
                b.id, side.id, b.name, False, _counts({str(t): n for t, n in b.aircraft.items()})
            )
        for st in side.strikes:
            strikes[st.id] = StrikeState(st.id, side.id, st.name, st.origin, st.target)
    sides = {s.id: SideState(s.id, s.name) for s in sc.sides}
    return BattleState(ships, decks, tfs, strikes, sides)


def snapshot(state: BattleState) -> dict[str, Any]:
    """Return the changing state as plain JSON data (for digests, snapshots and tests)."""
    return {
        "ships": [
            {"id": s.id, "hits": s.hits, "status": s.status, "status_cause": s.status_cause}
            for s in state.ships.values()
        ],
        "decks": [
            {
                "id": d.id,
                "hangar": dict(d.hangar),
                "rearming": dict(d.rearming),
                "ready": {k: dict(v) for k, v in d.ready.items()},
            }
            for d in state.decks.values()
        ],
        "task_forces": [{"id": t.id, "cap": t.cap} for t in state.task_forces.values()],
        "strikes": [
            {"id": s.id, "status": s.status, "escort": s.escort, "attacks": list(s.attacks)}
            for s in state.strikes.values()
        ],
        "sides": [{"id": s.id, "air_lost": dict(s.air_lost)} for s in state.sides.values()],
        "ended": state.ended,
        "ended_turn": state.ended_turn,
        "winner": state.winner,
        "reason": state.reason,
        "points": dict(state.points),
    }


def restore(sc: FlattopScenario, data: dict[str, Any]) -> BattleState:
    """Rebuild a state from its :func:`snapshot`: the scenario's, with the changing fields set."""
    state = initial_state(sc)
    for row in data["ships"] if "ships" in data else data["units"]:  # "units" before 0.2
        ship = state.ships[row["id"]]
        ship.hits, ship.status = row["hits"], row["status"]
        ship.status_cause = row.get("status_cause")  # kept since causes were recorded
    for row in data["decks"]:
        deck = state.decks[row["id"]]
        deck.hangar, deck.rearming = dict(row["hangar"]), dict(row["rearming"])
        deck.ready = {k: dict(v) for k, v in row["ready"].items()}
    for row in data["task_forces"]:
        state.task_forces[row["id"]].cap = row["cap"]
    for row in data["strikes"]:
        strike = state.strikes[row["id"]]
        strike.status, strike.escort, strike.attacks = row["status"], row["escort"], row["attacks"]
    for row in data["sides"]:
        state.sides[row["id"]].air_lost = dict(row["air_lost"])
    state.ended, state.ended_turn = data["ended"], data["ended_turn"]
    state.winner, state.reason, state.points = data["winner"], data["reason"], dict(data["points"])
    return state


@singledispatch
def apply(event: Event, state: BattleState) -> None:
    """Apply one event to the state (dispatch on the event's class)."""
    raise TypeError(f"flattop cannot apply {type(event).__name__}")


def apply_event(state: BattleState, event: Event) -> None:
    """The engine's argument order: ``(state, event)``."""
    apply(event, state)


def _sub(counts: Counts, minus: dict[str, int]) -> None:
    for t, n in minus.items():
        counts[t] -= n


def _add(counts: Counts, plus: dict[str, int]) -> None:
    for t, n in plus.items():
        counts[t] += n


@apply.register
def _(event: Spotted, state: BattleState) -> None:
    deck = state.decks[event.deck]
    _sub(deck.hangar, event.aircraft)
    deck.ready[event.strike] = _counts(event.aircraft)
    state.strikes[event.strike].status = "spotted"


@apply.register
def _(event: StrikeCancelled, state: BattleState) -> None:
    strike = state.strikes[event.strike]
    deck = state.decks[strike.origin]
    deck.ready.pop(event.strike, None)
    _add(deck.hangar, event.returned)
    strike.status = "cancelled"


@apply.register
def _(event: Launched, state: BattleState) -> None:
    strike = state.strikes[event.strike]
    del state.decks[event.deck].ready[event.strike]
    strike.status = "airborne"
    strike.escort = event.escort
    strike.attacks = list(event.attacks)


def _strike_losses(state: BattleState, strike_id: str, escort: int, attacks: list[int]) -> int:
    strike = state.strikes[strike_id]
    strike.escort -= escort
    strike.attacks = [a - lost for a, lost in zip(strike.attacks, attacks, strict=True)]
    return escort + sum(attacks)


@apply.register
def _(event: AirCombat, state: BattleState) -> None:
    tf = state.task_forces[event.task_force]
    tf.cap -= event.cap_lost
    tf.fought_turn, tf.fought_strike = event.turn, event.strike
    state.sides[tf.side].air_lost["air_combat"] += event.cap_lost
    lost = _strike_losses(state, event.strike, event.escort_lost, event.attack_losses)
    state.sides[state.strikes[event.strike].side].air_lost["air_combat"] += lost


@apply.register
def _(event: AntiAircraft, state: BattleState) -> None:
    state.strikes[event.strike].spoiled = list(event.attack_spoiled)
    lost = _strike_losses(state, event.strike, 0, event.attack_losses)
    state.sides[state.strikes[event.strike].side].air_lost["anti_aircraft"] += lost


@apply.register
def _(event: Attacked, state: BattleState) -> None:
    ship = state.ships[event.ship]
    ship.hits = event.hits_after
    if event.status_after != ship.status:
        ship.status_cause = event.seq
    ship.status = event.status_after
    deck = state.decks.get(event.ship)
    if deck is None:
        return
    lost = 0
    for sid, counts in event.lost_ready.items():
        _sub(deck.ready[sid], counts)
        lost += sum(counts.values())
    _sub(deck.rearming, event.lost_rearming)
    _sub(deck.hangar, event.lost_hangar)
    lost += sum(event.lost_rearming.values()) + sum(event.lost_hangar.values())
    state.sides[deck.side].air_lost["aboard"] += lost


@apply.register
def _(event: Recovered, state: BattleState) -> None:
    strike = state.strikes[event.strike]
    strike.escort = 0
    strike.attacks = [0] * len(strike.attacks)
    strike.spoiled = []
    total = sum(event.aircraft.values())
    if not total:
        strike.status = "destroyed"
    elif event.deck is None:
        strike.status = "ditched"
        state.sides[strike.side].air_lost["ditched"] += total
    else:
        strike.status = "recovered"
        _add(state.decks[event.deck].rearming, event.aircraft)


@apply.register
def _(event: CapRearming, state: BattleState) -> None:
    """Nothing changes: the raid goes on to the AA."""


@apply.register
def _(event: TargetSunk, state: BattleState) -> None:
    """Nothing changes: the attack's aircraft fly home with the strike."""


@apply.register
def _(event: Rearmed, state: BattleState) -> None:
    deck = state.decks[event.deck]
    _sub(deck.rearming, event.aircraft)
    _add(deck.hangar, event.aircraft)


@apply.register
def _(event: BattleEnded, state: BattleState) -> None:
    state.ended = True
    state.ended_turn = event.turn
    state.winner = event.winner
    state.reason = event.reason
    state.points = dict(event.points)
