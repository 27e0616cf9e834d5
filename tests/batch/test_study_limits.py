"""A study or discovery that cannot be done says so in one line (exit 2): too many runs,
a condition too long to echo or with digits that are not ASCII, a damaged design point;
a large design says it is being checked; an interrupt says what it kept, truthfully."""

from __future__ import annotations

import contextlib
import json
import re
import subprocess
import sys
import warnings
from pathlib import Path

import duckdb
import pytest

from sim import api
from sim.batch.storage.progress import StudyProgress, read_progress
from sim.batch.storage.store import Store
from tests.batch.helpers import REPO, STONE_WALL, invoke
from tests.batch.synthetic import synthetic_study

LHS = """\
name: big
scenario: {scenario}
seed: 1
replications: {runs}
design: lhs
points: {points}
factors:
  - {{path: {path}, range: [{low}, {high}], type: int}}
"""


def _study_file(
    tmp_path: Path, runs: int, points: int, path: str = "options.fire_hcv", low: int = 15
) -> Path:
    file = tmp_path / "big.yaml"
    text = LHS.format(
        scenario=STONE_WALL, runs=runs, points=points, path=path, low=low, high=low + 20
    )
    file.write_text(text, encoding="utf-8")
    return file


def test_a_study_of_more_runs_than_the_cap_is_refused_before_a_point_is_built(
    tmp_path: Path,
) -> None:
    """10⁵ points × 10⁷ replications = 10¹² runs: one line naming the file and the product."""
    path = _study_file(tmp_path, runs=1000, points=10)
    result = invoke(
        "study", path, "--points", "100000", "--runs", "10000000", "--out", tmp_path / "o"
    )
    assert result.exit_code == 2
    assert result.output == (
        f"battlesim: error: {path}: 100,000 design points × 10,000,000 replications = "
        "1,000,000,000,000 runs; a study plans at most 100,000,000 (lower the replications "
        "or the points)\n"
    )
    assert not (tmp_path / "o" / "study.duckdb").exists()


def test_batch_counts_a_grid_without_building_it(tmp_path: Path) -> None:
    """A grid's points are the product of its levels: 3 × 4 = 12 points × 10⁷ runs is over."""
    result = invoke(
        "batch", STONE_WALL, "--runs", "10000000", "--sweep", "options.fire_hcv=15,25,35",
        "--sweep", "sides.csa.units.phil.strength=300,350,400,450", "--out", tmp_path / "o",
    )  # fmt: skip
    assert result.exit_code == 2
    assert result.output == (
        f"battlesim: error: {STONE_WALL}: 12 design points × 10,000,000 replications = "
        "120,000,000 runs; a study plans at most 100,000,000 (lower the replications "
        "or the points)\n"
    )


def test_a_large_design_says_it_is_being_checked(tmp_path: Path) -> None:
    """2,000 points: a line says so before the check; here the check then refuses point 0."""
    strength = "sides.csa.units.cobb.strength"
    path = _study_file(tmp_path, runs=1, points=2000, path=strength, low=-40)
    result = invoke("study", path, "--out", tmp_path / "o")
    assert result.exit_code == 2
    lines = result.output.splitlines()
    assert lines[0] == "battlesim: building and checking 2,000 design points before the first run…"
    assert re.fullmatch(
        rf"{re.escape(str(path))}:\d+: factors\.0\.range: {strength} = (-\d+): \1 is less than "
        "1, the least it may be",
        lines[1],
    )
    assert len(lines) == 2


def _interrupted(tmp_path: Path, after: int) -> tuple[int, str, Path]:
    out = tmp_path / "s"
    cmd = [sys.executable, "-m", "tests.batch.kill_after", f"interrupt:{after}", "-", "batch"]
    cmd += [str(STONE_WALL), "--out", str(out), "--jobs", "1", "--runs", "40", "--seed", "5"]
    cmd += ["--chunk-size", "5", "--quiet", "--no-plots", "--sweep", "options.fire_hcv=20,30"]
    log = tmp_path / "stderr.txt"
    with log.open("wb") as err:
        done = subprocess.run(cmd, check=False, cwd=REPO, stdout=subprocess.DEVNULL, stderr=err)
    return done.returncode, log.read_text(encoding="utf-8"), out


