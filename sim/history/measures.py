"""What one run of a case yields for each measure (docs/history.md, *Measure kinds*).

A run is read through the contract alone: each battle's outcome (its winner
and its losses), its units' rows (``UnitRow``) at the end of every turn and
at its end, its outcome's turn count, and — for ``loss_from`` and
``events`` — the plain JSON of the events of the types they name. So every
kind works for every ruleset.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from sim.contract import UnitRow
from sim.history.case import MeasureSpec

__all__ = ["BattleRecord", "RunRecord", "settled", "value_of"]

Value = float | tuple[float, float]
"""A run's value: a number, or (numerator, denominator) for a ratio kind."""


@dataclass
class BattleRecord:
    """One battle of one run, as the measures read it."""

    id: str | None
    winner: str | None
    final: list[UnitRow]
    turns: list[list[UnitRow]] = field(default_factory=list)
    """The unit rows at the end of each turn, turn 1 first (when a measure needs them)."""
    events: list[dict[str, Any]] = field(default_factory=list)
    """The plain JSON of the events a ``loss_from`` measure sums."""
    losses: dict[str, dict[str, float]] = field(default_factory=dict)
    """The outcome's losses: side id → loss name → value (``outcome_loss``)."""
    turns_played: int = 0
    """The outcome's ``turns``: the last turn played (``duration``)."""


@dataclass
class RunRecord:
    """One run: its battles in order, and the campaign's winner (a lone battle's winner)."""

    battles: list[BattleRecord]
    winner: str | None


def _battle(run: RunRecord, spec: MeasureSpec) -> BattleRecord | None:
    """The battle a measure reads: the one it names, else the run's last; None if not fought."""
    if spec.battle is None:
        return run.battles[-1]
    return next((b for b in run.battles if b.id == spec.battle), None)


def _counted(rows: Sequence[UnitRow], spec: MeasureSpec) -> list[UnitRow]:
    """The side's units whose strength is counted in the measure's unit (and of its kinds)."""
    return [
        r
        for r in rows
        if r.side == spec.side
        and r.strength.unit == spec.unit
        and (spec.kinds is None or r.kind in spec.kinds)
    ]


def _lost(rows: Sequence[UnitRow]) -> tuple[float, float]:
    """(lost, initial) summed over ``rows``."""
    initial = sum(float(r.initial.value) for r in rows)
    return initial - sum(float(r.strength.value) for r in rows), initial


def _rows_at(battle: BattleRecord, spec: MeasureSpec) -> list[UnitRow]:
    """The rows a loss is read from: the end, or ``after_contact`` turns after first loss."""
    if spec.after_contact is None or not battle.turns:
        return battle.final
    for t, rows in enumerate(battle.turns):
        if _lost(_counted(rows, spec))[0] > 0:
            return battle.turns[min(t + spec.after_contact, len(battle.turns) - 1)]
    return battle.final


def _loss(battle: BattleRecord, spec: MeasureSpec) -> float:
    lost, initial = _lost(_counted(_rows_at(battle, spec), spec))
    if spec.share is False:
        return lost
    return lost / initial if initial else 0.0


def _unit_loss_max(battle: BattleRecord, spec: MeasureSpec) -> float:
    shares = [
        (float(r.initial.value) - float(r.strength.value)) / float(r.initial.value)
        for r in _counted(_rows_at(battle, spec), spec)
        if r.initial.value
    ]
    return max(shares, default=0.0)


def _reaches(battle: BattleRecord, spec: MeasureSpec) -> float:
    assert spec.hexes is not None
    cells = {tuple(h) for h in spec.hexes}
    for rows in [*battle.turns, battle.final]:
        for r in rows:
            if r.side == spec.side and r.position is not None and tuple(r.position) in cells:
                return 1.0
    return 0.0


def settled(spec: MeasureSpec, turns: Sequence[Sequence[UnitRow]]) -> bool:
    """Whether the rows of turns after ``turns`` (turn 1 first) can no longer change the
    value of ``spec``, so a battle's later turns need not be read for it.

    ``reaches`` reads turns up to the first that a unit of the side ends on one
    of its hexes; ``after_contact`` up to that many turns after the first whose
    counted rows show a loss (:func:`_rows_at`); no other kind reads turns.
    """
    if spec.kind == "reaches":
        assert spec.hexes is not None
        cells = {tuple(h) for h in spec.hexes}
        return any(
            r.side == spec.side and r.position is not None and tuple(r.position) in cells
            for rows in turns
            for r in rows
        )
    if spec.after_contact is not None:
        for t, rows in enumerate(turns):
            if _lost(_counted(rows, spec))[0] > 0:
                return len(turns) > t + spec.after_contact
        return False
    return True


def _path(data: Any, dotted: str) -> float:
    """The number at a dotted path of an event's JSON. The path was checked when the case
    was read to end at a number every such event has (:mod:`sim.history.eventpaths`), so a
    last field missing from the line was left out at its default, which for every such
    number is 0 (a ``musket.meleed``'s ``prisoners`` and ``pursuit_losses``)."""
    parts = dotted.split(".")
    for part in parts[:-1]:
        data = data[int(part)] if isinstance(data, list) else data[part]
    last = parts[-1]
    if isinstance(data, dict) and last not in data:
        return 0.0
    return float(data[int(last)] if isinstance(data, list) else data[last])


