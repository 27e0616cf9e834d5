"""Every interval battlesim reports, checked against statsmodels / scipy on fixed data."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
from statsmodels.regression.linear_model import OLS  # type: ignore[import-untyped]
from statsmodels.stats.proportion import (  # type: ignore[import-untyped]
    confint_proportions_2indep,
    proportion_confint,
)

from sim.batch.analysis.compare import Moments, paired_interval, welch_interval
from sim.batch.analysis.pooled import _one, cluster_mean
from sim.batch.methods.differences import Table2x2, newcombe, newcombe_paired
from sim.batch.methods.stats import clopper_pearson, jeffreys, proportion, wilson
from tests.batch.helpers import SCENARIOS, STONE_WALL, invoke

CASES = [(0, 40), (40, 40), (3, 40), (17, 40), (1, 1), (0, 1), (0, 140), (200, 200)]


@pytest.mark.parametrize(("k", "n"), CASES)
def test_wilson_and_clopper_pearson_equal_statsmodels(k: int, n: int) -> None:
    """Wilson = proportion_confint(method="wilson"); Clopper–Pearson = method="beta"."""
    for ours, method in ((wilson(k, n), "wilson"), (clopper_pearson(k, n), "beta")):
        low, high = proportion_confint(k, n, alpha=0.05, method=method)
        assert ours.low == pytest.approx(low, abs=1e-12)
        assert ours.high == pytest.approx(high, abs=1e-12)
        assert ours.p == k / n


@pytest.mark.parametrize(("k", "n"), CASES)
def test_jeffreys_equals_statsmodels_with_the_boundary_rule(k: int, n: int) -> None:
    """Jeffreys = statsmodels' method="jeffreys", except low = 0 at k = 0 and high = 1 at k = n
    (Brown, Cai & DasGupta 2001), where statsmodels keeps the beta quantile."""
    low, high = proportion_confint(k, n, alpha=0.05, method="jeffreys")
    iv = jeffreys(k, n)
    assert iv.low == (0.0 if k == 0 else pytest.approx(low, abs=1e-12))
    assert iv.high == (1.0 if k == n else pytest.approx(high, abs=1e-12))


def test_zero_and_all_of_n_give_one_sided_exact_bounds() -> None:
    """0 of n: Clopper–Pearson's upper end is 1 − (α/2)^(1/n); n of n: the lower is (α/2)^(1/n)."""
    assert clopper_pearson(0, 40).high == pytest.approx(1 - 0.025 ** (1 / 40), rel=1e-12)
    assert clopper_pearson(40, 40).low == pytest.approx(0.025 ** (1 / 40), rel=1e-12)
    assert proportion(0, 40, "clopper-pearson") == clopper_pearson(0, 40)
    with pytest.raises(ValueError, match="unknown interval 'wald'"):
        proportion(1, 2, "wald")


TWO = [(5, 40, 2, 40), (0, 40, 0, 40), (40, 40, 31, 40), (0, 140, 3, 200), (17, 40, 17, 40)]


@pytest.mark.parametrize(("k1", "n1", "k2", "n2"), TWO)
def test_newcombe_unpaired_equals_statsmodels_newcomb(k1: int, n1: int, k2: int, n2: int) -> None:
    """The unpaired win-rate interval is confint_proportions_2indep(method="newcomb")."""
    diff, low, high = newcombe(k1, n1, k2, n2)
    ref = confint_proportions_2indep(k1, n1, k2, n2, method="newcomb", compare="diff")
    assert diff == k1 / n1 - k2 / n2
    assert (low, high) == pytest.approx(ref, abs=1e-12)


def test_newcombe_paired_with_no_correlation_is_the_unpaired_interval() -> None:
    """With ad = bc (φ = 0) method 10 combines the two Wilson intervals as the unpaired one does."""
    t = Table2x2(a=2, b=4, c=1, d=2)  # ad = bc = 4
    diff, low, high = newcombe_paired(t)
    ref = confint_proportions_2indep(6, 9, 3, 9, method="newcomb", compare="diff")
    assert diff == pytest.approx(3 / 9)
    assert (low, high) == pytest.approx(ref, abs=1e-12)


def test_newcombe_paired_follows_method_10_from_statsmodels_wilson_limits() -> None:
    """Method 10 re-derived from statsmodels' Wilson limits and φ for a correlated table."""
    a, b, c, d = 30, 6, 1, 3
    n = a + b + c + d
    p1, p2 = (a + b) / n, (a + c) / n
    l1, u1 = proportion_confint(a + b, n, method="wilson")
    l2, u2 = proportion_confint(a + c, n, method="wilson")
    phi = (a * d - b * c) / math.sqrt((a + b) * (c + d) * (a + c) * (b + d))
    delta = math.sqrt((p1 - l1) ** 2 - 2 * phi * (p1 - l1) * (u2 - p2) + (u2 - p2) ** 2)
    eps = math.sqrt((u1 - p1) ** 2 - 2 * phi * (u1 - p1) * (p2 - l2) + (p2 - l2) ** 2)
    diff, low, high = newcombe_paired(Table2x2(a, b, c, d))
    assert (diff, low, high) == pytest.approx((p1 - p2, p1 - p2 - delta, p1 - p2 + eps), abs=1e-12)


