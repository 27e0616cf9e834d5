"""Movement: straight toward the target, stopping at melee reach; tactics; cover left behind."""

from __future__ import annotations

from sim.rulesets.becmi.rules.movement import approach, decide_move
from sim.rulesets.becmi.rules.striking import decide_strike
from tests.becmi.helpers import FIGHTER, ORC, apply, battle, scenario


def test_approach_stops_at_reach_or_goes_the_step() -> None:
    """40 ft along the line when short of reach; otherwise 5 ft short of the goal."""
    assert approach((0, 0), (100, 0), 40, 5) == (40, 0)
    assert approach((0, 0), (30, 40), 40, 5) == (24, 32)
    assert approach((0, 0), (30, 40), 60, 5) == (27, 36)
    assert approach((0, 0), (7, 7), 40, 5) == (3, 3)
    assert approach((5, 5), (5, 5), 40, 5) == (5, 5)


def test_advance_hold_and_skirmish() -> None:
    """advance closes; hold never moves; skirmish stays while a target is in range."""
    far = {**ORC, "at": [100, 0]}
    b = battle(scenario([{**FIGHTER, "cover": {"amount": "half"}}], [far]), {})
    e = decide_move(b, b.state.combatants["thorgrim"])
    assert e is not None
    assert (e.start, e.to, e.feet, e.allowance, e.toward, e.left_cover) == (
        (0, 0),
        (40, 0),
        40,
        40,
        "grub",
        True,
    )
    apply(b, e.model_copy(update={"seq": 0}))
    assert (b.state.combatants["thorgrim"].cover, b.state.combatants["thorgrim"].at) == (
        "none",
        (40, 0),
    )
    b = battle(scenario([{**FIGHTER, "tactics": "hold"}], [far]), {})
    assert decide_move(b, b.state.combatants["thorgrim"]) is None
    archer = {**FIGHTER, "tactics": "skirmish", "missile": "short_bow"}
    b = battle(scenario([archer], [far]), {})
    assert decide_move(b, b.state.combatants["thorgrim"]) is None
    b = battle(scenario([archer], [{**ORC, "at": [200, 0]}]), {})
    assert decide_move(b, b.state.combatants["thorgrim"]) is not None


def test_stunned_moves_a_third() -> None:
    """A stunned combatant moves ⅓ of its allowance [src]."""
    b = battle(scenario([FIGHTER], [ORC]), {"1/strike/thorgrim": [15, 20, 20]})
    apply(b, decide_strike(b, *b.state.combatants.values()).model_copy(update={"seq": 0}))
    grub = b.state.combatants["grub"]
    grub.at = (100, 0)  # test set-up: put it out of reach
    e = decide_move(b, grub)
    assert e is not None
    assert (e.allowance, e.to) == (13, (87, 0))
