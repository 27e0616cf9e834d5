"""The t and Beta quantiles behind the intervals are scipy.stats' own, bit for bit, taken from
``scipy.special`` so that a command computing them never imports ``scipy.stats``."""

from __future__ import annotations

import pytest
from scipy.stats import beta, t  # type: ignore[import-untyped]  # no stubs

from sim.batch.analysis.compare import CONFIDENCE, _t
from sim.batch.methods.stats import clopper_pearson, jeffreys
from sim.calibrate.measures import estimate
from tests.batch.helpers import imported_after

DFS = [*range(1, 400), 799, 1599, 3199, 9999, 1_000_000]
"""Degrees of freedom: every small sample, then the history suite's run counts less one."""


def test_the_t_quantile_is_scipy_stats() -> None:
    assert [_t(df) for df in DFS] == [float(t.ppf(0.5 + CONFIDENCE / 2, df)) for df in DFS]


@pytest.mark.parametrize("ns", [range(1, 60), [200, 800]], ids=["1-59", "large"])
def test_the_beta_intervals_are_scipy_stats(ns: list[int]) -> None:
    """Clopper–Pearson and Jeffreys bounds, every k of n, equal beta.ppf's exactly."""
    for n, k in [(size, k) for size in ns for k in range(size + 1)]:
        cp, jf = clopper_pearson(k, n), jeffreys(k, n)
        assert cp.low == (0.0 if k == 0 else float(beta.ppf(0.025, k, n - k + 1)))
        assert cp.high == (1.0 if k == n else float(beta.ppf(0.975, k + 1, n - k)))
        assert jf.low == (0.0 if k == 0 else float(beta.ppf(0.025, k + 0.5, n - k + 0.5)))
        assert jf.high == (1.0 if k == n else float(beta.ppf(0.975, k + 0.5, n - k + 0.5)))


def test_a_mean_estimate_uses_the_same_t() -> None:
    """The calibration's Student t interval: mean ± t.ppf(0.975, n − 1) × sd / √n."""
    xs = [1.0, 2.0, 4.0, 7.0]
    est = estimate("mean", xs)
    sd = (sum((x - 3.5) ** 2 for x in xs) / 3) ** 0.5
    half = float(t.ppf(0.975, 3)) * sd / 2
    assert (est.low, est.high) == (3.5 - half, 3.5 + half)


def test_the_quantiles_do_not_import_scipy_stats() -> None:
    """Computing every one of them leaves ``scipy.stats`` unimported (0.4 s of CPU a process)."""
    found = imported_after(
        "from sim.batch.analysis.compare import _t\n"
        "from sim.batch.methods.stats import clopper_pearson, jeffreys\n"
        "from sim.calibrate.measures import estimate\n"
        "_t(5); clopper_pearson(3, 10); jeffreys(3, 10); estimate('mean', [1.0, 2.0, 4.0])\n"
    )
    assert "scipy.special" in found
    assert sorted(m for m in found if m.startswith("scipy.stats")) == []
