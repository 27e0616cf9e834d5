"""sim.contract.carry: the carry-over pieces every ruleset shares."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from sim.contract.bases import validate_plain
from sim.contract.carry import CarryOver, CarrySettings, NextBattle

NEXT: dict[str, Any] = {
    "name": "day 2",
    "sides": [
        {"id": "red", "units": [{"id": "a", "hp": 9}, {"id": "b", "hp": 9, "target": "x"}]},
        {"id": "blue", "units": [{"id": "x", "hp": 9}, {"id": "y", "hp": 9}]},
    ],
}


def test_the_next_battle_is_a_copy_and_next_data_is_left_as_it_is() -> None:
    """Editing the NextBattle's data never reaches the file's data it was made from."""
    battle = NextBattle(NEXT)
    battle.sides["red"]["units"].clear()
    assert NEXT["sides"][0]["units"] == [{"id": "a", "hp": 9}, {"id": "b", "hp": 9, "target": "x"}]
    assert list(battle.sides) == ["red", "blue"]


def test_reinforcements_join_their_side_and_an_unknown_side_is_one_line() -> None:
    """Specs are appended (copied) to the side's list; a side the battle lacks is a ValueError."""
    fresh = [{"id": "c", "hp": 4}]
    battle = NextBattle(NEXT, "encounter")
    battle.reinforce({"red": fresh}, "units")
    assert [u["id"] for u in battle.sides["red"]["units"]] == ["a", "b", "c"]
    assert battle.sides["red"]["units"][2] is not fresh[0]
    with pytest.raises(ValueError, match=r"^reinforcements: the next encounter has no side 'g'$"):
        battle.reinforce({"g": fresh}, "units")


def test_carry_keeps_fresh_units_changes_survivors_and_returns_those_gone() -> None:
    """A unit that fought becomes carried(spec, unit) or is left out; one that did not stays."""
    battle = NextBattle(NEXT)
    end = {"a": 3, "x": 0}  # hit points at the end; b and y did not fight
    gone = battle.carry("units", end, lambda spec, hp: {**spec, "hp": hp} if hp else None)
    assert battle.sides["red"]["units"] == [{"id": "a", "hp": 3}, NEXT["sides"][0]["units"][1]]
    assert battle.sides["blue"]["units"] == [{"id": "y", "hp": 9}]
    assert gone == {"x": {"id": "x", "hp": 9}}
    battle.each("units", lambda spec: {k: v for k, v in spec.items() if v not in gone})
    assert battle.sides["red"]["units"][1] == {"id": "b", "hp": 9}


def test_settings_refuse_unknown_fields_and_default_to_no_reinforcements() -> None:
    """CarrySettings is frozen, strict and forbids what it does not know."""
    assert validate_plain(CarrySettings, {}).reinforcements == {}
    with pytest.raises(ValidationError, match="healing"):
        validate_plain(CarrySettings, {"healing": 1})


def test_carry_over_reads_the_settings_copies_the_battle_and_returns_the_copy() -> None:
    """CarryOver runs the ruleset's part on a NextBattle made from a copy, after the settings."""
    seen: list[tuple[object, object, int]] = []

    def carry(sc: str, final: dict[str, int], battle: NextBattle, s: CarrySettings) -> None:
        seen.append((sc, final, len(s.reinforcements)))
        battle.reinforce(s.reinforcements, "units")

    hook = CarryOver(CarrySettings, carry, battle="bout")
    out = hook("sc", {"a": 1}, NEXT, {"reinforcements": {"blue": [{"id": "z", "hp": 1}]}})
    assert seen == [("sc", {"a": 1}, 1)]
    assert [u["id"] for u in out["sides"][1]["units"]] == ["x", "y", "z"]
    assert [u["id"] for u in NEXT["sides"][1]["units"]] == ["x", "y"]
    with pytest.raises(ValidationError, match="rest"):
        hook("sc", {}, NEXT, {"rest": 2})
    with pytest.raises(ValueError, match="the next bout has no side 'g'"):
        hook("sc", {}, NEXT, {"reinforcements": {"g": []}})


def test_reinforcements_a_carry_leaves_out_are_refused_not_dropped() -> None:
    """A carry that never merges the reinforcements (no battle.reinforce) would fight the
    next battle without them, saying nothing, as a plugin's did: refused, naming the units
    left out and what the carry must do. Without reinforcements it carries as before."""

    def carry(sc: str, final: dict[str, int], battle: NextBattle, s: CarrySettings) -> None:
        battle.carry("units", final, lambda spec, hp: {**spec, "hp": hp})

    hook = CarryOver(CarrySettings, carry, battle="bout")
    assert hook("sc", {"a": 1}, NEXT, {})["sides"][0]["units"][0] == {"id": "a", "hp": 1}
    fresh = {"reinforcements": {"blue": [{"id": "z", "hp": 1}, {"id": "w", "hp": 1}]}}
    with pytest.raises(ValueError) as refused:
        hook("sc", {"a": 1}, NEXT, fresh)
    assert str(refused.value) == (
        "reinforcements: the ruleset's carry-over left 'z', 'w' out of the next bout: its carry "
        "must merge them (battle.reinforce(settings.reinforcements, KEY)) or refuse them with "
        "a ValueError"
    )


def test_a_ruleset_whose_sides_have_another_name_names_it_and_a_wrong_name_is_an_error() -> None:
    """A scenario listing its sides as ``armies`` carries with ``sides="armies"``; left at
    ``"sides"``, the hook used to find no side and carry nothing (every unit fresh, the
    fallen back whole, and check-ruleset passed): it is now a TypeError naming the fields."""
    armies = {"name": "day 2", "armies": NEXT["sides"]}
    battle = NextBattle(armies, sides="armies")
    gone = battle.carry("units", {"x": 0}, lambda spec, hp: {**spec, "hp": hp} if hp else None)
    assert [u["id"] for u in battle.data["armies"][1]["units"]] == ["y"]
    assert list(gone) == ["x"]
    with pytest.raises(
        TypeError, match=r"no list of sides at 'sides' \(its fields: armies, name\)"
    ):
        NextBattle(armies)
    hook: CarryOver[Any, Any, CarrySettings] = CarryOver(
        CarrySettings, lambda *_a: None, sides="armies"
    )
    assert hook("sc", {}, armies, {})["armies"] == armies["armies"]
    with pytest.raises(TypeError, match=r"no side of the next battle has a list 'elements'"):
        NextBattle(NEXT).carry("elements", {"x": 0}, lambda spec, hp: spec)
