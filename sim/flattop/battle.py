"""A ``flattop`` battle in SimPy: processes on the engine's hour clock, in continuous time.

Processes are thin: they wait, ask a rule to decide, and emit what it
decides through the recorder.

* A **strike** spots its aircraft, launches, flies (a timed wait of its
  flight time), hands the raid to the target task force, makes its attacks,
  flies back and lands; then a small **rearm** process rearms what landed.
  Any number of strikes may be airborne at once.
* A **task force** waits for raids; over it, its **CAP** fights the raid
  (escorts against CAP, then CAP against escorts and bombers) and its ships'
  anti-aircraft fire follows; then the strike goes on to its attacks.

Same-time order (documented contract), from the engine's kernel
(:meth:`engine.kernel.TurnKernel.at`): at 60·k minutes turn k ends
(``flattop.battle_ended`` when the battle is over, then
``engine.turn_ended``, flushed) before anything else happens at that minute,
so turn k holds exactly the events of [60(k−1), 60k).  Strikes due at the
same minute act in scenario order (first side's strikes in order, then the
second side's), each — with the task force's defence it sets off — before
the next; the rearming of what a strike brought back takes the strike's
place in that order.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import simpy

from engine.events import Event
from engine.recorder import Recorder
from sim.flattop.combat import decide_air_combat, decide_anti_aircraft, decide_attack
from sim.flattop.context import Battle
from sim.flattop.data import MINUTES_PER_TURN
from sim.flattop.events import Recovered, StrikeCancelled
from sim.flattop.flight import decide_launch, decide_rearm, decide_recovery, decide_spot
from sim.flattop.scenario import FlattopScenario
from sim.flattop.state import BattleState
from sim.flattop.victory import decide_end
from sim.runner import Plan

__all__ = ["plan"]

Rec = Recorder[BattleState]


@dataclass(frozen=True)
class Raid:
    """A strike over a task force: who, the launch that caused it, and when the defence is done."""

    strike: str
    cause: int
    done: simpy.Event


def _until(b: Battle, minutes: float, sid: str) -> simpy.Event:
    return b.kernel.at(minutes, (b.rank[sid],))


def _strike(
    b: Battle, rec: Rec, sid: str, raids: dict[str, simpy.Store]
) -> simpy.events.ProcessGenerator:
    launch = b.launch_at(sid)
    yield _until(b, launch - b.options.spot_minutes, sid)
    if b.state.ended:
        return
    spotted = rec.emit(decide_spot(b, sid))
    if isinstance(spotted, StrikeCancelled):
        return
    yield _until(b, launch, sid)
    if b.state.ended:
        return
    launched = rec.emit(decide_launch(b, sid, spotted.seq))
    if isinstance(launched, StrikeCancelled):
        return
    yield _until(b, launched.arrives, sid)
    if b.state.ended:
        return
    raid = Raid(sid, launched.seq, b.kernel.env.event())
    yield raids[b.strikes[sid].target].put(raid)
    yield raid.done
    for index in range(len(b.strikes[sid].attacks)):
        attack = decide_attack(b, sid, index, launched.seq)
        if attack is not None:
            rec.emit(attack)
    yield _until(b, launched.arrives + launched.flight_minutes, sid)
    if b.state.ended:
        return
    landed = rec.emit(decide_recovery(b, sid, launched.seq))
    if landed.deck is not None and landed.aircraft:
        b.kernel.env.process(_rearm(b, rec, landed))


def _task_force(b: Battle, rec: Rec, raids: simpy.Store) -> simpy.events.ProcessGenerator:
    """The task force's CAP meets each raid over it, then its ships' AA fires."""
    while True:
        raid = yield raids.get()
        assert isinstance(raid, Raid)
        for event in decide_air_combat(b, raid.strike, raid.cause):
            rec.emit(event)
        aa = decide_anti_aircraft(b, raid.strike, raid.cause)
        if aa is not None:
            rec.emit(aa)
        raid.done.succeed()


def _rearm(b: Battle, rec: Rec, landed: Recovered) -> simpy.events.ProcessGenerator:
    assert landed.deck is not None
    yield _until(b, landed.time + b.options.rearm_minutes, landed.strike)
    if b.state.ended:
        return
    event = decide_rearm(b, landed.strike, landed.deck, landed.aircraft, landed.seq)
    if event is not None:
        rec.emit(event)


def _processes(b: Battle, rec: Rec) -> Iterator[simpy.events.ProcessGenerator]:
    raids = {tf: simpy.Store(b.kernel.env) for tf in b.task_forces}
    for tf in b.task_forces:
        yield _task_force(b, rec, raids[tf])
    for sid in b.state.strikes:
        yield _strike(b, rec, sid, raids)


def _turn_end(b: Battle, turn: int, last: bool) -> Iterator[Event]:
    ended = decide_end(b, last_turn=last)
    if ended is not None:
        yield ended


def plan(scenario: FlattopScenario) -> Plan[FlattopScenario, BattleState, Battle]:
    """An hour clock with one phase, task force and strike processes, the end-of-turn check."""
    return Plan(
        phases=("hour",),
        turn_length=MINUTES_PER_TURN,
        turn_limit=scenario.turns.limit,
        view=Battle,
        processes=_processes,
        turn_end=_turn_end,
        forget_streams=False,
    )
