"""A study's results in an embedded DuckDB file, ``DIR/study.duckdb``.

Tables (columns in docs/batch.md):

* ``study``: one row — what was run (target, its digest, versions, seed,
  design, factors), enough to rebuild any run;
* ``points``: one row per design point, a column per factor;
* ``runs``: one row per run — id, point, replication, seed, status, error,
  winner, turns, losses by side (``<side>_<kind>_lost``), the outcome as JSON,
  the random draws of each side's units (``<side>_draws``, after the
  losses; a study made before them has none, and is resumed without them);
* ``unit_rows``: one row per unit per battle of each run, what its final
  :class:`~sim.contract.UnitRow` holds, and the view ``unit_finals`` over it
  with each detail as a typed column (:mod:`sim.batch.storage.units`);
* the view ``runs_wide``: each run with its point's factors as typed
  columns named by their paths (:mod:`sim.batch.storage.wide`).

Whole chunks' rows are committed in one transaction (the study commits the
chunks done so far every second or few, paced by work), so a killed study keeps every chunk
it committed and none in part; ``run_id`` is a primary key, so
nothing is stored twice. Rows are stored in completion order: read and export
them ordered by their keys (as everything here does).
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import re
import shutil
import stat
import tempfile
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from engine.canonical import canonical_json
from engine.safety.atomic import commit, exporting_together
from sim.batch.execution.columnar import read, unpack
from sim.batch.execution.digests import UNIT_TYPES, RunDigests, run_types
from sim.batch.execution.rows import ChunkRows
from sim.batch.inputs.guard import BUILDING
from sim.batch.storage import StoreDamaged, StoreError
from sim.batch.storage.append import (
    column_names,
    column_types,
    insert_batches,
    insert_columns,
    insert_rows,
    insert_values,
)
from sim.batch.storage.csvsafe import csv_select
from sim.batch.storage.duck import duckdb
from sim.batch.storage.schema import (
    DIGEST_COLUMNS,
    DIGEST_TABLE,
    HARDENED,
    SchemaError,
    check_catalog,
    check_columns,
)
from sim.batch.storage.sql import literal as _literal
from sim.batch.storage.sql import quote
from sim.batch.storage.units import TABLE as UNIT_TABLE
from sim.batch.storage.units import DetailColumn, create_units, legacy_columns, legacy_units
from sim.batch.storage.wide import create_view, runs_export_select, wide_select, wide_sql
from sim.text.grammar import count

__all__ = [
    "STUDY_COLUMNS",
    "TABLES",
    "Store",
    "StoreDamaged",
    "StoreError",
    "damaged",
    "draw_columns",
    "in_factor_order",
    "loss_columns",
    "not_ours",
    "point_cells",
    "point_label",
    "point_value",
    "quote",
]

TABLES = {
    "study": "1",
    "points": "point",
    "runs": "run_id",
    "unit_finals": "run_id, battle, unit",
}
"""Each table (``unit_finals``: a view) and the key it is ordered by when read or exported."""

STUDY_COLUMNS = {
    "name": "VARCHAR",
    "kind": "VARCHAR",
    "source": "VARCHAR",
    "ruleset": "VARCHAR",
    "ruleset_version": "VARCHAR",
    "engine_version": "VARCHAR",
    "battlesim_version": "VARCHAR",
    "rules_digest": "VARCHAR",
    "target_digest": "VARCHAR",
    "seed": "BIGINT",
    "seed_scheme": "VARCHAR",
    "crn": "BOOLEAN",
    "replications": "INTEGER",
    "design": "VARCHAR",
    "design_points": "INTEGER",
    "chunk_size": "INTEGER",
    "until_ci": "DOUBLE",
    "keep_replays": "INTEGER",
    "factors": "VARCHAR",
    "sides": "VARCHAR",
    "loss_columns": "VARCHAR",
    "plan": "VARCHAR",
    "target": "VARCHAR",
}
"""The study row's columns; the last five hold JSON."""

_JSON = ("factors", "sides", "loss_columns", "plan", "target")


def _shape(key: str, value: Any) -> str | None:
    """What is wrong with the outline of a study row's JSON column, or None.

    The outline only (the top-level type, the target's three keys, a list of
    mappings or of lists), so that a database written by hand fails in one
    line naming the column rather than in whatever code first reads it.
    """
    if key in ("plan", "target") and not isinstance(value, dict):
        return "is not a mapping"
    if key in ("factors", "sides", "loss_columns") and not isinstance(value, list):
        return "is not a list"
    if key == "target" and (
        value.get("kind") not in ("scenario", "campaign")
        or not isinstance(value.get("source"), str)
        or not isinstance(value.get("data"), dict)
    ):
        return "is not a scenario or campaign target (kind, source, data)"
    item = dict if key == "factors" else list
    if key not in {"plan", "target"} and not all(isinstance(x, item) for x in value):
        return f"holds an entry that is not a {'mapping' if item is dict else 'list'}"
    if key == "plan":
        return _numbers(value)
    return None


