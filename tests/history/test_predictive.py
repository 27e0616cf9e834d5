"""The record among the runs: the two-sided Monte Carlo predictive p (sim/history/predictive.py).

Its counts and p on small hand-made runs, and its size: if the record were one
more draw of the model's, how often is it called beyond the runs' spread? Exactly
(summed over the binomial) for discrete distributions, by the rank argument for a
continuous one, and by simulation of the function itself on plain draws.
"""

from __future__ import annotations

import math
import statistics

import numpy as np
import pytest
from scipy.stats import binom, poisson  # type: ignore[import-untyped]

from sim.history.predictive import Predictive, predictive, spread

RUNS = 200
"""Runs a case is fought with: the record is compared with all 200, the 201st value."""


def test_counts_ties_on_both_sides_and_takes_k_plus_one_over_n_plus_one() -> None:
    r = predictive("mean", [1.0, 2.0, 2.0, 3.0, 5.0], 2.0)
    assert r == Predictive(runs=5, at_or_below=3, at_or_above=4)
    assert r.p == 1.0  # 2 · (3 + 1)/6 > 1
    high = predictive("mean", [1.0, 2.0, 2.0, 3.0, 5.0], 10.0)
    assert high == Predictive(5, 5, 0)
    assert high.p == pytest.approx(2 * 1 / 6)
    assert not high.beyond  # five runs cannot put a record beyond their spread: p ≥ 2/6


def test_a_record_above_every_run_of_two_hundred_is_beyond() -> None:
    r = predictive("mean", [float(v) for v in range(RUNS)], 1000.0)
    assert r == Predictive(200, 200, 0)
    assert r.p == pytest.approx(2 / 201)
    assert r.beyond
    # nine runs at or above it of 200: 2 · 10/201 = 0.0995 < 0.1; ten: 0.109
    assert predictive("mean", [0.0] * 191 + [5.0] * 9, 5.0).beyond  # type: ignore[union-attr]
    assert not predictive("mean", [0.0] * 190 + [5.0] * 10, 5.0).beyond  # type: ignore[union-attr]


def test_a_p_of_exactly_the_cutoff_is_not_beyond() -> None:
    """199 runs, 9 at or above the record: 2 · 10/200 = 0.1, not below 0.1; 8: 0.09."""
    at = predictive("mean", [0.0] * 190 + [5.0] * 9, 5.0)
    assert at is not None and at.p == 0.1 and not at.beyond
    under = predictive("mean", [0.0] * 191 + [5.0] * 8, 5.0)
    assert under is not None and under.p == pytest.approx(0.09) and under.beyond


def test_a_value_that_is_not_a_number_is_no_value() -> None:
    nan = math.nan
    assert predictive("mean", [1.0, nan, 3.0], 2.0) == Predictive(2, 1, 1)
    assert predictive("ratio", [(nan, 1.0), (1.0, nan), (4.0, 2.0)], 1.0) == Predictive(1, 0, 1)
    assert predictive("ratio", [(-1.0, 0.0)], 0.0) == Predictive(1, 1, 0)  # −∞


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


def _beyond(n: int, below: int, above: int) -> bool:
    """What :func:`predictive` says of a record with ``below`` of ``n`` runs at or below it
    and ``above`` at or above it (``below + above ≥ n``): runs built to those counts."""
    ties = below + above - n
    runs = [0.0] * (below - ties) + [1.0] * ties + [2.0] * (above - ties)
    found = predictive("mean", runs, 1.0)
    assert found == Predictive(n, below, above)
    return found.beyond


def exact_size(pmf: dict[float, float], n: int = RUNS) -> float:
    """P(beyond) when the record and the n runs are independent draws of ``pmf``, each
    verdict taken by :func:`predictive`.

    Given the record h, the runs at or below it are Binomial(n, P(X ≤ h)) and those at
    or above it Binomial(n, P(X ≥ h)). The record is beyond only when one of the two
    counts is small, and both cannot be at once (they sum to at least n, and a count of
    n is never beyond), so the chance is the sum over each count with the other at n.
    """
    flagged = [_beyond(n, k, n) for k in range(n + 1)]
    assert flagged == [_beyond(n, n, k) for k in range(n + 1)]  # the two tails alike
    ks = np.arange(n + 1)[flagged]
    xs = sorted(pmf)
    w = np.array([pmf[x] for x in xs])
    below = np.minimum(1.0, np.cumsum(w))  # P(X ≤ h) at each atom h; no 1 + 2e-16
    above = np.minimum(1.0, np.cumsum(w[::-1])[::-1])  # P(X ≥ h)
    tails = binom.pmf(ks[:, None], n, below[None, :]) + binom.pmf(ks[:, None], n, above[None, :])
    return float(np.sum(w * tails.sum(axis=0)))


