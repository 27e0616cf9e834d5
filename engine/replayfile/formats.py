"""The exact shape of each replay format version, checked line by line.

A replay claiming an older format must have the shape that format really
had, so that claiming one is no way around a check (a *downgrade*):

- **Format 1** (battlesim before snapshots and forks): a header with exactly
  the fields of :data:`HEADER_V1`, events all at schema version 1, no
  ``engine.snapshot`` or ``engine.override`` events, rulesets that existed
  then only (``EventRegistry.since_format``), plain text (never gzip).
- **Format 2**: the header may add ``fork``; every event is at the schema
  version its class had then (today's, unless the class lists another in
  ``Event.older_formats``); the file may be gzip-compressed.
- **Format 3**: as format 2, with the event types that began to record
  their ``cause`` at schema version 2.
- **Format 4**: as format 3, with every random draw written as
  the array ``[stream, i, u]`` instead of the object
  ``{"stream": …, "i": …, "u": …}``; every event is at its class's current
  ``schema_version`` and its line is exactly the writer's serialisation.
  Formats 1–3 hold draws only as such objects (:func:`draws_as_arrays`
  refuses an array there).
- **Format 5** (today's): format 4's shape exactly, with the dice of random
  derivation 2 (:mod:`engine.rng`) instead of derivation 1.

Which derivation a replay's dice come from is decided here, by its format
(:func:`derivation_of`), and nowhere else.  A battle is always re-simulated
with its own dice: ``verify``, ``fork`` and a resumed batch study write
:func:`resimulation_format` of the format the battle began in, the newest
format with the same derivation (format 4 for formats 1–4; its shape is
what the writer writes).  A replay whose header claims the other
derivation's format (a *downgrade*, or the reverse) re-simulates to other
dice and never verifies.

In every format the header line is canonical JSON, the footer line is
exactly what the writer writes, every field has its exact type (no ``true``
for a number) and ``schema_version`` is always present.
"""

from __future__ import annotations

import json
import re
import types
from collections.abc import Callable
from functools import cache
from typing import Annotated, Any, Union, get_args, get_origin

from pydantic import BaseModel

from engine.canonical import canonical_json
from engine.events import Draw, Event
from engine.version import FORMAT_VERSION

__all__ = [
    "DERIVATIONS",
    "FIRST_GZIP_FORMAT",
    "FORMATS",
    "HEADER_V1",
    "WRITTEN",
    "NewerSchema",
    "ShapeError",
    "check_event_line",
    "check_event_text",
    "check_footer_line",
    "check_forks_reached",
    "check_header_line",
    "check_number_types",
    "derivation_of",
    "draws_as_arrays",
    "resimulation_format",
    "schema_version_in",
    "schema_versions_in",
]

FORMATS = (1, 2, 3, 4, 5)
"""Every format version this battlesim reads; the last is the one it writes."""
assert FORMATS[-1] == FORMAT_VERSION
DERIVATIONS = {1: 1, 2: 1, 3: 1, 4: 1, 5: 2}
"""The random derivation (:mod:`engine.rng`) of each format's dice."""
WRITTEN = (4, 5)
"""The formats this battlesim writes: today's, and 4 for a battle begun in formats 1–4."""
FIRST_GZIP_FORMAT = 2
FIRST_ARRAY_DRAWS_FORMAT = 4
"""The first format whose draws are ``[stream, i, u]`` arrays (before: objects)."""
HEADER_V1 = frozenset(
    {
        "format",
        "format_version",
        "engine_version",
        "ruleset",
        "ruleset_version",
        "seed",
        "scenario",
        "scenario_digest",
        "rules_digest",
        "source",
    }
)
_HEADER_OPTIONAL = {
    1: frozenset[str](),
    2: frozenset({"fork"}),
    3: frozenset({"fork"}),
    4: frozenset({"fork"}),
    5: frozenset({"fork"}),
}
_FOOTER = ("footer", "events", "final_turn", "final_state_digest")


class ShapeError(ValueError):
    """A line that does not have the exact shape of its format version."""


