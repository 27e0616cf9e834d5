"""Dotted field paths into scenario (or campaign) data, for sweeps.

A path is dot-separated segments walked from the top of the data:

* in a mapping, a segment is a key: ``options.fire_hcv``;
* in a list, a segment of digits is an index (``map.terrain.0.terrain``),
  any other segment names the item whose ``id`` equals it
  (``sides.csa.units.phil.strength``) — ids made only of digits must be
  addressed by index.

Paths are resolved against a scenario's *canonical* data (every default
filled in), so any field the schema has can be swept and a misspelt one is
refused before a run starts.  A field the canonical data leaves out at its
default (an option added after replays were written,
:func:`sim.contract.options.later_option`) is found in a ``fallback``: the same
data with those defaults filled in (:func:`filled`, :meth:`Target.filled
<sim.batch.inputs.target.Target.filled>`); setting it writes it into the copy.
"""

from __future__ import annotations

import copy
import re
from typing import Any

from pydantic import BaseModel
from pydantic_core import to_jsonable_python

from sim.scenario.values import ValueProblem, for_the_shell, parse_value, shown_typed
from sim.text.grammar import count
from sim.text.suggest import close_names

__all__ = [
    "UNSETTABLE",
    "PathError",
    "filled",
    "get_path",
    "overlap",
    "parse_values",
    "resolve_path",
    "set_paths",
    "split_path",
    "split_values",
    "unsettable",
]


class PathError(ValueError):
    """A path that does not lead to a field of the data."""


UNSETTABLE = {
    "ruleset": "a scenario's ruleset cannot be set: it decides what every other field of the "
    "file is (a battle of another ruleset is another file: battlesim new RULESET NAME.yaml)",
    # verify looks for the file a replay names (its source) and holds the battle's name to it
    "name": "the battle's name cannot be set: a replay names its scenario file and verify "
    "holds the battle's name to that file's; copy the file to fight it under another name",
}
"""A scenario's fields no value may be set in (``run --set``, a study's factors), and why:
the replay would not verify, or every other field would be refused."""


def unsettable(path: str) -> str | None:
    """Why no value may be set at ``path`` (:data:`UNSETTABLE`), or None: a scenario's
    ``ruleset`` or ``name``, or a campaign battle's (``battles.<id>.scenario.name``, whose
    replays name the battle's scenario file as a lone battle's do)."""
    found = re.fullmatch(r"(?:battles\.[^.]+\.scenario\.)?(ruleset|name)", path)
    return None if found is None else UNSETTABLE[found[1]]


def split_path(path: str) -> list[str]:
    """The segments of a dotted path.

    Raises:
        PathError: an empty path or an empty segment (``a..b``).
    """
    parts = path.split(".")
    if not path or any(p == "" for p in parts):
        raise PathError(f"{path!r} is not a dotted field path (e.g. options.fire_hcv)")
    return parts


def _suggest(segment: str, choices: list[str], walked: str) -> str:
    """``; did you mean 'walked.choice'?`` for the choices closest to ``segment``, else ``""``."""
    found = close_names(segment, choices)
    if not found:
        return ""
    paths = [f"{walked}.{c}" if walked else c for c in found]
    quoted = [repr(p) for p in paths]
    either = quoted[0] if len(quoted) == 1 else f"{', '.join(quoted[:-1])} or {quoted[-1]}"
    return f"; did you mean {either}?"


