"""Targeting from the spatial index picks the unit the per-shot search picked, on any layout.

``aim`` walks the hexes in reach in the order of the targeting key and reads
``state.foes``, the index apply keeps; the reference here is the search the
battle did before (``main`` at 3dfdd52, copied below as it was): the nearest
enemy by rings and a scan (``Battle.nearest_enemy``, unchanged), then the
most nearly ahead on its ring, then, for ``spare_routed``, a scan of every
enemy for the nearest not routed.  Layouts are random (Hypothesis), with 2–4
sides, every facing, every weapon's reach, every morale state, and units
moved and taken off the field by apply before the comparison.
"""

from __future__ import annotations

from typing import Any

import simpy
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.kernel import TurnKernel
from engine.rng import Streams
from sim.rulesets.musket.model.data import WEAPONS
from sim.rulesets.musket.model.events import LeftField, Moved
from sim.rulesets.musket.model.hexmap import cell, distance, ring_steps
from sim.rulesets.musket.model.state import BattleState, UnitState, initial_state
from sim.rulesets.musket.rules import targeting
from sim.rulesets.musket.rules.context import Battle, facing_cos
from sim.rulesets.musket.rules.targeting import aim, aim_at, walk
from sim.scenario.load import validate_data

RETREATS = ("north", "south", "east", "west")
MORALE = ("good", "disrupted", "spent", "routed")
GUNS = sorted(w for w, spec in WEAPONS.items() if spec["kind"] == "gun")
SMALL_ARMS = sorted(w for w, spec in WEAPONS.items() if spec["kind"] != "gun")
MAX_REACH = max(len(spec["values"]) for spec in WEAPONS.values())  # type: ignore[arg-type]


# --- the search targeting did per shot, as it was -----------------------------------


def _ahead_of(b: Battle, unit: UnitState, nearest: UnitState) -> UnitState:
    """Among the enemies as near as ``nearest``, the one most nearly ahead (ties: rank)."""
    assert unit.hex is not None and nearest.hex is not None
    d = distance(unit.hex, nearest.hex)
    col, row = unit.hex
    retreat = b.sides[unit.side].retreat
    best: tuple[float, int] | None = None
    found = nearest
    for dc, dr in ring_steps(bool(col & 1), d):
        h = (col + dc, row + dr)
        uid = b.state.occupant.get(h)
        if uid is None or b.state.units[uid].side == unit.side:
            continue
        key = (-round(facing_cos(unit.hex, retreat, h), 9), b.rank[uid])
        if best is None or key < best:
            best, found = key, b.state.units[uid]
    return found


def _nearest_unrouted(b: Battle, unit: UnitState, reach: int) -> UnitState | None:
    assert unit.hex is not None
    retreat = b.sides[unit.side].retreat
    best: tuple[int, float, int] | None = None
    found = None
    for e in b.enemies(unit):
        if e.morale == "routed" or e.hex is None:
            continue
        d = distance(unit.hex, e.hex)
        if d > reach:
            continue
        cos = round(facing_cos(unit.hex, retreat, e.hex), 9) if b.options.enfilade else 0.0
        key = (d, -cos, b.rank[e.id])
        if best is None or key < best:
            best, found = key, e
    return found


def searched(b: Battle, unit: UnitState, reach: int) -> UnitState | None:
    """``fire._target`` before the index, without the ordered target (which is unchanged)."""
    found = b.nearest_enemy(unit, within=reach)
    if found is not None and b.options.enfilade:
        found = _ahead_of(b, unit, found)
    if found is not None and b.options.spare_routed and found.morale == "routed":
        return _nearest_unrouted(b, unit, reach) or found
    return found


# --- layouts --------------------------------------------------------------------------