def test_an_interrupt_before_any_commit_does_not_claim_kept_chunks(tmp_path: Path) -> None:
    code, err, out = _interrupted(tmp_path, 0)
    assert code == 1
    assert err.strip() == (
        "battlesim: interrupted before any chunk was committed: no run is kept — "
        "run the same command with --resume to start the study"
    )
    store = Store.open(out / "study.duckdb", read_only=True)
    try:
        assert store.count() == 0
    finally:
        store.close()


def test_an_interrupt_after_commits_counts_what_is_kept(tmp_path: Path) -> None:
    """Two chunks of 5 runs committed, then Ctrl-C: 10 runs kept, and the study has them."""
    code, err, out = _interrupted(tmp_path, 2)
    assert code == 1
    assert err.strip() == (
        "battlesim: interrupted; the committed chunks are kept (10 runs) — "
        "run the same command with --resume to complete the study"
    )
    store = Store.open(out / "study.duckdb", read_only=True)
    try:
        assert store.count() == 10
    finally:
        store.close()


def test_an_export_of_an_interrupted_study_is_noted_and_removed_by_the_resume(
    tmp_path: Path,
) -> None:
    """An export of an interrupted study holds its 10 runs and says so, and no manifest
    vouches for it (a study stopped before its end has none, and the export writes none);
    the --resume that fights the other 70 removes it before it starts, so the finished
    study's manifest lists no export of 10 runs and verify passes."""
    code, _, out = _interrupted(tmp_path, 2)
    assert code == 1
    exported = invoke("export", out, "--format", "csv")
    assert exported.exit_code == 0, exported.output
    assert exported.stderr.strip() == (
        f"battlesim: note: {str(out)!r} is incomplete (10 of 80 runs committed): export reads "
        "those; complete it with --resume, then export again"
    )
    found = invoke("discover", out, "--measure", "usa_men_lost >= 0", "--no-plot")
    assert found.stderr.startswith(f"battlesim: note: {str(out)!r} is incomplete (")
    assert found.stderr.rstrip().endswith(
        "discover reads those; complete it with --resume, then discover again"
    )
    runs = (out / "export" / "runs.csv").read_text(encoding="utf-8").splitlines()
    assert len(runs) == 1 + 10 and not (out / "manifest.json").exists()
    with pytest.warns(api.IncompleteStudyWarning) as caught:
        assert len(api.load_study(out)) == 10
    assert [str(w.message) for w in caught] == [
        f"{str(out)!r} is incomplete (10 of 80 runs committed): the DataFrame holds those; "
        "complete the study with --resume on the command that made it (battlesim batch or "
        "study)"
    ]
    args = ["batch", STONE_WALL, "--out", out, "--jobs", "1", "--runs", "40", "--seed", "5"]
    args += ["--chunk-size", "5", "--quiet", "--no-plots", "--sweep", "options.fire_hcv=20,30"]
    (out / "export" / "my_notes.txt").write_text("the user's, not an export\n")
    resumed = invoke(*args, "--resume")
    assert resumed.exit_code == 0, resumed.output
    assert resumed.stderr.splitlines() == [
        "battlesim: note: removed what was made from the incomplete study (export/points.csv, "
        "export/runs.csv, export/study.csv, export/unit_finals.csv): export or discover again "
        "once it is complete"
    ]
    # only what export wrote is removed: a file of the user's there stays
    assert [p.name for p in (out / "export").iterdir()] == ["my_notes.txt"]
    manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["runs"] == 80
    assert not any(f.startswith("export/") for f in manifest["files"])
    (out / "export" / "my_notes.txt").unlink()
    (out / "export").rmdir()
    assert invoke("verify", out, "--sample", "1").exit_code == 0
    again = invoke("export", out, "--format", "csv")
    assert again.exit_code == 0 and again.stderr == ""
    with warnings.catch_warnings():
        warnings.simplefilter("error", api.IncompleteStudyWarning)
        assert len(api.load_study(out)) == 80
    from sim.api import StoreError  # what load_study raises, from the API itself

    with pytest.raises(StoreError, match="no study database at"):
        api.load_study(out / "nothing")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{"committed": 10, "planned": 80}\n', StudyProgress(10, 80, finished=False)),
        ('{"committed": 80, "planned": 80, "finished": true}\n', StudyProgress(80, 80, True)),
        ('{"committed": 80, "planned": 80, "finished": "yes"}\n', StudyProgress(80, 80, False)),
        ("[1, 2]\n", None),  # not battlesim's shape
        ('{"committed": "ten", "planned": 80}\n', None),
        ("{not json\n", None),
        ('{"committed": 1e400, "planned": 80}\n', None),  # not int(inf): an OverflowError
        ('{"committed": "10", "planned": 80}\n', None),
        ('{"committed": true, "planned": 80}\n', None),
        ('{"committed": 3.7, "planned": 80}\n', None),
        (" " * 5000 + "{}\n", None),  # longer than battlesim ever writes
    ],
)
def test_the_progress_file_is_read_back_or_ignored(
    tmp_path: Path, text: str, expected: StudyProgress | None
) -> None:
    """progress.json as the coordinator writes it, or None for a file it did not write."""
    (tmp_path / "progress.json").write_text(text, encoding="utf-8")
    assert read_progress(tmp_path) == expected
    assert read_progress(tmp_path / "absent") is None


