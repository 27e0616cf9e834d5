"""Schema of a ``musket`` scenario file, and the checks across its fields.

Pydantic validates each field; :func:`cross_check` then checks what spans
fields (unique ids, hexes on the map, targets that exist) and returns every
problem with its field path, so the loader can name the line.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, StringConstraints

from sim.contract.bases import Hex, Ident, Name, ScenarioBase, Share, SideBase
from sim.contract.bases import Model as _Model
from sim.contract.ids import UniqueIds
from sim.rulesets.musket.model.data import WEAPONS, Ammo, Formation, Kind, Quality, Terrain
from sim.rulesets.musket.model.options import MusketOptions
from sim.text.suggest import did_you_mean

__all__ = [
    "Hex",
    "LaterOrder",
    "MusketScenario",
    "Objective",
    "Order",
    "SideSpec",
    "UnitSpec",
    "cross_check",
    "order_at",
]


class TerrainPatch(_Model):
    """A terrain type laid on a list of hexes."""

    terrain: Terrain
    hexes: list[Hex] = Field(min_length=1, max_length=100_000)
    cover: int | None = Field(
        None,
        ge=-100,
        le=100,
        description="Cover modifier (percent) of these hexes, overriding the terrain's own "
        "(e.g. a stronger or weaker wall); None keeps the terrain's.",
    )


class MapSpec(_Model):
    """The hex map: size in hexes (125 yards each) and its terrain."""

    width: int = Field(ge=1, le=1000)
    height: int = Field(ge=1, le=1000)
    terrain: list[TerrainPatch] = Field(default_factory=list, max_length=10_000)


class TurnSpec(_Model):
    """The turn clock."""

    limit: int = Field(ge=1, le=1000, description="Turn limit of the battle.")
    minutes: int = Field(20, ge=1, le=240, description="Minutes of one turn.")
    start: Annotated[str, StringConstraints(pattern=r"^([01]\d|2[0-3]):[0-5]\d$")] = Field(
        "12:00", description="Clock time when turn 1 begins, HH:MM."
    )
    night: bool = Field(False, description="The whole battle is fought at night (morale −2).")


class Order(_Model):
    """A unit's standing order."""

    kind: Literal["hold", "advance", "engage", "charge", "retire"] = "hold"
    target: Ident | None = Field(
        None,
        description="Enemy unit id: required by engage and charge; on any order the "
        "unit's preferred fire target.",
    )
    to: Hex | None = Field(
        None, description="Destination hex: required by advance and retire; must be on the map."
    )


class LaterOrder(Order):
    """An order that takes the place of the unit's order from a turn on [ours]."""

    turn: int = Field(
        ge=2,
        le=1000,
        description="The turn from whose start the order holds, until a later one takes over.",
    )


def _no_later_orders(value: list[LaterOrder]) -> bool:
    return not value


class UnitSpec(_Model):
    """One regiment or battery."""

    id: Ident
    name: Name
    kind: Kind
    strength: int = Field(ge=1, le=10_000, description="Men, or guns for artillery.")
    quality: Quality
    weapon: str = Field(description="A weapon of the ruleset (docs/rules/musket.md).")
    at: Hex
    formation: Formation = "line"
    order: Order = Field(default_factory=Order)
    later_orders: list[LaterOrder] = Field(
        default_factory=list,
        max_length=1000,
        exclude_if=_no_later_orders,  # left out of a scenario's dump when there are none
        description="[ours] Orders that take over from later turns, in rising turn order: "
        "each holds from the start of its turn until the next; 'order' holds until the "
        "first.",
    )
    leader: bool = Field(False, description="A leader is with the unit (morale +1).")
    ammo: Ammo = "full"
    fatigue: int = Field(0, ge=0, le=100_000)
    morale: Literal["good", "disrupted", "routed"] = Field(
        "good", description="Morale state at the start (campaigns carry it between battles)."
    )


class SideSpec(SideBase):
    """One army."""

    retreat: Literal["north", "south", "east", "west"] = Field(
        description="Map edge the side's routed units flee toward."
    )
    break_units: Annotated[float, Share("the side's units")] = Field(
        0.5,
        gt=0,
        le=1,
        description=(
            "Share of units out at which the army breaks: routed or eliminated, or spent "
            "having lost spent_out_loss of their strength (option spent_counts_out)."
        ),
    )
    break_losses: Annotated[float, Share("the side's men")] = Field(
        0.5,
        gt=0,
        le=1,
        description="Share of men lost at which the army breaks (a gun counts as men_per_gun men).",
    )
    units: list[UnitSpec] = Field(min_length=1, max_length=5000)


class Objective(_Model):
    """A hex worth victory points to whoever holds it at the end."""

    name: Name
    hex: Hex
    points: int = Field(1, ge=1, le=1000)
    held_by: Ident | None = Field(None, description="Side holding it at the start.")


class VictorySpec(_Model):
    """How the battle is decided."""

    objectives: list[Objective] = Field(default_factory=list, max_length=1000)


class MusketScenario(ScenarioBase):
    """A ``musket`` scenario file."""

    ruleset: Literal["musket"]
    map: MapSpec
    turns: TurnSpec
    options: MusketOptions = Field(default_factory=MusketOptions)
    victory: VictorySpec = Field(default_factory=VictorySpec)
    sides: list[SideSpec] = Field(min_length=2, max_length=8)


Problem = tuple[tuple[str | int, ...], str]


def _on_map(sc: MusketScenario, h: tuple[int, int]) -> bool:
    return h[0] < sc.map.width and h[1] < sc.map.height


