"""The seed's combat results arithmetic (seed 003), exact and sampled."""

from __future__ import annotations

import math
from collections import Counter

import pytest

from engine.rng import Stream
from sim.rulesets.musket.model.options import MusketOptions
from sim.rulesets.musket.model.state import UnitState
from sim.rulesets.musket.rules import combat
from sim.rulesets.musket.rules.results import casualty_roll, finish, fire_result
from tests.sim.exact import casualty_pmf

N = 20_000


def _unit(kind: str = "infantry", strength: int = 500, fatigue: int = 0) -> UnitState:
    return UnitState(
        id="t",
        side="s",
        name="T",
        kind=kind,
        quality="C",
        weapon="x",
        formation="line",
        leader=False,
        ammo="full",
        initial=strength,
        strength=strength,
        hex=(0, 0),
        fatigue=fatigue,
    )


def test_worked_example() -> None:
    """400, +25 %, LCV 5, HCV 25 → E 500, casualties between 2.5 and 12.5 (seed 003 L5)."""
    r = combat.casualty_range(400, 25, 5, 25)
    assert (r.effective, r.low, r.high) == (500.0, 2.5, 12.5)


def test_worked_example_distribution_is_exact() -> None:
    """The worked example gives casualties 2..13 with mean exactly 7.5."""
    pmf = casualty_pmf(2.5, 12.5)
    assert sorted(pmf) == list(range(2, 14))
    assert math.isclose(sum(pmf.values()), 1.0, abs_tol=1e-12)
    assert math.isclose(sum(k * p for k, p in pmf.items()), 7.5, abs_tol=1e-12)
    assert pmf[2] == pytest.approx(0.0125) and pmf[13] == pytest.approx(0.0125)
    assert pmf[7] == pytest.approx(0.1)


def test_live_draws_match_the_exact_distribution() -> None:
    """20,000 live resolutions at a fixed seed match the exact pmf within 0.01 each."""
    rng = Stream(2026, "test/casualties")
    counts = Counter(casualty_roll(rng, 400, {"m": 25}, 5, 25, False).casualties for _ in range(N))
    pmf = casualty_pmf(2.5, 12.5)
    assert set(counts) <= set(pmf)
    assert max(abs(counts[k] / N - p) for k, p in pmf.items()) < 0.01
    assert sum(k * c for k, c in counts.items()) / N == pytest.approx(7.5, abs=0.05)


def test_random_rounding() -> None:
    """3.7 rounds up to 4 when u < frac(3.7) ≈ 0.7, else down to 3 (seed 003 L5)."""
    assert [combat.random_round(3.7, u) for u in (0.0, 0.69, 0.71, 0.99)] == [4, 4, 3, 3]
    assert combat.random_round(5.0, 0.0) == 5


def test_alternative_calculation_is_triangular() -> None:
    """Averaged draws are triangular on [L, H]: P(x ≤ L + (H−L)/4) = 1/8, not 1/4."""
    rng = Stream(7, "test/alt")
    xs = [casualty_roll(rng, 400, {"m": 25}, 5, 25, True).x for _ in range(N)]
    assert all(2.5 <= x <= 12.5 for x in xs)
    low_quarter = sum(1 for x in xs if x <= 5.0) / N
    middle_half = sum(1 for x in xs if 5.0 < x <= 10.0) / N
    assert low_quarter == pytest.approx(0.125, abs=0.01)
    assert middle_half == pytest.approx(0.75, abs=0.01)


def test_morale_check_probability() -> None:
    """loss/(loss+25): 25 → 0.5, 100 → 0.8, 0 → 0 (seed 003 L11-L15)."""
    assert [combat.morale_check_probability(x) for x in (25, 100, 0)] == [0.5, 0.8, 0.0]


def test_artillery_gun_losses() -> None:
    """5 men lose a gun 20 % of the time; 30 men lose 1 gun plus a 2nd 20 % of the time."""
    assert [combat.guns_lost(5, 25, u) for u in (0.0, 0.199, 0.2, 0.9)] == [1, 1, 0, 0]
    assert [combat.guns_lost(30, 25, u) for u in (0.1, 0.5)] == [2, 1]
    assert combat.guns_lost(50, 25, 0.0) == 2


def test_live_gun_losses_follow_loss_over_25() -> None:
    """Against a battery, guns lost are floor(c/25) plus one with probability (c mod 25)/25."""
    rng = Stream(3, "test/guns")
    o = MusketOptions()
    hits = [
        finish(casualty_roll(rng, 400, {}, 5, 25, False), _unit("artillery", 6), o)
        for _ in range(5000)
    ]
    expected = sum(c.casualties / 25 for c in hits) / len(hits)
    observed = sum(c.guns_lost for c in hits) / len(hits)
    assert observed == pytest.approx(expected, abs=0.02)


def test_fatigue_bounds() -> None:
    """Fatigue added lies between c and 3c (rounded), and is 0 when c is 0 (seed 003 L9)."""
    assert (combat.fatigue_value(10, 0.0), combat.fatigue_value(10, 0.5)) == (10.0, 20.0)
    rng = Stream(11, "test/fatigue")
    o = MusketOptions()
    for _ in range(2000):
        c = finish(casualty_roll(rng, 400, {}, 5, 25, False), _unit(), o)
        assert c.casualties <= c.fatigue_value <= 3 * c.casualties
        assert c.casualties <= c.fatigue_added <= 3 * c.casualties
    zero = finish(casualty_roll(rng, 0, {}, 5, 25, False), _unit(), o)
    assert (zero.casualties, zero.fatigue_added, zero.morale_check, len(zero.draws)) == (
        0,
        0,
        False,
        2,
    )


