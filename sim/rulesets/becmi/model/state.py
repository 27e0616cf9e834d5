"""Battle state of the ``becmi`` ruleset, and the methods that change it.

:class:`BattleState` is a :class:`~sim.contract.StateBase` (with the battle's end): its
:func:`~sim.contract.applies` methods are the only writers of state (the
live simulation calls them through the engine's recorder for each event it
logs, and replay folds the logged events through them), and its snapshot
(combatants, sides and bouts each a list of rows) and restore come from the
base, as a plugin's do.
"""

from __future__ import annotations

from typing import Annotated, ClassVar, Literal

from pydantic import Field

from engine.events import Event
from sim.contract import applies
from sim.contract.ending import EndingState
from sim.contract.parts import AtMost, ById, OutAt, Part
from sim.rulesets.becmi.model.events import (
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
from sim.rulesets.becmi.model.scenario import BecmiScenario, CharacterSpec

__all__ = ["BattleState", "Bout", "CombatantState", "SideState", "initial_state"]

Point = tuple[int, int]


class CombatantState(Part):
    """One combatant's changing state (its fixed data stays in the scenario)."""

    id: str
    side: str
    name: str
    kind: str
    hp_max: int
    hp: Annotated[int, AtMost("hp_max"), OutAt(0, "status", "dead")]
    """At 0 or fewer the combatant is dead [src] (``_wound``; a fork's ``state.…hp=0`` is
    refused unless its ``status`` is set ``dead`` too)."""
    at: Point
    cover: str
    cover_kind: str
    status: Literal["ok", "dead", "fled"] = "ok"
    """``ok``, ``dead`` or ``fled`` (a fork's ``--set`` of another word is refused)."""
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


class Bout(Part):
    """A wrestling bout: two teams and the hold between them (−3 … 3)."""

    id: str
    aggressors: list[str]
    defenders: list[str]
    hold: int = 0
    resolved_round: int = 0
    last_round: int | None = None
    """Seq of the bout's latest round: the hold the next round starts from."""


class SideState(Part):
    """One side: this round's initiative and the morale triggers already spent."""

    id: str
    name: str
    initiative: int = 0
    first_fallen_checked: bool = False
    half_out_checked: bool = False


class BattleState(EndingState):
    """The whole fight: combatants in scenario order, sides, bouts, outcome."""

    snapshot_order: ClassVar[tuple[str, ...]] = EndingState.with_ending(
        ("combatants", "sides", "bouts", "order", "round")
    )
    """The order of its snapshots before it used the base (an ``engine.snapshot`` line's)."""

    combatants: ById[CombatantState]
    sides: ById[SideState]
    bouts: ById[Bout] = Field(default_factory=dict)
    order: list[str] = Field(default_factory=list)
    """Side ids in this round's initiative order."""
    round: int = 0
    """The round under way (set by its initiative)."""

    def _leave_bout(self, c: CombatantState) -> None:
        """Take a fallen or fled combatant out of its bout; a team left empty ends the bout."""
        if c.bout is None:
            return
        bout = self.bouts[c.bout]
        for team in (bout.aggressors, bout.defenders):
            if c.id in team:
                team.remove(c.id)
        c.bout = None
        if not bout.aggressors or not bout.defenders:
            self._dissolve(bout)

    def _dissolve(self, bout: Bout) -> None:
        for cid in (*bout.aggressors, *bout.defenders):
            self.combatants[cid].bout = None
        del self.bouts[bout.id]

    def _harm(self, c: CombatantState, turn: int, phase: str, by: str) -> None:
        c.harmed_round, c.harmed_phase = turn, phase
        c.harmed_by = self.combatants[by].side

    def _wound(
        self, c: CombatantState, hp: int, killed: bool, e: Event, phase: str, by: str
    ) -> None:
        """Set the hit points a blow leaves; at 0 or fewer, or ``killed``, it is dead [src]
        (a fork's ``hp_after=0`` kills at once, as the live blow's ``killed`` does)."""
        c.hp = hp
        if killed or hp <= 0:
            c.status = "dead"
            c.fallen_by = e.seq
            self._harm(c, e.turn, phase, by)
            self._leave_bout(c)

    @applies(Initiative)
    def initiative(self, event: Initiative) -> None:
        for sid, roll in event.rolls.items():
            self.sides[sid].initiative = roll
        self.order = list(event.order)
        self.round = event.turn

    @applies(Recovered)
    def recovered(self, event: Recovered) -> None:
        c = self.combatants[event.combatant]
        c.unconscious = False
        c.fallen_by = None

    @applies(Moved)
    def moved(self, event: Moved) -> None:
        c = self.combatants[event.combatant]
        c.at = (event.to[0], event.to[1])
        c.moved_round = event.turn
        if event.left_cover:
            c.cover, c.cover_kind = "none", "soft"

    @applies(Attacked)
    def attacked(self, event: Attacked) -> None:
        target = self.combatants[event.target]
        self._wound(target, event.hp_after, event.killed, event, event.phase, event.attacker)

    @applies(Struck)
    def struck(self, event: Struck) -> None:
        target = self.combatants[event.target]
        self._wound(target, event.hp_after, event.killed, event, event.phase, event.attacker)
        if target.status == "dead":
            return
        if event.stunned:
            target.stunned_through = event.turn + event.stun_rounds
            self._harm(target, event.turn, event.phase, event.attacker)
        if event.knocked_out_rounds > 0:
            target.unconscious = True
            target.fallen_by = event.seq
            target.wakes_round = event.turn + event.knocked_out_rounds + 1
            self._leave_bout(target)

    @applies(Wrestled)
    def wrestled(self, event: Wrestled) -> None:
        if event.started:
            aggressors = [w.id for w in event.aggressors.members]
            defenders = [w.id for w in event.defenders.members]
            self.bouts[event.bout] = Bout(id=event.bout, aggressors=aggressors, defenders=defenders)
            for cid in (*aggressors, *defenders):
                self.combatants[cid].bout = event.bout
        bout = self.bouts[event.bout]
        bout.hold = event.hold_after
        bout.resolved_round = event.turn
        bout.last_round = event.seq
        for w in (*event.aggressors.members, *event.defenders.members):
            self.combatants[w.id].wrestled_round = event.turn
        pinner = event.aggressors.leader if event.hold_after > 0 else event.defenders.leader
        for pin in event.pins:
            c = self.combatants[pin.combatant]
            self._wound(c, pin.hp_after, pin.killed, event, event.phase, pinner)
        if event.ended and event.bout in self.bouts:
            self._dissolve(self.bouts[event.bout])

    @applies(Joined)
    def joined(self, event: Joined) -> None:
        bout = self.bouts[event.bout]
        team = bout.aggressors if event.team == "aggressors" else bout.defenders
        team.append(event.combatant)
        self.combatants[event.combatant].bout = event.bout

    @applies(MoraleChecked)
    def morale_checked(self, event: MoraleChecked) -> None:
        side = self.sides[event.side]
        side.first_fallen_checked = True
        if event.trigger == "half_out":
            side.half_out_checked = True
        for cid in event.fled:
            c = self.combatants[cid]
            c.status = "fled"
            c.fallen_by = event.seq
            self._leave_bout(c)

    @applies(BattleEnded)
    def battle_ended(self, event: BattleEnded) -> None:
        self.end(event)


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
    sides = {s.id: SideState(id=s.id, name=s.name) for s in sc.sides}
    return BattleState(combatants=combatants, sides=sides, order=[s.id for s in sc.sides])
