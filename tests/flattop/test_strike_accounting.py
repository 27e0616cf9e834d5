"""The accounting script (tests/flattop/strike_accounting.py): its unopposed expectation is
the seed's matrix cell, and it refuses held-out cases."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.flattop import strike_accounting


@pytest.mark.parametrize(("af", "expected"), [(10, 4.2), (5, 2.2), (4, 1.7), (1, 0.3), (0, 0.0)])
def test_unopposed_hits_are_the_matrix_cell_at_two_factors_an_af(af: int, expected: float) -> None:
    """Dive bombers' table 7 at ``attack_factor_scale`` 2: 10 AF → 20 factors [16-20] 4.2,
    5 → 10 [9-10] 2.2, 4 → 8 [7-8] 1.7, 1 → 2 [1-2] 0.3; no AF, no hits."""
    assert strike_accounting.unopposed(af, 7, 2) == expected


def test_held_out_cases_are_refused(tmp_path: Path) -> None:
    with pytest.raises(SystemExit, match="midway_hiryu_strikes is held_out"):
        strike_accounting._scenario("midway_hiryu_strikes", {}, tmp_path)