_MISSING = object()


def _at(data: Any, dotted: str) -> Any:
    """The value at a dotted path of an event's JSON, or ``_MISSING`` when there is none."""
    for part in dotted.split("."):
        if isinstance(data, list) and part.isdigit() and int(part) < len(data):
            data = data[int(part)]
        elif isinstance(data, dict) and part in data:
            data = data[part]
        else:
            return _MISSING
    return data


def _equal(found: Any, wanted: Any) -> bool:
    """JSON equality as a reader means it: ``true`` is not ``1``, ``2`` is ``2.0``."""
    if isinstance(found, bool) or isinstance(wanted, bool):
        return isinstance(found, bool) and isinstance(wanted, bool) and found == wanted
    if isinstance(found, int | float) and isinstance(wanted, int | float):
        return float(found) == float(wanted)
    return type(found) is type(wanted) and bool(found == wanted)


def _events(battle: BattleRecord, spec: MeasureSpec) -> float:
    """How many of the battle's events of type ``event`` match ``where`` and ``side``."""
    side_of = {r.id: r.side for r in battle.final}
    where = spec.where or {}
    count = 0
    for e in battle.events:
        if e.get("type") != spec.event:
            continue
        if not all(_equal(_at(e, path), value) for path, value in where.items()):
            continue
        if spec.side is not None:
            uid = _at(e, spec.side_field or "unit")
            if not isinstance(uid, str) or side_of.get(uid) != spec.side:
                continue
        count += 1
    return float(count)


def _units_below(battle: BattleRecord, spec: MeasureSpec) -> float:
    """How many of the side's counted units end at or under ``share`` of their initial strength."""
    share = 0.0 if spec.share is None else float(spec.share)
    return float(
        sum(
            float(r.strength.value) <= share * float(r.initial.value)
            for r in _counted(battle.final, spec)
            if float(r.initial.value) > 0
        )
    )


def _loss_from(battle: BattleRecord, spec: MeasureSpec) -> tuple[float, float]:
    """(the side's loss inflicted by units of ``by_kind``, the side's whole loss)."""
    assert spec.amount is not None
    who = {r.id: (r.side, r.kind) for r in battle.final}
    actor, target = spec.actor or "unit", spec.target or "target"
    part = 0.0
    for e in battle.events:
        if e.get("type") != spec.event:
            continue
        a, t = who.get(e.get(actor, "")), who.get(e.get(target, ""))
        if a is not None and t is not None and a[1] == spec.by_kind and t[0] == spec.side:
            part += _path(e, spec.amount)
    return part, _lost(_counted(battle.final, spec))[0]


def _loss_ratio(battle: BattleRecord, spec: MeasureSpec) -> tuple[float, float]:
    mine = _lost(_counted(battle.final, spec))[0]
    theirs = _lost(_counted(battle.final, spec.model_copy(update={"side": spec.over})))[0]
    return mine, theirs


def _status(battle: BattleRecord, spec: MeasureSpec) -> float:
    return float(any(r.id == spec.unit and spec.word in r.status for r in battle.final))


def _outcome_loss(battle: BattleRecord, spec: MeasureSpec) -> float:
    assert spec.side is not None and spec.loss is not None
    return float(battle.losses[spec.side][spec.loss])


_OF_BATTLE: dict[str, Callable[[BattleRecord, MeasureSpec], Value]] = {
    "win": lambda battle, spec: float(battle.winner == spec.side),
    "status": _status,
    "reaches": _reaches,
    "loss": _loss,
    "unit_loss_max": _unit_loss_max,
    "loss_ratio": _loss_ratio,
    "outcome_loss": _outcome_loss,
    "events": _events,
    "units_below": _units_below,
    "duration": lambda battle, _spec: float(battle.turns_played),
    "loss_from": _loss_from,
}
"""What each kind reads from the one battle it measures."""


def _raw(run: RunRecord, spec: MeasureSpec) -> Value:
    if spec.kind == "battles_won":
        return float(sum(b.winner == spec.side for b in run.battles))
    if spec.kind == "win" and spec.battle is None:
        return float(run.winner == spec.side)
    battle = _battle(run, spec)
    if battle is None:  # a campaign that ended before this battle: nothing happened there
        return (0.0, 0.0) if spec.statistic == "ratio" else 0.0
    return _OF_BATTLE[spec.kind](battle, spec)


def value_of(run: RunRecord, spec: MeasureSpec) -> Value:
    """The run's value of ``spec``; with ``at_least``/``at_most``, 1.0 or 0.0."""
    raw = _raw(run, spec)
    if spec.at_least is not None:
        assert isinstance(raw, float)
        return float(raw >= spec.at_least)
    if spec.at_most is not None:
        assert isinstance(raw, float)
        return float(raw <= spec.at_most)
    if isinstance(raw, float) and math.isnan(raw):
        return 0.0
    return raw
