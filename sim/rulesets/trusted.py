"""Contract models built without validation: a speed device of the built-in rulesets.

A batch study asks for the outcome and the unit rows of every run, and a
validated row with its two measures costs several microseconds; these
builders make the same models as they are given, about a tenth of the cost.
The caller guarantees every value has its field's exact type.  The contract
suite checks every ruleset's rows and outcomes against their validated
copies, type for type, and with :data:`CHECK_TRUSTED` (on in the test
suite) every model built here is validated again as it is built (each
content once: :class:`~sim.contract.models.CheckedOnce`).

A plugin never needs this module: it builds its rows the ordinary way.
"""

from __future__ import annotations

import os
from typing import Any, TypeVar

from pydantic import BaseModel

from engine.events import assemble
from sim.contract.ending import EndingState
from sim.contract.models import (
    CheckedOnce,
    Measure,
    Number,
    Outcome,
    SideResult,
    UnitRow,
    same_typed,
    typed,
)

__all__ = [
    "CHECK_TRUSTED",
    "trusted_ending",
    "trusted_measure",
    "trusted_outcome",
    "trusted_row",
    "trusted_side",
    "typed",
]

_M = TypeVar("_M", bound=BaseModel)

CHECK_TRUSTED = os.environ.get("BATTLESIM_CHECK_LINES") == "1"
"""Validate every model built by :func:`trusted_measure` / :func:`trusted_row` again and
require the same model (the test suite turns this on, with the event line check)."""


def _trusted(cls: type[_M], data: dict[str, Any]) -> _M:
    """``cls`` holding ``data`` (every field, in declaration order) without validating it.

    Every field is given, so every instance's set of fields set is the same
    full set: one set per class is shared (nothing adds to it but a name
    already in it).
    """
    model = assemble(cls, data, _ALL_SET[cls])
    if CHECK_TRUSTED:
        key = _CHECKED.key(cls, model.__dict__)
        if key not in _CHECKED:
            again = cls.model_validate(model.model_dump())
            # the same key is the same data of the same types (CheckedOnce.key), found by
            # marshal in C; else the walk decides
            if (key is None or _CHECKED.key(cls, again.__dict__) != key) and not same_typed(
                again, model
            ):
                raise TypeError(f"a trusted {cls.__name__} is not what validation makes: {model!r}")
            _CHECKED.passed(key)
    return model


_CHECKED = CheckedOnce()
"""The contents :data:`CHECK_TRUSTED` has validated: an unchanged unit's row at each turn's
end and in each run is checked once (the check is a pure function of the content)."""


def trusted_measure(name: str, value: Number, unit: str) -> Measure:
    """``Measure(name=name, value=value, unit=unit)`` without validation: for a ruleset's
    ``units`` hook, which generic tools call for every unit of every run.

    The caller guarantees the exact types (``value`` an ``int`` or a ``float``,
    never a ``bool``), so the model is what validation would make.
    """
    return _trusted(Measure, {"name": name, "value": value, "unit": unit})


def trusted_row(
    id: str,
    name: str,
    side: str,
    side_name: str,
    kind: str,
    position: tuple[Number, ...] | None,
    strength: Measure,
    initial: Measure,
    status: list[str],
    details: dict[str, Any],
    route: list[tuple[Number, ...]] | None = None,
    facing: float | None = None,
) -> UnitRow:
    """A :class:`UnitRow` built without validation (about a tenth of the cost).

    The caller guarantees every value has its field's exact type — text as
    ``str``, a position as a ``tuple`` of ``int``/``float``, measures built
    (trusted or not), a fresh ``list`` of status words and ``dict`` of
    details — so the row equals, type for type, the validated
    ``UnitRow(...)`` of the same values.  The contract suite checks that for
    every ruleset at every turn; with :data:`CHECK_TRUSTED` every row is
    validated again as it is built.  A plugin may keep building rows the
    ordinary way.
    """
    return _trusted(
        UnitRow,
        {
            "id": id,
            "name": name,
            "side": side,
            "side_name": side_name,
            "kind": kind,
            "position": position,
            "strength": strength,
            "initial": initial,
            "status": status,
            "details": details,
            "route": route,
            "facing": facing,
        },
    )


_ALL_SET: dict[type[BaseModel], set[str]] = {
    cls: set(cls.model_fields) for cls in (Measure, UnitRow, SideResult, Outcome)
}


def trusted_side(name: str, losses: list[Measure], details: dict[str, Any]) -> SideResult:
    """``SideResult(name=name, losses=losses, details=details)`` without validation (as
    :func:`trusted_row`: the caller guarantees exact types and fresh containers)."""
    return _trusted(SideResult, {"name": name, "losses": losses, "details": details})


def trusted_outcome(
    winner: str | None,
    winner_name: str | None,
    reason: str,
    turns: int,
    sides: dict[str, SideResult],
) -> Outcome:
    """An :class:`Outcome` without validation (as :func:`trusted_row`): a study asks for
    the outcome of every run.  The contract suite checks it against its validated copy."""
    data = {
        "winner": winner,
        "winner_name": winner_name,
        "reason": reason,
        "turns": turns,
        "sides": sides,
    }
    return _trusted(Outcome, data)


def trusted_ending(state: EndingState, sides: dict[str, SideResult]) -> Outcome:
    """The trusted :class:`Outcome` of an :class:`~sim.contract.EndingState`: its winner,
    named as that side's result is, its reason and turns, and the sides' results."""
    winner = state.winner
    name = sides[winner].name if winner is not None else None
    return trusted_outcome(winner, name, state.reason, state.ended_turn, sides)
