"""A ``becmi`` fight in SimPy: a referee process and one process per combatant.

Processes are thin: they wait for their phase, ask a rule to decide, and
emit what it decides through the recorder.  A round is 10 seconds of
simulation time split into the phases of :data:`~sim.rulesets.becmi.model.data.PHASES`.
The referee (order key ``(0,)``) acts first in a phase: it wakes the
knocked out and rolls initiative in ``initiative``, checks morale in
``morale``.  Combatants (keys from :meth:`Battle.order_key`) act in
``movement``, ``missile`` and ``melee``: sides in initiative order,
combatants of a side in scenario order, haymakers last in melee.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import simpy

from engine.recorder import Recorder
from sim.contract.emit import turn_end_from
from sim.rulesets.becmi.model.data import PHASES
from sim.rulesets.becmi.model.scenario import BecmiScenario
from sim.rulesets.becmi.model.state import BattleState, CombatantState
from sim.rulesets.becmi.rules.attack import decide_melee_attack, decide_missile
from sim.rulesets.becmi.rules.context import Battle
from sim.rulesets.becmi.rules.movement import decide_move
from sim.rulesets.becmi.rules.referee import (
    decide_end,
    decide_initiative,
    decide_morale,
    decide_recoveries,
)
from sim.rulesets.becmi.rules.striking import decide_strike
from sim.rulesets.becmi.rules.wrestling import decide_bout, decide_join, decide_wrestle
from sim.runner import Actor, Plan

__all__ = ["ROUND_SECONDS", "plan"]

ROUND_SECONDS = 10
"""A combat round is 10 seconds [src]."""

Rec = Recorder[BattleState]


def _movement(b: Battle, rec: Rec, c: CombatantState) -> None:
    event = decide_move(b, c)
    if event is not None:
        rec.emit(event)


def _missile(b: Battle, rec: Rec, c: CombatantState) -> None:
    event = decide_missile(b, c)
    if event is not None:
        rec.emit(event)


def _melee(b: Battle, rec: Rec, c: CombatantState) -> None:
    if c.wrestled_round == b.turn:  # the bout's round was its action
        return
    if c.bout is not None:  # option in_bout: wrestle_only
        event = decide_bout(b, b.state.bouts[c.bout])
        if event is not None:
            rec.emit(event)
        return
    target = b.pick(c, b.in_reach(c))
    if target is None:
        return
    attack = b.specs[c.id].attack
    if attack == "weapon":
        rec.emit(decide_melee_attack(b, c, target))
    elif attack == "strike":
        rec.emit(decide_strike(b, c, target))
    elif target.bout is not None:
        rec.emit(decide_join(b, c, target))
        _melee(b, rec, c)
    else:
        bout = f"{c.id}-{b.turn}"
        rec.emit(decide_wrestle(b, bout, [c.id], [target.id], 0, started=True))


ACTIONS: dict[str, Callable[[Battle, Rec, CombatantState], None]] = {
    "movement": _movement,
    "missile": _missile,
    "melee": _melee,
}


def _may_act(b: Battle, c: CombatantState, phase: str) -> bool:
    if c.bout is not None:
        return phase == "melee" and c.conscious
    return b.may_act(c, phase)


def _combatant(b: Battle, rec: Rec, cid: str) -> simpy.events.ProcessGenerator:
    c = b.state.combatants[cid]
    while True:
        yield b.kernel.phase("initiative", (1, b.rank[cid]))
        if b.state.ended or not c.present:
            return
        for phase in ("movement", "missile", "melee"):
            yield b.kernel.phase(phase, b.order_key(cid, phase))
            if b.state.ended:
                return
            if _may_act(b, c, phase):
                ACTIONS[phase](b, rec, c)


def _referee(b: Battle, rec: Rec) -> simpy.events.ProcessGenerator:
    while True:
        yield b.kernel.phase("initiative", (0,))
        if b.state.ended:
            return
        for event in decide_recoveries(b):
            rec.emit(event)
        rec.emit(decide_initiative(b))
        yield b.kernel.phase("morale", (0,))
        for morale in decide_morale(b):
            rec.emit(morale)


def _processes(b: Battle, rec: Rec) -> Iterator[Actor | simpy.events.ProcessGenerator]:
    yield _referee(b, rec)  # the referee is no unit: initiative, recoveries, morale
    for cid in b.state.combatants:
        yield Actor(cid, _combatant(b, rec, cid))


def plan(scenario: BecmiScenario) -> Plan[BecmiScenario, BattleState, Battle]:
    """The fight's clock (10-second rounds), view, referee and combatant processes, round end."""
    return Plan(
        phases=PHASES,
        turn_length=ROUND_SECONDS,
        turn_limit=scenario.rounds.limit,
        view=Battle,
        processes=_processes,
        turn_end=turn_end_from(decide_end),
    )
