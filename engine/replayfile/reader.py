"""Read a replay file as a stream: the header, then one line at a time, every line checked.

:class:`ReplayStream` reads the header when opened, then yields the file's
event lines one by one: each line's hash-chain link is checked as it comes
(:func:`engine.replayfile.checks._link`), and each line a reader asks for is parsed
with every strict check of :mod:`engine.replayfile.checks` (exact JSON, exact shape of
its format version, its ``seq``, a cause that is an earlier event).  The
footer is checked at the end (its event count, nothing after it); a file
without one is incomplete.  Memory holds one line at a time.

A reader that needs only part of a battle (``show --turn``) *scans*: it
checks the chain of every line but parses only the lines it uses; a line
that does not look exactly like the writer's event line with the expected
``seq`` is always parsed in full.  :func:`read_replay` reads a whole file
into a :class:`Replay` (every line parsed) for small uses and tests.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Generator, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from engine.events import Event, EventRegistry, UnknownEventType
from engine.log import GENESIS, Footer, Header
from engine.replayfile import formats
from engine.replayfile.checks import (
    _HEADER_MARK,
    _TAIL_LEN,
    MAX_LINE,
    Kind,
    ReplayError,
    _event,
    _event_fast,
    _footer,
    _forks_reached,
    _header,
    _link,
    _looks_like_replay,
    _open,
    _registry,
)
from engine.replayfile.checks import _TAIL as _LINK
from engine.replayfile.formats import schema_version_in
from engine.replayfile.lines import LineSource
from engine.safety.files import MAX_INPUT, FileProblem

__all__ = ["MAX_LINE", "Line", "Mark", "Replay", "ReplayError", "ReplayStream", "read_replay"]

_PREFIX = re.compile(
    r'\{"type":"([a-z0-9_.]{1,200})","schema_version":(\d{1,9}),"seq":(\d{1,18}),'
    r'"turn":(\d{1,18}),"time":[-+.0-9eE]{1,40},"cause":(null|\d{1,18})[,}]'
)
"""The start of an event line as the writer writes it: type, schema version, seq, turn, cause."""
_TAIL = len(',"h":"') + 32 + len('"}')
"""Characters of a line's chain link, ``,"h":"<32 hex>"}``."""


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
        """True when the file is in a format the writer writes: no upcasting was needed."""
        return self.header.format_version in formats.WRITTEN and self.upcast == 0


@dataclass(frozen=True)
class Mark:
    """Where a stream can start again: an event line, its byte offset, the hash before it."""

    line: int
    offset: int
    previous: str
    seq: int
    turn: int


class Line:
    """One event line whose chain link is checked: its text, and the event once parsed."""

    __slots__ = ("_cause", "body", "data", "event", "mark", "same", "text", "type")

    def __init__(
        self, mark: Mark, text: str, body: str, kind: str | None, cause: int | None = None
    ) -> None:
        self.mark, self.text, self.body, self.type, self._cause = mark, text, body, kind, cause
        self.data: dict[str, Any] | None = None
        self.event: Event | None = None
        self.same = False
        """The line is byte for byte the one the reader was told to expect (``expect``)."""

    @property
    def seq(self) -> int:
        """The line's seq (the one expected there: a line with another is refused when parsed)."""
        return self.mark.seq

    @property
    def cause(self) -> int | None:
        """The cause the writer's prefix names (the parsed event's, once parsed)."""
        return self.event.cause if self.event is not None else self._cause

    @property
    def turn(self) -> int:
        """The turn the writer's prefix names (the parsed event's, once parsed)."""
        return self.event.turn if self.event is not None else self.mark.turn


def _whole(header: bytes) -> bool:
    """Whether a header line without its newline is whole: its hash-chain link holds."""
    try:
        _link("", 1, header.decode("utf-8"), GENESIS, None)
    except (ReplayError, UnicodeDecodeError):
        return False
    return True


