"""Global sensitivity designs with SALib: Morris screening and Sobol' samples.

A ``morris`` or ``sobol`` design samples the unit cube with SALib, seeded
from the study seed (:func:`sim.batch.inputs.seeds.derived_seed`), and maps each
coordinate u to a factor value with :meth:`Factor.at` (a range is scaled, a
list of values is picked from by quantile), so the design points are the
same in every process and after ``--resume``:

* ``morris``: ``points`` trajectories of ``len(factors) + 1`` points on a
  4-level grid (SALib's ``morris.sample``);
* ``sobol``: ``points`` base samples (a power of two) give
  ``points × (len(factors) + 2)`` points (Saltelli's scheme as extended by
  Jansen; ``sobol.sample`` without second-order indices).

Their analysis, once the points are fought, is :mod:`sim.batch.analysis.sensitivity`'s.
"""

from __future__ import annotations

from typing import Any, Literal

from sim.batch.inputs.seeds import derived_seed
from sim.batch.planning.factors import DesignError, Factor

__all__ = ["LEVELS", "Method", "salib_seed", "sample", "unit_sample"]

LEVELS = 4
"""Grid levels of a Morris design (SALib's default)."""

Method = Literal["morris", "sobol"]


def salib_seed(study_seed: int, method: str, what: str) -> int:
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
            seed=salib_seed(seed, method, "sample"),
        )
    from SALib.sample import morris  # noqa: PLC0415

    return morris.sample(
        _problem(factors), points, num_levels=LEVELS, seed=salib_seed(seed, method, "sample")
    )


def sample(method: Method, factors: list[Factor], points: int, seed: int) -> list[dict[str, Any]]:
    """The design points: each unit-cube row mapped to factor values."""
    rows = unit_sample(method, factors, points, seed)
    return [{f.path: f.at(float(u)) for f, u in zip(factors, row, strict=True)} for row in rows]
