"""Global sensitivity analysis with SALib: Morris screening and Sobol' indices.

A ``morris`` or ``sobol`` design's points (:mod:`sim.batch.planning.sampling`) are
each fought ``replications`` times; the output of a point is the
mean of a measure over its done runs (each side's win rate, each side's mean
losses of each kind). The analysis (:mod:`sim.batch.methods.indices`: Morris μ, μ*,
σ from exact steps, Sobol' S1 and ST, each with a percentile bootstrap
interval, flags, the share of replication noise and the indices' convergence
over the base samples) is seeded from the study seed too, so the indices are
identical whenever the runs are. Effects are per factor's whole range.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from sim.batch.methods.indices import RESAMPLES
from sim.batch.planning.factors import DesignError, Factor, consistent
from sim.batch.planning.sampling import LEVELS, Method, salib_seed, sample, unit_sample

__all__ = ["LEVELS", "RESAMPLES", "SOBOL_ESTIMATORS", "analyse", "sample", "unit_sample"]

SOBOL_ESTIMATORS = {"S1": "Saltelli et al. 2010", "ST": "Jansen 1999"}
"""The estimators SALib's ``sobol.analyze`` computes the indices by (its ``first_order``
and ``total_order``): an S1 below 0 or above ST is theirs, on a finite sample."""


def _positions(factors: list[Factor], points: list[dict[str, Any]]) -> tuple[Any, list[float]]:
    """Each point's factor positions (a range: its value; values: the value's index) and spans."""
    x = [
        [
            float(p[f.path]) if f.values is None else float(f.values.index(p[f.path]))
            for f in factors
        ]
        for p in points
    ]
    spans = [
        float(f.range[1] - f.range[0])
        if f.range is not None
        else float(max(1, len(f.values or []) - 1))
        for f in factors
    ]
    return x, spans


def _convergence(method: Method, factors: list[Factor], y: Any, seed: int, points: int,
                 positions: tuple[Any, list[float]]) -> list[dict[str, Any]]:  # fmt: skip
    """The indices on the first N base samples (trajectories), N = 4, 8, … up to the design's."""
    from sim.batch.methods.indices import morris_indices, sobol_indices  # noqa: PLC0415

    names = [f.path for f in factors]
    rows = len(y) // points
    out = []
    n = 4
    while n <= points:
        part = y[: n * rows]
        if method == "sobol":
            ix = sobol_indices(names, part, seed)
            values = {i["factor"]: {"S1": i["S1"], "ST": i["ST"]} for i in ix}
        else:
            ix = morris_indices(names, positions[0][: n * rows], part, positions[1], seed)
            values = {i["factor"]: {"mu_star": i["mu_star"], "sigma": i["sigma"]} for i in ix}
        out.append({"base_samples": n, "indices": values})
        n *= 2
    return out


def pair_noise(store: Any, expr: str, pairs: list[tuple[int, int]]) -> dict[tuple[int, int], float]:
    """Per pair of points (p, q): the noise variance of ȳ_p − ȳ_q, var_r(y_p,r − y_q,r)/n.

    Over the replications r done at both (summarised runs only); a pair with
    fewer than two shared replications is left out.
    """
    from sim.batch.analysis.compare import summarised_runs  # noqa: PLC0415

    if not pairs:
        return {}
    values = ", ".join(f"({int(p)}, {int(q)})" for p, q in pairs)
    rows = store.con.execute(
        f"WITH x AS (SELECT point, replication, ({expr})::DOUBLE AS v FROM runs "
        f"WHERE {summarised_runs(store)}), pairs(p, q) AS (VALUES {values}) "
        "SELECT pairs.p, pairs.q, count(*), var_samp(a.v - b.v ORDER BY a.replication) "
        "FROM pairs "
        "JOIN x a ON a.point = pairs.p JOIN x b ON b.point = pairs.q "
        "AND b.replication = a.replication WHERE a.v IS NOT NULL AND b.v IS NOT NULL "
        "GROUP BY pairs.p, pairs.q"
    ).fetchall()
    return {(int(p), int(q)): float(v) / int(n) for p, q, n, v in rows if int(n) > 1}


def _denoised(store: Any, expr: str, y: Any, k: int) -> list[float | None]:
    """The noise-corrected total index of each factor of a Sobol' design (None: not known)."""
    from sim.batch.methods.indices import noise_corrected_totals  # noqa: PLC0415

    step = k + 2
    samples = len(y) // step
    pairs = [(j * step, j * step + i) for j in range(samples) for i in range(1, k + 2)]
    noise = pair_noise(store, expr, pairs)
    if len(noise) != len(pairs):
        return [None] * k
    table = np.array([[noise[(j * step, j * step + i)] for i in range(1, k + 2)]
                      for j in range(samples)])  # fmt: skip
    return noise_corrected_totals(y, k, table)


def _measure(  # one measure's analysis
    method: Method, factors: list[Factor], per: dict[int, Any], npoints: int,
    seed: int, points: int, positions: tuple[Any, list[float]],
    store: Any = None, expr: str = "",
) -> dict[str, Any]:  # fmt: skip
    from sim.batch.methods.indices import morris_indices, noise_share, sobol_indices  # noqa: PLC0415

    y = np.array([per[i].mean if i in per else math.nan for i in range(npoints)])
    if np.isnan(y).any():
        return {"error": "a design point has no completed run: no indices", "indices": []}
    if float(np.ptp(y)) == 0.0:
        return {"error": "the measure is the same at every point: no indices", "indices": []}
    names = [f.path for f in factors]
    if method == "sobol":
        indices = sobol_indices(names, y, seed)
        if store is not None:
            for ix, corrected in zip(indices, _denoised(store, expr, y, len(names)), strict=True):
                ix["ST_noise_corrected"] = corrected
    else:
        indices = morris_indices(names, positions[0], y, positions[1], seed)
    share = noise_share(list(y), [per[i].var for i in range(npoints)],
                        [per[i].n for i in range(npoints)])  # fmt: skip
    return {
        "indices": indices,
        "noise_share": share,
        "convergence": _convergence(method, factors, y, seed, points, positions),
    }


def analyse(store: Any, meta: dict[str, Any]) -> dict[str, Any]:
    """The ``sensitivity`` block of a Morris or Sobol' study's summary.

    Raises:
        DesignError: the stored design points are not the design's (a changed SALib).
    """
    from sim.batch.analysis.compare import measures, per_point  # noqa: PLC0415

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
        "interval": "percentile-bootstrap",
        **({"estimators": SOBOL_ESTIMATORS} if method == "sobol" else {}),
        "measures": [],
    }
    positions = _positions(factors, mapped)
    for side, measure, expr in measures(store):
        per = per_point(store, expr)
        seed = salib_seed(int(meta["seed"]), method, f"analyse-{side}-{measure}")
        entry: dict[str, Any] = {"side": side, "measure": measure}
        entry.update(
            _measure(method, factors, per, len(mapped), seed, points, positions, store, expr)
        )
        out["measures"].append(entry)
    return out
