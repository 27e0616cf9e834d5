"""The suite's estimates and intervals, each checked against its formula by hand."""

from __future__ import annotations

import math

import pytest
from scipy.stats import t as student_t  # type: ignore[import-untyped]

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


T95_3DF = float(student_t.ppf(0.975, 3))
"""The 0.975 quantile of Student's t with 3 degrees of freedom (tables: 3.182)."""

T95_2DF = float(student_t.ppf(0.975, 2))
"""... with 2 degrees of freedom (tables: 4.303)."""


def test_the_t_quantiles_are_the_tables() -> None:
    """The quantiles the intervals below use are the printed tables' (Student, 1908)."""
    assert (round(T95_3DF, 3), round(T95_2DF, 3)) == (3.182, 4.303)


def test_mean_has_a_student_t_interval_from_the_runs_spread() -> None:
    """Values 1, 2, 3, 4: mean 2.5, s² = 5/3, half-width t(0.975, 3) · √(5/12)."""
    e = estimate("mean", [1.0, 2.0, 3.0, 4.0])
    half = T95_3DF * math.sqrt((5 / 3) / 4)
    assert (e.value, e.method) == (2.5, "Student t 95 %")
    assert (e.low, e.high) == pytest.approx((2.5 - half, 2.5 + half), abs=1e-15)


def test_ratio_is_of_the_totals_with_a_delta_method_interval() -> None:
    """Pairs (2, 1), (6, 2), (4, 1): R = 12/4 = 3; residuals 2 − 3, 6 − 6, 4 − 3."""
    e = estimate("ratio", [(2.0, 1.0), (6.0, 2.0), (4.0, 1.0)])
    half = T95_2DF * math.sqrt((1 + 0 + 1) / (3 * 2)) / (4 / 3)
    assert (e.value, e.method) == (3.0, "delta method 95 %")
    assert (e.low, e.high) == pytest.approx((3 - half, 3 + half), abs=1e-15)


def test_a_ratio_over_nothing_is_not_a_number() -> None:
    """No loss at all in the denominator: no ratio to report."""
    e = estimate("ratio", [(1.0, 0.0), (2.0, 0.0)])
    assert math.isnan(e.value)