def _step(node: Any, segment: str, walked: str) -> tuple[Any, str | int]:
    """The child of ``node`` named by ``segment`` and the key or index that reaches it."""
    where = walked or "the top level"
    if isinstance(node, dict):
        if segment not in node:
            hint = _suggest(segment, list(node), walked)
            if hint:
                raise PathError(f"no field {segment!r} in {where}{hint}")
            raise PathError(f"no field {segment!r} in {where} (fields: {', '.join(sorted(node))})")
        return node[segment], segment
    if isinstance(node, list):
        if segment.isascii() and segment.isdigit():  # 0-9 only: never ١٠
            i = int(segment)
            if i >= len(node):
                raise PathError(f"{where} has {count(len(node), 'item')}; no index {i}")
            return node[i], i
        ids = [item.get("id") for item in node if isinstance(item, dict)]
        negative = segment[:1] == "-" and segment[1:].isascii() and segment[1:].isdigit()
        if negative and segment not in ids:  # not Python's -1, the last item: say so
            n = len(node)
            indexes = {0: "none", 1: "only 0"}.get(n, f"0 to {n - 1}")
            raise PathError(
                f"no index {segment} in {where}: an index counts from 0, not back from the "
                f"end ({count(n, 'item')}: {indexes})"
            )
        if ids.count(segment) != 1:
            named = [str(i) for i in ids if i is not None]
            hint = _suggest(segment, named, walked) if ids.count(segment) == 0 else ""
            if hint:
                raise PathError(f"no item with id {segment!r} in {where}{hint}")
            known = ", ".join(named) or "none"
            raise PathError(f"no item with id {segment!r} in {where} (ids: {known})")
        i = ids.index(segment)
        return node[i], i
    raise PathError(f"{where} is a single value; it has no field {segment!r}")


def filled(model: BaseModel) -> dict[str, Any]:
    """``model``'s JSON data with every field its dump leaves out at its default (one made
    with ``exclude_if``: a ``later_option``, a list left out while empty) written in, at
    every depth and under the name the dump uses: the fields a path may name."""
    data = model.model_dump(mode="json")
    _fill(model, data)
    return data


def _fill(model: BaseModel, data: dict[str, Any]) -> None:
    for name, info in type(model).model_fields.items():
        value = getattr(model, name)
        key = name if name in data else (info.serialization_alias or info.alias or name)
        if key not in data:
            if info.exclude_if is not None:  # left out at its default: a path may name it
                data[key] = to_jsonable_python(value)
        elif isinstance(value, BaseModel) and isinstance(data[key], dict):
            _fill(value, data[key])
        elif isinstance(value, (list, tuple)) and isinstance(data[key], list):
            for item, dumped in zip(value, data[key], strict=False):
                if isinstance(item, BaseModel) and isinstance(dumped, dict):
                    _fill(item, dumped)


def _alt(alt: Any, segment: str) -> Any:
    """The fallback's child named by ``segment`` (as :func:`_step` finds it), or None."""
    if alt is None:
        return None
    try:
        child, _ = _step(alt, segment, "")
    except PathError:
        return None
    return child


def _step_or(node: Any, alt: Any, segment: str, walked: str) -> tuple[Any, str | int]:
    """:func:`_step`, or, for a key a mapping leaves out that its fallback has, the
    fallback's child (a caller that sets it writes the key in)."""
    if isinstance(node, dict) and segment not in node and isinstance(alt, dict):
        if segment in alt:
            return alt[segment], segment
        _step(alt, segment, walked)  # no such field: named among every field there is
    return _step(node, segment, walked)


def resolve_path(data: Any, path: str, fallback: Any = None) -> tuple[str | int, ...]:
    """The keys and indexes ``path`` walks in ``data``: one field named two ways (an item
    by its id and by its index) resolves the same.

    Raises:
        PathError: the path does not lead to a field.
    """
    node, alt = data, fallback
    walked: list[str] = []
    keys: list[str | int] = []
    for segment in split_path(path):
        node, key = _step_or(node, alt, segment, ".".join(walked))
        alt = _alt(alt, segment)
        walked.append(segment)
        keys.append(key)
    return tuple(keys)


