"""Read a replay file: every line validated, the hash chain checked.

Damage is reported as a :class:`ReplayError` that names the file, the line
number and, for event lines, the ``seq`` expected there.
"""

from __future__ import annotations

import json
import re
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from engine.events import Event, EventRegistry, UnknownEventType
from engine.log import FORMAT, GENESIS, Footer, Header, chain_link
from engine.version import FORMAT_VERSION

__all__ = ["MAX_LINE", "Replay", "ReplayError", "read_lines", "read_replay"]

MAX_LINE = 16 * 1024 * 1024
_TAIL = re.compile(r',"h":"([0-9a-f]{32})"\}$')


class ReplayError(Exception):
    """A replay that cannot be trusted, located by file, line and seq."""

    def __init__(self, path: str, line: int, message: str, seq: int | None = None) -> None:
        self.path, self.line, self.seq, self.message = path, line, seq, message
        where = f"{path}:{line}"
        at = f" (seq {seq})" if seq is not None else ""
        super().__init__(f"{where}{at}: {message}")


@dataclass
class Replay:
    """A replay read from a file: header, events and footer."""

    path: str
    header: Header
    events: list[Event] = field(default_factory=list)
    lines: list[str] = field(default_factory=list)
    footer: Footer | None = None
    upcast: int = 0
    """How many events were stored in an older schema version and upcast on read."""

    @property
    def current(self) -> bool:
        """True when the file is in today's format: no upcasting was needed."""
        return self.header.format_version == FORMAT_VERSION and self.upcast == 0


def read_lines(path: str | Path) -> list[str]:
    """Return the file's lines without newlines.

    Raises:
        ReplayError: the file is missing, unreadable or not UTF-8 text.
    """
    name = str(path)
    try:
        raw = Path(path).read_bytes()
    except OSError as exc:
        raise ReplayError(name, 0, f"cannot read replay: {exc.strerror}") from None
    if raw[:2] == b"\x1f\x8b":
        # gzip; a file cut short still yields its readable prefix.
        try:
            raw = zlib.decompressobj(16 + zlib.MAX_WBITS).decompress(raw)
        except zlib.error as exc:
            raise ReplayError(name, 0, f"damaged gzip data: {exc}") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise ReplayError(name, line, "not UTF-8 text") from None
    if text and not text.endswith("\n"):
        # A crash mid-write leaves a partial last line; report it as truncation.
        n = text.count("\n") + 1
        raise ReplayError(
            name, n, "truncated: the last line is incomplete", n - 2 if n >= 2 else None
        )
    return text.split("\n")[:-1] if text else []


def _unseal(
    name: str, n: int, line: str, previous: str, seq: int | None
) -> tuple[dict[str, Any], str]:
    """Check one line's chain link and decode it; return (data, its hash)."""
    if len(line) > MAX_LINE:
        raise ReplayError(name, n, "line too long", seq)
    m = _TAIL.search(line)
    if m is None:
        raise ReplayError(name, n, 'line has no hash-chain link "h"', seq)
    body = line[: m.start()] + "}"
    if chain_link(previous, body) != m.group(1):
        raise ReplayError(
            name,
            n,
            "hash chain broken: this line, or one before it, was edited, dropped or reordered",
            seq,
        )
    try:
        data = json.loads(line)
    except json.JSONDecodeError as exc:
        raise ReplayError(name, n, f"not JSON: {exc.msg}", seq) from None
    if not isinstance(data, dict):
        raise ReplayError(name, n, "not a JSON object", seq)
    data.pop("h", None)
    return data, m.group(1)


def _header(name: str, lines: list[str]) -> tuple[Header, str]:
    if not lines:
        raise ReplayError(name, 1, "empty file: no header")
    data, h = _unseal(name, 1, lines[0], GENESIS, None)
    if data.get("format") != FORMAT:
        raise ReplayError(name, 1, f'not a battlesim replay: "format" is {data.get("format")!r}')
    version = data.get("format_version")
    if not isinstance(version, int) or version > FORMAT_VERSION:
        raise ReplayError(
            name,
            1,
            f"replay format version {version!r} is newer than this battlesim reads "
            f"({FORMAT_VERSION}); upgrade battlesim",
        )
    try:
        return Header.model_validate(data), h
    except ValidationError as exc:
        raise ReplayError(name, 1, f"bad header: {_first_error(exc)}") from None


def _first_error(exc: ValidationError) -> str:
    err = exc.errors()[0]
    loc = ".".join(str(p) for p in err["loc"])
    return f"{loc}: {err['msg']}" if loc else err["msg"]


def read_replay(
    path: str | Path,
    registry_for: Callable[[Header], EventRegistry],
    *,
    allow_truncated: bool = False,
) -> Replay:
    """Read and check a whole replay.

    Args:
        path: the replay file.
        registry_for: returns the event registry of the header's ruleset.
        allow_truncated: return the readable prefix of a file with no footer
            instead of raising.

    Raises:
        ReplayError: the first damaged line, named by line and seq.
    """
    name = str(path)
    lines = read_lines(path)
    header, previous = _header(name, lines)
    try:
        registry = registry_for(header)
    except LookupError as exc:
        raise ReplayError(name, 1, str(exc)) from None
    replay = Replay(path=name, header=header, lines=lines)
    for n, line in enumerate(lines[1:], start=2):
        seq = len(replay.events)
        if replay.footer is not None:
            raise ReplayError(name, n, "unexpected line after the footer")
        data, previous = _unseal(name, n, line, previous, seq)
        if data.get("footer") is True:
            replay.footer = _footer(name, n, data, seq)
            continue
        stored = data.get("schema_version", 1)
        event = _event(name, n, data, seq, registry)
        replay.upcast += stored != event.schema_version
        replay.events.append(event)
    if replay.footer is None and not allow_truncated:
        last = len(replay.events) - 1
        raise ReplayError(name, len(lines) + 1, f"truncated: no footer after seq {last}", last + 1)
    return replay


def _footer(name: str, n: int, data: dict[str, Any], seq: int) -> Footer:
    try:
        footer = Footer.model_validate(data)
    except ValidationError as exc:
        raise ReplayError(name, n, f"bad footer: {_first_error(exc)}") from None
    if footer.events != seq:
        raise ReplayError(name, n, f"footer counts {footer.events} events, file has {seq}")
    return footer


def _event(name: str, n: int, data: dict[str, Any], seq: int, registry: EventRegistry) -> Event:
    try:
        event = registry.parse(data)
    except UnknownEventType as exc:
        hint = "" if "upgrade" in str(exc) else " (this battlesim does not know it; upgrade?)"
        raise ReplayError(name, n, f"{exc}{hint}", seq) from None
    except ValidationError as exc:
        raise ReplayError(name, n, f"bad event: {_first_error(exc)}", seq) from None
    if event.seq != seq:
        raise ReplayError(name, n, f"event has seq {event.seq}, expected {seq}", seq)
    return event
