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
