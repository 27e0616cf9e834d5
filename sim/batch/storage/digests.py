"""Each run's digests: its stored rows and kept replays bound to one value per run.

A run's row in ``run_digests`` holds four values, committed in the same
transaction as the run's rows:

* ``row``: :func:`engine.canonical.digest` of the run's ``runs`` row — every
  column in order (ids, seed, status, winner, turns, losses, the draw columns,
  the outcome JSON), each value as the column's SQL type reads it back
  (a DOUBLE as a float, an integer as an int);
* ``units``: the digest of its unit rows, ordered by (battle, unit), the same way;
* ``replays``: its kept replays as canonical JSON, ``[[battle, "sha256:…"], …]``
  (the digest of each file's bytes), or null when none is kept;
* ``digest``: the digest of ``[run_id, row, units, replays]``.

The same function computes them from a chunk's rows as the study commits
them and from the stored rows and files when ``verify`` reads them back, so
a stored value edited without its digest (``UPDATE unit_rows SET
strength = 0``) or a kept replay changed is caught and named without
re-fighting. The digests are no secret: whoever edits a run *and* recomputes
its digests with battlesim's code is caught only by fighting the run again
(docs/batch.md, *What verify proves*).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from typing import Any

from engine.canonical import canonical_json, digest

__all__ = ["RunDigests", "digest_runs", "normal", "replay_digest", "run_digests"]

RunDigests = tuple[int, str, str, str | None, str]
"""(run id, row, units, replays, digest): one row of ``run_digests``."""


def normal(value: Any, sql: str) -> Any:
    """``value`` as a column of type ``sql`` reads it back (None stays None)."""
    if value is None:
        return None
    if sql == "DOUBLE":
        return float(value)
    if sql in ("BIGINT", "INTEGER") and type(value) is float and value.is_integer():
        return int(value)
    return value


def replay_digest(data: bytes) -> str:
    """The digest of a kept replay's bytes."""
    return "sha256:" + hashlib.sha256(data).hexdigest()


def run_digests(
    row: Sequence[Any],
    row_types: Sequence[str],
    units: Iterable[Sequence[Any]],
    unit_types: Sequence[str],
    replays: Sequence[tuple[str, str]] | None,
) -> RunDigests:
    """One run's digests from its runs row, its unit rows (ordered by battle, unit) and its
    kept replays ((battle, digest of the file), or None when none is kept)."""
    run_id = int(row[0])
    row_part = digest([normal(v, t) for v, t in zip(row, row_types, strict=True)])
    unit_part = digest([[normal(v, t) for v, t in zip(u, unit_types, strict=True)] for u in units])
    kept = None if replays is None else canonical_json([list(r) for r in replays])
    return run_id, row_part, unit_part, kept, digest([run_id, row_part, unit_part, kept])


def digest_runs(
    runs: Sequence[list[Any]],
    run_types: Sequence[str],
    units: Sequence[list[Any]],
    unit_types: Sequence[str],
    replays: Iterable[tuple[int, Sequence[tuple[str, Sequence[str]]]]],
) -> list[RunDigests]:
    """The digests of a chunk's runs, given column by column as the study commits them.

    ``replays``: (run id, [(battle, lines)]) of the runs whose replays are kept,
    each written as ``line + "\\n"`` in UTF-8 (as :func:`write_replays` writes them).
    """
    kept = {
        run_id: [
            (battle, replay_digest("".join(f"{line}\n" for line in lines).encode("utf-8")))
            for battle, lines in battles
        ]
        for run_id, battles in replays
    }
    by_run: dict[int, list[tuple[Any, ...]]] = {}
    for unit in zip(*units, strict=True):
        by_run.setdefault(int(unit[0]), []).append(unit)
    out = []
    for row in zip(*runs, strict=True):
        run_id = int(row[0])
        mine = sorted(by_run.get(run_id, []), key=lambda u: (u[1], u[3]))
        out.append(run_digests(row, run_types, mine, unit_types, kept.get(run_id)))
    return out
