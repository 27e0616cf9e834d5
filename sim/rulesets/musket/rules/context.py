"""The read-only view of a battle that the ``musket`` rules decide from."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, NoReturn, TypeVar, cast

from pydantic import BaseModel

from engine.rng import Stream
from sim.contract.options import int_option
from sim.rulesets.musket.model.data import QUALITY_MORALE, TERRAIN
from sim.rulesets.musket.model.hexmap import distance, neighbours, ring_steps
from sim.rulesets.musket.model.options import MusketOptions
from sim.rulesets.musket.model.scenario import MusketScenario, Order, SideSpec
from sim.rulesets.musket.model.state import BattleState, UnitState
from sim.runner import BattleView

__all__ = ["Battle", "Hex", "plain"]

Hex = tuple[int, int]
M = TypeVar("M", bound=BaseModel)
Key = tuple[str, int | None]
"""A kept search's key: the unit's id and the range searched (None: any)."""
_ATTACKS = ("charge", "engage")
_ATTACKS_SET = frozenset(_ATTACKS)
LINEAR_COVER = ("stone_wall", "breastworks", "fence")
"""Cover that faces one way: with option ``enfilade`` it covers only against the front."""
_FACING = {"north": (0.0, 1.0), "south": (0.0, -1.0), "east": (-1.0, 0.0), "west": (1.0, 0.0)}
"""A side's facing, away from its retreat edge, as a unit vector (x east, y south) [ours]."""
_ROOT3 = math.sqrt(3.0)
_FRONT_COS = 0.5 - 1e-9
"""Within 60° of the facing: the front arc (three hexsides at one hex)."""
_REAR_COS = -0.5 * _ROOT3 + 1e-9
"""Beyond 150° of the facing: the rear arc; between, the flank."""


def _centre(h: Hex) -> tuple[float, float]:
    """A hex's centre in hex widths: flat-topped hexes in "odd-q" columns."""
    return 1.5 * h[0], _ROOT3 * (h[1] + 0.5 * (h[0] & 1))


def facing_cos(at: Hex, retreat: str, source: Hex) -> float:
    """The cosine of the angle between the facing of a unit at ``at`` (away from its
    ``retreat`` edge) and the direction to ``source``: 1 straight ahead, −1 behind."""
    (x0, y0), (x1, y1) = _centre(at), _centre(source)
    dx, dy = x1 - x0, y1 - y0
    norm = math.hypot(dx, dy)
    if norm == 0:
        return 1.0
    fx, fy = _FACING[retreat]
    return (dx * fx + dy * fy) / norm


def arc_of(at: Hex, facing: str, source: Hex) -> str:
    """``front``, ``flank`` or ``rear``: where ``source`` lies for a unit at ``at`` facing
    away from its ``facing`` retreat edge [ours, option ``enfilade``]."""
    cos = facing_cos(at, facing, source)
    if cos >= _FRONT_COS:
        return "front"
    return "rear" if cos <= _REAR_COS else "flank"


class _ReadOnly:
    """Base of :func:`plain`'s classes: refuses every assignment."""

    __slots__ = ()

    def __setattr__(self, name: str, value: Any) -> NoReturn:
        raise AttributeError(f"{type(self).__name__} is read-only ({name})")


_PLAIN: dict[type[BaseModel], type[_ReadOnly]] = {}
"""The slotted class of each model class :func:`plain` has copied."""


def plain(model: M) -> M:
    """A read-only copy of a frozen model's fields as plain slotted attributes (nothing
    else: no model methods), for what the rules read at every step: the options, orders
    and sides.  A pydantic model's reads pass through its ``__getattr__`` hook, several
    times a slot's cost; the rules read an option about twenty times a resolution."""
    cls = type(model)
    kind = _PLAIN.get(cls)
    if kind is None:
        slots = tuple(cls.model_fields)
        kind = _PLAIN[cls] = type(f"Plain{cls.__name__}", (_ReadOnly,), {"__slots__": slots})
    copy = object.__new__(kind)
    fields = model.__dict__
    for name in cls.model_fields:
        object.__setattr__(copy, name, fields[name])
    return cast(M, copy)


