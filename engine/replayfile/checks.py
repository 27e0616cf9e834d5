"""The checks a replay reader makes on each line: chain link, strict JSON, exact shape.

Damage is reported as a :class:`ReplayError` that names the file, the line
number and, for event lines, the ``seq`` expected there.  Its ``kind`` says
what the file is: ``"damaged"`` (edited, forged, broken), ``"incomplete"``
(a run stopped before its footer), ``"not_replay"`` (some other file),
``"unsupported"`` (a newer format) or ``"unreadable"`` (missing, not a
regular file, too large).  Parsing is strict at every level
(:mod:`engine.safety.strictjson`, :mod:`engine.replayfile.formats`): a claimed older format is
held to the exact shape it had.  :mod:`engine.replayfile.reader` applies them line by line.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any, Literal

from pydantic import ValidationError

from engine.events import Event, EventRegistry, UnknownEventType
from engine.log import FORMAT, GENESIS, Footer, Header, chain_link, seal
from engine.replayfile import formats
from engine.safety.strictjson import StrictJSONError, loads
from engine.safety.text import find_control
from engine.version import FORMAT_VERSION

__all__ = ["MAX_LINE", "Kind", "ReplayError", "check_written_header"]

MAX_LINE = 16 * 1024 * 1024
_SUSPECT = re.compile(r"\\[ubfr]|[\x00-\x1f\x7f-\x9f]")
"""Text that may decode to a control character: only such lines are searched."""


def _PLAIN(body: str) -> bool:  # noqa: N802 - reads as the constant test it is
    """True for ASCII text without escapes or DEL: nothing in it can be a control character.

    (The strict decoder already refuses raw control characters inside strings.)
    Three C-level scans, much cheaper than :data:`_SUSPECT` on a long line.
    """
    return body.isascii() and "\\" not in body and "\x7f" not in body


_TAIL = re.compile(r',"h":"[0-9a-f]{32}"\}')
_TAIL_LEN = 40
"""``,"h":"<32 hex>"}``: every line ends with its chain link."""


Kind = Literal["damaged", "incomplete", "not_replay", "unsupported", "unreadable"]
_HEADER_MARK = b'"format":"battlesim-replay"'


class ReplayError(Exception):
    """A replay that cannot be trusted, located by file, line and seq."""

    def __init__(
        self,
        path: str,
        line: int,
        message: str,
        seq: int | None = None,
        kind: Kind = "damaged",
    ) -> None:
        self.path, self.line, self.seq, self.message = path, line, seq, message
        self.kind: Kind = kind
        where = f"{path}:{line}" if line > 0 else path  # line 0: the file as a whole
        at = f" (seq {seq})" if seq is not None else ""
        super().__init__(f"{where}{at}: {message}")


def _looks_like_replay(raw: bytes) -> bool:
    """True when the first line is a JSON object whose ``format`` is a battlesim replay's."""
    first = raw.split(b"\n", 1)[0]
    if len(first) > MAX_LINE:
        return False
    try:  # leniently: a replay with a forged first line is damaged, not "no replay"
        data = json.loads(first.decode("utf-8"))
    except (ValueError, RecursionError):
        return False
    return isinstance(data, dict) and data.get("format") == FORMAT


def _decode(name: str, n: int, line: str, seq: int | None) -> dict[str, Any]:
    if len(line) > MAX_LINE:
        raise ReplayError(name, n, "line too long", seq)
    try:
        data = loads(line)
    except StrictJSONError as exc:
        raise ReplayError(name, n, str(exc), seq) from None
    if not isinstance(data, dict):
        raise ReplayError(name, n, "not a JSON object", seq)
    return data


def _link(name: str, n: int, line: str, previous: str, seq: int | None) -> tuple[str, str]:
    """Check one line's chain link; return (its body without ``h``, its hash)."""
    if line.endswith("\r"):  # the link is there, before a CR battlesim never writes
        raise ReplayError(
            name,
            n,
            "line ends in a carriage return: battlesim writes LF line ends only "
            "(was the file converted to CRLF, by an editor or git's autocrlf?)",
            seq,
        )
    tail = line[-_TAIL_LEN:]
    if len(line) <= _TAIL_LEN or _TAIL.fullmatch(tail) is None:
        raise ReplayError(name, n, 'line has no hash-chain link "h"', seq)
    body = line[:-_TAIL_LEN] + "}"
    h = tail[6:38]
    if chain_link(previous, body) != h:
        raise ReplayError(
            name,
            n,
            "hash chain broken: this line, or one before it, was edited, dropped or reordered",
            seq,
        )
    return body, h


