"""A study's chunks travel as Arrow record batches, and store exactly what Python columns do.

The worker packs a chunk's runs, unit rows and run digests into three record
batches (:mod:`sim.batch.execution.columnar`); a chunk holding a value Arrow
would store differently from DuckDB's own casts stays as Python columns. These
tests pin both paths to the same tables and digests, value for value.
"""

from __future__ import annotations

import pickle
import pickletools
import shutil
import struct
import sys
from pathlib import Path
from typing import Any

import duckdb
import pytest

from sim.batch.execution import columnar, worker
from sim.batch.execution.digests import DIGEST_COLUMNS, UNIT_TYPES, run_types
from sim.batch.execution.rows import ChunkRows
from sim.batch.execution.worker import Chunk, Shared, run_chunk, study_chunk
from sim.batch.inputs.target import load_target
from sim.batch.planning.design import Factor
from sim.batch.planning.plan import StudyPlan
from sim.batch.storage.store import Store
from sim.batch.study import RunOptions, run_study
from sim.replay.header import make_header
from tests.batch.helpers import STONE_WALL, imported_after, tables

TARGET = load_target(STONE_WALL)
LOSSES = (("usa", "men"), ("usa", "guns"), ("csa", "men"), ("csa", "guns"))
SIDES = ("usa", "csa")


def _chunk(runs: int = 20) -> Chunk:
    plan = StudyPlan(TARGET, seed=3, replications=runs, chunk_size=runs)
    return Chunk(Shared.of(TARGET, LOSSES, SIDES), 0, {}, tuple(plan.chunk_runs(0, 0)))


def test_a_study_chunk_is_three_record_batches_of_the_same_values() -> None:
    """20 runs of 7 units: one triple of batches of 20, 140 and 20 rows, no Python rows
    left to send; unpacked, every value equals run_chunk's (DOUBLE columns as floats), and
    the digests are the very strings run_chunk made."""
    plain, packed = run_chunk(_chunk()), study_chunk(_chunk())
    assert len(packed) == 20 and packed.counts == plain.counts
    width = len(run_types(len(LOSSES), len(SIDES))) + len(UNIT_TYPES)
    assert [len(c) for c in packed.runs + packed.units] == [0] * width
    assert packed.digests == []
    [(count, *streams)] = packed.packed
    runs, units, digests = (columnar.read(data) for data in streams)
    assert (count, runs.num_rows, units.num_rows, digests.num_rows) == (20, 20, 140, 20)
    back = columnar.unpack(packed)
    assert back.runs == plain.runs and back.units == plain.units
    assert back.digests == plain.digests
    doubles = [i for i, t in enumerate(UNIT_TYPES.values()) if t == "DOUBLE"]
    assert doubles and all(type(v) is float for i in doubles for v in back.units[i])


def _ops(rows: ChunkRows) -> int:
    """Pickle opcodes of ``rows``: the objects the study's process unpickles, roughly."""
    return sum(1 for _ in pickletools.genops(pickle.dumps(rows, pickle.HIGHEST_PROTOCOL)))


def test_a_packed_chunk_unpickles_as_a_few_buffers_however_many_rows() -> None:
    """What the pool sends back: the packed chunk's pickle is at most the values themselves
    (a string's UTF-8, 8 bytes a number) plus 4 bytes a cell and 8 KiB of schemas, and it
    holds as many pickled objects for 20 runs as for 4 (three byte strings), where the
    same rows as Python columns hold one or more per value."""
    plain, packed = run_chunk(_chunk()), study_chunk(_chunk())
    digests = [list(c) for c in zip(*plain.digests, strict=True)]
    columns = plain.runs + plain.units + digests
    payload = sum(len(v.encode()) if isinstance(v, str) else 8 for col in columns for v in col)
    cells = sum(len(c) for c in columns)
    assert len(pickle.dumps(packed, protocol=pickle.HIGHEST_PROTOCOL)) <= (
        payload + 4 * cells + 8192
    )
    assert _ops(packed) == _ops(study_chunk(_chunk(4)))
    assert _ops(plain) > cells > 10 * _ops(packed)


@pytest.mark.parametrize(
    ("values", "sql"),
    [
        ([1.6], "BIGINT"),  # DuckDB rounds it to 2; Arrow would truncate it to 1
        ([True], "INTEGER"),
        ([2**64], "BIGINT"),
        ([-(2**63) - 1], "BIGINT"),
        (["\ud800"], "VARCHAR"),  # a lone surrogate: no UTF-8
        ([5], "VARCHAR"),
        ([{"a": 1}], "VARCHAR"),
        (["1.5"], "DOUBLE"),
        ([1], "BOOLEAN"),
    ],
)
def test_a_value_arrow_would_store_otherwise_keeps_the_python_columns(
    values: list[Any], sql: str
) -> None:
    """No batch for a column holding a value that is not plain for its type, and a chunk
    with one is sent as it was made: its Python columns, untouched."""
    assert columnar.record_batch([values], [sql]) is None
    rows = ChunkRows([[7], values], [[]], {"usa": 1}, digests=[(7, "a", "b", None, "c")])
    kept = columnar.pack(rows, ["BIGINT", sql], ["VARCHAR"], list(DIGEST_COLUMNS.values()))
    assert kept.packed == [] and kept.runs == [[7], values]
    assert kept.digests == [(7, "a", "b", None, "c")]