def test_one_discordant_pair_in_40_gets_an_asymmetric_interval_not_plus_minus_5() -> None:
    """The issue's case: the paired t gives ±5 points around +2.5; Newcombe leans to the data."""
    diff, low, high = newcombe_paired(Table2x2(a=0, b=1, c=0, d=39))
    assert diff == 0.025
    assert low < 0 < high
    assert high - diff > diff - low  # the upper side is the longer one
    t = paired_interval(Moments(40, 1, 1))
    assert t is not None and t[1] is not None and t[2] is not None
    assert t[2] - t[0] == pytest.approx(t[0] - t[1])  # the t interval is symmetric


def test_a_measure_that_never_varies_gets_no_zero_width_interval() -> None:
    """Constant paired differences and constant samples: (difference, None, None)."""
    assert paired_interval(Moments(40, 0, 0)) == (0.0, None, None)
    assert welch_interval(Moments(40, 0, 0), Moments(30, 0, 0)) == (0.0, None, None)


def test_t_and_welch_intervals_equal_scipy() -> None:
    """Paired t and Welch against scipy.stats on fixed samples."""
    from scipy import stats  # type: ignore[import-untyped]

    x = np.array([3, 5, 2, 8, 6, 1, 7, 4])
    y = np.array([2, 1, 9, 4, 4, 3])
    d = x[:6] - y
    ours = paired_interval(Moments(len(d), int(d.sum()), int((d * d).sum())))
    ref = stats.ttest_1samp(d, 0).confidence_interval(0.95)
    assert ours is not None and ours[1:] == pytest.approx((ref.low, ref.high), abs=1e-12)
    mx = Moments(len(x), int(x.sum()), int((x * x).sum()))
    my = Moments(len(y), int(y.sum()), int((y * y).sum()))
    w = welch_interval(mx, my)
    ref = stats.ttest_ind(x, y, equal_var=False).confidence_interval(0.95)
    assert w is not None and w[1:] == pytest.approx((ref.low, ref.high), abs=1e-12)


def test_cluster_robust_standard_error_equals_statsmodels_ols_clustered() -> None:
    """The pooled win rate's SE clustered by replication = OLS(y, 1) with cov_type="cluster"."""
    rng = np.random.default_rng(5)
    reps = np.repeat(np.arange(30), 3)  # 30 replications, 3 points each (CRN)
    shared = rng.random(30)[reps]  # a replication's luck is shared by its points
    y = (shared + 0.3 * rng.random(90) > 0.9).astype(float)
    groups = [(3, int(y[reps == g].sum())) for g in range(30)]
    p, se = cluster_mean(groups)
    fit = OLS(y, np.ones_like(y)).fit(cov_type="cluster", cov_kwds={"groups": reps})
    assert p == pytest.approx(float(fit.params[0]), abs=1e-12)
    assert se == pytest.approx(float(fit.bse[0]), rel=1e-10)
    naive = math.sqrt(p * (1 - p) / len(y))
    assert se > naive  # the shared luck makes the naive error too small


def _docs_pooled_sql(factor: str, side: str) -> str:
    """docs/batch.md's SQL for a pooled win rate with its clustered SE, for ``factor`` and
    ``side`` in place of the wall's cover and the Union."""
    docs = (Path(__file__).resolve().parents[2] / "docs" / "batch.md").read_text("utf-8")
    start = docs.index("```sql\n-- Union win rate at each cover of the wall")
    sql = docs[start + len("```sql\n") : docs.index("```", start + 6)]
    assert sql.count('p."map.terrain.0.cover"') == 1 and sql.count("'usa'") == 1
    return sql.replace('p."map.terrain.0.cover"', f'p."{factor}"').replace("'usa'", f"'{side}'")


def test_the_docs_pooled_sql_gives_the_summarys_clustered_error_with_draws(
    tmp_path: Path,
) -> None:
    """The docs' SQL gives summary.json's pooled rate and clustered SE on a becmi study with
    draws, where some replication's runs at a level were all draws (its k summed over NULL
    winners: coalesced to 0, not dropped from the SE's sum, as it was)."""
    import duckdb

    factor = "options.missile_in_melee"
    args = ["--runs", "40", "--crn", "--seed", "7", "--sweep", f"{factor}=false,true",
            "--sweep", "options.natural_20_hits=false,true", "--jobs", "1", "-q",
            "--no-plots"]  # fmt: skip
    result = invoke("batch", SCENARIOS / "dungeon_skirmish.yaml", "--out", tmp_path / "s", *args)
    assert result.exit_code == 0, result.output
    summary = json.loads((tmp_path / "s" / "summary.json").read_text())
    pooled = {(r["value"], r["side"]): r for r in summary["pooled"] if r["factor"] == factor}
    with duckdb.connect(str(tmp_path / "s" / "study.duckdb"), read_only=True) as con:
        all_drawn = con.execute(
            "SELECT count(*) FROM (SELECT replication FROM runs r JOIN points p USING (point) "
            f'GROUP BY p."{factor}", replication HAVING count(r.winner) = 0)'
        ).fetchone()
        assert all_drawn is not None and all_drawn[0] > 0  # the case the SQL got wrong
        for side in ("party", "goblins"):
            for value, p_hat, n, se in con.execute(_docs_pooled_sql(factor, side)).fetchall():
                row = pooled[(value, side)]
                assert (p_hat, n) == (pytest.approx(row["p"], abs=1e-12), row["runs"])
                assert se == pytest.approx(row["se"], rel=1e-9)


