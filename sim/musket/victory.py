"""Victory: armies break at thresholds; objectives decide at the turn limit.

At the end of every turn each unbroken army is measured: the share of its
units routed or eliminated (``break_units``) and the share of its men lost,
a gun counting as ``men_per_gun`` men (``break_losses``).  Reaching either
breaks it.  When every army but one is broken, that one wins; when all are,
the battle is a draw.  At the turn limit the side with the most objective
points wins, else it is a draw.  An objective belongs to the side of the
unrouted unit standing on it, else to the side that held it at the start [ours].
"""

from __future__ import annotations

from sim.musket.context import Battle
from sim.musket.events import BattleEnded, SideBroken
from sim.musket.state import UnitState

__all__ = ["decide_breaks", "decide_end", "side_shares"]


def _men(b: Battle, u: UnitState, n: int) -> int:
    return n * b.options.men_per_gun if u.kind == "artillery" else n


def side_shares(b: Battle, side: str) -> tuple[float, float]:
    """(share of units routed or eliminated, share of men lost) of one army."""
    units = [u for u in b.state.units.values() if u.side == side]
    out = sum(1 for u in units if u.morale in ("routed", "eliminated"))
    initial = sum(_men(b, u, u.initial) for u in units)
    lost = sum(_men(b, u, u.initial - u.strength) for u in units)
    return out / len(units), lost / initial


def decide_breaks(b: Battle) -> list[SideBroken]:
    """Armies that reach a break threshold this turn, in scenario order."""
    broken = []
    for side in b.scenario.sides:
        if b.state.sides[side.id].broken:
            continue
        units_out, losses = side_shares(b, side.id)
        reasons = []
        if units_out >= side.break_units:
            reasons.append(
                f"{units_out:.0%} of its units routed or eliminated "
                f"(breaks at {side.break_units:.0%})"
            )
        if losses >= side.break_losses:
            reasons.append(f"{losses:.0%} of its men lost (breaks at {side.break_losses:.0%})")
        if reasons:
            broken.append(
                SideBroken(
                    turn=b.turn,
                    time=b.now,
                    side=side.id,
                    reason="; ".join(reasons),
                    units_out_share=units_out,
                    losses_share=losses,
                )
            )
    return broken


def objective_points(b: Battle) -> dict[str, int]:
    """Objective points held by each side now."""
    points = {s.id: 0 for s in b.scenario.sides}
    for obj in b.scenario.victory.objectives:
        uid = b.state.occupant.get((obj.hex[0], obj.hex[1]))
        holder = obj.held_by
        if uid is not None and b.state.units[uid].morale != "routed":
            holder = b.state.units[uid].side
        if holder is not None:
            points[holder] += obj.points
    return points


def decide_end(b: Battle, last_turn: bool) -> BattleEnded | None:
    """The end of the battle after this turn's breaks, or None while it goes on."""
    standing = [s.id for s in b.scenario.sides if not b.state.sides[s.id].broken]
    points = objective_points(b)
    if len(standing) == 1:
        winner = standing[0]
        return BattleEnded(
            turn=b.turn,
            time=b.now,
            winner=winner,
            objective_points=points,
            reason=f"every other army broke; {b.sides[winner].name} holds the field",
        )
    if not standing:
        return BattleEnded(
            turn=b.turn, time=b.now, winner=None, objective_points=points, reason="every army broke"
        )
    if not last_turn:
        return None
    ranked = sorted(standing, key=lambda s: -points[s])
    if points[ranked[0]] > points[ranked[1]]:
        return BattleEnded(
            turn=b.turn,
            time=b.now,
            winner=ranked[0],
            objective_points=points,
            reason=f"turn limit: {b.sides[ranked[0]].name} holds the most "
            f"objective points ({points[ranked[0]]})",
        )
    return BattleEnded(
        turn=b.turn,
        time=b.now,
        winner=None,
        objective_points=points,
        reason="turn limit: no army broke and objectives are even",
    )
