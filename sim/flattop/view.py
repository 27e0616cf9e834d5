"""What the generic tools see of a ``flattop`` battle: unit rows, chart measures, the sea."""

from __future__ import annotations

from sim.flattop.scenario import FlattopScenario
from sim.flattop.state import BattleState, ShipState, StrikeState
from sim.ruleset import Feature, Measure, Reading, Space, UnitRow

__all__ = ["DERIVED_FIELDS", "measures", "space", "units"]

DERIVED_FIELDS = ("at", "position", "task_force", "origin")
"""Where a task force is and what belongs to what are scenario facts, not forkable state."""


def _ship(state: BattleState, s: ShipState, side_name: str, at: tuple[int, int]) -> UnitRow:
    deck = state.decks.get(s.id)
    details: dict[str, object] = {"task_force": s.task_force, "hits": s.hits, "damage": s.damage}
    if deck is not None:
        details["aircraft_aboard"] = deck.aboard()
    return UnitRow(
        id=s.id,
        name=s.name,
        side=s.side,
        side_name=side_name,
        kind=s.kind,
        position=at,
        strength=Measure(name="hits left", value=s.damage - s.hits, unit="hits"),
        initial=Measure(name="hits left", value=s.damage, unit="hits"),
        status=[] if s.status == "afloat" else [s.status],
        details=details,
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
    task force it attacks.
    """
    places = _places(sc)
    rows: list[UnitRow] = []
    for side in sc.sides:
        for tf_spec in side.task_forces:
            tf = state.task_forces[tf_spec.id]
            cap = Measure(name="CAP", value=tf.cap, unit="air factors")
            rows.append(
                UnitRow(
                    id=tf.id,
                    name=tf.name,
                    side=side.id,
                    side_name=side.name,
                    kind="task_force",
                    position=tf_spec.at,
                    strength=cap,
                    initial=cap.model_copy(update={"value": tf_spec.cap}),
                    details={"ships": [s.id for s in tf_spec.ships], "clouds": tf_spec.clouds},
                )
            )
            for s in tf_spec.ships:
                rows.append(_ship(state, state.ships[s.id], side.name, tf_spec.at))
        for b in side.bases:
            deck = state.decks[b.id]
            aboard = Measure(name="aircraft", value=deck.aboard(), unit="air factors")
            start = Measure(name="aircraft", value=sum(b.aircraft.values()), unit="air factors")
            rows.append(
                UnitRow(
                    id=b.id,
                    name=b.name,
                    side=side.id,
                    side_name=side.name,
                    kind="base",
                    position=b.at,
                    strength=aboard,
                    initial=start,
                )
            )
        for spec in side.strikes:
            st = state.strikes[spec.id]
            planned = spec.escort + sum(a.factors for a in spec.attacks)
            rows.append(
                UnitRow(
                    id=st.id,
                    name=st.name,
                    side=side.id,
                    side_name=side.name,
                    kind="strike",
                    position=None,
                    strength=Measure(name="aloft", value=_aloft(st), unit="air factors"),
                    initial=Measure(name="aloft", value=planned, unit="air factors"),
                    status=[st.status],
                    details={"origin": st.origin, "target": st.target},
                    route=(
                        [places[st.origin], places[st.target]] if st.status == "airborne" else None
                    ),
                )
            )
    return rows


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
