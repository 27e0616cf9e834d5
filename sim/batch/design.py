"""Experimental designs: the factors of a study and its design points.

A factor is a field path (:mod:`sim.batch.fieldpath`) with either a list of
``values`` or a numeric ``range``. A *full-factorial grid* takes every
combination of the factors' levels (the first factor varies slowest); a
*Latin hypercube* (``scipy.stats.qmc.LatinHypercube``) takes ``points``
points that stratify every factor, seeded from the study seed
(:func:`sim.batch.seeds.derived_seed` ``(seed, "lhs")``).
"""

from __future__ import annotations

import itertools
import math
from typing import Any, Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, field_serializer, model_validator

from sim.batch.seeds import derived_seed

__all__ = ["Design", "DesignError", "Factor", "consistent", "design_points", "grid", "lhs"]

Point = dict[str, Any]
"""One design point: factor path → value, in factor order."""


class DesignError(ValueError):
    """A design that cannot be built from its factors."""


class Factor(BaseModel):
    """One swept field: discrete ``values``, or a ``range`` [low, high]."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    path: str = Field(min_length=1, description="Dotted field path, e.g. options.fire_hcv.")
    values: list[Any] | None = Field(None, min_length=1, description="The levels to try.")
    range: tuple[float, float] | None = Field(None, description="[low, high], inclusive.")
    type: Literal["int", "float"] = Field("float", description="Number type of a range.")
    levels: int | None = Field(
        None, ge=2, le=1000, description="Evenly spaced levels of a range in a grid design."
    )

    @model_validator(mode="after")
    def _one_kind(self) -> Factor:
        if (self.values is None) == (self.range is None):
            raise ValueError("give either 'values' or 'range', not both or neither")
        if self.range is not None:
            low, high = self.range
            if not low < high:
                raise ValueError(f"range: low {low:g} must be below high {high:g}")
            if self.type == "int" and not (low.is_integer() and high.is_integer()):
                raise ValueError("range: an int range needs whole-number ends")
        elif self.levels is not None:
            raise ValueError("'levels' applies to a range; a values list is its own levels")
        return self

    @field_serializer("range")
    def _range_typed(self, rng: tuple[float, float] | None) -> list[float] | list[int] | None:
        """An int range is written as ints, as its values are (summary.json, the study row)."""
        if rng is None:
            return None
        if self.type == "int":
            return [int(rng[0]), int(rng[1])]
        return [float(rng[0]), float(rng[1])]

    def grid_levels(self) -> list[Any]:
        """The factor's levels in a grid design.

        Raises:
            DesignError: a range without ``levels``, or int levels that repeat.
        """
        if self.values is not None:
            return list(self.values)
        assert self.range is not None
        if self.levels is None:
            raise DesignError(
                f"{self.path}: a range in a grid design needs 'levels' (or use a Latin hypercube)"
            )
        raw = np.linspace(self.range[0], self.range[1], self.levels)
        if self.type == "float":
            return [float(x) for x in raw]
        ints = [round(float(x)) for x in raw]
        if len(set(ints)) != len(ints):
            raise DesignError(f"{self.path}: {self.levels} int levels repeat in {self.range}")
        return ints

    def at(self, u: float) -> Any:
        """The factor's value at quantile ``u`` in [0, 1) (a Latin hypercube coordinate)."""
        if self.values is not None:
            return self.values[min(math.floor(u * len(self.values)), len(self.values) - 1)]
        assert self.range is not None
        low, high = self.range
        if self.type == "int":
            span = int(high) - int(low) + 1
            return int(low) + min(math.floor(u * span), span - 1)
        return float(low + u * (high - low))


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
        from sim.batch.sensitivity import sample  # noqa: PLC0415  # SALib only when needed

        return consistent(sample(design, factors, points, study_seed))
    if points is None:
        raise DesignError("a Latin hypercube needs --points K (points in the design)")
    return consistent(lhs(factors, points, derived_seed(study_seed, "lhs")))


def consistent(points: list[Point]) -> list[Point]:
    """Points whose every factor has one number type: ints become floats beside floats.

    So a factor reads the same in summary.json, the points table and runs_wide.
    """
    if not points:
        return points
    mixed = [
        path
        for path in points[0]
        if any(isinstance(p[path], float) for p in points)
        and all(isinstance(p[path], int | float) and not isinstance(p[path], bool) for p in points)
    ]
    return [{k: float(v) if k in mixed else v for k, v in p.items()} for p in points]
