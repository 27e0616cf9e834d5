"""Reading study and campaign files, every problem located as ``file:line: field: message``.

Both are YAML read by :func:`sim.scenario.load.parse_yaml` (the scenario loader's
safe parser, with its field → line map) and validated by pydantic; each
error names the line of the field it is about, as scenario errors do.

Where the schema refuses something, :func:`validate_all` also repairs the file as the
scenario loader repairs a scenario for its cross-field checks
(:func:`sim.scenario.diagnose.repaired`), and says which fields it refused: a study's or a
calibration's later checks (a factor's path, a target's measure) are run on what it kept,
each unless it reads a refused field, so the file's every problem is said in one pass,
by line (:func:`in_order`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Generic, TypeVar, cast

from pydantic import BaseModel, ValidationError

from sim.contract.bases import validate_plain
from sim.scenario.diagnose import (
    Repaired,
    hint,
    misspelt,
    one_per_field,
    repaired,
    untagged,
)
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
    "Validated",
    "error_message",
    "in_order",
    "line_of",
    "located",
    "read_yaml",
    "validate_all",
    "validate_located",
]

M = TypeVar("M", bound=BaseModel)
FieldPath = tuple[str | int, ...]


@dataclass(frozen=True)
class Validated(Generic[M]):
    """A file's data validated as a model (:func:`validate_all`).

    Attributes:
        model: the file's model; where the schema refused something, that of the file
            repaired (:func:`~sim.scenario.diagnose.repaired`), or None when no repair
            validates.
        problems: the schema's problems (none when the file is valid).
        failed: each field the schema refused (an unknown key read as the field it may
            have meant is not one), at its place in the file, and each a repair refused.
        repair: how :attr:`model` was repaired (None when the file is valid).
    """

    model: M | None
    problems: list[Located]
    failed: frozenset[FieldPath] = frozenset()
    repair: Repaired | None = None

    def sound(self, *paths: FieldPath) -> bool:
        """True when the schema refused none of ``paths``, nothing inside one and nothing
        holding one: a check that reads only them is run on :attr:`model` as on the file."""
        return not any(f[: len(p)] == p or p[: len(f)] == f for p in paths for f in self.failed)

    def original(self, path: FieldPath) -> FieldPath:
        """``path`` in :attr:`model` at its place in the file (``factors.1`` of a model
        whose file's ``factors.0`` was left out is the file's ``factors.2``)."""
        return path if self.repair is None else self.repair.original(path)

    def lines(self, lines: dict[FieldPath, int]) -> dict[FieldPath, int]:
        """The file's line map with each field an unknown key was read as (``design``, for
        ``desing``) at the key's lines: a later problem of it is said where the file has it."""
        if self.repair is None or not self.repair.renamed:
            return lines
        out = dict(lines)
        for typo, right in self.repair.renamed.items():
            for path, line in lines.items():
                if path[: len(typo)] == typo:
                    out.setdefault((*right, *path[len(typo) :]), line)
        return out

    def placed(self, name: str) -> list[tuple[int, Any]]:
        """The items of :attr:`model`'s list ``name`` (none when the schema refused the
        list), each with its place in the file's: a problem of one is said at its line."""
        items = getattr(self.model, name, None) or []
        return [(int(self.original((name, k))[1]), item) for k, item in enumerate(items)]

    def texts(self, data: Any, name: str, key: str) -> list[tuple[int, str]]:
        """The text each item of the list ``name`` gives its field ``key`` (a factor's
        ``path``), with the item's place in the file: of the items :attr:`model` kept, and
        of those the schema left out for another of their fields, where it refused
        neither the text nor the list (a check that reads the text alone is run all the
        same)."""
        found = {i: str(getattr(item, key)) for i, item in self.placed(name)}
        items = data.get(name) if isinstance(data, dict) and (name,) not in self.failed else None
        for i, item in enumerate(items if isinstance(items, list) else []):
            text = item.get(key) if isinstance(item, dict) else None
            refused = any(f[:3] == (name, i, key) for f in self.failed)
            if i not in found and isinstance(text, str) and not refused:
                found[i] = text
        return sorted(found.items())


def validate_all(
    model: type[M], data: Any, lines: dict[FieldPath, int], file: str, what: str
) -> Validated[M]:
    """Validate ``data`` as ``model``: every error located in ``file``, and where there are
    any, the model of the file repaired and what it refused (:class:`Validated`).

    Raises:
        ScenarioError: the data is not a mapping, or is plainly another kind of file.
    """
    try:
        return Validated(_validated(model, data, lines, file, what), [])
    except _Refused as exc:
        errors, problems = exc.errors, exc.problems
    repair = repaired(model, data, errors)
    if repair is None:
        return Validated(None, problems)
    renamed = {*repair.renamed, *repair.renamed.values()}  # read under the name meant
    failed = {untagged(model, tuple(e["loc"])) for e in errors} - renamed
    return Validated(cast("M", repair.model), problems, frozenset(failed | repair.refused), repair)


def validate_located(
    model: type[M], data: Any, lines: dict[FieldPath, int], file: str, what: str
) -> M:
    """Validate ``data`` as ``model``; every error located in ``file``.

    Raises:
        ScenarioError: the data is not a mapping, or does not validate.
    """
    try:
        return _validated(model, data, lines, file, what)
    except _Refused as exc:
        raise ScenarioError(exc.problems) from None


class _Refused(Exception):
    """The schema's errors, and the problems they make."""

    def __init__(self, errors: list[Any], problems: list[Located]) -> None:
        super().__init__(problems)
        self.errors, self.problems = errors, problems


def _validated(model: type[M], data: Any, lines: dict[FieldPath, int], file: str, what: str) -> M:
    """``data`` as ``model``.

    Raises:
        ScenarioError: the data is not a mapping, or is plainly another kind of file.
        _Refused: the schema refuses it.
    """
    if not isinstance(data, dict):
        raise ScenarioError([Located(file, line_of(lines, ()), "", f"a {what} is a mapping")])
    if what in KINDS:  # a scenario given to study, a study to campaign…: one line, not a dozen
        refuse_other_kind(data, lines, file, what)
    try:
        return validate_plain(model, data)
    except ValidationError as exc:
        errors = exc.errors()
    # as a scenario's: a misspelt key gets "did you mean", said once, at the typo
    typos = misspelt(model, errors)
    said = [
        (tuple(e["loc"]), hint(model, e, error_message(e)))
        for e in with_texts(errors, lines)
        if tuple(e["loc"]) not in typos.values()
    ]
    problems = [located(file, lines, loc, m) for loc, m in one_per_field(model, said)]
    raise _Refused(errors, problems)


def in_order(file: str, problems: list[Located]) -> list[Located]:
    """``file``'s problems by line (those of one line in the order found), then those of
    the files it names (a scenario's, at its own lines) as they were found."""
    return sorted(problems, key=lambda p: (p.file != file, p.line if p.file == file else 0))
