"""Pieces of a :class:`~sim.contract.StateBase`: rows by id, fields kept out of the snapshot.

Two devices for a state whose snapshot should be smaller or plainer than
its fields, each documented in docs/rulesets.md ("The state base"):

* :data:`ById` — ``combatants: ById[Combatant]`` is a ``dict`` of rows by
  id for the rules (``state.combatants["hero"]``), written into the
  snapshot as the plain list of its rows in order (each row holds its
  ``id``), and read back from that list.
* :func:`fixed` — a field the scenario gives and no event changes (a ship's
  name, its anti-aircraft factor), or one read only within a turn (a
  patrol that has fought this turn), kept in the state for the rules'
  convenience but out of the snapshot, the turn digest and ``==``.
  ``restore`` takes it from ``initial_state(scenario)``.

A nested part of the state derives from :class:`Part` (a mutable pydantic
model that refuses unknown fields and compares what its snapshot holds), or,
for the rows the rules read most, is a :func:`row`: the same, as a slotted
pydantic dataclass, whose fields are read and written at a plain object's
speed (a ``BaseModel``'s attribute reads pass through its ``__getattr__``
hook, about four times the cost).
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable
from typing import Annotated, Any, TypeVar, cast, dataclass_transform, get_args

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field
from pydantic.dataclasses import dataclass as pydantic_dataclass
from pydantic.fields import FieldInfo
from pydantic_core import PydanticUndefined

from sim.contract.models import CheckedOnce, same_typed

__all__ = [
    "AtMost",
    "ById",
    "OutAt",
    "Part",
    "as_rows",
    "bounds_of",
    "fixed",
    "outs_of",
    "overlay",
    "row",
    "rows_paths",
    "same_snapshot",
    "trusted_part",
]

R = TypeVar("R")
T = TypeVar("T")


def _rows_in(value: Any) -> Any:
    """A snapshot's list of rows → the rows by their ``id`` (a dict passes as it is)."""
    if isinstance(value, list):
        return {(row["id"] if isinstance(row, dict) else row.id): row for row in value}
    return value


class _Rows:
    """The mark of a :data:`ById` field (its snapshot is a list)."""


ById = Annotated[dict[str, R], BeforeValidator(_rows_in), _Rows()]
"""Rows by their ``id`` for the rules; in the snapshot, the list of the rows in order.

The model dump stays a dict (pydantic serialises it in one pass, with no
Python call per field); :func:`rows_paths` finds these fields once per class
and :func:`as_rows` turns their dumps into lists, which is what
:meth:`~sim.contract.StateBase.snapshot` does.
"""

Path = tuple[str, ...]

_ROW_CONFIG = ConfigDict(extra="forbid", validate_assignment=False)


def fields_of(model: Any) -> dict[str, FieldInfo]:
    """The fields of a pydantic model or :func:`row` class (empty for anything else)."""
    if isinstance(model, type) and issubclass(model, BaseModel):
        return model.model_fields
    found: dict[str, FieldInfo] | None = getattr(model, "__pydantic_fields__", None)
    return found if isinstance(model, type) and dataclasses.is_dataclass(model) and found else {}


def rows_paths(model: Any, prefix: Path = ()) -> list[Path]:
    """Where a dump of ``model`` holds :data:`ById` rows, deepest first (``*``: every row).

    Fields are followed into nested models and into the rows of a ``ById``.
    """
    found: list[Path] = []
    for name, info in fields_of(model).items():
        if info.exclude:
            continue
        if any(isinstance(m, _Rows) for m in info.metadata):
            found.append((*prefix, name))
            kind = get_args(info.annotation)[1]
            found += rows_paths(kind, (*prefix, name, "*")) if _is_model(kind) else []
        elif _is_model(info.annotation):
            found += rows_paths(info.annotation, (*prefix, name))
    return sorted(found, key=len, reverse=True)


def _is_model(t: Any) -> bool:
    """A pydantic model or :func:`row` class."""
    return bool(fields_of(t))


def as_rows(data: dict[str, Any], paths: list[Path]) -> dict[str, Any]:
    """A model dump with the dicts at ``paths`` (deepest first) turned into lists of rows."""
    for path in paths:
        _rows_at(data, path)
    return data


def _rows_at(node: Any, path: Path) -> None:
    head, rest = path[0], path[1:]
    if head == "*":
        for row in node.values() if isinstance(node, dict) else node:
            _rows_at(row, rest)
    elif not rest:
        node[head] = list(node[head].values())
    else:
        _rows_at(node[head], rest)