_WHOLE = {"replications": 1, "chunk_size": 1, "seed": 0, "keep_replays": 0, "points": 1}
"""The plan's (and the study row's) whole numbers and the least each may be: the run count,
chunks and pilot sizes are worked out from them (a chunk size of 0 divided by zero)."""


def _first_line(exc: Exception) -> str:
    """An exception as one line: a pydantic error's first problem, else its first line."""
    errors = getattr(exc, "errors", None)
    if callable(errors):
        try:
            first = errors()[0]
            where = ".".join(str(x) for x in first.get("loc", ()))
            return f"{where}: {first.get('msg')}" if where else str(first.get("msg"))
        except (TypeError, IndexError, KeyError, AttributeError):
            pass
    text = str(exc).strip().splitlines()
    return text[0] if text else type(exc).__name__


def _numbers(values: dict[str, Any]) -> str | None:
    """What is wrong with the whole numbers and ``until_ci`` of a plan or study row, or None
    (a key absent, as in an older plan, or a null ``points`` or ``until_ci``, is not)."""
    for name, least in _WHOLE.items():
        v = values.get(name)
        if v is None and name in ("points", "keep_replays"):
            continue
        if name in values and not (isinstance(v, int) and not isinstance(v, bool) and v >= least):
            return f"has {name} {v!r}, not a whole number of at least {least}"
    w = values.get("until_ci")
    number = isinstance(w, int | float) and not isinstance(w, bool)
    if w is not None and not (number and 0 < w < 0.5):
        return f"has until_ci {w!r}, not a half-width between 0 and 0.5"
    return None


Config = dict[str, str | bool | int | float | list[str]]

WRITER_CONFIG: Config = {"threads": 1, "checkpoint_threshold": "8MB"}
"""The study's connection while it runs. One thread: its work is small, and the
cores belong to the workers. Bounded checkpoints and (:meth:`Store.cap_memory`, once
open) a capped cache: DuckDB keeps what it wrote in memory — uncheckpointed rows
until its WAL reaches 16 MB by default, pages up to 80 % of RAM — so a study's memory
would grow with its runs. A checkpoint every 8 MB of WAL (was 2 MB) halves what
checkpoints cost a commit point and keeps at most a few MB of rows in memory. The
cap is set after the connection opens, so the log of a killed study is replayed
with room to spare."""


INDEX_BYTES = 128
"""Memory a keyed table's row takes in DuckDB's key index, with room to spare (about 40
bytes measured for a study's runs table: 1.5 MB at 38,000 runs)."""


_READ_DAMAGE = ("could not read enough bytes from file", "corrupt database file")
"""DuckDB's words when a file's blocks cannot be read back: cut short, or a block whose
checksum fails (overwritten in part). Nothing else counts: a lock, a read-only file
system, a permission or a failed write is the machine's, not damage to the study."""


def damaged(path: Path, exc: Exception) -> str | None:
    """The message when ``exc`` is DuckDB failing to read back a block of a file whose
    header is a DuckDB database's (the magic ``DUCK`` at byte 8), else None."""
    detail = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
    if not isinstance(exc, duckdb.Error) or not any(m in detail.lower() for m in _READ_DAMAGE):
        return None
    try:
        with path.open("rb") as f:
            if f.read(12)[8:12] != b"DUCK":
                return None
    except OSError:
        return None
    return f"{str(path)!r} is damaged: a DuckDB database that cannot be read through ({detail})"


def not_ours(path: Path, *, folder: bool, writing: bool = True) -> str | None:
    """What ``path`` is, when DuckDB must not open it as the study's own file, else None.

    A hard link (a file with another name elsewhere: DuckDB's log written there wrote over
    that file) or a FIFO, device or socket (opening a FIFO blocked the resume for ever, deaf
    to SIGTERM) at the database or its log; anything but a folder at its spill folder.
    Only to read (not ``writing``), a hard link is no danger and is let be, and a
    symbolic link is followed to what it names (a study's database kept elsewhere; writing,
    :func:`~sim.batch.storage.opening.open_store` refuses it in its own words).
    """
    try:
        st = path.lstat() if writing else path.stat()
    except FileNotFoundError:
        return None
    if folder:
        return None if stat.S_ISDIR(st.st_mode) else "not a folder"
    if not stat.S_ISREG(st.st_mode):
        return "not a regular file"
    if writing and st.st_nlink > 1:
        return f"a file with {count(st.st_nlink - 1, 'other name')} (a hard link)"
    return None


