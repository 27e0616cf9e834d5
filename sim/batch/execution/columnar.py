"""A chunk's rows as Arrow record batches: what a study's worker sends its coordinator.

A worker builds its chunk's ``runs``, ``unit_rows`` and ``run_digests`` rows
as Python columns (:class:`~sim.batch.execution.rows.ChunkRows`) and, for a
study, packs each table's columns into one Arrow record batch here
(:func:`pack`), each written as an Arrow IPC stream: three byte strings a
chunk. They travel back through the executor (a local pool's pipe or Dask's
transport) as three objects to unpickle instead of one or more per value, and
the study's process reads them without copying (:func:`read`) and hands them
to DuckDB as they are (:func:`sim.batch.storage.append.insert_batches`): its
own work per run is then a share of one bulk insert scanned at C speed. No
file is written or read on the way, and Arrow's IPC format is data only.

A column is packed only when its values are plain for its SQL type, the same
rule the NumPy path of :mod:`sim.batch.storage.append` follows: ``int`` (or
None) for an integer column, ``int`` and ``float`` for a DOUBLE one, ``str``
for a VARCHAR one. A chunk holding any other value (a float or a bool in an
integer column, an int beyond 64 bits, text Arrow cannot encode) is sent as
Python columns, and the store casts those as it always did, so what is stored
never depends on the path. The run digests are made from the Python values
before packing (:mod:`sim.batch.execution.digests`), exactly as before.
"""

from __future__ import annotations

from collections.abc import Sequence
from importlib import import_module
from typing import Any

from sim.batch.execution.rows import ChunkRows, Packed

__all__ = ["arrow", "arrow_type", "pack", "read", "record_batch", "unpack"]

_NONE = type(None)
_INTEGERS = frozenset({"BIGINT", "INTEGER"})
_KINDS = {
    "VARCHAR": frozenset({str, _NONE}),
    "BIGINT": frozenset({int, _NONE}),
    "INTEGER": frozenset({int, _NONE}),
    "DOUBLE": frozenset({int, float, _NONE}),
}


def arrow() -> Any:
    """The ``pyarrow`` module (a study's extra, imported where it is used; untyped: Any)."""
    return import_module("pyarrow")


def arrow_type(sql: str) -> Any:
    """The Arrow type a column of SQL type ``sql`` is packed as (the store casts it back)."""
    pa = arrow()
    if sql in _INTEGERS:
        return pa.int64()
    if sql == "DOUBLE":
        return pa.float64()
    return pa.string()


_MAX_TEXT = 2**31 - 1
"""Bytes an Arrow ``string`` column's 32-bit offsets can address."""


def _array(col: list[Any], sql: str) -> Any:
    """One column as an Arrow array built from its buffers.

    Built from NumPy buffers rather than by ``pyarrow.array``, whose first call
    on a list imports pandas (about a third of a second of CPU in every
    worker). Raises OverflowError (an int beyond 64 bits), UnicodeEncodeError
    (a lone surrogate) or ValueError (too much text for one column).
    """
    pa, np = arrow(), import_module("numpy")
    nulls = col.count(None)  # the column holds no type that equals None but None
    valid = None
    if nulls:
        present = np.array([v is not None for v in col], dtype=bool)
        valid = pa.py_buffer(np.packbits(present, bitorder="little"))
    if sql == "VARCHAR":
        encoded = [b"" if v is None else v.encode("utf-8") for v in col]
        offsets = np.zeros(len(col) + 1, dtype=np.int64)
        np.cumsum([len(b) for b in encoded], out=offsets[1:])
        if offsets[-1] > _MAX_TEXT:
            raise ValueError("more text than one Arrow string column holds")
        buffers = [valid, pa.py_buffer(offsets.astype(np.int32)), pa.py_buffer(b"".join(encoded))]
        return pa.Array.from_buffers(pa.string(), len(col), buffers, null_count=nulls)
    dtype = np.int64 if sql in _INTEGERS else np.float64
    filled = [0 if v is None else v for v in col] if nulls else col
    values = np.array(filled, dtype=dtype) if col else np.zeros(0, dtype=dtype)
    return pa.Array.from_buffers(
        arrow_type(sql), len(col), [valid, pa.py_buffer(values)], null_count=nulls
    )


