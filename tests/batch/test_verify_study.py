"""``battlesim verify STUDY_DIR``: a study checked whole, every tampered part named."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import duckdb
import numpy as np
import pytest

from sim.batch.inputs.seeds import derived_seed
from sim.batch.inputs.target import load_target
from sim.batch.planning.design import Factor
from sim.batch.planning.plan import StudyPlan
from sim.batch.study import RunOptions, run_study
from sim.batch.verification.verify import sample_ids, verify_lines, verify_study
from tests.batch.helpers import CAMPAIGN, STONE_WALL, invoke


def _plan(**kw: Any) -> StudyPlan:
    base: dict[str, Any] = {
        "target": load_target(STONE_WALL),
        "seed": 3,
        "replications": 4,
        "factors": (Factor(path="options.fire_hcv", values=[15, 35]),),
        "chunk_size": 2,
        "keep_replays": 1,
        "crn": True,
    }
    return StudyPlan(**(base | kw))


@pytest.fixture(scope="module")
def study(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """2 points x 4 replications, the first replication of each point kept as a replay."""
    out = tmp_path_factory.mktemp("verify") / "s"
    run_study(_plan(), out, RunOptions(jobs=1, plots=False))
    return out


@pytest.fixture
def copy(study: Path, tmp_path: Path) -> Path:
    """A copy of the study to tamper with."""
    return Path(shutil.copytree(study, tmp_path / "s"))


def _sql(folder: Path, sql: str) -> list[tuple[Any, ...]]:
    with duckdb.connect(str(folder / "study.duckdb")) as con:
        return con.execute(sql).fetchall()


def test_an_untouched_study_verifies_every_run_and_both_kept_replays(study: Path) -> None:
    """--sample 8 re-fights all 8 runs; runs 0 and 4 kept their replays: exit 0. Every
    run's digests and the manifest's two files (summary.json, progress.json) match."""
    result = invoke("verify", study, "--sample", "8", "--sample-seed", "3")
    assert result.exit_code == 0, result.output
    assert result.output.splitlines() == [
        f"OK: {study}: plan, seeds, every planned run present and summary.json re-derived from "
        "8 runs; 8 runs' rows and kept replays match their digests; 2 files match the "
        "manifest; 8 runs re-fought identically (every run: 0, 1, 2, 3, 4, 5, 6, 7), "
        "2 kept replays byte for byte; a run altered with its digests recomputed is caught "
        "with probability 100.00% (8 of 8: every run re-fought)"
    ]


def test_progress_is_told_each_run_fought_again(study: Path) -> None:
    """verify_study(progress=…) hears (k, n) after each of the n runs it fights again (the
    CLI draws its bar from it on a terminal: --all of a 20,000-run study took minutes in
    silence)."""
    heard: list[tuple[int, int]] = []
    check = verify_study(study, 5, 3, progress=lambda done, total: heard.append((done, total)))
    assert check.ok and len(check.sampled) == 5
    assert heard == [(k, 5) for k in range(1, 6)]
    heard.clear()
    assert verify_study(study, 0, 3, progress=lambda d, t: heard.append((d, t))).ok
    assert heard == []


def test_the_sample_is_drawn_by_a_generator_seeded_from_the_study_seed() -> None:
    """n of the ids, without replacement, by default_rng(derived_seed(seed, 'verify-sample'))."""
    ids = list(range(100, 200))
    picked = np.random.default_rng(derived_seed(3, "verify-sample")).choice(100, 5, replace=False)
    assert sample_ids(ids, 5, 3) == sorted(100 + int(i) for i in picked)
    assert sample_ids(ids, 5, 3) != sample_ids(ids, 5, 4)
    assert sample_ids(ids, 500, 3) == ids


def test_a_tampered_summary_is_named_by_its_field(copy: Path) -> None:
    """One count raised by one in summary.json: exit 1 naming the path and both values."""
    summary = json.loads((copy / "summary.json").read_text())
    count = summary["points"][1]["win"]["csa"]["count"]
    summary["points"][1]["win"]["csa"]["count"] = count + 1
    (copy / "summary.json").write_text(json.dumps(summary, indent=2) + "\n")
    result = invoke("verify", copy, "--sample", "0", "--sample-seed", "5")
    assert result.exit_code == 1
    assert result.output.splitlines() == [
        "DIFFERS: summary.json: differs from its digest in manifest.json",
        f"DIFFERS: summary.json: points.1.win.csa.count: stored {count + 1}, re-derived {count}",
        f"{copy}: 2 differences",  # nothing was sampled: no seed to repeat
    ]


def test_a_tampered_run_row_is_named_by_its_column(copy: Path) -> None:
    """Run 5's Union losses raised by 7: the summary's figures of point 1 and the re-fought
    run both say so."""
    ((lost,),) = _sql(copy, "SELECT usa_men_lost FROM runs WHERE run_id = 5")
    _sql(copy, "UPDATE runs SET usa_men_lost = usa_men_lost + 7 WHERE run_id = 5")
    check = verify_study(copy, sample=8)
    assert not check.ok
    assert f"run 5: usa_men_lost: stored {lost + 7}, re-fought {lost}" in check.differences
    assert any(d.startswith("summary.json: points.1.losses.usa.men.") for d in check.differences)
    assert [d for d in check.differences if d.startswith("run ")] == [
        "run 5: its runs row (winner, losses, outcome …) does not match its digest",
        f"run 5: usa_men_lost: stored {lost + 7}, re-fought {lost}",
    ]


def test_the_count_of_differences_counts_those_not_listed(copy: Path) -> None:
    """Run 5's losses raised: summary.json's re-derived figures of point 1 differ in more
    places than are listed (three, then "… and N more"); the count, in the text and in
    --json's ``difference_count``, is every one of them."""
    _sql(copy, "UPDATE runs SET usa_men_lost = usa_men_lost + 7 WHERE run_id = 5")
    check = verify_study(copy, sample=0)
    more = [d for d in check.differences if " more differences" in d]
    assert len(more) == 1 and more[0].startswith("summary.json: … and ")
    hidden = int(more[0].split("… and ")[1].split()[0])
    assert check.difference_count == len(check.differences) - 1 + hidden
    result = invoke("verify", copy, "--sample", "0", "--sample-seed", "5", "--json")
    data = json.loads(result.output)
    assert data["difference_count"] == check.difference_count > len(data["differences"])
    text = invoke("verify", copy, "--sample", "0", "--sample-seed", "5")
    assert text.output.splitlines()[-1] == f"{copy}: {check.difference_count} differences"


