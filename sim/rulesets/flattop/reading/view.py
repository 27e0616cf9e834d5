"""What the generic tools see of a ``flattop`` battle: unit rows, chart measures, the sea."""

from __future__ import annotations

from sim.contract import Feature, Measure, Reading, Space, UnitRow
from sim.rulesets.flattop.model.scenario import BaseSpec, FlattopScenario, StrikeSpec, TaskForceSpec
from sim.rulesets.flattop.model.state import BattleState, ShipState, StrikeState
from sim.rulesets.trusted import trusted_measure, trusted_row

__all__ = ["DERIVED_FIELDS", "STATUS_WORDS", "measures", "space", "units"]

DERIVED_FIELDS = ("at", "position", "task_force", "origin", "side")
"""Where a task force is, what belongs to what and which side it fights for are scenario
facts, not forkable state."""


STATUS_WORDS = (
    "crippled",
    "sunk",
    *("planned", "spotted", "cancelled", "airborne", "destroyed", "ditched", "recovered"),
)
"""A ship row's status (none afloat) and a strike row's."""


def _ship(state: BattleState, s: ShipState, side_name: str, at: tuple[int, int]) -> UnitRow:
    deck = state.decks.get(s.id)
    details: dict[str, object] = {"task_force": s.task_force, "hits": s.hits, "damage": s.damage}
    if deck is not None:
        details["aircraft_aboard"] = deck.aboard()
    return trusted_row(
        s.id,
        s.name,
        s.side,
        side_name,
        s.kind,
        at,
        trusted_measure("hits left", s.damage - s.hits, "hits"),
        trusted_measure("hits left", s.damage, "hits"),
        [] if s.status == "afloat" else [s.status],
        details,
    )


def _aloft(st: StrikeState) -> int:
    return st.escort + sum(st.attacks) if st.status == "airborne" else 0


def _places(sc: FlattopScenario) -> dict[str, tuple[int, int]]:
    """Where each task force, ship (its task force's hex) and base is."""
    places: dict[str, tuple[int, int]] = {}
    for side in sc.sides:
        for tf in side.task_forces:
            places[tf.id] = tf.at
            places.update({s.id: tf.at for s in tf.ships})
        places.update({b.id: b.at for b in side.bases})
    return places


def units(sc: FlattopScenario, state: BattleState) -> list[UnitRow]:
    """Task forces (CAP), their ships (hits left), bases (aircraft) and strikes (aloft).

    A strike in the air has no hex of its own (the rules time its flight, they
    do not move it hex by hex): its route runs from its carrier or base to the
    task force it attacks.  Rows are built trusted
    (:func:`sim.rulesets.trusted.trusted_row`): the state's and the validated
    scenario's fields have exact types.
    """
    places = _places(sc)
    rows: list[UnitRow] = []
    for side in sc.sides:
        for tf_spec in side.task_forces:
            rows.append(_task_force(state, tf_spec, side.id, side.name))
            for s in tf_spec.ships:
                rows.append(_ship(state, state.ships[s.id], side.name, tf_spec.at))
        for b in side.bases:
            rows.append(_base(state, b, side.id, side.name))
        for spec in side.strikes:
            rows.append(_strike(state, spec, side.id, side.name, places))
    return rows


def _task_force(state: BattleState, spec: TaskForceSpec, side: str, side_name: str) -> UnitRow:
    tf = state.task_forces[spec.id]
    return trusted_row(
        tf.id,
        tf.name,
        side,
        side_name,
        "task_force",
        spec.at,
        trusted_measure("CAP", tf.cap, "air factors"),
        trusted_measure("CAP", spec.cap, "air factors"),
        [],
        {"ships": [s.id for s in spec.ships], "clouds": spec.clouds},
    )


def _base(state: BattleState, b: BaseSpec, side: str, side_name: str) -> UnitRow:
    aboard = state.decks[b.id].aboard()
    return trusted_row(
        b.id,
        b.name,
        side,
        side_name,
        "base",
        b.at,
        trusted_measure("aircraft", aboard, "air factors"),
        trusted_measure("aircraft", sum(b.aircraft.values()), "air factors"),
        [],
        {},
    )


def _strike(
    state: BattleState,
    spec: StrikeSpec,
    side: str,
    side_name: str,
    places: dict[str, tuple[int, int]],
) -> UnitRow:
    st = state.strikes[spec.id]
    planned = spec.escort + sum(a.factors for a in spec.attacks)
    airborne = st.status == "airborne"
    return trusted_row(
        st.id,
        st.name,
        side,
        side_name,
        "strike",
        None,
        trusted_measure("aloft", _aloft(st), "air factors"),
        trusted_measure("aloft", planned, "air factors"),
        [st.status],
        {"origin": st.origin, "target": st.target},
        [places[st.origin], places[st.target]] if airborne else None,
    )


def measures(sc: FlattopScenario, state: BattleState) -> list[Reading]:
    """Per side: air factors (aboard, on CAP, aloft) and hits taken; per ship: hits taken."""
    out: list[Reading] = []
    for side in sc.sides:
        air = sum(d.aboard() for d in state.decks.values() if d.side == side.id)
        air += sum(t.cap for t in state.task_forces.values() if t.side == side.id)
        air += sum(_aloft(st) for st in state.strikes.values() if st.side == side.id)
        hits = sum(s.hits for s in state.ships.values() if s.side == side.id)
        for m in (
            Measure(name="aircraft", value=air, unit="air factors"),
            Measure(name="hits taken", value=hits, unit="hits"),
        ):
            out.append(Reading(scope="side", subject=side.id, name=side.name, measure=m))
    for s in state.ships.values():
        m = Measure(name="hits taken", value=s.hits, unit="hits")
        out.append(Reading(scope="unit", subject=s.id, name=s.name, measure=m))
    return out


def space(sc: FlattopScenario) -> Space:
    """The open sea: hexes of about 20 nautical miles; airfields marked."""
    bases = [
        Feature(kind="base", name=b.name, cells=[tuple(b.at)], details={"id": b.id, "side": s.id})
        for s in sc.sides
        for b in s.bases
    ]
    return Space(kind="hex", axes=("col", "row"), unit="sea hex of 20 nm", features=bases)
