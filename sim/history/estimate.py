"""A measure's estimate over a case's runs, with its 95 % interval (docs/history.md).

* probability: the share of runs, Wilson score interval;
* mean: mean ± t · s/√n (Student t), *s* the runs' standard deviation and *t*
  the 0.975 quantile of Student's t with n − 1 degrees of freedom (1.972 at 200
  runs, 2.262 at 10: a calibration's few replications); a count's (a ``floor`` of 0)
  cut at 0 where it reaches below, its method then ``Student t 95 %, cut at 0``: the
  true mean of a count is never below 0, so the cut interval holds it whenever the
  whole one does (the same coverage), and a range from 0 is not left inconclusive by
  an interval reaching where no mean can be;
* ratio: R = ΣX/ΣY of the runs' pairs, half-width
  t · √(Σ(X − R·Y)² / (n(n − 1))) / Ȳ (delta method, the same t).

Both rest on the central limit theorem, so they cover as they say when the runs
spread; on a whole-number measure that is nearly always one value (a duration
nearly always at the turn limit) they are too narrow, and when every run gives
the same value they have no width at all (docs/history.md, *Verdicts*).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from sim.batch.methods.stats import Estimate, wilson
from sim.history.measures import Value

__all__ = ["METHODS", "Estimate", "estimate"]

METHODS = {
    "probability": "Wilson 95 %",
    "mean": "Student t 95 %",
    "ratio": "delta method 95 %",
}
"""Each statistic's interval, as the table names it."""


def _probability(values: Sequence[float]) -> Estimate:
    k = sum(1 for v in values if v)
    iv = wilson(k, len(values))
    return Estimate(iv.p, iv.low, iv.high, iv.n, METHODS["probability"])


def _t95(n: int) -> float:
    """The 0.975 quantile of Student's t with n − 1 degrees of freedom (n ≥ 2)."""
    # scipy.stats.t.ppf's own function, without importing scipy.stats (0.4 s of CPU)
    from scipy.special import stdtrit  # type: ignore[import-untyped]  # noqa: PLC0415  # no stubs; heavy

    return float(stdtrit(n - 1, 0.975))


def _mean(values: Sequence[float], floor: float | None) -> Estimate:
    n = len(values)
    mean = math.fsum(values) / n
    if n < 2:
        return Estimate(mean, math.nan, math.nan, n, METHODS["mean"])
    var = math.fsum((v - mean) ** 2 for v in values) / (n - 1)
    half = _t95(n) * math.sqrt(var / n)
    if floor is not None and mean - half < floor:
        return Estimate(mean, floor, mean + half, n, f"{METHODS['mean']}, cut at {floor:g}")
    return Estimate(mean, mean - half, mean + half, n, METHODS["mean"])


def _ratio(pairs: Sequence[tuple[float, float]]) -> Estimate:
    n = len(pairs)
    sx = math.fsum(x for x, _ in pairs)
    sy = math.fsum(y for _, y in pairs)
    if sy == 0:
        return Estimate(math.nan, math.nan, math.nan, n, METHODS["ratio"])
    r = sx / sy
    if n < 2:
        return Estimate(r, math.nan, math.nan, n, METHODS["ratio"])
    resid = math.fsum((x - r * y) ** 2 for x, y in pairs)
    half = _t95(n) * math.sqrt(resid / (n * (n - 1))) / (sy / n)
    return Estimate(r, r - half, r + half, n, METHODS["ratio"])


def estimate(statistic: str, values: Sequence[Value], floor: float | None = None) -> Estimate:
    """The estimate of ``statistic`` (probability, mean or ratio) over the runs' values; a
    mean's interval cut at ``floor`` where it reaches below it (a count's: 0)."""
    if statistic == "ratio":
        return _ratio([v for v in values if isinstance(v, tuple)])
    numbers = [v for v in values if not isinstance(v, tuple)]
    return _probability(numbers) if statistic == "probability" else _mean(numbers, floor)