def _open(name: str, n: int, line: str, body: str, seq: int | None) -> dict[str, Any]:
    """Decode a chained line strictly: one JSON object, no control characters, ``h`` last."""
    data = _decode(name, n, line, seq)
    if not _PLAIN(body) and _SUSPECT.search(body):
        where = find_control(data)
        if where is not None:
            field = ".".join(str(p) for p in where)
            raise ReplayError(name, n, f"{field}: control characters are not allowed", seq)
    if tuple(data)[-1:] != ("h",):
        raise ReplayError(name, n, '"h" is not the last member of the line', seq)
    del data["h"]
    return data


def _unseal(
    name: str, n: int, line: str, previous: str, seq: int | None
) -> tuple[dict[str, Any], str, str]:
    """Check one line's chain link and decode it; return (data, body, its hash)."""
    body, h = _link(name, n, line, previous, seq)
    return _open(name, n, line, body, seq), body, h


def _header(name: str, line: str, gzipped: bool) -> tuple[Header, str]:
    data, body, h = _unseal(name, 1, line, GENESIS, None)
    version = data.get("format_version")
    if type(version) is int and version > FORMAT_VERSION:
        raise ReplayError(
            name,
            1,
            f"replay format version {version} is newer than this battlesim reads "
            f"({FORMAT_VERSION}); upgrade battlesim",
            kind="unsupported",
        )
    if type(version) is not int or version not in formats.FORMATS:
        raise ReplayError(name, 1, f"format_version {version!r} is not a replay format version")
    if gzipped and version < formats.FIRST_GZIP_FORMAT:
        raise ReplayError(name, 1, f"format {version} replays are never gzip-compressed")
    try:
        formats.check_header_line(version, body, data)
        return Header.model_validate(data, strict=True), h
    except formats.ShapeError as exc:
        raise ReplayError(name, 1, f"bad header: {exc}") from None
    except ValidationError as exc:
        raise ReplayError(name, 1, f"bad header: {_first_error(exc)}") from None


def _first_error(exc: ValidationError) -> str:
    """The first error, by field path; a union's branch tags left out of the path.

    A value refused by every branch of a union (a draw: a ``Draw`` or an
    array) gives one error per branch; the one about its JSON shape is named,
    not "should be an instance of" the class no file can hold.
    """
    errors = exc.errors()
    err = next((e for e in errors if e["type"] != "is_instance_of"), errors[0])
    loc = ".".join(str(p) for p in err["loc"] if not _BRANCH.fullmatch(str(p)))
    return f"{loc}: {err['msg']}" if loc else err["msg"]


_BRANCH = re.compile(r"[a-z][a-z-]*\[.*\]")
"""A path part pydantic adds for a union's branch (``is-instance[Draw]``), not a field."""


def _registry(
    name: str, header: Header, registry_for: Callable[[Header], EventRegistry]
) -> EventRegistry:
    try:
        registry = registry_for(header)
    except LookupError as exc:
        raise ReplayError(name, 1, str(exc), kind="unsupported") from None
    if header.format_version < registry.since_format:
        raise ReplayError(
            name,
            1,
            f"ruleset {header.ruleset!r} did not exist in format {header.format_version}",
        )
    return registry


def _footer(name: str, n: int, body: str, data: dict[str, Any], seq: int) -> Footer:
    try:
        formats.check_footer_line(body, data)
        footer = Footer.model_validate(data, strict=True)
    except formats.ShapeError as exc:
        raise ReplayError(name, n, f"bad footer: {exc}") from None
    except ValidationError as exc:
        raise ReplayError(name, n, f"bad footer: {_first_error(exc)}") from None
    if footer.events != seq:
        raise ReplayError(name, n, f"footer counts {footer.events} events, file has {seq}")
    return footer


def _forks_reached(name: str, n: int, header: Header, events: int) -> None:
    """At the footer: every fork of the header changes an event the file has (a real fork)."""
    del n  # the fault is the header's
    try:
        formats.check_forks_reached(header.fork, events)
    except formats.ShapeError as exc:
        raise ReplayError(name, 1, f"bad header: {exc}") from None


