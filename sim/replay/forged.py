"""Why an event cannot follow the battle so far, said in words.

A replay's hash chain can be recomputed, so a line may name a unit the battle
does not have (``"unit":"ghost"``); the ruleset's apply then fails on a missing
key deep in its state.  The replay tools name the file's line and seq (a
:class:`~engine.replayfile.reader.ReplayError`), and this module says what is
wrong with it: ``unit: unknown unit 'ghost'``.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from engine.events import Draw, Event, Snapshot
from sim.contract import AnyRuleset

__all__ = ["cannot_follow"]


def cannot_follow(ruleset: AnyRuleset, scenario: Any, event: Event, exc: BaseException) -> str:
    """``cannot follow from the battle so far: <why>``, for ``event`` whose fold raised ``exc``.

    A missing key that the event names in a field, and that is no unit or side
    of the battle, is said so, by field: ``target: unknown unit 'ghost'`` (a
    field called ``side``, as the contract's unit rows call a side's id:
    ``side: unknown side 'ghost'``).  Any other failure is given as raised.
    """
    return f"cannot follow from the battle so far: {_why(ruleset, scenario, event, exc)}"


def _why(ruleset: AnyRuleset, scenario: Any, event: Event, exc: BaseException) -> str:
    key = exc.args[0] if isinstance(exc, KeyError) and len(exc.args) == 1 else None
    if not isinstance(key, str) or isinstance(event, Snapshot):
        return repr(exc)
    where = _field_naming(event, key)
    if where is None:
        return repr(exc)
    rows = ruleset.units(scenario, ruleset.initial_state(scenario))
    if key in {r.id for r in rows} or key in {r.side for r in rows}:
        return repr(exc)  # a unit or side of the battle: not what failed
    kind = "side" if where.rsplit(".", 1)[-1] == "side" else "unit"
    return f"{where}: unknown {kind} {key!r}"


def _field_naming(value: Any, key: str, path: str = "") -> str | None:
    """The dotted path of the first field, item or mapping value in ``value`` that is the
    text ``key`` (a draw's stream name aside), else None."""
    if isinstance(value, str):
        return path if value == key else None
    if isinstance(value, Draw):
        return None
    if isinstance(value, BaseModel):
        items: Any = ((name, getattr(value, name)) for name in type(value).model_fields)
    elif isinstance(value, dict):
        items = value.items()
    elif isinstance(value, list | tuple):
        items = enumerate(value)
    else:
        return None
    for name, item in items:
        if path == "" and name in ("type", "phase"):
            continue
        found = _field_naming(item, key, f"{path}.{name}" if path else str(name))
        if found is not None:
            return found
    return None
