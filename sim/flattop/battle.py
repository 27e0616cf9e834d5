"""A ``flattop`` battle in SimPy: an hour clock and one process per strike, in continuous time.

Processes are thin: they wait, ask a rule to decide, and emit what it
decides through the recorder.  A strike process spots its aircraft, launches,
flies (a timeout of its flight time), fights over the target, flies back and
lands; then a small process rearms what landed.  Any number of strikes may
be airborne at once.

Same-time order (documented contract).  SimPy takes events off its queue by
(time, priority, insertion id); this module sets the priority explicitly:

* 0 — the hour clock.  At 60·k minutes turn k ends (``flattop.battle_ended``
  when the battle is over, then ``engine.turn_ended`` with the state digest,
  flushed) before anything else happens at that minute, so turn k holds
  exactly the events of [60(k−1), 60k).
* 1 — SimPy's own bookkeeping (a finished process).
* 2 + r — strike r, its rank in the scenario (first side's strikes in order,
  then the second side's), and the rearming of what it brought back.  Two
  strikes acting at the same minute act in scenario order.

Within one strike's step, events come in rule order: air-to-air (escorts,
then CAP), anti-aircraft, then the attacks in declared order.
"""

from __future__ import annotations

from typing import Any

import simpy
from simpy.events import URGENT, EventPriority

from engine.log import EventLog, Header, Sink
from engine.projection import Projection
from engine.recorder import Recorder
from engine.rng import Streams
from sim.flattop.combat import decide_air_combat, decide_anti_aircraft, decide_attack
from sim.flattop.context import Battle
from sim.flattop.data import MINUTES_PER_TURN
from sim.flattop.events import Recovered, StrikeCancelled
from sim.flattop.flight import decide_launch, decide_rearm, decide_recovery, decide_spot
from sim.flattop.scenario import FlattopScenario
from sim.flattop.state import BattleState, apply_event, initial_state, snapshot
from sim.flattop.victory import decide_end

__all__ = ["At", "simulate"]

Rec = Recorder[BattleState]


class At(simpy.Event):
    """A timeout with an explicit same-time priority (lower goes first).

    Built as :class:`simpy.events.Timeout` is, with a chosen priority
    instead of ``NORMAL``.
    """

    def __init__(self, env: simpy.Environment, delay: float, priority: int) -> None:
        if delay < 0:
            raise ValueError(f"negative delay {delay}")
        super().__init__(env)
        self._ok = True
        self._value: Any = None
        env.schedule(self, EventPriority(priority), delay)


def _until(b: Battle, minutes: float, priority: int) -> At:
    return At(b.env, max(0.0, minutes - b.now), priority)


def _strike(b: Battle, rec: Rec, sid: str) -> simpy.events.ProcessGenerator:
    prio = 2 + b.rank[sid]
    launch = b.launch_at(sid)
    yield _until(b, launch - b.options.spot_minutes, prio)
    if b.state.ended:
        return
    spotted = rec.emit(decide_spot(b, sid))
    if isinstance(spotted, StrikeCancelled):
        return
    yield _until(b, launch, prio)
    if b.state.ended:
        return
    launched = rec.emit(decide_launch(b, sid, spotted.seq))
    if isinstance(launched, StrikeCancelled):
        return
    yield _until(b, launched.arrives, prio)
    if b.state.ended:
        return
    for event in decide_air_combat(b, sid, launched.seq):
        rec.emit(event)
    aa = decide_anti_aircraft(b, sid, launched.seq)
    if aa is not None:
        rec.emit(aa)
    for index in range(len(b.strikes[sid].attacks)):
        attack = decide_attack(b, sid, index, launched.seq)
        if attack is not None:
            rec.emit(attack)
    yield _until(b, launched.arrives + launched.flight_minutes, prio)
    if b.state.ended:
        return
    landed = rec.emit(decide_recovery(b, sid, launched.seq))
    if landed.deck is not None and landed.aircraft:
        b.env.process(_rearm(b, rec, landed, prio))


def _rearm(b: Battle, rec: Rec, landed: Recovered, prio: int) -> simpy.events.ProcessGenerator:
    assert landed.deck is not None
    yield _until(b, landed.time + b.options.rearm_minutes, prio)
    if b.state.ended:
        return
    event = decide_rearm(b, landed.strike, landed.deck, landed.aircraft, landed.seq)
    if event is not None:
        rec.emit(event)


def _clock(b: Battle, rec: Rec) -> simpy.events.ProcessGenerator:
    limit = b.scenario.turns.limit
    for turn in range(1, limit + 1):
        b.turn = turn
        yield _until(b, turn * MINUTES_PER_TURN, URGENT)
        ended = decide_end(b, last_turn=turn == limit)
        if ended is not None:
            rec.emit(ended)
        rec.end_turn(turn, b.now)
        if b.state.ended:
            return


def simulate(scenario: FlattopScenario, header: Header, sink: Sink) -> BattleState:
    """Fight the battle, writing its replay to ``sink``; return the final state."""
    state = initial_state(scenario)
    rec = Recorder(EventLog(header, sink), Projection(state, apply_event), snapshot)
    env = simpy.Environment()
    b = Battle(scenario, state, Streams(header.seed), env)
    for sid in state.strikes:
        env.process(_strike(b, rec, sid))
    env.run(until=env.process(_clock(b, rec)))
    rec.close(state.ended_turn)
    return state
