"""A study database is data, never code (issue 31, item 2).

DuckDB views run queries when read: a ``runs`` view over ``read_text(FILE)``
printed FILE and exported it, one over ``range(10^12)`` hung ``verify``.
Every command that reads a study refuses, in one line and exit 2, a database
whose tables are views or whose schema is not battlesim's — from the catalog
alone, before a row is read.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import duckdb
import pytest

from tests.batch.helpers import SCENARIOS, invoke

BRAWL = SCENARIOS / "tavern_brawl.yaml"
CALLS = 100_000
"""The Python calls a refusal or a verify of this two-run study may make: measured, the
range view's refusal makes 2,255, verify of the billions plan 3,507 (of the plain study
1,984); a loop per claimed run would make billions."""
SECRET = "the-secret-in-the-file\n"


@pytest.fixture(scope="module")
def study(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A two-run study of the brawl."""
    out = tmp_path_factory.mktemp("study") / "st"
    assert invoke("batch", BRAWL, "--runs", "2", "--out", out, "--no-plots").exit_code == 0
    return out


def _hostile(study: Path, tmp_path: Path, *sql: str) -> Path:
    copy = tmp_path / "st"
    shutil.copytree(study, copy)
    con = duckdb.connect(str(copy / "study.duckdb"))
    for statement in sql:
        con.execute(statement)
    con.close()
    return copy


class OverBudget(Exception):
    """The command did more work than its budget."""


@contextmanager
def budget(calls: int) -> Iterator[list[str]]:
    """Count the work a command does in this process, not the seconds it takes.

    Python function calls are counted (``sys.setprofile``), and past ``calls``
    the command is stopped with :class:`OverBudget`, so a loop over a number a
    hostile file claims fails the test instead of hanging it. Every SQL
    statement the study's connections run is collected (yielded), so a test
    can say which tables were read.
    """
    statements: list[str] = []
    count = 0
    connect = duckdb.connect  # as the store calls it: duckdb.connect(path, …)

    class Counted:
        def __init__(self, con: Any) -> None:
            self._con = con

        def execute(self, sql: str, *args: Any) -> Any:
            statements.append(sql)
            self._con.execute(sql, *args)
            return self

        def cursor(self) -> Any:
            return Counted(self._con.cursor())

        def __getattr__(self, name: str) -> Any:
            return getattr(self._con, name)

    def counted_connect(*args: Any, **kwargs: Any) -> Any:
        return Counted(connect(*args, **kwargs))

    def hook(_frame: Any, event: str, _arg: Any) -> None:
        nonlocal count
        if event == "call":
            count += 1
            if count > calls:
                sys.setprofile(None)
                raise OverBudget(f"more than {calls:,} Python calls")

    setattr(duckdb, "connect", counted_connect)  # noqa: B010  # the store's duckdb.connect
    sys.setprofile(hook)
    try:
        yield statements
    finally:
        sys.setprofile(None)
        setattr(duckdb, "connect", connect)  # noqa: B010


def _reads(statements: list[str], table: str) -> list[str]:
    """The statements that read ``table`` (FROM or JOIN it), not those that name it in text."""
    pattern = re.compile(rf'\b(from|join)\s+"?{table}\b', re.IGNORECASE)
    return [s for s in statements if pattern.search(s)]


def _refused(folder: Path, *command: str) -> str:
    result = (
        invoke(*command, folder)
        if command != ("export",)
        else invoke("export", folder, "--format", "csv")
    )
    assert result.exit_code == 2, result.output
    assert result.stdout == ""
    assert result.stderr.count("\n") == 1 and result.stderr.startswith("battlesim: error: ")
    assert SECRET.strip() not in result.output
    return result.stderr


@pytest.mark.parametrize("command", [("verify",), ("export",)])
def test_a_runs_view_reading_a_file_is_refused(
    study: Path, tmp_path: Path, command: tuple[str, ...]
) -> None:
    """``runs`` as a view over read_text(FILE): one line naming the view, FILE unread."""
    secret = tmp_path / "secret.txt"
    secret.write_text(SECRET)
    folder = _hostile(
        study,
        tmp_path,
        "ALTER TABLE runs RENAME TO runs_kept",
        f"CREATE VIEW runs AS SELECT content AS run_id FROM read_text('{secret}')",
    )
    line = _refused(folder, *command)
    assert "its 'runs' is a view, not a table" in line
    assert not (folder / "export" / "runs.csv").exists()


