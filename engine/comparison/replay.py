"""Verify a replay: re-simulate it and compare line by line as the lines are written.

The recorded file is read as a stream (:class:`~engine.replayfile.reader.ReplayStream`):
each time the re-simulation writes a line, the next recorded line is read,
checked, audited and compared (:mod:`engine.comparison.compare`), so neither log is
ever held whole.  At the first difference the re-simulation goes on to the
end of that turn at most (to name it if its state digests differ), then
stops; the rest of the
recorded file is still read to its footer, because damage or a broken
invariant anywhere outranks a difference: damaged > invariant > mismatch.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from engine.comparison.compare import (
    Auditor,
    Compare,
    Mismatch,
    Recorded,
    SemanticCompare,
    Stop,
    _line_differs,
)
from engine.events import EventRegistry
from engine.log import Header, Sink
from engine.replayfile.formats import WRITTEN
from engine.replayfile.reader import ReplayError, ReplayStream

__all__ = [
    "Auditor",
    "Mismatch",
    "VerifyResult",
    "first_mismatch",
    "first_turn_apart",
    "verify",
]


@dataclass(frozen=True)
class VerifyResult:
    """Outcome of :func:`verify`: ``ok``, or the damage or mismatch found."""

    path: str
    events: int
    damage: ReplayError | None = None
    mismatch: Mismatch | None = None
    violation: Mismatch | None = None
    """The first event that breaks one of the ruleset's invariants."""
    upcast: bool = False
    """The file is in an older format: it was compared event by event."""
    older_rules: bool = False
    """The file is in today's format and holds events in the shapes of the rules version it
    was fought under (``Event.older_rules``): those were compared by value, the rest byte for
    byte."""
    resimulated: int = 0
    """Lines the re-simulation wrote before the comparison had its answer."""

    @property
    def ok(self) -> bool:
        """True when the file is intact, lawful and re-simulates to the same events."""
        return self.damage is None and self.mismatch is None and self.violation is None


def _turn_digests(lines: list[str]) -> dict[int, str]:
    out = {}
    for line in lines:
        # The substring test is only a quick filter: a unit may be named so.
        if '"engine.turn_ended"' in line:
            data = json.loads(line)
            if data.get("type") == "engine.turn_ended":
                out[data["turn"]] = data["state_digest"]
    return out


def first_turn_apart(recorded: list[str], resimulated: list[str]) -> int | None:
    """The first turn whose end-of-turn state digest differs (or is missing in one)."""
    a, b = _turn_digests(recorded), _turn_digests(resimulated)
    return next((t for t in sorted(set(a) | set(b)) if a.get(t) != b.get(t)), None)


def first_mismatch(recorded: list[str], resimulated: list[str]) -> Mismatch | None:
    """Return the first line where two replays' texts held in memory differ, or None."""
    for n, (a, b) in enumerate(zip(recorded, resimulated, strict=False), start=1):
        if a != b:
            seq, reason = _line_differs(n, a, b)
            turn = first_turn_apart(recorded, resimulated)
            if turn is not None:
                reason += f"; first turn whose state differs: {turn}"
            return Mismatch(n, seq, reason, turn)
    if len(recorded) != len(resimulated):
        n = min(len(recorded), len(resimulated)) + 1
        longer = "re-simulation" if len(resimulated) > len(recorded) else "recorded replay"
        return Mismatch(
            n,
            None,
            f"the {longer} has more lines "
            f"({len(recorded)} recorded, {len(resimulated)} re-simulated)",
        )
    return None


def verify(
    path: str | Path,
    registry_for: Callable[[Header], EventRegistry],
    resimulate: Callable[[Header, Sink], object],
    auditor: Callable[[Header], Auditor | None] | None = None,
) -> VerifyResult:
    """Check a replay's integrity and invariants while re-simulating it and comparing.

    A file in today's format must re-simulate byte for byte; an older one
    (upcast on read) must re-simulate to the same events.

    Args:
        path: the replay file.
        registry_for: event registry for the header's ruleset.
        resimulate: fights the battle of a header into a sink; raises
            :class:`ReplayError` when the header cannot be simulated.
        auditor: makes, for a header, the function that checks each recorded
            event against the ruleset's invariants (see :data:`Auditor`).
    """
    try:
        stream = ReplayStream(path, registry_for)
        recorded = Recorded(stream, auditor(stream.header) if auditor is not None else None)
    except ReplayError as exc:
        return VerifyResult(str(path), 0, damage=exc)
    current = stream.current
    sink: Compare | SemanticCompare = (
        Compare(recorded) if current else SemanticCompare(recorded, stream.registry)
    )
    failed: ReplayError | None = None
    try:
        resimulate(stream.header, sink)
        sink.finish()
    except Stop:
        pass
    except ReplayError as exc:
        failed = exc
    recorded.drain()
    older_rules = stream.header.format_version in WRITTEN and stream.upcast > 0
    return _result(
        str(path),
        recorded,
        sink,
        failed,
        upcast=not current or not stream.current,
        older_rules=older_rules,
    )


def _result(
    path: str,
    recorded: Recorded,
    sink: Compare | SemanticCompare,
    failed: ReplayError | None,
    *,
    upcast: bool,
    older_rules: bool = False,
) -> VerifyResult:
    """What verify found, in order: damage, a broken invariant, a mismatch."""
    if recorded.damage is not None or failed is not None:
        return VerifyResult(path, 0, damage=recorded.damage or failed)
    if recorded.violation is not None:
        return VerifyResult(path, recorded.events, violation=recorded.violation)
    return VerifyResult(
        path,
        recorded.events,
        mismatch=sink.reason(),
        upcast=upcast,
        older_rules=older_rules,
        resimulated=sink.n,
    )
