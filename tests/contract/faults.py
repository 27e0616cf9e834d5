"""Faults planted in copies of the ``phalanx`` plugin, each installed as a ruleset of its own.

Each copy is the phalanx :class:`~sim.contract.Ruleset` with one hook
replaced (``dataclasses.replace``) and a scenario model whose ``ruleset:``
key is the copy's name; ``check-ruleset`` must fail the requirement the
fault breaks, with a message saying what was expected and what was seen.

* ``phalanx_unregistered``: the registry leaves out ``Broke`` (the state applies it).
* ``phalanx_stuck``: ``units()`` shows every element at its initial strength, always.
* ``phalanx_unsteady``: the reason an army broke counts the battles fought in the process.
* ``phalanx_anonymous``: the element processes are bare generators, no ``Actor``.
* ``phalanx_meddling``: a referee process writes an element's ``side`` without an event.
* ``phalanx_keeping``: apply keeps a fought event's own ``draws`` list and empties it at
  the next fought event, after its line is written.
* ``phalanx_once``: the plan fights one battle a process; fighting live again raises.
* ``phalanx_tongue_tied``: narrate raises for the first fought event: ``report`` fails.
* ``phalanx_wordless``: ``status_words`` leaves out ``destroyed``, which its rows show.
* ``phalanx_numeric``: narrate returns 42 for a fought event: ``show --events`` and
  ``report`` refuse it.
* ``phalanx_hashed``: the elements act in a set's order of their ids, which the process's
  hash seed decides: the same in one process, another in the next.
* ``phalanx_forgetful``: the fights fought are counted in a ``fixed()`` field, which the
  snapshot and ``==`` leave out, and every row shows the count: restored from a snapshot,
  the state compares equal and its rows show 0.
* ``phalanx_scribbling``: a referee process writes that ``fixed()`` count in the first
  bound, no event saying so: the live state and the fold compare equal, and only their
  rows differ (a study's ``unit_finals`` would show 5; ``show`` on the replay, 0).
* ``phalanx_miscounting``: the outcome says one turn more than the battle played.
* ``phalanx_misnamed``: the outcome's winner is the winning army's name, not its id.
* ``phalanx_formatless``: the registry leaves out ``since_format`` (it then reads 1).
* ``phalanx_undigested``: ``rules_data`` holds a set, which no digest can write.
* ``phalanx_unrecorded``: a referee rolls a die from a stream of its own in the first
  bound, and no event records the draw.
* ``phalanx_private``: a referee rolls a die from a ``random.Random`` seeded from the turn
  (the same die in every battle, whatever its seed), and no event records it.
* ``phalanx_crashing``: element ``g_spear2``'s process raises ``ZeroDivisionError`` in
  bound 3: every tool that fights the battle names the ruleset, the unit and the bound.
* ``phalanx_crashing_end``: the plan's ``turn_end`` raises ``KeyError`` at bound 2.
* ``phalanx_recursing``: element ``g_spear2``'s process raises ``RecursionError`` in bound
  2: the rules' error, not input nested too deeply.
* ``phalanx_miscaused``: the turn-end rules record the battle's end with cause 99999, no
  earlier seq: the recorder's refusal names the ruleset itself.
* ``phalanx_late``: each element's process, closed at the battle's end, records in its
  clean-up (``finally``) that it held the field: an event after the log is closed.
* ``phalanx_detached``: element ``g_spear2``'s process starts another with
  ``b.kernel.process`` in bound 2, which raises ``ValueError``: named as the unit's.
* ``phalanx_carry_raising``: ``carry_over`` reads a setting the campaign file need not give
  (``settings["rest"]``): a ``KeyError`` for a campaign without one.
* ``phalanx_carry_in_place``: ``carry_over`` leaves the destroyed elements out of the
  ``next_data`` it was given, and returns it: a campaign's file data is changed under it.
* ``phalanx_carry_restless``: ``carry_over`` lengthens the next battle by one bound more at
  each call: the same arguments give other data.
* ``phalanx_carry_garbled``: ``carry_over`` moves every element to file 99, which the
  scenario model refuses: ``battlesim campaign`` refuses the campaign (exit 2).
* ``phalanx_carry_forgetful``: ``carry_over``, built on ``CarryOver``, rebuilds each army
  from the elements that fought and stand: an element the next battle's file brings that
  did not fight the last is lost in the copy.
* ``phalanx_carry_forgetful_plain``: the same written as a plain function.
* ``phalanx_misplanned``: the plan's ``processes`` hook takes the view alone, not the view
  and the recorder: the runner's call to it raises ``TypeError`` before the first bound.
* every copy keeps phalanx's event types (``phalanx.advanced``), not ``<its name>.``:
  each fails ``events-are-registered`` for it (``phalanx_borrowed`` has no other fault).
* ``phalanx_engine_typed``: the registry adds an event of the ruleset's own whose type
  begins with ``engine.`` (``engine.cheered``), which every tool would read as the engine's.
* ``phalanx_misdefaulted``: the scenario model's field ``reserve`` defaults to 0 but must be
  at least 1: a file that leaves it out validates and fights, and the replay's header, which
  holds the default, does not read back.
"""

