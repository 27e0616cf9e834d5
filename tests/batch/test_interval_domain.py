"""The four proportion intervals share one guard: k outside 0 … n refused, n = 0 unknown."""

from __future__ import annotations

import math
from collections.abc import Callable

import pytest

from sim.batch.methods.stats import Interval, clopper_pearson, jeffreys, wilson, wilson_cc

INTERVALS: list[Callable[[int, int], Interval]] = [wilson, wilson_cc, clopper_pearson, jeffreys]


@pytest.mark.parametrize("interval", INTERVALS, ids=lambda f: f.__name__)
@pytest.mark.parametrize(("k", "n"), [(-1, 5), (6, 5), (1, 0)])
def test_k_outside_0_to_n_is_refused_naming_the_interval(
    interval: Callable[[int, int], Interval], k: int, n: int
) -> None:
    """A k below 0 or above n raises ValueError naming the interval and both numbers."""
    with pytest.raises(
        ValueError, match=rf"^{interval.__name__}: need 0 <= k <= n, got k={k}, n={n}$"
    ):
        interval(k, n)


@pytest.mark.parametrize("interval", INTERVALS, ids=lambda f: f.__name__)
def test_no_trials_is_the_unknown_proportion(interval: Callable[[int, int], Interval]) -> None:
    """With no trials the proportion is NaN and its interval the whole of [0, 1]."""
    got = interval(0, 0)
    assert (got.k, got.n, got.low, got.high) == (0, 0, 0.0, 1.0)
    assert math.isnan(got.p)
