"""Slips of YAML that read as something else than meant, said once, as what was meant.

Inside braces a comma ends a field: ``{id: x, at: 9,2}`` (the brackets of
``at: [9, 2]`` forgotten) reads as ``at: 9`` and a field ``2`` with no value.
The schema then finds two problems, ``9 is not a list`` and ``2: unknown
field``; the second is the first's consequence, so the loader says the first
once, with what was meant, and not the second.
"""

from __future__ import annotations

import re
from typing import Any

__all__ = ["FlowSlip", "flow_slips"]

Path_ = tuple[str | int, ...]

_NUMBER = re.compile(r"^[-+]?(\d+(\.\d*)?|\.\d+)$")
_LIST_ERRORS = frozenset({"list_type", "tuple_type"})


class FlowSlip:
    """A list written without brackets inside braces: its field, its items, the keys lost."""

    def __init__(self, field: Path_, items: list[str], lost: list[Path_]) -> None:
        self.field = field
        self.items = items
        """The list's items as written: the field's value, then the keys YAML made of them."""
        self.lost = lost
        """The paths of the keys YAML read the items after the first as."""

    def message(self) -> str:
        """``9 is not a list: inside {…} a comma ends a field, …; write it … at: [9, 2]``."""
        rest = ", ".join(self.items[1:])
        read = (
            f"{rest} was read as a field of its own"
            if len(self.items) == 2
            else f"{rest} were read as fields of their own"
        )
        return (
            f"{self.items[0]} is not a list: inside {{…}} a comma ends a field, and {read}; "
            f"write it in brackets, {self.field[-1]}: [{', '.join(self.items)}]"
        )


def flow_slips(
    errors: list[Any], data: Any, lines: dict[Path_, int], texts: dict[Path_, str]
) -> dict[Path_, FlowSlip]:
    """The slips among a validation's ``errors``, by the path of the field they are at.

    A slip is a list field holding one number, followed in its mapping, on its own line,
    by keys that are numbers with no value (those YAML made of the rest of the list).
    ``texts``: each number as the file wrote it, by path.
    """
    found: dict[Path_, FlowSlip] = {}
    for err in errors:
        loc = tuple(err["loc"])
        value = err.get("input")
        if err["type"] not in _LIST_ERRORS or not loc or not _is_number(value):
            continue
        parent = _at(data, loc[:-1])
        if not isinstance(parent, dict) or loc not in lines:
            continue
        keys = list(parent)
        lost: list[Path_] = []
        for key in keys[keys.index(str(loc[-1])) + 1 :]:
            path = (*loc[:-1], key)
            if parent[key] is not None or not _NUMBER.match(key) or lines.get(path) != lines[loc]:
                break
            lost.append(path)
        if lost:
            first = texts.get(loc, str(value))
            found[loc] = FlowSlip(loc, [first, *(str(p[-1]) for p in lost)], lost)
    return found


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _at(data: Any, path: Path_) -> Any:
    """The value at ``path`` in ``data``; None where there is none."""
    for seg in path:
        if isinstance(data, dict) and isinstance(seg, str):
            data = data.get(seg)
        elif isinstance(data, list) and isinstance(seg, int) and 0 <= seg < len(data):
            data = data[seg]
        else:
            return None
    return data
