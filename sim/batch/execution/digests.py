"""Each run's digests: its stored rows and kept replays bound to one value per run.

A run's row in ``run_digests`` holds four values, committed in the same
transaction as the run's rows:

* ``row``: the ``sha256:`` of a JSON text of the run's ``runs`` row — every
  column in order (ids, seed, status, winner, turns, losses, the draw columns,
  the outcome JSON), each value as the column's SQL type reads it back
  (a DOUBLE as a float, an integer as an int);
* ``units``: the digest of its unit rows, ordered by (battle, unit), the same way;
* ``replays``: its kept replays as canonical JSON, ``[[battle, "sha256:…"], …]``
  (the digest of each file's bytes), or null when none is kept;
* ``digest``: the digest of ``[run_id, row, units, replays]``.

The same function computes them from a chunk's rows on the worker that
fought them (:func:`sim.batch.execution.worker.run_chunk`; the study commits
them with the rows) and from the stored rows and files when ``verify`` reads
them back, so
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

import orjson

from engine.canonical import canonical_json, digest
from sim.batch.execution.rows import UNIT_COLUMNS, UNIT_KEYS

__all__ = [
    "DIGEST_COLUMNS",
    "RUN_COLUMNS",
    "UNIT_TYPES",
    "RunDigests",
    "digest_runs",
    "normal",
    "replay_digest",
    "run_digests",
    "run_types",
]

RUN_COLUMNS = {
    "run_id": "BIGINT",
    "point": "INTEGER",
    "replication": "INTEGER",
    "seed": "BIGINT",
    "status": "VARCHAR",
    "error": "VARCHAR",
    "winner": "VARCHAR",
    "winner_name": "VARCHAR",
    "reason": "VARCHAR",
    "turns": "INTEGER",
    "battles": "INTEGER",
}
"""The runs table's columns before the loss and draw columns (then ``outcome``)."""

UNIT_TYPES = {
    "run_id": "BIGINT",
    "battle": "INTEGER",
    "battle_id": "VARCHAR",
    "unit": "VARCHAR",
    "side": "VARCHAR",
    "kind": "VARCHAR",
    "initial": "DOUBLE",
    "strength": "DOUBLE",
    "strength_unit": "VARCHAR",
    "status": "VARCHAR",
    "details": "VARCHAR",
}
assert tuple(UNIT_TYPES) == UNIT_KEYS + UNIT_COLUMNS
"""The unit_rows table's columns and types."""


DIGEST_COLUMNS = {
    "run_id": "BIGINT",
    "row": "VARCHAR",
    "units": "VARCHAR",
    "replays": "VARCHAR",
    "digest": "VARCHAR",
}
"""The ``run_digests`` table's columns: one :data:`RunDigests` a row."""


def run_types(losses: int, draws: int) -> list[str]:
    """The runs table's column types: its fixed columns, the loss and draw columns, outcome."""
    return [*RUN_COLUMNS.values(), *["BIGINT"] * (losses + draws), "VARCHAR"]


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


def _hash(value: Any) -> str:
    """``sha256:`` of a JSON text of ``value``: orjson's when it can write it (the same text
    on both sides, which is all a digest needs), the canonical encoder's otherwise."""
    try:
        text = orjson.dumps(value)
    except (orjson.JSONEncodeError, TypeError):
        return digest(value)
    return "sha256:" + hashlib.sha256(text).hexdigest()


class _Normal:
    """Rows of one table's types made as DuckDB reads them back, at the cost of a few
    index lookups a row (DOUBLE columns as floats, whole floats in integer columns as ints)."""

    def __init__(self, types: Sequence[str]) -> None:
        self.width = len(types)
        self.doubles = [i for i, t in enumerate(types) if t == "DOUBLE"]
        self.integers = [i for i, t in enumerate(types) if t in ("BIGINT", "INTEGER")]

    def row(self, values: Sequence[Any]) -> list[Any]:
        if len(values) != self.width:
            raise ValueError(f"a row of {len(values)} values for {self.width} columns")
        out = list(values)
        for i in self.doubles:
            v = out[i]
            if v is not None and type(v) is not float:
                out[i] = float(v)
        for i in self.integers:
            v = out[i]
            if type(v) is float and v.is_integer():
                out[i] = int(v)
        return out


def run_digests(
    row: Sequence[Any],
    row_types: Sequence[str] | _Normal,
    units: Iterable[Sequence[Any]],
    unit_types: Sequence[str] | _Normal,
    replays: Sequence[tuple[str, str]] | None,
) -> RunDigests:
    """One run's digests from its runs row, its unit rows (ordered by battle, unit) and its
    kept replays ((battle, digest of the file), or None when none is kept)."""
    runs = row_types if isinstance(row_types, _Normal) else _Normal(row_types)
    unit = unit_types if isinstance(unit_types, _Normal) else _Normal(unit_types)
    run_id = int(row[0])
    row_part = _hash(runs.row(row))
    unit_part = _hash([unit.row(u) for u in units])
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
    runs_normal, units_normal = _Normal(run_types), _Normal(unit_types)
    for row in zip(*runs, strict=True):
        run_id = int(row[0])
        mine = sorted(by_run.get(run_id, []), key=lambda u: (u[1], u[3]))
        out.append(run_digests(row, runs_normal, mine, units_normal, kept.get(run_id)))
    return out
