"""A ``musket`` battle in SimPy: one process per unit, acting in the turn's phases.

Processes are thin: they wait for their phase, ask a rule to decide, and
emit what it decides through the recorder.  Within a phase units act in
scenario order (side by side, unit by unit), the kernel's documented order.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Generator, Iterator
from typing import TypeVar

import simpy

from engine.events import Event
from engine.recorder import Recorder
from sim.rulesets.musket.model.data import COUNTER_PHASES, PHASES
from sim.rulesets.musket.model.events import Fired, Meleed, SideBroken
from sim.rulesets.musket.model.hexmap import distance
from sim.rulesets.musket.model.scenario import MusketScenario
from sim.rulesets.musket.model.state import BattleState, UnitState
from sim.rulesets.musket.rules.context import Battle
from sim.rulesets.musket.rules.fire import decide_fire
from sim.rulesets.musket.rules.melee import can_charge, decide_melee
from sim.rulesets.musket.rules.morale import (
    decide_charge_test,
    decide_morale,
    decide_rally,
    decide_rest,
)
from sim.rulesets.musket.rules.movement import decide_move
from sim.rulesets.musket.rules.victory import blows, decide_breaks, decide_end
from sim.runner import Actor, Plan

__all__ = ["plan", "waits_for"]

Rec = Recorder[BattleState]
E = TypeVar("E", bound=Event)


def _emit(b: Battle, rec: Rec, event: E) -> E:
    """Log one event; note it as the latest blow to each army it struck (a break's cause)."""
    stamped = rec.emit(event)
    for side in blows(stamped, b.state):
        b.last_blow[side] = stamped.seq
    return stamped


def _checks(
    b: Battle, rec: Rec, event: Fired | Meleed, routed: list[tuple[str, int]] | None = None
) -> None:
    """Morale checks caused by a resolution, each naming its cause's seq; then, with option
    ``rout_contagion``, the checks of the friends of each unit the resolution (``routed``:
    the units it routed itself, each with its seq) or its checks routed (:func:`_spread`).

    After a melee the winner checks too only with option ``melee_winner_tests``.
    """
    spreads = b.options.rout_contagion is not None
    routed = list(routed or ())
    pairs = (
        [(event.target, event.result)]
        if isinstance(event, Fired)
        else [(event.unit, event.attacker_losses), (event.target, event.defender_losses)]
    )
    for uid, result in pairs:
        unit = b.state.units[uid]
        reason = result.morale_check_reason
        if isinstance(event, Meleed) and uid == event.winner and not b.options.melee_winner_tests:
            continue
        if reason is not None and unit.active and unit.hex is not None:
            flanked = (
                "enfilade" in result.modifiers
                if isinstance(event, Fired)
                else uid == event.target and event.flank not in (None, "front")
            )
            test = _emit(
                b,
                rec,
                decide_morale(b, unit, event.phase, reason, event.seq, event.unit, flanked),
            )
            if spreads and test.after == "routed" and test.before != "routed":
                routed.append((uid, test.seq))
    if routed:
        _spread(b, rec, event.phase, routed)


def _spread(b: Battle, rec: Rec, phase: str, routed: list[tuple[str, int]]) -> None:
    """The rout's spread [ours, option ``rout_contagion``]: for each unit that routed (its
    id and the seq of the event that routed it), in the order they routed, each unit of its
    side within ``rout_contagion`` hexes of it, on the map and not routed, in scenario
    order, takes an ordinary morale check (reason ``friend_routed``, its cause that seq, its
    stream named by the routed friend); a unit the check routs joins the end of the list."""
    radius = b.options.rout_contagion
    assert radius is not None
    units = b.state.units
    queue = deque(routed)
    while queue:
        uid, cause = queue.popleft()
        friend = units[uid]
        at = friend.hex
        if at is None:  # eliminated by the event that routed it: no one saw it run
            continue
        for unit in units.values():
            if (
                unit.side != friend.side
                or unit.id == uid
                or unit.hex is None
                or unit.morale in ("routed", "eliminated")
                or distance(unit.hex, at) > radius
            ):
                continue
            test = _emit(b, rec, decide_morale(b, unit, phase, "friend_routed", cause, uid))
            if test.after == "routed":
                queue.append((unit.id, test.seq))


def _movement(b: Battle, rec: Rec, unit: UnitState) -> None:
    for event in decide_move(b, unit):
        rec.emit(event)


def _fire(phase: str) -> Callable[[Battle, Rec, UnitState], None]:
    def act(b: Battle, rec: Rec, unit: UnitState) -> None:
        event = decide_fire(b, unit, phase)
        if event is not None:
            fired = rec.emit(event)
            # the event's fields read from its __dict__ (a model's attribute reads pass
            # through pydantic's __getattr__ hook: several times a dict's cost)
            data = fired.__dict__
            target, result = data["target"], data["result"].__dict__
            # _emit's blow, victory.blows of a Fired written out on the fields read here
            struck = b.state.units[target]
            if (result["guns_lost"] if struck.kind == "artillery" else result["casualties"]) > 0:
                b.last_blow[struck.side] = data["seq"]
            turn, before = b.fire_losses.get(target, (0, 0))
            now = b.kernel.turn  # b.turn without the property
            lost = result["casualties"] + (before if turn == now else 0)
            b.fire_losses[target] = (now, lost)
            if result["morale_check_reason"] is not None:  # else _checks finds none
                _checks(b, rec, fired)

    return act


def _strike(phase_kind: str) -> Callable[[Battle, Rec, UnitState], None]:
    """A charge (the melee phase: a unit on ``charge``), or a unit on hold's counterstroke
    (its own phase, option ``counter_charge``: a unit on ``hold``), which takes no charge
    test.  A unit acts only when its order this turn is the phase's: one with later orders
    (ours) waits for both phases, and strikes in the one its order of the turn names."""

    def act(b: Battle, rec: Rec, unit: UnitState) -> None:
        kind = b.orders[unit.id].kind
        if kind != phase_kind:
            return
        if b.options.charge_test and kind == "charge":
            target = can_charge(b, unit)
            test = None if target is None else decide_charge_test(b, unit, target)
            if test is not None:
                tested = _emit(b, rec, test)
                if not tested.passed:
                    spreads = b.options.rout_contagion is not None
                    if spreads and tested.after == "routed" and tested.before != "routed":
                        _spread(b, rec, tested.phase, [(unit.id, tested.seq)])
                    return
        event = decide_melee(b, unit)
        if event is None:
            return
        if b.options.rout_contagion is None:
            _checks(b, rec, _emit(b, rec, event))
            return
        units = b.state.units
        pair = [units[event.unit], units[event.target]]
        before = [u.morale for u in pair]
        meleed = _emit(b, rec, event)
        routed = [
            (u.id, meleed.seq)
            for u, was in zip(pair, before, strict=True)
            if u.morale == "routed" and was != "routed"
        ]
        _checks(b, rec, meleed, routed)

    return act


def _rally(b: Battle, rec: Rec, unit: UnitState) -> None:
    rest, rally = decide_rest(b, unit), decide_rally(b, unit)  # both decided, then emitted
    if rest is not None:
        rec.emit(rest)
    if rally is not None:
        rec.emit(rally)


ACTIONS: dict[str, Callable[[Battle, Rec, UnitState], None]] = {
    "movement": _movement,
    "defensive_fire": _fire("defensive_fire"),
    "offensive_fire": _fire("offensive_fire"),
    "melee": _strike("charge"),
    "counterstroke": _strike("hold"),
    "rally": _rally,
}


def waits_for(b: Battle, uid: str) -> tuple[str, ...]:
    """The phases a unit waits for each turn: every phase of the battle's but those its
    order rules out.

    A charging unit fights in the melee phase instead of firing offensively
    (:func:`~sim.rulesets.musket.rules.fire.may_fire`; with option ``charging_fire`` it
    waits for offensive fire too); a unit under any other order never
    charges (:func:`~sim.rulesets.musket.rules.melee.can_charge`), but for one on hold under
    option ``counter_charge``, which strikes back in the counterstroke phase, after
    every charge of the turn.  Orders are scenario data that nothing in a battle
    changes (a fork overrides state and event fields only), so a phase left out is one
    in which the unit's rule would decide nothing, every turn: leaving it out saves a
    resume, and the kernel still resumes every phase's waiters in scenario order.  A unit
    with later orders (ours) waits for every phase any of its orders needs.
    """
    skip: set[str] | None = None
    for kind in b.order_kinds(uid):  # with later orders (ours), the phases any of them needs
        if kind == "charge":
            fires = b.options.charging_fire  # it fires on its way in, then charges
            own = {"counterstroke"} if fires else {"offensive_fire", "counterstroke"}
        elif kind == "hold" and b.options.counter_charge is not None:
            own = {"melee"}
        else:
            own = {"melee", "counterstroke"}
        skip = own if skip is None else skip & own
    assert skip is not None
    return tuple(phase for phase in b.kernel.phases if phase not in skip)


SKIP_UNMOVED = True
"""A unit that has not moved by order this turn does not wait for offensive fire (see
:func:`_unit`); off, every unit waits for every phase :func:`waits_for` gives (the tests
compare the two)."""


SKIP_HOLDING = True
"""A unit under a ``hold`` order that is not routed does not wait for the movement phase
(see :func:`_unit`); off, it waits as every unit does (the tests compare the two)."""


_ROUTED_OR_OUT = ("routed", "eliminated")

_HOLD_ONLY = frozenset(("hold",))

KEEP_ROUTS = True
"""A routed unit's way out is kept while no unit is placed (``Battle.routs``); off, it is
searched every time (the tests compare the two)."""


def _unit(b: Battle, rec: Rec, uid: str) -> simpy.events.ProcessGenerator:
    kernel, state, wait = b.kernel, b.state, b.kernel.phase  # the state is changed in place
    unit = state.units[uid]
    order = (b.rank[uid],)
    # Offensive fire is only for a unit that moved by order this turn (may_fire), and only
    # its own movement step sets moved_turn (Moved, reason "order"), which has run by the
    # time it would wait for offensive fire: a unit that has not moved does not wait (a
    # resume that would decide nothing), a pure saving.  In a forked battle an override
    # may set moved_turn at any event, so there every unit waits for every phase.
    #
    # Movement likewise, for a unit under a hold order that is not routed: decide_move moves
    # such a unit only in a rout (a hold order is no attack: it sets no goal, is never broken
    # off, and a disrupted or spent holder does not fall back).  Its morale is read before
    # the wait, at the end of its previous turn or at the start: what could rout it before
    # its movement step comes later in a turn (fire, melee, their morale tests) or is an
    # override (a forked battle, where every unit waits as before); a rally, a rest, a
    # move, a departure, a break change only their own unit or side.  (An eliminated unit
    # still waits, to end its process where it always did.)
    unforked = rec.log.header.fork is None
    holding = SKIP_HOLDING and unforked and b.order_kinds(uid) == _HOLD_ONLY
    steps = [
        (
            phase,
            ACTIONS[phase],
            SKIP_UNMOVED and unforked and phase == "offensive_fire",
            holding and phase == "movement",
        )
        for phase in waits_for(b, uid)
    ]
    fields = state.__dict__  # state.ended read as a dict's item (not through pydantic's hook)
    me = kernel.env.active_process  # this unit's process (it is running this): read once
    while True:
        for phase, act, if_moved, if_steady in steps:
            if if_moved and unit.moved_turn != kernel.turn:
                continue
            if if_steady and unit.morale not in _ROUTED_OR_OUT:
                continue
            yield wait(phase, order, me)
            if fields["ended"] or unit.morale == "eliminated":  # not unit.active, in line
                return
            act(b, rec, unit)


def _processes(b: Battle, rec: Rec) -> Iterator[Actor]:
    b.keep_routs = KEEP_ROUTS and rec.log.header.fork is None  # see Battle.routs
    return (Actor(uid, _unit(b, rec, uid)) for uid in b.state.units)


def _turn_end(b: Battle, turn: int, last: bool) -> Generator[Event, Event | None, None]:
    """Side breaks (each naming the army's last blow), then the battle's end.

    The runner sends each logged event back, so the end can name the last break.
    """
    broke = []
    for event in decide_breaks(b, b.last_blow):
        stamped = yield event
        if isinstance(stamped, SideBroken):
            broke.append(stamped)
    ended = decide_end(b, last_turn=last, broke=broke)
    if ended is not None:
        yield ended


def plan(scenario: MusketScenario) -> Plan[MusketScenario, BattleState, Battle]:
    """The battle's clock (the turn's phases), view, unit processes and end-of-turn rules."""
    return Plan(
        phases=COUNTER_PHASES if scenario.options.counter_charge is not None else PHASES,
        turn_length=scenario.turns.minutes,
        turn_limit=scenario.turns.limit,
        view=Battle,
        processes=_processes,
        turn_end=_turn_end,
    )