@dataclasses.dataclass(frozen=True)
class AtMost:
    """A state field's bound given by another field of the same part, declared as
    ``strength: Annotated[int, AtMost("initial")]``: the rules never make it more.

    Validation ignores it (the rules keep the bound themselves); ``battlesim fork
    --set state.…`` refuses a value above it, as the rules could never produce it.
    """

    field: str
    """The name of the field of the same part that bounds this one."""


def bounds_of(info: FieldInfo) -> list[AtMost]:
    """The :class:`AtMost` bounds a field declares (none for most)."""
    return [m for m in info.metadata if isinstance(m, AtMost)]


@dataclasses.dataclass(frozen=True)
class OutAt:
    """A count at or below which the rules put its part out, declared as ``hp:
    Annotated[int, OutAt(0, "status", "dead")]``: at ``at`` or fewer, the part's ``field``
    is ``value`` (a combatant at 0 hit points or fewer is dead), as the rules' apply makes
    it when an event takes the count there.

    Validation ignores it; ``battlesim fork --set state.…`` refuses a change that leaves
    the count there with the field otherwise, naming the field to set too: a state override
    is no event, and no apply puts the part out.
    """

    at: int
    """The count at or below which the part is out."""
    field: str
    """The name of the field of the same part that says so."""
    value: str
    """What that field is then."""


def outs_of(info: FieldInfo) -> list[OutAt]:
    """The :class:`OutAt` marks a field declares (none for most)."""
    return [m for m in info.metadata if isinstance(m, OutAt)]


def fixed(default: Any = ..., **kwargs: Any) -> Any:
    """A field kept out of the snapshot, the digest and ``==``; ``restore`` takes it from the start.

    For what the scenario fixes (a name, a factor) and what only matters
    within a turn (the snapshot is taken between turns).  ``default`` and
    ``default_factory`` as for :func:`pydantic.Field`.
    """
    return Field(default, exclude=True, **kwargs)


@dataclass_transform(kw_only_default=True, field_specifiers=(Field,))
def row(cls: type[T]) -> type[T]:
    """A part of the state as a slotted pydantic dataclass: for the rows the rules read most.

    Declared and used as a :class:`Part` is (fields, :func:`fixed`, properties,
    methods; unknown attributes refused; made by keyword), validated when made and restored,
    dumped by pydantic's compiled serialiser; but its attributes are slots,
    read and written at a plain object's speed, where a ``BaseModel``'s reads
    pass through its ``__getattr__`` hook (measured in docs/rulesets.md, "The
    state base").  Equal when the fields its snapshot holds are.
    """
    cls.__eq__ = same_snapshot  # type: ignore[method-assign]
    made: Any = pydantic_dataclass(slots=True, kw_only=True, eq=False, config=_ROW_CONFIG)(cls)
    made.__hash__ = None  # mutable
    return cast("type[T]", made)


CHECK_TRUSTED: bool | None = None
"""Validate every part :func:`trusted_part` makes again and require the same part: on with
``BATTLESIM_CHECK_LINES=1`` (the test suite), read when the first part is made."""

_MAKERS: dict[type, tuple[Callable[[dict[str, Any]], Any], frozenset[str]]] = {}


def _maker(cls: type) -> tuple[Callable[[dict[str, Any]], Any], frozenset[str]]:
    """A function making a ``cls`` from its values unvalidated, and its field names.

    Written once per class as plain assignments (as :mod:`dataclasses` writes an
    ``__init__``): a slot is set by a statement several times faster than by a call.
    """
    found = _MAKERS.get(cls)
    if found is not None:
        return found
    scope: dict[str, Any] = {"new": object.__new__, "cls": cls}
    lines = ["def make(values):", "    p = new(cls)"]
    for name, info in fields_of(cls).items():
        if info.default_factory is not None:
            scope[f"f_{name}"] = info.default_factory
            value = f"values[{name!r}] if {name!r} in values else f_{name}()"
        elif info.default is PydanticUndefined:
            value = f"values[{name!r}]"
        else:
            scope[f"d_{name}"] = info.default
            value = f"values.get({name!r}, d_{name})"
        lines.append(f"    p.{name} = {value}")
    lines.append("    return p")
    exec("\n".join(lines), scope)  # our own field names, as dataclasses does
    found = _MAKERS[cls] = (scope["make"], frozenset(fields_of(cls)))
    return found


