"""A chunk's rows in Arrow's column layout: what a study's worker sends its coordinator.

A worker builds its chunk's ``runs``, ``unit_rows`` and ``run_digests`` rows
as Python columns (:class:`~sim.batch.execution.rows.ChunkRows`) and, for a
study, lays each table's columns out as Arrow's buffers — a validity bitmap,
64-bit values, or 32-bit offsets and UTF-8 text — with the standard library's
:mod:`array` (:func:`pack`), each table in one byte string: three a chunk. A
worker so imports neither pyarrow nor NumPy (about a tenth of a second of
CPU each process). They travel back through the executor (a local pool's pipe
or Dask's transport) as three objects to unpickle instead of one or more per
value, and the study's process wraps the buffers as an Arrow record batch
without copying them (:func:`read`) and hands it to DuckDB as it is
(:func:`sim.batch.storage.append.insert_batches`): its own work per run is
then a share of one bulk insert scanned at C speed. No file is written or
read on the way, and the byte strings are data only: lengths and buffers.

A table's byte string (:func:`encode`): a header — ``BSC1``, the number of
rows and of columns — then for each column its kind (int64, float64 or
string), its count of nulls and the lengths of its buffers, then the
buffers, each starting on a multiple of 8 bytes. Everything in it is
little-endian, Arrow's own byte order, on any machine (a big-endian worker
or study process swaps its numbers), so workers and a coordinator of either
byte order read each other. :func:`read` refuses a byte string whose parts
do not fit together (``ValueError``).

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

import struct
import sys
from array import array
from collections.abc import Sequence
from importlib import import_module
from itertools import accumulate
from typing import Any

from sim.batch.execution.rows import ChunkRows, Packed

__all__ = ["arrow", "encode", "pack", "read", "record_batch", "unpack"]

_NONE = type(None)
_INTEGERS = frozenset({"BIGINT", "INTEGER"})
_KINDS = {
    "VARCHAR": frozenset({str, _NONE}),
    "BIGINT": frozenset({int, _NONE}),
    "INTEGER": frozenset({int, _NONE}),
    "DOUBLE": frozenset({int, float, _NONE}),
}
_INT64, _FLOAT64, _STRING = 0, 1, 2
"""A column's kind in a table's byte string."""

_MAGIC = b"BSC1"
_HEAD = struct.Struct("<4sqq")
"""The magic, the number of rows and the number of columns."""
_COLUMN = struct.Struct("<Bqqqq")
"""A column's kind, nulls and the lengths of its validity, values and text buffers."""

_OFFSET = next(code for code in "ilh" if array(code).itemsize == 4)
"""The :mod:`array` type code of a 32-bit signed integer (Arrow's string offsets)."""

_SWAP = sys.byteorder != "little"
"""Numbers are swapped to and from little-endian (on a big-endian machine)."""

_NATIVE_OFFSET = struct.Struct("=i")
"""A string column's offset as read (in this machine's order, swapped if need be)."""


def _little(numbers: array[Any]) -> bytes:
    """``numbers`` as little-endian bytes."""
    if _SWAP:
        numbers.byteswap()
    return numbers.tobytes()


def _native(data: bytes, at: int, size: int, kind: int) -> bytes:
    """The little-endian numbers of a column (offsets of a string one) as this machine's."""
    numbers = array(_OFFSET if kind == _STRING else "q" if kind == _INT64 else "d")
    numbers.frombytes(data[at : at + size])
    numbers.byteswap()
    return numbers.tobytes()


def arrow() -> Any:
    """The ``pyarrow`` module (a study's extra, imported where it is used; untyped: Any)."""
    return import_module("pyarrow")


_MAX_TEXT = 2**31 - 1
"""Bytes an Arrow ``string`` column's 32-bit offsets can address."""