def test_a_progress_file_that_is_no_file_is_not_read(tmp_path: Path) -> None:
    """A link to /dev/zero (endless) or a FIFO (which would block) where progress.json
    should be: None, at once, without reading it."""
    import os

    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "progress.json").symlink_to("/dev/zero")
    assert read_progress(tmp_path / "a") is None
    (tmp_path / "b").mkdir()
    os.mkfifo(tmp_path / "b" / "progress.json")
    assert read_progress(tmp_path / "b") is None


def test_ctrl_c_at_a_terminal_on_a_local_dask_cluster_says_one_line(tmp_path: Path) -> None:
    """Ctrl-C reaches the whole process group, the local Dask cluster's Nannies and workers
    too: they ignore it (each printed its own KeyboardInterrupt traceback), and the
    study closes them and says the one line a local pool's study says. Port 8787, which a
    scheduler's HTTP server takes when it can, is held meanwhile (a notebook's cluster):
    distributed's warning that it is in use stays off stderr."""
    import socket

    out = tmp_path / "s"
    cmd = [sys.executable, "-m", "tests.batch.kill_after", "interrupt-group:2", "-", "batch"]
    cmd += [str(STONE_WALL), "--out", str(out), "--jobs", "2", "--runs", "400", "--seed", "5"]
    cmd += ["--chunk-size", "5", "--quiet", "--no-plots", "--executor", "dask"]
    with socket.socket() as held:
        with contextlib.suppress(OSError):  # in use already: by another, as well
            held.bind(("", 8787))
            held.listen()
        done = subprocess.run(
            cmd, check=False, cwd=REPO, capture_output=True, text=True, start_new_session=True
        )
    assert done.returncode == 1, done.stderr
    assert "Traceback" not in done.stderr
    kept = done.stderr.strip()
    assert kept.startswith("battlesim: interrupted; the committed chunks are kept ("), kept
    assert kept.endswith(" runs) — run the same command with --resume to complete the study")
    assert len(done.stderr.strip().splitlines()) == 1


@pytest.fixture(scope="module")
def small(tmp_path_factory: pytest.TempPathFactory) -> Path:
    factors = [{"path": "options.fire_hcv", "values": [10, 20]}]
    points = [{"options.fire_hcv": 10}, {"options.fire_hcv": 20}]
    return synthetic_study(
        tmp_path_factory.mktemp("small") / "s", factors, points, lambda p, _v: [("usa", 5)] * 4
    )


