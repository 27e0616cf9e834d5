"""``pips``: a toy ruleset defined in the tests and installed as a plugin.

Two bands of fighters on a line of squares.  Each turn, in scenario order,
every fighter still standing rolls a d6 (stream ``<turn>/attack/<id>``)
against the first enemy standing: 5 or 6 takes one pip from it; a fighter
at 0 pips is down.  A band with no one standing loses; at the turn limit
the band with more pips left wins, or it is a draw.

It implements the whole contract in one small module, so the contract
suite proves that a ruleset nobody wrote a test for gets every tool.  Its
state derives from :class:`sim.contract.StateBase`, so ``apply``,
``snapshot`` and ``restore`` come from the framework, and its summary lines
and charts are the contract's defaults.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

import simpy
from pydantic import BaseModel, ConfigDict, Field

from engine.events import Draw, Event, EventRegistry
from engine.recorder import Recorder
from sim.contract import (
    Measure,
    Outcome,
    Problem,
    Ruleset,
    SideResult,
    Space,
    StateBase,
    UnitRow,
    applies,
)
from sim.runner import Actor, BattleView, Plan
from tests.contract.toy.odds import ROLLS

__all__ = ["RULESET", "SCENARIOS"]

SCENARIOS = (Path(__file__).parent / "pips_duel.yaml",)
"""The plugin's shipped scenarios."""


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class FighterSpec(_Model):
    """A fighter: id, name, pips and square."""

    id: str = Field(pattern=r"^[a-z][a-z0-9_]*$")
    name: str
    pips: int = Field(ge=1, le=20)
    at: int = Field(ge=0, le=99)


class BandSpec(_Model):
    """A band of fighters."""

    id: str = Field(pattern=r"^[a-z][a-z0-9_]*$")
    name: str
    fighters: list[FighterSpec] = Field(min_length=1, max_length=20)


class PipsScenario(_Model):
    """A pips scenario file."""

    ruleset: Literal["pips"]
    name: str
    seed: int = Field(1, ge=0)
    turns: int = Field(10, ge=1, le=100)
    sides: list[BandSpec] = Field(min_length=2, max_length=2)


class Rolled(Event):
    """A fighter rolled against an enemy; 5+ takes a pip."""

    type: Literal["pips.rolled"] = "pips.rolled"
    unit: str
    target: str
    draw: Draw
    roll: int
    hit: bool


class Ended(Event):
    """The battle is over."""

    type: Literal["pips.ended"] = "pips.ended"
    winner: str | None
    reason: str


class Fighter(BaseModel):
    """A fighter's changing state."""

    id: str
    side: str
    pips: int
    downed_by: int | None = None
    """Seq of the roll that took its last pip."""


class State(StateBase):
    """The whole battle: fighters by id, and how it ended."""

    fighters: dict[str, Fighter]
    ended_turn: int = 0
    winner: str | None = None
    reason: str = ""

    @applies(Rolled)
    def rolled(self, e: Rolled) -> None:
        """A hit takes a pip; the last one downs the fighter."""
        if e.hit:
            target = self.fighters[e.target]
            target.pips -= 1
            if target.pips == 0:
                target.downed_by = e.seq

    @applies(Ended)
    def end(self, e: Ended) -> None:
        """The battle is over."""
        self.ended, self.ended_turn, self.winner, self.reason = True, e.turn, e.winner, e.reason


def initial_state(sc: PipsScenario) -> State:
    """Everyone at full pips."""
    fighters = {
        f.id: Fighter(id=f.id, side=b.id, pips=f.pips) for b in sc.sides for f in b.fighters
    }
    return State(fighters=fighters)


def _standing(state: State, side: str) -> list[Fighter]:
    return [f for f in state.fighters.values() if f.side == side and f.pips > 0]


class View(BattleView[PipsScenario, State]):
    """The read-only battle view."""


def _fighter(b: View, rec: Recorder[State], fid: str, rank: int) -> simpy.events.ProcessGenerator:
    me = b.state.fighters[fid]
    while True:
        yield b.kernel.phase("attack", (rank,))
        if b.state.ended or me.pips <= 0:
            return
        enemy = next(s.id for s in b.scenario.sides if s.id != me.side)
        targets = _standing(b.state, enemy)
        if targets:
            draw = b.streams.stream(str(b.turn), "attack", fid).draw()
            roll = 1 + int(draw.u * 6)
            rec.emit(
                Rolled(
                    turn=b.turn,
                    time=b.now,
                    unit=fid,
                    target=targets[0].id,
                    draw=draw,
                    roll=roll,
                    hit=roll >= 5,
                )
            )


