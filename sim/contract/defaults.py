"""What a :class:`~sim.contract.Ruleset` does for a hook its author leaves out.

Each default is plain and documented in docs/rulesets.md, so a small
ruleset writes only what is its own: the scenario, events, state, plan,
outcome, unit rows and field.  A ruleset that wants more gives the hook.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from engine.events import Draw, Event
from sim.contract.models import Engagement, Measure, Outcome, Problem, Reach, Reading, UnitRow
from sim.contract.state import StateBase

__all__ = [
    "StateRestore",
    "StrengthMeasures",
    "apply_by_state",
    "every_detail",
    "no_engagements",
    "no_problems",
    "no_reach",
    "plain_narrate",
    "snapshot_of_state",
    "summary_of_losses",
    "unset",
]

_BASE_FIELDS = frozenset({"type", "schema_version", "seq", "turn", "time", "cause"})


def unset(*args: Any) -> Any:
    """Stands for a hook the :class:`Ruleset` fills in once it is built (never called)."""
    raise AssertionError("a Ruleset default was not filled in")


def no_engagements(scenario: Any, event: Event) -> list[Engagement]:
    """``engagements``: the ruleset names no unit striking another (the viewer draws none)."""
    del scenario, event
    return []


def no_reach(scenario: Any) -> list[Reach]:
    """``reach``: the ruleset says nothing of reach (``validate`` warns of no idle unit)."""
    del scenario
    return []


def no_problems(scenario: Any) -> list[Problem]:
    """``cross_check``: the scenario model's own validation is all there is."""
    del scenario
    return []


def _state_base(state: Any, hook: str) -> StateBase:
    if not isinstance(state, StateBase):
        raise TypeError(
            f"the ruleset gives no {hook} and its state {type(state).__name__} is not a "
            "sim.contract.StateBase: give the hook, or derive the state from StateBase"
        )
    return state


_APPLY_FUNCTIONS: dict[type, dict[type[Event], Callable[[Any, Any], None]]] = {}
"""State class → its ``apply_functions``, read once: a pydantic model's class attributes are
read through its metaclass's ``__getattr__`` hook, several times a dictionary lookup."""


def apply_by_state(state: Any, event: Event) -> None:
    """``apply``: the :class:`StateBase` method marked ``@applies`` for the event's class."""
    functions = _APPLY_FUNCTIONS.get(type(state))
    if functions is None:
        functions = _APPLY_FUNCTIONS[type(state)] = _state_base(state, "apply").apply_functions
    function = functions.get(type(event))
    if function is None:
        state.apply(event)  # refused, naming the event's class
    else:
        function(state, event)


def snapshot_of_state(state: Any) -> dict[str, Any]:
    """``snapshot``: the :class:`StateBase`'s JSON data."""
    return _state_base(state, "snapshot").snapshot()


@dataclass(frozen=True, eq=False)
class StateRestore:
    """``restore``: the snapshot validated back into the class ``initial_state`` makes."""

    initial_state: Callable[[Any], Any]

    def __call__(self, scenario: Any, data: dict[str, Any]) -> Any:
        start = _state_base(self.initial_state(scenario), "restore")
        return type(start).restore(data, start)


def summary_of_losses(outcome: Outcome) -> list[str]:
    """``summary``: one line per side, ``Achilles: lost 9 health``."""
    lines = []
    for side in outcome.sides.values():
        lost = ", ".join(f"{m.value} {m.unit}" for m in side.losses) or "nothing"
        lines.append(f"{side.name}: lost {lost}")
    return lines


def every_detail(row: UnitRow) -> dict[str, Any]:
    """``shown_details``: the row's details, every one as it is."""
    return row.details


def plain_narrate(scenario: Any, state: Any, event: Event) -> str:
    """``narrate``: the event's type and its own fields, ``turn 2: duel.struck attacker=…``."""
    del scenario, state
    own = [
        f"{name}={value}"
        for name, value in event
        if name not in _BASE_FIELDS and not _is_draws(value)
    ]
    return " ".join([f"turn {event.turn}: {event.type}", *own])


def _is_draws(value: Any) -> bool:
    """Random draws are the event's evidence, not its story: the narrative leaves them out."""
    items = value if isinstance(value, list) else [value]
    return bool(items) and all(isinstance(v, Draw) for v in items)


@dataclass(frozen=True)
class StrengthMeasures:
    """``measures``: each unit's strength, and each side's total when its units share a measure."""

    units: Callable[[Any, Any], list[UnitRow]]

    def __call__(self, scenario: Any, state: Any) -> list[Reading]:
        rows = self.units(scenario, state)
        sides: dict[str, list[UnitRow]] = {}
        for row in rows:
            sides.setdefault(row.side, []).append(row)
        out = []
        for side, mine in sides.items():
            kinds = {(r.strength.name, r.strength.unit) for r in mine}
            if len(kinds) == 1:
                ((name, unit),) = kinds
                total = sum(r.strength.value for r in mine)
                measure = Measure(name=name, value=total, unit=unit)
                out.append(
                    Reading(scope="side", subject=side, name=mine[0].side_name, measure=measure)
                )
        out += [Reading(scope="unit", subject=r.id, name=r.name, measure=r.strength) for r in rows]
        return out