def test_plain_values_and_nulls_make_a_batch_of_the_column_types() -> None:
    """Ints (with None) in BIGINT and INTEGER columns as int64, ints and floats in a DOUBLE
    one as float64, text (with None) as strings; read back, the same values."""
    batch = columnar.record_batch(
        [[1, None, 2**63 - 1], [3, 4, None], [1, 2.5, None], ["x", None, "é"]],
        ["BIGINT", "INTEGER", "DOUBLE", "VARCHAR"],
    )
    assert batch is not None
    assert [str(t) for t in batch.schema.types] == ["int64", "int64", "double", "string"]
    assert batch.to_pydict() == {
        "c0": [1, None, 2**63 - 1],
        "c1": [3, 4, None],
        "c2": [1.0, 2.5, None],
        "c3": ["x", None, "é"],
    }


def _plan() -> StudyPlan:
    return StudyPlan(
        TARGET,
        seed=11,
        replications=12,
        chunk_size=4,
        factors=(Factor(path="options.fire_hcv", values=[15, 35]),),
        keep_replays=1,
    )


def _digests(folder: Path) -> list[tuple[Any, ...]]:
    con = duckdb.connect(str(folder / "study.duckdb"), read_only=True)
    try:
        return con.execute("SELECT * FROM run_digests ORDER BY run_id").fetchall()
    finally:
        con.close()