def test_a_100_kb_condition_is_quoted_by_a_short_excerpt(small: Path) -> None:
    condition = "turns > 1" + "1" * 100_000 + " junk"
    result = invoke("discover", small, "--measure", condition, "--no-plot")
    assert result.exit_code == 2
    shown = repr(condition[:40])
    number = repr("1" * 40)
    assert result.output == (
        f"battlesim: error: --measure {shown}… (100,014 characters): at character 9: "
        f"{number}… (100,001 characters) is not a finite number\n"
    )
    name = "x" * 100_000
    result = invoke("discover", small, "--measure", f"{name} > 3", "--no-plot")
    assert result.exit_code == 2
    assert result.output == (
        f"battlesim: error: --measure {name[:40]!r}… (100,004 characters): at character 1: "
        f"{name[:40]!r}… (100,000 characters) is not a measure of this study "
        "(measures: battles, csa_draws, csa_men_lost, turns, usa_draws, usa_men_lost; "
        "or winner, draw)\n"
    )


def test_a_condition_takes_ascii_digits_only(small: Path) -> None:
    """Arabic-Indic ١٠ is a digit to Python, never to a condition."""
    result = invoke("discover", small, "--measure", "turns > ١٠", "--no-plot")
    assert result.exit_code == 2
    assert result.output == (
        "battlesim: error: --measure 'turns > ١٠': at character 9: '١' is not an ASCII digit: "
        "write numbers with 0-9\n"
    )


@pytest.mark.parametrize(
    ("args", "code"),
    [
        (("discover", "--measure", "turns > 3", "--no-plot"), 2),
        (("export", "--format", "csv"), 2),
        (("verify", "--sample", "0"), 2),
    ],
)
def test_a_damaged_design_point_is_one_line_naming_the_file(
    tmp_path: Path, args: tuple[str, ...], code: int
) -> None:
    """Store.points() names the database for every command that reads the points."""
    factors = [{"path": "options.fire_hcv", "values": [10, 20]}]
    points = [{"options.fire_hcv": 10}, {"options.fire_hcv": 20}]
    folder = synthetic_study(tmp_path / "s", factors, points, lambda p, _v: [("usa", 5)] * 4)
    db = folder / "study.duckdb"
    con = duckdb.connect(str(db))
    con.execute("""UPDATE points SET "values" = '{"options.fire_hcv": ' WHERE point = 1""")
    con.close()
    result = invoke(args[0], folder, *args[1:])
    assert result.exit_code == code, result.output
    assert result.output == (
        f"battlesim: error: {db}: damaged: a design point is not JSON "
        "(Expecting value: line 1 column 22 (char 21))\n"
    )


@pytest.mark.parametrize("command", ["discover", "verify"])
def test_a_damaged_plan_is_one_line_naming_the_file(tmp_path: Path, command: str) -> None:
    """Store.meta() names the database when the study row's plan is not JSON."""
    factors = [{"path": "options.fire_hcv", "values": [10, 20]}]
    points = [{"options.fire_hcv": 10}, {"options.fire_hcv": 20}]
    folder = synthetic_study(tmp_path / "s", factors, points, lambda p, _v: [("usa", 5)] * 4)
    db = folder / "study.duckdb"
    con = duckdb.connect(str(db))
    con.execute("UPDATE study SET plan = '{'")
    con.close()
    args = ["--measure", "turns > 3", "--no-plot"] if command == "discover" else ["--sample", "0"]
    result = invoke(command, folder, *args)
    assert result.exit_code == 2, result.output
    said = f"battlesim: error: {db}: damaged: the study's plan is not JSON"
    assert result.output.startswith(said)
    assert result.output.count("\n") == 1


