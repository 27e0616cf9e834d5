"""Exact integration of products of piecewise-linear functions, in rationals.

A casualty value x with a piecewise-linear density (uniform, or triangular
for the Alternative Calculation), randomly rounded, lands on k with
probability ∫ density(x) · tent(x − k) dx, tent(t) = max(0, 1 − |t|).  On
each interval between breakpoints the integrand is a polynomial of degree
at most 2, which Simpson's rule integrates exactly; with ``Fraction``
arithmetic the result is the exact rational.
"""

from __future__ import annotations

from collections.abc import Iterable
from fractions import Fraction
from itertools import pairwise

__all__ = ["PiecewiseLinear", "integrate_product", "tent", "triangular", "uniform"]


class PiecewiseLinear:
    """A function linear between sorted breakpoints and 0 outside them."""

    def __init__(self, points: Iterable[tuple[Fraction, Fraction]]) -> None:
        self.points = sorted(points)

    @property
    def breaks(self) -> list[Fraction]:
        """The breakpoints' abscissae."""
        return [x for x, _ in self.points]

    def __call__(self, x: Fraction) -> Fraction:
        pts = self.points
        if not pts or x < pts[0][0] or x > pts[-1][0]:
            return Fraction(0)
        for (x0, y0), (x1, y1) in pairwise(pts):
            if x0 <= x <= x1:
                return y0 if x1 == x0 else y0 + (y1 - y0) * (x - x0) / (x1 - x0)
        return pts[-1][1]


def uniform(low: Fraction, high: Fraction) -> PiecewiseLinear:
    """The density of Uniform(low, high) (low < high)."""
    d = 1 / (high - low)
    return PiecewiseLinear([(low, d), (high, d)])


def triangular(low: Fraction, high: Fraction) -> PiecewiseLinear:
    """The density of the mean of two independent Uniform(low, high) draws."""
    mid = (low + high) / 2
    return PiecewiseLinear([(low, Fraction(0)), (mid, 2 / (high - low)), (high, Fraction(0))])


def tent(k: int) -> PiecewiseLinear:
    """Probability that a value x is randomly rounded to k."""
    return PiecewiseLinear(
        [(Fraction(k - 1), Fraction(0)), (Fraction(k), Fraction(1)), (Fraction(k + 1), Fraction(0))]
    )


def integrate_product(f: PiecewiseLinear, g: PiecewiseLinear) -> Fraction:
    """∫ f·g exactly over f's support.

    Both are linear between their breakpoints and f's value at its own ends
    is its inside value (a uniform density keeps its height there), so
    Simpson's rule on each interval between the merged breakpoints is exact.
    """
    lo, hi = f.breaks[0], f.breaks[-1]
    xs = sorted({x for x in [*f.breaks, *g.breaks] if lo <= x <= hi})
    total = Fraction(0)
    for a, b in pairwise(xs):
        m = (a + b) / 2
        total += (b - a) / 6 * (f(a) * g(a) + 4 * f(m) * g(m) + f(b) * g(b))
    return total
