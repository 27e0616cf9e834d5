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
model that refuses unknown fields and compares what its snapshot holds).
"""

from __future__ import annotations

from typing import Annotated, Any, TypeVar, get_args

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field

__all__ = ["ById", "Part", "as_rows", "fixed", "overlay", "rows_paths", "same_snapshot"]

R = TypeVar("R")


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


def rows_paths(model: type[BaseModel], prefix: Path = ()) -> list[Path]:
    """Where a dump of ``model`` holds :data:`ById` rows, deepest first (``*``: every row).

    Fields are followed into nested models and into the rows of a ``ById``.
    """
    found: list[Path] = []
    for name, info in model.model_fields.items():
        if info.exclude:
            continue
        if any(isinstance(m, _Rows) for m in info.metadata):
            found.append((*prefix, name))
            row = get_args(info.annotation)[1]
            found += rows_paths(row, (*prefix, name, "*")) if _is_model(row) else []
        elif isinstance(info.annotation, type) and issubclass(info.annotation, BaseModel):
            found += rows_paths(info.annotation, (*prefix, name))
    return sorted(found, key=len, reverse=True)


def _is_model(t: Any) -> bool:
    return isinstance(t, type) and issubclass(t, BaseModel)


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


def fixed(default: Any = ..., **kwargs: Any) -> Any:
    """A field kept out of the snapshot, the digest and ``==``; ``restore`` takes it from the start.

    For what the scenario fixes (a name, a factor) and what only matters
    within a turn (the snapshot is taken between turns).  ``default`` and
    ``default_factory`` as for :func:`pydantic.Field`.
    """
    return Field(default, exclude=True, **kwargs)


def _compared(model: BaseModel) -> dict[str, Any]:
    """The fields of ``model`` its snapshot holds."""
    fields = type(model).model_fields
    return {n: v for n, v in model.__dict__.items() if n in fields and not fields[n].exclude}


def same_snapshot(a: BaseModel, b: object) -> bool:
    """``a == b`` for a state or a part: the same class and equal snapshot fields."""
    if type(a) is not type(b) or not isinstance(b, BaseModel):
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


def has_fixed(model: type[BaseModel], seen: set[type] | None = None) -> bool:
    """True when ``model`` or a model inside its fields has a :func:`fixed` field."""
    seen = set() if seen is None else seen
    if model in seen:
        return False
    seen.add(model)
    for info in model.model_fields.values():
        if info.exclude:
            return True
        if any(has_fixed(t, seen) for t in _models_in(info.annotation)):
            return True
    return False


def _models_in(annotation: Any) -> list[type[BaseModel]]:
    """Model classes named anywhere in an annotation (``dict[str, Ship]`` → ``[Ship]``)."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return [annotation]
    return [m for a in get_args(annotation) for m in _models_in(a)]


def overlay(start: Any, data: Any) -> Any:
    """The start state's values with a snapshot's data laid over them, ready to validate.

    Model by model and row by row (rows by ``id``), a field the snapshot
    holds takes its value, and a :func:`fixed` field (or one an older
    snapshot lacks) keeps the start's.
    """
    if isinstance(start, BaseModel) and isinstance(data, dict):
        out = {}
        for name, info in type(start).model_fields.items():
            value = getattr(start, name)
            keep = info.exclude or name not in data
            out[name] = value if keep else overlay(value, data[name])
        return out
    if isinstance(start, dict) and isinstance(data, list):  # ById rows
        return [overlay(start[row["id"]], row) if row["id"] in start else row for row in data]
    if isinstance(start, dict) and isinstance(data, dict):
        return {k: overlay(start[k], v) if k in start else v for k, v in data.items()}
    return data