class ReplayStream:
    """A replay file read line by line; the header is read and checked on opening.

    Args:
        path: the replay file.
        registry_for: returns the event registry of the header's ruleset.
        allow_truncated: a file without a footer ends quietly instead of raising.

    Raises:
        ReplayError: (on opening) the file cannot be read, is not a replay,
            or its header is damaged, newer or unknown.
    """

    def __init__(
        self,
        path: str | Path,
        registry_for: Callable[[Header], EventRegistry],
        *,
        allow_truncated: bool = False,
    ) -> None:
        self.path = self.name = str(path)
        self.allow_truncated = allow_truncated
        self.footer: Footer | None = None
        self.footer_line = ""
        """The footer's text, once read."""
        self.upcast = 0
        """Events stored in an older schema version, upcast as they were parsed."""
        self.parsed = 0
        """Event lines parsed in full so far (the work a partial reader saved is the rest)."""
        self.expect: bytes | None = None
        """The next line's bytes as a writer has just written them (``verify``), or None.

        Set before asking :meth:`lines` for the next line; read and cleared
        there.  See :meth:`_written`.
        """
        self.given: Event | None = None
        """The event the writer serialised as :attr:`expect`, when it handed it over.

        Set with :attr:`expect` by the same caller, which clears it again; a
        line equal to :attr:`expect` is given this object as its event
        instead of one built again from the same bytes (:meth:`_written`).
        """
        try:
            self._source = LineSource(path, limit=MAX_INPUT, max_line=MAX_LINE)
        except FileProblem as exc:
            raise ReplayError(self.name, 0, str(exc), kind="unreadable") from None
        first, self.header_line = self._first()
        self.header, self._after_header = _header(self.name, first, self._source.gzipped)
        self.registry = _registry(self.name, self.header, registry_for)
        self._versions: dict[str, int | None] = {}
        self._fast: dict[str, Any] = {}
        """The compiled decoder of each type read through :meth:`_written` (None: none)."""
        self._data: dict[str, Any] = {}
        """The footer's data, once read."""
        self._classes: dict[str, type[Event] | None] = {}
        """The registered class of each type read through :meth:`_written` with a given event."""

    def _first(self) -> tuple[str, str]:
        """The header line's text (with and without newline), refused if it is not a replay's."""
        lines = self._raw((1, 0))
        raw = next(lines, (0, 0, b""))[2]
        if raw and not raw.endswith(b"\n"):
            next(lines, None)  # the file's last line: the source says if its gzip was cut
        lines.close()
        cut = not raw.endswith(b"\n") and raw.startswith(b'{"engine_version":')
        if cut and _HEADER_MARK in raw:
            raise ReplayError(
                self.name,
                1,
                "incomplete: the file ends after its header, which is whole but does not end "
                "with a newline: no event and no footer (a run stopped while writing?)"
                if _whole(raw)
                else "incomplete: the header was cut short",
                kind="incomplete",
            )
        if not raw.endswith(b"\n") and self._source.cut_short:  # a gzip stream cut short
            raise ReplayError(
                self.name,
                1,
                "incomplete: the gzip stream was cut short in its first line",
                kind="incomplete",
            )
        if not _looks_like_replay(raw):
            what = "empty file: not a battlesim replay" if not raw else "not a battlesim replay"
            if raw.startswith(b"\xef\xbb\xbf") and _looks_like_replay(raw[3:]):
                # an editor's save: the bytes the hash chain covers are not the replay's any more
                what += (
                    ": it starts with a UTF-8 byte-order mark, which battlesim never writes "
                    "(was it saved by an editor?)"
                )
            raise ReplayError(self.name, 1, what, kind="not_replay")
        text = self._text(1, raw, None)
        return text, text

    def _raw(self, start: tuple[int, int]) -> Generator[tuple[int, int, bytes], None, None]:
        try:
            yield from self._source.lines(start)
        except FileProblem as exc:
            kind: Kind = "unreadable" if "more than" in str(exc) else "damaged"
            raise ReplayError(self.name, 0, str(exc), kind=kind) from None

    def _text(self, n: int, raw: bytes, seq: int | None, *, last: bool = False) -> str:
        """The line's text without its newline. ``last``: a last line without one is
        returned as it is (the caller tells a whole line from one cut short)."""
        if len(raw) - raw.endswith(b"\n") > MAX_LINE:
            raise ReplayError(self.name, n, "line too long", seq)
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            raise ReplayError(self.name, n, "not UTF-8 text") from None
        if not text.endswith("\n"):
            if last:
                return text
            raise self._cut_short(n)
        return text[:-1]

    def _cut_short(self, n: int) -> ReplayError:
        """A last line with no newline that is not a whole line: a crash mid-write."""
        return ReplayError(
            self.name,
            n,
            "incomplete: the last line was cut short (a run stopped while writing?)",
            n - 2 if n >= 2 else None,
            kind="incomplete",
        )

    def _no_newline(self, n: int, body: str, seq: int) -> ReplayError:
        """A last line whole to its hash-chain link but without the ``\\n`` every line of a
        replay ends with: after the footer, the file lacks only that byte (an editor's save,
        a copy one byte short); after an event, the footer is missing too."""
        if body.startswith('{"footer":'):
            return ReplayError(
                self.name,
                n,
                "the file does not end with a newline: its last line, the footer, is whole, "
                "but every line of a replay ends with one, the last too (was it saved by an "
                "editor?)",
                seq,
            )
        return ReplayError(
            self.name,
            n,
            "incomplete: the last line is whole but does not end with a newline, and no "
            "footer follows (a run stopped while writing?)",
            seq,
            kind="incomplete",
        )

    def lines(self, start: Mark | None = None) -> Iterator[Line]:
        """Yield each event line from ``start`` (default: the first), its chain link checked.

        A line not in the writer's exact event form, with the seq expected
        there, is parsed at once (``Line.event`` set); others wait for
        :meth:`parse`.  The footer is checked when reached.

        Raises:
            ReplayError: a damaged line, a bad footer, or no footer.
        """
        if start is None:
            start = Mark(2, len(self.header_line.encode()) + 1, self._after_header, 0, 0)
        previous, seq, n = start.previous, start.seq, start.line - 1
        footer: Footer | None = None
        for n, offset, raw in self._raw((start.line, start.offset)):
            if footer is not None:
                raise ReplayError(self.name, n, "unexpected line after the footer")
            expect, self.expect = self.expect, None
            if expect is not None and raw == expect and raw.startswith(b'{"type":"'):
                same = self._written(Mark(n, offset, previous, seq, -1), raw)
                previous = same.text[-34:-2]
                seq += 1
                yield same
                continue
            text = self._text(n, raw, seq, last=True)
            if not raw.endswith(b"\n"):  # the file's last line
                try:
                    body, _ = _link(self.name, n, text, previous, seq)
                except ReplayError:
                    if _LINK.fullmatch(text[-_TAIL_LEN:]):  # whole, yet damaged
                        raise
                    raise self._cut_short(n) from None
                raise self._no_newline(n, body, seq)
            body, h = _link(self.name, n, text, previous, seq)
            line = self._line(Mark(n, offset, previous, seq, -1), text, body)
            previous = h
            if line is None:
                footer = self.footer = _footer(self.name, n, body, self._data, seq)
                _forks_reached(self.name, n, self.header, seq)
                self.footer_line = text
                continue
            seq += 1
            yield line
        if footer is not None and self._source.cut_short and not self.allow_truncated:
            raise ReplayError(
                self.name,
                n,
                "incomplete: the gzip stream was cut short after the footer "
                "(its CRC-32 and length missing: the file was truncated)",
                seq,
                kind="incomplete",
            )
        if footer is None and not self.allow_truncated:
            after = f"seq {seq - 1}" if seq > 0 else "the header"
            none = "no event and no footer" if seq == 0 else "no footer"
            raise ReplayError(
                self.name,
                n + 1,
                f"incomplete: {none} after {after} (a run stopped before the end?)",
                seq,
                kind="incomplete",
            )

    def _line(self, mark: Mark, text: str, body: str) -> Line | None:
        """The line at ``mark`` (chain checked); None for the footer (its data in ``_data``).

        In the writer's exact event prefix with the expected seq and schema
        version and an earlier cause, it waits to be parsed; otherwise it is
        parsed now.
        """
        seq = mark.seq
        m = _PREFIX.match(body)
        cause = None if m is None or m[5] == "null" else int(m[5])
        if (
            m is not None
            and int(m[3]) == seq
            and self._expected(m[1]) == int(m[2])
            and (cause is None or cause < seq)
        ):
            at = Mark(mark.line, mark.offset, mark.previous, seq, int(m[4]))
            return Line(at, text, body, m[1], cause)
        data = _open(self.name, mark.line, text, body, seq)
        if "footer" in data:
            self._data = data
            return None
        line = Line(mark, text, body, None)
        line.data = data
        self.parse(line)
        return line

    def _written(self, mark: Mark, raw: bytes) -> Line:
        """An event line that is byte for byte the writer's line just written for it.

        Only :func:`engine.comparison.replay.verify` sets :attr:`expect`: to the line its
        re-simulation wrote at this place, every earlier line of the file
        having been the re-simulation's too, from the header on.  Then nothing
        about this line is left to check: it is the writer's exact
        serialisation (strict JSON, the exact shape of today's format, the
        expected seq, a lawful cause), and its chain link is the writer's,
        sealed after the same previous line.  Its event is the one the writer
        serialised into these bytes when it handed that over (:attr:`given`,
        an instance of the class this file's registry reads the line's type
        with, at this seq); else it is built from the decoded values alone
        (the auditor folds it), and a class the compiled decoder does not
        read is parsed as any line is.
        """
        text = raw[:-1].decode("utf-8")
        body = text[:-_TAIL] + "}"
        kind = text[9 : text.index('"', 9)]
        line = Line(mark, text, body, kind)
        given = self.given
        if given is not None and given.seq == mark.seq and type(given) is self._class(kind):
            line.event, line.same = given, True
            return line
        from engine.replayfile.decoders import decode_written, fast_decoder  # noqa: PLC0415 - msgspec

        if kind in self._fast:
            fast = self._fast[kind]
        else:
            fast = self._fast[kind] = fast_decoder(self.registry, kind)
        event = decode_written(fast, raw[: -_TAIL - 1] + b"}") if fast is not None else None
        if event is None:  # read as any line is
            line = self._line(mark, text, body) or line  # an event line: never None
            event = self.parse(line)
        line.event, line.same = event, True
        return line

    def _class(self, kind: str) -> type[Event] | None:
        """The class this file's registry reads ``kind`` with (None: not registered)."""
        try:
            return self._classes[kind]
        except KeyError:
            try:
                found: type[Event] | None = self.registry.cls(kind)
            except UnknownEventType:
                found = None
            self._classes[kind] = found
            return found

    def _expected(self, kind: str) -> int | None:
        """The schema version this file's format writes ``kind`` at; None for an unknown type."""
        if kind not in self._versions:
            try:
                cls = self.registry.cls(kind)
            except UnknownEventType:
                self._versions[kind] = None
            else:
                if self.header.format_version < cls.since_format:
                    self._versions[kind] = None
                else:
                    self._versions[kind] = schema_version_in(self.header.format_version, cls)
        return self._versions[kind]

    def parse(self, line: Line) -> Event:
        """The line's event, parsed with every strict check (once).

        Raises:
            ReplayError: the line is not a lawful event of this file's format.
        """
        if line.event is not None:
            return line.event
        mark = line.mark
        data = line.data
        if data is None and line.type is not None:
            fast = _event_fast(
                line.body, mark.seq, self.registry, line.type, self.header.format_version
            )
            if fast is not None:
                self.parsed += 1
                line.event = fast
                return fast
        if data is None:
            data = _open(self.name, mark.line, line.text, line.body, mark.seq)
        event = _event(
            self.name,
            mark.line,
            (line.body, data),
            mark.seq,
            self.registry,
            self.header.format_version,
            self.header.ruleset_version,
        )
        self.parsed += 1
        self.upcast += data["schema_version"] != event.schema_version
        line.event, line.data = event, None
        return event

    def events(self, start: Mark | None = None) -> Iterator[Event]:
        """Yield every event from ``start`` (default: the first), each parsed in full."""
        for line in self.lines(start):
            yield self.parse(line)

    @property
    def current(self) -> bool:
        """True when the file is in a format the writer writes (so far: nothing upcast).

        Format 4 counts: its shape is today's, and a battle begun in it is
        re-simulated in it (:func:`engine.replayfile.formats.resimulation_format`).
        """
        return self.header.format_version in formats.WRITTEN and self.upcast == 0


def read_replay(
    path: str | Path,
    registry_for: Callable[[Header], EventRegistry],
    *,
    allow_truncated: bool = False,
) -> Replay:
    """Read and check a whole replay into memory (every line parsed).

    Args:
        path: the replay file.
        registry_for: returns the event registry of the header's ruleset.
        allow_truncated: return the readable prefix of a file with no footer
            instead of raising.

    Raises:
        ReplayError: the first damaged line, named by line and seq.
    """
    stream = ReplayStream(path, registry_for, allow_truncated=allow_truncated)
    replay = Replay(path=stream.name, header=stream.header, lines=[stream.header_line])
    for line in stream.lines():
        replay.events.append(stream.parse(line))
        replay.lines.append(line.text)
    replay.footer, replay.upcast = stream.footer, stream.upcast
    if stream.footer is not None:
        replay.lines.append(stream.footer_line)
    return replay