def loss_columns(sides: dict[str, tuple[str, list[str]]]) -> list[tuple[str, str, str]]:
    """(side, kind, column) of each loss column: ``<side>_<kind>_lost``, made unique."""
    used: set[str] = set()
    return [
        (sid, kind, _unique(f"{sid}_{kind}_lost", used))
        for sid, (_name, kinds) in sides.items()
        for kind in kinds
    ]


def _unique(name: str, used: set[str]) -> str:
    """``name`` as a plain column name (``_`` for any other character), made unique in ``used``."""
    base = re.sub(r"[^A-Za-z0-9_]", "_", name)
    column, n = base, 1
    while column in used:
        n += 1
        column = f"{base}_{n}"
    used.add(column)
    return column


def draw_columns(sides: Iterable[str], losses: list[tuple[str, str, str]]) -> list[tuple[str, str]]:
    """(side, column) of each side's draws column: ``<side>_draws``, made unique."""
    used = {c for _, _, c in losses}
    return [(sid, _unique(f"{sid}_draws", used)) for sid in sides]


BIGINT_MIN, BIGINT_MAX = -(2**63), 2**63 - 1
"""The whole numbers a study's tables hold (DuckDB's ``BIGINT``)."""


def _sql_type(values: Iterable[Any]) -> str:
    vals = list(values)
    if all(isinstance(v, bool) for v in vals):
        return "BOOLEAN"
    if all(isinstance(v, int) and not isinstance(v, bool) for v in vals):
        return "BIGINT"
    if all(isinstance(v, int | float) and not isinstance(v, bool) for v in vals):
        return "DOUBLE"
    return "VARCHAR"


def _cell(value: Any, sql_type: str) -> Any:
    if sql_type == "VARCHAR" and not isinstance(value, str):
        return canonical_json(value)
    return value