@pytest.mark.parametrize(
    ("edit", "said"),
    [
        ("UPDATE study SET plan = '[1]'", "the study's plan is not a mapping"),
        ("UPDATE study SET factors = '{}'", "the study's factors is not a list"),
        (
            "UPDATE study SET factors = '[1]'",
            "the study's factors holds an entry that is not a mapping",
        ),
        ("UPDATE study SET sides = '[1]'", "the study's sides holds an entry that is not a list"),
        (
            "UPDATE study SET target = '{}'",
            "the study's target is not a scenario or campaign target (kind, source, data)",
        ),
        (
            """UPDATE study SET target = '{"kind": "campaign", "source": "x", "data": []}'""",
            "the study's target is not a scenario or campaign target (kind, source, data)",
        ),
        (
            """UPDATE points SET "values" = '[1]' WHERE point = 1""",
            "design point 1 is not a mapping",
        ),
    ],
)
@pytest.mark.parametrize("command", ["discover", "verify"])
def test_json_of_another_shape_is_one_line_naming_the_file(
    tmp_path: Path, command: str, edit: str, said: str
) -> None:
    """A study row's JSON or a design point that parses but is not of the shape battlesim
    writes is damage named in one line, exit 2, not a Python error's name (a reviewer's
    attack found ``AttributeError: 'list' object has no attribute 'get'``)."""
    factors = [{"path": "options.fire_hcv", "values": [10, 20]}]
    points = [{"options.fire_hcv": 10}, {"options.fire_hcv": 20}]
    folder = synthetic_study(tmp_path / "s", factors, points, lambda p, _v: [("usa", 5)] * 4)
    db = folder / "study.duckdb"
    con = duckdb.connect(str(db))
    con.execute(edit)
    con.close()
    args = ["--measure", "turns > 3", "--no-plot"] if command == "discover" else ["--sample", "0"]
    result = invoke(command, folder, *args)
    assert (result.exit_code, result.output) == (2, f"battlesim: error: {db}: damaged: {said}\n")


@pytest.mark.parametrize(
    ("factor", "message"),
    [
        (
            "{path: map.terrain.0.cover, range: [-50, -20], levels: 4}",
            "factors.0.range: map.terrain.0.cover = -50.0: -50.0 is not an integer: write -50 "
            "(a range factor's values are decimals unless it says 'type: int')",
        ),
        (
            "{path: map.terrain.0.cover, values: [-20, -35.5]}",  # -20 was blamed, "write -20"
            "factors.0.values.1: map.terrain.0.cover = -35.5: -35.5 is not a whole number, and "
            "this field takes whole numbers only (beside it, every value of the factor is read "
            "as a decimal)",
        ),
    ],
)
def test_a_whole_number_a_factor_made_a_decimal_says_why(
    tmp_path: Path, factor: str, message: str
) -> None:
    """The study file says -50 (or -20); the scenario's int field is given -50.0: the
    message says what made it a decimal, at the study file's line of the factor's value
    (or range) that made it."""
    study = tmp_path / "s.yaml"
    study.write_text(
        f"scenario: {STONE_WALL}\nreplications: 5\nfactors: [{factor}]\n", encoding="utf-8"
    )
    result = invoke("study", study, "--out", tmp_path / "o", "-q")
    assert result.exit_code == 2
    assert result.stderr == f"{study}:3: {message}\n"


def test_tornados_log_of_a_cancelled_dask_future_is_dropped_and_no_other() -> None:
    """What the study cancels (chunks of a stopped point, or every one in flight at
    Ctrl-C) tornado logs with a traceback; that record alone is dropped."""
    import logging

    from distributed.client import FutureCancelledError

    from sim.batch.execution.executors import _CancelledQuiet

    def record(exc: BaseException) -> logging.LogRecord:
        return logging.LogRecord(
            "tornado.application", logging.ERROR, __file__, 1, "Exception in callback",
            None, (type(exc), exc, None),
        )  # fmt: skip

    quiet = _CancelledQuiet()
    assert not quiet.filter(record(FutureCancelledError("study_chunk-1", "unknown")))
    assert quiet.filter(record(RuntimeError("a real error")))
    assert quiet.filter(
        logging.LogRecord("x", logging.ERROR, __file__, 1, "no exception", None, None)
    )