def test_packed_python_and_mixed_chunks_store_the_same_tables(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The same study three ways — every chunk packed (as a pool's workers pack them),
    none (as a study fought in its own process sends them), and every other one (so one
    commit point holds both kinds) — stores the same tables, digests and summary."""
    options = RunOptions(jobs=1, plots=False, commit_seconds=float("inf"), commit_runs=10)
    run_study(_plan(), tmp_path / "python", options)
    monkeypatch.setattr("sim.batch.study.run_chunk", worker.study_chunk)
    run_study(_plan(), tmp_path / "packed", options)
    pack = worker.pack

    def every_other(rows: ChunkRows, *types: Any) -> ChunkRows:
        return pack(rows, *types) if rows.runs[0][0] % 8 == 0 else rows

    monkeypatch.setattr(worker, "pack", every_other)
    run_study(_plan(), tmp_path / "mixed", options)
    want = tables(tmp_path / "packed")
    assert len(want["runs"]) == 24 and len(want["unit_finals"]) == 24 * 7
    for other in ("python", "mixed"):
        assert tables(tmp_path / other) == want
        assert _digests(tmp_path / other) == _digests(tmp_path / "packed")
        summary = "summary.json"
        assert (tmp_path / other / summary).read_bytes() == (
            tmp_path / "packed" / summary
        ).read_bytes()


def test_a_study_store_takes_batches_with_external_access_off(tmp_path: Path) -> None:
    """Arrow batches reach the store through the connection battlesim opens (no file
    access, no extension autoloading), and those settings are still off afterwards."""
    plan = _plan()
    run_study(plan, tmp_path / "s", RunOptions(jobs=1, plots=False))
    store = Store.open(tmp_path / "s" / "study.duckdb")
    try:
        store.con.execute("DELETE FROM runs; DELETE FROM unit_rows; DELETE FROM run_digests")
        shared = Shared.of(TARGET, LOSSES, SIDES)
        rows = study_chunk(Chunk(shared, 1, {"options.fire_hcv": 35}, tuple(plan.chunk_runs(1, 2))))
        assert rows.packed
        store.commit(rows)
        counts = store.con.execute(
            "SELECT (SELECT count(*) FROM runs), (SELECT count(*) FROM unit_rows), "
            "(SELECT min(run_id) FROM run_digests), current_setting('enable_external_access'), "
            "current_setting('autoload_known_extensions')"
        ).fetchone()
        assert counts == (4, 28, plan.chunk_runs(1, 2)[0].run_id, False, False)
    finally:
        store.close()


def test_the_run_types_a_worker_packs_match_the_study_tables(tmp_path: Path) -> None:
    """The SQL types a worker packs each runs column as are the runs table's own."""
    run_study(_plan(), tmp_path / "s", RunOptions(jobs=1, plots=False))
    con = duckdb.connect(str(tmp_path / "s" / "study.duckdb"), read_only=True)
    try:
        stored = [
            r[0]
            for r in con.execute(
                "SELECT data_type FROM duckdb_columns() WHERE table_name = 'runs' "
                "ORDER BY column_index"
            ).fetchall()
        ]
    finally:
        con.close()
    assert stored == run_types(len(LOSSES), len(SIDES))


@pytest.mark.parametrize("seed", [0, 1, 2**63 - 1])
def test_a_prepared_point_heads_each_run_as_make_header_does(seed: int) -> None:
    """The header a prepared point copies for a run equals make_header's for that seed,
    field for field and in its canonical text (the replay's first line)."""
    prepared = worker.prepare(TARGET, {"options.fire_hcv": 35})
    assert prepared.scenario is not None
    ruleset, scenario = prepared.scenario
    made = make_header(ruleset, scenario, seed, source=TARGET.source)
    copied = prepared.header_for(seed)
    assert copied == made and copied.body() == made.body()
    assert prepared.header_for(seed + 1 if seed < 2**63 - 1 else 0).seed != seed


def test_an_older_study_resumed_by_packed_chunks_is_stored_in_its_own_shape(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A study of the shape before unit_rows (a unit_finals table of fixed columns) resumed
    by packed chunks: the batches are unpacked into its shape, and the study equals the
    same older study resumed by Python columns."""
    from tests.batch.test_unit_finals import _make_legacy

    plan = StudyPlan(TARGET, seed=7, replications=6, chunk_size=2)
    run_study(plan, tmp_path / "base", RunOptions(jobs=1, plots=False))
    _make_legacy(tmp_path / "base")
    con = duckdb.connect(str(tmp_path / "base" / "study.duckdb"))
    con.execute("DELETE FROM unit_finals WHERE run_id >= 2; DELETE FROM runs WHERE run_id >= 2")
    con.close()
    for name in ("python", "packed"):
        shutil.copytree(tmp_path / "base", tmp_path / name)
    resume = RunOptions(jobs=1, plots=False, resume=True)
    run_study(plan, tmp_path / "python", resume)
    monkeypatch.setattr("sim.batch.study.run_chunk", worker.study_chunk)
    assert run_study(plan, tmp_path / "packed", resume).ran == 4
    packed = tables(tmp_path / "packed")
    assert packed == tables(tmp_path / "python") and len(packed["unit_finals"]) == 6 * 7


def test_a_worker_packs_without_pyarrow_or_numpy() -> None:
    """A worker lays the buffers out with the standard library: importing the worker module
    and packing a chunk imports neither pyarrow nor NumPy (a tenth of a second of CPU each
    worker); the study's process, which reads the tables, does."""
    found = imported_after(
        "import sim.batch.execution.worker\n"
        "from sim.batch.execution.columnar import pack\n"
        "from sim.batch.execution.digests import DIGEST_COLUMNS\n"
        "from sim.batch.execution.rows import ChunkRows\n"
        "rows = ChunkRows([[1, 2], [0.5, None]], [['a', None]], {'usa': 2},\n"
        "                 digests=[(1, 'a', 'b', None, 'c'), (2, 'd', 'e', 'f', 'g')])\n"
        "types = list(DIGEST_COLUMNS.values())\n"
        "assert pack(rows, ['BIGINT', 'DOUBLE'], ['VARCHAR'], types).packed\n"
    )
    assert {m.split(".")[0] for m in found} & {"numpy", "pyarrow", "pandas"} == set()


@pytest.mark.parametrize("n", [0, 1, 7, 8, 9, 65])
def test_the_validity_bitmap_is_arrows(n: int) -> None:
    """Nulls at every third place of n values: the bitmap Arrow itself builds for the column
    (least significant bit first, the last byte padded with zeros)."""
    import pyarrow as pa

    values = [None if i % 3 == 0 else i for i in range(n)]
    batch = columnar.record_batch([values], ["BIGINT"])
    assert batch is not None and batch.column(0).to_pylist() == values
    theirs = pa.array(values, type=pa.int64())
    if theirs.null_count:
        mine = batch.column(0).buffers()[0]
        assert mine.to_pybytes() == theirs.buffers()[0].to_pybytes()[: (n + 7) // 8]


def _good() -> bytes:
    data = columnar.encode(
        [[1, None, 3], ["a", None, "é"], [0.5, 2, None]], ["BIGINT", "VARCHAR", "DOUBLE"]
    )
    assert data is not None
    return data


def _column_at(data: bytes, i: int, **change: int) -> bytes:
    """``data`` with column ``i``'s header fields (kind, nulls, valid, values, text) changed."""
    out = bytearray(data)
    at = columnar._HEAD.size + i * columnar._COLUMN.size
    names = ("kind", "nulls", "valid", "values", "text")
    fields = dict(zip(names, columnar._COLUMN.unpack_from(out, at), strict=True))
    columnar._COLUMN.pack_into(out, at, *(change.get(n, fields[n]) for n in names))
    return bytes(out)


@pytest.mark.parametrize(
    ("damage", "words"),
    [
        (lambda d: b"XXXX" + d[4:], "not a table"),
        (lambda d: d[:10], "not a table"),
        (lambda d: d[:-8], "ends inside it"),
        (lambda d: d + bytes(8), "bytes follow"),
        (lambda d: _column_at(d, 0, kind=7), "not a column"),
        (lambda d: _column_at(d, 0, nulls=2), "null_count"),
        (lambda d: _column_at(d, 0, nulls=0), "do not fit"),
        (lambda d: _column_at(d, 0, values=16), "do not fit"),
        (lambda d: _column_at(d, 2, text=8), "do not fit"),
    ],
)
def test_read_refuses_a_table_whose_parts_do_not_fit(damage: Any, words: str) -> None:
    """A wrong magic, a cut, trailing bytes, an unknown kind, a null count the bitmap does
    not bear out, buffers of the wrong size: ValueError, never a batch of wrong values."""
    assert columnar.read(_good()).to_pydict() == {
        "c0": [1, None, 3], "c1": ["a", None, "é"], "c2": [0.5, 2.0, None],
    }  # fmt: skip
    with pytest.raises(ValueError, match=words):
        columnar.read(damage(_good()))


def test_read_refuses_string_offsets_out_of_order() -> None:
    """Offsets that run backwards are refused by Arrow's full validation (a scan in C)."""
    data = bytearray(columnar.encode([["ab", "c"]], ["VARCHAR"]) or b"")
    at = columnar._HEAD.size + columnar._COLUMN.size
    at += -at % 8
    data[at + 4 : at + 8] = (3).to_bytes(4, "little")  # offsets 0, 3, 3 for "abc"
    data[at + 8 : at + 12] = (1).to_bytes(4, "little")  # ... now 0, 3, 1
    with pytest.raises(ValueError, match="column 0"):
        columnar.read(bytes(data))


def test_a_big_endian_machine_writes_and_reads_little_endian(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """With the numbers swapped on the way out and back in (what a big-endian machine does),
    the byte string holds the swapped numbers and reads back as the same values; bitmaps
    and text are never swapped."""
    columns, types = (
        [[1, None, 2**40], ["é", None, "b"], [0.5, None, -3.0]],
        ["BIGINT", "VARCHAR", "DOUBLE"],
    )
    plain = columnar.encode(columns, types)
    monkeypatch.setattr(columnar, "_SWAP", True)
    swapped = columnar.encode(columns, types)
    assert swapped is not None and plain is not None and swapped != plain
    assert (2**40).to_bytes(8, "big") in swapped and "é".encode() in swapped
    assert columnar.read(swapped).to_pydict() == {
        "c0": columns[0],
        "c1": columns[1],
        "c2": columns[2],
    }


def test_the_batch_benchmarks_instant_workers_send_tables_the_store_reads() -> None:
    """``make bench-batch``'s workers that answer at once re-pack a chunk for each run id:
    the study stores them (a smoke test of the benchmark, not a timing)."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
    try:
        import bench_batch
    finally:
        sys.path.pop(0)
    assert bench_batch.parent_alone(8)["commit_points"] == 1


def test_read_refuses_offsets_that_do_not_span_the_text_and_rows_without_columns() -> None:
    """Offsets must start at 0 and end at the text's length (``encode`` writes nothing else:
    [1, 2, 3] over "xab" would drop the "x"), and a table of rows has a column."""
    head = columnar._HEAD.pack(columnar._MAGIC, 2, 1)
    head += columnar._COLUMN.pack(columnar._STRING, 0, 0, 12, 3)
    head += bytes(-len(head) % 8)
    for offsets in ((1, 2, 3), (0, 1, 2)):
        numbers = struct.pack("<iii", *offsets)
        data = head + numbers + bytes(-len(numbers) % 8) + b"xab" + bytes(5)
        with pytest.raises(ValueError, match="offsets do not span its text"):
            columnar.read(data)
    good = struct.pack("<iii", 0, 1, 3)
    assert columnar.read(head + good + bytes(4) + b"xab" + bytes(5)).to_pydict() == {
        "c0": ["x", "ab"]
    }
    with pytest.raises(ValueError, match="5 rows without a column"):
        columnar.read(columnar._HEAD.pack(columnar._MAGIC, 5, 0) + bytes(4))


def test_encode_refuses_columns_of_different_lengths() -> None:
    """A caller's mistake is named where it is made, not on the coordinator."""
    with pytest.raises(ValueError, match="one length"):
        columnar.encode([[1, 2], [3]], ["BIGINT", "BIGINT"])
