"""The study's own work stays small: commit points, bulk appends, compact chunks, cached points.

These tests count work — transactions, INSERT statements, pickled bytes,
scenario validations — never time: the commit clock is switched off
(``commit_seconds`` infinite) so commit points come from counts alone.
"""

from __future__ import annotations

import json
import math
import pickle
from collections import OrderedDict
from pathlib import Path
from typing import Any

import duckdb
import pytest

from engine import garbage
from engine.canonical import canonical_json
from sim.batch.execution import worker
from sim.batch.execution.worker import Chunk, Shared, run_chunk
from sim.batch.inputs.target import load_target
from sim.batch.planning.design import Factor
from sim.batch.planning.plan import StudyPlan
from sim.batch.storage import append, store
from sim.batch.storage.store import Store
from sim.batch.study import RunOptions, StudyError, StudyIncomplete, run_study
from tests.batch.helpers import STONE_WALL, tables

TARGET = load_target(STONE_WALL)
NEVER = math.inf
"""No commit point from the clock: only from counts."""


def _plan(**kw: Any) -> StudyPlan:
    base: dict[str, Any] = {
        "target": TARGET,
        "seed": 4,
        "replications": 20,
        "factors": (Factor(path="options.fire_hcv", values=[15, 35]),),
        "chunk_size": 5,
    }
    return StudyPlan(**(base | kw))


def _count_commits(monkeypatch: pytest.MonkeyPatch) -> dict[str, int]:
    """Count Store.commit transactions and the INSERT statements of the chunks' rows from
    here on: of Arrow record batches (``batches``) and of Python columns holding rows
    (``columns``; ``fallback`` those of them that took DuckDB's list casts)."""
    calls = {"commit": 0, "batches": 0, "columns": 0, "fallback": 0}
    commit, insert, batches = Store.commit, append.insert_columns, append.insert_batches

    def counted_commit(self: Store, rows: Any, *digests: Any) -> None:
        calls["commit"] += 1
        commit(self, rows, *digests)

    def counted_insert(con: Any, table: str, columns: Any, types: Any) -> None:
        if columns and columns[0]:
            calls["columns"] += 1
            calls["fallback"] += append._frame(columns, types) is None
        insert(con, table, columns, types)

    def counted_batches(con: Any, table: str, found: Any, types: Any) -> None:
        calls["batches"] += 1
        batches(con, table, found, types)

    monkeypatch.setattr(Store, "commit", counted_commit)
    monkeypatch.setattr(store, "insert_columns", counted_insert)
    monkeypatch.setattr(store, "insert_batches", counted_batches)
    return calls


def _packed_inline(monkeypatch: pytest.MonkeyPatch) -> None:
    """Chunks fought in this process packed as a pool's workers pack them (Arrow batches)."""
    monkeypatch.setattr("sim.batch.study.run_chunk", worker.study_chunk)


@pytest.mark.parametrize(
    ("packed", "want"),
    [
        (False, {"commit": 3, "batches": 0, "columns": 6, "fallback": 0}),
        (True, {"commit": 3, "batches": 9, "columns": 0, "fallback": 0}),
    ],
)
def test_commit_points_batch_whole_chunks_into_one_insert_a_table(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, packed: bool, want: dict[str, int]
) -> None:
    """40 runs in 8 chunks of 5, a commit point every 15 runs waiting: after chunks 3 and 6
    (15 runs each) and at the end (10 runs) — 3 transactions of one INSERT a table: runs
    and unit rows as NumPy columns when fought in this process (the digests apart), or
    runs, unit rows and digests as Arrow batches when packed as a pool's workers pack
    them; the tables equal those of a commit after every chunk."""
    if packed:
        _packed_inline(monkeypatch)
    calls = _count_commits(monkeypatch)
    batched = RunOptions(jobs=1, plots=False, commit_seconds=NEVER, commit_runs=15)
    run_study(_plan(), tmp_path / "batched", batched)
    assert calls == want
    calls.update(commit=0, batches=0, columns=0)
    run_study(_plan(), tmp_path / "each", RunOptions(jobs=1, plots=False, commit_seconds=0))
    assert calls["commit"] == 8
    assert tables(tmp_path / "batched") == tables(tmp_path / "each")
    pooled = RunOptions(jobs=2, plots=False, commit_seconds=NEVER, commit_runs=10_000)
    run_study(_plan(), tmp_path / "pooled", pooled)  # one commit point, at the end
    assert calls["commit"] == 8 + 1
    assert tables(tmp_path / "pooled") == tables(tmp_path / "each")
    summary = "summary.json"
    assert (tmp_path / "batched" / summary).read_bytes() == (
        tmp_path / "each" / summary
    ).read_bytes()


