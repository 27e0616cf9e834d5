"""The read-only view of a battle that the ``flattop`` rules decide from."""

from __future__ import annotations

from dataclasses import dataclass, field

from engine.rng import Stream
from sim.rulesets.flattop.model.data import CARRIER_KINDS
from sim.rulesets.flattop.model.grid import distance
from sim.rulesets.flattop.model.options import FlattopOptions
from sim.rulesets.flattop.model.scenario import (
    FlattopScenario,
    StrikeSpec,
    TaskForceSpec,
    clock_minutes,
)
from sim.rulesets.flattop.model.state import BattleState, DeckState, ShipState
from sim.runner import BattleView

__all__ = ["Battle", "clock"]


def clock(sc: FlattopScenario, minutes: float) -> str:
    """Clock time ``HH:MM`` of a simulation time (minutes from the start)."""
    h, m = (int(x) for x in sc.turns.start.split(":"))
    total = h * 60 + m + int(minutes)
    return f"{total // 60 % 24:02d}:{total % 60:02d}"


@dataclass
class Battle(BattleView[FlattopScenario, BattleState]):
    """Scenario, options, current state, random streams and clock.

    Rules read it and return events; only the recorder's apply changes
    ``state``.  ``turn`` is the hour, kept by the engine's kernel.
    """

    strikes: dict[str, StrikeSpec] = field(init=False)
    task_forces: dict[str, TaskForceSpec] = field(init=False)
    rank: dict[str, int] = field(init=False)
    position: dict[str, tuple[int, int]] = field(init=False)

    def __post_init__(self) -> None:
        sides = self.scenario.sides
        self.strikes = {st.id: st for s in sides for st in s.strikes}
        self.task_forces = {tf.id: tf for s in sides for tf in s.task_forces}
        self.rank = {sid: i for i, sid in enumerate(self.strikes)}
        self.position = {s.id: tf.at for tf in self.task_forces.values() for s in tf.ships}
        self.position.update({b.id: b.at for s in sides for b in s.bases})

    @property
    def options(self) -> FlattopOptions:
        """The ruleset options of this scenario."""
        return self.scenario.options

    def stream(self, strike: str, purpose: str, *key: str | int) -> Stream:
        """The stream named ``<strike>/<purpose>/<key...>``: one per resolution."""
        return self.streams.stream(strike, purpose, *key)

    def launch_at(self, strike: str) -> int:
        """Minutes from the start at which ``strike`` launches."""
        return clock_minutes(self.scenario.turns.start, self.strikes[strike].launch)

    def night(self, minutes: float) -> bool:
        """True between dusk and dawn (rules-notes §2 [src] night; the hours are scenario data)."""
        t = self.scenario.turns
        now = (clock_minutes("00:00", t.start) + int(minutes)) % 1440
        dusk, dawn = clock_minutes("00:00", t.dusk), clock_minutes("00:00", t.dawn)
        if dusk == dawn:
            return False
        return dusk <= now or now < dawn if dusk > dawn else dusk <= now < dawn

    def weather(self, task_force: str) -> dict[str, int]:
        """Clouds over ``task_force`` and night now, as hit-table modifiers."""
        o = self.options
        mods: dict[str, int] = {}
        if self.task_forces[task_force].clouds:
            mods["clouds"] = o.modifier_clouds
        if self.night(self.now):
            mods["night"] = o.modifier_night
        return mods

    def distance(self, strike: str) -> int:
        """Hexes from a strike's carrier or base to its target task force."""
        st = self.strikes[strike]
        return distance(self.position[st.origin], self.task_forces[st.target].at)

    def can_operate(self, deck: str) -> bool:
        """A base always can; a carrier unless sunk, or crippled (option)."""
        ship = self.state.ships.get(deck)
        if ship is None:
            return True
        if ship.status == "sunk":
            return False
        return ship.status != "crippled" or self.options.crippled_carrier_flight_ops

    def deck(self, deck: str) -> DeckState:
        """The aircraft boxes of a carrier or base."""
        return self.state.decks[deck]

    def ships_of(self, task_force: str) -> list[ShipState]:
        """The task force's ships, in scenario order."""
        return [self.state.ships[s.id] for s in self.task_forces[task_force].ships]

    def carriers_first(self, task_force: str) -> list[ShipState]:
        """The task force's ships afloat, carriers first, each group in scenario order."""
        ships = [s for s in self.ships_of(task_force) if s.status != "sunk"]
        return [s for s in ships if s.kind in CARRIER_KINDS] + [
            s for s in ships if s.kind not in CARRIER_KINDS
        ]