from __future__ import annotations

import dataclasses
import itertools
import random
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any, Literal

import simpy
import yaml
from pydantic import Field, create_model

from engine.events import Event, EventRegistry
from engine.recorder import Recorder
from sim.contract import AnyRuleset, UnitRow, fixed
from sim.contract.carry import CarryOver, CarrySettings, NextBattle
from sim.contract.defaults import apply_by_state
from sim.runner import Actor, Plan
from tests.contract import phalanx
from tests.contract.phalanx import Advanced, Battlefield, Broke, Fought, State

__all__ = ["ENTRY_POINTS", "FAULTS", "scenario_for"]


def _copy(name: str, fields: dict[str, Any] | None = None, **changes: Any) -> AnyRuleset:
    """The phalanx ruleset as ``name``, with ``changes`` and its scenario model's extra
    ``fields`` (``create_model``'s); no examples of its own."""
    model = create_model(
        f"Scenario_{name}",
        __base__=phalanx.PhalanxScenario,
        ruleset=(Literal[name], ...),  # type: ignore[arg-type]  # the copy's own key
        **(fields or {}),
    )
    return dataclasses.replace(
        phalanx.RULESET, name=name, scenario_model=model, examples=(), **changes
    )


class Cheered(Event):
    """An event of the plugin's own under the engine's prefix (``phalanx_engine_typed``)."""

    type: Literal["engine.cheered"] = "engine.cheered"


def _stuck_units(sc: Any, state: State) -> list[UnitRow]:
    """Phalanx's rows, each at its initial strength whatever the state says."""
    return [r.model_copy(update={"strength": r.initial}) for r in phalanx.units(sc, state)]


_BATTLES = itertools.count(1)


def _unsteady_plan(sc: Any) -> Plan[Any, State, Battlefield]:
    """Phalanx's plan, with a battle number from the process in the reason of its end."""
    plan = phalanx.plan(sc)
    battle = next(_BATTLES)

    def turn_end(b: Battlefield, bound: int, last: bool) -> Iterable[Event]:
        return [
            e.model_copy(update={"reason": f"{e.reason} (battle {battle})"})
            if isinstance(e, Broke)
            else e
            for e in plan.turn_end(b, bound, last)
        ]

    return dataclasses.replace(plan, turn_end=turn_end)


_ONCE = itertools.count(1)
"""Battles the ``phalanx_once`` plan was asked for in this process."""


def _once_plan(sc: Any) -> Plan[Any, State, Battlefield]:
    """Phalanx's plan for the first battle of the process; an error for any later one."""
    if next(_ONCE) > 1:
        raise RuntimeError("phalanx_once fights one battle a process")
    return phalanx.plan(sc)


