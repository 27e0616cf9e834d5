"""The sinks ``verify`` re-simulates into: each written line is compared as it comes.

:class:`Compare` (today's format: text, line by line) and
:class:`SemanticCompare` (an older format: event by event, once upcast)
pull the recorded file through :class:`Recorded` one line per line written,
so neither log is ever held whole.  A sink raises :class:`Stop` to end the
re-simulation once it has its answer.
"""

from __future__ import annotations

import bisect
import json
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from engine.canonical import canonical_json
from engine.comparison.jsondiff import diff
from engine.events import Event, EventRegistry, TurnEnded
from engine.log import Header
from engine.replayfile.reader import ReplayError, ReplayStream

__all__ = ["AuditRaised", "Auditor", "Compare", "Mismatch", "Recorded", "SemanticCompare", "Stop"]


@dataclass(frozen=True)
class Mismatch:
    """The first line where a replay and its re-simulation part.

    ``seq`` is None for the header and footer lines; ``turn_apart`` is the first turn whose
    end-of-turn state differs, when one was found (``reason`` ends by naming it).
    """

    line: int
    seq: int | None
    reason: str
    turn_apart: int | None = None


Auditor = Callable[[Event], "Mismatch | None"]
"""Called with each recorded event in order: the first broken invariant, else None."""


class AuditRaised(Exception):
    """What an :data:`Auditor` raises when its checks raised on an event: ``error``, the
    failure as the checks' own, is raised as it is when the line is the re-simulation's (the
    rules made that event: their checks are wrong), and ``reason`` is the broken invariant
    when it is not (the file's line cannot follow the battle so far), in words."""

    def __init__(self, error: Exception, reason: str) -> None:
        super().__init__(reason)
        self.error, self.reason = error, reason


def _canonical(data: Any) -> str:
    """``data``'s canonical JSON: equal only when the written values are (``4`` is not ``4.0``)."""
    return canonical_json(data)


def _differ(a: dict[str, Any], b: dict[str, Any], key: str) -> bool:
    return key not in a or key not in b or _canonical(a[key]) != _canonical(b[key])


def _first_apart(a: Any, b: Any, depth: int = 0) -> str | None:
    """The dotted path of the first value two mappings hold apart (keys in the line's
    order, ``draws`` first: a draw more or less is the usual cause of the rest; then list
    items by index), or None when they are not both mappings or lists that part below
    the top: where in a ``scenario`` or a ``result`` the two lines differ."""
    if depth > 8:
        return None
    if isinstance(a, dict) and isinstance(b, dict):
        keys = [*a, *(k for k in b if k not in a)]
        for k in sorted(keys, key=lambda k: k != "draws"):  # stable: the line's order
            if k not in a or k not in b:
                return str(k)
            if _canonical(a[k]) != _canonical(b[k]):
                below = _first_apart(a[k], b[k], depth + 1)
                return str(k) if below is None else f"{k}.{below}"
        return None
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            if _canonical(x) != _canonical(y):
                below = _first_apart(x, y, depth + 1)
                return str(i) if below is None else f"{i}.{below}"
    return None


def _fields_differ(a: dict[str, Any], b: dict[str, Any]) -> str:
    keys = sorted(set(a) | set(b), key=lambda k: (k not in a, k != "draws", k))  # draws first
    changed = [
        k
        for k in keys
        if k != "h" and (k not in a or k not in b or _canonical(a[k]) != _canonical(b[k]))
    ]
    named = []
    for k in changed[:6]:
        below = _first_apart(a[k], b[k]) if k in a and k in b else None
        named.append(k if below is None else f"{k}.{below}")
    return ", ".join(named) or "bytes"


def _upcast_note(text: str, recorded: Event, registry: EventRegistry, differing: str) -> str:
    """For a recorded line stored at an older schema version than its class's, whose
    upcasters made a field that differs: that the difference may be theirs (a mismatch of
    an upcast line said only the field, as if the rules had changed it); else ``""``."""
    data = {k: v for k, v in json.loads(text).items() if k != "h"}
    stored = data.get("schema_version")
    if type(stored) is not int or stored >= recorded.schema_version:
        return ""
    upcast = registry.upcast(recorded.type, dict(data))
    made = [c.path for c in diff(data, upcast) if c.path != "schema_version"]
    apart = differing.split(", ")
    made = [m for m in made if any(m == d or m.startswith(f"{d}.") or d.startswith(f"{m}.")
                                   for d in apart)]  # fmt: skip
    if not made:
        return ""
    return (
        f" (recorded at schema version {stored} and upcast to {recorded.schema_version} on "
        f"reading, its upcasters making {', '.join(made)}: a difference there may be theirs)"
    )


