"""Named, documented options of the ``becmi`` ruleset.

Each is an interpretation of a gap in the seed ([ours], [fan] in
``shared/rules-notes.md`` §3) or a switch the rules offer; ``docs/rules/becmi.md``
gives each one's source and why its default was chosen.  Scenarios set them
under ``options:``.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from sim.contract.options import later_option

__all__ = ["BecmiOptions"]


class BecmiOptions(BaseModel):
    """Options of the becmi ruleset, with their defaults."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    natural_1_misses: bool = Field(
        True, description="[ours] A natural 1 on the to-hit d20 always misses."
    )
    natural_20_hits: bool = Field(
        False, description="[ours] A natural 20 on the to-hit d20 always hits (off: it does not)."
    )
    low_plateaus: Literal["every_10", "two_and_minus_10"] = later_option(
        "every_10",
        "[ours] To-hit plateaus below 2 at T = 2, -10, -20, ... (seed 001 L13's "
        "'etc.' continued in steps of 10); 'two_and_minus_10': only the two the seed names.",
    )
    minus_hd_row: Literal["n", "n_minus_1"] = later_option(
        "n",
        "[ours] A monster of n-k Hit Dice reads the THAC0 table's row of n HD (the seed's "
        "rows name only n and n+); 'n_minus_1': the row of n-1 HD (2-1 HD: 'up to 1').",
    )
    short_range_modifier: int = Field(
        1, ge=-10, le=10, description="[fan] To-hit at short range (seed line lost)."
    )
    medium_range_modifier: int = Field(
        0, ge=-10, le=10, description="[fan] To-hit at medium range (seed line lost)."
    )
    monster_con_per_hd: int = Field(
        2,
        ge=0,
        le=20,
        description="[ours] A monster's C in the stun roll t = d20 - C is this × HD "
        "(the seed line is cut after '2×').",
    )
    stun_c: Literal["constitution", "constitution_adjustment"] = later_option(
        "constitution",
        "[ours] A character's C' in the stun roll t = d20 - C' (seed 001 L50) is "
        "its Constitution score; 'constitution_adjustment': the Constitution adjustment.",
    )
    haymaker_save: Literal["replaces", "adds"] = later_option(
        "replaces",
        "[ours] A haymaker's knock-out save is at -4 instead of the blow's +4 "
        "(seed 001 L53 read as replacing it); 'adds': -4 on top of +4 (net 0).",
    )
    monster_save_as: Literal["fighter", "cleric", "thief", "magic_user", "normal_man"] = (
        later_option(
            "fighter",
            "[src] A monster without a save_as saves as a fighter of its Hit Dice (1/2 HD: "
            "normal man). [ours] 'cleric', 'thief', 'magic_user': as that class of its Hit "
            "Dice; 'normal_man': as a normal man whatever its Hit Dice.",
        )
    )
    haymaker_may_pull: bool = Field(
        False, description="[ours] A haymaker may be pulled (off: words lost in the seed)."
    )
    wrestling_small_helper: int = Field(
        1,
        ge=0,
        le=20,
        description="[fan] WR bonus for each extra wrestler with no more than half the "
        "leader's HD.",
    )
    wrestling_big_helper: int = Field(
        5, ge=0, le=20, description="[fan] WR bonus for each bigger extra wrestler."
    )
    pin_damage_rounds: Literal["won_or_held", "held"] = later_option(
        "won_or_held",
        "[ours] Pin damage (seed 001 L65) every round that ends in a pin, the round the pin "
        "is won included; 'held': only a round that begins and ends in the pin.",
    )
    character_hd: Literal["level"] = Field(
        "level",
        description="[ours] A character's HD, for the several-wrestlers rule, is its level.",
    )
    pinned_escape_penalty: int = Field(
        3, ge=0, le=20, description="Seed L65: a pinned wrestler rolls at WR − 3."
    )
    stun_rounds: int = Field(
        1, ge=1, le=10, description="[src] A stun lasts one round after the round of the blow."
    )
    monster_morale: bool = Field(
        True,
        description="Optional rule [src]: monsters check morale (2d6 against ML) when the "
        "first of their side falls and when half are out.",
    )
    initiative_ties: Literal["simultaneous", "first_listed"] = Field(
        "simultaneous",
        description="[src] Sides that tie on initiative act simultaneously: one felled "
        "in a phase by a tied side still acts in that phase. 'first_listed' [ours]: "
        "scenario order decides.",
    )
    in_bout: Literal["wrestle_only"] = Field(
        "wrestle_only",
        description="[ours] A combatant in a wrestling bout only wrestles: no blows, "
        "no weapon, no missile, no move.",
    )
    cover_lost_on_move: bool = Field(
        True, description="[ours] A combatant that moves leaves its cover."
    )
    melee_reach: int = Field(
        5, ge=1, le=30, description="[ours] Feet within which combatants fight hand to hand."
    )
    missile_in_melee: bool = Field(
        False,
        description="[ours] A combatant with an enemy within melee reach may still fire "
        "missiles (off: it fights hand to hand).",
    )
    minimum_weapon_damage: int = Field(
        1, ge=0, le=5, description="[src] A weapon hit does at least this much damage."
    )
