"""The intervals verdicts are taken on, and the doubling, simulated on plain draws.

Fixed seeds; the tolerances are stated in each test. Coverage is the share of
simulated samples whose 95 % interval holds the true value.
"""

from __future__ import annotations

import numpy as np

from sim.batch.methods.stats import wilson
from sim.history.case import Accept
from sim.history.estimate import estimate

SAMPLES, N = 2000, 200


def _covered(statistic: str, draws: list[list[object]], truth: float) -> float:
    hits = 0
    for values in draws:
        e = estimate(statistic, values)  # type: ignore[arg-type]
        hits += e.low <= truth <= e.high
    return hits / len(draws)


def test_wilson_normal_and_delta_method_cover_95_percent() -> None:
    """2,000 samples of 200 runs each: a share at p = 0.3 (Wilson), a mean of exponential
    draws (normal), a ratio of the totals of two gamma draws (delta method, true ratio
    2/3). Each covers its true value in 95 % ± 1.5 % of the samples (the simulation's own
    standard error is 0.5 %)."""
    rng = np.random.default_rng(2026)
    shares = [[float(x) for x in rng.random(N) < 0.3] for _ in range(SAMPLES)]
    assert 0.935 <= _covered("probability", shares, 0.3) <= 0.965
    means = [[float(x) for x in rng.exponential(2.0, N)] for _ in range(SAMPLES)]
    assert 0.935 <= _covered("mean", means, 2.0) <= 0.965
    ratios = [
        list(zip(rng.gamma(2.0, 1.0, N).tolist(), rng.gamma(3.0, 1.0, N).tolist(), strict=True))
        for _ in range(SAMPLES)
    ]
    assert 0.935 <= _covered("ratio", ratios, 2 / 3) <= 0.965


def test_doubling_fails_a_true_edge_value_at_most_four_looks_times_2_5_percent() -> None:
    """A measure whose true share sits on its edge (p = 0.3, accept max 0.3), judged at 200
    runs and doubled while inconclusive up to 1,600: over 20,000 simulated measures it FAILs
    in 6-9 % (7.65 % at this seed; docs/history.md), under the union bound of 4 × 2.5 % = 10 %."""
    rng = np.random.default_rng(5)
    edge = Accept(max=0.3)
    fails = 0
    reps = 20_000
    for _ in range(reps):
        runs = rng.random(1600) < 0.3
        n = 200
        while True:
            iv = wilson(int(runs[:n].sum()), n)
            verdict = edge.verdict(iv.p, iv.low, iv.high)
            if verdict != "inconclusive" or n >= 1600:
                break
            n *= 2
        fails += verdict == "fail"
    assert 0.06 <= fails / reps <= 0.09


def _one_side_misses(statistic: str, draws: list[list[object]], truth: float) -> float:
    """The share of samples whose interval lies wholly below ``truth``."""
    return sum(estimate(statistic, v).high < truth for v in draws) / len(draws)  # type: ignore[arg-type]


def test_a_mean_of_nearly_constant_whole_numbers_is_too_narrow_on_one_side() -> None:
    """Known and said (docs/history.md, *Verdicts*): a duration of 6 turns in 99 % of runs and
    7 in 1 % (true mean 6.01). At 200 runs the Student t interval lies wholly below 6.01 in
    about 12 % of 4,000 samples (10-15 % at this seed; a sample's interval is [6, 6] whenever
    no run reached 7, which is 0.99^200 = 13.4 %), not the 2.5 % it says; at 10 runs in
    about 90 % (0.99^10 = 90.4 %)."""
    rng = np.random.default_rng(12)
    for n, low, high in ((200, 0.10, 0.15), (10, 0.88, 0.93)):
        draws = [[6.0 + float(x) for x in rng.random(n) < 0.01] for _ in range(4000)]
        assert low <= _one_side_misses("mean", draws, 6.01) <= high


