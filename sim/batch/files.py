"""Reading study and campaign files, every problem located as ``file:line: field: message``.

Both are YAML read by :func:`sim.loader.parse_yaml` (the scenario loader's
safe parser, with its field → line map) and validated by pydantic; each
error names the line of the field it is about, as scenario errors do.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from sim.loader import MAX_BYTES, Located, ScenarioError, parse_yaml

__all__ = ["error_message", "line_of", "located", "read_yaml", "validate_located"]

M = TypeVar("M", bound=BaseModel)
FieldPath = tuple[str | int, ...]


def read_yaml(path: str | Path) -> tuple[Any, dict[FieldPath, int]]:
    """Parse a YAML file into plain data and its field → line map.

    Raises:
        ScenarioError: unreadable, too large, not UTF-8 or not safe YAML.
    """
    file = str(path)
    try:
        with Path(path).open("rb") as fh:
            raw = fh.read(MAX_BYTES + 1)
    except OSError as exc:
        raise ScenarioError([Located(file, 0, "", f"cannot read: {exc.strerror}")]) from None
    if len(raw) > MAX_BYTES:
        raise ScenarioError([Located(file, 1, "", f"file too large (limit {MAX_BYTES} bytes)")])
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise ScenarioError([Located(file, line, "", "not UTF-8 text")]) from None
    return parse_yaml(text, file)


def line_of(lines: dict[FieldPath, int], path: FieldPath) -> int:
    """The line of ``path``, or of its nearest ancestor that has one."""
    while path and path not in lines:
        path = path[:-1]
    return lines.get(path, 1)


def located(file: str, lines: dict[FieldPath, int], path: FieldPath, message: str) -> Located:
    """A problem at ``path`` of a file."""
    return Located(file, line_of(lines, path), ".".join(str(p) for p in path), message)


def error_message(err: Any) -> str:
    """A pydantic error's message in the loader's words."""
    if err["type"] == "extra_forbidden":
        return "unknown field"
    if err["type"] == "missing":
        return "required field is missing"
    return str(err["msg"]).removeprefix("Value error, ")


def validate_located(
    model: type[M], data: Any, lines: dict[FieldPath, int], file: str, what: str
) -> M:
    """Validate ``data`` as ``model``; every error located in ``file``.

    Raises:
        ScenarioError: the data is not a mapping, or does not validate.
    """
    if not isinstance(data, dict):
        raise ScenarioError([Located(file, line_of(lines, ()), "", f"a {what} is a mapping")])
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise ScenarioError(
            [located(file, lines, tuple(e["loc"]), error_message(e)) for e in exc.errors()]
        ) from None