def record_batch(columns: Sequence[list[Any]], types: Sequence[str]) -> Any:
    """``columns`` (one list per column, of SQL ``types``) as a record batch of columns
    ``c0, c1, …``, or None when a value is not plain for its column (see the module)."""
    arrays = []
    for col, sql in zip(columns, types, strict=True):
        kinds = _KINDS.get(sql)
        if kinds is None or not kinds.issuperset(map(type, col)):
            return None
        try:
            arrays.append(_array(col, sql))
        except (OverflowError, UnicodeError, ValueError):
            return None  # beyond 64 bits, a lone surrogate: the store's list casts decide
    names = [f"c{i}" for i in range(len(arrays))]
    return arrow().RecordBatch.from_arrays(arrays, names=names)


def _stream(batch: Any) -> bytes:
    """A record batch as an Arrow IPC stream (its schema, then the batch)."""
    pa = arrow()
    sink = pa.BufferOutputStream()
    with pa.ipc.new_stream(sink, batch.schema) as writer:
        writer.write_batch(batch)
    return bytes(sink.getvalue().to_pybytes())


def read(data: bytes) -> Any:
    """The record batch of an IPC stream :func:`pack` wrote (its buffers not copied)."""
    pa = arrow()
    return pa.ipc.open_stream(pa.py_buffer(data)).read_next_batch()


def pack(
    rows: ChunkRows,
    run_types: Sequence[str],
    unit_types: Sequence[str],
    digest_types: Sequence[str],
) -> ChunkRows:
    """``rows`` with its runs, unit rows and digests moved into Arrow record batches
    (as IPC streams, with the number of runs: :data:`~sim.batch.execution.rows.Packed`).

    The Python columns are emptied (kept as empty lists, one per column) so
    the rows are sent once; counts, replays and CPU stay as they are. Rows
    with any value that is not plain stay as Python columns.
    """
    digests = [list(c) for c in zip(*rows.digests, strict=True)] if rows.digests else None
    if digests is None:
        digests = [[] for _ in digest_types]
    runs = record_batch(rows.runs, run_types)
    units = record_batch(rows.units, unit_types) if runs is not None else None
    kept = record_batch(digests, digest_types) if units is not None else None
    if runs is None or units is None or kept is None:
        return rows
    rows.packed = [(runs.num_rows, _stream(runs), _stream(units), _stream(kept))]
    rows.runs = [[] for _ in rows.runs]
    rows.units = [[] for _ in rows.units]
    rows.digests = []
    return rows


def _pylist(streams: Sequence[bytes], width: int) -> list[list[Any]]:
    """The streams' columns as Python lists, one per column, in order."""
    out: list[list[Any]] = [[] for _ in range(width)]
    for data in streams:
        for i, column in enumerate(read(data).columns):
            out[i].extend(column.to_pylist())
    return out


def unpack(rows: ChunkRows) -> ChunkRows:
    """Packed rows back as Python columns (a study made before ``unit_rows`` stores them
    in its own shape); rows without packed batches are returned as they are."""
    if not rows.packed:
        return rows
    packed: list[Packed] = rows.packed
    runs = _pylist([p[1] for p in packed], len(rows.runs))
    units = _pylist([p[2] for p in packed], len(rows.units))
    width = read(packed[0][3]).num_columns
    digests = list(zip(*_pylist([p[3] for p in packed], width), strict=True))
    out = ChunkRows(
        [a + b for a, b in zip(rows.runs, runs, strict=True)],
        [a + b for a, b in zip(rows.units, units, strict=True)],
        dict(rows.counts),
        list(rows.replays),
        rows.cpu,
        [*rows.digests, *(tuple(d) for d in digests)],
    )
    return out
