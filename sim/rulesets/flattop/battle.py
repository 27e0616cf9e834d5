"""A ``flattop`` battle in SimPy: processes on the engine's hour clock, in continuous time.

Processes are thin: they wait, ask a rule to decide, and emit what it
decides through the recorder.

* A **strike** spots its aircraft, launches, flies (a timed wait of its
  flight time), hands the raid to the target task force, makes its attacks
  (then loses the bombers the CAP hit for after their attack), flies back and
  lands; then a small **rearm** process rearms what landed.
  Any number of strikes may be airborne at once.
* A **task force** waits for raids; over it, its **CAP** fights the raid
  (escorts against CAP, then CAP against escorts and bombers), then it asks
  each of its ships in turn for its anti-aircraft factor and resolves the
  ships' fire once, together; then the strike goes on to its attacks.
* A **ship** answers each raid over its task force with its own AA factor
  (:func:`~sim.rulesets.flattop.rules.combat.ship_aa`); once sunk it answers "gone" and
  leaves the battle.  A carrier, like a **base**, takes in the strikes that
  land on it and rearms them (a small process per landing).

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

from engine.recorder import Recorder
from sim.contract.emit import turn_end_from
from sim.rulesets.flattop.model.data import MINUTES_PER_TURN
from sim.rulesets.flattop.model.events import Recovered, StrikeCancelled
from sim.rulesets.flattop.model.scenario import FlattopScenario
from sim.rulesets.flattop.model.state import BattleState
from sim.rulesets.flattop.rules.combat import (
    decide_after_attack_kills,
    decide_air_combat,
    decide_anti_aircraft,
    decide_attack,
    ship_aa,
)
from sim.rulesets.flattop.rules.context import Battle
from sim.rulesets.flattop.rules.flight import (
    decide_launch,
    decide_rearm,
    decide_recovery,
    decide_spot,
)
from sim.rulesets.flattop.rules.victory import decide_end
from sim.runner import Actor, Plan

__all__ = ["plan"]

Rec = Recorder[BattleState]


@dataclass(frozen=True)
class Raid:
    """A strike over a task force: who, the launch that caused it, and when the defence is done."""

    strike: str
    cause: int
    done: simpy.Event


@dataclass(frozen=True)
class AskAA:
    """A task force asks one of its ships for its AA factor; the ship answers on ``answer``."""

    strike: str
    answer: simpy.Event


Inboxes = dict[str, simpy.Store]
"""Each ship's and base's messages: raids to answer (ships), strikes that landed on it."""


def _until(b: Battle, minutes: float, sid: str) -> simpy.Event:
    return b.kernel.at(minutes, (b.rank[sid],))


def _strike(
    b: Battle, rec: Rec, sid: str, raids: dict[str, simpy.Store], inboxes: Inboxes
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
    kills = decide_after_attack_kills(b, sid)
    if kills is not None:
        rec.emit(kills)
    yield _until(b, launched.arrives + launched.flight_minutes, sid)
    if b.state.ended:
        return
    landed = rec.emit(decide_recovery(b, sid, launched.seq))
    if landed.deck is not None and landed.aircraft:
        yield inboxes[landed.deck].put(landed)


def _task_force(
    b: Battle, rec: Rec, raids: simpy.Store, ships: Inboxes
) -> simpy.events.ProcessGenerator:
    """The task force's CAP meets each raid over it, then its ships' AA fires, once, together."""
    aboard = dict(ships)
    while True:
        raid = yield raids.get()
        assert isinstance(raid, Raid)
        for event in decide_air_combat(b, raid.strike, raid.cause):
            rec.emit(event)
        factors: dict[str, int] = {}
        for sid, inbox in list(aboard.items()):
            ask = AskAA(raid.strike, b.kernel.env.event())
            yield inbox.put(ask)
            factor = yield ask.answer
            if factor is None:
                del aboard[sid]  # sunk: it has left the battle
            else:
                factors[sid] = factor
        aa = decide_anti_aircraft(b, raid.strike, raid.cause, factors)
        if aa is not None:
            rec.emit(aa)
        raid.done.succeed()


def _ship(b: Battle, rec: Rec, sid: str, inbox: simpy.Store) -> simpy.events.ProcessGenerator:
    """A ship answers each raid with its AA factor and rearms what lands on it; sunk, it leaves."""
    while True:
        message = yield inbox.get()
        if isinstance(message, Recovered):
            b.kernel.process(_rearm(b, rec, message))
            continue
        assert isinstance(message, AskAA)
        factor = ship_aa(b, sid)
        message.answer.succeed(factor)
        if factor is None:
            return


def _base(b: Battle, rec: Rec, inbox: simpy.Store) -> simpy.events.ProcessGenerator:
    """An airfield rearms the strikes that land on it."""
    while True:
        landed = yield inbox.get()
        assert isinstance(landed, Recovered)
        b.kernel.process(_rearm(b, rec, landed))


def _rearm(b: Battle, rec: Rec, landed: Recovered) -> simpy.events.ProcessGenerator:
    assert landed.deck is not None
    yield _until(b, landed.time + b.options.rearm_minutes, landed.strike)
    if b.state.ended:
        return
    event = decide_rearm(b, landed.strike, landed.deck, landed.aircraft, landed.seq)
    if event is not None:
        rec.emit(event)


def _processes(b: Battle, rec: Rec) -> Iterator[Actor]:
    """A process per unit: task forces with their ships, bases, then strikes."""
    env = b.kernel.env
    raids = {tf: simpy.Store(env) for tf in b.task_forces}
    inboxes: Inboxes = {sid: simpy.Store(env) for sid in b.state.decks}
    inboxes.update({sid: simpy.Store(env) for sid in b.state.ships})
    for tf, spec in b.task_forces.items():
        ships = {s.id: inboxes[s.id] for s in spec.ships}
        yield Actor(tf, _task_force(b, rec, raids[tf], ships))
        for sid, inbox in ships.items():
            yield Actor(sid, _ship(b, rec, sid, inbox))
    for side in b.scenario.sides:
        for base in side.bases:
            yield Actor(base.id, _base(b, rec, inboxes[base.id]))
    for sid in b.state.strikes:
        yield Actor(sid, _strike(b, rec, sid, raids, inboxes))


def plan(scenario: FlattopScenario) -> Plan[FlattopScenario, BattleState, Battle]:
    """An hour clock with one phase, task force and strike processes, the end-of-turn check."""
    return Plan(
        phases=("hour",),
        turn_length=MINUTES_PER_TURN,
        turn_limit=scenario.turns.limit,
        view=Battle,
        processes=_processes,
        turn_end=turn_end_from(decide_end),
        forget_streams=False,
    )
