"""The musket battle's read-only devices: the options, orders and sides it reads as plain
slotted copies (``context.plain``), and its cover kept per (hex, side, source)."""

from __future__ import annotations

from pathlib import Path

import pytest
import simpy
from pydantic import BaseModel

from engine.kernel import TurnKernel
from engine.rng import Streams
from sim.rulesets.musket.model.hexmap import ring
from sim.rulesets.musket.model.options import MusketOptions
from sim.rulesets.musket.model.scenario import MusketScenario
from sim.rulesets.musket.model.state import initial_state
from sim.rulesets.musket.rules.context import LINEAR_COVER, Battle, plain
from sim.scenario.load import load_scenario

ROOT = Path(__file__).resolve().parents[2]


def _battle(name: str, enfilade: bool | None = None) -> Battle:
    _, sc = load_scenario(ROOT / "scenarios" / name)
    assert isinstance(sc, MusketScenario)
    if enfilade is not None:  # on, units face away from their retreat edge: arcs
        options = sc.options.model_copy(update={"enfilade": enfilade})
        sc = sc.model_copy(update={"options": options})
    return Battle(sc, initial_state(sc), Streams(1), TurnKernel(simpy.Environment(), ("x",), 20))


def test_a_plain_copy_holds_every_field_and_refuses_writes() -> None:
    """``plain`` copies every field of a model by identity, in declaration order, and
    refuses to set any attribute, a field's or another."""
    options = MusketOptions(fire_lcv=3, enfilade=True, rout_loss=None)
    copy = plain(options)
    assert [getattr(copy, name) for name in MusketOptions.model_fields] == [
        options.__dict__[name] for name in MusketOptions.model_fields
    ]
    assert all(getattr(copy, n) is options.__dict__[n] for n in MusketOptions.model_fields)
    for name in ("fire_lcv", "not_an_option"):
        with pytest.raises(AttributeError, match="read-only"):
            setattr(copy, name, 1.0)
    assert copy.fire_lcv == 3.0 and copy.rout_loss is None


@pytest.mark.parametrize("name", ["stone_wall.yaml", "albuera_colborne.yaml"])
def test_the_battle_reads_the_scenarios_options_orders_and_sides(name: str) -> None:
    """The battle's options, orders and sides are plain copies holding the scenario's
    values, field by field."""
    b = _battle(name)
    sc = b.scenario
    pairs: list[tuple[object, BaseModel]] = [(b.options, sc.options)]
    pairs += [(b.sides[s.id], s) for s in sc.sides]
    pairs += [(b.orders[u.id], u.order) for s in sc.sides for u in s.units]
    for copy, model in pairs:
        assert type(copy) is not type(model)
        for field in type(model).model_fields:
            assert getattr(copy, field) is getattr(model, field), field


@pytest.mark.parametrize("enfilade", [False, True])
@pytest.mark.parametrize("name", ["stone_wall.yaml", "cold_harbor.yaml"])
def test_cover_against_is_the_terrains_cover_from_the_arc(name: str, enfilade: bool) -> None:
    """Asked twice (the second answer kept), ``cover_against`` gives what the terrain's
    cover and the arc make of it: linear cover only from the front."""
    b = _battle(name, enfilade)
    arcs = set()
    for unit in b.state.units.values():
        assert unit.hex is not None
        for source in ring(unit.hex, 1) + ring(unit.hex, 3):
            terrain, cover = b.cover(unit.hex)
            arc = b.arc(unit, source)
            expected = (terrain, 0 if arc != "front" and terrain in LINEAR_COVER else cover, arc)
            assert b.cover_against(unit, source) == expected
            assert b.cover_against(unit, source) == expected
            arcs.add(arc)
    assert arcs == ({"front", "flank", "rear"} if enfilade else {"front"})