def test_fatigue_is_capped_and_max_fatigue_forces_a_check() -> None:
    """A unit at maximum fatigue gains none and must check morale when it takes more."""
    rng = Stream(12, "test/max")
    o = MusketOptions()
    c = finish(casualty_roll(rng, 2000, {}, 5, 25, False), _unit(fatigue=900), o)
    assert c.casualties > 0
    assert (c.fatigue_added, c.morale_check) == (0, True)


def test_live_morale_check_rate_matches_p() -> None:
    """Morale checks are required at rate loss/(loss+25) over many live resolutions."""
    rng = Stream(13, "test/check")
    o = MusketOptions()
    rs = [finish(casualty_roll(rng, 1000, {}, 5, 25, False), _unit(), o) for _ in range(N)]
    assert sum(r.morale_check for r in rs) / N == pytest.approx(
        sum(r.morale_check_p for r in rs) / N, abs=0.01
    )


def test_event_arithmetic_can_be_checked_from_its_draws() -> None:
    """A resolution's recorded draws and inputs reproduce its value and casualties."""
    rng = Stream(14, "test/audit")
    c = finish(
        casualty_roll(rng, 1800, {"stone_wall": -40}, 5, 25, False), _unit(), MusketOptions()
    )
    assert (c.effective, c.low, c.high) == (1080.0, 5.4, 27.0)
    u0, u1 = c.draws[0].u, c.draws[1].u
    assert c.value == 5.4 + (27.0 - 5.4) * u0
    assert c.casualties == combat.random_round(c.value, u1)
    assert [d.i for d in c.draws] == list(range(len(c.draws)))


@pytest.mark.parametrize("alternative", [False, True])
@pytest.mark.parametrize("fatigue_from", ["rounded", "unrounded"])
def test_the_roll_is_combats_arithmetic_on_its_draws(alternative: bool, fatigue_from: str) -> None:
    """The roll writes out combat's uniform and random rounding for speed: on 400 streams,
    every value it records is what combat's functions make of its recorded draws, bit for
    bit (the range, the value, the casualties, the check's probability and whether its
    draw asks for one, fatigue's value and what it adds, capped)."""
    options = MusketOptions(fatigue_from=fatigue_from)
    for k in range(400):
        v, factor = 40.0 * k, (0.5, 1.0, 2.0)[k % 3]
        target = _unit(fatigue=(0, 50, options.fatigue_max - 3)[k % 3])
        c = finish(
            casualty_roll(Stream(k, "test/roll"), v, {"cover": -20}, 5, 25, alternative),
            target,
            options,
            fatigue_factor=factor,
        )
        u = [d.u for d in c.draws]
        x = combat.uniform_between(c.low, c.high, u[0])
        if alternative:
            x = (x + combat.uniform_between(c.low, c.high, u[1])) / 2.0
        n = 2 if alternative else 1
        assert (c.effective, c.low, c.high) == combat.casualty_range(v, -20.0, 5, 25)
        assert c.value == x
        assert c.casualties == combat.random_round(x, u[n])
        p = combat.morale_check_probability(c.casualties)
        assert c.morale_check_p == p
        if c.casualties > 0:  # the check's draw is the last
            assert (c.morale_check_reason == "loss") == (u[-1] < p)
        base = c.casualties if fatigue_from == "rounded" else x
        if base <= 0:
            assert (c.fatigue_value, c.fatigue_added) == (0.0, 0)
            continue
        value = combat.fatigue_value(base, u[n + 1]) * factor
        rounded = combat.random_round(value, u[n + 2])
        assert c.fatigue_value == value
        assert c.fatigue_added == max(0, min(rounded, options.fatigue_max - target.fatigue))


@pytest.mark.parametrize("alternative", [False, True])
@pytest.mark.parametrize("fatigue_from", ["rounded", "unrounded"])
@pytest.mark.parametrize("guns_lost_to_any_loss", [False, True])
def test_fire_result_is_finish_of_the_roll(
    alternative: bool, fatigue_from: str, guns_lost_to_any_loss: bool
) -> None:
    """fire_result (fire's resolution in one call) records what finish(casualty_roll(...))
    records, field for field and type for type, and leaves its stream where they do: on
    300 streams, infantry and batteries, modifiers or none, float or int combat values."""
    options = MusketOptions(fatigue_from=fatigue_from, guns_lost_to_any_loss=guns_lost_to_any_loss)
    for k in range(300):
        v = 37.5 * k
        kind, source = (("infantry", "infantry"), ("artillery", "artillery"))[k % 2]
        target = _unit(kind=kind, fatigue=(0, 50, options.fatigue_max - 3)[k % 3])
        lcv, hcv = ((5, 25), (5.0, 25.0), (1.5, 7.25))[k % 3]
        mods = ({}, {"quality_A": 10.0}, {"cover": -20.0, "column": 25.0})[k % 3]
        slow_rng, fast_rng = Stream(k, "test/fire"), Stream(k, "test/fire")
        slow = finish(
            casualty_roll(slow_rng, v, dict(mods), lcv, hcv, alternative),
            target,
            options,
            source=source,
        )
        fast = fire_result(fast_rng, v, dict(mods), lcv, hcv, alternative, target, options, source)
        assert fast.model_dump_json() == slow.model_dump_json()
        assert [type(x) for x in fast.__dict__.values()] == [
            type(x) for x in slow.__dict__.values()
        ]
        assert fast.model_fields_set == slow.model_fields_set
        assert fast_rng.count == slow_rng.count
