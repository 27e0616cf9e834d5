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
- **Format 3** (today's): as format 2, with the event types that began to
  record their ``cause`` at schema version 2; every event is at its class's
  current ``schema_version`` and its line is exactly the writer's
  serialisation.

In every format the header line is canonical JSON, the footer line is
exactly what the writer writes, every field has its exact type (no ``true``
for a number) and ``schema_version`` is always present.
"""

from __future__ import annotations

import json
from typing import Any

from engine.canonical import canonical_json
from engine.events import Event
from engine.version import FORMAT_VERSION

__all__ = [
    "FIRST_GZIP_FORMAT",
    "FORMATS",
    "HEADER_V1",
    "ShapeError",
    "check_event_line",
    "check_event_text",
    "check_footer_line",
    "check_header_line",
    "schema_version_in",
]

FORMATS = (1, 2, 3)
"""Every format version this battlesim reads; the last is the one it writes."""
assert FORMATS[-1] == FORMAT_VERSION
FIRST_GZIP_FORMAT = 2
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
_HEADER_OPTIONAL = {1: frozenset[str](), 2: frozenset({"fork"}), 3: frozenset({"fork"})}
_FOOTER = ("footer", "events", "final_turn", "final_state_digest")


class ShapeError(ValueError):
    """A line that does not have the exact shape of its format version."""


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
    if isinstance(source, str) and (source in ("", ".", "..") or "/" in source or "\\" in source):
        raise ShapeError(f"source {source!r} is not a scenario file name (no folders)")
    if canonical_json(data) != body:
        raise ShapeError("header is not canonical JSON (sorted keys, no spaces)")


def schema_version_in(format_version: int, cls: type[Event]) -> int:
    """The schema version events of ``cls`` have in files of ``format_version``."""
    current: int = cls.model_fields["schema_version"].default
    if format_version == 1:
        return 1
    return cls.older_formats.get(format_version, current)


def check_event_line(format_version: int, cls: type[Event], data: dict[str, Any]) -> None:
    """An event's type existed in ``format_version`` and carries that format's schema version.

    Raises:
        ShapeError: the type is newer than the format, or the schema version
            is missing, not an int, or not the one the format wrote.
    """
    if format_version < cls.since_format:
        raise ShapeError(f"event type {data['type']!r} does not exist in format {format_version}")
    stored = data.get("schema_version")
    if "schema_version" not in data:
        raise ShapeError("event has no 'schema_version'")
    expected = schema_version_in(format_version, cls)
    current: int = cls.model_fields["schema_version"].default
    if type(stored) is int and stored > current:
        raise ShapeError(
            f"event type {data['type']!r} schema version {stored} is newer than this "
            f"battlesim reads ({current}); upgrade battlesim"
        )
    if type(stored) is not int or stored != expected:
        raise ShapeError(
            f"schema_version {stored!r}: format {format_version} writes "
            f"{data['type']} at schema version {expected}"
        )


def check_event_text(event: Event, body: str) -> None:
    """A current-format event line is exactly the writer's serialisation of the event.

    Raises:
        ShapeError: the text differs (a type was coerced, a key added or reordered).
    """
    if event.model_dump_json() != body:
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