def test_a_view_over_a_huge_range_is_refused_at_once(study: Path, tmp_path: Path) -> None:
    """A view over range(10^12) where unit_finals was: refused from the catalog, no row read."""
    folder = _hostile(
        study,
        tmp_path,
        "DROP VIEW unit_finals",
        "CREATE VIEW unit_finals AS SELECT range AS run_id FROM range(1000000000000)",
    )
    with budget(CALLS) as statements:
        line = _refused(folder, "verify")
    assert "its view 'unit_finals' is not the one battlesim makes" in line
    assert statements  # the catalog was read …
    assert _reads(statements, "unit_finals") == []  # … and never the view


@pytest.mark.parametrize(
    ("sql", "named"),
    [
        ("CREATE TABLE extra (a INTEGER)", "it holds a table 'extra', which a study never has"),
        ("ALTER TABLE runs ADD COLUMN extra VARCHAR", "its runs table's columns are not the "
         "study's: 'extra'"),
        ("ALTER TABLE unit_rows ADD COLUMN extra VARCHAR", "its unit_rows table's columns are "
         "not a study's"),
        ("ALTER TABLE study ADD COLUMN extra VARCHAR", "its study table has a column 'extra'"),
        ("INSERT INTO study SELECT * FROM study", "its study table does not hold exactly one row"),
        ("CREATE VIEW peek AS SELECT 1", "it holds a view main.peek, which a study never has"),
        ("CREATE MACRO m(x) AS x + 1", "it holds a macro 'm', which a study never has"),
        ("CREATE SEQUENCE s", "it holds a sequence 's', which a study never has"),
        ("CREATE OR REPLACE VIEW runs_wide AS SELECT * FROM runs", "its view 'runs_wide' is not "
         "the one battlesim makes"),
    ],
)  # fmt: skip
def test_a_schema_that_is_not_battlesims_is_refused(
    study: Path, tmp_path: Path, sql: str, named: str
) -> None:
    """An extra table, column, view, macro or sequence, or a changed view: one line, exit 2."""
    folder = _hostile(study, tmp_path, sql)
    assert named in _refused(folder, "verify")


def test_the_connection_reads_no_file_even_if_asked(study: Path, tmp_path: Path) -> None:
    """The store's own connection has external access off and its configuration locked."""
    from sim.batch.storage.store import Store

    secret = tmp_path / "secret.txt"
    secret.write_text(SECRET)
    store = Store.open(study / "study.duckdb", read_only=True)
    try:
        with pytest.raises(duckdb.Error, match="disabled"):
            store.con.execute(f"SELECT * FROM read_text('{secret}')").fetchall()
        with pytest.raises(duckdb.Error):
            store.con.execute("SET enable_external_access = true")
    finally:
        store.close()


def test_a_plan_claiming_billions_of_runs_is_checked_at_once(study: Path, tmp_path: Path) -> None:
    """A study row claiming 2·10⁹ replications over two stored runs: verify names the
    missing runs by count and the first few, in time bounded by what is stored."""
    folder = _hostile(study, tmp_path, "UPDATE study SET replications = 2000000000")
    with budget(CALLS) as statements:
        result = invoke("verify", folder, "--sample", "0")
    assert len(statements) < 200  # no query per missing run
    assert result.exit_code == 1, result.output
    assert "DIFFERS: runs: 1,999,999,998 runs missing (2, 3, 4 …)" in result.output.splitlines()


def _scratch_holds() -> tuple[int, int]:
    """The tables and (non-internal) views in this process's scratch database."""
    from sim.batch.storage import schema

    scratch = schema._scratch()
    tables = scratch.execute("SELECT count(*) FROM duckdb_tables()").fetchone()
    views = scratch.execute("SELECT count(*) FROM duckdb_views() WHERE NOT internal").fetchone()
    assert tables is not None and views is not None
    return tables[0], views[0]


