"""Striking (seed 001 L47–L55): size, damage 1 + Str or 0 pulled, stun, knock-out, haymaker."""

from __future__ import annotations

from typing import Any

import pytest

from sim.rulesets.becmi.rules.striking import decide_strike, strike_damage
from tests.becmi.helpers import FIGHTER, ORC, apply, battle, scenario


def _strike(script: list[int], fighter: dict[str, Any] | None = None, **orc: Any) -> Any:
    sc = scenario([fighter or FIGHTER], [{**ORC, **orc}])
    b = battle(sc, {"1/strike/thorgrim": script})
    return b, decide_strike(b, b.state.combatants["thorgrim"], b.state.combatants["grub"])


def test_strike_damage_is_one_plus_strength_or_zero_pulled() -> None:
    """1 + Str bonus, never below 0; a pulled blow does 0; negative H adds to damage."""
    assert strike_damage(2, False, 0).total == 3
    assert strike_damage(-3, False, 0).total == 0
    assert strike_damage(2, True, 5).total == 0
    assert strike_damage(0, False, 2).total == 3


def test_hit_stuns_and_failed_save_knocks_out_for_t_rounds() -> None:
    """Roll 9+2 hits AC 6 (needs 11); t = 15 − 2 = 13 stuns; save 7 +4 −2 = 9 < 12 fails."""
    _, e = _strike([9, 15, 7])
    assert (e.to_hit.thac0, e.to_hit.ac, e.to_hit.h, e.to_hit.needed) == (17, 6, 11, 11)
    assert (e.to_hit.roll, e.to_hit.modifiers, e.to_hit.total, e.to_hit.hit) == (
        9,
        {"strength": 2},
        11,
        True,
    )
    assert (e.damage.total, e.hp_after, e.killed) == (3, 3, False)
    assert (e.con, e.con_source, e.stun_roll, e.t, e.stunned) == (2, "2 x HD", 15, 13, True)
    assert (e.save.save_as, e.save.number, e.save.modifiers) == (
        "F1",
        12,
        {"blow": 4, "attacker_strength": -2},
    )
    assert (e.save.roll, e.save.total, e.save.saved, e.knocked_out_rounds) == (7, 9, False, 13)
    assert [d.stream for d in e.draws] == ["1/strike/thorgrim"] * 3


def test_stun_needs_t_above_zero() -> None:
    """t = d20 − C must exceed 0: a roll equal to C does not stun and draws no save."""
    _, e = _strike([12, 2])
    assert (e.t, e.stunned, e.save, e.knocked_out_rounds) == (0, False, None, 0)
    assert len(e.draws) == 2


def test_monster_con_is_an_option_times_hd() -> None:
    """monster_con_per_hd 5 makes a 2-HD monster's C 10."""
    sc = scenario([FIGHTER], [{**ORC, "hd": "2+1"}], options={"monster_con_per_hd": 5})
    b = battle(sc, {"1/strike/thorgrim": [20, 10]})
    e = decide_strike(b, b.state.combatants["thorgrim"], b.state.combatants["grub"])
    assert (e.con, e.con_source, e.t, e.stunned) == (10, "5 x HD", 0, False)


def test_haymaker_is_minus_5_to_hit_and_minus_4_on_the_save() -> None:
    """A haymaker rolls at −5 and the knock-out save is at −4 instead of +4."""
    fighter = {**FIGHTER, "haymaker": True}
    _, e = _strike([13], fighter=fighter)
    assert (e.to_hit.modifiers, e.to_hit.total, e.to_hit.hit) == (
        {"strength": 2, "haymaker": -5},
        10,
        False,
    )
    _, e = _strike([16, 15, 14], fighter=fighter)
    assert (e.haymaker, e.to_hit.total, e.to_hit.hit) == (True, 13, True)
    assert e.save.modifiers == {"haymaker": -4, "attacker_strength": -2}
    assert (e.save.total, e.save.saved, e.knocked_out_rounds) == (8, False, 13)


def test_pulled_blow_does_no_damage_but_can_stun() -> None:
    """A pulled blow hits for 0 and still rolls the stun."""
    _, e = _strike([15, 3, 20], fighter={**FIGHTER, "pull": True})
    assert (e.pulled, e.damage.total, e.hp_after, e.t, e.stunned) == (True, 0, 6, 1, True)
    assert (e.save.total, e.save.saved, e.knocked_out_rounds) == (22, True, 0)


def test_too_small_to_strike() -> None:
    """An attacker less than half the defender's size cannot strike: no dice rolled."""
    _, e = _strike([], fighter={**FIGHTER, "size": 3}, size=7)
    assert (e.size_ok, e.to_hit, e.draws, e.hp_after) == (False, None, [], 6)
    _, e = _strike([1], fighter={**FIGHTER, "size": 3}, size=6)
    assert e.size_ok is True


def test_knockout_then_recovery_and_stun_effects_in_state() -> None:
    """A knock-out for t rounds wakes in round 1 + t + 1; a stun makes AC 4 worse this round."""
    from sim.rulesets.becmi.rules.referee import decide_recoveries

    b, e = _strike([9, 15, 7])
    apply(b, e.model_copy(update={"seq": 0}))
    grub = b.state.combatants["grub"]
    assert (grub.unconscious, grub.wakes_round, grub.stunned_through) == (True, 15, 2)
    assert b.armour_class("grub") == (6, {"stunned": 4})
    b.kernel.turn = 14
    assert decide_recoveries(b) == []
    b.kernel.turn = 15
    assert [r.combatant for r in decide_recoveries(b)] == ["grub"]


@pytest.mark.parametrize(("roll", "hit"), [(1, False), (20, True)])
def test_natural_rolls_follow_their_options(roll: int, hit: bool) -> None:
    """With both options on, a natural 1 misses a total that hits; a natural 20 hits AC −20."""
    ac, level = (10, 36) if roll == 1 else (-20, 4)
    opts = {"natural_1_misses": True, "natural_20_hits": True}
    fighter = {**FIGHTER, "level": level}
    sc = scenario([fighter], [{**ORC, "ac": ac}], options=opts)
    b = battle(sc, {"1/strike/thorgrim": [roll, 1]})
    e = decide_strike(b, b.state.combatants["thorgrim"], b.state.combatants["grub"])
    assert e.to_hit is not None
    assert (e.to_hit.hit, e.to_hit.natural) == (hit, "1 misses" if roll == 1 else "20 hits")