def overlap(fields: list[tuple[str | int, ...] | str]) -> tuple[int, int] | None:
    """The first factor that sweeps what an earlier one sweeps, as ``(later, earlier)``:
    the same field (named the same way, or an item by its id and by its index), or a field
    inside the other's (``map.terrain.0.cover`` beside ``map.terrain.0``, whose every
    value would set the cover too, so that which one a run got would hang on the order
    they are set in). ``fields`` as :func:`resolve_path` gives them; a path it could not
    resolve (text) is compared as written. None when no two overlap."""
    for later, b in enumerate(fields):
        for earlier, a in enumerate(fields[:later]):
            if a == b or (
                isinstance(a, tuple) and isinstance(b, tuple) and a[: len(b)] == b[: len(a)]
            ):
                return later, earlier
    return None


def get_path(data: Any, path: str, fallback: Any = None) -> Any:
    """The value at ``path`` in ``data`` (or, for a field it leaves out at its default,
    in ``fallback``).

    Raises:
        PathError: the path does not lead to a field.
    """
    node, alt = data, fallback
    walked: list[str] = []
    for segment in split_path(path):
        node, _ = _step_or(node, alt, segment, ".".join(walked))
        alt = _alt(alt, segment)
        walked.append(segment)
    return node


def set_paths(
    data: dict[str, Any], values: dict[str, Any], fallback: dict[str, Any] | None = None
) -> dict[str, Any]:
    """A copy of ``data`` with each ``path: value`` set, in the order given.

    Only the mappings and lists on each path are copied (and each value set):
    every other part is shared with ``data``, so a study of 100,000 design
    points does not copy its whole scenario 100,000 times. Neither ``data``
    nor the copy is changed in place by anything that reads it.  A field
    ``data`` leaves out at its default and ``fallback`` has is written in.

    Raises:
        PathError: a path does not lead to an existing field.
    """
    out: dict[str, Any] = dict(data)
    for path, value in values.items():
        parts = split_path(path)
        node: Any = out
        alt: Any = fallback
        walked: list[str] = []
        for segment in parts[:-1]:
            child, key = _step_or(node, alt, segment, ".".join(walked))
            copied = _shallow(child)
            node[key] = copied  # each container on the path is this copy's own
            node = copied
            alt = _alt(alt, segment)
            walked.append(segment)
        _, key = _step_or(node, alt, parts[-1], ".".join(walked))
        node[key] = copy.deepcopy(value)
    return out


def _shallow(node: Any) -> Any:
    """A new container holding ``node``'s items (a leaf as it is)."""
    if isinstance(node, dict):
        return dict(node)
    if isinstance(node, list):
        return list(node)
    return node


def split_values(text: str) -> list[str]:
    """The texts of ``V1,V2,…`` as typed, split on commas outside brackets (:func:`parse_values`
    reads each), so ``[3,4],[5,6]`` is two values."""
    return _split_top(text)


def _split_top(text: str) -> list[str]:
    """Split on commas outside brackets, so ``[3,4],[5,6]`` is two values."""
    items: list[str] = []
    depth = 0
    start = 0
    for i, ch in enumerate(text):
        if ch in "[{":
            depth += 1
        elif ch in "]}":
            depth -= 1
        elif ch == "," and depth == 0:
            items.append(text[start:i])
            start = i + 1
    items.append(text[start:])
    return [item.strip() for item in items]


def parse_values(text: str, where: str) -> list[Any]:
    """The values of ``V1,V2,…``, each read as a YAML scalar or flow list.

    ``15,25`` gives ints, ``0.5`` a float, ``true`` a bool, ``B`` text,
    ``[3,4]`` a list. ``where`` is the option and path as typed (``--sweep
    sides.csa.name``): a problem's advice on quoting is said for the command line.

    Raises:
        PathError: an empty value, or one that is not valid YAML.
    """
    values = []
    for item in _split_top(text):
        if item == "":
            raise PathError(f"{where}: empty value in {text!r}")
        try:
            value = parse_value(item)
        except ValueProblem as exc:
            said = for_the_shell(str(exc), where, item)
            raise PathError(f"{where}: {shown_typed(item)}: {said}") from None
        values.append(value)
    return values
