"""The suite's estimates and intervals, each checked against its formula by hand."""

from __future__ import annotations

import math

import pytest
from scipy.stats import t as student_t  # type: ignore[import-untyped]

from sim.batch.methods.stats import Z95
from sim.history.case import COUNT_KINDS, MeasureSpec
from sim.history.estimate import estimate


def test_probability_is_the_share_of_runs_with_a_wilson_interval() -> None:
    """3 runs in 10: p = 0.3 and the Wilson score interval's closed form."""
    e = estimate("probability", [1.0, 0.0, 1.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0])
    z2, n, p = Z95**2, 10, 0.3
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = Z95 / (1 + z2 / n) * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n))
    assert (e.value, e.n, e.method) == (0.3, 10, "Wilson 95 %")
    assert e.low == pytest.approx(centre - half, abs=1e-15)
    assert e.high == pytest.approx(centre + half, abs=1e-15)


T95_3DF = float(student_t.ppf(0.975, 3))
"""The 0.975 quantile of Student's t with 3 degrees of freedom (tables: 3.182)."""

T95_2DF = float(student_t.ppf(0.975, 2))
"""... with 2 degrees of freedom (tables: 4.303)."""


def test_the_t_quantiles_are_the_tables() -> None:
    """The quantiles the intervals below use are the printed tables' (Student, 1908)."""
    assert (round(T95_3DF, 3), round(T95_2DF, 3)) == (3.182, 4.303)


def test_mean_has_a_student_t_interval_from_the_runs_spread() -> None:
    """Values 1, 2, 3, 4: mean 2.5, s² = 5/3, half-width t(0.975, 3) · √(5/12)."""
    e = estimate("mean", [1.0, 2.0, 3.0, 4.0])
    half = T95_3DF * math.sqrt((5 / 3) / 4)
    assert (e.value, e.method) == (2.5, "Student t 95 %")
    assert (e.low, e.high) == pytest.approx((2.5 - half, 2.5 + half), abs=1e-15)


def test_ratio_is_of_the_totals_with_a_delta_method_interval() -> None:
    """Pairs (2, 1), (6, 2), (4, 1): R = 12/4 = 3; residuals 2 − 3, 6 − 6, 4 − 3."""
    e = estimate("ratio", [(2.0, 1.0), (6.0, 2.0), (4.0, 1.0)])
    half = T95_2DF * math.sqrt((1 + 0 + 1) / (3 * 2)) / (4 / 3)
    assert (e.value, e.method) == (3.0, "delta method 95 %")
    assert (e.low, e.high) == pytest.approx((3 - half, 3 + half), abs=1e-15)


def test_a_ratio_over_nothing_is_not_a_number() -> None:
    """No loss at all in the denominator: no ratio to report."""
    e = estimate("ratio", [(1.0, 0.0), (2.0, 0.0)])
    assert math.isnan(e.value)


def test_a_counts_mean_is_cut_at_its_floor_where_it_reaches_below() -> None:
    """Values 0, 0, 0, 1: mean 0.25, s² = 0.25, half-width t(0.975, 3) · √(0.25/4) = 0.796,
    so the whole interval starts at −0.546; a count (floor 0) is cut at 0 and says so, and
    its upper end is the whole interval's."""
    half = T95_3DF * math.sqrt(0.25 / 4)
    whole = estimate("mean", [0.0, 0.0, 0.0, 1.0])
    cut = estimate("mean", [0.0, 0.0, 0.0, 1.0], floor=0.0)
    assert (whole.method, cut.method) == ("Student t 95 %", "Student t 95 %, cut at 0")
    assert whole.low == pytest.approx(0.25 - half, abs=1e-15) and whole.low < 0
    assert (cut.value, cut.low, cut.high) == (0.25, 0.0, whole.high)


def test_a_floor_below_the_whole_interval_changes_nothing() -> None:
    """Values 1, 2, 3, 4 reach no lower than 0.446: a floor of 0 leaves them as they were."""
    assert estimate("mean", [1.0, 2.0, 3.0, 4.0], floor=0.0) == estimate(
        "mean", [1.0, 2.0, 3.0, 4.0]
    )


def test_only_a_count_kind_has_a_floor() -> None:
    """Events, units below a share, turns and battles won are counts (never below 0); a
    loss can be (a unit that ends stronger than it began) and keeps its whole interval."""

    def spec(kind: str, **more: object) -> MeasureSpec:
        base = {"id": "m", "label": "m", "kind": kind, "historical": 0,
                "accept": {"min": 0}, "source": "s"}  # fmt: skip
        return MeasureSpec.model_validate(base | more)

    assert {"events", "units_below", "duration", "battles_won"} == COUNT_KINDS
    assert spec("duration").floor == 0.0
    assert spec("units_below", side="a", unit="men", share=0.1).floor == 0.0
    assert spec("duration", at_most=4).floor is None  # a probability: Wilson's, in [0, 1]
    assert spec("loss", side="a", unit="men").floor is None