def _anonymous_plan(sc: Any) -> Plan[Any, State, Battlefield]:
    """Phalanx's plan, its element processes given as bare generators."""
    plan = phalanx.plan(sc)

    def processes(b: Battlefield, rec: Recorder[State]) -> list[Any]:
        return [p.body if isinstance(p, Actor) else p for p in plan.processes(b, rec)]

    return dataclasses.replace(plan, processes=processes)


def _meddling_plan(sc: Any) -> Plan[Any, State, Battlefield]:
    """Phalanx's plan and a referee that renames the first element's side in the first bound."""
    plan = phalanx.plan(sc)
    first = sc.armies[0].elements[0].id

    def referee(b: Battlefield) -> Iterator[simpy.Event]:
        yield b.kernel.phase("combat", (99,))
        b.state.elements[first].side = "meddled"

    def processes(b: Battlefield, rec: Recorder[State]) -> list[Any]:
        return [*plan.processes(b, rec), referee(b)]

    return dataclasses.replace(plan, processes=processes)


_KEPT: dict[int, tuple[State, list[Any]]] = {}
"""Per state being fought: the draws list of the last fought event its apply kept."""


def _keeping_apply(state: State, event: Event) -> None:
    """Phalanx's apply, keeping a fought event's own ``draws`` list (no copy) and emptying
    the one kept before it: that event's line is written by then."""
    phalanx.RULESET.apply(state, event)
    if isinstance(event, Fought) and event.draws:
        kept = _KEPT.get(id(state))
        if kept is not None and kept[0] is state:
            kept[1].clear()
        _KEPT[id(state)] = (state, event.draws)


def _tongue_tied_narrate(sc: Any, state: State, event: Event) -> str | None:
    """Phalanx's narration, but no words for a fought event."""
    if isinstance(event, Fought):
        raise RuntimeError(f"no words for seq {event.seq}")
    return phalanx.RULESET.narrate(sc, state, event)


def _numeric_narrate(sc: Any, state: State, event: Event) -> Any:
    """Phalanx's narration, but a number for a fought event (narrate returns text or None)."""
    if isinstance(event, Fought):
        return 42
    return phalanx.RULESET.narrate(sc, state, event)


class _ForgetfulState(State):
    """Phalanx's state with the fights counted where the snapshot does not look."""

    fights: int = fixed(0)


def _forgetful_initial(sc: Any) -> _ForgetfulState:
    return _ForgetfulState(elements=phalanx.initial_state(sc).elements)


def _forgetful_apply(state: Any, event: Event) -> None:
    apply_by_state(state, event)
    if isinstance(event, Fought):
        state.fights += 1


def _forgetful_units(sc: Any, state: Any) -> list[UnitRow]:
    """Phalanx's rows, each with the fights fought so far in its details."""
    return [
        r.model_copy(update={"details": {**r.details, "fights": state.fights}})
        for r in phalanx.units(sc, state)
    ]


def _scribbling_plan(sc: Any) -> Plan[Any, State, Battlefield]:
    """Phalanx's plan and a referee that writes the fixed() count in the first bound."""
    plan = phalanx.plan(sc)

    def referee(b: Battlefield) -> Iterator[simpy.Event]:
        yield b.kernel.phase("combat", (99,))
        b.state.fights = 5  # type: ignore[attr-defined]  # a _ForgetfulState

    def processes(b: Battlefield, rec: Recorder[State]) -> list[Any]:
        return [*plan.processes(b, rec), referee(b)]

    return dataclasses.replace(plan, processes=processes)


def _unrecorded_plan(sc: Any) -> Plan[Any, State, Battlefield]:
    """Phalanx's plan and a referee that rolls for the weather, recording nothing."""
    plan = phalanx.plan(sc)

    def referee(b: Battlefield) -> Iterator[simpy.Event]:
        yield b.kernel.phase("combat", (99,))
        b.streams.stream(b.turn, "weather").roll(6)

    def processes(b: Battlefield, rec: Recorder[State]) -> list[Any]:
        return [*plan.processes(b, rec), referee(b)]

    return dataclasses.replace(plan, processes=processes)


