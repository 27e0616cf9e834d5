"""Targeting costs the same at any army size; the nearest enemy is kept while nothing moves."""

from __future__ import annotations

from typing import Any, ClassVar

import simpy

from engine.kernel import TurnKernel
from engine.rng import Streams
from sim.rulesets.musket.model.state import initial_state
from sim.rulesets.musket.rules.context import Battle
from sim.rulesets.musket.rules.targeting import aim
from sim.scenario.load import validate_data


class CountingDict(dict[Any, Any]):
    """A dict that counts ``get`` calls (the hex lookups of a search) and, apart, ``in``
    tests (a shot's scan for the first hex that holds an enemy), with the keys of both."""

    gets = 0
    contains = 0
    keys_seen: ClassVar[list[Any]] = []

    def get(self, key: Any, default: Any = None) -> Any:
        CountingDict.gets += 1
        CountingDict.keys_seen.append(key)
        return super().get(key, default)

    def __contains__(self, key: object) -> bool:
        CountingDict.contains += 1
        CountingDict.keys_seen.append(key)
        return super().__contains__(key)


def _lines(per_side: int) -> Battle:
    """Two facing lines, two ranks deep, one row apart: every unit has an enemy within 2."""
    width = per_side // 2
    units = [
        [
            {
                "id": f"{s}{i}",
                "name": f"{s}{i}",
                "kind": "infantry",
                "strength": 100,
                "quality": "C",
                "weapon": "rifle_musket",
                "at": [i % width, (1 - i // width) if s == "n" else 3 + i // width],
            }
            for i in range(per_side)
        ]
        for s in ("n", "s")
    ]
    data = {
        "ruleset": "musket",
        "name": "t",
        "map": {"width": width, "height": 5},
        "turns": {"limit": 1},
        "sides": [
            {"id": "a", "name": "A", "retreat": "north", "units": units[0]},
            {"id": "b", "name": "B", "retreat": "south", "units": units[1]},
        ],
    }
    _, sc = validate_data(data, {}, "t.yaml")
    state = initial_state(sc)
    state.occupant = CountingDict(state.occupant)
    return Battle(sc, state, Streams(1), TurnKernel(simpy.Environment(), ("x",), 20))


def _lookups_per_unit(b: Battle) -> list[int]:
    counts = []
    for unit in b.state.units.values():
        before = CountingDict.gets
        assert b.nearest_enemy(unit, within=4) is not None
        counts.append(CountingDict.gets - before)
    return counts


def test_hex_lookups_per_search_do_not_grow_with_the_armies() -> None:
    """The most hexes one search looks at is the same with 40 and with 1,600 units a side.

    A unit in the back rank has its nearest enemy at distance 3 (the row
    between the lines is empty), so it looks at rings 1..3: 6 + 12 + 18 hexes.
    """
    small, large = _lookups_per_unit(_lines(40)), _lookups_per_unit(_lines(1600))
    assert max(small) == max(large) == 6 + 12 + 18
    assert min(small) == min(large) == 6 + 12


def test_search_is_cached_until_a_unit_is_placed() -> None:
    """A second search with nothing moved looks at no hex; a placement makes it search again."""
    b = _lines(40)
    _lookups_per_unit(b)
    assert set(_lookups_per_unit(b)) == {0}
    b.state.placements += 1  # what apply's _place does when a unit moves or leaves
    assert set(_lookups_per_unit(b)) == {6 + 12, 6 + 12 + 18}


def _aim_lookups(b: Battle) -> list[tuple[int, int]]:
    """Each unit's shot in the spatial index (``state.foes``): the hexes it looked at (each
    once however often) and its lookups (``in`` tests and reads)."""
    b.state.foes = {side: CountingDict(foes) for side, foes in b.state.foes.items()}
    counts = []
    for unit in b.state.units.values():
        CountingDict.keys_seen = []
        before = CountingDict.gets + CountingDict.contains
        assert aim(b, unit, 4) is not None
        lookups = CountingDict.gets + CountingDict.contains - before
        counts.append((len(set(CountingDict.keys_seen)), lookups))
    return counts


def test_a_shot_looks_at_the_same_few_hexes_at_any_army_size() -> None:
    """With facing (enfilade, on by default) a shot walks its reach nearest first, most
    nearly ahead first, and reads only the index of enemies: a front-rank unit looks at
    its 6 neighbours (the row between the lines is empty) and the hex straight ahead 2
    out, which holds an enemy; a back-rank unit also looks at ring 2's 12 hexes and the
    hex straight ahead 3 out.  The same at 40 and at 1,600 units a side.  The scan finds
    the first hex that holds an enemy (one ``in`` test a hex); only that hex's group of
    equal key is read (one read: the hex straight ahead is a group of its own), so the
    hex that holds the target is looked up twice."""
    b = _lines(40)
    assert b.options.enfilade
    small, large = _aim_lookups(b), _aim_lookups(_lines(1600))
    assert set(small) == set(large) == {(6 + 1, 6 + 1 + 1), (6 + 12 + 1, 6 + 12 + 1 + 1)}