def test_each_view_check_starts_from_an_empty_scratch_database(study: Path, tmp_path: Path) -> None:
    """The views are rebuilt in one in-memory database a process, each check in a
    transaction rolled back: after a check that passes and one that fails, it is empty and
    the same database, and a passing study passes again after the failure."""
    from sim.batch.storage import schema
    from sim.batch.storage.store import Store, StoreError

    Store.open(study / "study.duckdb", read_only=True).close()
    scratch = schema._scratch()
    assert _scratch_holds() == (0, 0)
    folder = _hostile(study, tmp_path, "CREATE OR REPLACE VIEW runs_wide AS SELECT * FROM runs")
    with pytest.raises(StoreError, match="its view 'runs_wide' is not the one"):
        Store.open(folder / "study.duckdb", read_only=True)
    assert _scratch_holds() == (0, 0)
    Store.open(study / "study.duckdb", read_only=True).close()
    assert schema._scratch() is scratch
    assert _scratch_holds() == (0, 0)


FORKS = """
import multiprocessing, os, sys
from sim.api import load_study
from sim.batch.storage.store import Store
folder = sys.argv[1]
Store.open(os.path.join(folder, "study.duckdb"), read_only=True).close()
pid = os.fork()
if pid == 0:
    sys.exit(0)  # an ordinary exit: the interpreter's own shutdown
print("child", os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]))
def rows(f):
    return len(load_study(f))
with multiprocessing.get_context("fork").Pool(2) as pool:
    print("pool", pool.map_async(rows, [folder] * 2).get(timeout=30))
"""


