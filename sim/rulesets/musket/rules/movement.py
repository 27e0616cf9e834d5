"""Movement: orders carried out hex by hex, and routs (rules-notes §1, [ours]).

A unit spends movement points (``infantry_move``, ``cavalry_move``,
``artillery_move``; +``column_move_bonus`` in column) entering hexes
(woods cost 2).  Each step goes to the free neighbouring hex that most
reduces the distance to the goal (ties: the fixed neighbour order N, NE,
SE, S, SW, NW).  With ``zone_of_control`` a unit stops when it comes next
to an enemy; one that starts next to an enemy only moves on a retire order
(with ``cavalry_ride_past``, cavalry is not held by every enemy:
:meth:`~sim.rulesets.musket.rules.context.Battle.held`).
Disrupted units hold, except that a disrupted attacker falls back (option
``disrupted_attackers_fall_back``).  Routed units run their full allowance toward their
army's retreat edge and leave the field when they step off it.  An attacking
unit that has broken off (option ``break_off_loss``) falls back toward that
edge as on a retire order, and stays at the edge.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable
from typing import Any, Literal, TypeVar

from engine.events import Event, trusted
from sim.contract.emit import stamp
from sim.rulesets.musket.model.events import LeftField, Moved
from sim.rulesets.musket.model.hexmap import distance, ring_steps
from sim.rulesets.musket.model.state import UnitState
from sim.rulesets.musket.rules.context import Battle, Hex

__all__ = ["allowance", "decide_move"]

E = TypeVar("E", bound=Event)


def allowance(b: Battle, unit: UnitState) -> int:
    """Movement points of the unit this turn."""
    o = b.options
    mp = {"infantry": o.infantry_move, "cavalry": o.cavalry_move, "artillery": o.artillery_move}[
        unit.kind
    ]
    return mp + (o.column_move_bonus if unit.formation == "column" else 0)


def _goal(b: Battle, unit: UnitState) -> tuple[Hex, int] | None:
    """Hex to head for and the distance from it at which to stop."""
    order = b.orders[unit.id]
    if order.kind in ("advance", "retire") and order.to is not None:
        return (order.to[0], order.to[1]), 0
    if order.kind in ("engage", "charge"):
        target = b.charge_target(unit)
        if target is None or target.hex is None:
            return None
        return target.hex, (1 if order.kind == "charge" else b.options.engage_range)
    return None


def _step(b: Battle, here: Hex, mp: int, far: Callable[[Hex], int]) -> Hex | None:
    """The hex to step into from ``here``: a neighbour on the map, empty, that ``mp`` can
    pay for and that is nearer by ``far`` (to a goal, to an edge); the nearest, the
    first in neighbour order on a tie; None when no neighbour is nearer."""
    best = far(here)
    step: Hex | None = None
    occupant = b.state.occupant
    for h, cost in b.steps(here):  # the neighbours on the map, in neighbour order
        if cost > mp or h in occupant:
            continue
        near = far(h)
        if near < best:  # strictly: the first in neighbour order keeps a tie
            best, step = near, h
    return step


def _step_toward(b: Battle, here: Hex, mp: int, goal: Hex) -> Hex | None:
    """:func:`_step` nearer by :func:`~sim.rulesets.musket.model.hexmap.distance` to ``goal``,
    written out (the goal's part of the distance worked out once): a walk's every step."""
    gc, gr = goal
    gz = gr - (gc - (gc & 1)) // 2
    c, r = here
    dx, dz = c - gc, r - (c - (c & 1)) // 2 - gz
    best = max(abs(dx), abs(dz), abs(dx + dz))  # distance(here, goal)
    step: Hex | None = None
    occupant = b.state.occupant
    for h, cost in b.steps(here):  # the neighbours on the map, in neighbour order
        if cost > mp or h in occupant:
            continue
        c, r = h
        dx, dz = c - gc, r - (c - (c & 1)) // 2 - gz
        near = max(abs(dx), abs(dz), abs(dx + dz))  # distance(h, goal)
        if near < best:  # strictly: the first in neighbour order keeps a tie
            best, step = near, h
    return step


def _walk(
    b: Battle, unit: UnitState, goal: Hex, stop_at: int, mp: int, retire: bool = False
) -> list[Hex]:
    assert unit.hex is not None
    here, path = unit.hex, []
    zoc = b.options.zone_of_control
    ride = b.options.cavalry_ride_past is not None and unit.kind == "cavalry"
    held = b.held if ride else b.adjacent_enemy  # who holds the unit by the zone of control
    if zoc and not retire and held(unit):
        return []
    while mp > 0 and distance(here, goal) > stop_at:
        step = _step_toward(b, here, mp, goal)
        if step is None:
            break
        mp -= b.move_cost(step)
        path.append(step)
        here = step
        if zoc and not retire and held(unit, at=here):
            break
    return path


def _enemy_within(b: Battle, unit: UnitState, h: Hex, within: int) -> bool:
    """True when an enemy of ``unit`` stands within ``within`` hexes of ``h`` (by rings)."""
    occupant, units = b.state.occupant, b.state.units
    odd = bool(h[0] & 1)
    for radius in range(1, within + 1):
        for dc, dr in ring_steps(odd, radius):
            uid = occupant.get((h[0] + dc, h[1] + dr))
            if uid is not None and units[uid].side != unit.side:
                return True
    return False


Reach = tuple[dict[Hex, int], dict[Hex, Hex | None]]
"""What a unit can reach this turn: the cheapest cost of each hex, and the hex it is
entered from on the cheapest path (None: the start), both in the order first found."""


def _reachable(
    b: Battle, unit: UnitState, mp: int, until: Callable[[Hex], bool] | None = None
) -> Reach:
    """Every hex the unit can reach this turn, through hexes of its own side and around
    them (never an enemy's), with the cheapest cost and path [ours, ``pass_through_friends``].

    Cheapest first; among equal costs, the first found in the fixed neighbour order,
    so the paths are the same in every process.  A hex's path is its predecessor's
    with the hex added: the predecessor's cost is final when it is expanded (every
    step costs at least 1), so its path is too (:func:`_path`).

    With ``until``, the search stops at the first hex taken from the frontier for
    which it is true, at cost *c*: every hex whose cost is at most *c* has then been
    found, at its final cost and path, and in the order the whole search finds it
    (the found hexes are the first ones of the whole search's order); a hex found
    later, or still to be lowered, costs more than *c*.
    """
    assert unit.hex is not None
    start = unit.hex
    cost_of: dict[Hex, int] = {start: 0}
    came_from: dict[Hex, Hex | None] = {start: None}
    frontier: list[tuple[int, int, Hex]] = [(0, 0, start)]
    order = 0
    units, occupant, side, steps = b.state.units, b.state.occupant, unit.side, b.steps
    while frontier:
        cost, _, here = heapq.heappop(frontier)
        if cost_of[here] < cost:
            continue
        if until is not None and until(here):
            break
        for h, move_cost in steps(here):
            uid = occupant.get(h)
            if uid is not None and units[uid].side != side:
                continue
            step = cost + move_cost
            if step > mp:
                continue
            known = cost_of.get(h)
            if known is not None and known <= step:
                continue
            cost_of[h] = step
            came_from[h] = here
            order += 1
            heapq.heappush(frontier, (step, order, h))
    return cost_of, came_from


def _path(reach: Reach, h: Hex) -> list[Hex]:
    """The cheapest path to ``h`` from the start (the start not included)."""
    came_from = reach[1]
    path: list[Hex] = []
    at: Hex | None = h
    while at is not None and came_from[at] is not None:
        path.append(at)
        at = came_from[at]
    path.reverse()
    return path


def _free(b: Battle, unit: UnitState, h: Hex) -> bool:
    occupant = b.state.occupant.get(h)
    return occupant is None or occupant == unit.id


def _rout_through(b: Battle, unit: UnitState) -> tuple[list[Hex], bool]:
    """A routed unit's way out through or around its own side: the free hex it can reach
    nearest its retreat edge (then the cheapest), and whether it leaves the field there
    (it reaches the edge with points to spare) [ours, ``pass_through_friends``].

    Kept in ``b.routs`` (when ``b.keep_routs``) while the state's ``placements`` stands:
    a routed unit boxed in by its own side searches once, not every turn."""
    assert unit.hex is not None
    mp = allowance(b, unit)
    if not b.keep_routs:
        return _rout_search(b, unit, mp)
    key = (unit.id, unit.hex, unit.side, mp)
    placements = b.state.placements
    hit = b.routs.get(key)
    if hit is not None and hit[0] == placements:
        return list(hit[1]), hit[2]
    path, leaves = _rout_search(b, unit, mp)
    b.routs[key] = (placements, tuple(path), leaves)
    return path, leaves


def _rout_search(b: Battle, unit: UnitState, mp: int) -> tuple[list[Hex], bool]:
    """:func:`_rout_through`'s search."""
    assert unit.hex is not None
    edge = b.sides[unit.side].retreat
    reach = _reachable(b, unit, mp)
    key, chosen = None, unit.hex
    for h, cost in reach[0].items():
        if not _free(b, unit, h):
            continue
        k = (b.edge_distance(h, edge), cost)
        if key is None or k < key:
            key, chosen = k, h
    return _path(reach, chosen), b.edge_distance(chosen, edge) == 0 and reach[0][chosen] < mp


def _get_out(b: Battle, unit: UnitState, clear: int) -> list[Hex]:
    """A disrupted or spent attacker's way out of the enemy's reach, through or around its
    own side: the cheapest free hex it can reach with no enemy within ``clear`` hexes
    (then the nearest its edge); none such, the free hex nearest its edge
    [ours, ``pass_through_friends``].

    The search stops at the first such hex (:func:`_reachable`'s ``until``): the
    hexes it has found then hold every one that costs as little, so the choice
    below is the one the whole search would give."""
    assert unit.hex is not None
    edge = b.sides[unit.side].retreat
    reach = _reachable(
        b, unit, allowance(b, unit),
        until=lambda h: _free(b, unit, h) and not _enemy_within(b, unit, h, clear),
    )  # fmt: skip
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


def _rout(b: Battle, unit: UnitState) -> list[Moved | LeftField]:
    """Run toward the retreat edge; step off it to leave the field."""
    assert unit.hex is not None
    if b.options.pass_through_friends:
        path, leaves = _rout_through(b, unit)
    else:
        path, leaves = _rout_to_edge(b, unit)
    cause = unit.morale_cause  # the check or melee that routed it
    # built trusted (every value of its field's exact type: check_line in the tests), but
    # validated where the cause is not a seq: a fork made before ``fork`` checked a null
    # field's declared type may have set it to anything (``2.0`` is written ``2``, as then)
    build: Callable[..., Any] = trusted if cause is None or type(cause) is int else _validated
    out: list[Moved | LeftField] = []
    if path:
        out.append(build(Moved, {**stamp(b, cause), "unit": unit.id, "reason": "rout",
                                 "path": path, "start": unit.hex}))  # fmt: skip
    if leaves:
        at = path[-1] if path else unit.hex
        out.append(build(LeftField, {**stamp(b, cause), "unit": unit.id, "at": at}))
    return out


def _validated(cls: type[E], fields: dict[str, Any]) -> E:
    """``cls(**fields)``, validated: :func:`_rout`'s events when ``trusted`` may not build them."""
    return cls(**fields)


def _rout_to_edge(b: Battle, unit: UnitState) -> tuple[list[Hex], bool]:
    """A routed unit's steps straight toward its retreat edge, each nearer it, and whether
    it reaches the edge with movement to spare (then it leaves the field)."""
    assert unit.hex is not None
    edge = b.sides[unit.side].retreat
    here, mp = unit.hex, allowance(b, unit)
    path: list[Hex] = []
    while mp > 0:
        if b.edge_distance(here, edge) == 0:
            return path, True
        step = _step(b, here, mp, lambda h: b.edge_distance(h, edge))
        if step is None:
            break
        mp -= b.move_cost(step)
        path.append(step)
        here = step
    return path, False


def _near(b: Battle, unit: UnitState, h: Hex, within: int) -> bool:
    """True when an enemy stands within ``within`` hexes of ``h``."""
    return any(e.hex is not None and distance(h, e.hex) <= within for e in b.enemies(unit))


def _fall_back(b: Battle, unit: UnitState, clear: int = 1) -> list[Hex]:
    """A disrupted (or spent) attacker's path back toward its edge, until no enemy is
    within ``clear`` hexes (1 for a disrupted unit, ``assault_exhaustion`` for a spent
    one); through and around its own side with ``pass_through_friends``."""
    assert unit.hex is not None
    if not _near(b, unit, unit.hex, clear):
        return []
    if b.options.pass_through_friends:
        return _get_out(b, unit, clear)
    back = b.edge_hex(unit.hex, b.sides[unit.side].retreat)
    path = _walk(b, unit, back, 0, allowance(b, unit), retire=True)
    for k, h in enumerate(path):
        if not _near(b, unit, h, clear):
            return path[: k + 1]
    return path


FALL_BACK_CLEAR = 1
"""A disrupted attacker falls back until no enemy is within this many hexes [ours]."""


def decide_move(b: Battle, unit: UnitState) -> list[Moved | LeftField]:
    """The unit's movement this turn, in the order to apply: a move or rout, perhaps
    leaving the field, or nothing."""
    if not unit.active or unit.hex is None:
        return []
    reason: Literal["order", "break_off", "fall_back", "withdraw"]
    if unit.morale == "disrupted":
        if not (b.options.disrupted_attackers_fall_back and b.attacking(unit)):
            return []
        path, reason = _fall_back(b, unit, FALL_BACK_CLEAR), "fall_back"
    elif unit.morale == "spent":
        clear = b.options.assault_exhaustion
        if clear is None or not b.attacking(unit):
            return []
        path, reason = _fall_back(b, unit, clear), "withdraw"
    elif unit.morale == "routed":
        return _rout(b, unit)
    elif b.broken_off(unit):
        back = b.edge_hex(unit.hex, b.sides[unit.side].retreat)
        path = _walk(b, unit, back, 0, allowance(b, unit), retire=True)
        reason = "break_off"
    else:
        goal = _goal(b, unit)
        if goal is None:
            return []
        retire = b.orders[unit.id].kind == "retire"
        path = _walk(b, unit, goal[0], goal[1], allowance(b, unit), retire)
        reason = "order"
    if not path:
        return []
    fields = {**stamp(b), "unit": unit.id, "reason": reason, "path": path, "start": unit.hex}
    return [trusted(Moved, fields)]  # every value of its field's exact type (check_line)