@dataclass(frozen=True)
class _Ground:
    """What a battle reads of its scenario alone, worked out once for every battle of one
    scenario object (a study's point, a history case): the terrain, sides, orders and
    options as :func:`plain` copies, and the kept neighbours, arcs and covers of
    :meth:`Battle.steps`, :meth:`Battle.adjacent_enemy`, :meth:`Battle.arc` and
    :meth:`Battle.cover_against`, each a function of the scenario and its key alone (a
    scenario is frozen; no event changes the map, a side's retreat edge or an order),
    filled in as the battles ask.  A scenario must therefore not be changed after its
    first battle, not even a list inside it (nothing in battlesim does: a fork, a
    campaign's next battle and a study's point are new scenario objects).  The arcs and
    covers, kept by pairs of hexes, are emptied once they hold :data:`_PAIRS_KEPT`
    (a large map's long study would otherwise keep every pair its battles met)."""

    terrain: dict[Hex, str]
    cover_override: dict[Hex, int]
    sides: dict[str, SideSpec]
    orders: dict[str, Order]
    later: dict[str, tuple[tuple[int, Order], ...]]
    """The later orders (``UnitSpec.later_orders``, ours) of each unit that has them, by
    id: (turn, order) in rising turn order, the orders as :func:`plain` copies."""
    width: int
    height: int
    options: MusketOptions
    steps: dict[Hex, tuple[tuple[Hex, int], ...]]
    around: dict[Hex, tuple[Hex, ...]]
    arcs: dict[tuple[Hex, str, Hex], str]
    covers: dict[tuple[Hex | None, str, Hex | None], tuple[str, int, str]]


_GROUNDS: dict[int, tuple[MusketScenario, _Ground]] = {}
"""Each recent scenario's ground, by the scenario object's id (the scenario kept with it, so
the id stays its own)."""

_PAIRS_KEPT = 65_536
"""Arcs (covers) a ground keeps at most: a full set is emptied and filled again."""

_GROUNDS_KEPT = 16
"""Scenarios whose ground is kept at once: more, and every one is dropped (a study's worker
fights one point at a time; a campaign makes a scenario for each battle)."""


def terrain_cover(options: MusketOptions, name: str) -> int:
    """The cover (percent) of terrain ``name`` that the options give it: ``cover_<name>``
    (ours; the table's value, rules-notes §1, by default); 0 for clear ground."""
    return 0 if name == "clear" else int_option(options, f"cover_{name}")


def _ground(scenario: MusketScenario) -> _Ground:
    """The scenario's :class:`_Ground`, made the first time a battle of it is fought."""
    kept = _GROUNDS.get(id(scenario))
    if kept is not None and kept[0] is scenario:
        return kept[1]
    terrain: dict[Hex, str] = {
        (h[0], h[1]): p.terrain for p in scenario.map.terrain for h in p.hexes
    }
    # A later patch wins for a hex's terrain and for its cover alike.
    covers = {(h[0], h[1]): p.cover for p in scenario.map.terrain for h in p.hexes}
    # a terrain's cover as its option (cover_<terrain>, ours) has it, where that is not
    # the table's (every option at its default: the table alone, as before the options)
    options = scenario.options
    for h, name in terrain.items():
        if covers[h] is None and name != "clear":
            covers[h] = terrain_cover(options, name)
    ground = _Ground(
        terrain=terrain,
        cover_override={
            h: c for h, c in covers.items() if c is not None and c != TERRAIN[terrain[h]]["cover"]
        },
        sides={s.id: plain(s) for s in scenario.sides},
        orders={u.id: plain(u.order) for s in scenario.sides for u in s.units},
        later={
            u.id: tuple((o.turn, plain(o)) for o in u.later_orders)
            for s in scenario.sides
            for u in s.units
            if u.later_orders
        },
        width=scenario.map.width,
        height=scenario.map.height,
        options=plain(scenario.options),
        steps={},
        around={},
        arcs={},
        covers={},
    )
    if len(_GROUNDS) >= _GROUNDS_KEPT:
        _GROUNDS.clear()
    _GROUNDS[id(scenario)] = (scenario, ground)
    return ground