@pytest.mark.parametrize("packed", [False, True])
def test_a_failed_commit_point_keeps_none_of_its_chunks_and_resume_completes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, packed: bool
) -> None:
    """The second commit point's unit finals fail to insert: its 3 chunks are all absent,
    the first commit point's 3 are whole, and --resume gives the uninterrupted tables —
    with the rows as Python columns, and as Arrow batches."""
    name, nth = ("insert_batches", 5) if packed else ("insert_columns", 4)
    if packed:  # runs, unit rows, digests a commit point; else runs, unit rows
        _packed_inline(monkeypatch)
    insert = getattr(append, name)
    seen = {"inserts": 0}

    def failing(con: Any, table: str, *args: Any) -> None:
        seen["inserts"] += 1
        if seen["inserts"] == nth:  # the second commit point's unit rows
            assert table == "unit_rows"
            raise duckdb.IOException("injected: disk full")
        insert(con, table, *args)

    monkeypatch.setattr(store, name, failing)
    options = RunOptions(jobs=1, plots=False, commit_seconds=NEVER, commit_runs=15)
    with pytest.raises(StudyError, match=r"study\.duckdb: injected: disk full"):
        run_study(_plan(), tmp_path / "s", options)
    runs = tables(tmp_path / "s")["runs"]
    # chunk 0 of both points and chunk 1 of point 0 (rounds across points): the first point
    assert [(r[1], r[2]) for r in runs] == [(0, r) for r in range(10)] + [(1, r) for r in range(5)]
    assert len(tables(tmp_path / "s")["unit_finals"]) == 15 * 7
    monkeypatch.setattr(store, name, insert)
    run_study(_plan(), tmp_path / "s", RunOptions(jobs=1, plots=False, resume=True))
    run_study(_plan(), tmp_path / "whole", RunOptions(jobs=1, plots=False))
    assert tables(tmp_path / "s") == tables(tmp_path / "whole")


