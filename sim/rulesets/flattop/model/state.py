"""Battle state of the ``flattop`` ruleset, and the methods that change it.

:class:`BattleState` is a :class:`~sim.contract.StateBase` (with the battle's end): its
:func:`~sim.contract.applies` methods are the only writers of state (the
live simulation calls them through the engine's recorder for each event it
logs, and replay folds the logged events through them).  Every number an
event changes was decided before the event was made; apply only writes it
down.  Snapshot and restore come from the base: what the scenario fixes
(names, factors, origins) and what is read only within a turn are
:func:`~sim.contract.parts.fixed`, out of the snapshot, and restored from the
scenario's start.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar, Literal, Self

from pydantic import Field

from sim.contract import applies
from sim.contract.ending import EndingState
from sim.contract.parts import ById, Part, fixed
from sim.rulesets.flattop.model.data import AIRCRAFT
from sim.rulesets.flattop.model.events import (
    AfterAttackKills,
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
from sim.rulesets.flattop.model.scenario import BaseSpec, FlattopScenario, ShipSpec

__all__ = [
    "BattleState",
    "DeckState",
    "ShipState",
    "SideState",
    "StrikeState",
    "TaskForceState",
    "initial_state",
]

Counts = dict[str, int]


def _counts(given: Mapping[str, int] | None = None) -> Counts:
    """Air factors by type, every type present, in the fixed type order."""
    return {t: (given or {}).get(t, 0) for t in AIRCRAFT}


def _sub(counts: Counts, minus: dict[str, int]) -> None:
    for t, n in minus.items():
        counts[t] -= n


def _add(counts: Counts, plus: dict[str, int]) -> None:
    for t, n in plus.items():
        counts[t] += n


StrikeStatus = Literal[
    "planned", "spotted", "airborne", "recovered", "destroyed", "ditched", "cancelled"
]
"""Where a strike is in its day."""


class _OfSide(Part):
    """A ship, deck, task force or strike: its id, and the side and name the scenario gives it."""

    id: str
    side: str = fixed()
    name: str = fixed()


class ShipState(_OfSide):
    """One ship's changing state; its fixed data stays in the scenario."""

    task_force: str = fixed()
    kind: str = fixed()
    aa: int = fixed()
    damage: int = fixed()
    anchored: bool = fixed()
    hits: int = 0
    status: Literal["afloat", "crippled", "sunk"] = "afloat"
    status_cause: int | None = None
    """Seq of the attack that crippled or sank it; None while afloat."""


class DeckState(_OfSide):
    """The aircraft of a carrier or a base, by box.

    ``ready`` is the Ready box, by strike (the strike spotted there) and type.
    """

    carrier: bool = fixed()
    hangar: Counts
    rearming: Counts = Field(default_factory=_counts)
    ready: dict[str, Counts] = Field(default_factory=dict)

    def ready_total(self) -> int:
        """Air factors in the Ready box."""
        return sum(sum(c.values()) for c in self.ready.values())

    def aboard(self) -> int:
        """Air factors aboard: Ready box, rearming and hangar."""
        return self.ready_total() + sum(self.rearming.values()) + sum(self.hangar.values())


class TaskForceState(_OfSide):
    """A task force's combat air patrol."""

    cap: int
    fought_turn: int = fixed(0)
    fought_strike: str = fixed("")
    """The last turn in which its CAP fought a raid (0: none yet).  Read only within that
    turn (``cap_engagement: once_per_turn``), so it is not in the snapshot: a snapshot and
    a digest are taken between turns, when it no longer matters (and a version-1 replay's
    digests stay what they were).  ``fought_strike``: the raid it fought then."""