class Store:
    """An open study database (one writer: the process running the study)."""

    def __init__(self, path: Path, con: duckdb.DuckDBPyConnection) -> None:
        self.path = path
        self.con = con
        self._loss: list[tuple[str, str, str]] = []
        self._draws: list[tuple[str, str]] = []
        self._types: dict[str, list[str]] = {}
        self._digests = True
        """Whether the study has per-run digests (a study made before them has none)."""
        self._legacy: list[str] | None = None
        """The value columns of a study's ``unit_finals`` table made before ``unit_rows``."""
        self._study: tuple[list[str], tuple[Any, ...]] | None = None
        self._target: Any = None
        """The study's target once read and validated (:meth:`target`; the row is read once)."""
        """The study row as read (column names, values): it never changes once written."""
        self._points: list[Any] | None = None
        """The design points' stored JSON texts, in order: they never change either."""
        self.created = False
        """Whether this store was just created (it holds no run yet)."""

    # ----------------------------------------------------------------- opening

    @classmethod
    def open(cls, path: str | Path, *, read_only: bool = False, files: bool = False) -> Store:
        """Open an existing study database, as data (:mod:`sim.batch.storage.schema`).

        DuckDB's external access and extension autoloading are off, and a read-only
        connection locks its configuration; ``files`` (export) leaves external access
        on for ``COPY … TO``, after the same checks. Before any row is read the
        catalog must be a study's: base tables of battlesim's columns, no view but
        battlesim's own SQL, nothing else; the ``study`` table must hold one row.

        Raises:
            StoreError: no such file, not a study, or in use by another process.
        """
        p = Path(path)
        if not p.is_file():
            raise StoreError(f"no study database at {str(p)!r}")
        for name in (p, p.with_name(p.name + ".wal")):  # DuckDB reads the log as it opens
            problem = not_ours(name, folder=False, writing=not read_only)
            if problem is not None:
                raise StoreError(f"{str(name)!r} is {problem}, not a study's own file")
        store = cls(p, _connect(p, read_only, files))
        try:
            check_catalog(store.con)
            _check_study_table(store.con)
            meta = store.meta()
            store._loss = [(s, k, c) for s, k, c in meta["loss_columns"]]
            have = set(column_names(store.con, "runs"))
            wanted = draw_columns([side[0] for side in meta["sides"]], store._loss)
            store._draws = [(s, c) for s, c in wanted if c in have]
            losses = [c for _, _, c in store._loss]
            wide = wide_select(store) if read_only else None  # else replaced just below
            check_columns(store.con, meta, losses, [c for _, c in store._draws], wide)
            store._legacy = legacy_columns(store.con)
            store._digests = DIGEST_TABLE in {
                r[0] for r in store.con.execute("SELECT table_name FROM duckdb_tables()").fetchall()
            }
            if not read_only:  # a study made before the view existed gets it
                create_view(store)
        except SchemaError as exc:
            store.close()
            raise StoreError(f"{str(p)!r} is not a battlesim study: {exc}") from None
        except (duckdb.Error, KeyError, IndexError, TypeError, ValueError) as exc:
            store.close()
            damaged_as = damaged(p, exc)
            if damaged_as is not None:
                raise StoreDamaged(damaged_as) from None
            detail = (str(exc).splitlines() or [type(exc).__name__])[0]
            raise StoreError(f"{str(p)!r} is not a battlesim study: {detail}") from None
        return store

    @classmethod
    def create(
        cls,
        path: str | Path,
        meta: dict[str, Any],
        points: Sequence[dict[str, Any]],
        sides: dict[str, tuple[str, list[str]]],
        details: Sequence[DetailColumn] = (),
    ) -> Store:
        """Create the database with its tables, the study row and the design points.

        ``details`` are the typed detail columns of the ``unit_finals`` view
        (:func:`sim.batch.storage.units.start_details`).

        The database is built aside, in a private folder made beside ``path``
        (``.study.duckdb.XXXXXXXX.tmp``, by ``mkdtemp``: nothing planted is written
        through), committed and closed, and renamed to ``path`` only then (:func:`_place`):
        a full disk, an error or Ctrl-C while it is made removes that folder and leaves
        nothing at ``path`` (no damaged database a new study or ``--resume`` would
        refuse). A study killed as it is made leaves the folder, which the next study in
        the folder removes (:func:`~sim.batch.inputs.guard.building`).

        Raises:
            StoreError: something is at ``path`` already, or the database could not be
                made (a full disk: what the OS or DuckDB said, naming ``path``).
        """
        p = Path(path)
        if any(os.path.lexists(f) for f in (p, p.with_name(p.name + ".wal"))):
            # a study is created where there is none; never over a file
            raise StoreError(f"{str(p)!r} already exists: a new study is made where none is")
        utf8_path(p)
        try:
            aside = Path(tempfile.mkdtemp(prefix=f".{p.name}.", suffix=BUILDING, dir=p.parent))
        except OSError as exc:
            raise StoreError(f"cannot create {str(p)!r}: {exc.strerror}") from None
        built = aside / p.name
        try:
            store = cls._built(built, meta, points, sides, details)
            _place(built, p)
        except (OSError, duckdb.Error, StoreError) as exc:  # a full disk, said of ``path``
            shutil.rmtree(aside, ignore_errors=True)
            detail = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
            if isinstance(exc, OSError) and exc.strerror:
                detail = exc.strerror
            detail = detail.replace(str(built), str(p))
            if not detail.startswith(("cannot ", repr(str(p)))):
                detail = f"cannot create {str(p)!r}: {detail}"
            raise StoreError(detail) from None
        except BaseException:  # Ctrl-C: nothing of the study left, at either name
            shutil.rmtree(aside, ignore_errors=True)
            raise
        shutil.rmtree(aside, ignore_errors=True)  # empty, or DuckDB's spill folder
        store.path = p
        store.con = _connect(p, False)  # the whole study, where it stays
        return store

    @classmethod
    def _built(
        cls,
        built: Path,
        meta: dict[str, Any],
        points: Sequence[dict[str, Any]],
        sides: dict[str, tuple[str, list[str]]],
        details: Sequence[DetailColumn],
    ) -> Store:
        """The study made at ``built``, committed and closed. DuckDB writes its log into the
        file as it closes; where the disk has no room for that, the log stays beside it,
        whole (as a study's own log does), and :func:`_place` moves both."""
        store = cls(built, _connect(built, False))
        try:
            store._create(meta, points, sides, details)
        finally:
            store.close()
        return store

    def _create(
        self,
        meta: dict[str, Any],
        points: Sequence[dict[str, Any]],
        sides: dict[str, tuple[str, list[str]]],
        details: Sequence[DetailColumn],
    ) -> Store:
        store = self
        store._loss = loss_columns(sides)
        store._draws = draw_columns(sides, store._loss)
        meta = {**meta, "loss_columns": [list(x) for x in store._loss]}
        con = store.con
        con.begin()
        if sorted(meta) != sorted(STUDY_COLUMNS):
            raise StoreError(f"study row fields {sorted(meta)} != {sorted(STUDY_COLUMNS)}")
        con.execute(
            "CREATE TABLE study ("
            + ", ".join(f"{quote(k)} {t}" for k, t in STUDY_COLUMNS.items())
            + ")"
        )
        stored = {k: canonical_json(meta[k]) for k in _JSON}
        row = [stored[k] if k in _JSON else meta[k] for k in STUDY_COLUMNS]
        insert_values(con, "study", [tuple(row)], list(STUDY_COLUMNS.values()))
        paths = _create_points(con, points)
        losses = "".join(f", {quote(c)} BIGINT" for _, _, c in store._loss)
        draws = "".join(f", {quote(c)} BIGINT" for _, c in store._draws)
        con.execute(
            "CREATE TABLE runs (run_id BIGINT PRIMARY KEY, point INTEGER NOT NULL, "
            "replication INTEGER NOT NULL, seed BIGINT NOT NULL, status VARCHAR NOT NULL, "
            "error VARCHAR, winner VARCHAR, winner_name VARCHAR, reason VARCHAR, turns INTEGER, "
            f"battles INTEGER{losses}{draws}, outcome VARCHAR)"
        )
        create_units(con, details)
        con.execute(
            f"CREATE TABLE {DIGEST_TABLE} ("
            + ", ".join(f"{quote(k)} {t}" for k, t in DIGEST_COLUMNS.items())
            + ")"
        )
        # The view from what was just written (the plan as it reads back), not read again.
        plan = json.loads(stored["plan"])
        create_view(store, wide_sql(paths, store._loss, store._draws, plan))
        con.commit()
        store._types = {
            "runs": run_types(len(store._loss), len(store._draws)),
            UNIT_TABLE: list(UNIT_TYPES.values()),
        }
        store.created = True
        return store

    def cap_memory(self, rows: int) -> None:
        """Cap the writer's memory at 16 MiB plus
        :data:`INDEX_BYTES` for each of the ``rows`` its keyed tables may come to hold: the
        tables' key indexes stay in memory and grow with them, and a checkpoint (or the
        log replayed when a killed study is resumed) with no room left is DuckDB's FATAL
        error, which ended a 59,000-run study of a battle of eight units at 38,000 runs
        and its resumes after it."""
        mebibytes = 16 + math.ceil(rows * INDEX_BYTES / 2**20)
        self.con.execute(f"SET memory_limit = '{mebibytes}MiB'")

    def unlimit(self) -> None:
        """Lift the writer's memory cap, for the summary's and the plots' queries."""
        self.con.execute("RESET memory_limit")

    def close(self) -> None:
        """Close the connection (everything committed is already durable)."""
        self.con.close()

    # ----------------------------------------------------------------- reading

    def meta(self) -> dict[str, Any]:
        """The study row, JSON columns decoded (a new dict each call)."""
        if self._study is None:
            cur = self.con.execute("SELECT * FROM study")
            row = cur.fetchone()
            if row is None:
                raise StoreError("the study table is empty")
            self._study = ([d[0] for d in cur.description], row)
        names, row = self._study
        out = dict(zip(names, row, strict=True))
        for key in _JSON:
            try:
                out[key] = json.loads(out[key])
            except (ValueError, TypeError, RecursionError) as exc:  # damaged: name it, one line
                raise StoreError(
                    f"{self.path}: damaged: the study's {key} is not JSON ({exc})"
                ) from None
            problem = _shape(key, out[key])
            if problem is not None:  # JSON, but not what battlesim writes: one line, not a trace
                raise StoreError(f"{self.path}: damaged: the study's {key} {problem}")
        problem = _numbers(out)
        if problem is not None:
            raise StoreError(f"{self.path}: damaged: the study row {problem}")
        return out

    def target(self) -> Any:
        """The study's :class:`~sim.batch.inputs.target.Target`, each battle's scenario
        validated as it is fought (a database written by hand fails here in one line, not in
        whatever code first reads the battle; so does a study whose target this battlesim
        can no longer fight, which is not damage: it could not be fought again).

        Raises:
            StoreError: the stored target is not a scenario or campaign battlesim can fight.
        """
        if self._target is not None:  # verify asks three times: validated once
            return self._target
        from sim.batch.inputs.target import Target  # noqa: PLC0415 - storage below inputs

        target = Target.from_json(self.meta()["target"])
        try:
            target.scenarios()
        except Exception as exc:  # any failure of data written by hand: one line
            detail = _first_line(exc)
            raise StoreError(
                f"{self.path}: the study's target is not a {target.kind} this battlesim "
                f"can fight: {detail}"
            ) from None
        self._target = target
        return target

    @property
    def losses(self) -> list[tuple[str, str, str]]:
        """(side, kind, column) of the runs table's loss columns."""
        return list(self._loss)

    @property
    def legacy(self) -> list[str] | None:
        """The value columns of a ``unit_finals`` table made before ``unit_rows`` (else None)."""
        return None if self._legacy is None else list(self._legacy)

    @property
    def draws(self) -> list[tuple[str, str]]:
        """(side, column) of the runs table's draw columns (none in a study made before them)."""
        return list(self._draws)

    def points(self) -> list[dict[str, Any]]:
        """The design points in order (factor path → value; new dicts each call)."""
        if self._points is None:
            rows = self.con.execute('SELECT "values" FROM points ORDER BY point').fetchall()
            self._points = [r[0] for r in rows]
        try:
            points = [json.loads(text) for text in self._points]
        except (ValueError, TypeError, RecursionError) as exc:  # damaged: name it, one line
            raise StoreError(f"{self.path}: damaged: a design point is not JSON ({exc})") from None
        for i, point in enumerate(points):
            if not isinstance(point, dict):
                raise StoreError(f"{self.path}: damaged: design point {i} is not a mapping")
        return points

    def chunk_counts(self, chunk_size: int) -> dict[tuple[int, int], dict[str | None, int]]:
        """Runs committed per (point, chunk index), counted by winner (None: draw or failed)."""
        rows = self.con.execute(
            "SELECT point, replication // ? AS chunk, "
            "CASE WHEN status = 'done' THEN coalesce(winner, '') END AS w, count(*) "
            "FROM runs GROUP BY ALL ORDER BY ALL",
            [chunk_size],
        ).fetchall()
        out: dict[tuple[int, int], dict[str | None, int]] = {}
        for point, chunk, w, n in rows:
            out.setdefault((point, chunk), {})[w] = n
        return out

    def run_ids(self, low: int, high: int) -> set[int]:
        """Ids of committed runs in [low, high)."""
        rows = self.con.execute(
            "SELECT run_id FROM runs WHERE run_id >= ? AND run_id < ?", [low, high]
        ).fetchall()
        return {r[0] for r in rows}

    def count(self) -> int:
        """Runs committed."""
        row = self.con.execute("SELECT count(*) FROM runs").fetchone()
        return int(row[0]) if row else 0

    def run_row(self, run_id: int) -> dict[str, Any] | None:
        """One run's row, or None."""
        cur = self.con.execute("SELECT * FROM runs WHERE run_id = ?", [run_id])
        row = cur.fetchone()
        if row is None:
            return None
        return dict(zip([d[0] for d in cur.description], row, strict=True))

    def fought_runs(self) -> int:
        """How many runs the study holds (fought and committed)."""
        found = self.con.execute("SELECT count(*) FROM runs").fetchone()
        return int(found[0]) if found is not None else 0

    def held_ranges(self) -> list[tuple[int, int]]:
        """The run ids the study holds, as runs of consecutive ids ``(first, last)``, in
        order: ``[(0, 57)]`` for a point stopped after 58 runs."""
        found = self.con.execute(
            "SELECT min(run_id), max(run_id) FROM (SELECT run_id, run_id - row_number() "
            "OVER (ORDER BY run_id) AS island FROM runs) GROUP BY island ORDER BY 1"
        ).fetchall()
        return [(int(a), int(b)) for a, b in found]

    def table(self, name: str) -> list[tuple[Any, ...]]:
        """Every row of a table, ordered by its key (for tests and comparisons)."""
        return self.con.execute(f"SELECT * FROM {name} ORDER BY {TABLES[name]}").fetchall()

    # ----------------------------------------------------------------- writing

    @property
    def has_digests(self) -> bool:
        """Whether the study keeps per-run digests (one made before them does not)."""
        return self._digests and self._legacy is None

    def _types_of(self) -> dict[str, list[str]]:
        if not self._types:
            into = UNIT_TABLE if self._legacy is None else "unit_finals"
            self._types = {t: column_types(self.con, t) for t in ("runs", into)}
        return self._types

    def digests(self, rows: ChunkRows) -> list[RunDigests]:
        """The per-run digests a chunk's worker made (none kept for an older study)."""
        return list(rows.digests) if self.has_digests else []

    def commit(self, rows: ChunkRows, digests: Sequence[RunDigests] = ()) -> None:
        """Store whole chunks' runs, unit finals and run digests in a single transaction.

        One INSERT statement a table for the chunks packed as Arrow record batches
        (:mod:`sim.batch.execution.columnar`; their digests travel with them) and one
        for those sent as Python columns, whatever the number of chunks and runs:
        the study calls this at its commit points, not once per chunk.
        """
        con = self.con
        if rows.packed and self._legacy is not None:  # its own shape, from Python values
            rows = unpack(rows)  # (such a study keeps no digests)
        units, into = rows.units, UNIT_TABLE
        if self._legacy is not None:  # a study made before unit_rows: rows of its shape
            into = "unit_finals"
            units = legacy_units(units, self._legacy) if units[0] else []
        types = self._types_of()
        digest_types = list(DIGEST_COLUMNS.values())
        con.begin()
        try:
            insert_columns(con, "runs", rows.runs, types["runs"])
            insert_columns(con, into, units, types[into])
            if digests and self.has_digests:
                insert_rows(con, DIGEST_TABLE, list(digests), digest_types)
            if rows.packed:
                insert_batches(con, "runs", [read(p[1]) for p in rows.packed], types["runs"])
                insert_batches(con, into, [read(p[2]) for p in rows.packed], types[into])
                if self.has_digests:
                    found = [read(p[3]) for p in rows.packed]
                    insert_batches(con, DIGEST_TABLE, found, digest_types)
            con.commit()
        except BaseException:
            with contextlib.suppress(duckdb.Error):  # a failed commit has already ended it
                con.rollback()
            raise

    # ----------------------------------------------------------------- export

    def export(self, dest: Path, fmt: str) -> list[Path]:
        """Write every table, ordered by its key, to ``dest/<table>.<fmt>`` (parquet or csv)."""
        utf8_path(dest)
        dest.mkdir(parents=True, exist_ok=True)
        options = "FORMAT parquet" if fmt == "parquet" else "FORMAT csv, HEADER true"
        written = [dest / f"{name}.{fmt}" for name in TABLES]
        try:
            # Every table written aside first; all put in place only once each is whole
            # and held beside its final name (copied there from another file system), so a
            # failed export (a damaged database, a full disk, Ctrl-C) leaves the folder's
            # old export, every file of it, as it was.
            with exporting_together(written) as temps:
                for (name, key), temp in zip(TABLES.items(), temps, strict=True):
                    # runs: with its pilot flag and factor columns (runs_export_select)
                    table = f"({runs_export_select(self)})" if name == "runs" else name
                    select = f"SELECT * FROM {table} ORDER BY {key}"
                    if fmt == "csv":  # text a spreadsheet would run as a formula stays text
                        select = csv_select(self.con, select)
                    self.con.execute(f"COPY ({select}) TO {_literal(str(temp))} ({options})")
        except duckdb.Error as exc:
            damaged_as = damaged(self.path, exc)
            if damaged_as is not None:
                raise StoreDamaged(damaged_as) from None
            if isinstance(exc, duckdb.InvalidInputException | duckdb.DataError):
                # values battlesim never writes (a unit row's details that are not JSON,
                # edited by hand): the study's, named, not DuckDB's bare words
                detail = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
                message = f"{self.path}: damaged: a value cannot be exported ({detail})"
                raise StoreError(message) from None
            raise
        return written


