"""Striking: unarmed blows (seed 001 L47–L55), one ``becmi.struck`` event each.

Draws on ``<round>/strike/<attacker>``: the to-hit d20; on a hit that does
not kill, the stun d20; if stunned, the knock-out save d20.
"""

from __future__ import annotations

from engine.events import Draw
from sim.contract.emit import Rolls, stamp
from sim.rulesets.becmi.model.data import STUNNED
from sim.rulesets.becmi.model.events import Damage, Save, Struck, wound
from sim.rulesets.becmi.model.options import BecmiOptions
from sim.rulesets.becmi.model.state import CombatantState
from sim.rulesets.becmi.rules.context import Battle
from sim.rulesets.becmi.rules.dice import roll_save, roll_to_hit

__all__ = ["HAYMAKER_TO_HIT", "decide_strike", "knock_out_modifiers", "strike_damage"]

HAYMAKER_TO_HIT = -5
"""Seed 001 L53: a haymaker is at −5 to hit."""


def strike_damage(str_bonus: int, pulled: bool, negative_h: int) -> Damage:
    """Damage of a blow: 1 + Str bonus, or 0 if pulled (seed 001 L49); never below 0 [ours]."""
    if pulled:
        return Damage(dice="pulled", rolls=[], modifiers={}, minimum=0, total=0)
    mods = {k: v for k, v in (("strength", str_bonus), ("negative_h", negative_h)) if v}
    return Damage(
        dice="1", rolls=[1], modifiers=mods, minimum=0, total=max(0, 1 + sum(mods.values()))
    )


def knock_out_modifiers(haymaker: bool, options: BecmiOptions) -> dict[str, int]:
    """The blow's part of the knock-out save: +4, or a haymaker's −4 (seed 001 L52–L53).

    ``haymaker_save`` [ours]: ``replaces`` reads "−4 on SvDR" as the save at −4
    instead of +4; ``adds`` as −4 on top of the +4.
    """
    if not haymaker:
        return {"blow": 4}
    if options.haymaker_save == "replaces":
        return {"haymaker": -4}
    return {"blow": 4, "haymaker": -4}


def _stun(
    b: Battle, dice: Rolls, c: CombatantState, target: CombatantState, con: int
) -> tuple[int, int, Save | None, int]:
    """Stun roll t = d20 − C (L50) and, if stunned, the knock-out save (L52–L53).

    Returns:
        (stun roll, t, the save or None, rounds knocked out).
    """
    roll = dice.roll(20)
    t = roll - con
    if t <= 0:
        return roll, t, None, 0
    number, save_as = b.death_ray(target.id)
    mods = {
        **knock_out_modifiers(b.specs[c.id].haymaker, b.options),
        "attacker_strength": -b.str_adj(c.id),
        "stunned": STUNNED["saves"] if target.stunned(b.turn) else 0,
    }
    save = roll_save(dice, number, save_as, mods)
    return roll, t, save, 0 if save.saved else t


def decide_strike(b: Battle, c: CombatantState, target: CombatantState) -> Struck:
    """One blow: size rule, to-hit, damage, stun t = d20 − C, knock-out save."""
    spec, tspec = b.specs[c.id], b.specs[target.id]
    size_ok = 2 * spec.size >= tspec.size  # L48: at least half the defender's size
    haymaker = spec.haymaker
    pulled = spec.pull and (not haymaker or b.options.haymaker_may_pull)
    con, con_source = b.stun_con(target.id)
    draws: list[Draw] = []
    th = damage = save = None
    stun_roll = t = None
    knocked_out = lost = 0
    if size_ok:
        str_bonus = b.str_adj(c.id)
        mods = {"strength": str_bonus, "haymaker": HAYMAKER_TO_HIT if haymaker else 0}
        ac_base, ac_mods = b.armour_class(target.id)
        dice = Rolls(b.stream("strike", c.id), draws)
        th = roll_to_hit(dice, b.thac0(c.id), ac_base, ac_mods, mods, b.options)
        if th.hit:
            damage = strike_damage(str_bonus, pulled, th.damage_bonus)
            lost = damage.total
            if lost < target.hp:  # still standing: the blow may stun
                stun_roll, t, save, knocked_out = _stun(b, dice, c, target, con)
    return Struck(
        **stamp(b),
        attacker=c.id,
        target=target.id,
        attacker_size=spec.size,
        target_size=tspec.size,
        size_ok=size_ok,
        haymaker=haymaker,
        pulled=pulled,
        to_hit=th,
        damage=damage,
        con=con,
        con_source=con_source,
        stun_roll=stun_roll,
        t=t,
        stunned=t is not None and t > 0,
        stun_rounds=b.options.stun_rounds,
        save=save,
        knocked_out_rounds=knocked_out,
        **wound(target.hp, lost),
        draws=draws,
    )