class StrikeState(_OfSide):
    """A strike: where it is and what is left of it."""

    origin: str = fixed()
    target: str = fixed()
    status: StrikeStatus = "planned"
    """planned, spotted, airborne, recovered, destroyed (none came back), ditched or cancelled
    (a fork's ``--set`` of another word is refused)."""
    escort: int = 0
    attacks: list[int] = Field(default_factory=list)
    spoiled: list[int] = fixed(default_factory=list)
    """Air factors of each attack whose attack AA fire spoiled (``aa_spoiled_per_kill``):
    still in ``attacks``, they fly home without attacking.  Read only between the AA fire
    and the attacks, at one minute, so it is not in the snapshot (as a CAP's
    ``fought_turn``), and older replays' digests stay what they were."""

    after: list[int] = fixed(default_factory=list)
    """Air factors of each attack the CAP has hit for an after-attack kill
    (``cap_kills_after_attack``): still in ``attacks``, they attack and are shot down by
    :class:`~sim.rulesets.flattop.model.events.AfterAttackKills` once the attacks are made.
    Read only at the minute of the raid, so it is not in the snapshot (as ``spoiled``)."""
    after_cause: int = fixed(0)
    """Seq of the air combat that decided ``after``."""

    def attacking(self, index: int) -> int:
        """Air factors of attack ``index`` that make its attack: those left, less the spoiled."""
        return self.attacks[index] - (self.spoiled[index] if self.spoiled else 0)


class SideState(Part):
    """One side: air factors lost, by cause."""

    id: str
    name: str = fixed()
    air_lost: Counts = Field(
        default_factory=lambda: {"air_combat": 0, "anti_aircraft": 0, "aboard": 0, "ditched": 0}
    )


class BattleState(EndingState):
    """The whole battle, every mapping in scenario order."""

    snapshot_order: ClassVar[tuple[str, ...]] = EndingState.with_ending(
        ("ships", "decks", "task_forces", "strikes", "sides"), ("points",)
    )
    """The order of its snapshots before it used the base (an ``engine.snapshot`` line's)."""

    ships: ById[ShipState]
    decks: ById[DeckState]
    task_forces: ById[TaskForceState]
    strikes: ById[StrikeState]
    sides: ById[SideState]
    points: dict[str, int] = Field(default_factory=dict)

    @classmethod
    def restore(cls, data: dict[str, Any], start: Self | None = None) -> Self:
        """The state a snapshot was taken of; a snapshot before 0.2 lists ships as ``units``."""
        if "ships" not in data and "units" in data:
            data = {("ships" if k == "units" else k): v for k, v in data.items()}
        return super().restore(data, start)

    @applies(Spotted)
    def spotted(self, event: Spotted) -> None:
        deck = self.decks[event.deck]
        _sub(deck.hangar, event.aircraft)
        deck.ready[event.strike] = _counts(event.aircraft)
        self.strikes[event.strike].status = "spotted"

    @applies(StrikeCancelled)
    def strike_cancelled(self, event: StrikeCancelled) -> None:
        strike = self.strikes[event.strike]
        deck = self.decks[strike.origin]
        deck.ready.pop(event.strike, None)
        _add(deck.hangar, event.returned)
        strike.status = "cancelled"

    @applies(Launched)
    def launched(self, event: Launched) -> None:
        strike = self.strikes[event.strike]
        del self.decks[event.deck].ready[event.strike]
        strike.status = "airborne"
        strike.escort = event.escort
        strike.attacks = list(event.attacks)

    def _strike_losses(self, strike_id: str, escort: int, attacks: list[int]) -> int:
        strike = self.strikes[strike_id]
        strike.escort -= escort
        strike.attacks = [a - lost for a, lost in zip(strike.attacks, attacks, strict=True)]
        return escort + sum(attacks)

    @applies(AirCombat)
    def air_combat(self, event: AirCombat) -> None:
        tf = self.task_forces[event.task_force]
        tf.cap -= event.cap_lost
        tf.fought_turn, tf.fought_strike = event.turn, event.strike
        self.sides[tf.side].air_lost["air_combat"] += event.cap_lost
        lost = self._strike_losses(event.strike, event.escort_lost, event.attack_losses)
        self.sides[self.strikes[event.strike].side].air_lost["air_combat"] += lost
        if event.attack_losses_after:
            strike = self.strikes[event.strike]
            strike.after, strike.after_cause = list(event.attack_losses_after), event.seq

    @applies(AfterAttackKills)
    def after_attack_kills(self, event: AfterAttackKills) -> None:
        strike = self.strikes[event.strike]
        strike.after, strike.after_cause = [], 0
        lost = self._strike_losses(event.strike, 0, event.attack_losses)
        self.sides[strike.side].air_lost["air_combat"] += lost

    @applies(AntiAircraft)
    def anti_aircraft(self, event: AntiAircraft) -> None:
        self.strikes[event.strike].spoiled = list(event.attack_spoiled)
        lost = self._strike_losses(event.strike, 0, event.attack_losses)
        self.sides[self.strikes[event.strike].side].air_lost["anti_aircraft"] += lost

    @applies(Attacked)
    def attacked(self, event: Attacked) -> None:
        ship = self.ships[event.ship]
        ship.hits = event.hits_after
        if event.status_after != ship.status:
            ship.status_cause = event.seq
        ship.status = event.status_after
        deck = self.decks.get(event.ship)
        if deck is None:
            return
        lost = 0
        for sid, counts in event.lost_ready.items():
            _sub(deck.ready[sid], counts)
            lost += sum(counts.values())
        _sub(deck.rearming, event.lost_rearming)
        _sub(deck.hangar, event.lost_hangar)
        lost += sum(event.lost_rearming.values()) + sum(event.lost_hangar.values())
        self.sides[deck.side].air_lost["aboard"] += lost

    @applies(Recovered)
    def recovered(self, event: Recovered) -> None:
        strike = self.strikes[event.strike]
        strike.escort = 0
        strike.attacks = [0] * len(strike.attacks)
        strike.spoiled, strike.after = [], []
        total = sum(event.aircraft.values())
        if not total:
            strike.status = "destroyed"
        elif event.deck is None:
            strike.status = "ditched"
            self.sides[strike.side].air_lost["ditched"] += total
        else:
            strike.status = "recovered"
            _add(self.decks[event.deck].rearming, event.aircraft)

    @applies(CapRearming, TargetSunk)
    def nothing_changes(self, event: CapRearming | TargetSunk) -> None:
        """Nothing changes: a raid goes on to the AA; an attack's aircraft fly home with it."""

    @applies(Rearmed)
    def rearmed(self, event: Rearmed) -> None:
        deck = self.decks[event.deck]
        _sub(deck.rearming, event.aircraft)
        _add(deck.hangar, event.aircraft)

    @applies(BattleEnded)
    def battle_ended(self, event: BattleEnded) -> None:
        self.end(event)
        self.points = dict(event.points)