def test_a_tampered_draw_count_and_unit_row_are_caught(copy: Path) -> None:
    """A side's draws and a unit's final strength are compared with the battle fought again."""
    ((draws,),) = _sql(copy, "SELECT csa_draws FROM runs WHERE run_id = 2")
    _sql(copy, "UPDATE runs SET csa_draws = csa_draws - 1 WHERE run_id = 2")
    _sql(copy, "UPDATE unit_rows SET strength = strength + 1 WHERE run_id = 3 AND unit = 'cobb'")
    check = verify_study(copy, sample=8)
    runs = [d for d in check.differences if d.startswith("run ")]
    assert runs == [
        "run 2: its runs row (winner, losses, outcome …) does not match its digest",
        "run 3: its unit rows do not match their digest",
        f"run 2: csa_draws: stored {draws - 1}, re-fought {draws}",
        "run 3: its unit rows differ from the re-fought battle's",
    ]


def test_a_tampered_kept_replay_and_a_tampered_seed_are_caught(copy: Path) -> None:
    """A kept replay's last byte changed; a run's seed that is not the scheme's."""
    replay = copy / "replays" / "run-4.jsonl"
    data = bytearray(replay.read_bytes())
    data[-2] ^= 1
    replay.write_bytes(bytes(data))
    _sql(copy, "UPDATE runs SET seed = seed + 1 WHERE run_id = 6")
    check = verify_study(copy, sample=8)
    assert "runs: 1 run whose id or seed is not the plan's (6)" in check.differences
    assert "run 4: kept replay run-4.jsonl differs from the re-fought one" in check.differences
    assert "run 6: seed" not in " ".join(check.differences)  # re-fought with its stored seed


def test_a_missing_summary_differs_and_a_folder_without_a_study_is_bad_input(
    copy: Path, tmp_path: Path
) -> None:
    """No summary.json: exit 1 (the study did not finish); no study.duckdb: exit 2."""
    (copy / "summary.json").unlink()
    result = invoke("verify", copy, "--sample", "0")
    assert result.exit_code == 1
    assert "DIFFERS: summary.json: missing (a study stopped before its end?)" in result.output
    empty = tmp_path / "empty"
    empty.mkdir()
    bad = invoke("verify", empty)
    assert bad.exit_code == 2
    assert bad.output == f"battlesim: error: {str(empty)!r}: no study here (no study.duckdb)\n"
    replay_flag = invoke("verify", copy / "replays" / "run-0.jsonl", "--sample", "3")
    assert replay_flag.exit_code == 2
    assert "--sample, --sample-seed and --all apply to a study folder" in replay_flag.output


def test_verify_json_is_the_check_as_data(study: Path) -> None:
    """--json: ok, runs, the sample and its seed, the replays compared, the differences."""
    result = invoke("verify", study, "--json", "--sample", "3", "--seed", "11")
    assert result.exit_code == 0
    data = json.loads(result.output)
    assert data == {
        "study": str(study),
        "ok": True,
        "runs": 8,
        "sample_seed": 11,
        "sampled": sample_ids(list(range(8)), 3, 11),
        "catch_probability": 3 / 8,
        "digests": 8,
        "files": 2,
        "replays": data["replays"],
        "replays_by_value": 0,
        "differences": [],
        "difference_count": 0,
        "notes": [],
        "damaged": False,
    }
    assert data["replays"] == len([i for i in data["sampled"] if i % 4 == 0])


def test_a_campaign_study_verifies(tmp_path: Path) -> None:
    """A campaign study: each run's two battles fought again, its kept replays compared."""
    plan = StudyPlan(load_target(CAMPAIGN), seed=2, replications=2, keep_replays=1)
    out = tmp_path / "c"
    run_study(plan, out, RunOptions(jobs=1, plots=False))
    check = verify_study(out, sample=2)
    assert check.ok, check.differences
    assert (check.sampled, check.replays) == ([0, 1], 2)
    assert verify_lines(check)[-1].startswith(f"OK: {out}: ")