def _check_map_and_options(sc: MusketScenario) -> list[Problem]:
    problems: list[Problem] = []
    for i, patch in enumerate(sc.map.terrain):
        for j, h in enumerate(patch.hexes):
            if not _on_map(sc, h):
                problems.append(
                    (
                        ("map", "terrain", i, "hexes", j),
                        f"hex {list(h)} is off the {sc.map.width}x{sc.map.height} map",
                    )
                )
    o = sc.options
    for kind, low, high in (("fire", o.fire_lcv, o.fire_hcv), ("melee", o.melee_lcv, o.melee_hcv)):
        if low > high:  # the casualty value is drawn in [L, H]: L above H has no meaning
            problems.append(
                (
                    ("options", f"{kind}_hcv"),
                    f"{kind}_lcv {low:g} is above {kind}_hcv {high:g}: the Low Combat Value "
                    "cannot exceed the High",
                )
            )
    if not o.fatigue_medium <= o.fatigue_high <= o.fatigue_max:
        problems.append(
            (
                ("options", "fatigue_high"),
                f"fatigue levels must rise: fatigue_medium {o.fatigue_medium} <= "
                f"fatigue_high {o.fatigue_high} <= fatigue_max {o.fatigue_max}",
            )
        )
    return problems


def cross_check(sc: MusketScenario) -> list[Problem]:
    """Return every problem that spans fields, each with its field path."""
    problems = _check_map_and_options(sc)
    side_ids = UniqueIds(problems)
    for i, side in enumerate(sc.sides):
        side_ids.add(side.id, ("sides", i, "id"), "side")
    # each unit's side by its place: two sides of one id (a problem said once, above) are
    # still two, and their units each other's enemies
    side_of = {u.id: i for i, s in enumerate(sc.sides) for u in s.units}
    unit_ids = UniqueIds(problems)
    occupied: dict[tuple[int, int], str] = {}
    for i, side in enumerate(sc.sides):
        for j, u in enumerate(side.units):
            path: tuple[str | int, ...] = ("sides", i, "units", j)
            problems.extend(_check_unit(sc, u, i, side_of, path))
            unit_ids.add(u.id, (*path, "id"), "unit")
            if u.at in occupied:
                problems.append(
                    ((*path, "at"), f"hex {list(u.at)} already holds {occupied[u.at]!r}")
                )
            occupied.setdefault(u.at, u.id)
    for k, obj in enumerate(sc.victory.objectives):
        if not _on_map(sc, obj.hex):
            problems.append((("victory", "objectives", k, "hex"), "objective is off the map"))
        if obj.held_by is not None and obj.held_by not in side_ids.first:
            hint = did_you_mean(obj.held_by, side_ids.first)
            where = ("victory", "objectives", k, "held_by")
            problems.append((where, f"no side {obj.held_by!r}{hint}"))
    return problems


def _check_unit(
    sc: MusketScenario, u: UnitSpec, side: int, side_of: dict[str, int], path: tuple[str | int, ...]
) -> list[Problem]:
    problems: list[Problem] = []
    if not _on_map(sc, u.at):
        problems.append(
            ((*path, "at"), f"hex {list(u.at)} is off the {sc.map.width}x{sc.map.height} map")
        )
    weapon = WEAPONS.get(u.weapon)
    if weapon is None:
        problems.append(
            ((*path, "weapon"), f"unknown weapon {u.weapon!r}; known: {', '.join(sorted(WEAPONS))}")
        )
    elif (weapon["kind"] == "gun") != (u.kind == "artillery"):
        problems.append(((*path, "weapon"), f"{u.kind} cannot use {u.weapon!r}"))
    problems.extend(_check_order(sc, u, u.order, side, side_of, (*path, "order")))
    last = 1
    for k, later in enumerate(u.later_orders):
        at: tuple[str | int, ...] = (*path, "later_orders", k)
        problems.extend(_check_order(sc, u, later, side, side_of, at))
        if later.turn <= last:
            problems.append(
                (
                    (*at, "turn"),
                    f"turn {later.turn} is not after turn {last}: later orders "
                    "take over in rising turn order",
                )
            )
        last = max(last, later.turn)
    return problems


def _check_order(
    sc: MusketScenario,
    u: UnitSpec,
    o: Order,
    side: int,
    side_of: dict[str, int],
    path: tuple[str | int, ...],
) -> list[Problem]:
    problems: list[Problem] = []
    article = "an" if o.kind[0] in "aeiou" else "a"
    if o.kind in ("engage", "charge") and o.target is None:
        problems.append(((*path, "target"), f"{article} {o.kind} order needs a target"))
    if o.target is not None and o.target not in side_of:
        enemies = [uid for uid, s in side_of.items() if s != side]
        hint = did_you_mean(o.target, enemies)
        problems.append(((*path, "target"), f"no unit {o.target!r}{hint}"))
    elif o.target is not None and side_of[o.target] == side:
        problems.append(((*path, "target"), f"{o.target!r} is not an enemy unit"))
    if o.kind == "charge" and u.kind == "artillery":
        problems.append(((*path, "kind"), "artillery cannot charge"))
    if o.kind in ("advance", "retire") and o.to is None:
        problems.append(((*path, "to"), f"{article} {o.kind} order needs a hex 'to'"))
    if o.to is not None and not _on_map(sc, o.to):
        problems.append(((*path, "to"), "destination is off the map"))
    return problems


def order_at(u: UnitSpec, turn: int) -> Order:
    """The order that holds for unit ``u`` in ``turn``: its latest later order whose turn has
    come, else its ``order``."""
    found = u.order
    for later in u.later_orders:
        if later.turn > turn:
            break
        found = later
    return found
