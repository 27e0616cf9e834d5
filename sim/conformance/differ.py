"""Where two values first differ: a dotted path into dicts, lists, dataclasses and models."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

__all__ = ["Difference", "first_difference", "short"]


def short(value: Any, limit: int = 60) -> str:
    """``repr(value)``, cut to ``limit`` characters."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


@dataclass(frozen=True)
class Difference:
    """The first place two values differ: its path and what each holds there."""

    path: str
    left: str
    right: str

    def __str__(self) -> str:
        return f"{self.path or 'the value'}: {self.left} != {self.right}"


def _members(value: Any) -> dict[str, Any] | None:
    """The named parts of a dataclass, model or plain object; None for a leaf."""
    if isinstance(value, dict):
        return {str(k): v for k, v in value.items()}
    if isinstance(value, list | tuple):
        return {str(i): v for i, v in enumerate(value)}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: getattr(value, f.name) for f in dataclasses.fields(value)}
    if isinstance(value, BaseModel):
        return dict(value.__dict__)
    if hasattr(value, "__dict__") and not isinstance(value, type):
        return dict(vars(value))
    return None


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def _walk(a: Any, b: Any, path: str) -> Iterator[Difference]:
    if type(a) is not type(b):
        yield Difference(
            path, f"{short(a)} ({type(a).__name__})", f"{short(b)} ({type(b).__name__})"
        )
        return
    left, right = _members(a), _members(b)
    if left is None or right is None:
        yield Difference(path, short(a), short(b))
        return
    for key in [*left, *(k for k in right if k not in left)]:
        if key not in right:
            yield Difference(_join(path, key), short(left[key]), "missing")
            return
        if key not in left:
            yield Difference(_join(path, key), "missing", short(right[key]))
            return
        if left[key] != right[key]:
            yield from _walk(left[key], right[key], _join(path, key))
            return
    yield Difference(path, short(a), short(b))  # unequal, though every part is equal


def first_difference(a: Any, b: Any) -> Difference | None:
    """The first path where ``a`` and ``b`` differ (dict keys, list indices, attributes),
    or None when ``a == b``."""
    if a == b:
        return None
    return next(_walk(a, b, ""))
