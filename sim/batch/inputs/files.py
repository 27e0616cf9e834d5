"""Reading study and campaign files, every problem located as ``file:line: field: message``.

Both are YAML read by :func:`sim.scenario.load.parse_yaml` (the scenario loader's
safe parser, with its field → line map) and validated by pydantic; each
error names the line of the field it is about, as scenario errors do.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from sim.contract.bases import validate_plain
from sim.scenario.diagnose import hint, misspelt, one_per_field
from sim.scenario.load import (
    KINDS,
    Located,
    ScenarioError,
    error_message,
    line_of,
    located,
    read_yaml,
    refuse_other_kind,
    with_texts,
)

__all__ = [
    "error_message",
    "line_of",
    "located",
    "read_located",
    "read_yaml",
    "validate_located",
]

M = TypeVar("M", bound=BaseModel)
FieldPath = tuple[str | int, ...]


def validate_located(
    model: type[M], data: Any, lines: dict[FieldPath, int], file: str, what: str
) -> M:
    """Validate ``data`` as ``model``; every error located in ``file``.

    Raises:
        ScenarioError: the data is not a mapping, or does not validate.
    """
    if not isinstance(data, dict):
        raise ScenarioError([Located(file, line_of(lines, ()), "", f"a {what} is a mapping")])
    if what in KINDS:  # a scenario given to study, a study to campaign…: one line, not a dozen
        refuse_other_kind(data, lines, file, what)
    try:
        return validate_plain(model, data)
    except ValidationError as exc:
        # as a scenario's: a misspelt key gets "did you mean", said once, at the typo
        typos = set(misspelt(model, exc.errors()).values())
        said = [
            (tuple(e["loc"]), hint(model, e, error_message(e)))
            for e in with_texts(exc.errors(), lines)
            if tuple(e["loc"]) not in typos
        ]
        raise ScenarioError(
            [located(file, lines, loc, m) for loc, m in one_per_field(model, said)]
        ) from None


def read_located(
    path: str | Path, model: type[M], what: str
) -> tuple[M, str, dict[FieldPath, int]]:
    """Read the YAML file ``path`` as ``model``, a ``what`` (``"study"``, ``"calibration"``…).

    Returns:
        The validated model, the file's name as its errors give it (for
        further checks to locate theirs by :func:`located`), and its line map.

    Raises:
        ScenarioError: the file cannot be read or parsed, or does not validate.
    """
    file = str(path)
    data, lines = read_yaml(path)
    return validate_located(model, data, lines, file, what), file, lines
