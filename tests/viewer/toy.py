"""``relay``: a toy plugin ruleset that writes no HTML, to show the viewer needs only the contract.

Runners of two teams race along a straight track (a one-axis space the viewer
has never heard of, in metres). Each turn every runner still up runs its pace
and loses half of it in stamina; a runner at 0 stamina falls (caused by that
run). The first team with a runner past the finish wins.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Literal

from pydantic import BaseModel

from engine.events import Event, EventRegistry
from engine.log import EventLog, Header, Sink
from engine.projection import Projection
from engine.recorder import Recorder
from sim.ruleset import Feature, Measure, Outcome, Reading, Ruleset, SideResult, Space, UnitRow

__all__ = ["RULESET", "SCENARIO"]


class RunnerSpec(BaseModel):
    id: str
    name: str
    pace: int
    stamina: int


class TeamSpec(BaseModel):
    id: str
    name: str
    runners: list[RunnerSpec]


class RelayScenario(BaseModel):
    ruleset: Literal["relay"]
    name: str
    seed: int = 1
    finish: int
    turns: int
    teams: list[TeamSpec]


class Ran(Event):
    type: Literal["relay.ran"] = "relay.ran"
    runner: str
    start: int
    to: int
    stamina: int


class Fell(Event):
    type: Literal["relay.fell"] = "relay.fell"
    runner: str


@dataclass
class Runner:
    id: str
    team: str
    at: int = 0
    stamina: int = 0
    down: bool = False


@dataclass
class Race:
    runners: dict[str, Runner] = field(default_factory=dict)
    leg: int = 0


def initial_state(sc: RelayScenario) -> Race:
    return Race({r.id: Runner(r.id, t.id, 0, r.stamina) for t in sc.teams for r in t.runners})


def apply(state: Race, event: Event) -> None:
    state.leg = max(state.leg, event.turn)
    if isinstance(event, Ran):
        runner = state.runners[event.runner]
        runner.at, runner.stamina = event.to, event.stamina
    elif isinstance(event, Fell):
        state.runners[event.runner].down = True


def snapshot(state: Race) -> dict[str, Any]:
    return {"runners": [asdict(r) for r in state.runners.values()], "leg": state.leg}


def restore(sc: RelayScenario, data: dict[str, Any]) -> Race:
    return Race({r["id"]: Runner(**r) for r in data["runners"]}, data["leg"])


def _leader(sc: RelayScenario, state: Race) -> str | None:
    past = [r for r in state.runners.values() if r.at >= sc.finish]
    return max(past, key=lambda r: r.at).team if past else None


def simulate(sc: RelayScenario, header: Header, sink: Sink) -> Race:
    recorder = Recorder(EventLog(header, sink), Projection(initial_state(sc), apply), snapshot)
    specs = {r.id: r for t in sc.teams for r in t.runners}
    for turn in range(1, sc.turns + 1):
        for r in list(recorder.state.runners.values()):
            if r.down:
                continue
            pace = specs[r.id].pace
            ran = recorder.emit(
                Ran(
                    turn=turn,
                    time=turn,
                    runner=r.id,
                    start=r.at,
                    to=r.at + pace,
                    stamina=max(r.stamina - pace // 2, 0),
                )
            )
            if recorder.state.runners[r.id].stamina == 0:
                recorder.emit(Fell(turn=turn, time=turn, runner=r.id, cause=ran.seq))
        recorder.end_turn(turn, float(turn))
        if _leader(sc, recorder.state) is not None:
            break
    recorder.close(turn)
    return recorder.state


def outcome(sc: RelayScenario, state: Race) -> Outcome:
    winner = _leader(sc, state)
    names = {t.id: t.name for t in sc.teams}
    sides = {
        t.id: SideResult(
            name=t.name,
            losses=[
                Measure(
                    name="fallen",
                    value=sum(1 for r in state.runners.values() if r.team == t.id and r.down),
                    unit="runners",
                )
            ],
        )
        for t in sc.teams
    }
    reason = f"{names[winner]} crossed the line first" if winner else "nobody finished"
    return Outcome(
        winner=winner,
        winner_name=names.get(winner or ""),
        reason=reason,
        turns=state.leg,
        sides=sides,
    )


def summary(result: Outcome) -> list[str]:
    return [f"{s.name}: {s.loss('fallen')} fallen" for s in result.sides.values()]


def narrate(sc: RelayScenario, state: Race, event: Event) -> str | None:
    if isinstance(event, Ran):
        return f"Leg {event.turn} — {event.runner} runs {event.start} → {event.to} m"
    if isinstance(event, Fell):
        return f"Leg {event.turn} — {event.runner} falls, spent"
    return None


def units(sc: RelayScenario, state: Race) -> list[UnitRow]:
    rows = []
    for t in sc.teams:
        for spec in t.runners:
            r = state.runners[spec.id]
            rows.append(
                UnitRow(
                    id=r.id,
                    name=spec.name,
                    side=t.id,
                    side_name=t.name,
                    kind="runner",
                    position=(r.at,),
                    strength=Measure(name="stamina", value=r.stamina, unit="stamina"),
                    initial=Measure(name="stamina", value=spec.stamina, unit="stamina"),
                    status=["fallen"] if r.down else [],
                )
            )
    return rows


def measures(sc: RelayScenario, state: Race) -> list[Reading]:
    out = []
    for t in sc.teams:
        mine = [r for r in state.runners.values() if r.team == t.id]
        for m in (
            Measure(name="distance", value=sum(r.at for r in mine), unit="m"),
            Measure(name="stamina", value=sum(r.stamina for r in mine), unit="stamina"),
        ):
            out.append(Reading(scope="side", subject=t.id, name=t.name, measure=m))
    return out


def space(sc: RelayScenario) -> Space:
    finish = Feature(kind="finish", name="finish line", cells=[(sc.finish,)])
    return Space(kind="track", axes=("m",), unit="m", features=[finish])


RULESET: Ruleset[RelayScenario, Race] = Ruleset(
    name="relay",
    version="1",
    scenario_model=RelayScenario,
    registry=EventRegistry([Ran, Fell]),
    cross_check=lambda sc: [],
    rules_data=lambda: {"stamina_per_metre": 0.5},
    simulate=simulate,
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
    turn_name="leg",
)

SCENARIO = """ruleset: relay
name: Two-team relay
finish: 40
turns: 8
teams:
  - id: hares
    name: Hares
    runners:
      - {id: h1, name: Hare One, pace: 9, stamina: 20}
      - {id: h2, name: Hare Two, pace: 6, stamina: 30}
  - id: tortoises
    name: Tortoises
    runners:
      - {id: t1, name: Tortoise One, pace: 5, stamina: 40}
      - {id: t2, name: Tortoise Two, pace: 8, stamina: 12}
"""
