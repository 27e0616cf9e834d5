"""Comparisons with a baseline point: Newcombe's intervals for win rates, t or Welch for losses.

Expected values are computed here from the stored runs with the statistics
module, Student's t and statsmodels, independently of sim.batch.analysis.compare's exact sums.
"""

from __future__ import annotations

import json
import math
import statistics
from pathlib import Path
from typing import Any

import pytest
from scipy.stats import t  # type: ignore[import-untyped]
from statsmodels.stats.proportion import (  # type: ignore[import-untyped]
    confint_proportions_2indep,
    proportion_confint,
)

from sim.batch.inputs.target import load_target
from sim.batch.planning.design import Factor
from sim.batch.planning.plan import StudyPlan
from sim.batch.study import RunOptions, StudyError, run_study
from tests.batch.helpers import STONE_WALL, invoke, tables

TARGET = load_target(STONE_WALL)
KEYS = {"point", "baseline", "side", "measure", "difference", "ci_low", "ci_high", "method",
        "paired"}  # fmt: skip
TOL = 1e-9
"""Exact sums against float statistics: agreement to rounding."""


def _plan(crn: bool) -> StudyPlan:
    return StudyPlan(
        target=TARGET,
        seed=3,
        replications=12,
        factors=(Factor(path="options.fire_hcv", values=[15, 25, 35]),),
        crn=crn,
        chunk_size=6,
    )


def _values(out: Path) -> dict[tuple[int, str | None, str], list[int]]:
    """x(point, side, measure) per replication, in replication order, from the runs table:
    win rates and losses from the outcome, each side's draws column, the turns (no side's)."""
    store_runs = tables(out)["runs"]
    out_values: dict[tuple[int, str | None, str], list[int]] = {}
    for r in store_runs:
        point, winner, turns, outcome = r[1], r[6], r[9], json.loads(r[-1])
        draws = {"usa": r[-3], "csa": r[-2]}  # usa_draws, csa_draws, then outcome
        for sid, side in outcome["sides"].items():
            out_values.setdefault((point, sid, "win_rate"), []).append(int(winner == sid))
            for kind, n in side["losses"].items():
                out_values.setdefault((point, sid, f"losses.{kind}"), []).append(n)
            out_values.setdefault((point, sid, "draws"), []).append(draws[sid])
        out_values.setdefault((point, None, "turns"), []).append(turns)
    return out_values