def test_the_default_interval_names_its_method_too(tmp_path: Path) -> None:
    """Without --interval the rates are Wilson's, and the summary says so first, as it does
    for the others (it said nothing: every interval names its method)."""
    args = ["--runs", "4", "--seed", "1", "--no-plots", "--jobs", "1"]
    result = invoke("batch", STONE_WALL, "--out", tmp_path / "w", *args)
    assert result.exit_code == 0, result.output
    assert result.output.splitlines()[0] == "Win and draw rates with 95 % Wilson score intervals"


def test_interval_flag_and_study_field_choose_the_method_and_say_none_or_all(
    tmp_path: Path,
) -> None:
    """--interval clopper-pearson (and a study file's interval: jeffreys) set every rate's
    interval and method; 10 of 10 and 0 of 10 are said in words and marked in the JSON."""
    args = ["--runs", "10", "--seed", "1", "--no-plots", "--jobs", "1"]
    result = invoke("batch", STONE_WALL, "--out", tmp_path / "cp", *args, "--interval",
                    "clopper-pearson")  # fmt: skip
    assert result.exit_code == 0, result.output
    assert result.output.startswith(
        "Win and draw rates with 95 % Clopper–Pearson (exact) intervals"
    )
    summary = json.loads((tmp_path / "cp" / "summary.json").read_text())
    assert summary["study"]["interval"] == "clopper-pearson"
    pt = summary["points"][0]
    for rate in (*pt["win"].values(), pt["draw"]):
        iv = clopper_pearson(rate["count"], pt["done"])
        assert (rate["low"], rate["high"], rate["method"]) == (iv.low, iv.high, "clopper-pearson")
        if rate["count"] in (0, pt["done"]):
            assert rate["observed"] == ("none" if rate["count"] == 0 else "all")
            word = "never in 10 runs" if rate["count"] == 0 else "in all 10 runs"
            assert f"]  {word}" in result.output
    study = tmp_path / "s.yaml"
    study.write_text(f"scenario: {STONE_WALL}\nreplications: 4\ninterval: jeffreys\n")
    result = invoke("study", study, "--out", tmp_path / "j", "--jobs", "1")
    assert result.exit_code == 0, result.output
    summary = json.loads((tmp_path / "j" / "summary.json").read_text())
    assert {r["method"] for r in summary["points"][0]["win"].values()} == {"jeffreys"}


def test_a_pooled_rate_whose_replications_all_won_the_same_share_keeps_its_estimate() -> None:
    """Under CRN, 20 replications each winning 1 of its 2 runs have a clustered se of 0 though
    the rate is 0.5: the interval is the pooled counts' (Wilson on 20 of 40), which holds the
    estimate; only a side that never or always won counts each replication as one trial."""
    half = _one(1.0, "usa", 20, 40, [(2, 1)] * 20, True, "wilson")
    expected = wilson(20, 40)
    assert (half.p, half.low, half.high, half.method) == (
        0.5,
        expected.low,
        expected.high,
        "wilson",
    )
    assert half.low < half.p < half.high
    never = _one(1.0, "usa", 0, 40, [(2, 0)] * 20, True, "wilson")
    assert (never.low, never.high, never.method) == (
        0.0,
        wilson(0, 20).high,
        "wilson-by-replication",
    )
    always = _one(1.0, "usa", 40, 40, [(2, 2)] * 20, True, "wilson")
    assert (always.low, always.high) == (wilson(20, 20).low, 1.0)


def test_a_point_of_one_run_says_one_run(tmp_path: Path) -> None:
    """`--runs 1`: "1 run", "never in 1 run", "in its one run" (it said "1 runs")."""
    from tests.batch.helpers import STONE_WALL, invoke

    result = invoke("batch", STONE_WALL, "--runs", "1", "--out", tmp_path / "one", "-q",
                    "--no-plots")  # fmt: skip
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert "Point 0 (base): 1 run" in lines
    assert "1 runs" not in result.stdout
    assert any(x.endswith("  never in 1 run") for x in lines)
    assert any(x.endswith("  in its one run") for x in lines)
