"""CRN's variance ratio is exact: a ratio of exactly 1 reads 1.0, never float noise either side."""

from __future__ import annotations

from fractions import Fraction

import pytest

from sim.batch.analysis.compare import Moments, _variance


def _moments(xs: list[int]) -> Moments:
    return Moments(len(xs), sum(xs), sum(x * x for x in xs))


@pytest.mark.parametrize(
    ("xs", "c"),
    [
        # each gave 1.0000000000000002, 0.9999999999999999 or …98 when s_d was squared back
        ([7, 12, 16, 11, 18, 11, 14, 8, 17, 19, 0, 12, 16, 4, 16, 17, 6, 13, 1, 15], 4),
        ([14, 0, 8, 7, 8, 3, 19, 5, 11, 9, 2, 5, 5, 8, 16, 5, 8, 20, 9, 14, 10, 15, 15, 3, 0,
          9, 12, 10, 13, 6], 0),
        ([11, 2, 14, 16, 3, 5, 16, 12, 11, 15, 0, 15, 1, 9, 19, 18, 18, 12, 20, 5, 5, 16, 7, 0,
          6], 5),
    ],
)  # fmt: skip
def test_a_constant_baseline_gives_a_ratio_of_exactly_1(xs: list[int], c: int) -> None:
    """Baseline always c (s_b = 0): d_r = x_r − c has x's variance, so s_d² / s_p² is 1 exactly."""
    d = _moments([x - c for x in xs])
    v = _variance(1, 0, "csa", "losses.guns", d, _moments(xs), _moments([c] * len(xs)))
    assert v["variance_ratio"] == 1.0
    assert not v["variance_ratio"] > 1


def test_the_ratio_is_the_exact_fraction_rounded_once() -> None:
    """s_d² / (s_p² + s_b²) from the integer sums: here (7/3) / (1 + 19/3) = 7/22."""
    a, b = _moments([1, 2, 3]), _moments([0, 3, 5])  # s_p² = 1, s_b² = 19/3
    d = _moments([1, -1, -2])  # s_d² = 7/3
    assert (a.exact_var, b.exact_var, d.exact_var) == (1, Fraction(19, 3), Fraction(7, 3))
    v = _variance(1, 0, "csa", "losses.men", d, a, b)
    assert v["variance_ratio"] == float(Fraction(7, 3) / (1 + Fraction(19, 3)))
    assert v["variance_ratio"] == 7 / 22


def test_a_paired_win_rate_says_its_sds_in_points_as_its_difference() -> None:
    """The carrier duel's Blue win rate at cap 4 against cap 2 (30 pairs under CRN, one
    flipped): +3.3 pts with sd 18.3 pts paired vs 62.2 pts unpaired, in the difference's
    unit as paired.png draws them; it said "sd 0.183 paired vs 0.622 unpaired" beside points."""
    from sim.batch.analysis.summary import _comparison_lines

    points = [{"point": i, "label": f"cap={c}", "win": {"blue": {"name": "Blue"}}}
              for i, c in enumerate((2, 4))]  # fmt: skip
    row = {
        "point": 1,
        "baseline": 0,
        "side": "blue",
        "measure": "win_rate",
        "paired": True,
        "difference": 1 / 30,
        "ci_low": -0.046,
        "ci_high": 0.119,
        "method": "newcombe-paired",
    }
    spread = {"point": 1, "side": "blue", "measure": "win_rate", "paired_sd": 0.18257418583505536,
              "unpaired_sd": 0.6219966366126592}  # fmt: skip
    summary = {"points": points, "comparisons": [row], "baseline": 0, "study": {},
               "variance_reduction": [spread]}  # fmt: skip
    assert _comparison_lines(summary)[2] == (
        "    Blue win rate                     +3.3 pts  [-4.6 pts, +11.9 pts]  "
        "sd 18.3 pts paired vs 62.2 pts unpaired"
    )
