"""The record among the runs: the two-sided Monte Carlo predictive p (sim/history/predictive.py).

Its counts and p on small hand-made runs, and its size: if the record were one
more draw of the model's, how often is it called beyond the runs' spread? Exactly
(summed over the binomial) for discrete distributions, by the rank argument for a
continuous one, and by simulation of the function itself on plain draws.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.stats import binom, poisson  # type: ignore[import-untyped]

from sim.history.predictive import ALPHA, Predictive, predictive

RUNS = 199
"""Runs a case is fought with (200) less one: the record makes the 200th value."""


def test_counts_ties_on_both_sides_and_takes_k_plus_one_over_n_plus_one() -> None:
    r = predictive("mean", [1.0, 2.0, 2.0, 3.0, 5.0], 2.0)
    assert r == Predictive(runs=5, at_or_below=3, at_or_above=4)
    assert r.p == 1.0  # 2 · (3 + 1)/6 > 1
    high = predictive("mean", [1.0, 2.0, 2.0, 3.0, 5.0], 10.0)
    assert high == Predictive(5, 5, 0)
    assert high.p == pytest.approx(2 * 1 / 6)
    assert not high.beyond  # five runs cannot put a record beyond their spread: p ≥ 2/6


def test_a_record_above_every_run_of_two_hundred_is_beyond() -> None:
    r = predictive("mean", [float(v) for v in range(RUNS + 1)], 1000.0)
    assert r == Predictive(200, 200, 0)
    assert r.p == pytest.approx(2 / 201)
    assert r.beyond
    # nine runs at or above it of 200: 2 · 10/201 = 0.0995 < 0.1; ten: 0.109
    assert predictive("mean", [0.0] * 191 + [5.0] * 9, 5.0).beyond  # type: ignore[union-attr]
    assert not predictive("mean", [0.0] * 190 + [5.0] * 10, 5.0).beyond  # type: ignore[union-attr]


def test_a_probability_measure_counts_its_zeros_and_ones() -> None:
    r = predictive("probability", [1.0, 0.0, 1.0, 1.0], 1.0)
    assert r == Predictive(4, 4, 3)
    assert predictive("probability", [0.0] * 200, 1.0) == Predictive(200, 200, 0)


def test_a_ratio_is_compared_run_by_run_and_a_zero_denominator_is_infinite_or_nothing() -> None:
    pairs = [(2.0, 1.0), (0.0, 0.0), (3.0, 0.0), (1.0, 2.0)]
    # ratios 2, (none), +inf, 0.5 against the record 1
    assert predictive("ratio", pairs, 1.0) == Predictive(3, 1, 2)
    assert predictive("ratio", [(0.0, 0.0)], 1.0) is None
    assert predictive("mean", [], 1.0) is None


def _flagged(n: int) -> int:
    """The largest count of runs on the record's nearer side that still flags it: the
    record is beyond when 2 (k + 1)/(n + 1) < ALPHA."""
    return math.ceil(ALPHA * (n + 1) / 2) - 2


def exact_size(pmf: dict[float, float], n: int = RUNS) -> float:
    """P(beyond) when the record and the n runs are independent draws of ``pmf``.

    Given the record h, the runs at or below it are Binomial(n, P(X ≤ h)) and those at
    or above it Binomial(n, P(X ≥ h)); both counts cannot be small at once (they sum to
    at least n), so the chance is the sum of the two binomial tails.
    """
    k = _flagged(n)
    xs = sorted(pmf)
    w = np.array([pmf[x] for x in xs])
    below = np.minimum(1.0, np.cumsum(w))  # P(X ≤ h) at each atom h; no 1 + 2e-16
    above = np.minimum(1.0, np.cumsum(w[::-1])[::-1])  # P(X ≥ h)
    return float(np.sum(w * (binom.cdf(k, n, below) + binom.cdf(k, n, above))))


def test_a_continuous_quantity_is_flagged_in_exactly_nine_percent_at_199_runs() -> None:
    # the record's rank among 200 distinct values is uniform on 1 … 200; it is beyond
    # when min(rank, 201 − rank) < 10: ranks 1–9 and 192–200, 18 of 200
    n = RUNS
    ranks = range(1, n + 2)
    flagged = sum(1 for r in ranks if 2 * min(r, n + 2 - r) / (n + 1) < ALPHA)
    assert flagged == 18
    # the same from the binomial sum over 5,000 equally likely values (nearly continuous)
    atoms = 5000
    assert exact_size({float(i): 1 / atoms for i in range(atoms)}) == pytest.approx(0.09, abs=2e-3)


@pytest.mark.parametrize(
    ("name", "pmf"),
    [
        ("Bernoulli 0.02", {0.0: 0.98, 1.0: 0.02}),
        ("Bernoulli 0.05", {0.0: 0.95, 1.0: 0.05}),
        ("Bernoulli 0.3", {0.0: 0.7, 1.0: 0.3}),
        ("Bernoulli 0.5", {0.0: 0.5, 1.0: 0.5}),
        ("Poisson 2.4", {float(k): float(poisson.pmf(k, 2.4)) for k in range(40)}),
        ("Binomial 3, 0.5", {float(k): float(binom.pmf(k, 3, 0.5)) for k in range(4)}),
    ],
)
def test_a_record_drawn_from_the_model_is_beyond_at_most_one_time_in_ten(
    name: str, pmf: dict[float, float]
) -> None:
    assert exact_size(pmf) <= ALPHA, name


def test_simulated_on_plain_draws_the_rate_is_the_exact_one() -> None:
    """The function itself, 4,000 records and 199 runs each, numpy.random.default_rng(30):
    the share flagged is within 4 binomial standard errors of the exact size."""
    rng = np.random.default_rng(30)
    draws = {
        "normal": (rng.normal(size=(4000, RUNS + 1)), 0.09),
        "Poisson 2.4": (
            rng.poisson(2.4, size=(4000, RUNS + 1)).astype(float),
            exact_size({float(k): float(poisson.pmf(k, 2.4)) for k in range(40)}),
        ),
        "Bernoulli 0.05": (
            (rng.random(size=(4000, RUNS + 1)) < 0.05).astype(float),
            exact_size({0.0: 0.95, 1.0: 0.05}),
        ),
    }
    for name, (sample, size) in draws.items():
        found = [predictive("mean", list(row[1:]), float(row[0])) for row in sample]
        rate = sum(r is not None and r.beyond for r in found) / len(found)
        se = math.sqrt(size * (1 - size) / len(found))
        assert abs(rate - size) <= 4 * se + 1e-9, (name, rate, size)
