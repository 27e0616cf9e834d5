"""Named, documented options of the ``musket`` ruleset.

Each option is an interpretation of a gap in the seed, or a switch the
seed offers; ``docs/rules/musket.md`` gives each one's source and why its
default was chosen.  Scenarios set them under ``options:``.
"""

from __future__ import annotations

from typing import ClassVar, Literal

from pydantic import ConfigDict, Field

from sim.contract.options import ChangedDefaults, later_option

__all__ = ["RULES_V1", "MusketOptions"]

RULES_V1: dict[str, object] = {
    "disrupted_attackers_fall_back": False,
    "break_off_loss": None,
    "charge_test": False,
    "melee_winner_tests": True,
}
"""The options whose defaults musket rules version 2 changed, at their version-1 values:
a replay fought under version 1 is read, fought again and written with these."""


class MusketOptions(ChangedDefaults):
    """Options of the musket ruleset, with their defaults."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    CHANGED: ClassVar[dict[str, dict[str, object]]] = {"2": RULES_V1}

    alternative_fire: bool = Field(
        False,
        description="Seed's optional Alternative Calculation for fire: casualty value "
        "is the average of two uniform draws (triangular), rounded once.",
    )
    alternative_melee: bool = Field(
        False, description="Alternative Calculation for melee, switched independently."
    )
    fire_lcv: float = Field(5, ge=0, le=1000, description="Fire Low Combat Value per 1000.")
    fire_hcv: float = Field(25, ge=0, le=1000, description="Fire High Combat Value per 1000.")
    melee_lcv: float = Field(
        10, ge=0, le=1000, description="[ours] Melee Low Combat Value per 1000."
    )
    melee_hcv: float = Field(
        50, ge=0, le=1000, description="[ours] Melee High Combat Value per 1000."
    )
    men_per_gun: int = Field(25, ge=1, le=1000, description="Men per gun for artillery losses.")
    gun_loss_rule: Literal["proportional"] = Field(
        "proportional",
        description="[ours] Losses of 25+ men: floor(loss/25) guns plus one "
        "more with probability (loss mod 25)/25.",
    )
    guns_lost_to_any_loss: bool = later_option(
        True,
        "[ours] A battery loses guns (1 gun = men_per_gun men) from any loss: "
        "melee and cavalry fire too. Off: only enemy artillery and infantry fire, the "
        "sources seed 003 names; other losses cost it no guns.",
    )
    fatigue_from: Literal["rounded", "unrounded"] = later_option(
        "rounded",
        "[ours] Fatigue Uniform(c, 3c) is drawn from the rounded casualties c, "
        "so a loss that rounds to 0 adds none; 'unrounded': from the casualty value x "
        "before rounding, the seed's 'casualty value' elsewhere.",
    )
    fatigue_rounding: Literal["random"] = Field(
        "random", description="[ours] Fatigue Uniform(c, 3c) is randomly rounded like casualties."
    )
    fatigue_max: int = Field(900, ge=1, le=100000, description="Maximum fatigue [src].")
    fatigue_medium: int = Field(300, ge=0, description="Fatigue at which medium begins [src].")
    fatigue_high: int = Field(600, ge=0, description="Fatigue at which high begins [src].")
    fatigue_penalty_medium: int = Field(10, ge=0, le=100, description="Fire/melee % lost [src].")
    fatigue_penalty_high: int = Field(20, ge=0, le=100, description="Fire/melee % lost [src].")
    fatigue_penalty_max: int = Field(
        40,
        ge=0,
        le=100,
        description="[ours] % lost at maximum fatigue; also the cap of any "
        "fatigue penalty [src: maximum penalty −40 %].",
    )
    artillery_fatigue_double: bool = Field(True, description="Artillery fatigue penalty x2 [src].")
    melee_fatigue_factor: float = Field(1.5, ge=0, le=10, description="Melee fatigue x1.5 [src].")
    melee_loser_fatigue_factor: float = Field(
        2.0, ge=0, le=10, description="The melee loser's fatigue x2 [src]."
    )
    defending_gun_men: int = Field(
        8, ge=0, le=100, description="A defending gun counts as this many men [src]."
    )
    routed_defender_divisor: float = Field(
        4, ge=1, le=100, description="Routed defenders count ÷4 [src]."
    )
    melee_winner_rule: Literal["lower_loss_share"] = Field(
        "lower_loss_share",
        description="[ours] The side that lost the smaller share of its "
        "strength wins; a tie goes to the defender.",
    )
    melee_quality: bool = Field(
        True,
        description="[ours] The striking side's quality modifier (A/B +10 %, E/F -10 %) "
        "applies in melee as in fire.",
    )
    melee_cover: bool = Field(
        True,
        description="[ours] Cover of the struck unit's hex "
        "modifies melee casualties as it does fire.",
    )
    winner_advances: bool = Field(
        True, description="[ours] A winning attacker takes the hex the defender retreated from."
    )
    guns_captured: bool = Field(
        True, description="[ours] Artillery that loses a melee is captured (eliminated)."
    )
    disrupted_fire_factor: float = Field(0.5, ge=0, le=1, description="Disrupted firer x0.5 [fan].")
    moved_fire_factor: float = Field(0.5, ge=0, le=1, description="Firer that moved x0.5 [fan].")
    column_target_modifier: int = Field(
        40, ge=-100, le=100, description="Fire at a unit in column +40 % [fan]."
    )
    rest_recovery_chance: float = Field(
        0.5,
        ge=0,
        le=1,
        description="[ours] Chance per turn that a unit that neither moved, "
        "fired nor fought recovers fatigue.",
    )
    rest_recovery_amount: int = Field(
        100, ge=0, le=100000, description="[ours] Fatigue recovered on a successful rest."
    )
    infantry_move: int = Field(
        4, ge=0, le=50, description="[ours] Movement points a turn, infantry in line."
    )
    column_move_bonus: int = Field(
        2, ge=0, le=50, description="[ours] Extra movement points in column."
    )
    cavalry_move: int = Field(8, ge=0, le=50, description="[ours] Movement points, cavalry.")
    artillery_move: int = Field(4, ge=0, le=50, description="[ours] Movement points, artillery.")
    artillery_moved_cannot_fire: bool = Field(
        True, description="[ours] A battery that moved this turn does not fire (limbered)."
    )
    engage_range: int = Field(
        2,
        ge=1,
        le=20,
        description="[ours] An 'engage' order advances until its target is this many hexes away.",
    )
    zone_of_control: bool = Field(
        True, description="[ours] A unit that comes next to an enemy stops moving."
    )
    disrupted_attackers_fall_back: bool = later_option(
        True,
        "[ours] A disrupted unit on a charge or engage order falls back toward its retreat "
        "edge, as far as its movement allows and until no enemy is within 2 hexes, where it "
        "may rally and come on again (rules version 2). false: disrupted units hold where "
        "they are, under fire, neither closing nor leaving (version 1).",
    )
    break_off_loss: float | None = later_option(
        0.4,
        "[ours] An attacking unit (a charge or engage order) that has lost this share "
        "of its strength at the start of the battle breaks off: it no longer charges, and "
        "falls back toward its retreat edge as on a retire order (rules version 2). "
        "null: attacks go on to the end (version 1).",
        ge=0,
        le=1,
    )
    charge_test: bool = later_option(
        True,
        "[ours] A unit about to charge first tests its morale (the seed's test, with "
        "-1 more for each whole 20 % of cover its target has); failing, it does not close "
        "this turn and stays where it is, firing (rules version 2). false: every charge "
        "that may go in goes in (version 1).",
    )
    melee_winner_tests: bool = later_option(
        False,
        "[ours] false: the side that wins a melee takes no morale check for its losses "
        "in it, only the loser does (rules version 2). true: both do, so a defender that "
        "throws a charge back can rout for the men it lost doing so (version 1).",
    )
