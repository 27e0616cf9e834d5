"""Studies: the same tables whatever the executor; failures recorded; --until-ci; summary."""

from __future__ import annotations

import json
import math
import os
import random
import tempfile
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from sim.batch.execution import executors, worker
from sim.batch.inputs.target import load_target
from sim.batch.methods.stats import wilson
from sim.batch.planning.design import Factor
from sim.batch.planning.plan import StudyPlan
from sim.batch.study import RunOptions, StudyError, run_study
from tests.batch.helpers import REPO, STONE_WALL, invoke, tables

TARGET = load_target(STONE_WALL)


def _plan(**kw: Any) -> StudyPlan:
    base: dict[str, Any] = {
        "target": TARGET,
        "seed": 11,
        "replications": 12,
        "factors": (Factor(path="options.fire_hcv", values=[15, 35]),),
        "chunk_size": 5,
        "keep_replays": 1,
    }
    return StudyPlan(**(base | kw))


def _outputs(out: Path) -> tuple[dict[str, list[tuple[Any, ...]]], bytes, dict[str, bytes]]:
    replays = {p.name: p.read_bytes() for p in sorted((out / "replays").glob("*.jsonl"))}
    return tables(out), (out / "summary.json").read_bytes(), replays


@pytest.fixture(scope="module")
def inline(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The reference study: 2 points x 12 replications, in this process (--jobs 1)."""
    out = tmp_path_factory.mktemp("inline")
    run_study(_plan(), out, RunOptions(jobs=1))
    return out


def test_study_tables_hold_every_run_with_its_seed(inline: Path) -> None:
    """24 runs, ids point x 12 + replication, each with its spawned seed and 7 unit finals."""
    t = tables(inline)
    runs = t["runs"]
    assert [r[:3] for r in runs] == [(p * 12 + r, p, r) for p in range(2) for r in range(12)]
    plan = _plan()
    assert [r[3] for r in runs] == [plan.run(p, r).seed for p in range(2) for r in range(12)]
    assert {r[4] for r in runs} == {"done"}
    assert len(t["unit_finals"]) == 24 * 7
    assert t["points"] == [
        (0, "options.fire_hcv=15", '{"options.fire_hcv":15}', 15),
        (1, "options.fire_hcv=35", '{"options.fire_hcv":35}', 35),
    ]
    assert sorted(p.name for p in (inline / "replays").iterdir()) == ["run-0.jsonl", "run-12.jsonl"]
    assert sorted(p.name for p in (inline / "plots").iterdir()) == [
        "convergence.png",
        "losses.png",
        "outcomes.png",
        "paired.png",
        "win_vs_options.fire_hcv.png",
    ]
    assert (inline / "plots" / "outcomes.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_two_processes_give_the_same_tables(inline: Path, tmp_path: Path) -> None:
    """--jobs 2 (a local process pool) stores exactly what --jobs 1 stores (the plots, drawn
    from those tables after the pool has closed, are left out: ``inline``'s are checked)."""
    run_study(_plan(), tmp_path, RunOptions(jobs=2, plots=False))
    assert _outputs(tmp_path) == _outputs(inline)


def test_dask_local_cluster_gives_the_same_tables(
    inline: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A real Dask LocalCluster of 2 worker processes stores exactly what --jobs 1 stores,
    and leaves this process's environment as it was (its Nannies set OMP_NUM_THREADS=1,
    PYTHONHASHSEED and others in it to start their workers). Its servers work in a folder
    of the study's own, removed at the end, never the shared <tmp>/dask-scratch-space,
    where a planted link at a lock file had the study empty the file it named; the
    ``random`` module's state is as the caller left it."""
    for name in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS", "PYTHONHASHSEED"):
        monkeypatch.delenv(name, raising=False)
    temp = tmp_path / "temp"
    temp.mkdir()
    shared = temp / "dask-scratch-space"
    shared.mkdir()
    victim = tmp_path / "victim.txt"
    victim.write_text("precious")
    (shared / "global.lock").symlink_to(victim)
    monkeypatch.setattr(tempfile, "tempdir", str(temp))
    tmp_path = tmp_path / "study"
    before = dict(os.environ)
    seen: list[str | None] = []
    real = executors._restore

    def restore(was: dict[str, str], set_by_cluster: dict[str, str]) -> None:
        seen.append(os.environ.get("OMP_NUM_THREADS"))  # the cluster's, before it is undone
        real(was, set_by_cluster)

    monkeypatch.setattr(executors, "_restore", restore)
    random.seed(5)  # a notebook's stream: distributed's scheduler draws from the module
    stream = random.getstate()
    run_study(_plan(), tmp_path, RunOptions(jobs=2, executor="dask"))
    assert random.getstate() == stream
    assert _outputs(tmp_path) == _outputs(inline)
    assert seen == ["1"]
    assert dict(os.environ) == before
    assert victim.read_text() == "precious"
    assert sorted(p.name for p in shared.iterdir()) == ["global.lock"]  # nothing of the study's
    assert sorted(p.name for p in temp.iterdir()) == ["dask-scratch-space"]  # its own: removed


class _Cluster:
    """A stand-in LocalCluster: its Nanny sets the workers' variables here, as the real one
    does (no process is started), and then fails to start if asked to."""

    def __init__(self, fail: bool, **_: Any) -> None:
        os.environ.update({"OMP_NUM_THREADS": "1", "PYTHONHASHSEED": "6640"})
        if fail:
            raise RuntimeError("Nanny failed to start.")

    def close(self) -> None:
        pass


def _no_client(*_: Any, **__: Any) -> None:
    raise OSError("refused")


@pytest.mark.parametrize("fails", ["cluster", "client"])
def test_a_local_cluster_that_fails_to_start_leaves_the_environment_as_it_was(
    monkeypatch: pytest.MonkeyPatch, fails: str
) -> None:
    """Its Nannies set variables here before it failed (or before its client failed):
    they go back too, and the user's PYTHONHASHSEED=0 with them."""
    monkeypatch.delenv("OMP_NUM_THREADS", raising=False)
    monkeypatch.setenv("PYTHONHASHSEED", "0")
    fake = SimpleNamespace(
        LocalCluster=lambda **kw: _Cluster(fails == "cluster", **kw), Client=_no_client
    )
    monkeypatch.setattr(executors, "import_module", lambda name: fake)
    before = dict(os.environ)
    refused = RuntimeError if fails == "cluster" else executors.ExecutorError
    with pytest.raises(refused), executors.open_executor("dask", 2):
        pass
    assert dict(os.environ) == before


def test_summary_counts_and_intervals(inline: Path) -> None:
    """summary.json: per point, win counts with their Wilson intervals and loss statistics."""
    summary = json.loads((inline / "summary.json").read_text())
    runs = tables(inline)["runs"]
    for pt in summary["points"]:
        winners = [r[6] for r in runs if r[1] == pt["point"]]
        assert pt["done"] == len(winners) == 12
        for sid, w in pt["win"].items():
            iv = wilson(winners.count(sid), 12)
            assert (w["count"], w["p"], w["low"], w["high"]) == (iv.k, iv.p, iv.low, iv.high)
        assert pt["draw"]["count"] == winners.count(None)
        turns = sorted(r[9] for r in runs if r[1] == pt["point"])
        assert pt["turns"]["mean"] == sum(turns) / 12
        assert pt["turns"]["median"] == (turns[5] + turns[6]) / 2


def test_a_points_label_follows_the_factors_order_in_the_summary_as_in_its_table(
    tmp_path: Path,
) -> None:
    """Factors given out of alphabetical order: the summary (text, summary.json, the plots'
    keys) labels each point in the order the factors were given, as the points table and
    ``export`` do; it printed them in the stored JSON's sorted order instead."""
    out = tmp_path / "tb"
    made = invoke(
        "batch", REPO / "scenarios" / "tavern_brawl.yaml", "--runs", "1", "--jobs", "1",
        "--sweep", "sides.orcs.monsters.grub.morale=2,12", "--sweep", "options.melee_reach=5",
        "--no-plots", "--out", out,
    )  # fmt: skip
    assert made.exit_code == 0, made.output
    labels = [
        "sides.orcs.monsters.grub.morale=2, options.melee_reach=5",
        "sides.orcs.monsters.grub.morale=12, options.melee_reach=5",
    ]
    summary = json.loads((out / "summary.json").read_text())
    assert [pt["label"] for pt in summary["points"]] == labels
    assert [row[1] for row in tables(out)["points"]] == labels
    shown = [line for line in made.output.splitlines() if line.startswith("Point ")]
    assert shown == [f"Point {i} ({label}): 1 run" for i, label in enumerate(labels)]


def test_an_invalid_point_is_refused_before_the_study_starts(tmp_path: Path) -> None:
    """A sweep value the schema refuses stops the study before anything is written
    (issue 25 item 5: never every run "failed: invalid scenario" and exit 0)."""
    plan = _plan(factors=(Factor(path="sides.csa.units.cobb.strength", values=[0, 420]),))
    out = tmp_path / "st"
    with pytest.raises(StudyError) as caught:
        run_study(plan, out, RunOptions(jobs=2))
    assert str(caught.value) == (
        "design point 0 (sides.csa.units.cobb.strength=0) is not a valid scenario: "
        "sides.1.units.1.strength: 0 is less than 1, the least it may be"
    )
    assert not out.exists()


def test_a_run_that_raises_is_recorded_and_the_others_complete(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An exception inside one run marks only that run failed, with the exception's text and
    the place outside battlesim it was raised."""
    plan = _plan(factors=(), replications=6, keep_replays=0)
    bad = plan.run(0, 3).seed
    real = worker.Prepared.header_for

    def flaky(self: worker.Prepared, seed: int) -> Any:
        if seed == bad:
            raise RuntimeError("injected failure")
        return real(self, seed)

    monkeypatch.setattr(worker.Prepared, "header_for", flaky)
    run_study(plan, tmp_path, RunOptions(jobs=1, plots=False))
    runs = tables(tmp_path)["runs"]
    raised = flaky.__code__.co_firstlineno + 2  # a user's code: where it raised is named
    assert [(r[0], r[4], r[5]) for r in runs] == [
        (0, "done", None),
        (1, "done", None),
        (2, "done", None),
        (3, "failed", f"RuntimeError: injected failure (at test_study.py:{raised})"),
        (4, "done", None),
        (5, "done", None),
    ]


def test_a_units_hook_that_raises_fails_its_run_not_the_study(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The ruleset's ``units`` raising for one run's final state (a plugin's bug) is that
    run's failure, recorded with its text and where it was raised, as a battle that raises
    is; the study completes (it stopped with "a worker failed" and a --resume that failed the
    same way)."""
    plan = _plan(factors=(), replications=4, keep_replays=0)
    real = worker.unit_finals
    calls = iter(range(100))

    def flaky(fought: worker.Fought) -> list[tuple[Any, ...]]:
        if next(calls) == 2:
            raise KeyError("boom")
        return real(fought)

    monkeypatch.setattr(worker, "unit_finals", flaky)
    run_study(plan, tmp_path, RunOptions(jobs=1, plots=False))
    runs = tables(tmp_path)["runs"]
    raised = flaky.__code__.co_firstlineno + 2  # a plugin's code: where it raised is named
    assert [(r[0], r[4], r[5]) for r in runs] == [
        (0, "done", None),
        (1, "done", None),
        (2, "failed", f"KeyError: 'boom' (at test_study.py:{raised})"),
        (3, "done", None),
    ]


def test_a_run_failed_by_a_model_the_rules_built_names_the_model_and_its_line() -> None:
    """A run whose rules built a model with a wrong value (a plugin's event): its error
    names the model and the line, not "invalid campaign" (the words of a campaign file's
    own models, which keep them)."""
    import pydantic

    class Struck(pydantic.BaseModel):
        damage: int

    with pytest.raises(pydantic.ValidationError) as caught:
        Struck(damage=1.5)  # type: ignore[arg-type]
    line = test_a_run_failed_by_a_model_the_rules_built_names_the_model_and_its_line
    built = line.__code__.co_firstlineno + 10
    assert worker.failure(caught.value) == (
        "ValidationError: damage: Input should be a valid integer, got a number with a "
        f"fractional part (building Struck, at test_study.py:{built})"
    )
    from sim.batch.inputs.campaign import CampaignData

    with pytest.raises(pydantic.ValidationError) as campaign:
        CampaignData.model_validate({"campaign": "x", "battles": []})
    assert worker.failure(campaign.value).startswith("invalid campaign: ")


def test_every_run_failed_counts_the_pilots_runs_too(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With --until-ci the pilot's runs are counted apart in the summary: the line said
    "180 of 180" of a study whose 200 runs all failed."""

    def failing(self: worker.Prepared, seed: int) -> Any:
        raise RuntimeError("injected failure")

    monkeypatch.setattr(worker.Prepared, "header_for", failing)
    out = tmp_path / "st"
    args = ("--runs", "200", "--until-ci", "0.2", "--jobs", "1", "--no-plots", "--out", out)
    result = invoke("batch", STONE_WALL, *args)
    assert result.exit_code == 2
    assert "every run of the study failed, 200 of 200 (" in result.output.splitlines()[-1]


@pytest.mark.parametrize("fail", ["every", "one"])
def test_a_study_whose_every_run_failed_exits_2_with_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fail: str
) -> None:
    """Every run raising leaves tables without one outcome: the summary is printed, then
    one line names the first error and the database, exit 2 (it said "Results: ..." and
    exit 0). One run of four failing is a study with outcomes: exit 0, as documented."""
    real = worker.Prepared.header_for
    calls = iter(range(100))

    def flaky(self: worker.Prepared, seed: int) -> Any:
        if fail == "every" or next(calls) == 1:
            raise RuntimeError("injected failure")
        return real(self, seed)

    monkeypatch.setattr(worker.Prepared, "header_for", flaky)
    out = tmp_path / "st"
    result = invoke("batch", STONE_WALL, "--runs", "4", "--jobs", "1", "--no-plots", "--out", out)
    statuses = [r[4] for r in tables(out)["runs"]]
    last = result.output.splitlines()[-1]
    if fail == "one":
        assert (result.exit_code, statuses.count("failed")) == (0, 1)
        assert last.startswith("Results: ")
        return
    assert (result.exit_code, statuses) == (2, ["failed"] * 4)
    assert "Point 0 (base): 0 runs, 4 failed" in result.output
    raised = flaky.__code__.co_firstlineno + 2
    assert last == (
        "battlesim: error: every run of the study failed, 4 of 4 (RuntimeError: injected "
        f"failure (at test_study.py:{raised}), at point 0); no outcome was recorded: the runs "
        "and their errors are in "
        f"{out / 'study.duckdb'}"
    )


def _stop_chunk(winners: list[str | None], sides: list[str], width: float, chunk: int) -> int:
    """Runs kept by the pilot rule, derived by brute force from its definition.

    Pilot: ⌈min(z²/32W², R/4)⌉ runs in whole chunks; sizing p: the point of the
    pilot's Wilson interval nearest ½; then the fewest runs whose Wilson
    half-width at that p is <= W, in whole chunks, capped at R less the pilot.
    """
    z = 1.959963984540054
    total = len(winners)
    pilot = -(-math.ceil(min(z * z / (32 * width * width), total / 4)) // chunk) * chunk
    need = 0
    for s in sides:
        iv = wilson(winners[:pilot].count(s), pilot)
        p = min(max(0.5, iv.low), iv.high)
        n = next((n for n in range(1, total) if wilson_width(p, n) <= width), total)
        need = max(need, n)
    return pilot + min(total - pilot, -(-need // chunk) * chunk)


def wilson_width(p: float, n: int) -> float:
    """The Wilson half-width at an observed proportion p of n runs (p·n need not be whole)."""
    z2 = 1.959963984540054**2
    return math.sqrt(z2) / (1 + z2 / n) * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n))


def test_until_ci_stops_each_point_after_the_same_chunk_for_any_job_count(tmp_path: Path) -> None:
    """--until-ci stops a point after the pilot and the confirmatory chunks the pilot sized."""
    plan = _plan(replications=80, until_ci=0.12, keep_replays=0)
    run_study(plan, tmp_path / "one", RunOptions(jobs=1, plots=False))
    run_study(plan, tmp_path / "two", RunOptions(jobs=2, plots=False))
    one = tables(tmp_path / "one")
    assert one == tables(tmp_path / "two")
    full = _plan(replications=80, keep_replays=0)
    run_study(full, tmp_path / "full", RunOptions(jobs=1, plots=False))
    for point in (0, 1):
        all_winners = [r[6] for r in tables(tmp_path / "full")["runs"] if r[1] == point]
        kept = [r for r in one["runs"] if r[1] == point]
        assert len(kept) == _stop_chunk(all_winners, ["usa", "csa"], 0.12, 5) < 80
        assert [r[6] for r in kept] == all_winners[: len(kept)]


def test_crn_gives_every_point_the_same_seeds(tmp_path: Path) -> None:
    """With common random numbers replication r has the same seed at every design point."""
    run_study(_plan(crn=True, keep_replays=0), tmp_path, RunOptions(jobs=1, plots=False))
    runs = tables(tmp_path)["runs"]
    assert [r[3] for r in runs if r[1] == 0] == [r[3] for r in runs if r[1] == 1]


def test_an_existing_study_is_not_overwritten(inline: Path) -> None:
    """Running into a folder that holds a study is refused; --resume of another is refused."""
    with pytest.raises(StudyError, match="already holds a study"):
        run_study(_plan(), inline, RunOptions(jobs=1))
    with pytest.raises(StudyError) as refused:
        run_study(_plan(seed=12), inline, RunOptions(jobs=1, resume=True))
    assert str(refused.value) == (  # a plan made in Python: its attributes' names
        f"--resume: {str(inline)!r} holds a study begun with seed 11 (now 12): a begun study "
        "keeps its plan, so resume it as it was begun, or start this one in another --out"
    )
