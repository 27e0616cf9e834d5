"""``battlesim verify STUDY_DIR`` words its counts as counts: "1 point", "1 run", "1 more
difference" (it said "the plan's 1 points × 1 runs" and "re-derived from 1 runs")."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import duckdb
import pytest

from sim.batch.inputs.target import load_target
from sim.batch.planning.plan import StudyPlan
from sim.batch.study import RunOptions, run_study
from sim.batch.verification.verify import _changes, verify_study
from tests.batch.helpers import SCENARIOS, invoke

BRAWL = SCENARIOS / "tavern_brawl.yaml"


def _study(folder: Path, replications: int) -> Path:
    """A one-point study of the tavern brawl (no factors), no replay kept."""
    plan = StudyPlan(target=load_target(BRAWL), seed=3, replications=replications, chunk_size=1)
    run_study(plan, folder, RunOptions(jobs=1, plots=False))
    return folder


@pytest.fixture(scope="module")
def one_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One point, one replication: a study of a single run."""
    return _study(tmp_path_factory.mktemp("one") / "s", 1)


@pytest.fixture(scope="module")
def thirteen(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One point, 13 replications: one more than the runs' differences verify lists."""
    return _study(tmp_path_factory.mktemp("thirteen") / "s", 13)


def _copy(study: Path, tmp_path: Path) -> Path:
    return Path(shutil.copytree(study, tmp_path / "s"))


def _sql(folder: Path, sql: str) -> None:
    with duckdb.connect(str(folder / "study.duckdb")) as con:
        con.execute(sql)


def test_a_study_of_one_run_verifies_from_1_run(one_run: Path) -> None:
    """The verdict of a one-run study says "re-derived from 1 run; 1 run's rows"."""
    result = invoke("verify", one_run, "--sample-seed", "3")
    assert result.exit_code == 0, result.output
    assert result.output.splitlines() == [
        f"OK: {one_run}: plan, seeds, every planned run present and summary.json re-derived "
        "from 1 run; 1 run's rows and kept replays match their digests; 2 files match the "
        "manifest; 1 run re-fought identically (every run: 0); a run altered with its "
        "digests recomputed is caught with probability 100.00% (1 of 1: every run re-fought)"
    ]


def test_a_run_added_to_a_one_point_plan_is_more_than_1_point_x_1_run(
    one_run: Path, tmp_path: Path
) -> None:
    """A second row put in a study that plans one run: "the plan's 1 point × 1 run"."""
    copy = _copy(one_run, tmp_path)
    _sql(copy, "INSERT INTO runs SELECT * REPLACE (run_id + 1 AS run_id) FROM runs")
    result = invoke("verify", copy, "--sample", "0")
    assert result.exit_code == 1, result.output
    assert result.output.splitlines() == [
        "DIFFERS: runs: 2 stored, more than the plan's 1 point × 1 run",
        f"{copy}: 1 difference",
    ]


def test_the_chain_of_one_run_left_says_1_run_stored(thirteen: Path, tmp_path: Path) -> None:
    """Twelve of the thirteen runs deleted: the manifest's chain line says "1 run stored"."""
    copy = _copy(thirteen, tmp_path)
    _sql(copy, "DELETE FROM runs WHERE run_id > 0")
    _sql(copy, "DELETE FROM run_digests WHERE run_id > 0")
    check = verify_study(copy, sample=0)
    assert (
        "manifest.json: the runs' digests chain to another value than it records (1 run "
        "stored, 13 recorded): runs deleted, added or changed since the study ended"
    ) in check.differences


def test_one_run_difference_past_those_listed_is_1_more_difference(
    thirteen: Path, tmp_path: Path
) -> None:
    """Each of the 13 runs' reason changed (a column no summary reads): 12 listed, then "… and
    1 more difference" (it said "… and 1 more runs differ")."""
    copy = _copy(thirteen, tmp_path)
    _sql(copy, "UPDATE runs SET reason = reason || '!'")
    check = verify_study(copy, sample=0)
    mismatch = "its runs row (winner, losses, outcome …) does not match its digest"
    assert check.differences == [
        *(f"run {i}: {mismatch}" for i in range(12)),
        "runs: … and 1 more difference",
    ]
    assert check.difference_count == 13


def test_the_differences_past_those_listed_are_counted(thirteen: Path, tmp_path: Path) -> None:
    """The 13 runs' reasons changed and unit rows put in for two runs never stored (ids 20 and
    21): 12 listed and "… and 3 more differences", and the count says 15 (it counted the line
    "… and 3 more runs differ" as one difference, 13 in all)."""
    copy = _copy(thirteen, tmp_path)
    _sql(copy, "UPDATE runs SET reason = reason || '!'")
    _sql(
        copy,
        "INSERT INTO unit_rows SELECT * REPLACE (run_id + 20 AS run_id) FROM unit_rows "
        "WHERE run_id < 2",
    )
    result = invoke("verify", copy, "--sample", "0")
    assert result.exit_code == 1, result.output
    assert result.output.splitlines()[-2:] == [
        "DIFFERS: runs: … and 3 more differences",
        f"{copy}: 15 differences",
    ]


def test_one_change_past_the_three_listed_is_1_more_difference() -> None:
    """Four changes of one file: three listed, then "… and 1 more difference" (not
    "differences"), which a check's count reads as 1."""
    a: dict[str, Any] = {"w": 1, "x": 2, "y": 3, "z": 4}
    b = {k: v + 1 for k, v in a.items()}
    assert _changes(a, b, "summary.json", "stored", "re-derived") == [
        "summary.json: w: stored 1, re-derived 2",
        "summary.json: x: stored 2, re-derived 3",
        "summary.json: y: stored 3, re-derived 4",
        "summary.json: … and 1 more difference",
    ]


def test_the_verdicts_counts_of_one_and_of_two_are_words_not_parentheses() -> None:
    """The verdict words each count by its number: "1 file matches the manifest", "1 run
    re-fought", "1 kept replay", "1 difference" (it said "1 file(s) match", "1 run(s)
    re-fought", "1 kept replay(s)", "1 difference(s)"), and the plural at two."""
    from sim.batch.verification.verify import StudyCheck, verify_lines

    one = StudyCheck(study="st", runs=1, sample_seed=3, sampled=[0], replays=1)
    one.digests, one.files = 1, 1
    assert verify_lines(one) == [
        "OK: st: plan, seeds, every planned run present and summary.json re-derived from 1 run; "
        "1 run's rows and kept replays match their digests; 1 file matches the manifest; 1 run "
        "re-fought identically (sample seed 3: 0), 1 kept replay byte for byte; a run altered "
        "with its digests recomputed is caught with probability 100.00% (1 of 1; --all fights "
        "every run)"
    ]
    two = StudyCheck(study="st", runs=2, sample_seed=3, sampled=[0, 1], replays=2)
    two.digests, two.files = 2, 2
    assert verify_lines(two)[0].endswith(
        "2 files match the manifest; 2 runs re-fought identically (sample seed 3: 0, 1), 2 kept "
        "replays byte for byte; a run altered with its digests recomputed is caught with "
        "probability 100.00% (2 of 2; --all fights every run)"
    )
    one.differences.append("summary.json: missing")
    one.damaged = True
    assert verify_lines(one)[-1] == (
        "st: 1 difference: its database is damaged, so nothing past the damage was checked"
    )


def test_a_verdict_that_fought_every_run_names_no_seed_and_reads_the_same_each_time(
    one_run: Path,
) -> None:
    """Every run fought again (--all, or a sample as large as the study): the sample seed
    chose nothing, so the verdict does not name it, and two checks of one study print one
    text (it said "(sample seed <a fresh number each time>: 0)")."""
    first, second = (invoke("verify", one_run, "--all") for _ in range(2))
    assert first.exit_code == second.exit_code == 0, first.output
    assert first.output == second.output
    assert "1 run re-fought identically (every run: 0); " in first.output
    assert "sample seed" not in invoke("verify", one_run).output


def test_json_names_no_sample_seed_when_every_run_was_fought(one_run: Path) -> None:
    """--json of a check that fought every run again: sample_seed null (no sample was drawn),
    so two checks of one study print the same object (it gave a fresh seed each time); so
    does --sample 0, which drew none (a sample drawn gives its seed: the test below)."""
    first, second = (json.loads(invoke("verify", one_run, "--all", "--json").output) for _ in "ab")
    assert first == second
    assert (first["sample_seed"], first["sampled"]) == (None, [0])
    none = json.loads(
        invoke("verify", one_run, "--sample", "0", "--sample-seed", "7", "--json").output
    )
    assert (none["sample_seed"], none["sampled"]) == (None, [])  # nothing drawn: no seed


def test_json_gives_the_seed_of_a_sample_drawn_and_none_where_none_was(thirteen: Path) -> None:
    """--sample 0 drew no sample: sample_seed null (it gave a fresh seed, or --sample-seed's,
    for a sample never drawn; the text names none); a sample drawn gives its seed."""
    drawn = json.loads(
        invoke("verify", thirteen, "--sample", "2", "--sample-seed", "7", "--json").output
    )
    assert drawn["sample_seed"] == 7 and len(drawn["sampled"]) == 2
    for seed in ([], ["--sample-seed", "7"]):
        none = json.loads(invoke("verify", thirteen, "--sample", "0", *seed, "--json").output)
        assert (none["ok"], none["sample_seed"], none["sampled"]) == (True, None, [])
    text = invoke("verify", thirteen, "--sample", "0", "--sample-seed", "7").output
    assert "no run re-fought (--sample 0)" in text and "sample seed" not in text


def test_all_says_every_run_was_fought_not_to_use_all(thirteen: Path) -> None:
    """verify --all ended "(13 of 13; --all fights every run)": advice to do what was done.
    It says what was done; a sample still names --all."""
    result = invoke("verify", thirteen, "--all")
    assert result.exit_code == 0, result.output
    assert result.output.splitlines()[-1].endswith(
        "a run altered with its digests recomputed is caught with probability 100.00% "
        "(13 of 13: every run re-fought)"
    )
    sampled = invoke("verify", thirteen, "--sample", "2", "--sample-seed", "7").output
    assert sampled.splitlines()[-1].endswith("(2 of 13; --all fights every run)")


def test_the_differs_lines_count_with_separators(tmp_path: Path) -> None:
    """A study of 1,010 runs cut to 5: "runs: 1,005 runs missing" (it said "1005 runs
    missing"), "… and 1,998 more differences", and the verdict counts those 1,998 among its
    2,053 (a count with a separator is still read as its number)."""
    out = tmp_path / "big"
    plan = StudyPlan(target=load_target(BRAWL), seed=3, replications=1_010, chunk_size=1_010)
    run_study(plan, out, RunOptions(jobs=1, plots=False))
    _sql(out, "DELETE FROM runs WHERE replication >= 5")
    result = invoke("verify", out, "--sample", "0")
    assert result.exit_code == 1, result.output
    lines = result.output.splitlines()
    assert lines[0] == "DIFFERS: runs: 1,005 runs missing (5, 6, 7 …)"
    assert "DIFFERS: runs: … and 1,998 more differences" in lines
    assert lines[-1] == f"{out}: 2,053 differences"