def _check_from_environment() -> None:
    global CHECK_TRUSTED  # noqa: PLW0603 - read once, after the test suite sets it
    CHECK_TRUSTED = os.environ.get("BATTLESIM_CHECK_LINES") == "1"


def trusted_part(cls: type[T], /, **values: Any) -> T:
    """A :func:`row` made from ``values`` without validation: a speed device for ``initial_state``.

    Validating a row costs several microseconds; an ``initial_state`` copying
    a scenario's validated values into its rows may skip it (a fifth of the
    cost or less).  The caller guarantees each value has its field's type; a
    missing field without a default, or an unknown one, is a ``TypeError``.
    With :data:`CHECK_TRUSTED` (on in the test suite) each part is validated
    again and must equal what validation makes, type for type inside containers too
    (the same values once: :class:`~sim.contract.models.CheckedOnce`).
    """
    make, names = _maker(cls)
    if not values.keys() <= names:
        raise TypeError(f"{cls.__name__} has no field {sorted(values.keys() - names)[0]!r}")
    try:
        part: T = make(values)
    except KeyError as missing:
        raise TypeError(f"{cls.__name__}: no value for {missing.args[0]!r}") from None
    if CHECK_TRUSTED is None:
        _check_from_environment()
    if CHECK_TRUSTED:
        key = _CHECKED.key(cls, values)
        if key not in _CHECKED:
            again = cls(**values)
            if again != part or not all(
                same_typed(getattr(again, n), getattr(part, n)) for n in names
            ):
                raise TypeError(f"a trusted {cls.__name__} is not what validation makes: {part!r}")
            _CHECKED.passed(key)
    return part


_CHECKED = CheckedOnce()
"""The values :data:`CHECK_TRUSTED` has validated: a scenario's unchanged rows, made again by
``initial_state`` for every run, are checked once (a pure function of the values)."""


def _compared(model: Any) -> dict[str, Any]:
    """The fields of ``model`` its snapshot holds."""
    fields = fields_of(type(model))
    return {n: getattr(model, n) for n, info in fields.items() if not info.exclude}


def same_snapshot(a: Any, b: object) -> bool:
    """``a == b`` for a state or a part: the same class and equal snapshot fields."""
    if type(a) is not type(b):
        return False
    return _compared(a) == _compared(b)


class Part(BaseModel):
    """A nested part of a state (a unit, a side): mutable, unknown fields refused.

    Two parts are equal when the fields their snapshot holds are (a
    :func:`fixed` field is left out).
    """

    model_config = ConfigDict(extra="forbid", validate_assignment=False)

    def __eq__(self, other: object) -> bool:
        """Equal class and equal snapshot fields."""
        return same_snapshot(self, other)

    __hash__ = None  # type: ignore[assignment]  # mutable


def has_fixed(model: type[Any], seen: set[type] | None = None) -> bool:
    """True when ``model`` or a model inside its fields has a :func:`fixed` field."""
    seen = set() if seen is None else seen
    if model in seen:
        return False
    seen.add(model)
    for info in fields_of(model).values():
        if info.exclude:
            return True
        if any(has_fixed(t, seen) for t in _models_in(info.annotation)):
            return True
    return False


def _models_in(annotation: Any) -> list[type[Any]]:
    """Model and row classes named anywhere in an annotation (``dict[str, Ship]`` → ``[Ship]``)."""
    if _is_model(annotation):
        return [annotation]
    return [m for a in get_args(annotation) for m in _models_in(a)]


def overlay(start: Any, data: Any) -> Any:
    """The start state's values with a snapshot's data laid over them, ready to validate.

    Model by model and row by row (rows by ``id``), a field the snapshot
    holds takes its value, and a :func:`fixed` field (or one an older
    snapshot lacks) keeps the start's.
    """
    if _is_model(type(start)) and isinstance(data, dict):
        out = {}
        for name, info in fields_of(type(start)).items():
            value = getattr(start, name)
            keep = info.exclude or name not in data
            out[name] = value if keep else overlay(value, data[name])
        return out
    if isinstance(start, dict) and isinstance(data, list):  # ById rows
        return [overlay(start[row["id"]], row) if row["id"] in start else row for row in data]
    if isinstance(start, dict) and isinstance(data, dict):
        return {k: overlay(start[k], v) if k in start else v for k, v in data.items()}
    return data
