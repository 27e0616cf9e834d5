"""Weapon attacks: hand to hand and missile, each one ``becmi.attacked`` event.

Draws on ``<round>/attack/<attacker>``: the to-hit d20, then the damage dice
on a hit.
"""

from __future__ import annotations

from sim.contract.emit import Rolls, stamp
from sim.rulesets.becmi.model.data import WEAPONS
from sim.rulesets.becmi.model.events import Attacked, wound
from sim.rulesets.becmi.model.state import CombatantState
from sim.rulesets.becmi.rules.context import Band, Battle, distance
from sim.rulesets.becmi.rules.dice import roll_damage, roll_to_hit

__all__ = ["decide_melee_attack", "decide_missile"]


def _resolve(
    b: Battle,
    c: CombatantState,
    target: CombatantState,
    phase: str,
    weapon: str,
    mods: dict[str, int],
    band: Band | None,
    cover: str | None,
) -> Attacked:
    dice = Rolls(b.stream("attack", c.id))
    ac_base, ac_mods = b.armour_class(target.id)
    th = roll_to_hit(dice, b.thac0(c.id), ac_base, ac_mods, mods, b.options)
    damage = None
    if th.hit:
        dmg_mods = {"negative_h": th.damage_bonus}
        if phase == "melee":
            dmg_mods["strength"] = b.str_adj(c.id)  # [src] Str adjusts hand-to-hand damage
        weapon_damage = WEAPONS[weapon]["damage"]
        assert isinstance(weapon_damage, tuple)
        damage = roll_damage(dice, weapon_damage, dmg_mods, b.options.minimum_weapon_damage)
    return Attacked(
        **stamp(b),
        phase=phase,
        attacker=c.id,
        target=target.id,
        weapon=weapon,
        distance=distance(c.at, target.at),
        range_band=band,
        cover=cover,
        to_hit=th,
        damage=damage,
        **wound(target.hp, damage.total if damage is not None else 0),
        draws=dice.draws,
    )


def decide_melee_attack(b: Battle, c: CombatantState, target: CombatantState) -> Attacked:
    """A hand-to-hand weapon attack: Str adjusts the roll and the damage [src]."""
    weapon = b.specs[c.id].weapon
    assert weapon is not None
    return _resolve(b, c, target, "melee", weapon, {"strength": b.str_adj(c.id)}, None, None)


def decide_missile(b: Battle, c: CombatantState) -> Attacked | None:
    """A missile attack if the combatant may shoot and has a target in range.

    It may not if it moved this round, is in a bout, or (without
    ``missile_in_melee``) has an enemy within melee reach. Dex adjusts the
    roll [src]; range (seed 001 L71–L75) and cover (L79–L85) too.
    """
    spec = b.specs[c.id]
    if spec.missile is None or c.bout is not None or c.moved_round == b.turn:
        return None
    if not b.options.missile_in_melee and b.in_reach(c):
        return None
    target = b.pick(c, b.missile_targets(c))
    if target is None:
        return None
    band, range_mod = b.range_band(c, target)
    cover_mod = b.cover_modifier(target)
    assert cover_mod is not None
    mods = {"dexterity": b.dex_adj(c.id), "range": range_mod, "cover": cover_mod}
    cover = None if target.cover == "none" else f"{target.cover} {target.cover_kind}"
    return _resolve(b, c, target, "missile", spec.missile, mods, band, cover)