class TurnOrders(Mapping[str, Order]):
    """Each unit's order in the kernel's current turn, for a scenario with later orders
    (``UnitSpec.later_orders``, ours): the orders of every unit without them, and for each
    unit with them the latest whose turn has come (else its ``order``), as
    :func:`~sim.rulesets.musket.model.scenario.order_at` gives, worked out again when the
    turn changes.  A function of the scenario and the turn alone: no event changes it, and a
    battle restored or forked at any event reads the orders of its own turn."""

    def __init__(
        self,
        base: dict[str, Order],
        later: dict[str, tuple[tuple[int, Order], ...]],
        kernel: Any,
    ) -> None:
        self._base, self._later, self._kernel = base, later, kernel
        self._turn = -1
        self._now: dict[str, Order] = base

    def __getitem__(self, uid: str) -> Order:
        if self._kernel.turn != self._turn:
            turn = self._turn = self._kernel.turn
            now = dict(self._base)
            for u, orders in self._later.items():
                for at, order in orders:
                    if at > turn:
                        break
                    now[u] = order
            self._now = now
        return self._now[uid]

    def kinds_after(self, uid: str, turn: int) -> frozenset[str]:
        """The kinds of the unit's later orders that take over after ``turn``."""
        return frozenset(order.kind for at, order in self._later.get(uid, ()) if at > turn)

    def kinds(self, uid: str) -> frozenset[str]:
        """Every order kind the unit has in the battle: its ``order``'s and its later ones'."""
        return frozenset(
            (self._base[uid].kind, *(order.kind for _, order in self._later.get(uid, ())))
        )

    def __iter__(self) -> Iterator[str]:
        return iter(self._base)

    def __len__(self) -> int:
        return len(self._base)