@st.composite
def layouts(draw: st.DrawFn) -> dict[str, Any]:
    """A scenario: 2–4 sides of 1–12 units on distinct hexes of a small window placed
    anywhere on a 1,000 x 1,000 map, with their morale, and the moves and departures
    to apply."""
    width, height = draw(st.integers(7, 16)), draw(st.integers(7, 16))  # >= 49 hexes
    origin = (draw(st.integers(0, 1000 - width)), draw(st.integers(0, 1000 - height)))
    window = [(origin[0] + c, origin[1] + r) for c in range(width) for r in range(height)]
    n_sides = draw(st.integers(2, 4))
    counts = [draw(st.integers(1, 12)) for _ in range(n_sides)]
    spots = draw(st.permutations(window))[: sum(counts)]
    sides, k = [], 0
    for s, count in enumerate(counts):
        units = []
        for i in range(count):
            gun = draw(st.booleans())
            units.append(
                {
                    "id": f"u{s}_{i}",
                    "name": f"U{s}.{i}",
                    "kind": "artillery" if gun else "infantry",
                    "strength": 6 if gun else 400,
                    "quality": "C",
                    "weapon": draw(st.sampled_from(GUNS if gun else SMALL_ARMS)),
                    "at": list(spots[k]),
                }
            )
            k += 1
        sides.append(
            {
                "id": f"s{s}",
                "name": f"S{s}",
                "retreat": draw(st.sampled_from(RETREATS)),
                "units": units,
            }
        )
    free = [h for h in window if h not in spots]
    ids = [u["id"] for s in sides for u in s["units"]]
    moves = draw(
        st.lists(st.tuples(st.sampled_from(ids), st.sampled_from(free or window)), max_size=4)
    )
    gone = draw(st.lists(st.sampled_from(ids), max_size=3, unique=True))
    morale = {uid: draw(st.sampled_from(MORALE)) for uid in ids}
    options = {"enfilade": draw(st.booleans()), "spare_routed": draw(st.booleans())}
    return {"sides": sides, "moves": moves, "gone": gone, "morale": morale, "options": options}


def _battle(layout: dict[str, Any]) -> Battle:
    data = {
        "ruleset": "musket",
        "name": "t",
        "map": {"width": 1000, "height": 1000},
        "turns": {"limit": 1},
        "options": layout["options"],
        "sides": layout["sides"],
    }
    _, sc = validate_data(data, {}, "t.yaml")
    state = initial_state(sc)
    for uid, to in layout["moves"]:  # through apply, as a battle moves them
        unit = state.units[uid]
        if unit.hex is not None and (to not in state.occupant):
            state.apply(
                Moved(turn=1, time=0.0, unit=uid, reason="order", path=[to], start=unit.hex)
            )
    for uid in layout["gone"]:
        unit = state.units[uid]
        assert unit.hex is not None
        state.apply(LeftField(turn=1, time=0.0, unit=uid, at=unit.hex))
    for uid, morale in layout["morale"].items():
        if state.units[uid].active:
            state.units[uid].morale = morale
    return Battle(sc, state, Streams(1), TurnKernel(simpy.Environment(), ("x",), 20))


def _derived(state: BattleState) -> dict[str, dict[int, str]]:
    """``foes`` as it must be: per side, every other side's units on the map by cell."""
    return {
        side: {
            cell(u.hex): u.id for u in state.units.values() if u.hex is not None and u.side != side
        }
        for side in state.sides
    }


def _aimed(b: Battle, unit: UnitState, reach: int) -> UnitState | None:
    """``aim``'s answer, checked against ``aim_at``'s: the same unit, with its distance."""
    target, found = aim(b, unit, reach), aim_at(b, unit, reach)
    if found is None:
        assert target is None
    else:
        assert unit.hex is not None and found[0].hex is not None
        assert found == (target, distance(unit.hex, found[0].hex))
    return target


def _ids(foes: dict[str, dict[int, UnitState]]) -> dict[str, dict[int, str]]:
    return {side: {k: u.id for k, u in by.items()} for side, by in foes.items()}


@settings(max_examples=150, deadline=None)
@given(layouts())
def test_the_index_picks_what_the_search_picked(layout: dict[str, Any]) -> None:
    """For every unit on the map and every reach up to the longest weapon's, ``aim``
    returns the very unit the per-shot search returned (or None with it), and ``aim_at``
    the same with its distance in hexes."""
    b = _battle(layout)
    assert _ids(b.state.foes) == _derived(b.state)
    for unit in b.state.units.values():
        if unit.hex is None:
            continue
        for reach in range(0, MAX_REACH + 1):
            assert _aimed(b, unit, reach) is searched(b, unit, reach), (unit.id, reach)