def _private_plan(sc: Any) -> Plan[Any, State, Battlefield]:
    """Phalanx's plan and a referee rolling from a generator of its own each turn."""
    plan = phalanx.plan(sc)

    def referee(b: Battlefield) -> Iterator[simpy.Event]:
        yield b.kernel.phase("combat", (99,))
        random.Random(f"{b.turn}/weather").randint(1, 6)  # the planted fault

    def processes(b: Battlefield, rec: Recorder[State]) -> list[Any]:
        return [*plan.processes(b, rec), referee(b)]

    return dataclasses.replace(plan, processes=processes)


def _miscounting_outcome(sc: Any, state: State) -> Any:
    """Phalanx's outcome, one turn too many."""
    found = phalanx.RULESET.outcome(sc, state)
    return found.model_copy(update={"turns": found.turns + 1})


def _misnamed_outcome(sc: Any, state: State) -> Any:
    """Phalanx's outcome, its winner given by the army's name (``Greeks``), not its id."""
    found = phalanx.RULESET.outcome(sc, state)
    return found.model_copy(update={"winner": found.winner_name})


def _hashed_plan(sc: Any) -> Plan[Any, State, Battlefield]:
    """Phalanx's plan, each element's rank in its phases taken from a set's order."""
    plan = phalanx.plan(sc)
    ids = list({e.id for a in sc.armies for e in a.elements})  # the planted fault

    def processes(b: Battlefield, rec: Recorder[State]) -> list[Any]:
        return [Actor(eid, phalanx.element(b, rec, eid, k)) for k, eid in enumerate(ids)]

    return dataclasses.replace(plan, processes=processes)


def _spear_replaced(
    body: Callable[[Battlefield], simpy.events.ProcessGenerator],
) -> Callable[[Any], Plan[Any, State, Battlefield]]:
    """Phalanx's plan with element ``g_spear2``'s process replaced by ``body(b)``."""

    def make(sc: Any) -> Plan[Any, State, Battlefield]:
        plan = phalanx.plan(sc)

        def processes(b: Battlefield, rec: Recorder[State]) -> list[Any]:
            return [
                Actor(p.unit, body(b)) if isinstance(p, Actor) and p.unit == "g_spear2" else p
                for p in plan.processes(b, rec)
            ]

        return dataclasses.replace(plan, processes=processes)

    return make


def _crash(b: Battlefield) -> simpy.events.ProcessGenerator:
    """A loop that raises in bound 3."""
    while b.turn < 3:
        yield b.kernel.phase("advance", (0,))
    raise ZeroDivisionError("float division by zero")  # the planted fault


def _deep(b: Battlefield) -> simpy.events.ProcessGenerator:
    """A loop that recurses too deep in bound 2."""
    while b.turn < 2:
        yield b.kernel.phase("advance", (0,))
    raise RecursionError("maximum recursion depth exceeded")  # the planted fault


def _rearm(b: Battlefield) -> simpy.events.ProcessGenerator:
    yield b.kernel.phase("combat", (0,))
    raise ValueError("rearming broke")  # the planted fault


def _starter(b: Battlefield) -> simpy.events.ProcessGenerator:
    """A loop that starts, in bound 2, a process that raises (:func:`_rearm`)."""
    while b.turn < 2:
        yield b.kernel.phase("advance", (0,))
    yield b.kernel.process(_rearm(b))


def _miscaused_plan(sc: Any) -> Plan[Any, State, Battlefield]:
    """Phalanx's plan, its end of the battle recorded with a cause no event has."""
    plan = phalanx.plan(sc)

    def turn_end(b: Battlefield, bound: int, last: bool) -> Iterable[Event]:
        return [e.model_copy(update={"cause": 99999}) for e in plan.turn_end(b, bound, last)]

    return dataclasses.replace(plan, turn_end=turn_end)


