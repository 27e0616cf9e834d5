"""The coverage of the win-rate intervals, known before they are shipped (docs/batch.md,
*Coverage*): exact over the binomial for the proportion intervals, simulated on plain
draws for the pooled win rate under common random numbers.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from sim.batch.analysis.pooled import _one, cluster_mean
from sim.batch.methods.stats import Z95, clopper_pearson, clustered, jeffreys, wilson

TRUE_P = np.linspace(0.0001, 0.5, 5000)
"""True proportions up to one half: each interval is symmetric (k → n − k, p → 1 − p)."""


def _exact_coverage(interval: object, n: int) -> np.ndarray:
    """P(low ≤ p ≤ high) for each p of :data:`TRUE_P`, summed over every k of n."""
    from scipy.stats import binom  # type: ignore[import-untyped]

    ivs = [interval(k, n) for k in range(n + 1)]  # type: ignore[operator]
    low = np.array([iv.low for iv in ivs])[:, None]
    high = np.array([iv.high for iv in ivs])[:, None]
    pmf = binom.pmf(np.arange(n + 1)[:, None], n, TRUE_P[None, :])
    return np.asarray((pmf * ((low <= TRUE_P) & (high >= TRUE_P))).sum(axis=0))


@pytest.mark.parametrize("n", [20, 50, 100, 200])
def test_the_proportion_intervals_cover_as_the_docs_say(n: int) -> None:
    """Clopper–Pearson's exact interval never covers less than 95 % (it is built so); Wilson
    and Jeffreys average 95 % over p, within half a point, and dip below it near p = 0
    to the depths docs/batch.md states (Wilson 83.8–85.2 %, Jeffreys 87.8–89.3 %)."""
    exact = _exact_coverage(clopper_pearson, n)
    assert exact.min() >= 0.95 - 1e-12
    score, posterior = _exact_coverage(wilson, n), _exact_coverage(jeffreys, n)
    for coverage in (score, posterior):
        assert abs(coverage.mean() - 0.95) < 0.005
    assert 0.838 <= round(score.min(), 3) <= 0.852
    assert TRUE_P[score.argmin()] < 0.2  # the dip is at small p (p near 0.2/n)
    assert 0.878 <= round(posterior.min(), 3) <= 0.893


SETTINGS = [  # replications G, points pooled m, true win rate p, shared-dice probability ρ
    (20, 4, 0.05, 0.7), (20, 4, 0.1, 0.7), (50, 3, 0.02, 0.0), (50, 3, 0.02, 0.7),
    (100, 2, 0.02, 0.7), (20, 2, 0.3, 0.7), (50, 4, 0.5, 0.3), (10, 8, 0.5, 0.5),
    (10, 8, 0.1, 0.0), (200, 3, 0.01, 0.5), (5, 20, 0.3, 0.5), (40, 6, 0.15, 0.6),
]  # fmt: skip
DRAWS = 1000


def _crn_wins(rng: np.random.Generator, g: int, m: int, p: float, rho: float) -> list[int]:
    """Each replication's wins over its ``m`` runs: with probability ``rho`` its runs share
    one draw (common random numbers that decide the battle alike), else each its own."""
    shared = rng.random(g) < rho
    common = rng.random(g) < p
    own = rng.random((g, m)) < p
    return [int(k) for k in np.where(shared[:, None], common[:, None], own).sum(axis=1)]


@pytest.mark.parametrize(
    ("method", "lowest", "average"),
    [("wilson", 0.85, 0.94), ("clopper-pearson", 0.88, 0.95), ("jeffreys", 0.86, 0.94)],
)
def test_the_pooled_win_rate_under_crn_covers_as_the_docs_say(
    method: str, lowest: float, average: float
) -> None:
    """The pooled win rate a study reports under CRN (every branch: clustered, by
    replication when a side never won, the pooled counts' interval), on plain draws
    correlated within a replication as CRN correlates them, seed 2026: at least ``lowest``
    at each of the twelve settings and ``average`` over them (docs/batch.md, *Coverage*:
    Wilson lowest 86.9 %, average 95.2 %). The Wald interval p̂ ± z·se it replaced, on the
    same draws, falls under 85 % where the win rate is small."""
    rng = np.random.default_rng(2026)
    ours, wald = [], []
    for g, m, p, rho in SETTINGS:
        inside = wald_inside = 0
        for _ in range(DRAWS):
            wins = _crn_wins(rng, g, m, p, rho)
            groups = [(m, k) for k in wins]
            est = _one(0, "side", sum(wins), g * m, groups, True, method)
            inside += est.low <= p <= est.high
            if est.se:  # the clustered branch: what the Wald interval would have given
                _p, se = cluster_mean(groups)
                wald_inside += max(0.0, _p - Z95 * se) <= p <= min(1.0, _p + Z95 * se)
            else:
                wald_inside += est.low <= p <= est.high
        ours.append(inside / DRAWS)
        wald.append(wald_inside / DRAWS)
    assert min(ours) >= lowest, ours
    assert sum(ours) / len(ours) >= average, ours
    assert min(wald) < 0.85 and sum(wald) / len(wald) < 0.9, wald


def test_the_clustered_wilson_interval_is_wilsons_with_t_on_the_effective_runs() -> None:
    """With Wilson, the clustered interval is Wilson's formula with t(G − 1) for z and the
    effective number of runs p(1 − p)/se² for n, which statsmodels' Wilson interval gives
    at the matching alpha; the effective number is capped at the runs themselves."""
    from scipy.stats import norm, t  # type: ignore[import-untyped]
    from statsmodels.stats.proportion import proportion_confint  # type: ignore[import-untyped]

    p, se, n, g = 0.12, 0.035, 120, 30
    n_eff = p * (1 - p) / se**2  # 86.2, under the 120 runs
    alpha = 2 * norm.sf(t.ppf(0.975, g - 1))  # the normal tail that t(29)'s 97.5 % point cuts
    low, high = proportion_confint(p * n_eff, n_eff, alpha=alpha, method="wilson")
    iv = clustered(p, se, n, g, "wilson")
    assert (iv.low, iv.high) == pytest.approx((low, high), abs=1e-12)
    capped = clustered(p, 0.001, n, g, "wilson")  # n_eff 105,600: taken as the 120 runs
    low, high = proportion_confint(p * n, n, alpha=alpha, method="wilson")
    assert (capped.low, capped.high) == pytest.approx((low, high), abs=1e-12)
    cp = clustered(p, se, n, g, "clopper-pearson")
    star = n_eff * (Z95 / t.ppf(0.975, g - 1)) ** 2
    ref = proportion_confint(p * star, star, alpha=0.05, method="beta")
    assert (cp.low, cp.high) == pytest.approx(ref, abs=1e-12)
    assert math.isclose(iv.p, p) and iv.low < p < iv.high and (iv.k, iv.n) == (14, 120)
    with pytest.raises(ValueError, match="se > 0"):
        clustered(p, 0.0, n, g)


GRID = np.linspace(0.005, 0.995, 60)
"""Each of two points' true win rate: 3,600 pairs (p₁, p₂), differences from −0.99 to 0.99."""


def _exact_difference_coverage(interval: object, n1: int, n2: int) -> np.ndarray:
    """P(low ≤ p₁ − p₂ ≤ high) at each pair of :data:`GRID`, summed over every k₁ of n₁ and
    k₂ of n₂ (independent binomials)."""
    from scipy.stats import binom  # type: ignore[import-untyped]

    low, high = np.empty((n1 + 1, n2 + 1)), np.empty((n1 + 1, n2 + 1))
    for k1 in range(n1 + 1):
        for k2 in range(n2 + 1):
            _, low[k1, k2], high[k1, k2] = interval(k1, n1, k2, n2)  # type: ignore[operator]
    one = binom.pmf(np.arange(n1 + 1)[:, None], n1, GRID[None, :])
    two = binom.pmf(np.arange(n2 + 1)[:, None], n2, GRID[None, :])
    truth = (GRID[:, None] - GRID[None, :])[None, None]
    inside = (low[..., None, None] <= truth + 1e-12) & (high[..., None, None] >= truth - 1e-12)
    return np.asarray(np.einsum("ai,bj,abij->ij", one, two, inside))


def _wald_difference(k1: int, n1: int, k2: int, n2: int) -> tuple[float, float, float]:
    p1, p2 = k1 / n1, k2 / n2
    half = Z95 * math.sqrt(p1 * (1 - p1) / n1 + p2 * (1 - p2) / n2)
    return p1 - p2, p1 - p2 - half, p1 - p2 + half


@pytest.mark.parametrize(
    ("n1", "n2", "lowest"),
    [(10, 10, 0.886), (20, 20, 0.893), (40, 40, 0.910), (100, 100, 0.920), (20, 60, 0.919)],
)
def test_the_unpaired_newcombe_interval_covers_as_the_docs_say(
    n1: int, n2: int, lowest: float
) -> None:
    """Newcombe's hybrid score interval of a difference of independent win rates (``newcombe``,
    a study without CRN), its coverage summed exactly over both binomials at 3,600 pairs of
    true win rates: 95.1–95.5 % on average (within half a point of 95 %) and never below
    ``lowest`` (88.7 % at 10 runs a point, 92.0 % at 100; docs/batch.md, *Coverage*; Newcombe
    1998 found the same, 95.6 % on average over his grid). The Wald interval
    p̂₁ − p̂₂ ± z·√(p̂₁q̂₁/n₁ + p̂₂q̂₂/n₂) fails both at 10 runs a point (89.2 % on average,
    9.5 % at its lowest: a point that never won gives it no width)."""
    from sim.batch.methods.differences import newcombe

    coverage = _exact_difference_coverage(newcombe, n1, n2)
    assert abs(coverage.mean() - 0.95) < 0.005, coverage.mean()
    assert lowest <= coverage.min() < lowest + 0.002, coverage.min()
    if n1 == 10:
        wald = _exact_difference_coverage(_wald_difference, n1, n2)
        assert wald.mean() < 0.945 and wald.min() < lowest