class NewerSchema(ShapeError):
    """An event line at a schema version newer than this battlesim's class: a replay of a
    newer battlesim (or ruleset), not a damaged one."""


def check_header_line(version: int, body: str, data: dict[str, Any]) -> None:
    """The header of ``version`` has exactly its fields, in canonical JSON.

    Raises:
        ShapeError: a field missing or extra for that version, or not canonical text.
    """
    keys = frozenset(data)
    missing = sorted(HEADER_V1 - keys)
    extra = sorted(keys - HEADER_V1 - _HEADER_OPTIONAL[version])
    if missing:
        raise ShapeError(f"header has no {missing[0]!r} field")
    if extra:
        raise ShapeError(f"format {version} headers have no {extra[0]!r} field")
    if "fork" in data and data["fork"] is None:
        raise ShapeError("header 'fork' is written only when there is one, never as null")
    source = data["source"]
    if isinstance(source, str) and not _file_name(source):
        raise ShapeError(f"source {source!r} is not a scenario file name (no folders)")
    _check_fork(data.get("fork"))
    if canonical_json(data) != body:
        raise ShapeError("header is not canonical JSON (sorted keys, no spaces)")


def _file_name(name: str) -> bool:
    return name not in ("", ".", "..") and "/" not in name and "\\" not in name


_DIGEST = re.compile(r"sha256:[0-9a-f]{64}")


def _check_fork(fork: object) -> None:
    """Each fork of a header's chain describes a fork ``battlesim fork`` can make.

    Its parent is a file name, its ``parent_digest`` a SHA-256 and its
    ``at_seq`` an event (``seq`` ≥ 0; that the battle reaches it is checked
    at the footer, :func:`check_forks_reached`).  Types are the model's to check.

    Raises:
        ShapeError: a fork no battlesim writes.
    """
    while isinstance(fork, dict):
        parent, digest, at = fork.get("parent"), fork.get("parent_digest"), fork.get("at_seq")
        if isinstance(parent, str) and not _file_name(parent):
            raise ShapeError(f"fork parent {parent!r} is not a replay file name (no folders)")
        if isinstance(digest, str) and not _DIGEST.fullmatch(digest):
            raise ShapeError(f"fork parent_digest {digest!r} is not 'sha256:' and 64 hex digits")
        if type(at) is int and at < 0:
            raise ShapeError(f"fork at_seq {at} is not an event's seq (from 0)")
        fork = fork.get("earlier")


def check_forks_reached(fork: object, events: int) -> None:
    """Every fork of a header's chain changes an event the battle has (``at_seq`` < ``events``).

    An earlier fork (the parent's) may lie past the battle's end when a later
    fork, made at a lower seq, changed the battle's course before it: a fork
    of a fork at seq 66 can end the battle before its parent's fork at seq 87
    (whose change :meth:`engine.log.Fork.chain` leaves out in any case).

    Raises:
        ShapeError: a fork at an event the battle never reached (it changed nothing).
    """
    before: int | None = None  # the lowest at_seq of the later forks seen so far
    while fork is not None:
        at = getattr(fork, "at_seq", 0)
        if at >= events and (before is None or before >= at):
            raise ShapeError(
                f"the header's fork at seq {at} changes nothing: the battle has {events} events"
            )
        before = at if before is None else min(before, at)
        fork = getattr(fork, "earlier", None)


def check_number_types(written: Any, recorded: Any) -> None:
    """A record of an older format holds each number as its writer wrote it.

    ``written`` is the parsed event dumped as JSON data (what a writer writes),
    ``recorded`` the record as read (once upcast); where the event holds a
    float, the record must too: every battlesim writes ``4.0``, so ``4`` is an
    edited record, which the strict parse alone would accept.

    Raises:
        ShapeError: an integer where the event holds a float.
    """
    stack: list[tuple[Any, Any, str]] = [(written, recorded, "")]
    while stack:
        w, r, where = stack.pop()
        if type(w) is float and type(r) is int:
            raise ShapeError(f"{where or 'value'}: {r} is written {float(r)!r} (a float)")
        if type(w) is dict and type(r) is dict:
            stack.extend((w[k], r[k], f"{where}.{k}" if where else k) for k in w if k in r)
        elif type(w) is list and type(r) is list and len(w) == len(r):
            stack.extend((a, b, f"{where}[{i}]") for i, (a, b) in enumerate(zip(w, r, strict=True)))


