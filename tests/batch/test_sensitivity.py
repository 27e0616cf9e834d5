"""Sensitivity designs: SALib samples from the study seed, indices per measure, resumable.

The resume test kills the study with SIGKILL from its own progress callback
once a set number of runs is committed — a count, not a time — then resumes
it from the command line and expects the same tables and indices as a study
that was never stopped.
"""

from __future__ import annotations

import json
import math
import signal
import statistics
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
from SALib.analyze import sobol  # type: ignore[import-untyped]
from SALib.sample import morris as morris_sample  # type: ignore[import-untyped]
from SALib.sample import sobol as sobol_sample  # type: ignore[import-untyped]

from sim.batch.analysis.sensitivity import RESAMPLES, unit_sample
from sim.batch.inputs.seeds import derived_seed
from sim.batch.planning.design import DesignError, Factor, design_points
from sim.batch.planning.spec import load_study
from tests.batch.helpers import SCENARIOS, STONE_WALL, invoke, tables

FACTORS = [
    Factor(path="map.terrain.0.cover", range=(-50, -20), type="int"),
    Factor(path="options.fire_hcv", range=(15, 35), type="int"),
    Factor(path="sides.csa.units.cobb.strength", values=[300, 420, 500]),
]
SWEEPS = ["--sweep", "map.terrain.0.cover=-50..-20", "--sweep", "options.fire_hcv=15..35"]
SWEEPS += ["--sweep", "sides.csa.units.cobb.strength=300,420,500"]
ARGS = ["--design", "sobol", "--points", "4", "--runs", "4", "--seed", "2024", "--crn"]
ARGS += ["--chunk-size", "2", "--quiet", *SWEEPS]
KILL_AT = 30
"""Runs committed when the study kills itself (of 4 × (3 + 2) points × 4 runs = 80)."""


def test_sobol_points_are_salibs_sample_from_the_study_seed() -> None:
    """N × (D + 2) points: SALib's Saltelli sample seeded by derived_seed, mapped by Factor.at."""
    points = design_points("sobol", FACTORS, 4, 2024)
    problem = {"num_vars": 3, "names": [f.path for f in FACTORS], "bounds": [[0.0, 1.0]] * 3}
    seed = derived_seed(2024, "sobol-sample") % 2**32
    x = sobol_sample.sample(problem, 4, calc_second_order=False, seed=seed)
    assert len(points) == 4 * (3 + 2) == len(x)
    for point, row in zip(points, x, strict=True):
        assert point == {
            "map.terrain.0.cover": -50 + min(int(row[0] * 31), 30),
            "options.fire_hcv": 15 + min(int(row[1] * 21), 20),
            "sides.csa.units.cobb.strength": [300, 420, 500][min(int(row[2] * 3), 2)],
        }
    assert design_points("sobol", FACTORS, 4, 2024) == points  # the same again
    assert design_points("sobol", FACTORS, 4, 2025) != points


def test_morris_points_are_trajectories_on_a_four_level_grid() -> None:
    """(D + 1) points per trajectory, each step moving one factor by 2/3 of its range."""
    x = unit_sample("morris", FACTORS, 5, 9)
    seed = derived_seed(9, "morris-sample") % 2**32
    problem = {"num_vars": 3, "names": [f.path for f in FACTORS], "bounds": [[0.0, 1.0]] * 3}
    assert np.array_equal(x, morris_sample.sample(problem, 5, num_levels=4, seed=seed))
    assert x.shape == (5 * 4, 3)
    for t in range(5):
        steps = np.abs(np.diff(x[4 * t : 4 * t + 4], axis=0))
        assert sorted(np.count_nonzero(steps, axis=1).tolist()) == [1, 1, 1]
        assert np.allclose(steps[steps > 0], 2 / 3)


def test_a_sobol_base_sample_must_be_a_power_of_two() -> None:
    """--points 6 for sobol is refused (the Sobol' sequence balances only at powers of 2)."""
    with pytest.raises(DesignError, match="power of two"):
        design_points("sobol", FACTORS, 6, 1)


