"""battlesim-duel as docs/rulesets.md showed it in battlesim 0.2 (kept unchanged: old imports must work)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

import simpy
from pydantic import BaseModel, ConfigDict, Field

from engine.events import Draw, Event, EventRegistry
from engine.recorder import Recorder
from sim.ruleset import Measure, Outcome, Problem, Reading, Ruleset, SideResult, Space, UnitRow
from sim.runner import Actor, BattleView, Plan

__all__ = ["RULESET"]


# 1. The scenario file: a pydantic model whose `ruleset` is a Literal of the name.
class Champion(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")
    id: str
    name: str
    health: int = Field(ge=1, le=100)
    at: int = Field(0, ge=0, le=100, description="Yards along the lists.")


class DuelScenario(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")
    ruleset: Literal["duel"]
    name: str
    seed: int = Field(1, ge=0)
    turns: int = Field(10, ge=1, le=100)
    champions: list[Champion] = Field(min_length=2, max_length=2)


def cross_check(sc: DuelScenario) -> list[Problem]:
    a, b = sc.champions
    return [(("champions", 1, "id"), f"id {b.id!r} is used twice")] if a.id == b.id else []


# 2. Events: frozen pydantic models (Event's config) with a Literal type "<ruleset>.<name>".
class Struck(Event):
    """One blow: the d6, the damage, and the draw behind the d6."""

    type: Literal["duel.struck"] = "duel.struck"
    attacker: str
    target: str
    roll: int
    damage: int
    draws: list[Draw]


class Ended(Event):
    type: Literal["duel.ended"] = "duel.ended"
    winner: str | None
    reason: str


# 3. State (with `ended`, which the runner reads), and the one function that changes it.
@dataclass
class State:
    health: dict[str, int]
    ended: bool = False
    ended_turn: int = 0
    winner: str | None = None
    reason: str = ""


def initial_state(sc: DuelScenario) -> State:
    return State({c.id: c.health for c in sc.champions})


def snapshot(state: State) -> dict[str, Any]:
    return {"health": dict(state.health), "ended": state.ended, "ended_turn": state.ended_turn,
            "winner": state.winner, "reason": state.reason}  # fmt: skip


def restore(sc: DuelScenario, data: dict[str, Any]) -> State:
    return State(dict(data["health"]), data["ended"], data["ended_turn"], data["winner"],
                 data["reason"])  # fmt: skip


def apply(state: State, event: Event) -> None:
    if isinstance(event, Struck):
        state.health[event.target] -= event.damage
    elif isinstance(event, Ended):
        state.ended, state.ended_turn = True, event.turn
        state.winner, state.reason = event.winner, event.reason
    else:
        raise TypeError(f"duel cannot apply {type(event).__name__}")


# 4. Rules decide: pure functions of the battle's view, returning events.
class Lists(BattleView[DuelScenario, State]):
    """The read-only view rules decide from: scenario, state, streams, kernel, turn, now."""


def decide_blow(b: Lists, me: str, foe: str) -> Struck:
    roll, draw = b.streams.stream(b.turn, "blow", me).roll(6)  # stream "<turn>/blow/<me>"
    return Struck(turn=b.turn, time=b.now, attacker=me, target=foe, roll=roll,
                  damage=min(roll // 2, b.state.health[foe]), draws=[draw])  # fmt: skip


def decide_end(b: Lists, turn: int, last: bool) -> list[Event]:
    down = [cid for cid, hp in b.state.health.items() if hp <= 0]
    standing = [cid for cid, hp in b.state.health.items() if hp > 0]
    if down:
        winner = standing[0] if len(standing) == 1 else None
        return [Ended(turn=turn, time=b.now, winner=winner, reason=f"{', '.join(down)} fell")]
    return [Ended(turn=turn, time=b.now, winner=None, reason="turn limit")] if last else []


# 5. The battle: thin SimPy processes that wait on the engine's kernel, decide and emit.
def champion(b: Lists, rec: Recorder[State], rank: int) -> simpy.events.ProcessGenerator:
    me, foe = (c.id for c in b.scenario.champions[:: 1 if rank == 0 else -1])
    while True:
        yield b.kernel.phase("blows", (rank,))  # same-time order: scenario order
        if b.state.ended or b.state.health[me] <= 0:
            return
        rec.emit(decide_blow(b, me, foe))


def plan(sc: DuelScenario) -> Plan[DuelScenario, State, Lists]:
    """One phase of blows a turn (a turn is one minute); the runner does the rest."""
    return Plan(
        phases=("blows",),
        turn_length=1.0,
        turn_limit=sc.turns,
        view=Lists,
        processes=lambda b, rec: [  # one process per unit row, named by its id
            Actor(c.id, champion(b, rec, rank)) for rank, c in enumerate(sc.champions)
        ],
        turn_end=decide_end,
    )


# 6. Reading a battle: outcome, unit rows, chart measures, the field, narrative.
def outcome(sc: DuelScenario, state: State) -> Outcome:
    names = {c.id: c.name for c in sc.champions}
    return Outcome(
        winner=state.winner,
        winner_name=names[state.winner] if state.winner else None,
        reason=state.reason,
        turns=state.ended_turn,
        sides={c.id: SideResult(name=c.name, losses=[Measure(
                  name="health", value=c.health - state.health[c.id], unit="health")])
               for c in sc.champions},
    )  # fmt: skip


def summary(o: Outcome) -> list[str]:
    return [f"{s.name}: lost {s.loss('health')} health" for s in o.sides.values()]


def units(sc: DuelScenario, state: State) -> list[UnitRow]:
    return [
        UnitRow(id=c.id, name=c.name, side=c.id, side_name=c.name, kind="champion",
                position=(c.at,),
                strength=Measure(name="health", value=state.health[c.id], unit="health"),
                initial=Measure(name="health", value=c.health, unit="health"),
                status=[] if state.health[c.id] > 0 else ["fallen"])
        for c in sc.champions
    ]  # fmt: skip


def measures(sc: DuelScenario, state: State) -> list[Reading]:
    return [Reading(scope="side", subject=r.id, name=r.name, measure=r.strength)
            for r in units(sc, state)]  # fmt: skip


def space(sc: DuelScenario) -> Space:
    return Space(kind="line", axes=("yard",), unit="yd", bounds=[(0, 100)])


def narrate(sc: DuelScenario, state: State, e: Event) -> str | None:
    if isinstance(e, Struck):
        return f"Turn {e.turn}: {e.attacker} rolls {e.roll} and strikes {e.target} for {e.damage}"
    if isinstance(e, Ended):
        return f"Turn {e.turn}: {e.winner or 'nobody'} wins ({e.reason})"
    return None


RULESET: Ruleset[DuelScenario, State] = Ruleset(
    name="duel",
    version="1",
    scenario_model=DuelScenario,
    registry=EventRegistry([Struck, Ended]),
    cross_check=cross_check,
    rules_data=lambda: {"rules_version": "1", "die": 6, "damage": "roll // 2"},
    plan=plan,
    initial_state=initial_state,
    apply=apply,
    snapshot=snapshot,
    restore=restore,
    outcome=outcome,
    summary=summary,
    narrate=narrate,
    units=units,
    measures=measures,
    space=space,
)