def test_a_process_that_checked_a_study_forks_children_that_check_studies_and_exit(
    study: Path,
) -> None:
    """DuckDB runs threads while a database is open: the scratch database is closed before
    a fork, so a child exits cleanly, and a fork pool's workers open studies (with the
    parent's database inherited, the first crashed as it exited and the workers hung)."""
    done = subprocess.run(
        [sys.executable, "-c", FORKS, str(study)],
        check=False,
        capture_output=True,
        text=True,
        timeout=90,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["child 0", "pool [2, 2]"]


def test_a_check_left_in_a_transaction_or_failing_in_duckdb_leaves_no_trace(
    study: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A check interrupted before its rollback leaves the scratch in a transaction: the next
    open uses a fresh database; a rebuild DuckDB refuses is rolled back (the tables made
    before it too); and the scratch's settings cannot be changed."""
    from sim.batch.storage import schema
    from sim.batch.storage.store import Store, StoreError

    Store.open(study / "study.duckdb", read_only=True).close()
    schema._scratch().execute("BEGIN TRANSACTION")  # as a Ctrl-C between BEGIN and ROLLBACK
    Store.open(study / "study.duckdb", read_only=True).close()
    assert _scratch_holds() == (0, 0)
    monkeypatch.setattr(schema, "_units_select", lambda *_: "SELECT * FROM nowhere")
    with pytest.raises(StoreError, match="its views are not a study's"):
        Store.open(study / "study.duckdb", read_only=True)
    assert _scratch_holds() == (0, 0)
    monkeypatch.undo()
    Store.open(study / "study.duckdb", read_only=True).close()
    with pytest.raises(duckdb.Error, match="configuration has been locked"):
        schema._scratch().execute("SET autoload_known_extensions = true")


class _Interrupted:
    """A lock whose first acquire is interrupted (Ctrl-C while a fork waits for a check)."""

    def __init__(self) -> None:
        self.calls = 0
        self.held = False

    def acquire(self) -> bool:
        self.calls += 1
        if self.calls == 1:
            raise KeyboardInterrupt
        self.held = True
        return True


def test_an_interrupt_while_a_fork_waits_still_takes_the_lock_and_closes_the_database(
    study: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """CPython forks even when its fork handler raised: the handler retries, so the lock
    its after-fork handlers release is held and no database is left to the child."""
    from sim.batch.storage import schema
    from sim.batch.storage.store import Store

    Store.open(study / "study.duckdb", read_only=True).close()
    assert schema._SCRATCH
    lock = _Interrupted()
    monkeypatch.setattr(schema, "_SCRATCH_LOCK", lock)
    schema._before_fork()
    assert lock.calls == 2 and lock.held
    assert not schema._SCRATCH


def _rebuilt_study(study: Path, tmp_path: Path, generated: str, check: str) -> Path:
    """The study with its ``study`` table made again, its ``name`` column ``generated``
    (an expression, or "" to keep it a column) and the table's ``check`` (or "")."""
    copy = tmp_path / "st"
    shutil.copytree(study, copy)
    con = duckdb.connect(str(copy / "study.duckdb"))
    columns = con.execute(
        "SELECT column_name, data_type FROM duckdb_columns() WHERE table_name = 'study' "
        "ORDER BY column_index"
    ).fetchall()
    kept = [f'"{c}"' for c, _ in columns if not (generated and c == "name")]
    made = ", ".join(
        f'"{c}" {t} GENERATED ALWAYS AS ({generated}) VIRTUAL'
        if generated and c == "name"
        else f'"{c}" {t}'
        for c, t in columns
    )
    con.execute(f"CREATE TABLE study2 ({made}{', CHECK (' + check + ')' if check else ''})")
    con.execute(f"INSERT INTO study2 ({', '.join(kept)}) SELECT {', '.join(kept)} FROM study")
    con.execute("DROP TABLE study")
    con.execute("ALTER TABLE study2 RENAME TO study")
    con.close()
    return copy


@pytest.mark.parametrize(
    ("generated", "check", "named"),
    [
        ("'PWNED ' || CAST(random() AS VARCHAR)", "",
         "it holds a column study.name computed by an expression, which a study never has"),
        ("", "random() >= 0", "it holds a CHECK constraint on its study table, which a study "
         "never has"),
    ],
)  # fmt: skip
@pytest.mark.parametrize("command", [("verify",), ("export",)])
def test_an_expression_in_a_table_is_refused_before_a_row_is_read(
    study: Path, tmp_path: Path, generated: str, check: str, named: str, command: tuple[str, ...]
) -> None:
    """A generated column (evaluated on every read: verify reported a new random study name
    each time and export wrote it) or a CHECK constraint (evaluated on every write: verify
    passed): refused from the catalog, one line, exit 2."""
    folder = _rebuilt_study(study, tmp_path, generated, check)
    assert named in _refused(folder, *command)
    assert not (folder / "export").exists()


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        # a chunk size of 0: the pilot and the chunk counts divided by zero
        ("UPDATE study SET plan = json_merge_patch(plan, '{\"chunk_size\": 0}')",
         "damaged: the study's plan has chunk_size 0, not a whole number of at least 1"),
        ("UPDATE study SET plan = json_merge_patch(plan, '{\"until_ci\": 0}')",
         "damaged: the study's plan has until_ci 0, not a half-width between 0 and 0.5"),
        ("UPDATE study SET chunk_size = -3",
         "damaged: the study row has chunk_size -3, not a whole number of at least 1"),
        # a scenario's data called a campaign: a KeyError, or 28 lines of pydantic's
        ("UPDATE study SET target = json_merge_patch(target, '{\"kind\": \"campaign\"}')",
         "the study's target is not a campaign this battlesim can fight: campaign: Field "
         "required"),
        # nested 100,000 deep: "battlesim: error: input nested too deeply", naming no file
        *((f"UPDATE study SET {key} = '{'[' * 100_000}'",
           f"damaged: the study's {key} is not JSON (maximum recursion depth exceeded while "
           "decoding a JSON array from a unicode string)")
          for key in ("factors", "sides", "plan", "target")),
    ],
)  # fmt: skip
def test_a_plan_or_target_no_study_writes_is_one_line(
    study: Path, tmp_path: Path, edit: str, message: str
) -> None:
    """Values inside the plan and the target are checked, not only their outline: each
    command that reads the battles says so in one line naming the database, exit 2."""
    copy = _hostile(study, tmp_path, edit)
    for args in (("verify", copy), ("rerun", copy, "1", "--out", tmp_path / "r.jsonl")):
        result = invoke(*args)
        assert (result.exit_code, result.output) == (
            2,
            f"battlesim: error: {copy / 'study.duckdb'}: {message}\n",
        ), args
