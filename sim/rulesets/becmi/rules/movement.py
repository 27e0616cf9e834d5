"""Movement: a combatant closes on an enemy, one ``becmi.moved`` event.

Positions are points in feet with no blocking [ours].  A mover heads in a
straight line for its target and stops at melee reach; it covers at most
its encounter movement (⅓ of it while stunned [src]).
"""

from __future__ import annotations

from fractions import Fraction

from sim.contract.emit import stamp
from sim.rulesets.becmi.model.data import STUNNED
from sim.rulesets.becmi.model.events import Moved
from sim.rulesets.becmi.model.state import CombatantState
from sim.rulesets.becmi.rules.context import Battle, distance

__all__ = ["approach", "decide_move"]

Point = tuple[int, int]


def approach(start: Point, goal: Point, step: int, reach: int) -> Point:
    """Where a mover from ``start`` ends, heading for ``goal`` with ``step`` feet.

    If it can come within ``reach`` it stops on the line ``reach`` feet short
    of the goal (rounded to whole feet, which keeps it within reach);
    otherwise it goes ``step`` feet along the line.  Exact integer and
    fraction arithmetic.
    """
    dx, dy = goal[0] - start[0], goal[1] - start[1]
    d = distance(start, goal)
    if d == 0:
        return start
    if step >= d - reach:
        return (goal[0] - round(Fraction(dx * reach, d)), goal[1] - round(Fraction(dy * reach, d)))
    return (start[0] + round(Fraction(dx * step, d)), start[1] + round(Fraction(dy * step, d)))


def decide_move(b: Battle, c: CombatantState) -> Moved | None:
    """Advance toward the target unless holding, wrestling, in reach or shooting."""
    spec = b.specs[c.id]
    if spec.tactics == "hold" or c.bout is not None or not c.conscious:
        return None
    target = b.pick(c, b.enemies(c))
    reach = b.options.melee_reach
    if target is None or distance(c.at, target.at) <= reach:
        return None
    if spec.tactics == "skirmish" and b.missile_targets(c):
        return None
    allowance = spec.move // STUNNED["move_divisor"] if c.stunned(b.turn) else spec.move
    if allowance == 0:
        return None
    to = approach(c.at, target.at, allowance, reach)
    if to == c.at:
        return None
    return Moved(
        **stamp(b),
        combatant=c.id,
        start=c.at,
        to=to,
        feet=distance(c.at, to),
        allowance=allowance,
        toward=target.id,
        left_cover=b.options.cover_lost_on_move and c.cover != "none",
    )
