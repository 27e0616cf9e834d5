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


def test_the_caps_kills_after_the_attack_are_counted_as_the_caps() -> None:
    """With ``cap_kills_after_attack`` a strike's AF shot down after their attack come in a
    ``flattop.after_attack_kills`` event: the 'lost to CAP' cell counts them beside those shot
    down before it (they were in no column), and reads as before when there are none."""
    from collections import defaultdict

    sums: dict[tuple[str, ...], float] = defaultdict(float)
    meta: dict[str, object] = {"attacks": {}, "aa": {}}
    combat = {"type": "flattop.air_combat", "strike": "s1", "target": "bombers",
              "attack_losses": [1, 0], "attack_losses_after": [2, 1]}  # fmt: skip
    after = {"type": "flattop.after_attack_kills", "strike": "s1", "attack_losses": [2, 0]}
    for event in (combat, after):
        strike_accounting._tally(sums, meta, event)
    assert strike_accounting._cap(sums, "s1", "0", 2) == "0.50 (+1.00 after)"
    assert strike_accounting._cap(sums, "s1", "1", 2) == "0.00"