@pytest.fixture(scope="module")
def crn(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    """The CRN study of ``_plan``, without plots: its tests read the runs and the summary
    (a CRN grid's paired chart is drawn and checked by the ``--baseline`` test)."""
    out = tmp_path_factory.mktemp("crn")
    return out, run_study(_plan(True), out, RunOptions(jobs=1, plots=False)).summary


def _newcombe_paired(a: list[int], b: list[int]) -> tuple[float, float]:
    """Newcombe (1998) paired method 10 from statsmodels' Wilson limits."""
    n = len(a)
    cells = [sum(1 for u, v in zip(a, b, strict=True) if (u, v) == k)
             for k in ((1, 1), (1, 0), (0, 1), (0, 0))]  # fmt: skip
    both, only_a, only_b, neither = cells
    p1, p2 = sum(a) / n, sum(b) / n
    l1, u1 = proportion_confint(sum(a), n, method="wilson")
    l2, u2 = proportion_confint(sum(b), n, method="wilson")
    den = (both + only_a) * (only_b + neither) * (both + only_b) * (only_a + neither)
    phi = (both * neither - only_a * only_b) / math.sqrt(den) if den else 0.0
    delta = math.sqrt((p1 - l1) ** 2 - 2 * phi * (p1 - l1) * (u2 - p2) + (u2 - p2) ** 2)
    eps = math.sqrt((u1 - p1) ** 2 - 2 * phi * (u1 - p1) * (p2 - l2) + (p2 - l2) ** 2)
    return p1 - p2 - delta, p1 - p2 + eps


def test_paired_intervals_are_newcombes_for_win_rates_and_t_for_losses(
    crn: tuple[Path, dict[str, Any]],
) -> None:
    """Win rates: Newcombe's paired score interval; losses: mean(d) ± t(0.975, n-1)·sd(d)/√n
    over d_r = x(p,r) − x(0,r); a loss that never varies: no interval, "no-variation"."""
    out, summary = crn
    x = _values(out)
    rows = summary["comparisons"]
    # points 1 and 2 × (two sides × (win rate, men, guns, draws) + turns)
    assert len(rows) == 2 * (2 * 4 + 1)
    for c in rows:
        assert set(c) == KEYS
        assert c["paired"] is True
        assert c["baseline"] == 0
        a, b = x[c["point"], c["side"], c["measure"]], x[0, c["side"], c["measure"]]
        d = [u - v for u, v in zip(a, b, strict=True)]
        mean = statistics.fmean(d)
        if c["measure"] == "win_rate":
            assert c["method"] == "newcombe-paired"
            assert c["difference"] == pytest.approx(mean, abs=TOL)
            assert (c["ci_low"], c["ci_high"]) == pytest.approx(_newcombe_paired(a, b), abs=TOL)
            continue
        if statistics.stdev(d) == 0:
            assert (c["method"], c["ci_low"], c["ci_high"]) == ("no-variation", None, None)
            continue
        assert c["method"] == "t"
        half = t.ppf(0.975, len(d) - 1) * statistics.stdev(d) / math.sqrt(len(d))
        assert c["difference"] == pytest.approx(mean, abs=TOL)
        assert c["ci_low"] == pytest.approx(mean - half, abs=TOL)
        assert c["ci_high"] == pytest.approx(mean + half, abs=TOL)
    assert [c["point"] for c in rows] == [1] * 9 + [2] * 9


def test_variance_reduction_compares_paired_and_independent_sd(
    crn: tuple[Path, dict[str, Any]],
) -> None:
    """variance_reduction: sd of the paired differences against √(s_p² + s_0²)."""
    out, summary = crn
    x = _values(out)
    for v in summary["variance_reduction"]:
        a, b = x[v["point"], v["side"], v["measure"]], x[0, v["side"], v["measure"]]
        d = [p - q for p, q in zip(a, b, strict=True)]
        assert v["pairs"] == 12
        assert v["paired_sd"] == pytest.approx(statistics.stdev(d), abs=TOL)
        unpaired = math.sqrt(statistics.variance(a) + statistics.variance(b))
        assert v["unpaired_sd"] == pytest.approx(unpaired, abs=TOL)
        if unpaired:
            assert v["variance_ratio"] == pytest.approx(statistics.variance(d) / unpaired**2)


def test_without_crn_the_comparison_is_welchs_and_says_unpaired(tmp_path: Path) -> None:
    """No CRN: win rates Newcombe's score interval (statsmodels "newcomb"); losses
    x̄_p − x̄_0 ± t(ν)·√(s_p²/n + s_0²/n), Welch's ν; paired false; no reduction."""
    summary = run_study(_plan(False), tmp_path, RunOptions(jobs=1, plots=False)).summary
    x = _values(tmp_path)
    assert "variance_reduction" not in summary
    for c in summary["comparisons"]:
        assert c["paired"] is False
        a, b = x[c["point"], c["side"], c["measure"]], x[0, c["side"], c["measure"]]
        va, vb = statistics.variance(a) / len(a), statistics.variance(b) / len(b)
        diff = statistics.fmean(a) - statistics.fmean(b)
        assert c["difference"] == pytest.approx(diff, abs=TOL)
        if c["measure"] == "win_rate":
            assert c["method"] == "newcombe"
            ref = confint_proportions_2indep(
                sum(a), len(a), sum(b), len(b), method="newcomb", compare="diff"
            )
            assert (c["ci_low"], c["ci_high"]) == pytest.approx(ref, abs=TOL)
            continue
        if va + vb == 0:
            assert (c["method"], c["ci_low"], c["ci_high"]) == ("no-variation", None, None)
            continue
        assert c["method"] == "welch"
        df = (va + vb) ** 2 / (va**2 / (len(a) - 1) + vb**2 / (len(b) - 1))
        half = t.ppf(0.975, df) * math.sqrt(va + vb)
        assert c["ci_low"] == pytest.approx(diff - half, abs=TOL)
        assert c["ci_high"] == pytest.approx(diff + half, abs=TOL)


def test_baseline_flag_compares_with_point_k_in_text_json_and_plot(tmp_path: Path) -> None:
    """--baseline 1 --crn: comparisons of points 0 and 2 with 1, printed, stored and plotted."""
    args: list[str | Path] = [
        "batch",
        STONE_WALL,
        "--out",
        tmp_path,
        "--runs",
        "6",
        "--seed",
        "3",
        "--crn",
    ]
    args += ["--sweep", "options.fire_hcv=15,25,35", "--baseline", "1", "--jobs", "1"]
    result = invoke(*args)
    assert result.exit_code == 0, result.output
    assert "Differences from point 1 (options.fire_hcv=25) — paired (CRN" in result.output
    assert "    Union win rate " in result.output
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert {c["point"] for c in summary["comparisons"]} == {0, 2}
    assert {c["baseline"] for c in summary["comparisons"]} == {1}
    assert (tmp_path / "plots" / "paired.png").read_bytes()[:4] == b"\x89PNG"


def test_a_baseline_outside_the_design_is_refused(tmp_path: Path) -> None:
    """--baseline 3 of a 3-point design: a clear error before anything is written."""
    with pytest.raises(StudyError, match="--baseline 3: the design has points 0 to 2"):
        run_study(_plan(True), tmp_path / "x", RunOptions(jobs=1, baseline=3))
    assert not (tmp_path / "x").exists()


def test_the_continuity_corrected_paired_interval_on_request(tmp_path: Path) -> None:
    """--paired-interval newcombe-paired-cc: every paired win-rate comparison is method 11
    (newcombe_paired's "newcombe-paired-cc" on the stored pairs), the summary names it
    in study.paired_interval and in words, and verify makes the summary again with it."""
    from sim.batch.methods.differences import Table2x2, newcombe_paired

    args: list[str | Path] = [
        "batch",
        STONE_WALL,
        "--out",
        tmp_path,
        "--runs",
        "6",
        "--seed",
        "3",
        "--crn",
    ]
    args += ["--sweep", "options.fire_hcv=15,35", "--jobs", "1"]
    result = invoke(*args, "--paired-interval", "newcombe-paired-cc")
    assert result.exit_code == 0, result.output
    assert "win rates Newcombe's paired score (method 11, continuity-corrected)" in result.output
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["study"]["paired_interval"] == "newcombe-paired-cc"
    x = _values(tmp_path)
    rates = [c for c in summary["comparisons"] if c["measure"] == "win_rate"]
    assert rates and all(c["method"] == "newcombe-paired-cc" for c in rates)
    for c in rates:
        a, b = x[1, c["side"], "win_rate"], x[0, c["side"], "win_rate"]
        cells = [sum(1 for u, v in zip(a, b, strict=True) if (u, v) == k)
                 for k in ((1, 1), (1, 0), (0, 1), (0, 0))]  # fmt: skip
        _, low, high = newcombe_paired(Table2x2(*cells), "newcombe-paired-cc")
        assert (c["ci_low"], c["ci_high"]) == pytest.approx((low, high), abs=TOL)
    verified = invoke("verify", tmp_path, "--sample", "0")
    assert verified.exit_code == 0, verified.output


def test_a_becmi_studys_differences_say_rounds_as_its_points_do(tmp_path: Path) -> None:
    """The brawl's length is in rounds at each point and in the differences from the
    baseline (the differences said "turns")."""
    from tests.batch.helpers import SCENARIOS, invoke

    out = tmp_path / "tb"
    result = invoke(
        "batch", SCENARIOS / "tavern_brawl.yaml", "--runs", "4", "--out", out, "--no-plots",
        "--sweep", "sides.thorgrim.characters.thorgrim.hp=12,24", "-q",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    at = lines.index(next(x for x in lines if x.startswith("Differences from point 0")))
    assert any(x.split() and x.split()[0] == "rounds" for x in lines[at:])
    assert not any(x.split() and x.split()[0] == "turns" for x in lines)


def test_a_difference_the_same_in_every_pair_is_not_said_to_be_no_variation(
    tmp_path: Path,
) -> None:
    """A natural 20 in the tavern brawl changes no run (Thorgrim's hits land anyway), so with
    --crn each pair of runs is the same battle: the hp lost varies from run to run but its
    difference is 0 in every pair. The text says so ("the same in every pair"); a loss
    that never varied at all (Thorgrim never dies) is still "no variation observed"."""
    from tests.batch.helpers import SCENARIOS

    out = tmp_path / "s"
    result = invoke(
        "batch", SCENARIOS / "tavern_brawl.yaml", "--runs", "40", "--crn", "--sweep",
        "options.natural_20_hits=false,true", "--jobs", "1", "-q", "--no-plots", "--out", out,
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    summary = json.loads((out / "summary.json").read_text())
    runs = tables(out)["runs"]
    by = {(r[1], r[2]): r for r in runs}  # (point, replication) -> row
    assert all(by[(0, k)][5:] == by[(1, k)][5:] for k in range(40))  # the same battles
    hp = [r for r in summary["comparisons"] if r["measure"] == "losses.hp"]
    assert {r["method"] for r in hp} == {"no-variation"}
    sd = {(v["side"], v["measure"]): v["unpaired_sd"] for v in summary["variance_reduction"]}
    assert sd[("thorgrim", "losses.hp")] > 0 and sd[("thorgrim", "losses.dead")] == 0
    lines = result.output.splitlines()
    assert any(line.split() == ["Thorgrim", "hp", "lost", "+0.0", "the", "same", "in",
                                "every", "pair"] for line in lines)  # fmt: skip
    assert any(line.split() == ["Thorgrim", "dead", "+0.0", "no", "variation", "observed"]
               for line in lines)  # fmt: skip


def test_a_small_difference_is_shown_to_three_decimals_not_as_zero() -> None:
    """A loss difference and bounds that all round to zero at one decimal (-0.005 [-0.024,
    +0.012]) are shown to three, where "-0.0 [-0.0, +0.0]" read as no variation beside a
    plot that drew some; one at the usual size keeps one decimal."""
    from sim.batch.analysis.summary import _places, _signed

    assert _places(-0.005, -0.024, 0.012) == 3
    assert [_signed(x, "men", 3) for x in (-0.005, -0.024, 0.012)] == ["-0.005", "-0.024", "+0.012"]
    assert _places(-2.5, -7.0, 2.0) == 1 and _places(0.0, 0.0, 0.0) == 1
    assert _places(None, None, None) == 1
    assert _signed(-0.004, "win_rate", 3) == "-0.400 pts"


def test_a_becmi_studys_charts_say_rounds_as_its_text_does(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The brawl's length is "rounds" in the Morris and the paired charts too, as in the text
    (their panel titles and the paired chart's list of measures not drawn said "turns")."""
    from sim.batch.charts import analysis
    from tests.batch.helpers import SCENARIOS, invoke

    said: list[str] = []
    wrap, key_legend = analysis.wrap, analysis.key_legend
    monkeypatch.setattr(
        analysis, "wrap", lambda text, width: said.append(text) or wrap(text, width)
    )
    monkeypatch.setattr(
        analysis, "key_legend", lambda fig, lines: said.extend(lines) or key_legend(fig, lines)
    )
    result = invoke(
        "batch", SCENARIOS / "tavern_brawl.yaml", "--runs", "3", "--out", tmp_path / "tb",
        "-j", "1", "-q", "--design", "morris", "--points", "2",
        "--sweep", "sides.thorgrim.characters.thorgrim.hp=5..30",
        "--sweep", "options.monster_morale=false,true",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert (tmp_path / "tb" / "plots" / "sensitivity.png").is_file()
    assert "rounds" in said  # the Morris chart's panel
    morris = len(said)
    result = invoke(
        "batch", SCENARIOS / "tavern_brawl.yaml", "--runs", "3", "--out", tmp_path / "grid",
        "-j", "1", "-q", "--crn", "--sweep", "sides.thorgrim.characters.thorgrim.hp=5,24",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert (tmp_path / "grid" / "plots" / "paired.png").is_file()
    paired = said[morris:]  # a panel "rounds (…)", or "…, rounds" among those not drawn
    assert any(t.startswith("rounds (") or t.endswith(", rounds") for t in paired), paired
    assert (
        not any(word in t for t in said for word in ("turns (", ", turns")) and "turns" not in said
    )
