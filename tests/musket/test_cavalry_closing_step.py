"""Option ``cavalry_closing_loss_step`` (ours; 0.06 since musket rules version 7): a cavalry
unit's charge test reckons the ``under_fire`` modifier in steps of its own size; null,
``closing_loss_step``'s
(docs/rules/musket.md, *Options*, and the option's protocol under *Rules version 6*).

The charging unit ``att`` stands at (4,5) next to its target ``def`` (500 men) at (4,4);
it has lost 40 of its 400 men to fire this turn: a share of 40/400 = 0.1 of the
strength it started the turn with (alone: no friend behind it).
"""

from __future__ import annotations

from typing import Any

import pytest

from sim.rulesets.musket.model.options import MusketOptions
from sim.rulesets.musket.rules.context import Battle
from sim.rulesets.musket.rules.morale import closing_loss_steps, decide_charge_test
from sim.scenario.load import ScenarioError, validate_data
from tests.sim.test_rules import _fight, _inf, _scenario, battle_of


def _battle(kind: str, step: float | None, closing: float | None = 0.03) -> Battle:
    weapon = "carbine" if kind == "cavalry" else "rifle_musket"
    att = _inf("att", [4, 5], kind=kind, weapon=weapon, order={"kind": "charge", "target": "def"})
    data = _scenario([att], [_inf("def", [4, 4], order={"kind": "hold"}, strength=500)], limit=1)
    data["options"] = {"cavalry_closing_loss_step": step, "closing_loss_step": closing}
    b = battle_of(data)
    b.state.units["att"].strength -= 40
    b.fire_losses["att"] = (b.turn, 40)
    return b


def _under_fire(b: Battle) -> int | None:
    event = decide_charge_test(b, b.state.units["att"], b.state.units["def"])
    assert event.morale_value == event.base + sum(event.modifiers.values())
    return event.modifiers.get("under_fire")


def test_the_default_is_0_06_and_is_written_nowhere() -> None:
    """0.06 by default (rules version 7); a battle with the option left out and one with it
    set to 0.06 write the same bytes."""
    assert MusketOptions().cavalry_closing_loss_step == 0.06
    units = [_inf("c", [4, 8], kind="cavalry", weapon="carbine",
                  order={"kind": "charge", "target": "t"})]  # fmt: skip
    base = _scenario(units, [_inf("t", [4, 5], order={"kind": "hold"})])
    set_ = _scenario(units, [_inf("t", [4, 5], order={"kind": "hold"})])
    set_["options"] = {"cavalry_closing_loss_step": 0.06}
    assert _fight(base) == _fight(set_)


@pytest.mark.parametrize(
    ("step", "steps"),
    [(None, 3), (0.06, 1), (0.1, 1), (0.11, None), (0.05, 2), (0.025, 4)],
)
def test_cavalrys_under_fire_counts_whole_steps_of_its_own_size(
    step: float | None, steps: int | None
) -> None:
    """A share of 0.1 lost: whole steps of 0.03 → 3 (null: closing_loss_step's), of 0.06 →
    1, of 0.1 → 1 (exact at the boundary), of 0.11 → 0 (no modifier written), of 0.05 → 2,
    of 0.025 → 4 (a step smaller than infantry's counts more)."""
    assert closing_loss_steps(0.1, step or 0.03) == (steps or 0)
    assert _under_fire(_battle("cavalry", step)) == (None if steps is None else -steps)


@pytest.mark.parametrize("step", [None, 0.06, 0.1])
def test_infantry_counts_closing_loss_steps_at_every_value(step: float | None) -> None:
    """Infantry that lost the same share tests at −3 (0.1 / 0.03) whatever the option."""
    assert _under_fire(_battle("infantry", step)) == -3


def test_the_cavalry_step_applies_when_closing_loss_step_is_off() -> None:
    """With ``closing_loss_step`` null (rules version 2: no modifier) infantry has none,
    and cavalry with its own step set has its own (0.1 / 0.05 = 2)."""
    assert _under_fire(_battle("infantry", 0.05, closing=None)) is None
    assert _under_fire(_battle("cavalry", None, closing=None)) is None
    assert _under_fire(_battle("cavalry", 0.05, closing=None)) == -2


@pytest.mark.parametrize("bad", [0, -0.1, 1.5])
def test_a_step_out_of_range_is_refused_naming_the_field(bad: float) -> None:
    """0 < step ≤ 1."""
    data: dict[str, Any] = _scenario([_inf("a", [1, 1])], [_inf("b", [5, 5])])
    data["options"] = {"cavalry_closing_loss_step": bad}
    with pytest.raises(ScenarioError) as err:
        validate_data(data, {}, "t.yaml")
    assert "options.cavalry_closing_loss_step" in str(err.value)