def utf8_path(path: Path) -> str:
    """``path`` as DuckDB takes it: UTF-8 text.

    Raises:
        StoreError: the path holds bytes that are not UTF-8 (DuckDB would fail
            with ``std::bad_cast``).
    """
    text = str(path)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        shown = text.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
        raise StoreError(
            f"'{shown}': the path is not UTF-8 text, which DuckDB cannot open; "
            "choose a name of UTF-8 characters"
        ) from None
    return text


def _check_study_table(con: duckdb.DuckDBPyConnection) -> None:
    """The study table: battlesim's columns and types, and exactly one row."""
    for name, sql in con.execute(
        "SELECT column_name, data_type FROM duckdb_columns() WHERE table_name = 'study' LIMIT 100"
    ).fetchall():
        if STUDY_COLUMNS.get(name) != sql:
            raise SchemaError(f"its study table has a column {name!r} ({sql}) a study never has")
    rows = con.execute("SELECT count(*) FROM (SELECT 1 FROM study LIMIT 2)").fetchone()
    if rows is None or rows[0] != 1:
        raise SchemaError("its study table does not hold exactly one row")


def abandoned(path: Path) -> bool:
    """Whether the database at ``path`` holds no table or view at all: what a study killed
    (SIGKILL) between DuckDB's connect and its first commit left when battlesim made the
    database in place (before :meth:`Store.create` built it aside). A new study may take its place;
    there is nothing in it to resume or lose. False for a file DuckDB cannot open as a
    database."""
    if not path.is_file() or path.is_symlink():
        return False
    try:
        con = _connect(path, True)
    except (StoreError, duckdb.Error):
        return False
    try:
        found = con.execute(
            "SELECT (SELECT count(*) FROM duckdb_tables()) + (SELECT count(*) FROM "
            "duckdb_views() WHERE NOT internal)"
        ).fetchone()
    finally:
        con.close()
    return found is not None and found[0] == 0


