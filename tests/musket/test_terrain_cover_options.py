"""Options ``cover_<terrain>`` (ours): a terrain's cover for every hex of it in a scenario,
the terrain table's value (rules-notes §1) by default; a patch's own ``cover`` still wins.

At the stone wall (``scenarios/stone_wall.yaml``: the wall's hexes hold the Confederates,
the fences the slope) every fire at a unit on the wall from its front records the wall's
cover as the modifier ``stone_wall``: −40 by the table, the option's value when it is set,
and a patch's own ``cover`` over either.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from sim.rulesets.musket.model.data import TERRAIN
from sim.rulesets.musket.model.options import MusketOptions
from sim.scenario.load import ScenarioError, validate_data
from tests.sim.test_rules import _fight

ROOT = Path(__file__).resolve().parents[2]
NAMES = ("woods", "stone_wall", "breastworks", "fence")


def _wall(options: dict[str, Any], patch_cover: int | None = None) -> list[dict[str, Any]]:
    data = yaml.safe_load((ROOT / "scenarios" / "stone_wall.yaml").read_text("utf-8"))
    data.setdefault("options", {}).update(options)
    if patch_cover is not None:
        data["map"]["terrain"][0]["cover"] = patch_cover
    return _fight(data, seed=1862)


def _wall_modifiers(events: list[dict[str, Any]]) -> set[float]:
    """The ``stone_wall`` modifiers the battle's fire recorded."""
    return {
        e["result"]["modifiers"]["stone_wall"]
        for e in events
        if e.get("type") == "musket.fired" and "stone_wall" in e["result"]["modifiers"]
    }


def test_each_default_is_the_tables_and_is_not_written() -> None:
    options = MusketOptions()
    assert {n: getattr(options, f"cover_{n}") for n in NAMES} == {
        n: TERRAIN[n]["cover"] for n in NAMES
    }
    assert {n: TERRAIN[n]["cover"] for n in NAMES} == {
        "woods": -40, "stone_wall": -40, "breastworks": -30, "fence": -20,
    }  # fmt: skip
    assert not any(f"cover_{n}" in options.model_dump() for n in NAMES)


def test_a_battle_with_them_at_their_defaults_is_the_battle_without_them() -> None:
    without = _wall({})
    at_defaults = _wall({f"cover_{n}": TERRAIN[n]["cover"] for n in NAMES})
    assert [json.dumps(e) for e in at_defaults] == [json.dumps(e) for e in without]
    assert _wall_modifiers(without) == {-40.0}


def test_the_option_sets_every_wall_hexs_cover() -> None:
    events = _wall({"cover_stone_wall": -30})
    assert _wall_modifiers(events) == {-30.0}
    assert events[0]["scenario"]["options"]["cover_stone_wall"] == -30  # written, not at default


def test_a_patchs_own_cover_wins_over_the_option() -> None:
    assert _wall_modifiers(_wall({"cover_stone_wall": -30}, patch_cover=-10)) == {-10.0}


@pytest.mark.parametrize("bad", [-101, 101])
def test_a_cover_outside_minus_100_to_100_is_refused_at_its_path(bad: int) -> None:
    data = yaml.safe_load((ROOT / "scenarios" / "stone_wall.yaml").read_text("utf-8"))
    data["options"] = {"cover_fence": bad}
    with pytest.raises(ScenarioError) as err:
        validate_data(data, {}, "t.yaml")
    assert "options.cover_fence" in str(err.value)
