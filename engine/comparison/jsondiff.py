"""Structural diff of plain JSON data, by field path.

Lists whose items are all mappings with an ``id`` are matched by id (the
path names the id), so inserting a unit does not mark every later unit
changed; other lists of mappings are compared by index; a list of plain
values (a hex, a list of hexes) is one value.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

__all__ = ["Change", "diff"]


@dataclass(frozen=True)
class Change:
    """One difference: ``changed`` in both, ``missing`` from b, ``extra`` in b."""

    path: str
    kind: Literal["changed", "missing", "extra"]
    a: Any = None
    b: Any = None

    def as_json(self) -> dict[str, Any]:
        """The change as a JSON object."""
        return {"path": self.path, "kind": self.kind, "a": self.a, "b": self.b}


def _keyed(items: list[Any]) -> dict[str, Any] | None:
    if items and all(isinstance(i, dict) and isinstance(i.get("id"), str) for i in items):
        keyed = {i["id"]: i for i in items}
        if len(keyed) == len(items):
            return keyed
    return None


def _join(path: str, key: str | int) -> str:
    return f"{path}.{key}" if path else str(key)


def diff(a: Any, b: Any, path: str = "") -> list[Change]:
    """Every difference between ``a`` and ``b``, in a stable order."""
    if isinstance(a, dict) and isinstance(b, dict):
        return _diff_maps(a, b, path)
    if isinstance(a, list) and isinstance(b, list):
        ka, kb = _keyed(a), _keyed(b)
        if ka is not None and kb is not None:
            return _diff_maps(ka, kb, path)
        if not any(isinstance(x, dict) for x in (*a, *b)):
            # a list of values (a hex, a list of hexes) changes as one value
            return [] if a == b else [Change(path, "changed", a, b)]
        out: list[Change] = []
        for i in range(max(len(a), len(b))):
            if i >= len(b):
                out.append(Change(_join(path, i), "missing", a[i], None))
            elif i >= len(a):
                out.append(Change(_join(path, i), "extra", None, b[i]))
            else:
                out.extend(diff(a[i], b[i], _join(path, i)))
        return out
    if a != b or type(a) is not type(b):
        return [Change(path, "changed", a, b)]
    return []


def _diff_maps(a: dict[str, Any], b: dict[str, Any], path: str) -> list[Change]:
    out: list[Change] = []
    for key in [*a, *(k for k in b if k not in a)]:
        if key not in b:
            out.append(Change(_join(path, key), "missing", a[key], None))
        elif key not in a:
            out.append(Change(_join(path, key), "extra", None, b[key]))
        else:
            out.extend(diff(a[key], b[key], _join(path, key)))
    return out
