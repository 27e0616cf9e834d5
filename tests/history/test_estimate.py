"""The suite's estimates and intervals, each checked against its formula by hand."""

from __future__ import annotations

import math

import pytest

from sim.batch.methods.stats import Z95
from sim.history.estimate import estimate


def test_probability_is_the_share_of_runs_with_a_wilson_interval() -> None:
    """3 runs in 10: p = 0.3 and the Wilson score interval's closed form."""
    e = estimate("probability", [1.0, 0.0, 1.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0])
    z2, n, p = Z95**2, 10, 0.3
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = Z95 / (1 + z2 / n) * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n))
    assert (e.value, e.n, e.method) == (0.3, 10, "Wilson 95 %")
    assert e.low == pytest.approx(centre - half, abs=1e-15)
    assert e.high == pytest.approx(centre + half, abs=1e-15)


def test_mean_has_a_normal_interval_from_the_runs_spread() -> None:
    """Values 1, 2, 3, 4: mean 2.5, s² = 5/3, half-width 1.96 · √(5/12)."""
    e = estimate("mean", [1.0, 2.0, 3.0, 4.0])
    half = Z95 * math.sqrt((5 / 3) / 4)
    assert (e.value, e.method) == (2.5, "normal 95 %")
    assert (e.low, e.high) == pytest.approx((2.5 - half, 2.5 + half), abs=1e-15)


def test_ratio_is_of_the_totals_with_a_delta_method_interval() -> None:
    """Pairs (2, 1), (6, 2), (4, 1): R = 12/4 = 3; residuals 2 − 3, 6 − 6, 4 − 3."""
    e = estimate("ratio", [(2.0, 1.0), (6.0, 2.0), (4.0, 1.0)])
    half = Z95 * math.sqrt((1 + 0 + 1) / (3 * 2)) / (4 / 3)
    assert (e.value, e.method) == (3.0, "delta method 95 %")
    assert (e.low, e.high) == pytest.approx((3 - half, 3 + half), abs=1e-15)


def test_a_ratio_over_nothing_is_not_a_number() -> None:
    """No loss at all in the denominator: no ratio to report."""
    e = estimate("ratio", [(1.0, 0.0), (2.0, 0.0)])
    assert math.isnan(e.value)