def test_a_wilson_interval_near_0_misses_one_side_more_than_it_says() -> None:
    """Exactly, from the binomial: at 200 runs and a true share of 0.0025 the Wilson
    interval lies wholly above it whenever one run or more has the event and its lower
    end is above 0.0025, which happens with probability 0.090; at 0.0105, 0.061; at 0.05
    and above at most 0.041 on either side (checked on a grid of 0.0005)."""
    from scipy.stats import binom  # type: ignore[import-untyped]

    n = 200
    lows = np.array([wilson(k, n).low for k in range(n + 1)])
    highs = np.array([wilson(k, n).high for k in range(n + 1)])
    ks = np.arange(n + 1)

    def worst(p: float) -> float:
        pm = binom.pmf(ks, n, p)
        return float(max(pm[lows > p].sum(), pm[highs < p].sum()))

    assert round(worst(0.0025), 3) == 0.090
    assert round(worst(0.0105), 3) == 0.061
    assert max(worst(p) for p in np.arange(0.05, 0.5, 0.0005)) < 0.0415


def test_a_ratio_of_skewed_totals_is_too_narrow_on_one_side() -> None:
    """Known and said (docs/history.md, *Intervals*): 4,000 samples of 200 runs. A gamma(0.5,
    scale 20) numerator over a Poisson(1) denominator (true ratio 10): the interval lies wholly
    below 10 in 5.1 % at this seed (4-6.5 %) and above it in 1.2 % (0.5-2 %); two lognormals
    of σ 1.5 correlated 0.7 (true ratio 1): below in 6.7 % (5.5-8 %)."""
    rng = np.random.default_rng(7)
    below = above = 0
    for _ in range(4000):
        x, y = rng.gamma(0.5, 20.0, N), rng.poisson(1.0, N).astype(float)
        e = estimate("ratio", list(zip(x.tolist(), y.tolist(), strict=True)))
        below += e.high < 10
        above += e.low > 10
    assert 0.04 <= below / 4000 <= 0.065
    assert 0.005 <= above / 4000 <= 0.02
    below = 0
    for _ in range(4000):
        z = rng.normal(size=(N, 2))
        z[:, 1] = 0.7 * z[:, 0] + np.sqrt(1 - 0.49) * z[:, 1]
        x, y = np.exp(1.5 * z[:, 0]), np.exp(1.5 * z[:, 1])
        e = estimate("ratio", list(zip(x.tolist(), y.tolist(), strict=True)))
        below += e.high < 1
    assert 0.055 <= below / 4000 <= 0.08


def test_a_count_cut_at_0_covers_as_the_whole_interval_and_passes_a_range_from_0() -> None:
    """2,000 samples of 200 Poisson counts of mean 0.01 (a rare event, two in 200 runs): the
    interval cut at 0 holds the true mean in exactly the samples the whole one does, so its
    coverage is the whole one's (0.861 at this seed, in 0.83-0.89 stated: a rare count's t
    interval covers less than 95 %, docs/history.md, *Intervals*). Against a range of 0 to 1
    (`accept: {min: 0, max: 1}`) the whole interval passes only where it does not reach below
    0 (567 samples here; 1,433 reach below), the cut one in every sample."""
    rng = np.random.default_rng(32)
    draws = [[float(x) for x in rng.poisson(0.01, N)] for _ in range(SAMPLES)]
    whole = [estimate("mean", d) for d in draws]
    cut = [estimate("mean", d, floor=0.0) for d in draws]
    held = [
        (w.low <= 0.01 <= w.high, c.low <= 0.01 <= c.high) for w, c in zip(whole, cut, strict=True)
    ]
    assert all(a == b for a, b in held)
    assert 0.83 <= sum(a for a, _ in held) / SAMPLES <= 0.89
    zero_to_one = Accept(min=0, max=1)
    whole_passes = sum(zero_to_one.verdict(w.value, w.low, w.high) == "pass" for w in whole)
    cut_passes = sum(zero_to_one.verdict(c.value, c.low, c.high) == "pass" for c in cut)
    reach_below = sum(w.low < 0 for w in whole)
    assert reach_below > SAMPLES / 2
    assert (whole_passes, cut_passes) == (SAMPLES - reach_below, SAMPLES)
