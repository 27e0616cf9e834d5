"""Wrestling (seed 001 L57–L65): bouts, the hold ladder, pins.

A bout has two teams, the aggressors (who started it) and the defenders,
and a hold from −3 to 3: 0 free, 1 grab, 2 takedown, 3 pin by the
aggressors; −1, −2, −3 the same by the defenders.  Each round both teams
roll d20 + WR; the higher moves the hold one step toward itself, a tie
changes nothing (rules-notes §3).  A pinned team rolls at WR − 3 (L65).
Each round that ends in a pin, every pinned wrestler saves vs Death Ray or
takes 1 + the pinning leader's Str bonus (``pin_damage_rounds: held`` [ours]: only
a round that begins in the pin too).  A bout whose hold returns to 0
ends.  Draws on ``<round>/wrestle/<bout>``: the aggressors' d20, the
defenders' d20, then one save d20 per pinned wrestler.
"""

from __future__ import annotations

from typing import Literal

from sim.contract.emit import Rolls, stamp
from sim.rulesets.becmi.model.data import STUNNED
from sim.rulesets.becmi.model.events import Joined, Pin, Team, Wrestled, Wrestler, wound
from sim.rulesets.becmi.model.state import Bout, CombatantState
from sim.rulesets.becmi.rules.context import Battle
from sim.rulesets.becmi.rules.dice import roll_save

__all__ = ["decide_bout", "decide_join", "decide_wrestle", "pin_damage", "team_rating"]

Side = Literal["aggressors", "defenders"]


def team_rating(
    b: Battle, members: list[Wrestler], small: int, big: int
) -> tuple[Wrestler, dict[str, int]]:
    """The leader (highest WR; ties: scenario order) and each helper's bonus.

    A helper with no more than half the leader's HD adds ``small``, a bigger
    one ``big`` (seed 001 L61; [fan] rules-notes §3).
    """
    leader = min(members, key=lambda w: (-w.wr, b.rank[w.id]))
    helpers = {
        w.id: small if 2 * w.twice_hd <= leader.twice_hd else big
        for w in members
        if w.id != leader.id
    }
    return leader, helpers


def _team(b: Battle, dice: Rolls, ids: list[str], pinned: bool) -> Team:
    members = [b.wrestler(cid) for cid in ids]
    o = b.options
    leader, helpers = team_rating(b, members, o.wrestling_small_helper, o.wrestling_big_helper)
    penalty = -o.pinned_escape_penalty if pinned else 0
    wr = leader.wr + sum(helpers.values()) + penalty
    roll = dice.roll(20)
    return Team(
        members=members,
        leader=leader.id,
        helpers=helpers,
        pinned_penalty=penalty,
        wr=wr,
        roll=roll,
        total=roll + wr,
    )


def pin_damage(str_bonus: int) -> int:
    """Damage to a pinned wrestler that fails its save: 1 + Str bonus, at least 0 [ours]."""
    return max(0, 1 + str_bonus)


def _pins(b: Battle, dice: Rolls, victims: list[str], pinner: str) -> list[Pin]:
    str_bonus = b.str_adj(pinner)
    pins = []
    for cid in victims:
        c = b.state.combatants[cid]
        number, save_as = b.death_ray(cid)
        mods = {"stunned": STUNNED["saves"] if c.stunned(b.turn) else 0}
        save = roll_save(dice, number, save_as, mods)
        damage = 0 if save.saved else pin_damage(str_bonus)
        pins.append(
            Pin(
                combatant=cid,
                save=save,
                str_bonus=str_bonus,
                damage=damage,
                **wound(c.hp, damage),
            )
        )
    return pins


def decide_wrestle(
    b: Battle,
    bout_id: str,
    aggressors: list[str],
    defenders: list[str],
    hold: int,
    started: bool,
    cause: int | None = None,
) -> Wrestled:
    """One round of a bout (or its first, when ``started``).

    Args:
        cause: the bout's previous round, whose hold this round starts from
            (its pins follow from that hold); None for a bout's first round.
    """
    dice = Rolls(b.stream("wrestle", bout_id))
    a = _team(b, dice, aggressors, pinned=hold == -3)
    d = _team(b, dice, defenders, pinned=hold == 3)
    winner: Side | None = None
    if a.total != d.total:
        winner = "aggressors" if a.total > d.total else "defenders"
    after = hold + (1 if winner == "aggressors" else -1 if winner == "defenders" else 0)
    after = max(-3, min(3, after))
    pins: list[Pin] = []
    held = b.options.pin_damage_rounds == "held"  # [ours]: not the round the pin is won
    if after == 3 and (hold == 3 or not held):
        pins = _pins(b, dice, defenders, a.leader)
    elif after == -3 and (hold == -3 or not held):
        pins = _pins(b, dice, aggressors, d.leader)
    return Wrestled(
        **stamp(b, cause),
        bout=bout_id,
        started=started,
        aggressors=a,
        defenders=d,
        hold_before=hold,
        hold_after=after,
        winner=winner,
        pins=pins,
        ended=after == 0,
        draws=dice.draws,
    )


def decide_bout(b: Battle, bout: Bout) -> Wrestled | None:
    """The bout's round, unless it was already wrestled this round."""
    if bout.resolved_round == b.turn:
        return None
    return decide_wrestle(
        b, bout.id, bout.aggressors, bout.defenders, bout.hold, False, bout.last_round
    )


def decide_join(b: Battle, c: CombatantState, target: CombatantState) -> Joined:
    """``c`` joins the bout its target is in, on the team against the target."""
    assert target.bout is not None
    bout = b.state.bouts[target.bout]
    team: Side = "aggressors" if target.id in bout.defenders else "defenders"
    return Joined(**stamp(b), bout=bout.id, combatant=c.id, team=team)