def _late_plan(sc: Any) -> Plan[Any, State, Battlefield]:
    """Phalanx's plan, each element's process recording an advance in its clean-up."""
    plan = phalanx.plan(sc)

    def held(b: Battlefield, rec: Recorder[State], eid: str, body: Any) -> Any:
        try:
            yield from body
        finally:  # the planted fault: runs when the battle's processes are closed
            if b.state.ended and b.alive(eid):
                rank = b.state.elements[eid].rank
                rec.emit(Advanced(turn=b.turn, time=b.now, element=eid, rank=rank))

    def processes(b: Battlefield, rec: Recorder[State]) -> list[Any]:
        made = plan.processes(b, rec)
        return [
            Actor(p.unit, held(b, rec, p.unit, p.body)) if isinstance(p, Actor) else p for p in made
        ]

    return dataclasses.replace(plan, processes=processes)


def _crashing_end_plan(sc: Any) -> Plan[Any, State, Battlefield]:
    """Phalanx's plan, its turn-end rules raising at bound 2."""
    plan = phalanx.plan(sc)

    def turn_end(b: Battlefield, bound: int, last: bool) -> Iterable[Event]:
        if bound == 2:
            raise KeyError("morale")  # the planted fault
        return plan.turn_end(b, bound, last)

    return dataclasses.replace(plan, turn_end=turn_end)


def _misplanned_plan(sc: Any) -> Plan[Any, State, Battlefield]:
    """Phalanx's plan, its processes hook written without the recorder parameter."""
    plan = phalanx.plan(sc)

    def processes(b: Battlefield) -> list[Any]:  # the planted fault: (view, recorder) it is
        return list(plan.processes(b, None))  # type: ignore[arg-type]  # pragma: no cover

    return dataclasses.replace(plan, processes=processes)  # type: ignore[arg-type]


def _carry_raising(sc: Any, state: State, data: dict[str, Any], s: dict[str, Any]) -> Any:
    """Phalanx's carry-over, resting as many bounds as a setting the file need not give."""
    if s["rest"] < 0:  # the planted fault: a KeyError when the campaign gives no rest
        raise ValueError("rest: at least 0")
    return phalanx.carry_over(sc, state, data, s)


def _carry_in_place(sc: Any, state: State, data: dict[str, Any], s: dict[str, Any]) -> Any:
    """Phalanx's carry-over, written into the next battle's data it was given."""
    carried = phalanx.carry_over(sc, state, data, s)
    data.clear()  # the planted fault
    data.update(carried)
    return data


_CALLS = itertools.count(1)


def _carry_restless(sc: Any, state: State, data: dict[str, Any], s: dict[str, Any]) -> Any:
    """Phalanx's carry-over, a bound longer at every call."""
    carried = phalanx.carry_over(sc, state, data, s)
    return {**carried, "bounds": min(100, carried.get("bounds", 12) + next(_CALLS))}


def _carry_garbled(sc: Any, state: State, data: dict[str, Any], s: dict[str, Any]) -> Any:
    """Phalanx's carry-over, every element moved to a file the field does not have."""
    carried = phalanx.carry_over(sc, state, data, s)
    for army in carried["armies"]:
        army["elements"] = [{**e, "file": 99} for e in army["elements"]]
    return carried


def _forgetful(state: State, armies: list[dict[str, Any]]) -> None:
    """Each army rebuilt from the elements that fought and stand (the planted fault: the
    elements it was not given, newcomers, are lost)."""
    for army in armies:
        army["elements"] = [
            e
            for e in army["elements"]
            if e["id"] in state.elements and state.elements[e["id"]].destroyed_by is None
        ]


def _carry_forgetful(sc: Any, state: State, battle: NextBattle, s: CarrySettings) -> None:
    """A carry on ``CarryOver`` that keeps only the elements that fought and stand."""
    _forgetful(state, battle.listed)


def _carry_forgetful_plain(sc: Any, state: State, data: dict[str, Any], s: dict[str, Any]) -> Any:
    """Phalanx's carry-over, then only the elements that fought and stand."""
    carried = phalanx.carry_over(sc, state, data, s)
    _forgetful(state, carried["armies"])
    return carried