def _unsealed(line: str) -> str:
    """A line without its chain link (``,"h":"…"``)."""
    at = line.rfind(',"h":')
    return line if at < 0 else line[:at]


def _line_differs(n: int, a: str, b: str) -> tuple[int | None, str]:
    """The seq (None: header or footer) and reason of two differing lines."""
    da, db = json.loads(a), json.loads(b)
    seq = da.get("seq") if isinstance(da.get("seq"), int) else None
    what = "header" if n == 1 else ("footer" if da.get("footer") else f"event {da.get('type')}")
    return seq, f"{what} differs from re-simulation in: {_fields_differ(da, db)}"


class Stop(Exception):
    """Raised by a comparing sink to end the re-simulation: the comparison has its answer.

    Carries no arguments: SimPy re-creates a process's exception from its type and args.
    """


class Recorded:
    """The recorded file, pulled one line at a time: chain, strict parse, audit."""

    def __init__(self, stream: ReplayStream, audit: Auditor | None) -> None:
        self.stream = stream
        self.audit = audit
        self.events = 0
        self.lines = 1  # the header, read on opening
        self.violation: Mismatch | None = None
        self.damage: ReplayError | None = None
        self._lines = stream.lines()
        self._footer_given = False
        self.matched = False
        """The last event line read was the ``same`` given to :meth:`next`."""

    def next(
        self, same: bytes | None = None, given: Event | None = None
    ) -> tuple[str, Event | None] | None:
        """The next line's text and event (None for the footer); None after the footer.

        Args:
            same: the line (without newline) a re-simulation has just written
                here, every earlier line having been equal to its own: a
                recorded line equal to it is not checked again
                (:meth:`ReplayStream._written`); see :attr:`matched`.
            given: the event the re-simulation serialised as ``same``: a
                recorded line equal to ``same`` has it as its event (audited
                and folded as the file's own), not one built again.
        """
        stream = self.stream
        stream.expect = None if same is None else same + b"\n"
        stream.given = given
        line = next(self._lines, None)
        stream.expect = stream.given = None
        if line is None:
            if self._footer_given or self.stream.footer is None:
                return None
            self._footer_given = True
            self.lines += 1
            return self.stream.footer_line, None
        self.matched = line.same
        event = self.stream.parse(line)
        self.events += 1
        self.lines += 1
        if self.violation is None and self.audit is not None:
            try:
                self.violation = self.audit(event)
            except AuditRaised as raised:
                if self.matched:  # the re-simulation's own line: the auditor failed, not the file
                    raise raised.error from raised.__cause__
                self.violation = Mismatch(self.lines, event.seq, raised.reason)
            except Exception as exc:
                if self.matched:
                    raise
                self.violation = Mismatch(
                    self.lines, event.seq, f"cannot follow from the battle so far ({exc})"
                )
        return line.text, event

    def turns(self) -> Iterator[tuple[int, str]]:
        """The remaining turn ends as (turn, state digest)."""
        while (found := self.next()) is not None:
            if isinstance(found[1], TurnEnded):
                yield found[1].turn, found[1].state_digest

    def drain(self) -> None:
        """Read (check, audit) the rest of the file, keeping any damage found."""
        try:
            while self.next() is not None:
                pass
        except ReplayError as exc:
            self.damage = self.damage or exc


