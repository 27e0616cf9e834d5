"""A rout's reach keeps each hex's cost and predecessor: the same hexes, costs, order and
paths as the reach that copied a path into every hex it found (``main`` at 3dfdd52,
copied below as it was), on random layouts with woods and units of both sides; and a
spent or disrupted attacker's way out, whose search stops at the first hex clear of the
enemy, is the one chosen from the whole reach (``main`` at c55149c, copied below)."""

from __future__ import annotations

import heapq
from typing import Any

import simpy
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.kernel import TurnKernel
from engine.rng import Streams
from sim.rulesets.musket.model.hexmap import neighbours
from sim.rulesets.musket.model.state import UnitState, initial_state
from sim.rulesets.musket.rules.context import Battle, Hex
from sim.rulesets.musket.rules.movement import (
    _enemy_within,
    _free,
    _get_out,
    _path,
    _reachable,
    allowance,
)
from sim.scenario.load import validate_data


def reachable_as_it_was(b: Battle, unit: UnitState, mp: int) -> dict[Hex, tuple[int, list[Hex]]]:
    """``movement._reachable`` before: a copy of the path kept with each hex."""
    assert unit.hex is not None
    start = unit.hex
    best: dict[Hex, tuple[int, list[Hex]]] = {start: (0, [])}
    frontier: list[tuple[int, int, Hex]] = [(0, 0, start)]
    order = 0
    units, occupant = b.state.units, b.state.occupant
    while frontier:
        cost, _, here = heapq.heappop(frontier)
        if best[here][0] < cost:
            continue
        for h in neighbours(here):
            if not b.on_map(h):
                continue
            uid = occupant.get(h)
            if uid is not None and units[uid].side != unit.side:
                continue
            step = cost + b.move_cost(h)
            if step > mp or (h in best and best[h][0] <= step):
                continue
            best[h] = (step, [*best[here][1], h])
            order += 1
            heapq.heappush(frontier, (step, order, h))
    return best


@st.composite
def layouts(draw: st.DrawFn) -> dict[str, Any]:
    """Two sides on distinct hexes of a small map, some of it woods."""
    width, height = draw(st.integers(2, 12)), draw(st.integers(2, 12))
    hexes = [(c, r) for c in range(width) for r in range(height)]
    spots = draw(st.permutations(hexes))[: draw(st.integers(2, min(24, len(hexes))))]
    woods = draw(st.lists(st.sampled_from(hexes), max_size=len(hexes) // 2, unique=True))
    units = [
        {
            "id": f"u{i}",
            "name": f"U{i}",
            "kind": "infantry",
            "strength": 100,
            "quality": "C",
            "weapon": "rifle_musket",
            "at": list(h),
        }
        for i, h in enumerate(spots)
    ]
    split = draw(st.integers(1, len(units) - 1))
    return {
        "ruleset": "musket",
        "name": "t",
        "map": {
            "width": width,
            "height": height,
            "terrain": [{"terrain": "woods", "hexes": [list(h) for h in woods]}] if woods else [],
        },
        "turns": {"limit": 1},
        "sides": [
            {"id": "a", "name": "A", "retreat": "north", "units": units[:split]},
            {"id": "b", "name": "B", "retreat": "south", "units": units[split:]},
        ],
    }


@settings(max_examples=150, deadline=None)
@given(layouts(), st.integers(0, 9))
def test_the_reach_is_the_one_that_copied_paths(data: dict[str, Any], mp: int) -> None:
    """For every unit and allowance: the same hexes in the same order, with the same
    costs and the same cheapest paths."""
    _, sc = validate_data(data, {}, "t.yaml")
    b = Battle(sc, initial_state(sc), Streams(1), TurnKernel(simpy.Environment(), ("x",), 20))
    for unit in b.state.units.values():
        want = reachable_as_it_was(b, unit, mp)
        reach = _reachable(b, unit, mp)
        assert list(reach[0].items()) == [(h, cost) for h, (cost, _) in want.items()]
        assert {h: _path(reach, h) for h in reach[0]} == {h: p for h, (_, p) in want.items()}


def get_out_as_it_was(b: Battle, unit: UnitState, clear: int) -> list[Hex]:
    """``movement._get_out`` before its search stopped early: chosen from the whole reach."""
    assert unit.hex is not None
    edge = b.sides[unit.side].retreat
    reach = _reachable(b, unit, allowance(b, unit))
    key: tuple[int, int, int] | None = None
    chosen = unit.hex
    for h, cost in reach[0].items():
        if not _free(b, unit, h):
            continue
        near = _enemy_within(b, unit, h, clear)
        k = (1, b.edge_distance(h, edge), cost) if near else (0, cost, b.edge_distance(h, edge))
        if key is None or k < key:
            key, chosen = k, h
    return _path(reach, chosen)


@settings(max_examples=150, deadline=None)
@given(layouts(), st.integers(1, 3), st.sampled_from(["line", "column"]))
def test_the_way_out_is_the_one_the_whole_reach_gives(
    data: dict[str, Any], clear: int, formation: str
) -> None:
    """For every unit, clearance and allowance (a column moves further): the same path."""
    for side in data["sides"]:
        for u in side["units"]:
            u["formation"] = formation
    _, sc = validate_data(data, {}, "t.yaml")
    b = Battle(sc, initial_state(sc), Streams(1), TurnKernel(simpy.Environment(), ("x",), 20))
    for unit in b.state.units.values():
        assert _get_out(b, unit, clear) == get_out_as_it_was(b, unit, clear)
