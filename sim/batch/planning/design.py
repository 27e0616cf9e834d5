"""Experimental designs: the factors of a study and its design points.

A factor is a field path (:mod:`sim.batch.inputs.fieldpath`) with either a list of
``values`` or a numeric ``range``. A *full-factorial grid* takes every
combination of the factors' levels (the first factor varies slowest); a
*Latin hypercube* (``scipy.stats.qmc.LatinHypercube``) takes ``points``
points that stratify every factor, seeded from the study seed
(:func:`sim.batch.inputs.seeds.derived_seed` ``(seed, "lhs")``).
"""

from __future__ import annotations

import itertools
import math
from typing import Literal

import numpy as np

from sim.batch.inputs.seeds import derived_seed
from sim.batch.planning.factors import DesignError, Factor, Point, consistent

__all__ = ["Design", "DesignError", "Factor", "consistent", "design_points", "grid", "lhs"]

MAX_POINTS = 100_000
"""Most design points a study may have (a Latin hypercube's ``points`` has the same bound)."""


def grid(factors: list[Factor]) -> list[Point]:
    """Every combination of the factors' levels; the first factor varies slowest."""
    levels = [f.grid_levels() for f in factors]
    count = math.prod(len(x) for x in levels)
    if count > MAX_POINTS:
        raise DesignError(
            f"the grid has {count:,} design points (the product of the factors' levels); "
            f"at most {MAX_POINTS:,}"
        )
    return [
        {f.path: v for f, v in zip(factors, combo, strict=True)}
        for combo in itertools.product(*levels)
    ]


def lhs(factors: list[Factor], points: int, seed: int) -> list[Point]:
    """``points`` Latin-hypercube points, drawn with a generator seeded from ``seed``."""
    if not factors:
        raise DesignError("a Latin hypercube needs at least one factor")
    # scipy.stats takes ~0.5 s to import; workers and grid designs never need it.
    from scipy.stats import qmc  # type: ignore[import-untyped]  # noqa: PLC0415  # no stubs

    sampler = qmc.LatinHypercube(d=len(factors), rng=np.random.default_rng(seed))
    sample = sampler.random(points)
    return [{f.path: f.at(float(u)) for f, u in zip(factors, row, strict=True)} for row in sample]


Design = Literal["grid", "lhs", "morris", "sobol"]


def design_points(
    design: Design, factors: list[Factor], points: int | None, study_seed: int
) -> list[Point]:
    """The study's design points (one empty point when nothing is swept).

    Raises:
        DesignError: the design cannot be built (see :func:`grid`, :func:`lhs`).
    """
    if not factors:
        return [{}]
    if design == "grid":
        if points is not None:
            raise DesignError("--points applies to a Latin hypercube (--design lhs)")
        return consistent(grid(factors))
    if design in ("morris", "sobol"):
        if points is None:
            what = "trajectories" if design == "morris" else "base samples, a power of two"
            raise DesignError(f"a {design} design needs --points K ({what})")
        fixed = next((f for f in factors if f.values is not None and len(f.values) < 2), None)
        if design == "sobol" and fixed is not None:
            # it varies nothing: the dice's noise between points became its S1 and ST
            raise DesignError(
                f"{fixed.path}: a sobol design needs each factor to vary (two values or "
                "more, or a range); set a single value in the scenario instead"
            )
        from sim.batch.planning.sampling import sample  # noqa: PLC0415  # SALib only when needed

        return consistent(sample(design, factors, points, study_seed))
    if points is None:
        raise DesignError("a Latin hypercube needs --points K (points in the design)")
    return consistent(lhs(factors, points, derived_seed(study_seed, "lhs")))