def _event(
    name: str,
    n: int,
    line: tuple[str, dict[str, Any]],
    seq: int,
    registry: EventRegistry,
    format_version: int,
    ruleset_version: str | None = None,
) -> Event:
    body, data = line
    try:
        cls = registry.cls(data.get("type"))
        formats.check_event_line(format_version, cls, data, ruleset_version)
        # the writer's shape, its text checked exactly; not a line of an earlier rules
        # version's shape (older_rules), which is read as an older format's lines are
        current = format_version in formats.WRITTEN and data[
            "schema_version"
        ] == formats.schema_version_in(format_version, cls)
        older = format_version < formats.FIRST_ARRAY_DRAWS_FORMAT
        record: list[dict[str, Any]] = []

        def prepare(cls: type[Event], upcast: dict[str, Any]) -> dict[str, Any]:
            record.append(formats.draws_as_arrays(cls, upcast) if older else upcast)
            return record[-1]

        event = registry.parse(data, strict=not current, prepare=None if current else prepare)
        if current:
            formats.check_event_text(event, body)
        else:  # no exact text to compare: every number has the JSON type the writer gives it
            formats.check_number_types(event.model_dump(mode="json"), record[-1])
    except UnknownEventType as exc:
        unknown = str(exc).startswith("unknown event type")
        hint = " (this battlesim does not know it; upgrade?)" if unknown else ""
        raise ReplayError(name, n, f"{exc}{hint}", seq) from None
    except formats.NewerSchema as exc:  # a newer battlesim's, not damaged: as a newer format
        raise ReplayError(name, n, str(exc), seq, kind="unsupported") from None
    except formats.ShapeError as exc:
        raise ReplayError(name, n, f"bad event: {exc}", seq) from None
    except ValidationError as exc:
        upcast = _upcast_from(data, registry)
        raise ReplayError(name, n, f"bad event: {_first_error(exc)}{upcast}", seq) from None
    if event.seq != seq:
        raise ReplayError(name, n, f"event has seq {event.seq}, expected {seq}", seq)
    if event.cause is not None and not 0 <= event.cause < seq:
        # A cause is an event already logged: no cycle, no forward or negative link.
        raise ReplayError(name, n, f"bad event: cause {event.cause} is not an earlier seq", seq)
    return event


def _upcast_from(data: dict[str, Any], registry: EventRegistry) -> str:
    """For a line stored at an older schema version than its class's, what the refusal adds:
    the record was upcast, so the line or the ruleset's upcasters are at fault; else ''."""
    stored, tag = data.get("schema_version"), data.get("type")
    current: int = registry.cls(tag).model_fields["schema_version"].default
    if type(stored) is not int or stored >= current:
        return ""
    return (
        f" (stored at schema version {stored}, upcast to {current}: a line not of version "
        f"{stored}, or upcasters of {tag} that do not make version {current})"
    )


def _event_fast(
    body: str, seq: int, registry: EventRegistry, tag: str, format_version: int
) -> Event | None:
    """The event of a writer's-form line read by msgspec, or None: read it with :func:`_event`.

    For a line of a :data:`~engine.replayfile.formats.WRITTEN` format whose prefix
    (type, schema version, seq, cause) the reader has already matched, and
    whose text cannot hold a control character.  Accepted only when the
    line is exactly the writer's serialisation of the event it decodes to
    (:func:`engine.replayfile.decoders.decode_exact`) and its seq and cause are lawful;
    every other line, lawful or not, is left to the pydantic path, which
    words any refusal.
    """
    if format_version not in formats.WRITTEN or not (_PLAIN(body) or not _SUSPECT.search(body)):
        return None
    from engine.replayfile.decoders import decode_exact, fast_decoder  # noqa: PLC0415 - msgspec when reading

    fast = fast_decoder(registry, tag)
    if fast is None:
        return None

    event = decode_exact(fast, body.encode())
    if event is None or event.seq != seq:
        return None
    return event if event.cause is None or 0 <= event.cause < seq else None


def check_written_header(header: Header) -> None:
    """Refuse to start a replay whose header its own reader would refuse.

    The header is checked as :mod:`engine.replayfile.reader` checks line 1 (strict JSON,
    a replay's integer range, no control character, the format's exact shape),
    so nothing is written that ``verify`` would call DAMAGED at line 1 — a seed
    of 2⁶⁴ or a control character in a fork's path, whatever the caller checked.

    Raises:
        ValueError: the header would not read back.
    """
    line, _ = seal(GENESIS, header.body())
    try:
        _header("<header>", line, gzipped=False)
    except ReplayError as exc:
        raise ValueError(f"a replay with this header would not read back: {exc.message}") from None
