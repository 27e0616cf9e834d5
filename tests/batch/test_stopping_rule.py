"""The shipped --until-ci rule on Bernoulli draws (numpy, a fixed seed, no battles)."""

from __future__ import annotations

import pytest

from sim.batch.methods.stats import wilson
from sim.batch.planning.stopping import (
    PILOT,
    SEQUENTIAL,
    confirm_runs,
    half_width,
    needed,
    pilot_runs,
    simulate,
)

W, RUNS, CHUNK, REPS, SEED = 0.05, 1000, 20, 2000, 1


@pytest.mark.parametrize("p", [0.03, 0.06, 0.2, 0.5])
def test_the_pilot_rule_is_unbiased_and_keeps_its_coverage(p: float) -> None:
    """2,000 simulated points: |relative bias| ≤ 3 % (about 3 Monte Carlo standard errors at
    p = 0.03) and Wilson coverage within 93–97.5 %; the target is met in at least 95 % of them."""
    s = simulate(PILOT, p, W, RUNS, CHUNK, REPS, SEED)
    assert abs(s.bias) <= 0.03
    assert 0.93 <= s.coverage <= 0.975
    assert s.met >= 0.95


def test_the_old_sequential_rule_underestimates_rare_outcomes() -> None:
    """Stopping at the first narrow interval: −22 % at p = 0.03, W = 0.05 (the issue's figure)."""
    s = simulate(SEQUENTIAL, 0.03, W, RUNS, CHUNK, REPS, SEED)
    assert -0.25 <= s.bias <= -0.18


def test_pilot_size_is_an_eighth_of_the_worst_case_in_whole_chunks() -> None:
    """z²/32W² = 48.0 runs at W = 0.05 → 60 (chunks of 20); never more than a quarter of --runs."""
    assert pilot_runs(0.05, 1000, 20) == 60
    assert pilot_runs(0.05, 100, 20) == 40  # a quarter of 100 is 25: two chunks
    assert pilot_runs(0.15, 45, 5) == 10


def test_the_confirmatory_size_is_the_wilson_sample_size_at_the_least_favourable_p() -> None:
    """0 wins of 60: the pilot's Wilson upper end 0.0602 sizes the sample; capped at the rest."""
    upper = wilson(0, 60).high
    n = needed(upper, W, 940)
    assert half_width(upper, n) <= W < half_width(upper, n - 1)
    assert confirm_runs([0, 60], 60, W, 1000, 20) == (-(-n // 20) * 20, False)
    assert confirm_runs([30, 30], 60, W, 200, 20) == (140, True)  # p ≈ ½ needs 385: the cap
    assert confirm_runs([0, 0], 0, W, 200, 20) == (140, True)  # every pilot run failed
