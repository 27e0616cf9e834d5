"""A chunk's results as the study's table rows, built on the worker.

A worker turns each run into its row of the ``runs`` table (the outcome
already as canonical JSON, the losses already in their columns) and its
units' rows of ``unit_rows`` (each :class:`~sim.contract.UnitRow`'s side,
kind, measures and status words, its details already canonical JSON), and
returns a chunk's rows column by column in one :class:`ChunkRows`. The
study's process then only appends columns and hands them to DuckDB: its work
per run stays small, so it never becomes the bottleneck however many workers
feed it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import orjson

from engine.canonical import canonical_json

__all__ = [
    "UNIT_COLUMNS",
    "UNIT_KEYS",
    "ChunkRows",
    "Losses",
    "Packed",
    "outcome_json",
    "run_row",
]

UNIT_KEYS = ("run_id", "battle", "battle_id", "unit")
"""The columns that name a unit row: its run, battle (index, campaign id) and unit id."""

UNIT_COLUMNS = ("side", "kind", "initial", "strength", "strength_unit", "status", "details")
"""What a unit's final :class:`~sim.contract.UnitRow` holds, after :data:`UNIT_KEYS`: its
side and kind, the values of its initial and final strength and that measure's unit, its
status words joined by ``", "`` (as :meth:`~sim.contract.UnitRow.flat` joins them) and its
details as canonical JSON."""

Losses = tuple[tuple[str, str], ...]
"""(side, loss kind) of each loss column of the runs table, in order."""

Packed = tuple[int, bytes, bytes, bytes]
"""A chunk's runs counted, then its runs, unit rows and run digests in Arrow's column layout,
each table one byte string (:mod:`sim.batch.execution.columnar`)."""


_PLAIN = frozenset({str, int, bool, type(None)})
_NESTED = frozenset({dict, list, tuple})
_TEXT = frozenset({str})


def _plain(value: Any) -> bool:
    """Whether ``value`` is text, ints, booleans and null in dicts keyed by text and arrays."""
    if type(value) is dict:
        if not _TEXT.issuperset(map(type, value)):
            return False
        value = value.values()
    if _PLAIN.issuperset(map(type, value)):  # the usual case: flat, checked at C speed
        return True
    return all(type(v) in _PLAIN or (type(v) in _NESTED and _plain(v)) for v in value)


def outcome_json(outcome: dict[str, Any]) -> str:
    """:func:`engine.canonical.canonical_json` of an outcome (or a unit's details), by orjson
    when it writes the same.

    orjson writes text, ints, booleans and null exactly as the canonical
    encoder does (sorted keys, no spaces, ``ensure_ascii=False``: the domain
    :func:`engine.canonical.rows_json` relies on) at a tenth of the cost, but
    not every float, and it refuses ints beyond 64 bits and lone surrogates:
    an outcome holding a float or anything else goes to the canonical encoder,
    as does one orjson refuses.
    """
    if _plain(outcome):  # a dict (the caller's type), so the walk starts on its keys
        try:
            return orjson.dumps(outcome, option=orjson.OPT_SORT_KEYS).decode()
        except orjson.JSONEncodeError:
            pass
    return canonical_json(outcome)


def run_row(
    ids: tuple[int, int, int, int],
    status: str,
    error: str | None,
    outcome: dict[str, Any] | None,
    losses: Losses,
    draws: tuple[int | None, ...] = (),
) -> tuple[Any, ...]:
    """One row of the runs table: ``ids`` are (run id, point, replication, seed).

    ``draws``: each side's random draws (the ``<side>_draws`` columns, after the losses).
    """
    o = outcome or {}
    sides = o.get("sides", {})
    lost = [sides[sid]["losses"].get(kind) if sid in sides else None for sid, kind in losses]
    battles = len(o["battles"]) if "battles" in o else (1 if outcome else None)
    return (
        *ids,
        status,
        error,
        o.get("winner"),
        o.get("winner_name"),
        o.get("reason"),
        o.get("turns"),
        battles,
        *lost,
        *draws,
        outcome_json(outcome) if outcome is not None else None,
    )


def _columns(rows: Sequence[tuple[Any, ...]], width: int) -> list[list[Any]]:
    return [list(col) for col in zip(*rows, strict=True)] if rows else [[] for _ in range(width)]


@dataclass
class ChunkRows:
    """Rows of some whole chunks, column by column, and what the scheduler needs of them.

    Attributes:
        runs: one list per column of the runs table.
        units: one list per column of the unit_finals table.
        counts: runs by winner (``""`` a draw; None a failed run).
        replays: (run id, [(battle name, lines)]) of the runs whose replays are kept.
        cpu: CPU seconds the worker spent on these runs (paces commit points, see
            :mod:`sim.batch.storage.commits`; never part of the results).
        digests: each run's digests (:mod:`sim.batch.execution.digests`), made on the
            worker.
        packed: rows moved into Arrow's column layout, one :data:`Packed` a chunk
            (:func:`sim.batch.execution.columnar.pack`); they follow the rows of the
            Python columns, which a packed chunk leaves empty.
    """

    runs: list[list[Any]]
    units: list[list[Any]]
    counts: dict[str | None, int] = field(default_factory=dict)
    replays: list[tuple[int, list[tuple[str, list[str]]]]] = field(default_factory=list)
    cpu: float = 0.0
    digests: list[tuple[int, str, str, str | None, str]] = field(default_factory=list)
    packed: list[Packed] = field(default_factory=list)

    @classmethod
    def of(
        cls,
        runs: Sequence[tuple[Any, ...]],
        units: Sequence[tuple[Any, ...]],
        losses: Losses,
        replays: list[tuple[int, list[tuple[str, list[str]]]]] | None = None,
        cpu: float = 0.0,
        draws: int = 0,
    ) -> ChunkRows:
        """Rows given run by run, turned into columns and counted by winner.

        ``draws``: the number of draw columns each run row ends with.
        """
        counts: dict[str | None, int] = {}
        for row in runs:
            key = (row[6] or "") if row[4] == "done" else None  # winner, status
            counts[key] = counts.get(key, 0) + 1
        width = 12 + len(losses) + draws
        units_width = len(UNIT_KEYS) + len(UNIT_COLUMNS)
        columns = _columns(runs, width), _columns(units, units_width)
        return cls(*columns, counts, replays or [], cpu)

    def __len__(self) -> int:
        return len(self.runs[0]) + sum(p[0] for p in self.packed)

    def extend(self, other: ChunkRows) -> None:
        """Append another chunk's rows, CPU and digests (its counts and replays are not kept)."""
        self.cpu += other.cpu
        self.digests.extend(other.digests)
        self.packed.extend(other.packed)
        for mine, theirs in zip(self.runs, other.runs, strict=True):
            mine.extend(theirs)
        for mine, theirs in zip(self.units, other.units, strict=True):
            mine.extend(theirs)
