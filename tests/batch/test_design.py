"""Designs: full-factorial grids and Latin hypercubes, exact points."""

from __future__ import annotations

import pytest

from sim.batch.inputs.seeds import derived_seed
from sim.batch.planning.design import DesignError, Factor, design_points, grid, lhs


def test_grid_is_every_combination_first_factor_slowest() -> None:
    """A grid of 2 x 3 levels has 6 points in row-major order."""
    a = Factor(path="a", values=["x", "y"])
    b = Factor(path="b", range=(10, 20), type="int", levels=3)
    assert grid([a, b]) == [
        {"a": "x", "b": 10},
        {"a": "x", "b": 15},
        {"a": "x", "b": 20},
        {"a": "y", "b": 10},
        {"a": "y", "b": 15},
        {"a": "y", "b": 20},
    ]


def test_float_range_levels_are_evenly_spaced() -> None:
    """A float range with 5 levels gives its ends and three evenly spaced values."""
    f = Factor(path="p", range=(0.0, 1.0), levels=5)
    assert f.grid_levels() == [0.0, 0.25, 0.5, 0.75, 1.0]


def test_no_factors_is_one_base_point() -> None:
    """Nothing swept: one design point that changes nothing."""
    assert design_points("grid", [], None, 7) == [{}]


def test_lhs_points_are_exact_for_a_seed_and_stratify_every_factor() -> None:
    """A 5-point hypercube: each factor has exactly one point in each fifth of its range."""
    hcv = Factor(path="options.fire_hcv", range=(15, 35))
    strength = Factor(path="strength", range=(300, 799), type="int")
    points = design_points("lhs", [hcv, strength], 5, 2024)
    assert points == lhs([hcv, strength], 5, derived_seed(2024, "lhs"))
    assert sorted(int((p["options.fire_hcv"] - 15) / 4) for p in points) == [0, 1, 2, 3, 4]
    assert sorted((p["strength"] - 300) // 100 for p in points) == [0, 1, 2, 3, 4]
    assert all(isinstance(p["strength"], int) for p in points)
    assert points == [  # scipy 1.17's LatinHypercube, numpy default_rng(derived_seed(2024, "lhs"))
        {"options.fire_hcv": 30.616216066240614, "strength": 747},
        {"options.fire_hcv": 15.915567242198273, "strength": 324},
        {"options.fire_hcv": 34.702597279990485, "strength": 557},
        {"options.fire_hcv": 21.557064660922777, "strength": 663},
        {"options.fire_hcv": 25.584965104965168, "strength": 416},
    ]
    assert design_points("lhs", [hcv, strength], 5, 2024) == points  # same seed, same points
    assert design_points("lhs", [hcv, strength], 5, 2025) != points


def test_lhs_over_listed_values_picks_each_equally() -> None:
    """Values are chosen by stratum: 6 points over 3 values use each twice."""
    q = Factor(path="quality", values=["A", "C", "E"])
    points = lhs([q], 6, 11)
    assert sorted(p["quality"] for p in points) == ["A", "A", "C", "C", "E", "E"]


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"path": "a"}, "give either 'values' or 'range', not both or neither"),
        ({"path": "a", "values": [1], "range": (1, 2)}, "give either 'values' or 'range'"),
        ({"path": "a", "range": (2, 1)}, "low 2 must be below high 1"),
        ({"path": "a", "range": (1.5, 3), "type": "int"}, "an int range needs whole-number ends"),
        ({"path": "a", "values": [1, 2], "levels": 2}, "'levels' applies to a range"),
    ],
)
def test_bad_factors_are_refused(kwargs: dict[str, object], message: str) -> None:
    """A factor must be values or a range, with sensible ends."""
    with pytest.raises(ValueError, match=message):
        Factor.model_validate(kwargs)


def test_grid_needs_levels_for_a_range() -> None:
    """A range in a grid without levels cannot be enumerated."""
    with pytest.raises(DesignError, match="needs 'levels'"):
        grid([Factor(path="a", range=(1, 2))])
