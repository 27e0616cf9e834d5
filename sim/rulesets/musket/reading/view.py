"""What the generic tools see of a ``musket`` battle: unit rows, chart measures, the map."""

from __future__ import annotations

from sim.contract import Feature, Measure, Reading, Space, UnitRow
from sim.rulesets.musket.model.data import MORALE_STATES
from sim.rulesets.musket.model.scenario import MusketScenario
from sim.rulesets.musket.model.state import BattleState, UnitState
from sim.rulesets.trusted import trusted_measure, trusted_row

__all__ = ["DERIVED_FIELDS", "STATUS_WORDS", "measures", "space", "units"]

FACING_DEGREES = {"south": 0.0, "west": 90.0, "north": 180.0, "east": 270.0}
"""A side's facing by its retreat edge, in the unit row's degrees (0 up the map, 90 towards
columns increasing): away from the edge (option ``enfilade``)."""

DERIVED_FIELDS = ("hex", "occupant", "foes", "side")
"""A unit's hex, the map's occupancy and the targeting index (each side's enemies by hex)
are kept together by movement events, and the index by each unit's side: not forkable."""


def _what(u: UnitState) -> str:
    return "guns" if u.kind == "artillery" else "men"


STATUS_WORDS = (*(m for m in MORALE_STATES if m != "good"), "left the field")
"""A unit row's status: its morale state but good, or that it left the field."""


def _status(u: UnitState) -> list[str]:
    if u.morale == "eliminated" and u.hex is None and u.strength > 0:
        return ["left the field"]
    return [] if u.morale == "good" else [u.morale]


def units(sc: MusketScenario, state: BattleState) -> list[UnitRow]:
    """Every unit in scenario order: its hex, strength in men or guns, morale state.

    Built trusted (:func:`sim.rulesets.trusted.trusted_row`): a study asks for the rows
    of every run.  The state's fields have exact types (ints, a hex as a tuple
    of ints, text; ``set_path`` keeps an override's type), so the rows are
    what validation would make of them.
    """
    names = {s.id: s.name for s in sc.sides}
    # option enfilade: every unit faces away from its side's retreat edge
    facing = {s.id: FACING_DEGREES[s.retreat] for s in sc.sides} if sc.options.enfilade else {}
    rows = []
    for u in state.units.values():
        what = _what(u)
        rows.append(
            trusted_row(
                u.id,
                u.name,
                u.side,
                names[u.side],
                u.kind,
                u.hex,
                trusted_measure("strength", u.strength, what),
                trusted_measure("strength", u.initial, what),
                _status(u),
                {
                    "fatigue": u.fatigue,
                    "morale": u.morale,
                    "men_lost": u.men_lost,
                    "guns_lost": u.guns_lost,
                },
                facing=facing.get(u.side),
            )
        )
    return rows


def measures(sc: MusketScenario, state: BattleState) -> list[Reading]:
    """Per side: men and guns on the field (of its units not eliminated: a unit that left
    the field with men left counts no more, so a side's chart falls by more than the men it
    lost); per unit: strength and fatigue."""
    out: list[Reading] = []
    for side in sc.sides:
        mine = [u for u in state.units.values() if u.side == side.id and u.active]
        for what in ("men", "guns"):
            total = sum(u.strength for u in mine if _what(u) == what)
            m = Measure(name=f"{what} on the field", value=total, unit=what)
            out.append(Reading(scope="side", subject=side.id, name=side.name, measure=m))
    for u in state.units.values():
        for m in (
            Measure(name="strength", value=u.strength, unit=_what(u)),
            Measure(name="fatigue", value=u.fatigue, unit="fatigue points"),
        ):
            out.append(Reading(scope="unit", subject=u.id, name=u.name, measure=m))
    return out


def space(sc: MusketScenario) -> Space:
    """The hex map: its size, terrain patches and objectives."""
    features = [
        Feature(
            kind="terrain",
            name=patch.terrain,
            cells=[tuple(h) for h in patch.hexes],
            details={} if patch.cover is None else {"cover": patch.cover},
        )
        for patch in sc.map.terrain
    ]
    features += [
        Feature(
            kind="objective",
            name=o.name,
            cells=[tuple(o.hex)],
            details={"points": o.points, "held_by": o.held_by},
        )
        for o in sc.victory.objectives
    ]
    return Space(
        kind="hex",
        axes=("col", "row"),
        unit="hex",
        bounds=[(0, sc.map.width - 1), (0, sc.map.height - 1)],
        features=features,
    )