class Compare:
    """A sink comparing each re-simulated line with the next recorded one as it is written.

    It takes the writer's bytes, and each event with its line
    (:meth:`write_event`); until the first difference a recorded event line
    equal to the re-simulation's is not checked or built again: the
    re-simulation's event, whose serialisation those bytes are, is audited
    and folded as the file's (:meth:`Recorded.next`).
    """

    takes_bytes = True
    takes_events = True

    def __init__(self, recorded: Recorded) -> None:
        self.recorded = recorded
        self.n = 0
        self.mismatch: Mismatch | None = None
        self._sim: deque[tuple[int, str]] = deque()
        self._rec: deque[tuple[int, str]] = deque()
        self._rec_turns = recorded.turns()
        self._apart: int | None = None
        self._limit = 0
        """The turn of the first difference: the re-simulation goes no further."""
        self._older_seen = False
        """A recorded line in an older shape was found to hold the re-simulated event: the
        hash chains differ from there on, so later lines are compared without their links."""

    def write(self, written: bytes | str, event: Event | None = None) -> None:
        """Compare one written line (bytes, as the log gives them; text is taken too)."""
        if isinstance(written, str):
            written = written.encode()
        self.n += 1
        try:
            if self.mismatch is None:
                self._compare(written, event)
            else:
                self._turn(written.decode())
        except ReplayError as exc:
            self.recorded.damage = exc
            raise Stop from None

    def write_event(self, written: bytes, event: Event) -> None:
        """Compare one event line, handed with the event it serialises (:class:`EventLog`)."""
        self.write(written, event)

    def _compare(self, written: bytes, event: Event | None) -> None:
        found: tuple[str, Event | None] | None = None
        if self.n == 1:
            text: str | None = self.recorded.stream.header_line
        else:
            found = self.recorded.next(same=written, given=event)
            if found is not None and found[1] is not None and self.recorded.matched:
                return
            text = found[0] if found is not None else None
        line = written.decode()
        if text is None:
            reason = f"the re-simulation has more lines ({self.n - 1} recorded)"
            self.mismatch = Mismatch(self.n, None, reason)
            raise Stop
        if text == line:
            return
        if self._older_seen and _unsealed(text) == _unsealed(line):
            return  # after a line in an older shape the chains part: each link is the reader's
        older = (
            None if found is None or found[1] is None else self._older_shape(text, found[1], line)
        )
        if older == "":
            self._older_seen = True
            return
        seq, reason = _line_differs(self.n, text, line)
        if older is not None and found is not None and found[1] is not None:  # values, not shapes
            kind = json.loads(text).get("type")
            reason = f"event {kind} differs from re-simulation in: {older}"
            reason += _upcast_note(text, found[1], self.recorded.stream.registry, older)
        self.mismatch = Mismatch(self.n, seq, reason)
        turn = json.loads(text).get("turn")
        if seq is None or type(turn) is not int:  # the header or the footer: no turn to look at
            raise Stop
        self._limit = turn
        self._note(text, self._rec)
        self._turn(line)

    def _older_shape(self, text: str, recorded: Event, line: str) -> str | None:
        """For a recorded line stored at an older schema version — the shape of the rules
        version the file was fought under (``Event.older_rules``), which the reader took —
        the fields whose values differ from the re-simulated event's, ``""`` when none does
        (the re-simulation writes today's shape); None for a line in today's shape, whose
        bytes alone can match."""
        stored = json.loads(text).get("schema_version")
        if stored == type(recorded).model_fields["schema_version"].default:
            return None
        data = {k: v for k, v in json.loads(line).items() if k != "h"}
        a = recorded.model_dump(mode="json")
        b = self.recorded.stream.registry.parse(data).model_dump(mode="json")
        return "" if _canonical(a) == _canonical(b) else _fields_differ(a, b)

    @staticmethod
    def _note(line: str, into: deque[tuple[int, str]]) -> None:
        if '"engine.turn_ended"' in line:
            data = json.loads(line)
            if data.get("type") == "engine.turn_ended":
                into.append((data["turn"], data["state_digest"]))

    def _turn(self, line: str) -> None:
        """After the first difference: do the digests differ at the end of its turn?

        The re-simulation stops at the end of the turn of the first
        difference (or earlier, once a turn apart is known).
        """
        self._note(line, self._sim)
        if not self._sim:
            return
        ended = self._sim[-1][0] >= self._limit
        if self._apart_found(sim_done=False) or ended:
            raise Stop

    def _apart_found(self, *, sim_done: bool) -> bool:
        """Merge the turn ends of both sides; True once the first turn apart is known."""
        while True:
            if not self._sim and not sim_done:
                return False
            if not self._rec:
                got = next(self._rec_turns, None)
                if got is not None:
                    self._rec.append(got)
            ts = self._sim[0] if self._sim else None
            tr = self._rec[0] if self._rec else None
            if ts is not None and tr is not None and ts == tr:
                self._sim.popleft()
                self._rec.popleft()
                continue
            if ts is None and tr is None:
                return True
            self._apart = min(t[0] for t in (ts, tr) if t is not None)
            return True

    def finish(self) -> None:
        """The re-simulation ended: the last comparisons."""
        if self.mismatch is None:
            if self.recorded.next() is not None:
                self.mismatch = Mismatch(self.n + 1, None, "the recorded replay has more lines")
            return
        if self._apart is None:
            self._apart_found(sim_done=True)

    def reason(self) -> Mismatch | None:
        """The mismatch, its reason naming the first turn apart when there is one."""
        m = self.mismatch
        if m is None or self._apart is None:
            return m
        reason = f"{m.reason}; first turn whose state differs: {self._apart}"
        return Mismatch(m.line, m.seq, reason, self._apart)

    def flush(self) -> None:
        pass

    def close(self) -> None:
        pass