def _place(built: Path, final: Path) -> None:
    """Give the database made at ``built`` (and its log, when it kept one) the name
    ``final``, each on disk before and after (:func:`engine.safety.atomic.commit`); never
    over anything already there (the folder is the study's, locked). The file is renamed
    first: without its log it holds no table (:func:`abandoned`, what a new study takes the
    place of), and a failed rename of the log takes it away again."""
    log, final_log = (p.with_name(p.name + ".wal") for p in (built, final))
    moves = [(built, final)] + ([(log, final_log)] if os.path.lexists(log) else [])
    if any(os.path.lexists(name) for name in (final, final_log)):
        raise StoreError(f"{str(final)!r} already exists: a new study is made where none is")
    placed: list[Path] = []
    try:
        for made, name in moves:
            commit(made, name)
            placed.append(name)
    except BaseException:
        for name in placed:
            with contextlib.suppress(OSError):
                name.unlink()
        raise


def _connect(path: Path, read_only: bool, files: bool = False) -> duckdb.DuckDBPyConnection:
    config: Config = {"threads": 1} if read_only else dict(WRITER_CONFIG)
    config.update(HARDENED)
    if files:
        config["enable_external_access"] = True  # COPY … TO, after the schema's checks
    elif read_only:
        config["lock_configuration"] = True
    utf8_path(path)
    try:
        return duckdb.connect(str(path), read_only=read_only, config=config)
    except duckdb.Error as exc:
        damaged_as = damaged(path, exc)
        if damaged_as is not None:
            raise StoreDamaged(damaged_as) from None
        raise StoreError(_open_failed(path, exc, read_only)) from None