def _validity(col: list[Any]) -> bytes:
    """Arrow's validity bitmap of ``col``: bit i (least significant first) set when
    ``col[i]`` is not None."""
    bits = bytearray((len(col) + 7) // 8)
    for i, v in enumerate(col):
        if v is not None:
            bits[i >> 3] |= 1 << (i & 7)
    return bytes(bits)


def _buffers(col: list[Any], sql: str) -> tuple[int, int, bytes, bytes, bytes]:
    """One column's kind, nulls and Arrow buffers (validity, values or offsets, text).

    Raises OverflowError (an int beyond 64 bits, or too large for a float), UnicodeEncodeError
    (a lone surrogate) or ValueError (too much text for one column).
    """
    nulls = col.count(None)  # the column holds no type that equals None but None
    valid = _validity(col) if nulls else b""
    if sql == "VARCHAR":
        encoded = [b"" if v is None else v.encode("utf-8") for v in col]
        sizes = [len(b) for b in encoded]
        if sum(sizes) > _MAX_TEXT:
            raise ValueError("more text than one Arrow string column holds")
        offsets = array(_OFFSET, accumulate(sizes, initial=0))
        return _STRING, nulls, valid, _little(offsets), b"".join(encoded)
    filled = [0 if v is None else v for v in col] if nulls else col
    if sql in _INTEGERS:
        return _INT64, nulls, valid, _little(array("q", filled)), b""
    return _FLOAT64, nulls, valid, _little(array("d", filled)), b""


def _pad(n: int) -> int:
    """Zero bytes after ``n`` to the next multiple of 8."""
    return -n % 8


def encode(columns: Sequence[list[Any]], types: Sequence[str]) -> bytes | None:
    """``columns`` (one list per column, of SQL ``types``) as one table's byte string (see the
    module), or None when a value is not plain for its column.

    Raises:
        ValueError: the columns are not all of one length.
    """
    if len({len(col) for col in columns}) > 1:
        raise ValueError("a table's columns must all have one length")
    specs = []
    for col, sql in zip(columns, types, strict=True):
        kinds = _KINDS.get(sql)
        if kinds is None or not kinds.issuperset(map(type, col)):
            return None
        try:
            specs.append(_buffers(col, sql))
        except (OverflowError, UnicodeError, ValueError):
            return None  # beyond 64 bits, a lone surrogate: the store's list casts decide
    rows = len(columns[0]) if columns else 0
    parts = [_HEAD.pack(_MAGIC, rows, len(specs))]
    parts += [_COLUMN.pack(k, n, len(v), len(d), len(t)) for k, n, v, d, t in specs]
    head = _HEAD.size + _COLUMN.size * len(specs)
    parts.append(bytes(_pad(head)))
    for _kind, _nulls, *buffers in specs:
        for buffer in buffers:
            parts += [buffer, bytes(_pad(len(buffer)))]
    return b"".join(parts)


def read(data: bytes) -> Any:
    """The Arrow record batch (columns ``c0, c1, …``) of a table :func:`encode` wrote, its
    buffers those of ``data``, not copied.

    Raises:
        ValueError: ``data`` is not such a table, or its parts do not fit together.
    """
    pa = arrow()
    types = _types(pa)
    try:
        magic, rows, width = _HEAD.unpack_from(data, 0)
        if magic != _MAGIC or rows < 0 or width < 0:
            raise ValueError("not a table battlesim's worker packed")
        specs = list(_COLUMN.iter_unpack(data[_HEAD.size : _HEAD.size + _COLUMN.size * width]))
    except struct.error:
        raise ValueError("not a table battlesim's worker packed") from None
    whole = pa.py_buffer(data)
    end = len(data)
    at = _HEAD.size + _COLUMN.size * width
    at += _pad(at)
    arrays = []
    for i, (kind, nulls, valid, values, text) in enumerate(specs):
        typ = types.get(kind)
        _check_column(
            i, typ is not None and 0 <= nulls <= rows, kind, rows, nulls, valid, values, text
        )
        if at + valid + _pad(valid) + values + _pad(values) + text + _pad(text) > end:
            raise ValueError(f"column {i}: the table ends inside it")
        bitmap = whole.slice(at, valid) if nulls else None
        at += valid + _pad(valid)
        if _SWAP:
            numbers = pa.py_buffer(_native(data, at, values, kind))
        else:
            numbers = whole.slice(at, values)
        at += values + _pad(values)
        made = [bitmap, numbers]
        if kind == _STRING:
            offsets = memoryview(numbers)
            first = _NATIVE_OFFSET.unpack_from(offsets, 0)[0]
            if first != 0 or _NATIVE_OFFSET.unpack_from(offsets, 4 * rows)[0] != text:
                raise ValueError(f"column {i}: its offsets do not span its text")
            made.append(whole.slice(at, text))
            at += text + _pad(text)
        arrays.append(pa.Array.from_buffers(typ, rows, made, null_count=nulls))
    if at != end:
        raise ValueError("bytes follow the table's last column")
    if not arrays and rows:
        raise ValueError(f"a table of {rows} rows without a column")
    batch = pa.RecordBatch.from_arrays(arrays, names=_names(width))
    try:  # the nulls each bitmap marks; strings' offsets in order, their text UTF-8 (in C)
        batch.validate(full=True)
    except pa.ArrowInvalid as exc:
        raise ValueError(str(exc)) from None
    return batch


def _check_column(
    i: int, known: bool, kind: int, rows: int, nulls: int, valid: int, values: int, text: int
) -> None:
    """Refuse column ``i`` unless its kind is known, its nulls are at most its rows and its
    buffers' sizes are those of ``rows`` values of its kind (ValueError)."""
    if not known:
        raise ValueError(f"column {i}: not a column battlesim's worker packed")
    if (
        valid != ((rows + 7) // 8 if nulls else 0)
        or values != (4 * (rows + 1) if kind == _STRING else 8 * rows)
        or text < 0
        or (kind != _STRING and text)
    ):
        raise ValueError(f"column {i}: its buffers do not fit its {rows} rows")


_TYPES: dict[int, Any] = {}


def _types(pa: Any) -> dict[int, Any]:
    """The Arrow type of each column kind, made once (the store casts each back to its SQL
    type)."""
    if not _TYPES:
        _TYPES.update({_INT64: pa.int64(), _FLOAT64: pa.float64(), _STRING: pa.string()})
    return _TYPES


def _names(width: int) -> list[str]:
    """``c0, c1, …``: a table's column names."""
    found = _NAMES.get(width)
    if found is None:
        found = _NAMES[width] = [f"c{i}" for i in range(width)]
    return found


_NAMES: dict[int, list[str]] = {}


def record_batch(columns: Sequence[list[Any]], types: Sequence[str]) -> Any:
    """``columns`` (one list per column, of SQL ``types``) as a record batch of columns
    ``c0, c1, …``, or None when a value is not plain for its column (see the module)."""
    data = encode(columns, types)
    return None if data is None else read(data)


def pack(
    rows: ChunkRows,
    run_types: Sequence[str],
    unit_types: Sequence[str],
    digest_types: Sequence[str],
) -> ChunkRows:
    """``rows`` with its runs, unit rows and digests moved into Arrow's column layout
    (one byte string a table, with the number of runs: :data:`~sim.batch.execution.rows.Packed`).

    The Python columns are emptied (kept as empty lists, one per column) so
    the rows are sent once; counts, replays and CPU stay as they are. Rows
    with any value that is not plain stay as Python columns.
    """
    digests = [list(c) for c in zip(*rows.digests, strict=True)] if rows.digests else None
    if digests is None:
        digests = [[] for _ in digest_types]
    runs = encode(rows.runs, run_types)
    units = encode(rows.units, unit_types) if runs is not None else None
    kept = encode(digests, digest_types) if units is not None else None
    if runs is None or units is None or kept is None:
        return rows
    rows.packed = [(len(rows.runs[0]) if rows.runs else 0, runs, units, kept)]
    rows.runs = [[] for _ in rows.runs]
    rows.units = [[] for _ in rows.units]
    rows.digests = []
    return rows


def _pylist(tables: Sequence[bytes], width: int) -> list[list[Any]]:
    """The tables' columns as Python lists, one per column, in order."""
    out: list[list[Any]] = [[] for _ in range(width)]
    for data in tables:
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
