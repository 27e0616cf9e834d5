"""Why an event cannot follow the battle so far, said in words.

A replay's hash chain can be recomputed, so a line may name a unit the battle
does not have (``"unit":"ghost"``), or hold a number no table of the rules
reaches; the ruleset's hooks then fail on a missing key or index deep in its
state.  The replay tools name the file's line and seq (a
:class:`~engine.replayfile.reader.ReplayError`, found by
:func:`sim.replay.follow.fault`), and this module says what is wrong with it
in words, never in Python's: ``unit: unknown unit 'ghost'``.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from engine.events import Draw, Event, Snapshot
from sim.contract import AnyRuleset, BattleEndedBase

__all__ = ["CANNOT_FOLLOW", "cannot_follow", "in_words", "unknown_named"]

CANNOT_FOLLOW = "cannot follow from the battle so far"
"""What every such line is said to do: its message starts so."""


def cannot_follow(ruleset: AnyRuleset, scenario: Any, event: Event, exc: BaseException) -> str:
    """``cannot follow from the battle so far: <why>``, for ``event`` a hook raised ``exc`` on.

    The why is :func:`unknown_named`'s field when it finds one, else :func:`in_words`.
    """
    said = unknown_named(ruleset, scenario, event, exc) or in_words(exc)
    return f"{CANNOT_FOLLOW}: {said}"


def unknown_named(
    ruleset: AnyRuleset, scenario: Any, event: Event, exc: BaseException
) -> str | None:
    """The field of ``event`` that names what the battle does not have, in words, when ``exc``
    is the missing key it names; else None.

    A text no unit or side of the battle has: ``target: unknown unit 'ghost'`` (a field
    called ``side``, as the contract's unit rows call a side's id, and a battle-ended
    event's ``winner``: ``side: unknown side 'ghost'``).  A whole number no table or
    mapping of the rules holds: ``hold_before: 1000000000 is not a value the rules know``.
    """
    key = exc.args[0] if isinstance(exc, KeyError) and len(exc.args) == 1 else None
    if isinstance(event, Snapshot) or isinstance(key, bool) or not isinstance(key, str | int):
        return None
    where = _field_naming(event, key)
    if where is None:
        return None
    if isinstance(key, int):
        return f"{where}: {key} is not a value the rules know"
    rows = ruleset.units(scenario, ruleset.initial_state(scenario))
    if key in {r.id for r in rows} or key in {r.side for r in rows}:
        return None  # a unit or side of the battle: not what failed
    side = where.rsplit(".", 1)[-1] == "side" or (
        where == "winner" and isinstance(event, BattleEndedBase)
    )
    return f"{where}: unknown {'side' if side else 'unit'} {key!r}"


def in_words(exc: BaseException) -> str:
    """What a hook's failure on an event says of the event, by its kind, with no exception's
    name or Python's wording: a key the rules look up and find none of, a number beyond a
    table, a value of a kind or range the rules do not take."""
    if isinstance(exc, KeyError):
        key = exc.args[0] if len(exc.args) == 1 else None
        shown = repr(key) if isinstance(key, str | int) and not isinstance(key, bool) else "a key"
        return f"the rules look up {shown} for it and find none"
    if isinstance(exc, IndexError):
        return "a number in it is beyond what the battle or the rules' tables hold"
    if isinstance(exc, TypeError | AttributeError):
        return "a value in it is of a kind the rules cannot take"
    if isinstance(exc, ValueError | ArithmeticError):
        return "a value in it is outside what the rules take"
    return "the rules cannot take it as the battle stands"


def _field_naming(value: Any, key: str | int, path: str = "") -> str | None:
    """The dotted path of the first field, item or mapping value in ``value`` that is ``key``
    (a text, or a whole number; a draw's stream name aside), else None."""
    if isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool)):
        return path if type(value) is type(key) and value == key else None
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
        if path == "" and name in ("type", "phase", "seq", "turn", "cause", "schema_version"):
            continue
        found = _field_naming(item, key, f"{path}.{name}" if path else str(name))
        if found is not None:
            return found
    return None