def _rank_size(n: int) -> float:
    """A continuous quantity: the record's rank among n + 1 distinct values is uniform;
    each rank's verdict taken by :func:`predictive` on the other n values."""
    values = [float(v) for v in range(n + 1)]
    found = [predictive("mean", values[:r] + values[r + 1 :], values[r]) for r in range(n + 1)]
    return sum(1 for f in found if f is not None and f.beyond) / (n + 1)


def test_a_continuous_quantity_is_beyond_in_just_under_ten_percent() -> None:
    # 200 runs: ranks 1–10 and 192–201 of 201 (2 · 10/201 = 0.0995 < 0.1); at 199 runs
    # the cutoff falls on a whole rank, 2 · 10/200 = 0.1 exactly, so ranks 1–9 and
    # 192–200 only, 18 of 200
    assert _rank_size(RUNS) == pytest.approx(20 / 201)
    assert _rank_size(199) == pytest.approx(18 / 200)
    # the same from the binomial sum over 5,000 equally likely values (nearly continuous)
    atoms = 5000
    assert exact_size({float(i): 1 / atoms for i in range(atoms)}) == pytest.approx(
        20 / 201, abs=2e-3
    )


@pytest.mark.parametrize(
    ("name", "pmf", "size"),
    [
        ("Bernoulli 0.02", {0.0: 0.98, 1.0: 0.02}, 0.01985),
        ("Bernoulli 0.05", {0.0: 0.95, 1.0: 0.05}, 0.02274),
        ("Bernoulli 0.3", {0.0: 0.7, 1.0: 0.3}, 2.017e-20),
        ("Poisson 2.4", {float(k): float(poisson.pmf(k, 2.4)) for k in range(40)}, 0.03271),
        ("Binomial 3, 0.5", {float(k): float(binom.pmf(k, 3, 0.5)) for k in range(4)}, 2.669e-5),
    ],
)
def test_a_record_drawn_from_the_model_is_beyond_at_most_one_time_in_ten(
    name: str, pmf: dict[float, float], size: float
) -> None:
    """The exact chance at 200 runs, to four figures (docs/history.md quotes them): at most
    0.1 everywhere, and all but nothing where the record's side always has dozens of runs."""
    found = exact_size(pmf)
    assert found <= 0.1, name
    assert found == pytest.approx(size, rel=5e-4), name


def test_simulated_on_plain_draws_the_rate_is_the_exact_one() -> None:
    """The function itself, 4,000 records and 200 runs each, numpy.random.default_rng(30):
    the share flagged is within 4 binomial standard errors of the exact size."""
    rng = np.random.default_rng(30)
    draws = {
        "normal": (rng.normal(size=(4000, RUNS + 1)), 20 / 201),
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


def test_the_spread_is_the_runs_5th_and_95th_percentiles() -> None:
    """Linear interpolation, as numpy's default and statistics' inclusive method: of 1 … 200,
    at 0.05 · 199 = 9.95 places in, 10.95, and at 189.05, 190.05."""
    runs = [float(v) for v in range(1, 201)]
    assert spread("mean", runs) == pytest.approx((10.95, 190.05))
    cuts = statistics.quantiles(runs, n=20, method="inclusive")
    assert spread("mean", runs) == pytest.approx((cuts[0], cuts[-1]))
    assert spread("probability", [0.0, 1.0, 1.0]) is None  # 0s and 1s: no spread to draw
    assert spread("mean", [math.nan]) is None
    # ratios run by run, X/0 infinite: of 40 runs one at +inf, the 95th percentile 0.95 · 39
    # = 37.05 places in, between two 1s; of 20, 18.05 places in, between a 1 and the +inf
    assert spread("ratio", [(1.0, 1.0)] * 39 + [(1.0, 0.0)]) == (1.0, 1.0)
    assert spread("ratio", [(1.0, 1.0)] * 19 + [(1.0, 0.0)]) == (1.0, math.inf)
