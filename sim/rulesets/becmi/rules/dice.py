"""Dice on a named stream, returned as event payloads with their draws.

Every roll is :meth:`sim.contract.Rolls.roll`: ``Stream.roll(sides)``, whose
:class:`~engine.events.Draw` is kept in the caller's ``Rolls.draws`` in the
order rolled.
"""

from __future__ import annotations

from typing import Literal

from sim.contract.emit import Rolls
from sim.rulesets.becmi.model.events import Damage, PlateauStep, Save, ToHit
from sim.rulesets.becmi.model.options import BecmiOptions
from sim.rulesets.becmi.model.tohit import needed

__all__ = ["hits", "roll_damage", "roll_save", "roll_to_hit"]


def _nonzero(mods: dict[str, int]) -> dict[str, int]:
    return {k: v for k, v in mods.items() if v != 0}


Natural = Literal["1 misses", "20 hits"]


def hits(roll: int, total: int, needed: int, options: BecmiOptions) -> tuple[bool, Natural | None]:
    """Whether a d20 ``roll`` (``total`` with modifiers) hits when ``needed`` is needed.

    A natural 1 misses and a natural 20 hits only under their options [ours].
    """
    hit = total >= needed
    if roll == 1 and options.natural_1_misses and hit:
        return False, "1 misses"
    if roll == 20 and options.natural_20_hits and not hit:
        return True, "20 hits"
    return hit, None


def roll_to_hit(
    dice: Rolls,
    thac0: int,
    ac_base: int,
    ac_mods: dict[str, int],
    mods: dict[str, int],
    options: BecmiOptions,
) -> ToHit:
    """Roll d20 + modifiers against the needed roll (seed 001 L9–L14).

    A natural 1 misses and a natural 20 hits only under their options [ours].
    """
    ac_mods = _nonzero(ac_mods)
    mods = _nonzero(mods)
    ac = ac_base + sum(ac_mods.values())
    need = needed(thac0, ac, options.low_plateaus == "every_10")
    roll = dice.roll(20)
    total = roll + sum(mods.values())
    hit, natural = hits(roll, total, need.needed, options)
    return ToHit(
        thac0=thac0,
        ac_base=ac_base,
        ac_modifiers=ac_mods,
        ac=ac,
        h=need.h,
        steps=[PlateauStep(threshold=t, before=b, after=a) for t, b, a in need.steps],
        needed=need.needed,
        damage_bonus=need.damage_bonus,
        modifiers=mods,
        roll=roll,
        total=total,
        natural=natural,
        hit=hit,
    )


def roll_damage(
    dice: Rolls,
    damage: tuple[int, int],
    mods: dict[str, int],
    minimum: int,
) -> Damage:
    """Roll ``n`` d``sides`` (``damage``) plus modifiers, at least ``minimum``."""
    n, sides = damage
    rolls = [dice.roll(sides) for _ in range(n)]
    mods = _nonzero(mods)
    total = max(minimum, sum(rolls) + sum(mods.values()))
    return Damage(dice=f"{n}d{sides}", rolls=rolls, modifiers=mods, minimum=minimum, total=total)


def roll_save(dice: Rolls, number: int, save_as: str, mods: dict[str, int]) -> Save:
    """Save vs Death Ray: d20 + modifiers ≥ the table's number [src]."""
    mods = _nonzero(mods)
    roll = dice.roll(20)
    total = roll + sum(mods.values())
    return Save(
        save_as=save_as,
        number=number,
        modifiers=mods,
        roll=roll,
        total=total,
        saved=total >= number,
    )