def _deck(spec: ShipSpec | BaseSpec, side: str) -> DeckState:
    """The deck of a carrier or a base, its aircraft in the hangar."""
    hangar = _counts({str(t): n for t, n in spec.aircraft.items()})
    carrier = isinstance(spec, ShipSpec)
    return DeckState(id=spec.id, side=side, name=spec.name, carrier=carrier, hangar=hangar)


def initial_state(sc: FlattopScenario) -> BattleState:
    """Build the state at the start of the battle from its scenario."""
    ships: dict[str, ShipState] = {}
    decks: dict[str, DeckState] = {}
    tfs: dict[str, TaskForceState] = {}
    strikes: dict[str, StrikeState] = {}
    for side in sc.sides:
        for tf in side.task_forces:
            tfs[tf.id] = TaskForceState(id=tf.id, side=side.id, name=tf.name, cap=tf.cap)
            for s in tf.ships:
                ships[s.id] = ShipState(
                    id=s.id,
                    side=side.id,
                    task_force=tf.id,
                    name=s.name,
                    kind=s.kind,
                    aa=s.aa_factor(sc.options),
                    damage=s.damage_factor(sc.options),
                    anchored=s.anchored,
                )
                if s.aircraft:
                    decks[s.id] = _deck(s, side.id)
        for b in side.bases:
            decks[b.id] = _deck(b, side.id)
        for st in side.strikes:
            strikes[st.id] = StrikeState(
                id=st.id, side=side.id, name=st.name, origin=st.origin, target=st.target
            )
    sides = {s.id: SideState(id=s.id, name=s.name) for s in sc.sides}
    return BattleState(ships=ships, decks=decks, task_forces=tfs, strikes=strikes, sides=sides)