@dataclass
class Battle(BattleView[MusketScenario, BattleState]):
    """Scenario, options, current state, random streams and clock.

    Rules read it and return events; only the recorder's apply changes
    ``state``.
    """

    terrain: dict[Hex, str] = field(init=False)
    cover_override: dict[Hex, int] = field(init=False)
    rank: dict[str, int] = field(init=False)
    sides: dict[str, SideSpec] = field(init=False)
    orders: Mapping[str, Order] = field(init=False)
    """Each unit's order this turn: the scenario's ``order``, or with later orders (ours)
    the one that holds in the kernel's turn (:class:`TurnOrders`)."""
    _width: int = field(init=False)
    _height: int = field(init=False)
    _span: int = field(init=False)
    _nearest: dict[Key, tuple[int, UnitState | None]] = field(init=False)
    _steps: dict[Hex, tuple[tuple[Hex, int], ...]] = field(init=False)
    _around: dict[Hex, tuple[Hex, ...]] = field(init=False)
    _arcs: dict[tuple[Hex, str, Hex], str] = field(init=False)
    _covers: dict[tuple[Hex | None, str, Hex | None], tuple[str, int, str]] = field(init=False)
    routs: dict[tuple[str, Hex, str, int], tuple[int, tuple[Hex, ...], bool]] = field(
        default_factory=dict
    )
    """A routed unit's way out (``movement._rout_through``) by (unit, hex, side, movement
    points), with the state's ``placements`` it was found at: what it depends on besides
    changes only when a unit is placed.  Kept only while ``keep_routs`` is on."""
    keep_routs: bool = False
    """Keep ``routs``: set by the battle's processes when the battle is not forked (an
    override, which a fork may make at any event, changes fields without placing)."""
    options: MusketOptions = field(init=False)
    """The ruleset options of this scenario: its every field, read-only, as a plain object
    (:func:`plain`: rules read them at every step, and a scenario is frozen)."""
    fire_losses: dict[str, tuple[int, int]] = field(default_factory=dict)
    """Unit id → (the last turn it was fired on, men it lost to fire that turn), kept as
    the battle is fought (``battle.py``): the closing test reads this turn's losses
    (option ``closing_loss_step``), and a spent unit rallies only in a turn it was not
    fired on (``assault_exhaustion``). Replay never needs it: the test records its
    modifiers, and the rally its result."""
    last_blow: dict[str, int] = field(default_factory=dict)
    """Seq of the latest blow each army took (``victory.blows``), kept as the
    battle is fought: it becomes the cause of the army's break.  Replay never
    needs it, since the break records its cause."""

    def __post_init__(self) -> None:
        ground = _ground(self.scenario)
        self.terrain, self.cover_override = ground.terrain, ground.cover_override
        self.sides, self.orders = ground.sides, ground.orders
        if ground.later:
            self.orders = TurnOrders(ground.orders, ground.later, self.kernel)
        self._width, self._height = ground.width, ground.height
        self._span = self._width + self._height  # > any distance
        self._steps, self._arcs, self._covers = ground.steps, ground.arcs, ground.covers
        self._around = ground.around
        self.rank = {uid: i for i, uid in enumerate(self.state.units)}
        self._nearest = {}
        self.options = ground.options

    def order_kinds(self, uid: str) -> frozenset[str]:
        """Every order kind the unit has in the battle: its one order's, or with later orders
        (ours) each of theirs too."""
        orders = self.orders
        if isinstance(orders, TurnOrders):
            return orders.kinds(uid)
        return frozenset((orders[uid].kind,))

    def stream(self, purpose: str, *key: str) -> Stream:
        """The stream for ``purpose`` this turn: name ``<turn>/<purpose>/<key...>``.

        The name is built here in one piece and given to the factory as it is
        (:meth:`~engine.rng.Streams.named`): the same stream as the key
        ``(turn, purpose, *key)``, for a third of the joining.
        """
        return self.streams.named("/".join((str(self.kernel.turn), purpose, *key)))

    def on_map(self, h: Hex) -> bool:
        """True when ``h`` lies on the map."""
        return 0 <= h[0] < self._width and 0 <= h[1] < self._height

    def cover(self, h: Hex | None) -> tuple[str, int]:
        """Terrain name and its cover modifier (percent) at ``h``: the patch's own
        ``cover`` when the scenario sets one, else the terrain table's."""
        if h is None:
            return "clear", 0
        name = self.terrain.get(h, "clear")
        return name, self.cover_override.get(h, TERRAIN[name]["cover"])

    def arc(self, unit: UnitState, source: Hex | None) -> str:
        """Where ``source`` lies for ``unit``: ``front``, ``flank`` or ``rear``; always
        ``front`` without option ``enfilade`` (units then have no facing)."""
        if not self.options.enfilade or unit.hex is None or source is None:
            return "front"
        # arc_of is a function of the two hexes and the side's retreat edge alone, which
        # no event changes: kept by (hex, side, source), as lines hold their ground
        key = (unit.hex, unit.side, source)
        found = self._arcs.get(key)
        if found is None:
            if len(self._arcs) >= _PAIRS_KEPT:
                self._arcs.clear()
            found = self._arcs[key] = arc_of(unit.hex, self.sides[unit.side].retreat, source)
        return found

    def cover_against(self, unit: UnitState, source: Hex | None) -> tuple[str, int, str]:
        """The unit's terrain, its cover against fire or a charge from ``source``, and the
        arc it comes from: a wall, breastworks or fence covers only the front
        (option ``enfilade``)."""
        # a function of the unit's hex and side and of the source alone (terrain, options
        # and a side's retreat edge are the scenario's): kept, as lines hold their ground
        key = (unit.hex, unit.side, source)
        found = self._covers.get(key)
        if found is None:
            name, cover = self.cover(unit.hex)
            arc = self.arc(unit, source)
            if arc != "front" and name in LINEAR_COVER:
                cover = 0
            if len(self._covers) >= _PAIRS_KEPT:
                self._covers.clear()
            found = self._covers[key] = (name, cover, arc)
        return found

    def fire_loss(self, unit: UnitState) -> int:
        """The men (guns) the unit has lost to fire this turn; 0 in a turn it lost none."""
        turn, lost = self.fire_losses.get(unit.id, (0, 0))
        return lost if turn == self.turn and lost > 0 else 0

    def fire_share(self, unit: UnitState) -> float:
        """The share of its strength at the start of this turn the unit has lost to fire
        this turn: what the enemy's fire has just done to it."""
        lost = self.fire_loss(unit)
        return lost / (unit.strength + lost) if lost else 0.0

    def fired_on(self, unit: UnitState) -> bool:
        """True when the unit has been fired on this turn (with or without losses)."""
        return self.fire_losses.get(unit.id, (0, 0))[0] == self.turn

    def loss_share(self, unit: UnitState) -> float:
        """The share of its starting strength (men or guns) the unit has lost."""
        if unit.initial <= 0:
            return 0.0
        return (unit.initial - unit.strength) / unit.initial

    def move_cost(self, h: Hex) -> int:
        """Movement points to enter ``h``."""
        return TERRAIN[self.terrain.get(h, "clear")]["move_cost"]

    def steps(self, h: Hex) -> tuple[tuple[Hex, int], ...]:
        """The neighbours of ``h`` on the map, in the fixed neighbour order, each with the
        movement points to enter it: the map's and the terrain's, which no event changes,
        so worked out once a hex and kept."""
        found = self._steps.get(h)
        if found is None:
            found = tuple((n, self.move_cost(n)) for n in neighbours(h) if self.on_map(n))
            self._steps[h] = found
        return found

    def enemies(self, unit: UnitState) -> list[UnitState]:
        """Active enemy units on the map, in scenario order."""
        return [
            u
            for u in self.state.units.values()
            if u.side != unit.side and u.active and u.hex is not None
        ]

    def nearest_enemy(self, unit: UnitState, within: int | None = None) -> UnitState | None:
        """The closest enemy (ties: scenario order), optionally within a range.

        Rings of hexes around the unit are searched outward while a ring's
        area stays below the number of units, then the remaining enemies are
        scanned: the cost depends on the distance to the nearest enemy, not on
        the size of the armies.  The answer is cached per (unit, range) until
        a unit is placed, moved or removed (``state.placements``).
        """
        assert unit.hex is not None
        return self._kept(self._nearest, (unit.id, within), lambda: self._search(unit, within))

    def _kept(
        self,
        kept: dict[Key, tuple[int, UnitState | None]],
        key: Key,
        search: Callable[[], UnitState | None],
    ) -> UnitState | None:
        """``search()``'s answer, kept under ``key`` while the state's ``placements`` stands
        (what a unit's targets depend on changes only when a unit is placed)."""
        placements = self.state.placements
        hit = kept.get(key)
        if hit is not None and hit[0] == placements:
            return hit[1]
        found = search()
        kept[key] = (placements, found)
        return found

    def _search(self, unit: UnitState, within: int | None) -> UnitState | None:
        assert unit.hex is not None
        col, row = unit.hex
        occupant, units, rank = self.state.occupant, self.state.units, self.rank
        reach = self._span if within is None else within
        radius = 0
        while radius < reach and 3 * (radius + 1) * (radius + 2) < len(units):
            radius += 1
            best: UnitState | None = None
            for dc, dr in ring_steps(bool(col & 1), radius):
                uid = occupant.get((col + dc, row + dr))
                if uid is not None:
                    other = units[uid]
                    if other.side != unit.side and (best is None or rank[uid] < rank[best.id]):
                        best = other
            if best is not None:
                return best
        return self._scan(unit, radius, reach)

    def _scan(self, unit: UnitState, beyond: int, reach: int) -> UnitState | None:
        """The nearest enemy farther than ``beyond`` and within ``reach``, by a scan."""
        if beyond >= reach:
            return None
        assert unit.hex is not None
        best: tuple[int, int] | None = None
        nearest: UnitState | None = None
        for e in self.enemies(unit):
            assert e.hex is not None
            key = (distance(unit.hex, e.hex), self.rank[e.id])
            if key[0] <= reach and (best is None or key < best):
                best, nearest = key, e
        return nearest

    def adjacent_enemy(self, unit: UnitState, at: Hex | None = None) -> bool:
        """True when an enemy stands next to ``at`` (default: the unit's hex)."""
        here = at if at is not None else unit.hex
        if here is None:
            return False
        around = self._around.get(here)
        if around is None:  # the six neighbours, on the map or not (kept: asked every step)
            around = self._around[here] = tuple(neighbours(here))
        occupant, units = self.state.occupant, self.state.units
        for h in around:
            uid = occupant.get(h)
            if uid is not None and units[uid].side != unit.side:
                return True
        return False

    def held(self, unit: UnitState, at: Hex | None = None) -> bool:
        """True when an enemy next to ``at`` (default: the unit's hex) holds ``unit`` by its
        zone of control [ours]: any enemy (:meth:`adjacent_enemy`), but with
        ``cavalry_ride_past`` a cavalry unit is not held by an enemy that is routed or
        disrupted (``"broken"``), nor, on a ``charge`` order, by any enemy but its charge
        target (``"all"``)."""
        ride = self.options.cavalry_ride_past
        if ride is None or unit.kind != "cavalry":
            return self.adjacent_enemy(unit, at)
        here = at if at is not None else unit.hex
        if here is None:
            return False
        around = self._around.get(here)
        if around is None:
            around = self._around[here] = tuple(neighbours(here))
        only: str | None = None
        if ride == "all" and self.orders[unit.id].kind == "charge":
            target = self.charge_target(unit)
            only = target.id if target is not None else ""
        occupant, units = self.state.occupant, self.state.units
        for h in around:
            uid = occupant.get(h)
            if uid is None:
                continue
            enemy = units[uid]
            if enemy.side == unit.side or enemy.morale in ("routed", "disrupted"):
                continue
            if only is None or uid == only:
                return True
        return False

    def charge_target(self, unit: UnitState) -> UnitState | None:
        """The order's target while it is on the field, else the nearest enemy [ours]."""
        tid = self.orders[unit.id].target
        if tid is not None:
            t = self.state.units[tid]
            if t.active and t.hex is not None:
                return t
        return self.nearest_enemy(unit) if unit.hex is not None else None

    def attacking(self, unit: UnitState) -> bool:
        """True when the unit's order is an attack: ``charge`` or ``engage``."""
        return self.orders[unit.id].kind in _ATTACKS

    def attack_to_come(self, unit: UnitState) -> bool:
        """True when a later order of the unit (ours) that takes over after this turn is an
        attack, and the unit has not already lost the share at which an attack is given up
        (``break_off_loss``): it is still to go in."""
        orders = self.orders
        if not isinstance(orders, TurnOrders) or not (
            orders.kinds_after(unit.id, self.kernel.turn) & _ATTACKS_SET
        ):
            return False
        limit = self.options.break_off_loss
        return (
            limit is None
            or unit.initial <= 0
            or (unit.initial - unit.strength < limit * unit.initial)
        )

    def broken_off(self, unit: UnitState) -> bool:
        """True when the unit's attack is given up [ours, option ``break_off_loss``]: its
        order is ``charge`` or ``engage`` and it has lost that share of its strength at
        the start of the battle."""
        limit = self.options.break_off_loss
        if limit is None or unit.initial <= 0 or self.orders[unit.id].kind not in _ATTACKS:
            return False
        return unit.initial - unit.strength >= limit * unit.initial

    def edge_hex(self, h: Hex, edge: str) -> Hex:
        """The hex of the map edge ``edge`` straight back from ``h``."""
        m = self.scenario.map
        return {
            "north": (h[0], 0),
            "south": (h[0], m.height - 1),
            "west": (0, h[1]),
            "east": (m.width - 1, h[1]),
        }[edge]

    def edge_distance(self, h: Hex, edge: str) -> int:
        """Rows or columns between ``h`` and a map edge (0 on the edge)."""
        if edge == "north":
            return h[1]
        if edge == "south":
            return self.scenario.map.height - 1 - h[1]
        if edge == "west":
            return h[0]
        if edge == "east":
            return self.scenario.map.width - 1 - h[0]
        raise KeyError(edge)

    def fatigue_level(self, unit: UnitState) -> str:
        """``low``, ``medium``, ``high`` or ``max`` (rules-notes §1 [src])."""
        o = self.options
        if unit.fatigue >= o.fatigue_max:
            return "max"
        if unit.fatigue >= o.fatigue_high:
            return "high"
        return "medium" if unit.fatigue >= o.fatigue_medium else "low"

    def fatigue_penalty(self, unit: UnitState) -> int:
        """Percent lost to fatigue for fire and melee; doubled for artillery, capped."""
        o = self.options
        f = unit.fatigue
        if f < o.fatigue_medium and f < o.fatigue_high and f < o.fatigue_max:
            return 0  # level "low" (see fatigue_level): no penalty, doubled or not
        pct = {
            "low": 0,
            "medium": o.fatigue_penalty_medium,
            "high": o.fatigue_penalty_high,
            "max": o.fatigue_penalty_max,
        }[self.fatigue_level(unit)]
        if unit.kind == "artillery" and o.artillery_fatigue_double:
            pct *= 2
        return min(pct, o.fatigue_penalty_max)

    def morale_modifiers(self, unit: UnitState, *, rally: bool = False) -> dict[str, int]:
        """Morale modifiers (rules-notes §1 [src]); a rally omits 'already disrupted'.

        With option ``cover_morale`` [ours], + that much in a hex whose cover is 20 % or
        more (behind a wall, works, a fence or in woods); with ``loss_morale_step``
        [ours], −1 for each whole step of that size of its starting strength lost.
        """
        mods: dict[str, int] = {}
        if unit.leader:
            mods["leader"] = 1
        if unit.ammo == "low":
            mods["low_ammo"] = -1
        if self.scenario.turns.night:
            mods["night"] = -2
        level = self.fatigue_level(unit)
        if level == "medium":
            mods["fatigue_medium"] = -1
        elif level in ("high", "max"):
            mods["fatigue_high"] = -2
        if unit.morale == "disrupted" and not rally:
            mods["disrupted"] = -1
        works = self.options.cover_morale
        if works and self.cover(unit.hex)[1] <= -20:
            mods["in_cover"] = works
        step = self.options.loss_morale_step
        if step is not None and unit.initial > 0:
            lost = math.floor((unit.initial - unit.strength) / unit.initial / step + 1e-9)
            if lost:
                mods["losses"] = -lost
        return mods

    def morale_base(self, unit: UnitState) -> int:
        """Morale value of the unit's quality, A–F = 6..1."""
        return QUALITY_MORALE[unit.quality]
