"""Sensitivity indices with their diagnostics: percentile bootstrap intervals, flags, noise.

* **Sobol'** (SALib ``sobol.analyze``, its bootstrap resamples kept): S1 and
  ST with **percentile** bootstrap 95 % intervals (the 2.5th and 97.5th
  percentiles of 1,000 resampled estimates, seeded), not 1.96 × their SD.
* **Morris**: the elementary effect of a step is (y′ − y) / Δ with Δ the
  step's *actual* length as a share of the factor's range (for a values
  factor: positions moved / (values − 1)), so an integer factor whose
  levels round to 14 or 13 of a range of 20 is divided by 14/20 or 13/20,
  not by 2/3; μ, μ* (mean absolute effect, with a seeded percentile
  bootstrap interval over trajectories) and σ (their standard deviation).
* **Flags** of a Sobol' index (each with ``beyond_interval``: whether its
  interval excludes the valid value too): ``S1<0`` (S1 < 0; beyond when its
  upper end is below 0), ``S1>1`` (beyond when its lower end is above 1),
  ``S1>ST`` (a first-order index above the total one, impossible in
  theory; beyond when S1's lower end is above ST's upper end), ``ST>1`` (a
  total index above 1, impossible for a share of variance: replication noise
  or too few base samples; beyond when its lower end is above 1), ``wide`` (an
  interval of S1 or ST wider than :data:`WIDE`: the index is not pinned down).
* **Noise-corrected total index** ``ST_noise_corrected``: Jansen's ST is
  ½·mean((ȳ_A − ȳ_ABi)²) over var(ȳ_A ∪ ȳ_B); each point's output ȳ is a mean
  over runs, so both carry replication noise, which pushes every ST up and
  their sum above 1. The noise in each difference ȳ_p − ȳ_q is estimated from
  the runs themselves, var_r(y_p,r − y_q,r)/n over the replications r the two
  points share (with CRN the same seeds, so the common part of the noise
  cancels, as it does in ȳ_p − ȳ_q), and taken out of both::

      ST_c = (½·mean((ȳ_A − ȳ_ABi)² − σ²(A, ABi))) / (var(ȳ_A ∪ ȳ_B) − ½·mean σ²(A, B))

  (None when the corrected variance is not positive: the points differ by
  noise alone). It has no interval; read it beside ST and ``noise_share``.
* **Replication noise**: a point's output is a mean over its runs, with
  sampling variance s²/n; ``noise_share`` is the mean of those over the
  design's points against the variance of the outputs between points
  (above 1: the differences between points are mostly noise).
* **Convergence**: the indices recomputed on the first N base samples
  (trajectories), N = 4, 8, … up to the design's (``plots/sensitivity_convergence.png``).
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np

__all__ = [
    "RESAMPLES",
    "WIDE",
    "flags",
    "morris_indices",
    "noise_corrected_totals",
    "noise_share",
    "sobol_indices",
]

RESAMPLES = 1000
"""Bootstrap resamples for the intervals."""
WIDE = 0.5
"""An index interval wider than this (half the [0, 1] scale) is flagged ``wide``."""


def _clean(x: Any) -> float | None:
    value = float(x)
    return None if math.isnan(value) or math.isinf(value) else value


def _percentiles(samples: Any) -> tuple[float | None, float | None]:
    finite = samples[np.isfinite(samples)]
    if finite.size == 0:
        return None, None
    low, high = np.percentile(finite, [2.5, 97.5])
    return _clean(low), _clean(high)


def sobol_indices(names: Sequence[str], y: Any, seed: int) -> list[dict[str, Any]]:
    """S1 and ST of each factor with percentile bootstrap intervals and flags."""
    from SALib.analyze import sobol  # type: ignore[import-untyped]  # noqa: PLC0415  # no stubs

    problem = {"num_vars": len(names), "names": list(names), "bounds": [[0.0, 1.0]] * len(names)}
    with warnings.catch_warnings():  # a near-constant output divides by ~0: NaN, said as None
        warnings.simplefilter("ignore", RuntimeWarning)
        r = sobol.analyze(
            problem, y, calc_second_order=False, num_resamples=RESAMPLES, seed=seed,
            keep_resamples=True,
        )  # fmt: skip
    out = []
    for i, name in enumerate(names):
        s1_low, s1_high = _percentiles(r["S1_conf_all"][:, i])
        st_low, st_high = _percentiles(r["ST_conf_all"][:, i])
        ix: dict[str, Any] = {"factor": name, "S1": _clean(r["S1"][i]), "S1_low": s1_low,
                              "S1_high": s1_high, "ST": _clean(r["ST"][i]), "ST_low": st_low,
                              "ST_high": st_high}  # fmt: skip
        ix["flags"] = flags(ix)
        out.append(ix)
    return out


def flags(ix: dict[str, Any]) -> list[dict[str, Any]]:
    """The diagnostics of one Sobol' index (see the module's docstring)."""
    s1, st = ix["S1"], ix["ST"]
    s1_low, s1_high, st_low, st_high = ix["S1_low"], ix["S1_high"], ix["ST_low"], ix["ST_high"]
    out: list[dict[str, Any]] = []
    if s1 is None or st is None:
        return out
    if s1 < 0:
        out.append({"flag": "S1<0", "beyond_interval": s1_high is not None and s1_high < 0})
    if s1 > 1:
        out.append({"flag": "S1>1", "beyond_interval": s1_low is not None and s1_low > 1})
    if s1 > st:
        beyond = s1_low is not None and st_high is not None and s1_low > st_high
        out.append({"flag": "S1>ST", "beyond_interval": beyond})
    if st > 1:
        out.append({"flag": "ST>1", "beyond_interval": st_low is not None and st_low > 1})
    widths = [h - lo for lo, h in ((s1_low, s1_high), (st_low, st_high)) if lo is not None]
    if any(w > WIDE for w in widths if w is not None):
        out.append({"flag": "wide", "beyond_interval": False})
    return out


def noise_corrected_totals(y: Any, factors: int, noise: Any) -> list[float | None]:
    """Each factor's total index with replication noise taken out (see the module doc).

    ``y``: the point outputs in SALib's order, per base sample A, AB₁ … AB_k, B;
    ``noise[j, i]``: the noise variance of ȳ_A − ȳ_ABi of base sample j (i < k), and
    ``noise[j, k]`` that of ȳ_A − ȳ_B.
    """
    step = factors + 2
    y = np.asarray(y, dtype=float)
    noise = np.asarray(noise, dtype=float)
    a, b = y[0::step], y[step - 1 :: step]
    variance = float(np.var(np.r_[a, b])) - 0.5 * float(np.mean(noise[:, factors]))
    if not math.isfinite(variance) or variance <= 0:
        return [None] * factors
    out: list[float | None] = []
    for i in range(factors):
        ab = y[i + 1 :: step]
        total = 0.5 * float(np.mean((a - ab) ** 2 - noise[:, i]))
        out.append(_clean(total / variance))
    return out


def _effects(x: Any, y: Any, spans: Sequence[float]) -> Any:
    """Elementary effects, shape (trajectories, factors): NaN where a step did not move."""
    steps = len(spans) + 1
    ee = np.full((len(y) // steps, len(spans)), np.nan)
    for t in range(ee.shape[0]):
        for s in range(steps - 1):
            a, b = t * steps + s, t * steps + s + 1
            moved = [j for j in range(len(spans)) if x[b][j] != x[a][j]]
            if len(moved) != 1:
                continue
            j = moved[0]
            delta = (x[b][j] - x[a][j]) / spans[j]
            if delta:
                ee[t, j] = (y[b] - y[a]) / delta
    return ee


def morris_indices(
    names: Sequence[str], x: Any, y: Any, spans: Sequence[float], seed: int
) -> list[dict[str, Any]]:
    """μ, μ*, σ of each factor from exact steps, μ*'s percentile bootstrap interval.

    ``x``: each design point's factor positions (numbers: the value; values
    factors: the value's index); ``spans``: each factor's range in those units.
    """
    ee = _effects(x, y, spans)
    rng = np.random.default_rng(seed)
    out: list[dict[str, Any]] = []
    for j, name in enumerate(names):
        e = ee[:, j][np.isfinite(ee[:, j])]
        if e.size == 0:
            out.append({"factor": name, "mu": None, "mu_star": None, "mu_star_low": None,
                        "mu_star_high": None, "sigma": None, "effects": 0})  # fmt: skip
            continue
        boot = np.abs(e[rng.integers(0, e.size, size=(RESAMPLES, e.size))]).mean(axis=1)
        low, high = _percentiles(boot)
        out.append({
            "factor": name, "mu": _clean(e.mean()), "mu_star": _clean(np.abs(e).mean()),
            "mu_star_low": low, "mu_star_high": high,
            "sigma": _clean(e.std(ddof=1)) if e.size > 1 else None, "effects": int(e.size),
        })  # fmt: skip
    return out


def noise_share(
    means: Sequence[float], variances: Sequence[float], runs: Sequence[int]
) -> float | None:
    """Mean sampling variance of the point outputs (s²/n) over their variance between points."""
    between = float(np.var(np.asarray(means), ddof=1)) if len(means) > 1 else 0.0
    if between == 0:
        return None
    noise = float(np.mean([v / n for v, n in zip(variances, runs, strict=True) if n > 0]))
    return noise / between
