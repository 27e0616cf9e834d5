"""Option ``column_fire_share`` (ours): only a column's leading ranks fire.

A unit in column that is not artillery fires as strength × share men: its
combat value is V = per-man value × strength × share (not rounded), the
factor ``column_fire`` of its ``musket.fired`` event. The default is 0.5 since
musket rules version 4; None leaves every man firing, as version 3 did. Values
are derived from the rule and the weapon table (smoothbore 4 per man at 1 hex, a
Napoleon 11 per gun × 50).
"""

from __future__ import annotations

from typing import Any, Literal

import pytest

from sim.rulesets.musket.model.events import Fired
from sim.rulesets.musket.model.options import MusketOptions
from sim.scenario.load import validate_data


def _fire(
    *,
    share: float | Literal["default"] | None,
    formation: str = "column",
    kind: str = "infantry",
    strength: int = 900,
    weapon: str = "smoothbore",
    morale: str = "good",
) -> Fired:
    """The defensive fire of unit ``f`` (holding, in ``formation``) at a line next to it;
    ``share`` "default" leaves the option unset."""
    import simpy

    from engine.kernel import TurnKernel
    from engine.rng import Streams
    from sim.rulesets.musket.model.data import PHASES
    from sim.rulesets.musket.model.scenario import MusketScenario
    from sim.rulesets.musket.model.state import initial_state
    from sim.rulesets.musket.rules.context import Battle
    from sim.rulesets.musket.rules.fire import decide_fire

    firer = {"id": "f", "name": "F", "kind": kind, "strength": strength, "quality": "C"}
    firer |= {"weapon": weapon, "at": [2, 2], "formation": formation, "order": {"kind": "hold"}}
    target = {"id": "t", "name": "T", "kind": "infantry", "strength": 500, "quality": "C"}
    target |= {"weapon": "smoothbore", "at": [2, 3], "order": {"kind": "hold"}}
    data: dict[str, Any] = {
        "ruleset": "musket",
        "name": "t",
        "map": {"width": 5, "height": 6},
        "turns": {"limit": 3},
        "sides": [
            {"id": "a", "name": "A", "retreat": "north", "units": [firer]},
            {"id": "b", "name": "B", "retreat": "south", "units": [target]},
        ],
    }
    if share != "default":
        data["options"] = {"column_fire_share": share}
    _, sc = validate_data(data, {}, "t.yaml")
    assert isinstance(sc, MusketScenario)
    state = initial_state(sc)
    kernel = TurnKernel(simpy.Environment(), PHASES, 20)
    kernel.turn = 1
    b = Battle(sc, state, Streams(1), kernel)
    unit = state.units["f"]
    unit.morale = morale
    fired = decide_fire(b, unit, "defensive_fire")
    assert fired is not None
    return fired


def test_a_column_fires_with_its_share_of_men() -> None:
    """900 men with smoothbores at one hex (4 a man): V = 4 × 900 × 0.25 = 900."""
    fired = _fire(share=0.25)
    assert fired.base_value == 4 * 900
    assert fired.factors == {"column_fire": 0.25}
    assert fired.result.v == 900.0


def test_the_share_is_not_rounded_to_whole_men() -> None:
    """Oman's 2/9 of a column of divisions, written 0.222: 4 × 900 × 0.222 = 799.2."""
    fired = _fire(share=0.222)
    assert fired.result.v == pytest.approx(4 * 900 * 0.222, abs=1e-9)
    assert fired.result.v != round(fired.result.v)


def test_the_share_multiplies_with_the_other_factors() -> None:
    """Disrupted ×0.5 and the share ×0.25: V = 3600 × 0.5 × 0.25 = 450."""
    fired = _fire(share=0.25, morale="disrupted")
    assert fired.factors == {"disrupted": 0.5, "column_fire": 0.25}
    assert fired.result.v == 450.0


def test_by_default_a_column_fires_with_half_its_men() -> None:
    """No option (rules version 4's default, 0.5): V = 4 × 900 × 0.5 = 1800."""
    assert MusketOptions().column_fire_share == 0.5
    fired = _fire(share="default")
    assert fired.factors == {"column_fire": 0.5}
    assert fired.result.v == 1800.0


def test_null_lets_every_man_of_a_column_fire() -> None:
    """null (version 3's behaviour): V = 4 × 900 = 3600, no factor."""
    fired = _fire(share=None)
    assert fired.factors == {}
    assert fired.result.v == 3600.0


def test_a_line_fires_with_every_man_whatever_the_share() -> None:
    fired = _fire(share=0.25, formation="line")
    assert fired.factors == {}
    assert fired.result.v == 3600.0


def test_artillery_in_column_is_not_affected() -> None:
    """Six Napoleons at one hex: V = 11 × 6 × 50 = 3300 with the option on."""
    fired = _fire(share=0.25, kind="artillery", strength=6, weapon="napoleon_12pdr")
    assert fired.factors == {}
    assert fired.result.v == 11 * 6 * 50


@pytest.mark.parametrize("bad", [0, -0.1, 1.5])
def test_a_share_outside_0_to_1_is_refused(bad: float) -> None:
    with pytest.raises(ValueError, match="column_fire_share"):
        MusketOptions(column_fire_share=bad)


def test_the_option_at_its_default_is_left_out_of_dumps() -> None:
    """Declared with later_option: a scenario written at the default (0.5) has no key for
    it; any other value, null included, is written."""
    assert "column_fire_share" not in MusketOptions().model_dump()
    assert MusketOptions(column_fire_share=0.25).model_dump()["column_fire_share"] == 0.25
    assert MusketOptions(column_fire_share=None).model_dump()["column_fire_share"] is None