@pytest.fixture(scope="module")
def whole(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """The ARGS study fought once, never stopped, with --jobs 1: its folder and output. No
    plots: no test reads them, and the tables and summary are the same (drawing them here was
    about 5 CPU s; the resumed study's own plot is checked)."""
    folder = tmp_path_factory.mktemp("whole")
    result = invoke("batch", STONE_WALL, "--out", folder, "--jobs", "1", "--no-plots", *ARGS)
    assert result.exit_code == 0, result.output
    return folder, result.output


def _kill_script(out: Path) -> str:
    """A study of exactly the plan ARGS describe, that SIGKILLs itself after KILL_AT commits."""
    return f"""
import os, signal
from sim.batch.planning.design import Factor
from sim.batch.planning.plan import StudyPlan
from sim.batch.study import RunOptions, run_study
from sim.batch.inputs.target import load_target

def stop(committed: int, planned: int) -> None:
    if committed >= {KILL_AT}:
        os.kill(os.getpid(), signal.SIGKILL)

factors = tuple(Factor.model_validate(f) for f in {[f.model_dump() for f in FACTORS]!r})
plan = StudyPlan(load_target({str(STONE_WALL)!r}), seed=2024, replications=4, factors=factors,
                 design="sobol", points=4, crn=True, chunk_size=2)
run_study(plan, {str(out)!r}, RunOptions(jobs=2, progress=stop, commit_seconds=0))
"""


def test_sobol_study_resumes_after_sigkill_to_identical_indices(
    tmp_path: Path, whole: tuple[Path, str]
) -> None:
    """Killed at 30 committed runs, resumed with --jobs 2: same tables and sensitivity as whole."""
    killed = tmp_path / "killed"
    proc = subprocess.run(  # no pipes: the pool's orphaned workers would hold them open
        [sys.executable, "-c", _kill_script(killed)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        check=False,
        timeout=300,
    )
    assert proc.returncode == -signal.SIGKILL
    runs = tables(killed)["runs"]
    assert len(runs) == KILL_AT  # killed right after that commit: a count, not a time
    assert not (killed / "summary.json").exists()
    resumed = invoke("batch", STONE_WALL, "--out", killed, "--resume", "--jobs", "2", *ARGS)
    assert resumed.exit_code == 0, resumed.output
    assert f"(80 runs, {80 - len(runs)} fought now)" in resumed.output
    assert tables(killed) == tables(whole[0])
    a = json.loads((killed / "summary.json").read_text())["sensitivity"]
    b = json.loads((whole[0] / "summary.json").read_text())["sensitivity"]
    assert a == b
    assert (killed / "plots" / "sensitivity.png").read_bytes()[:4] == b"\x89PNG"


def test_sobol_indices_are_salibs_on_the_point_means(whole: tuple[Path, str]) -> None:
    """S1/ST per measure equal SALib's sobol.analyze of each point's mean, same seed."""
    folder, output = whole
    assert (
        "Sobol' indices (4 base samples, 20 points; "
        "[95 % percentile bootstrap interval, 1,000 resamples]):" in output
    )
    assert "  Confederate win rate: (replication noise " in output
    assert "\n    map.terrain.0.cover            S1 " in output
    sens = json.loads((folder / "summary.json").read_text())["sensitivity"]
    assert (sens["method"], sens["base_samples"], sens["design_points"]) == ("sobol", 4, 20)
    runs = tables(folder)["runs"]
    y = np.array([sum(r[6] == "csa" for r in runs if r[1] == p) / 4 for p in range(20)])
    entry = next(m for m in sens["measures"] if (m["side"], m["measure"]) == ("csa", "win_rate"))
    problem = {"num_vars": 3, "names": [f.path for f in FACTORS], "bounds": [[0.0, 1.0]] * 3}
    seed = derived_seed(2024, "sobol-analyse-csa-win_rate") % 2**32
    expected = sobol.analyze(
        problem, y, calc_second_order=False, num_resamples=RESAMPLES, seed=seed,
        keep_resamples=True,
    )  # fmt: skip
    assert [ix["factor"] for ix in entry["indices"]] == [f.path for f in FACTORS]
    for i, ix in enumerate(entry["indices"]):
        for key in ("S1", "ST"):
            assert ix[key] == pytest.approx(float(expected[key][i]), rel=1e-12, abs=1e-12)
            resampled = expected[f"{key}_conf_all"][:, i]
            low, high = np.percentile(resampled[np.isfinite(resampled)], [2.5, 97.5])
            assert ix[f"{key}_low"] == pytest.approx(low, rel=1e-12, abs=1e-12)
            assert ix[f"{key}_high"] == pytest.approx(high, rel=1e-12, abs=1e-12)
        flags = {f["flag"]: f["beyond_interval"] for f in ix["flags"]}
        assert ("S1<0" in flags) is (ix["S1"] < 0)
        assert ("S1>1" in flags) is (ix["S1"] > 1)
        assert ("S1>ST" in flags) is (ix["S1"] > ix["ST"])
        widest = max(ix["S1_high"] - ix["S1_low"], ix["ST_high"] - ix["ST_low"])
        assert ("wide" in flags) is (widest > 0.5)
        if "S1>ST" in flags:
            assert flags["S1>ST"] is (ix["S1_low"] > ix["ST_high"])
    assert [c["base_samples"] for c in entry["convergence"]] == [4]
    means = [statistics.fmean(int(r[6] == "csa") for r in runs if r[1] == p) for p in range(20)]
    variances = [statistics.variance([int(r[6] == "csa") for r in runs if r[1] == p])
                 for p in range(20)]  # fmt: skip
    noise = statistics.fmean(v / 4 for v in variances) / statistics.variance(means)
    assert entry["noise_share"] == pytest.approx(noise, rel=1e-9)


def test_the_shipped_sobol_study_file_is_64_base_samples_of_three_factors() -> None:
    """scenarios/stone_wall_sobol.yaml: 64 × (3 + 2) = 320 points, CRN, the three factors
    (64: its indices hold within their intervals when doubled, under rules v3; docs/batch.md)."""
    spec = load_study(SCENARIOS / "stone_wall_sobol.yaml")
    assert (spec.plan.design, spec.plan.points, spec.plan.crn) == ("sobol", 64, True)
    assert [f.path for f in spec.plan.factors] == [
        "map.terrain.0.cover",
        "options.fire_hcv",
        "sides.csa.units.phil.strength",
    ]
    assert len(spec.plan.design_points()) == 320


def test_a_study_file_refuses_a_sobol_design_without_a_power_of_two(tmp_path: Path) -> None:
    """design: sobol with points: 12 is refused as file:line: points: message, exit 2."""
    study = tmp_path / "s.yaml"
    study.write_text(
        f"scenario: {STONE_WALL}\nreplications: 2\ndesign: sobol\npoints: 12\n"
        "factors:\n  - {path: options.fire_hcv, range: [15, 35]}\n"
    )
    result = invoke("study", study)
    assert result.exit_code == 2
    assert result.output.strip() == (
        f"{study}:4: points: a sobol design needs a power of two (base samples)"
    )


def test_morris_effects_divide_by_the_exact_step_of_each_factor(tmp_path: Path) -> None:
    """μ, μ*, σ from elementary effects (y′ − y)/Δ with Δ the step actually taken as a share
    of the range (an int range 15..35 steps 14 or 13 of 20, not 2/3; a values factor:
    positions / (values − 1): 300 → 500 is 1, 420 → 500 is ½); μ*'s percentile bootstrap
    interval holds μ*."""
    args = ["--design", "morris", "--points", "2", "--runs", "3", "--seed", "5", "--crn"]
    args += ["--quiet", "--no-plots", *SWEEPS]
    result = invoke("batch", STONE_WALL, "--out", tmp_path, "--jobs", "1", *args)
    assert result.exit_code == 0, result.output
    assert (
        "Morris elementary effects (2 trajectories, 8 points; "
        "[95 % percentile bootstrap interval, 1,000 resamples]):" in result.output
    )
    summary = json.loads((tmp_path / "summary.json").read_text())
    sens = summary["sensitivity"]
    runs = tables(tmp_path)["runs"]
    y = [sum(r[11] for r in runs if r[1] == p) / 3 for p in range(8)]  # usa men lost
    entry = next(m for m in sens["measures"] if (m["side"], m["measure"]) == ("usa", "losses.men"))
    values = [pt["factors"] for pt in summary["points"]]
    spans = {"map.terrain.0.cover": 30, "options.fire_hcv": 20, "sides.csa.units.cobb.strength": 2}
    levels = [300, 420, 500]

    def position(path: str, v: float) -> float:
        return levels.index(int(v)) if path.endswith("strength") else v

    steps = set()
    for i, f in enumerate(FACTORS):
        effects = []
        for t in range(2):
            for k in range(4 * t, 4 * t + 3):
                a, b = values[k], values[k + 1]
                moved = [p for p in a if a[p] != b[p]]
                if moved == [f.path]:
                    delta = (position(f.path, b[f.path]) - position(f.path, a[f.path])) / spans[
                        f.path
                    ]
                    steps.add((f.path, abs(delta)))
                    effects.append((y[k + 1] - y[k]) / delta)
        ix = entry["indices"][i]
        assert ix["mu_star"] == pytest.approx(np.mean(np.abs(effects)), rel=1e-12)
        assert ix["mu"] == pytest.approx(np.mean(effects), rel=1e-12)
        assert ix["sigma"] == pytest.approx(np.std(effects, ddof=1), rel=1e-12)
        assert ix["mu_star_low"] <= ix["mu_star"] <= ix["mu_star_high"]
    assert steps <= {("options.fire_hcv", 14 / 20), ("options.fire_hcv", 13 / 20),
                     ("map.terrain.0.cover", 20 / 30), ("map.terrain.0.cover", 21 / 30),
                     ("sides.csa.units.cobb.strength", 1.0),
                     ("sides.csa.units.cobb.strength", 0.5)}  # fmt: skip


def test_a_total_index_above_one_is_flagged_and_beyond_when_its_interval_is() -> None:
    from sim.batch.methods.indices import flags

    ix = {"S1": 0.2, "S1_low": 0.1, "S1_high": 0.3, "ST": 1.3, "ST_low": 0.9, "ST_high": 1.35}
    assert {"flag": "ST>1", "beyond_interval": False} in flags(ix)
    assert {"flag": "ST>1", "beyond_interval": True} in flags({**ix, "ST_low": 1.1})
    assert not [f for f in flags({**ix, "ST": 0.9}) if f["flag"] == "ST>1"]


def test_the_noise_corrected_total_index_takes_replication_noise_out() -> None:
    """y = x₁ on the unit square (V = 1/12; ST₁ = 1, ST₂ = 0), each point's output a mean
    with noise of variance σ² = 1/24 (a noise share of a third), independent between
    points: every difference carries 2σ². Jansen's ST₂ then estimates σ²/(V + σ²) = 1/3;
    corrected, ST₁ and ST₂ come back to 1 and 0 (4,096 base samples, seeded: the standard
    error of each is below 0.02, so 0.06 is three of them)."""
    from sim.batch.methods.indices import noise_corrected_totals

    rng = np.random.default_rng(12)
    n, k, sigma2 = 4096, 2, 1 / 24
    a, b = rng.random((n, k)), rng.random((n, k))
    rows = []
    for j in range(n):
        rows.append(a[j])
        for i in range(k):
            ab = a[j].copy()
            ab[i] = b[j, i]
            rows.append(ab)
        rows.append(b[j])
    x = np.array(rows)
    y = x[:, 0] + rng.normal(0, np.sqrt(sigma2), size=len(x))
    step = k + 2
    ya, yb = y[0::step], y[step - 1 :: step]
    plain = [0.5 * np.mean((ya - y[i + 1 :: step]) ** 2) / np.var(np.r_[ya, yb]) for i in range(k)]
    assert plain[1] == pytest.approx(1 / 3, abs=0.06)
    corrected = noise_corrected_totals(y, k, np.full((n, k + 1), 2 * sigma2))
    assert corrected[0] == pytest.approx(1, abs=0.06)
    assert corrected[1] == pytest.approx(0, abs=0.06)


def test_a_sensitivity_summary_leads_with_its_answer(whole: tuple[Path, str]) -> None:
    """The indices come first; 20 points (at most SHOWN_POINTS) are listed after them; a
    design of more points gives one line naming where their statistics are instead."""
    import json

    from sim.batch.analysis.summary import SHOWN_POINTS, format_summary

    folder, output = whole
    lines = output.splitlines()
    assert lines[0].startswith("Sobol' indices (4 base samples, 20 points;")
    assert any(line.startswith("Point 19 (") for line in lines)
    summary = json.loads((folder / "summary.json").read_text())
    assert len(summary["points"]) == SHOWN_POINTS
    summary["points"] = summary["points"] * 2  # 40 points: the statistics are not listed
    text = format_summary(summary)
    assert text[0] == lines[0]
    assert not any(line.startswith("Point ") for line in text)
    assert text[-1] == (
        'Each of the 40 design points\' win rates, losses and turns: summary.json ("points")'
    )


def test_the_pair_noise_is_the_same_whatever_order_the_runs_were_stored_in() -> None:
    """A study on two workers stores its runs in the order chunks come back; the noise of
    each pair of points must not follow that order (DuckDB's var_samp over rows in storage
    order moved in the last bits: summary.json differed between --jobs 1 and 2)."""
    import random

    from sim.batch.analysis.sensitivity import pair_noise
    from sim.batch.storage.duck import duckdb

    rng = random.Random(1862)
    rows = [(p, r, rng.choice([0.1, 0.2, 0.3]) * rng.randint(1, 9)) for p in range(4)
            for r in range(40)]  # fmt: skip
    found = []
    for order in range(6):
        shuffled = rows if order == 0 else rng.sample(rows, len(rows))
        con = duckdb.connect()
        con.execute("CREATE TABLE runs (point INTEGER, replication INTEGER, y DOUBLE, "
                    "status VARCHAR)")  # fmt: skip
        con.executemany("INSERT INTO runs VALUES (?, ?, ?, 'done')", shuffled)
        store = SimpleNamespace(con=con, meta=lambda: {"plan": {}})
        found.append(pair_noise(store, "y", [(0, 1), (0, 2), (0, 3)]))
        con.close()
    assert all(f == found[0] for f in found)
    d = [a - b for (p, r, a), (q, s, b) in zip(rows[:40], rows[40:80], strict=True)]
    assert math.isclose(found[0][(0, 1)], statistics.variance(d) / 40, rel_tol=1e-12)