def derivation_of(format_version: int) -> int:
    """The random derivation whose dice a replay of ``format_version`` holds."""
    return DERIVATIONS[format_version]


def resimulation_format(format_version: int) -> int:
    """The format a battle begun in ``format_version`` is written in when fought again.

    The newest format with the same random derivation, so the battle keeps
    its dice: 4 for formats 1–4, 5 for 5.
    """
    derivation = DERIVATIONS[format_version]
    return max(v for v in WRITTEN if DERIVATIONS[v] == derivation)


def schema_version_in(format_version: int, cls: type[Event]) -> int:
    """The schema version events of ``cls`` have in files of ``format_version``."""
    current: int = cls.model_fields["schema_version"].default
    if format_version == 1:
        return 1
    return cls.older_formats.get(format_version, current)


def schema_versions_in(
    format_version: int, cls: type[Event], ruleset_version: str | None = None
) -> tuple[int, ...]:
    """Every schema version a file of ``format_version`` fought under ``ruleset_version``
    may hold ``cls`` at: the format's (:func:`schema_version_in`), and, for a file of an
    earlier rules version the class names in ``older_rules``, that version too."""
    held = schema_version_in(format_version, cls)
    older = cls.older_rules.get(ruleset_version) if ruleset_version is not None else None
    return (held,) if format_version == 1 or older is None or older == held else (older, held)


def check_event_line(
    format_version: int,
    cls: type[Event],
    data: dict[str, Any],
    ruleset_version: str | None = None,
) -> None:
    """An event's type existed in ``format_version`` and carries a schema version a file of
    that format, fought under ``ruleset_version``, holds it at (:func:`schema_versions_in`).

    Raises:
        ShapeError: the type is newer than the format, or the schema version
            is missing, not an int, or not one the format and the rules wrote.
    """
    if format_version < cls.since_format:
        raise ShapeError(f"event type {data['type']!r} does not exist in format {format_version}")
    stored = data.get("schema_version")
    if "schema_version" not in data:
        raise ShapeError("event has no 'schema_version'")
    lawful = schema_versions_in(format_version, cls, ruleset_version)
    current: int = cls.model_fields["schema_version"].default
    if type(stored) is int and stored > current:
        raise NewerSchema(
            f"event type {data['type']!r} schema version {stored} is newer than this "
            f"battlesim reads ({current}); upgrade battlesim"
        )
    if type(stored) is not int or stored not in lawful:
        expected = lawful[-1]
        rules = f" under rules v{ruleset_version}" if len(lawful) > 1 else ""
        versions = " or ".join(map(str, lawful))
        unnamed = ruleset_version is not None and ruleset_version not in cls.older_rules
        older = (
            f" (a line of {data['type']} before it changed shape reads where its class's "
            "older_rules names the rules version it was fought under"
            + (
                f"; {cls.__name__}.older_rules does not name this file's, {ruleset_version!r})"
                if unnamed
                else ")"
            )
            if type(stored) is int and 1 <= stored < current and format_version > 1
            else ""
        )
        raise ShapeError(
            f"schema_version {stored!r}: format {format_version}{rules} writes "
            f"{data['type']} at schema version {versions if rules else expected}{older}"
        )


def check_event_text(event: Event, body: str) -> None:
    """A :data:`WRITTEN`-format event line is exactly the writer's serialisation of the event.

    Raises:
        ShapeError: the text differs (a type was coerced, a key added or reordered).
    """
    try:
        written: str | None = event.model_dump_json()
    except ValueError:  # a lone surrogate (``\\ud800``): no UTF-8 text holds it, no writer wrote it
        written = None
    if written != body:
        raise ShapeError("event is not in the writer's exact form (field types or order)")