@settings(max_examples=60, deadline=None)
@given(layouts())
def test_the_index_is_derived_kept_by_apply_and_rebuilt_on_restore(layout: dict[str, Any]) -> None:
    """``foes`` follows the units' hexes through apply's moves and departures, is rebuilt
    from the units by restore (pointing at the restored units), and is nowhere in the
    snapshot or its digest text."""
    b = _battle(layout)
    state = b.state
    assert _ids(state.foes) == _derived(state)
    snapshot = state.snapshot()
    assert "foes" not in snapshot and "occupant" not in snapshot
    again = BattleState.restore(snapshot, initial_state(b.scenario))
    assert _ids(again.foes) == _derived(again)
    assert all(u is again.units[u.id] for by in again.foes.values() for u in by.values())
    assert again == state


def test_the_order_of_the_walk_holds_anywhere_on_the_largest_map() -> None:
    """Each fixed group's hexes round to one cosine at 9 places from anywhere on a
    1,000 x 1,000 map (every 7th row and the last, in its first, middle and last columns,
    both parities), and the groups run from the largest cosine down within each ring:
    the fixed order is the order the search computed from absolute positions."""
    for facing in RETREATS:
        for odd in (False, True):
            groups = walk(odd, facing, MAX_REACH)
            assert not any(g.live for g in groups)  # every ring's cosines are safe today
            columns = (1, 499, 999) if odd else (0, 500, 998)
            for col in columns:
                for row in (*range(0, 1000, 7), 999):
                    last: tuple[int, float] | None = None
                    for g in groups:
                        keys = {
                            round(facing_cos((col, row), facing, (col + dc, row + dr)), 9)
                            for dc, dr in g.offsets
                        }
                        assert len(keys) == 1, (facing, col, row, g.offsets)
                        d = distance((col, row), (col + g.offsets[0][0], row + g.offsets[0][1]))
                        now = (d, -keys.pop())
                        assert last is None or last < now
                        last = now


def test_a_ring_near_a_rounding_boundary_is_ordered_per_shot() -> None:
    """The guard: the first ring with a cosine within SAFE_MARGIN of a rounding boundary
    at 9 places is 17 hexes out (for every facing; the longest weapon reaches 10), and
    it is one live group of all its 6 x 17 hexes, decided per shot; the rings inside stay
    fixed."""
    for facing in RETREATS:
        for odd in (False, True):
            groups = walk(odd, facing, 17)
            live = [g for g in groups if g.live]
            assert [len(g.offsets) for g in live] == [6 * 17]
            assert groups[-1].live and not any(g.live for g in walk(odd, facing, 16))


@settings(max_examples=60, deadline=None)
@given(layouts())
def test_rings_ordered_per_shot_pick_what_the_search_picked(layout: dict[str, Any]) -> None:
    """With every ring live (SAFE_MARGIN above any distance to a boundary), the per-shot
    order picks the same units as the fixed one and the search."""
    b = _battle(layout)
    setattr(targeting, "SAFE_MARGIN", 1.0)  # noqa: B010  # a Final, set for this test only
    targeting.walk.cache_clear()
    try:
        for unit in b.state.units.values():
            if unit.hex is None:
                continue
            for reach in range(0, MAX_REACH + 1):
                assert _aimed(b, unit, reach) is searched(b, unit, reach), (unit.id, reach)
    finally:
        setattr(targeting, "SAFE_MARGIN", 1e-12)  # noqa: B010
        targeting.walk.cache_clear()


def test_without_facing_the_walk_is_one_group_per_ring() -> None:
    """Without option enfilade every ring is one group of its 6 r hexes (ties: rank), to
    each weapon's reach."""
    for spec in WEAPONS.values():
        values: tuple[int, ...] = spec["values"]  # type: ignore[assignment]
        reach = max(i + 1 for i, v in enumerate(values) if v > 0)
        for odd in (False, True):
            groups = walk(odd, None, reach)
            assert [len(g.cells) for g in groups] == [6 * r for r in range(1, reach + 1)]
            assert not any(g.live for g in groups)
