"""Global sensitivity analysis with SALib: Morris screening and Sobol' indices.

A ``morris`` or ``sobol`` design samples the unit cube with SALib, seeded
from the study seed (:func:`sim.batch.seeds.derived_seed`), and maps each
coordinate u to a factor value with :meth:`Factor.at` (a range is scaled, a
list of values is picked from by quantile), so the design points are the
same in every process and after ``--resume``:

* ``morris``: ``points`` trajectories of ``len(factors) + 1`` points on a
  4-level grid (SALib's ``morris.sample``);
* ``sobol``: ``points`` base samples (a power of two) give
  ``points × (len(factors) + 2)`` points (Saltelli's scheme as extended by
  Jansen; ``sobol.sample`` without second-order indices).

Every point is fought ``replications`` times; the output of a point is the
mean of a measure over its done runs (each side's win rate, each side's mean
losses of each kind). The analysis (``morris.analyze``: μ, μ*, σ, and μ*'s
95 % bootstrap half-width; ``sobol.analyze``: S1 and ST with their 95 %
bootstrap half-widths) is seeded from the study seed too, so the indices are
identical whenever the runs are. Effects are per factor's whole range (the
analysis sees the unit cube).
"""

from __future__ import annotations

import math
import warnings
from typing import Any, Literal

import numpy as np

from sim.batch.factors import DesignError, Factor, consistent
from sim.batch.seeds import derived_seed

__all__ = ["LEVELS", "RESAMPLES", "analyse", "sample", "unit_sample"]

LEVELS = 4
"""Grid levels of a Morris design (SALib's default)."""
RESAMPLES = 1000
"""Bootstrap resamples for the confidence intervals."""

Method = Literal["morris", "sobol"]


def _seed(study_seed: int, method: str, what: str) -> int:
    """A 32-bit seed for SALib (numpy's legacy seeding takes no more)."""
    return derived_seed(study_seed, f"{method}-{what}") % 2**32


def _problem(factors: list[Factor]) -> dict[str, Any]:
    return {
        "num_vars": len(factors),
        "names": [f.path for f in factors],
        "bounds": [[0.0, 1.0]] * len(factors),
    }


def unit_sample(method: Method, factors: list[Factor], points: int, seed: int) -> Any:
    """The design in the unit cube: one row per design point.

    Raises:
        DesignError: no factors, or a Sobol' base sample that is not a power of two.
    """
    if not factors:
        raise DesignError(f"a {method} design needs at least one factor")
    # SALib pulls in pandas-free numpy code only, but takes ~0.3 s to import.
    if method == "sobol":
        if points < 2 or points & (points - 1):
            raise DesignError(f"a sobol design needs --points a power of two (got {points})")
        from SALib.sample import sobol  # type: ignore[import-untyped]  # noqa: PLC0415  # no stubs

        return sobol.sample(
            _problem(factors),
            points,
            calc_second_order=False,
            seed=_seed(seed, method, "sample"),
        )
    from SALib.sample import morris  # noqa: PLC0415

    return morris.sample(
        _problem(factors), points, num_levels=LEVELS, seed=_seed(seed, method, "sample")
    )


def sample(method: Method, factors: list[Factor], points: int, seed: int) -> list[dict[str, Any]]:
    """The design points: each unit-cube row mapped to factor values."""
    rows = unit_sample(method, factors, points, seed)
    return [{f.path: f.at(float(u)) for f, u in zip(factors, row, strict=True)} for row in rows]


def _clean(x: Any) -> float | None:
    value = float(x)
    return None if math.isnan(value) or math.isinf(value) else value


def _indices(
    method: Method, factors: list[Factor], x: Any, y: Any, seed: int
) -> list[dict[str, Any]]:
    problem = _problem(factors)
    with warnings.catch_warnings():  # a near-constant output divides by ~0: NaN, said as None
        warnings.simplefilter("ignore", RuntimeWarning)
        return _salib(method, factors, problem, x, y, seed)


def _salib(
    method: Method, factors: list[Factor], problem: dict[str, Any], x: Any, y: Any, seed: int
) -> list[dict[str, Any]]:
    if method == "sobol":
        from SALib.analyze import sobol  # type: ignore[import-untyped]  # noqa: PLC0415

        r = sobol.analyze(problem, y, calc_second_order=False, num_resamples=RESAMPLES, seed=seed)
        keys = ("S1", "S1_conf", "ST", "ST_conf")
    else:
        from SALib.analyze import morris  # noqa: PLC0415

        r = morris.analyze(problem, x, y, num_resamples=RESAMPLES, num_levels=LEVELS, seed=seed)
        keys = ("mu", "mu_star", "mu_star_conf", "sigma")
    return [{"factor": f.path, **{k: _clean(r[k][i]) for k in keys}} for i, f in enumerate(factors)]


def analyse(store: Any, meta: dict[str, Any]) -> dict[str, Any]:
    """The ``sensitivity`` block of a Morris or Sobol' study's summary.

    Raises:
        DesignError: the stored design points are not the design's (a changed SALib).
    """
    from sim.batch.compare import measures, per_point  # noqa: PLC0415

    method: Method = meta["design"]
    factors = [Factor.model_validate(f) for f in meta["factors"]]
    points = int(meta["plan"]["points"])
    x = unit_sample(method, factors, points, int(meta["seed"]))
    mapped = consistent(
        [{f.path: f.at(float(u)) for f, u in zip(factors, row, strict=True)} for row in x]
    )
    if mapped != store.points():
        raise DesignError(f"the stored design points are not this {method} design's")
    out: dict[str, Any] = {
        "method": method,
        "base_samples": points,
        "design_points": len(mapped),
        "confidence": 0.95,
        "resamples": RESAMPLES,
        "measures": [],
    }
    for side, measure, expr in measures(store):
        per = per_point(store, expr)
        y = np.array([per[i].mean if i in per else math.nan for i in range(len(mapped))])
        entry: dict[str, Any] = {"side": side, "measure": measure}
        if np.isnan(y).any():
            entry["error"] = "a design point has no completed run: no indices"
            entry["indices"] = []
        elif float(np.ptp(y)) == 0.0:
            entry["error"] = "the measure is the same at every point: no indices"
            entry["indices"] = []
        else:
            seed = _seed(int(meta["seed"]), method, f"analyse-{side}-{measure}")
            entry["indices"] = _indices(method, factors, x, y, seed)
        out["measures"].append(entry)
    return out
