"""Option ``fire_scale`` (ours): fire's Low and High Combat Values multiplied by *s*.

The seed's arithmetic is unchanged (docs/rules/musket.md, *Combat results
calculation*): L = s·LCV·E/1000, H = s·HCV·E/1000, x = L + (H − L)·u, randomly
rounded. The figures are derived by hand from rules-notes §1's worked example: 450
men with rifle muskets at one hex (4 a man) against a stone wall (−40 %): V = 1800,
E = 1080; at the fan's LCV/HCV 5/25, x ∈ [5.4, 27]; at s = 2, LCV/HCV 10/50 and
x ∈ [10.8, 54], the mean doubled from 16.2 to 32.4. Melee (LCV/HCV 10/50 by default)
is untouched.
"""

from __future__ import annotations

from typing import Any

import pytest

from sim.rulesets.musket.model.events import Fired
from sim.rulesets.musket.model.options import MusketOptions
from sim.rulesets.musket.rules.fire import decide_fire
from sim.scenario.load import ScenarioError, validate_data
from tests.sim.test_rules import _fight, _inf, _scenario, battle_of


def _wall_data(scale: float | None, **firer: Any) -> dict[str, Any]:
    """a1 (450 rifle muskets, holding) next to b1 behind a stone wall."""
    data = _scenario(
        [_inf("a1", [4, 5], strength=450, order={"kind": "hold"}, **firer)],
        [_inf("b1", [4, 4], order={"kind": "hold"})],
        limit=1,
    )
    data["map"]["terrain"] = [{"terrain": "stone_wall", "hexes": [[4, 4]]}]
    if scale is not None:
        data["options"] = {"fire_scale": scale}
    return data


def _fire(scale: float | None) -> Fired:
    """a1's defensive fire at b1 in turn 1 (seed 1: the same stream at every scale)."""
    b = battle_of(_wall_data(scale))
    fired = decide_fire(b, b.state.units["a1"], "defensive_fire")
    assert fired is not None
    return fired


def test_the_worked_example_at_scale_2_doubles_both_ends() -> None:
    """V = 4 × 450 = 1800, m = −40: E = 1080; s = 2: LCV 10, HCV 50, x ∈ [10.8, 54]."""
    r = _fire(2).result
    assert (r.v, r.modifier, r.effective) == (1800.0, -40.0, 1080.0)
    assert (r.lcv, r.hcv) == (10.0, 50.0)
    assert r.low == pytest.approx(10.8, abs=1e-12)
    assert r.high == pytest.approx(54.0, abs=1e-12)
    assert 10.8 <= r.value <= 54
    assert r.casualties in range(10, 55)  # ⌊10.8⌋ … ⌈54⌉


def test_at_its_default_the_fans_table_is_used() -> None:
    """1 (the default, not written): LCV 5, HCV 25, x ∈ [5.4, 27], as rules-notes §1 has it."""
    assert MusketOptions().fire_scale == 1
    r = _fire(None).result
    assert (r.lcv, r.hcv) == (5.0, 25.0)
    assert r.low == pytest.approx(5.4, abs=1e-12)
    assert r.high == pytest.approx(27.0, abs=1e-12)
    assert _fire(1).model_dump() == _fire(None).model_dump()


def test_the_draws_are_the_same_in_count_and_name_and_x_scales_with_s() -> None:
    """The same draws (count, stream names, values) at s = 1 and s = 2; x = L + (H − L)·u
    is linear in s, so x at 2 is twice x at 1 and the mean 16.2 becomes 32.4."""
    one, two = _fire(1).result, _fire(2).result
    assert len(one.draws) == len(two.draws) == 5  # x, rounding, fatigue ×2, check
    assert list(one.draws) == list(two.draws)
    assert [d.stream for d in two.draws] == ["1/fire/defensive_fire/a1"] * 5
    assert two.value == pytest.approx(2 * one.value, rel=1e-12)
    assert (one.low + one.high) / 2 == pytest.approx(16.2, abs=1e-12)
    assert (two.low + two.high) / 2 == pytest.approx(32.4, abs=1e-12)


def test_a_whole_fight_scales_fire_and_leaves_melee_alone() -> None:
    """Every fire event of a fight at s = 1.5 carries LCV 7.5, HCV 37.5; every melee
    the default melee values 10 and 50; the same fight's events at s = 1 carry 5 and 25."""
    attackers = [_inf(f"a{i}", [3 + i, 7], strength=600, quality="A") for i in range(3)]
    for a in attackers:
        a["order"] = {"kind": "charge", "target": "b1"}
    data = _scenario(attackers, [_inf("b1", [4, 4], strength=120, quality="E")], limit=4)
    seen: dict[float, set[tuple[str, float, float]]] = {}
    for scale in (1.0, 1.5):
        data["options"] = {"fire_scale": scale}
        events = _fight(data, seed=3)
        seen[scale] = {
            (e["type"], e["result"]["lcv"], e["result"]["hcv"])
            for e in events
            if e.get("type") == "musket.fired"
        }
        melees = [e for e in events if e.get("type") == "musket.meleed"]
        assert melees, "the scenario must come to hand-to-hand"
        for m in melees:
            for side in ("attacker_losses", "defender_losses"):
                assert (m[side]["lcv"], m[side]["hcv"]) == (10.0, 50.0)
    assert seen[1.0] == {("musket.fired", 5.0, 25.0)}
    assert seen[1.5] == {("musket.fired", 7.5, 37.5)}


def test_the_option_at_its_default_is_left_out_of_dumps() -> None:
    """Declared with later_option: no scenario header changes at 1."""
    assert "fire_scale" not in MusketOptions().model_dump()
    assert MusketOptions(fire_scale=2).model_dump()["fire_scale"] == 2


@pytest.mark.parametrize("bad", [0, -1, float("inf"), float("nan")])
def test_a_scale_not_above_0_or_not_finite_is_refused_at_its_path(bad: float) -> None:
    with pytest.raises(ScenarioError) as err:
        validate_data(_wall_data(bad), {}, "t.yaml")
    assert "options.fire_scale" in str(err.value)
