"""Option ``close_fire_factor`` (ours): fire at one hex multiplied by k, a factor of V.

Derived by hand from rules-notes §1's worked example (docs/rules/musket.md, *Fire*): 450
men with rifle muskets at one hex (4 a man) against a stone wall (−40 %): V = 1800,
E = 1080, x ∈ [5.4, 27]. At k = 2 the factor ``close`` 2 doubles V to 3600 and E to 2160,
x ∈ [10.8, 54]. At two hexes (3 a man) the factor is not applied: V = 1350.
"""

from __future__ import annotations

from typing import Any

import pytest

from sim.rulesets.musket.model.events import Fired
from sim.rulesets.musket.model.options import MusketOptions
from sim.rulesets.musket.rules.fire import decide_fire
from sim.scenario.load import ScenarioError, validate_data
from tests.sim.test_rules import _inf, _scenario, battle_of


def _data(k: float | None, firer_at: list[int], **firer: Any) -> dict[str, Any]:
    """a1 (450 rifle muskets, holding) firing at b1 behind a stone wall at (4,4)."""
    data = _scenario(
        [_inf("a1", firer_at, **({"strength": 450, "order": {"kind": "hold"}} | firer))],
        [_inf("b1", [4, 4], order={"kind": "hold"})],
        limit=1,
    )
    data["map"]["terrain"] = [{"terrain": "stone_wall", "hexes": [[4, 4]]}]
    if k is not None:
        data["options"] = {"close_fire_factor": k}
    return data


def _fire(k: float | None, firer_at: list[int] = [4, 5], **firer: Any) -> Fired:  # noqa: B006
    b = battle_of(_data(k, firer_at, **firer))
    fired = decide_fire(b, b.state.units["a1"], "defensive_fire")
    assert fired is not None
    return fired


def test_at_one_hex_the_value_is_multiplied_and_the_factor_recorded() -> None:
    fired = _fire(2)
    assert fired.range == 1
    assert list(fired.factors.items()) == [("close", 2.0)]
    r = fired.result
    assert (fired.base_value, r.v, r.effective) == (1800.0, 3600.0, 2160.0)
    assert r.low == pytest.approx(10.8, abs=1e-12)
    assert r.high == pytest.approx(54.0, abs=1e-12)


def test_it_multiplies_with_the_other_factors() -> None:
    """A disrupted firer at one hex, k = 1.5: V = 1800 × 0.5 × 1.5 = 1350."""
    fired = _fire(1.5, morale="disrupted")
    assert list(fired.factors.items()) == [("disrupted", 0.5), ("close", 1.5)]
    assert fired.result.v == 1350.0


def test_at_two_hexes_and_at_its_default_nothing_changes() -> None:
    far = _fire(2, [4, 6])
    assert (far.range, far.factors, far.result.v) == (2, {}, 1350.0)
    assert MusketOptions().close_fire_factor == 1
    assert "close_fire_factor" not in MusketOptions().model_dump()
    default = _fire(None)
    assert (default.factors, default.result.v) == ({}, 1800.0)
    assert _fire(1).model_dump() == default.model_dump()


def test_a_gun_at_one_hex_fires_canister_at_the_factor() -> None:
    """Two Napoleons at one hex (11 a gun, × 50): base 1100, V 2200 at k = 2."""
    fired = _fire(2, kind="artillery", weapon="napoleon_12pdr", strength=2)
    assert list(fired.factors.items()) == [("close", 2.0)]
    assert (fired.base_value, fired.result.v) == (1100.0, 2200.0)


@pytest.mark.parametrize("bad", [0, -1, 10.5, float("inf"), float("nan")])
def test_a_factor_not_in_0_to_10_is_refused_at_its_path(bad: float) -> None:
    with pytest.raises(ScenarioError) as err:
        validate_data(_data(bad, [4, 5]), {}, "t.yaml")
    assert "options.close_fire_factor" in str(err.value)
