"""CRN's variance ratio is exact: a ratio of exactly 1 reads 1.0, never float noise either side."""

from __future__ import annotations

from fractions import Fraction

import pytest

from sim.batch.analysis.compare import Moments, _variance


def _moments(xs: list[int]) -> Moments:
    return Moments(len(xs), sum(xs), sum(x * x for x in xs))


@pytest.mark.parametrize(
    ("xs", "c"),
    [
        # each gave 1.0000000000000002, 0.9999999999999999 or …98 when s_d was squared back
        ([7, 12, 16, 11, 18, 11, 14, 8, 17, 19, 0, 12, 16, 4, 16, 17, 6, 13, 1, 15], 4),
        ([14, 0, 8, 7, 8, 3, 19, 5, 11, 9, 2, 5, 5, 8, 16, 5, 8, 20, 9, 14, 10, 15, 15, 3, 0,
          9, 12, 10, 13, 6], 0),
        ([11, 2, 14, 16, 3, 5, 16, 12, 11, 15, 0, 15, 1, 9, 19, 18, 18, 12, 20, 5, 5, 16, 7, 0,
          6], 5),
    ],
)  # fmt: skip
def test_a_constant_baseline_gives_a_ratio_of_exactly_1(xs: list[int], c: int) -> None:
    """Baseline always c (s_b = 0): d_r = x_r − c has x's variance, so s_d² / s_p² is 1 exactly."""
    d = _moments([x - c for x in xs])
    v = _variance(1, 0, "csa", "losses.guns", d, _moments(xs), _moments([c] * len(xs)))
    assert v["variance_ratio"] == 1.0
    assert not v["variance_ratio"] > 1


def test_the_ratio_is_the_exact_fraction_rounded_once() -> None:
    """s_d² / (s_p² + s_b²) from the integer sums: here (7/3) / (1 + 19/3) = 7/22."""
    a, b = _moments([1, 2, 3]), _moments([0, 3, 5])  # s_p² = 1, s_b² = 19/3
    d = _moments([1, -1, -2])  # s_d² = 7/3
    assert (a.exact_var, b.exact_var, d.exact_var) == (1, Fraction(19, 3), Fraction(7, 3))
    v = _variance(1, 0, "csa", "losses.men", d, a, b)
    assert v["variance_ratio"] == float(Fraction(7, 3) / (1 + Fraction(19, 3)))
    assert v["variance_ratio"] == 7 / 22
