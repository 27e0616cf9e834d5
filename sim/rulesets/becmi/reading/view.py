"""What the generic tools see of a ``becmi`` fight: combatant rows, chart measures, the floor."""

from __future__ import annotations

from typing import Any

from sim.contract import Measure, Reading, Space, UnitRow
from sim.rulesets.becmi.model.scenario import BecmiScenario
from sim.rulesets.becmi.model.state import BattleState, CombatantState
from sim.rulesets.becmi.reading.report import HOLDS
from sim.rulesets.trusted import trusted_measure, trusted_row

__all__ = ["DERIVED_FIELDS", "STATUS_WORDS", "measures", "shown_details", "space", "units"]

DERIVED_FIELDS = ("at", "bout", "bouts", "order", "side")
"""Positions and who wrestles whom are kept by movement and bout events, and who is whose
foe by each combatant's side: not forkable."""


STATUS_WORDS = (
    "dead",
    "fled",
    "knocked out",
    "stunned",
    "wrestling",
    *(f"in a {HOLDS[h]}" for h in sorted(HOLDS) if h),
)
"""A combatant row's status words (:func:`_status`)."""


def _status(state: BattleState, c: CombatantState) -> list[str]:
    if c.status == "dead":
        return ["dead"]
    if c.status == "fled":
        return ["fled"]
    words = ["knocked out"] if c.unconscious else []
    if c.stunned(state.round):
        words.append("stunned")
    if c.bout is not None:
        hold = state.bouts[c.bout].hold
        words.append("wrestling" if hold == 0 else f"in a {HOLDS[abs(hold)]}")
    return words


def units(sc: BecmiScenario, state: BattleState) -> list[UnitRow]:
    """Every combatant in scenario order: where it stands (feet), hit points, condition.

    Hit points below 0 are shown as 0: a combatant at −4 hp is dead, and
    "−4/4 hp" reads as a sum, not as a state.

    Built trusted (:func:`sim.rulesets.trusted.trusted_row`): the state's fields have
    exact types, so the rows are what validation would make of them.
    """
    names = {s.id: s.name for s in sc.sides}
    return [
        trusted_row(
            c.id,
            c.name,
            c.side,
            names[c.side],
            c.kind,
            c.at if c.status != "fled" else None,
            trusted_measure("hp", max(c.hp, 0), "hp"),
            trusted_measure("hp", c.hp_max, "hp"),
            _status(state, c),
            {"cover": c.cover, "cover_kind": c.cover_kind},
        )
        for c in state.combatants.values()
    ]


def shown_details(row: UnitRow) -> dict[str, Any]:
    """A combatant's details as ``show``'s table shows them: no cover kind (``-``) beside no
    cover, where the row's ``cover_kind`` is the state's "soft" of no use (as text, so the
    column stays one of words, left-aligned, when no one has cover).  The row keeps it
    (``--json``, a study's ``unit_finals`` columns)."""
    if row.details.get("cover") == "none":
        return {**row.details, "cover_kind": "-"}
    return row.details


def measures(sc: BecmiScenario, state: BattleState) -> list[Reading]:
    """Per side: hit points and combatants still standing; per combatant: hit points (≥ 0)."""
    out: list[Reading] = []
    for side in sc.sides:
        members = [c for c in state.combatants.values() if c.side == side.id]
        for m in (
            Measure(name="hp", value=sum(max(c.hp, 0) for c in members if c.present), unit="hp"),
            Measure(
                name="standing", value=sum(1 for c in members if c.conscious), unit="combatants"
            ),
        ):
            out.append(Reading(scope="side", subject=side.id, name=side.name, measure=m))
    for c in state.combatants.values():
        m = Measure(name="hp", value=max(c.hp, 0), unit="hp")
        out.append(Reading(scope="unit", subject=c.id, name=c.name, measure=m))
    return out


def space(sc: BecmiScenario) -> Space:
    """An open floor measured in feet, bounded by where the combatants start (10 ft margin)."""
    xs = [c.at[0] for s in sc.sides for c in s.combatants]
    ys = [c.at[1] for s in sc.sides for c in s.combatants]
    bounds = [(min(xs) - 10, max(xs) + 10), (min(ys) - 10, max(ys) + 10)]
    return Space(kind="plane", axes=("x", "y"), unit="ft", bounds=bounds)
