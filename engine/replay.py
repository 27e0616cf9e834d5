"""Verify a replay: integrity of every line, then re-simulation, line by line."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engine.events import EventRegistry
from engine.log import Header
from engine.reader import Replay, ReplayError, read_replay

__all__ = ["Mismatch", "VerifyResult", "first_mismatch", "first_semantic_mismatch", "verify"]


@dataclass(frozen=True)
class Mismatch:
    """The first line where a replay and its re-simulation part.

    ``seq`` is None for the header and footer lines.
    """

    line: int
    seq: int | None
    reason: str


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

    @property
    def ok(self) -> bool:
        """True when the file is intact, lawful and re-simulates to the same events."""
        return self.damage is None and self.mismatch is None and self.violation is None


def _fields_differ(a: dict[str, Any], b: dict[str, Any]) -> str:
    keys = sorted(set(a) | set(b), key=lambda k: (k not in a, k))
    changed = [k for k in keys if a.get(k, ...) != b.get(k, ...) and k != "h"]
    return ", ".join(changed[:6]) or "bytes"


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
    """Return the first line where two replays' texts differ, or None.

    The reason also names the first turn whose state digest differs, which
    stays meaningful when the two logs' event counts have drifted apart.
    """
    for n, (a, b) in enumerate(zip(recorded, resimulated, strict=False), start=1):
        if a == b:
            continue
        da, db = json.loads(a), json.loads(b)
        seq = da.get("seq") if isinstance(da.get("seq"), int) else None
        what = "header" if n == 1 else ("footer" if da.get("footer") else f"event {da.get('type')}")
        reason = f"{what} differs from re-simulation in: {_fields_differ(da, db)}"
        turn = first_turn_apart(recorded, resimulated)
        if turn is not None:
            reason += f"; first turn whose state differs: {turn}"
        return Mismatch(n, seq, reason)
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


def first_semantic_mismatch(
    replay: Replay, resimulated: list[str], registry: EventRegistry
) -> Mismatch | None:
    """Compare an older-format replay with a re-simulation event by event, not byte by byte.

    An older file cannot match today's bytes, but where the rules did not
    change, its header fields (all but ``format_version``), its events once
    upcast and its footer equal today's.  Event types the old format did not
    have (``engine.snapshot``) are left out of the re-simulation and the
    ``seq``/``cause`` numbers renumbered to match.
    """
    fresh = read_lines_replay(resimulated, registry)
    old_header = replay.header.model_dump(exclude={"format_version"})
    new_header = fresh.header.model_dump(exclude={"format_version"})
    if old_header != new_header:
        return Mismatch(
            1,
            None,
            f"header differs from re-simulation in: {_fields_differ(old_header, new_header)}",
        )
    kept = [e for e in fresh.events if type(e).since_format <= replay.header.format_version]
    renumber = {e.seq: i for i, e in enumerate(kept)}
    for old, fresh_event in zip(replay.events, kept, strict=False):
        cause = renumber.get(fresh_event.cause, -1) if fresh_event.cause is not None else None
        new = fresh_event.model_copy(update={"seq": renumber[fresh_event.seq], "cause": cause})
        if old != new:
            a, b = old.model_dump(mode="json"), new.model_dump(mode="json")
            return Mismatch(
                old.seq + 2,
                old.seq,
                f"event {old.type} differs from re-simulation in: {_fields_differ(a, b)}",
            )
    if len(replay.events) != len(kept):
        n = min(len(replay.events), len(kept))
        return Mismatch(n + 2, n, f"{len(replay.events)} events recorded, {len(kept)} re-simulated")
    return _footer_mismatch(replay, resimulated[-1], len(kept))


def _footer_mismatch(replay: Replay, fresh_line: str, events: int) -> Mismatch | None:
    fresh = json.loads(fresh_line)
    assert replay.footer is not None  # read_replay refuses a file without one
    old = replay.footer.model_dump()
    new = {**{k: v for k, v in fresh.items() if k != "h"}, "events": events}
    if old != new:
        return Mismatch(
            len(replay.lines),
            None,
            f"footer differs from re-simulation in: {_fields_differ(old, new)}",
        )
    return None


def read_lines_replay(lines: list[str], registry: EventRegistry) -> Replay:
    """Parse lines written in memory (already trusted) into a :class:`Replay`."""
    header = Header.model_validate({k: v for k, v in json.loads(lines[0]).items() if k != "h"})
    events = [
        registry.parse({k: v for k, v in json.loads(x).items() if k != "h"}) for x in lines[1:-1]
    ]
    return Replay(path="<re-simulation>", header=header, events=events, lines=lines)


def verify(
    path: str | Path,
    registry_for: Callable[[Header], EventRegistry],
    resimulate: Callable[[Replay], list[str]],
    audit: Callable[[Replay], Mismatch | None] | None = None,
) -> VerifyResult:
    """Check a replay's integrity and invariants, then re-simulate it and compare.

    A file in today's format must re-simulate byte for byte; an older one
    (upcast on read) must re-simulate to the same events.

    Args:
        path: the replay file.
        registry_for: event registry for the header's ruleset.
        resimulate: returns the lines a fresh simulation from the header writes;
            raises :class:`ReplayError` when the header cannot be simulated.
        audit: the first event that breaks an invariant of the ruleset, or None.
    """
    try:
        replay = read_replay(path, registry_for)
        broken = audit(replay) if audit is not None else None
        if broken is not None:
            return VerifyResult(str(path), len(replay.events), violation=broken)
        lines = resimulate(replay)
    except ReplayError as exc:
        return VerifyResult(str(path), 0, damage=exc)
    if replay.current:
        mismatch = first_mismatch(replay.lines, lines)
    else:
        mismatch = first_semantic_mismatch(replay, lines, registry_for(replay.header))
    return VerifyResult(str(path), len(replay.events), mismatch=mismatch, upcast=not replay.current)