def test_the_schedulers_word_on_a_forgotten_chunk_is_dropped() -> None:
    """At Ctrl-C the scheduler may log that it could not gather a chunk the study had just
    cancelled ('forgotten', as it should be): that record alone is dropped, so the study's
    one line stays one; a key in any other state still logs (seen once in a fresh clone's
    run of the Ctrl-C test above)."""
    import logging

    from sim.batch.execution.executors import _ForgottenQuiet

    def record(msg: str, *args: object) -> logging.LogRecord:
        return logging.LogRecord(
            "distributed.scheduler", logging.ERROR, __file__, 1, msg, args, None
        )

    quiet = _ForgottenQuiet()
    gone = {"study_chunk-7eff": "forgotten", "study_chunk-8a01": "forgotten"}
    assert not quiet.filter(record("Couldn't gather keys: %s", gone))
    assert quiet.filter(record("Couldn't gather keys: %s", {"study_chunk-1": "erred"}))
    assert quiet.filter(record("Couldn't gather keys: %s", {**gone, "study_chunk-2": "memory"}))
    assert quiet.filter(record("Another scheduler error"))


def test_an_interrupt_while_the_database_is_made_leaves_none(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ctrl-C inside Store.create, before its one commit: the file DuckDB made (no tables
    yet) is removed, so the same command starts the study afresh, where an empty database
    was once left that neither --resume nor a new study could take; the note says so."""
    from sim.batch.inputs.target import load_target
    from sim.batch.planning.plan import StudyPlan
    from sim.batch.storage import store as store_module
    from sim.batch.study import RunOptions, run_study
    from sim.cli.outcomes.batch import _interrupted

    def interrupted(*_args: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(store_module, "create_units", interrupted)
    plan = StudyPlan(load_target(STONE_WALL), seed=4, replications=2)
    out = tmp_path / "s"
    with pytest.raises(KeyboardInterrupt):
        run_study(plan, out, RunOptions(jobs=1, plots=False))
    assert not (out / "study.duckdb").exists() and not (out / "study.duckdb.wal").exists()
    assert _interrupted(out / "study.duckdb") == (
        "battlesim: interrupted before the study's database was made: nothing is kept — run "
        "the same command to start the study"
    )
    monkeypatch.undo()
    assert run_study(plan, out, RunOptions(jobs=1, plots=False)).committed == 2


def test_a_fraction_a_sampled_range_drew_for_whole_numbers_says_type_int(tmp_path: Path) -> None:
    """A Latin hypercube over a range on a field of whole numbers, without `type: int`:
    the point's fraction was refused as "is not an integer" alone, where a grid's point
    (checked when the study opens) said why; both now name `type: int`."""
    study = tmp_path / "s.yaml"
    study.write_text(
        f"scenario: {STONE_WALL}\nreplications: 2\nseed: 1\ndesign: lhs\npoints: 3\n"
        "factors: [{path: sides.csa.units.cobb.strength, range: [300, 500]}]\n",
        encoding="utf-8",
    )
    result = invoke("study", study, "--out", tmp_path / "o", "-q")
    assert result.exit_code == 2
    head, _, said = result.stderr.partition(" is not an integer")
    assert head.startswith(f"{study}:6: factors.0.range: sides.csa.units.cobb.strength = ")
    assert said == " (a range factor's values are decimals unless it says 'type: int')\n"


def test_a_local_clusters_workers_drop_their_heartbeat_failure_as_the_study_closes() -> None:
    """A loaded machine's Ctrl-C test once ended with a worker's "Failed to communicate with
    scheduler during heartbeat." and its traceback after the study's one line: the scheduler
    is the study's own and had just closed. Every worker of the study's local cluster drops
    that record, and only that record."""
    import logging

    from sim.batch.execution.executors import _dask, _HeartbeatQuiet

    def record(msg: str) -> logging.LogRecord:
        return logging.LogRecord("distributed.worker", logging.ERROR, __file__, 1, msg, None, None)

    quiet = _HeartbeatQuiet()
    assert not quiet.filter(record("Failed to communicate with scheduler during heartbeat."))
    assert quiet.filter(record("Unexpected exception during heartbeat. Closing worker."))
    assert quiet.filter(record("Compute Failed"))

    def filters() -> list[str]:
        return [type(f).__name__ for f in logging.getLogger("distributed.worker").filters]

    with _dask(2, None) as ex:
        ran = ex._client.run(filters)  # type: ignore[attr-defined]  # distributed's executor
    assert len(ran) == 2
    assert all(names.count("_HeartbeatQuiet") == 1 for names in ran.values()), ran