def _processes(b: View, rec: Recorder[State]) -> list[Actor]:
    return [Actor(fid, _fighter(b, rec, fid, k)) for k, fid in enumerate(b.state.fighters)]


def _turn_end(b: View, turn: int, last: bool) -> list[Event]:
    a, z = (s.id for s in b.scenario.sides)
    pa, pz = (sum(f.pips for f in _standing(b.state, s)) for s in (a, z))
    if pa and pz and not last:
        return []
    cause = None
    if not pa or not pz:
        winner, reason = (a if pa else z if pz else None), "one band has no one standing"
        # caused by the roll that downed the beaten band's last fighter
        cause = max(f.downed_by or -1 for f in b.state.fighters.values() if f.side != winner)
    else:
        winner = a if pa > pz else z if pz > pa else None
        reason = f"turn limit: {pa} pips to {pz}"
    return [Ended(turn=turn, time=b.now, cause=cause, winner=winner, reason=reason)]


def plan(sc: PipsScenario) -> Plan[PipsScenario, State, View]:
    """One phase a turn of one minute; a process per fighter."""
    return Plan(("attack",), 1, sc.turns, View, _processes, _turn_end)


def cross_check(sc: PipsScenario) -> list[Problem]:
    """Ids unique across the battle."""
    seen: set[str] = set()
    problems: list[Problem] = []
    for i, b in enumerate(sc.sides):
        for j, f in enumerate(b.fighters):
            if f.id in seen:
                problems.append((("sides", i, "fighters", j, "id"), f"duplicate id {f.id!r}"))
            seen.add(f.id)
    return problems


def outcome(sc: PipsScenario, state: State) -> Outcome:
    """Winner and pips lost by each band."""
    names = {s.id: s.name for s in sc.sides}
    sides = {
        s.id: SideResult(
            name=s.name,
            losses=[
                Measure(
                    name="pips",
                    value=sum(f.pips - state.fighters[f.id].pips for f in s.fighters),
                    unit="pips",
                )
            ],
        )
        for s in sc.sides
    }
    winner = state.winner
    return Outcome(
        winner=winner,
        winner_name=names[winner] if winner else None,
        reason=state.reason,
        turns=state.ended_turn,
        sides=sides,
    )


def narrate(sc: PipsScenario, state: State, e: Event) -> str | None:
    """One line per event."""
    if isinstance(e, Rolled):
        verdict = "takes a pip" if e.hit else "misses"
        return f"Turn {e.turn} — {e.unit} rolls {e.roll} at {e.target}: {verdict}"
    if isinstance(e, Ended):
        return f"Turn {e.turn} — {e.winner or 'nobody'} wins: {e.reason}"
    return None


def units(sc: PipsScenario, state: State) -> list[UnitRow]:
    """Every fighter, its square and pips."""
    return [
        UnitRow(
            id=f.id,
            name=f.name,
            side=b.id,
            side_name=b.name,
            kind="fighter",
            position=(f.at,),
            strength=Measure(name="pips", value=state.fighters[f.id].pips, unit="pips"),
            initial=Measure(name="pips", value=f.pips, unit="pips"),
            status=[] if state.fighters[f.id].pips > 0 else ["down"],
        )
        for b in sc.sides
        for f in b.fighters
    ]


def space(sc: PipsScenario) -> Space:
    """A line of squares."""
    return Space(kind="line", axes=("square",), unit="square", bounds=[(0, 99)])


RULESET: Ruleset[PipsScenario, State] = Ruleset(
    name="pips",
    version="1",
    scenario_model=PipsScenario,
    registry=EventRegistry([Rolled, Ended], since_format=1),
    cross_check=cross_check,
    rules_data=lambda: {"hit_on": 5, "die": 6},
    plan=plan,
    initial_state=initial_state,
    outcome=outcome,
    narrate=narrate,
    units=units,
    space=space,
    examples=SCENARIOS,
    odds=(ROLLS,),
)
