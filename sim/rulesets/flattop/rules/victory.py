"""Victory points and the end of the battle ([ours]; options ``points_per_air_factor``,
``victory_margin``, ``end_when_strikes_done``).

A side scores, for each enemy ship sunk, its damage factor; for each enemy
ship crippled and still afloat, half its damage factor rounded down; and
``points_per_air_factor`` for each enemy air factor destroyed (in the air,
aboard or ditched).  The side ahead by at least ``victory_margin`` wins;
otherwise the battle is a draw.

The end names as its cause the attack that last crippled or sank a ship (the
damage the points mostly come from); with no ship damaged it names none.
"""

from __future__ import annotations

from sim.contract.emit import stamp
from sim.rulesets.flattop.model.events import BattleEnded
from sim.rulesets.flattop.model.state import BattleState
from sim.rulesets.flattop.rules.context import Battle
from sim.text.grammar import agree

__all__ = ["DONE", "decide_end", "points"]

DONE = ("recovered", "destroyed", "ditched", "cancelled")
"""Strike statuses after which a strike does nothing more."""


def points(state: BattleState, per_air_factor: int) -> dict[str, int]:
    """Victory points of each side, in scenario order."""
    score = {sid: 0 for sid in state.sides}
    for ship in state.ships.values():
        for sid in score:
            if sid == ship.side:
                continue
            if ship.status == "sunk":
                score[sid] += ship.damage
            elif ship.status == "crippled":
                score[sid] += ship.damage // 2
    for side in state.sides.values():
        for sid in score:
            if sid != side.id:
                score[sid] += per_air_factor * sum(side.air_lost.values())
    return score


def decide_end(b: Battle, last_turn: bool) -> BattleEnded | None:
    """The end of the battle at the close of this hour, or None while it goes on."""
    done = all(s.status in DONE for s in b.state.strikes.values())
    if not last_turn and not (done and b.options.end_when_strikes_done):
        return None
    score = points(b.state, b.options.points_per_air_factor)
    (a, pa), (c, pc) = score.items()
    why = "every strike flown" if done else "turn limit"
    names = {s.id: s.name for s in b.scenario.sides}
    tally = f"{names[a]} {pa} points, {names[c]} {pc}"
    winner = a if pa - pc >= b.options.victory_margin else None
    if pc - pa >= b.options.victory_margin:
        winner = c
    verdict = agree(names[winner], f"leads by {abs(pa - pc)}") if winner else "no side leads enough"
    damaged = [s.status_cause for s in b.state.ships.values() if s.status_cause is not None]
    return BattleEnded(
        **stamp(b, max(damaged, default=None)),
        winner=winner,
        reason=f"{why}: {tally} — {verdict}",
        points=score,
    )