def test_a_lost_worker_still_writes_the_chunks_committed_before(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A worker failure after 3 chunks (clock off, nothing due): those 15 runs are written
    before the study reports the loss, and the message counts them."""
    real = worker.run_chunk
    done = {"chunks": 0}

    def dies(chunk: Chunk) -> Any:
        done["chunks"] += 1
        if done["chunks"] == 4:
            raise OSError("worker lost")
        return real(chunk)

    monkeypatch.setattr("sim.batch.study.run_chunk", dies)
    options = RunOptions(jobs=1, plots=False, commit_seconds=NEVER, commit_runs=1000)
    with pytest.raises(StudyIncomplete, match="the 15 runs committed are kept"):
        run_study(_plan(), tmp_path, options)
    assert len(tables(tmp_path)["runs"]) == 15


def _payload(rows: list[list[Any]]) -> int:
    """Bytes of the values themselves: a string's UTF-8, 8 for a number, 1 for None."""
    size = 0
    for col in rows:
        for v in col:
            size += len(v.encode()) if isinstance(v, str) else 1 if v is None else 8
    return size


def test_a_chunk_travels_as_compact_columns() -> None:
    """Pickled, a 20-run chunk's rows cost at most the values themselves plus 2 bytes a cell
    and 2 KiB for the chunk; the chunk sent costs the shared target once plus 64 bytes a run."""
    plan = _plan(factors=(), replications=20, chunk_size=20)
    shared = Shared.of(TARGET, (("usa", "men"), ("usa", "guns"), ("csa", "men"), ("csa", "guns")))
    chunk = Chunk(shared, 0, {}, tuple(plan.chunk_runs(0, 0)))
    rows = run_chunk(chunk)
    assert len(rows) == 20 and len(rows.units[0]) == 20 * 7 and rows.replays == []
    cells = sum(len(c) for c in rows.runs + rows.units)
    sent = len(pickle.dumps(rows, protocol=pickle.HIGHEST_PROTOCOL))
    assert sent <= _payload(rows.runs + rows.units) + 2 * cells + 2048
    outcome = rows.runs[-1][0]
    assert isinstance(outcome, str) and canonical_json(json.loads(outcome)) == outcome  # no model
    assert len(pickle.dumps(chunk)) <= len(shared.blob) + 64 * 20


def test_a_worker_validates_each_design_point_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """Eight chunks of two points in one worker: the shared target is unpickled once and
    each point's scenario validated once, not once per chunk or per run."""
    monkeypatch.setattr(worker, "_PREPARED", OrderedDict())
    monkeypatch.setattr(worker, "_OPENED", OrderedDict())
    calls = {"validate": 0, "loads": 0}
    validate, loads = worker.validate_data, worker.pickle.loads

    def counted_validate(*args: Any) -> Any:
        calls["validate"] += 1
        return validate(*args)

    def counted_loads(data: bytes) -> Any:
        calls["loads"] += 1
        return loads(data)

    monkeypatch.setattr(worker, "validate_data", counted_validate)
    monkeypatch.setattr(worker.pickle, "loads", counted_loads)
    plan = _plan(replications=8, chunk_size=2)
    shared = Shared.of(TARGET, ())
    for j in range(plan.chunks()):
        for p, values in enumerate(plan.design_points()):
            run_chunk(Chunk(shared, p, values, tuple(plan.chunk_runs(p, j))))
    assert calls == {"validate": 2, "loads": 1}


def test_columns_go_through_numpy_or_lists_with_the_same_stored_values() -> None:
    """Plain ints (with None), strings (with None) take the NumPy path; a float or a bool in an
    integer column, or an int beyond 64 bits, takes DuckDB's list casts; both store alike."""
    con = duckdb.connect()
    con.execute("CREATE TABLE t (a BIGINT, b INTEGER, s VARCHAR)")
    plain = [[1, None, 2**62], [None, 7, -3], ["x", None, "é"]]
    assert append._frame(plain, ["BIGINT", "INTEGER", "VARCHAR"]) is not None
    append.insert_columns(con, "t", plain)
    assert con.execute("SELECT * FROM t").fetchall() == [
        (1, None, "x"),
        (None, 7, None),
        (2**62, -3, "é"),
    ]
    for odd in ([[1.6], [1], ["y"]], [[True], [1], ["y"]], [[1], [1], [5]]):
        assert append._frame(odd, ["BIGINT", "INTEGER", "VARCHAR"]) is None
    con.execute("DELETE FROM t")
    append.insert_columns(con, "t", [[1.6, True], [2, 3], [5, "z"]])
    assert con.execute("SELECT * FROM t").fetchall() == [(2, 2, "5"), (1, 3, "z")]
    with pytest.raises(duckdb.Error):
        append.insert_columns(con, "t", [[2**64], [1], ["y"]])


def test_every_battle_a_worker_fights_gives_the_collector_one_look(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The engine's paced collector looks once per battle fought (the end of its frozen
    heap); a point that does not validate fights none."""
    looks = {"n": 0}
    monkeypatch.setattr(garbage.PACED, "check", lambda: looks.__setitem__("n", looks["n"] + 1))
    plan = _plan(replications=2, chunk_size=2)
    shared = Shared.of(TARGET, ())
    run_chunk(Chunk(shared, 0, {}, tuple(plan.chunk_runs(0, 0))))
    bad = {"sides.csa.units.cobb.strength": 0}
    rows = run_chunk(Chunk(shared, 0, bad, tuple(plan.chunk_runs(0, 0))))
    assert looks["n"] == 2 and rows.counts == {None: 2}
