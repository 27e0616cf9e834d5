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

__all__ = ["Mismatch", "VerifyResult", "first_mismatch", "verify"]


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

    @property
    def ok(self) -> bool:
        """True when the file is intact and re-simulates to the same bytes."""
        return self.damage is None and self.mismatch is None


def _fields_differ(a: dict[str, Any], b: dict[str, Any]) -> str:
    keys = sorted(set(a) | set(b), key=lambda k: (k not in a, k))
    changed = [k for k in keys if a.get(k, ...) != b.get(k, ...) and k != "h"]
    return ", ".join(changed[:6]) or "bytes"


def first_mismatch(recorded: list[str], resimulated: list[str]) -> Mismatch | None:
    """Return the first line where two replays' texts differ, or None."""
    for n, (a, b) in enumerate(zip(recorded, resimulated, strict=False), start=1):
        if a == b:
            continue
        da, db = json.loads(a), json.loads(b)
        seq = da.get("seq") if isinstance(da.get("seq"), int) else None
        what = "header" if n == 1 else ("footer" if da.get("footer") else f"event {da.get('type')}")
        return Mismatch(n, seq, f"{what} differs from re-simulation in: {_fields_differ(da, db)}")
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
    resimulate: Callable[[Replay], list[str]],
) -> VerifyResult:
    """Check a replay's integrity, then re-simulate it and compare every line.

    Args:
        path: the replay file.
        registry_for: event registry for the header's ruleset.
        resimulate: returns the lines a fresh simulation from the header writes;
            raises :class:`ReplayError` when the header cannot be simulated.
    """
    try:
        replay = read_replay(path, registry_for)
        lines = resimulate(replay)
    except ReplayError as exc:
        return VerifyResult(str(path), 0, damage=exc)
    mismatch = first_mismatch(replay.lines, lines)
    return VerifyResult(str(path), len(replay.events), mismatch=mismatch)