def check_footer_line(body: str, data: dict[str, Any]) -> None:
    """The footer is exactly ``{"footer":true,"events":…,"final_turn":…,"final_state_digest":…}``.

    Raises:
        ShapeError: another field, order, spacing or type.
    """
    if tuple(data) != _FOOTER or json.dumps(data, separators=(",", ":")) != body:
        raise ShapeError(
            "footer is not exactly footer, events, final_turn, final_state_digest "
            "as the writer writes them"
        )
    digest = data["final_state_digest"]
    if not (isinstance(digest, str) and _STATE_DIGEST.fullmatch(digest)):
        raise ShapeError("final_state_digest is not 'sha256:' and 64 hex digits, as written")


_STATE_DIGEST = re.compile(r"sha256:[0-9a-f]{64}")
"""A footer's state digest as the writer writes it (:func:`engine.canonical.text_digest`)."""


_Convert = Callable[[Any, str], Any]


def draws_as_arrays(cls: type[Event], data: dict[str, Any]) -> dict[str, Any]:
    """An older-format record (formats 1–3) with each draw object made a ``[stream, i, u]`` array.

    The places that hold draws are found from ``cls``'s fields (a draw, a
    list of draws, a model holding them, optional or in a list or mapping),
    so no other value that looks like one is touched.  Applied after the
    record is upcast to today's schema, before validation.

    Raises:
        ShapeError: a draw that is not exactly ``{"stream": str, "i": int,
            "u": float}`` in that order (an array there is a later format's
            shape: a downgrade).
    """
    convert = _model_converter(cls)
    return convert(data, "") if convert is not None else data


def _draw_object(value: Any, where: str) -> list[Any]:
    if (
        type(value) is not dict
        or tuple(value) != ("stream", "i", "u")
        or type(value["stream"]) is not str
        or type(value["i"]) is not int
        or type(value["u"]) is not float
    ):
        raise ShapeError(
            f"{where or 'draw'}: formats 1-3 write a draw as "
            '{"stream": text, "i": int, "u": float}, not ' + json.dumps(value)[:60]
        )
    return [value["stream"], value["i"], value["u"]]


@cache
def _model_converter(cls: type[BaseModel]) -> _Convert | None:
    fields = {}
    for name, info in cls.model_fields.items():
        convert = _converter(info.annotation)
        if convert is not None:
            fields[name] = convert

    def model(value: Any, where: str) -> Any:
        if type(value) is not dict:
            return value  # validation names what is wrong with it
        out = dict(value)
        for name, convert in fields.items():
            if name in out:
                out[name] = convert(out[name], f"{where}.{name}" if where else name)
        return out

    return model if fields else None


def _converter(annotation: Any) -> _Convert | None:
    """How to convert the value of one annotation, or None when it holds no draws."""
    origin, args = get_origin(annotation), get_args(annotation)
    if annotation is Draw:
        return _draw_object
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return _model_converter(annotation)
    if origin is Annotated:
        return _converter(args[0])
    if origin in (Union, types.UnionType):
        inner = [c for c in (_converter(a) for a in args if a is not type(None)) if c is not None]
        if len(inner) > 1:
            raise TypeError(f"{annotation}: a union of several types holding draws")
        return _optional(inner[0]) if inner else None
    if origin in (list, tuple) and args:
        item = _converter(args[0])
        return _items(item) if item is not None and all(a in (args[0], ...) for a in args) else None
    if origin is dict and len(args) == 2:
        value = _converter(args[1])
        return _values(value) if value is not None else None
    return None


def _optional(convert: _Convert) -> _Convert:
    return lambda value, where: None if value is None else convert(value, where)


def _items(convert: _Convert) -> _Convert:
    def items(value: Any, where: str) -> Any:
        if type(value) is not list:
            return value
        return [convert(v, f"{where}[{i}]") for i, v in enumerate(value)]

    return items


def _values(convert: _Convert) -> _Convert:
    def values(value: Any, where: str) -> Any:
        if type(value) is not dict:
            return value
        return {k: convert(v, f"{where}.{k}") for k, v in value.items()}

    return values