class SemanticCompare:
    """A sink comparing an older-format replay with today's re-simulation event by event.

    An older file cannot match today's bytes, but where the rules did not
    change, its header fields (all but ``format_version``), its events once
    upcast and its footer equal today's.  Event types the old format did not
    have (``engine.snapshot``) are left out of the re-simulation and the
    ``seq``/``cause`` numbers renumbered to match.
    """

    def __init__(self, recorded: Recorded, registry: EventRegistry) -> None:
        self.recorded, self.registry = recorded, registry
        self.version = recorded.stream.header.format_version
        self.mismatch: Mismatch | None = None
        self.n = 0
        self.kept = 0
        self._skipped: list[int] = []
        self._first = True

    def write(self, line: str) -> None:
        self.n += 1
        data = {k: v for k, v in json.loads(line).items() if k != "h"}
        try:
            if self._first:
                self._first = False
                self._header(data)
            elif "footer" in data:
                self._footer(data)
            else:
                self._event(data)
        except ReplayError as exc:
            self.recorded.damage = exc
            raise Stop from None
        if self.mismatch is not None:
            raise Stop

    def _header(self, data: dict[str, Any]) -> None:
        old = self.recorded.stream.header.model_dump(mode="json", exclude={"format_version"})
        new = Header.model_validate(data).model_dump(mode="json", exclude={"format_version"})
        if _canonical(old) != _canonical(new):  # exact: 4 is not 4.0
            reason = f"header differs from re-simulation in: {_fields_differ(old, new)}"
            self.mismatch = Mismatch(1, None, reason)

    def _renumber(self, seq: int) -> int:
        return seq - bisect.bisect_left(self._skipped, seq)

    def _event(self, data: dict[str, Any]) -> None:
        fresh = self.registry.parse(data)
        if type(fresh).since_format > self.version:
            self._skipped.append(fresh.seq)
            return
        cause = self._cause(fresh.cause) if fresh.cause is not None else None
        new = fresh.model_copy(update={"seq": self._renumber(fresh.seq), "cause": cause})
        found = self.recorded.next()
        old = found[1] if found is not None else None
        self.kept += 1
        if old is None:
            n = self.kept - 1
            reason = f"{self.recorded.events} events recorded, more re-simulated"
            self.mismatch = Mismatch(n + 2, n, reason)
        else:
            a, b = old.model_dump(mode="json"), new.model_dump(mode="json")
            if _canonical(a) != _canonical(b):  # exact: an Any field's 4 is not 4.0
                differing = _fields_differ(a, b)
                reason = f"event {old.type} differs from re-simulation in: {differing}"
                if found is not None:
                    reason += _upcast_note(found[0], old, self.registry, differing)
                self.mismatch = Mismatch(old.seq + 2, old.seq, reason)

    def _cause(self, cause: int) -> int:
        """A cause renumbered; -1 when it named an event the old format did not have."""
        i = bisect.bisect_left(self._skipped, cause)
        if i < len(self._skipped) and self._skipped[i] == cause:
            return -1
        return cause - i

    def _footer(self, data: dict[str, Any]) -> None:
        found = self.recorded.next()
        if found is not None and found[1] is not None:
            n = self.kept
            reason = f"{n + 1 + self._rest()} events recorded, {n} re-simulated"
            self.mismatch = Mismatch(n + 2, n, reason)
            return
        footer = self.recorded.stream.footer
        assert footer is not None  # the stream refuses a file that ends without one
        old = footer.model_dump()
        new = {**data, "events": self.kept}
        if old != new:
            reason = f"footer differs from re-simulation in: {_fields_differ(old, new)}"
            self.mismatch = Mismatch(self.recorded.lines, None, reason)

    def _rest(self) -> int:
        """Read the recorded events left; how many there were."""
        before = self.recorded.events
        while (found := self.recorded.next()) is not None and found[1] is not None:
            pass
        return self.recorded.events - before

    def finish(self) -> None:
        pass

    def reason(self) -> Mismatch | None:
        return self.mismatch

    def flush(self) -> None:
        pass

    def close(self) -> None:
        pass
