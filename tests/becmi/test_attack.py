"""Weapon attacks: Str in melee, Dex, range and cover for missiles, damage, negative H."""

from __future__ import annotations

from typing import Any

from sim.rulesets.becmi.rules.attack import decide_melee_attack, decide_missile
from tests.becmi.helpers import FIGHTER, apply, battle, scenario

ALARIC = {**FIGHTER, "id": "alaric", "name": "Alaric", "level": 3, "attack": "weapon"}
ALARIC["abilities"] = {"strength": 15, "dexterity": 11, "constitution": 13}
ALARIC["weapon"] = "sword"
PIP: dict[str, Any] = {
    "id": "pip",
    "name": "Pip",
    "kind": "character",
    "class": "thief",
    "level": 3,
    "abilities": {"dexterity": 17},
    "hp": 9,
    "at": [0, 0],
    "missile": "short_bow",
    "weapon": "short_sword",
    "tactics": "skirmish",
}
GOBLIN: dict[str, Any] = {
    "id": "gob",
    "name": "Gob",
    "kind": "monster",
    "hd": "1-1",
    "ac": 6,
    "hp": 4,
    "save_as": "NM",
    "size": 4,
    "at": [5, 0],
    "weapon": "short_sword",
}


def test_melee_hit_adds_strength_to_roll_and_damage() -> None:
    """Roll 12 + 1 (Str 15) = 13 hits AC 6 (THAC0 19, needs 13); d8 5 + 1 = 6 kills."""
    b = battle(scenario([ALARIC], [GOBLIN]), {"1/attack/alaric": [12, 5]})
    e = decide_melee_attack(b, b.state.combatants["alaric"], b.state.combatants["gob"])
    assert (e.phase, e.weapon, e.distance, e.range_band, e.cover) == (
        "melee",
        "sword",
        5,
        None,
        None,
    )
    assert (e.to_hit.needed, e.to_hit.modifiers, e.to_hit.total, e.to_hit.hit) == (
        13,
        {"strength": 1},
        13,
        True,
    )
    assert e.damage is not None
    assert (e.damage.dice, e.damage.rolls, e.damage.modifiers, e.damage.total) == (
        "1d8",
        [5],
        {"strength": 1},
        6,
    )
    assert (e.hp_before, e.hp_after, e.killed) == (4, -2, True)
    apply(b, e.model_copy(update={"seq": 0}))
    gob = b.state.combatants["gob"]
    assert (gob.status, gob.hp, gob.harmed_by, gob.harmed_phase) == ("dead", -2, "a", "melee")


def test_negative_h_adds_to_damage_and_a_hit_does_at_least_one() -> None:
    """THAC0 −3 vs AC 9: H −12 → −8, needs 2, +8 damage; Str 3 on a d8 of 1 still does 1."""
    hero = {**ALARIC, "level": 36}
    b = battle(scenario([hero], [{**GOBLIN, "ac": 9}]), {"1/attack/alaric": [2, 3]})
    e = decide_melee_attack(b, b.state.combatants["alaric"], b.state.combatants["gob"])
    assert (e.to_hit.h, e.to_hit.needed, e.to_hit.damage_bonus) == (-12, 2, 8)
    assert [(s.threshold, s.before, s.after) for s in e.to_hit.steps] == [(2, -12, -8)]
    assert e.damage is not None
    assert (e.damage.modifiers, e.damage.total) == ({"negative_h": 8, "strength": 1}, 12)
    weak = {**ALARIC, "abilities": {"strength": 3}}
    b = battle(scenario([weak], [GOBLIN]), {"1/attack/alaric": [20, 1]})
    e = decide_melee_attack(b, b.state.combatants["alaric"], b.state.combatants["gob"])
    assert e.damage is not None
    assert (e.damage.rolls, e.damage.modifiers, e.damage.minimum, e.damage.total) == (
        [1],
        {"strength": -3},
        1,
        1,
    )


def test_missile_carries_dex_range_and_cover() -> None:
    """Pip at 120 ft (long, −1), Dex 17 (+2), goblin in half hard cover (−4): 15 → 12, miss."""
    gob = {**GOBLIN, "at": [120, 0], "cover": {"amount": "half", "kind": "hard"}}
    b = battle(scenario([PIP], [gob]), {"1/attack/pip": [15]})
    e = decide_missile(b, b.state.combatants["pip"])
    assert e is not None
    assert (e.phase, e.weapon, e.distance, e.range_band, e.cover) == (
        "missile",
        "short_bow",
        120,
        "long",
        "half hard",
    )
    assert (e.to_hit.modifiers, e.to_hit.total, e.to_hit.needed, e.to_hit.hit) == (
        {"dexterity": 2, "range": -1, "cover": -4},
        12,
        13,
        False,
    )
    assert (e.damage, e.hp_after) == (None, 4)


def test_range_bands_use_the_options_for_short_and_medium() -> None:
    """Short bow 50/100/150: 50 ft is short (+option), 100 medium (+option), 151 out of range."""
    opts = {"short_range_modifier": 2, "medium_range_modifier": -1}
    got = []
    for x in (50, 100, 150, 151):
        b = battle(scenario([PIP], [{**GOBLIN, "at": [x, 0]}], options=opts), {"1/attack/pip": [1]})
        e = decide_missile(b, b.state.combatants["pip"])
        got.append(None if e is None else (e.range_band, e.to_hit.modifiers.get("range")))
    assert got == [("short", 2), ("medium", -1), ("long", -1), None]


def test_full_hard_cover_cannot_be_hit_full_soft_is_minus_4() -> None:
    """A target behind full hard cover is never shot at; full soft cover is −4."""
    hard = {**GOBLIN, "at": [40, 0], "cover": {"amount": "full", "kind": "hard"}}
    b = battle(scenario([PIP], [hard]), {})
    assert decide_missile(b, b.state.combatants["pip"]) is None
    soft = {**hard, "cover": {"amount": "full", "kind": "soft"}}
    b = battle(scenario([PIP], [soft]), {"1/attack/pip": [10]})
    e = decide_missile(b, b.state.combatants["pip"])
    assert e is not None
    assert (e.cover, e.to_hit.modifiers["cover"]) == ("full soft", -4)


def test_no_missile_after_moving_or_with_an_enemy_in_reach() -> None:
    """A shooter that moved this round, or has an enemy within 5 ft, does not shoot."""
    b = battle(scenario([PIP], [GOBLIN]), {})
    assert decide_missile(b, b.state.combatants["pip"]) is None
    b = battle(scenario([PIP], [GOBLIN], options={"missile_in_melee": True}), {"1/attack/pip": [4]})
    assert decide_missile(b, b.state.combatants["pip"]) is not None
    b = battle(scenario([PIP], [{**GOBLIN, "at": [60, 0]}]), {})
    b.state.combatants["pip"].moved_round = 1
    assert decide_missile(b, b.state.combatants["pip"]) is None