FAULTS: dict[str, AnyRuleset] = {
    r.name: r
    for r in (
        _copy("phalanx_unregistered", registry=EventRegistry([Advanced, Fought], since_format=1)),
        _copy(
            "phalanx_engine_typed",
            registry=EventRegistry([Advanced, Fought, Broke, Cheered], since_format=1),
        ),
        _copy("phalanx_formatless", registry=EventRegistry([Advanced, Fought, Broke])),
        _copy("phalanx_stuck", units=_stuck_units),
        _copy("phalanx_unsteady", plan=_unsteady_plan),
        _copy("phalanx_anonymous", plan=_anonymous_plan),
        _copy("phalanx_meddling", plan=_meddling_plan),
        _copy("phalanx_keeping", apply=_keeping_apply),
        _copy("phalanx_once", plan=_once_plan),
        _copy("phalanx_tongue_tied", narrate=_tongue_tied_narrate),
        _copy("phalanx_wordless", status_words=("routed",)),
        _copy("phalanx_numeric", narrate=_numeric_narrate),
        _copy("phalanx_hashed", plan=_hashed_plan),
        _copy(
            "phalanx_forgetful",
            initial_state=_forgetful_initial,
            apply=_forgetful_apply,
            units=_forgetful_units,
        ),
        _copy(
            "phalanx_scribbling",
            initial_state=_forgetful_initial,
            plan=_scribbling_plan,
            units=_forgetful_units,
        ),
        _copy("phalanx_miscounting", outcome=_miscounting_outcome),
        _copy("phalanx_misnamed", outcome=_misnamed_outcome),
        _copy("phalanx_borrowed"),
        _copy("phalanx_undigested", rules_data=lambda: {"die": 6, "dice": {1, 2}}),
        _copy("phalanx_unrecorded", plan=_unrecorded_plan),
        _copy("phalanx_private", plan=_private_plan),
        _copy("phalanx_crashing", plan=_spear_replaced(_crash)),
        _copy("phalanx_crashing_end", plan=_crashing_end_plan),
        _copy("phalanx_detached", plan=_spear_replaced(_starter)),
        _copy("phalanx_late", plan=_late_plan),
        _copy("phalanx_recursing", plan=_spear_replaced(_deep)),
        _copy("phalanx_miscaused", plan=_miscaused_plan),
        _copy("phalanx_carry_raising", carry_over=_carry_raising),
        _copy("phalanx_carry_in_place", carry_over=_carry_in_place),
        _copy("phalanx_carry_restless", carry_over=_carry_restless),
        _copy("phalanx_carry_garbled", carry_over=_carry_garbled),
        _copy(
            "phalanx_carry_forgetful",
            carry_over=CarryOver(CarrySettings, _carry_forgetful, sides="armies"),
        ),
        _copy("phalanx_carry_forgetful_plain", carry_over=_carry_forgetful_plain),
        _copy("phalanx_misplanned", plan=_misplanned_plan),
        _copy("phalanx_misdefaulted", fields={"reserve": (int, Field(0, ge=1))}),
    )
}
"""Each faulty copy by name."""

ENTRY_POINTS = "[battlesim.rulesets]\n" + "".join(
    f"{name} = tests.contract.faults:{name.upper()}\n" for name in FAULTS
)
"""Every copy as an entry point of the ``battlesim.rulesets`` group."""

globals().update({name.upper(): ruleset for name, ruleset in FAULTS.items()})


def scenario_for(name: str, folder: Path) -> Path:
    """Phalanx's example under the ruleset key ``name``, written in ``folder``."""
    data = yaml.safe_load(phalanx.SCENARIOS[0].read_text(encoding="utf-8"))
    path = folder / f"{name}.yaml"
    path.write_text(yaml.safe_dump({**data, "ruleset": name}), encoding="utf-8")
    return path