def _open_failed(path: Path, exc: duckdb.Error, read_only: bool) -> str:
    """One line saying why DuckDB could not open a study: a lock held, or what the OS said."""
    detail = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
    if isinstance(exc, duckdb.IOException) and "could not set lock" in detail.lower():
        holder = re.search(r"held in (.+?) \(PID (\d+)\)", detail)
        who = f" ({holder[1]}, PID {holder[2]})" if holder else ""
        return (
            f"cannot open {str(path)!r}: in use by another process{who}: another battlesim, "
            "or a connection to the study such as a notebook's, even a read-only one; close "
            "it and try again"
        )
    if "different configuration than existing connections" in detail:
        return (
            f"cannot open {str(path)!r}: this process already holds a connection to it "
            "(a notebook's duckdb.connect, say) opened another way; close that "
            "connection (con.close()) and try again"
        )
    if not read_only and "read-only file system" in detail.lower():
        return (
            f"cannot open {str(path)!r} to write: its file system is read-only "
            "(a study is resumed where it can be written)"
        )
    return f"cannot open {str(path)!r}: {detail}"


def _create_points(con: duckdb.DuckDBPyConnection, points: Sequence[dict[str, Any]]) -> list[str]:
    """Create the ``points`` table with ``points``' rows; its factor columns' paths."""
    paths = list(points[0]) if points else []
    types = {p: _sql_type(pt[p] for pt in points) for p in paths}
    cols = "".join(f", {quote(p)} {types[p]}" for p in paths)
    con.execute(
        f'CREATE TABLE points (point INTEGER PRIMARY KEY, label VARCHAR, "values" VARCHAR{cols})'
    )
    rows = [
        (
            i,
            point_label(pt),
            canonical_json(pt),
            *point_cells(pt, types),
        )
        for i, pt in enumerate(points)
    ]
    insert_values(con, "points", rows, ["INTEGER", "VARCHAR", "VARCHAR", *types.values()])
    return paths


def point_cells(point: dict[str, Any], types: dict[str, str]) -> list[Any]:
    """A design point's typed factor cells, one per ``path: SQL type`` of the points table."""
    return [_cell(point.get(path), sql) for path, sql in types.items()]


def in_factor_order(values: dict[str, Any], paths: list[str]) -> dict[str, Any]:
    """A stored design point (canonical JSON: keys sorted) in its factors' order, as its label."""
    return {**{path: values[path] for path in paths if path in values}, **values}


def point_label(point: dict[str, Any]) -> str:
    """``path=value`` pairs of a design point, or ``base`` when nothing is swept."""
    if not point:
        return "base"
    return ", ".join(f"{p}={point_value(v)}" for p, v in point.items())


def point_value(value: Any) -> str:
    """A factor's value as a point's label writes it: ``true``, ``0.3``, ``quarter``."""
    if isinstance(value, float):
        return f"{value:.6g}"
    if isinstance(value, str):
        return value
    return canonical_json(value)
