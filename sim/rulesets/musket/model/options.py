"""Named, documented options of the ``musket`` ruleset.

Each option is an interpretation of a gap in the seed, or a switch the
seed offers; ``docs/rules/musket.md`` gives each one's source and why its
default was chosen.  Scenarios set them under ``options:``.
"""

from __future__ import annotations

from typing import Annotated, ClassVar, Literal, cast

from pydantic import ConfigDict, Field

from sim.contract.bases import Share
from sim.contract.options import ChangedDefaults, later_option
from sim.rulesets.musket.model.data import TERRAIN

__all__ = [
    "RULES_V1",
    "RULES_V2",
    "RULES_V3",
    "RULES_V4",
    "RULES_V5",
    "RULES_V6",
    "RULES_V7",
    "MusketOptions",
]

RULES_V1: dict[str, object] = {
    "disrupted_attackers_fall_back": False,
    "break_off_loss": None,
    "charge_test": False,
    "melee_winner_tests": True,
}
"""The options whose defaults musket rules version 2 changed, at their version-1 values:
a replay fought under version 1 is read, fought again and written with these."""


RULES_V2: dict[str, object] = {
    "melee_winner_rule": "lower_loss_share",
    "closing_loss_step": None,
    "closing_support": None,
    "closing_odds": None,
    "closing_recoil_margin": None,
    "rout_loss": None,
    "loss_morale_step": None,
    "cover_morale": 0,
    "heavy_loss_check": False,
    "pass_through_friends": False,
    "assault_exhaustion": None,
    "routed_rally_out_of_fire": False,
    "spare_routed": False,
    "enfilade": False,
}
"""The options whose defaults musket rules version 3 changed (or that version 3 added),
at their version-2 values, which leave version 2's behaviour as it was: a replay fought
under version 2 (or 1) is read, fought again and written with these."""


RULES_V3: dict[str, object] = {
    "spent_out_loss": None,
    "column_fire_share": None,
}
"""The options whose defaults musket rules version 4 changed, at their version-3 values
(the fitting set chose spent_out_loss 0.2 and column_fire_share 0.5): a replay fought
under version 3 (or 2, 1) is read, fought again and written with these."""


RULES_V4: dict[str, object] = {
    "closing_depth": False,
    "column_closing_share": None,
}
"""The options whose defaults musket rules version 5 changed, at their version-4 values
(the fitting set chose closing_depth true and column_closing_share 0.25): a replay fought
under version 4 (or 3, 2, 1) is read, fought again and written with these."""


RULES_V5: dict[str, object] = {
    "rout_prisoners_share": 0.0,
}
"""The options whose defaults musket rules version 6 changed, at their version-5 values
(the fitting set chose rout_prisoners_share 0.25): a replay fought under version 5 (or 4,
3, 2, 1) is read, fought again and written with these."""


RULES_V6: dict[str, object] = {
    "cavalry_closing_loss_step": None,
    "cavalry_ride_past": None,
}
"""The options whose defaults musket rules version 7 changed, at their version-6 values
(the fitting set chose cavalry_closing_loss_step 0.06 with cavalry_ride_past all): a
replay fought under version 6 (or 5, 4, 3, 2, 1) is read, fought again and written with
these."""


RULES_V7: dict[str, object] = {
    "cavalry_vs_line": None,
}
"""The option whose default musket rules version 8 changed, at its version-7 value (the
fitting set chose cavalry_vs_line 3): a replay fought under version 7 (or earlier) is read,
fought again and written with it."""


def _cover(terrain: str, arc: str) -> int:
    """Option ``cover_<terrain>`` (ours): the terrain table's cover, left out at it."""
    default = TERRAIN[terrain]["cover"]
    what = terrain.replace("_", " ")
    return cast(
        int,
        later_option(
            default,
            f"[ours] The cover (percent) of every hex of {what} whose terrain patch sets none, "
            f"against fire and, with melee_cover, a charge{arc}: the terrain table's {default} "
            "(rules-notes, Fire values) by default. Set it to change the cover of all a "
            "scenario's " + what + "; a new rules version may change its default.",
            ge=-100,
            le=100,
        ),
    )


class MusketOptions(ChangedDefaults):
    """Options of the musket ruleset, with their defaults."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    CHANGED: ClassVar[dict[str, dict[str, object]]] = {
        "2": RULES_V1,
        "3": RULES_V2,
        "4": RULES_V3,
        "5": RULES_V4,
        "6": RULES_V5,
        "7": RULES_V6,
        "8": RULES_V7,
    }

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
    melee_winner_rule: Literal["lower_loss_share", "odds"] = Field(
        "odds",
        description="[ours] Who wins a melee. 'odds' (rules version 3): a draw against "
        "the attacker's chance r^k/(r^k + 1), r the odds of the two sides' weights "
        "(strength with quality, fatigue, formation, order, the defender's cover and "
        "flank), k = melee_odds_exponent. 'lower_loss_share' (versions 1-2): the side that "
        "lost the smaller share of its strength wins; a tie goes to the defender.",
    )
    melee_odds_exponent: float = later_option(
        1.0,
        "[ours] k of the 'odds' melee rule: how steeply the attacker's chance of winning "
        "rises with the odds r (r = 1: one half, whatever k).",
        ge=0,
        le=20,
    )
    melee_column_bonus: int = later_option(
        20,
        "[ours] 'odds' melee rule: an attacker in column weighs this many percent more "
        "(shock: the column's weight of men at the point of contact).",
        ge=-100,
        le=500,
    )
    melee_disorder_factor: float = later_option(
        0.5,
        "[ours] 'odds' melee rule: a disrupted side weighs this much (x).",
        ge=0,
        le=1,
    )
    melee_flank_factor: float = later_option(
        0.5,
        "[ours] 'odds' melee rule, with enfilade: a defender charged from its flank or "
        "rear weighs this much (x), and its wall, breastworks or fence does not count.",
        ge=0,
        le=1,
    )
    cavalry_vs_formed: float = later_option(
        1.0,
        "[ours] 'odds' melee rule: a cavalry attacker's weight (x) against infantry in "
        "good order (or spent) charged from its front: a closed front, or a square, that "
        "cavalry rarely broke. 1: cavalry weighs as any other attacker (rules version 3 "
        "as shipped); not yet chosen on a fitting case.",
        ge=0,
        le=10,
    )
    cavalry_vs_broken: float = later_option(
        1.0,
        "[ours] 'odds' melee rule: a cavalry attacker's weight (x) against infantry or "
        "artillery that is disrupted or routed, or charged in its flank or rear (with "
        "enfilade): men caught in line or in disorder, whom cavalry cut up. 1: as any "
        "other attacker (rules version 3 as shipped); not yet chosen on a fitting case.",
        ge=0,
        le=10,
    )
    cavalry_vs_line: float | None = later_option(
        3.0,
        "[ours] 'odds' melee rule: a cavalry attacker's weight (x) against infantry in line "
        "formation in good order (or spent) charged from its front, in place of "
        "cavalry_vs_formed, which then applies to infantry in column (the rules' square) "
        "only: a battalion caught in line, which cavalry often rode over. 3 chosen on the "
        "fitting cases (rules version 8). null: a line counts as formed (cavalry_vs_formed; "
        "version 7).",
        ge=0,
        le=10,
    )
    cavalry_pursuit_share: Annotated[float, Share("the beaten unit's men left")] = later_option(
        0.0,
        "[ours] Infantry or artillery that loses a melee to cavalry (and is not captured) "
        "loses this share of the strength it has left after the melee's casualties, "
        "rounded down (men, or guns): cut down in flight or taken. Recorded as the "
        "meleed's pursuit_losses. 0: no pursuit (rules version 3 as shipped).",
        ge=0,
        le=1,
    )
    cavalry_pursuit_prisoners: Annotated[float, Share("the men the pursuit takes")] = later_option(
        0.0,
        "[ours] Of the men (guns) cavalry_pursuit_share takes from a beaten unit, this share, "
        "rounded down, is taken prisoner: recorded in the meleed's prisoners (with any "
        "rout_prisoners_share gives) instead of its pursuit_losses, which keeps the men cut "
        "down. The pursuit's total is unchanged. 0: every man of the pursuit is recorded cut "
        "down, as before the option.",
        ge=0,
        le=1,
    )
    cavalry_charge_home: bool = later_option(
        False,
        "[ours] Cavalry charging closes in its move: cavalry on a charge order that moved "
        "this turn and stands next to its charge target is fired on only by that target, "
        "one volley, and only when it comes from the target's front (none from its flank "
        "or rear; other firers hold their fire); the charge test reads that fire. A cavalry "
        "unit that fails its charge test is thrown back, never left in a firefight at one "
        "hex. false: cavalry halts at one hex and is fired on by every enemy in reach, as "
        "infantry is (rules version 3 as shipped).",
    )
    cavalry_rally_distance: int | None = later_option(
        None,
        "[ours] With assault_exhaustion: spent cavalry rallies to good order with no enemy "
        "within this many hexes (1: a turn out of contact), fired on or not, rested or not, "
        "and may charge again. null: as infantry, only out of fire "
        "(spent_rally_distance; rules version 3 as shipped).",
        ge=1,
        le=50,
    )
    cavalry_routs_infantry: bool = later_option(
        False,
        "[ours] Infantry that loses a melee to cavalry is routed, not merely disrupted: "
        "broken, it is ridden down. false: disrupted if it was in good order (rules "
        "version 3 as shipped).",
    )
    cavalry_stand_test: int | None = later_option(
        None,
        "[ours] Infantry charged by cavalry while in line, disrupted or spent, or from its "
        "flank or rear, takes a morale check before the melee: the ordinary check's value "
        "plus this; failing, it is routed and fought as a routed defender (a column in good "
        "order charged from its front, the rules' square, takes none). Recorded as the "
        "meleed's stand_test. null: no test, the defender fights the melee as it stands; "
        "fitted on 2026-12-07, the neutral chosen.",
        ge=-3,
        le=3,
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
    break_off_loss: Annotated[float | None, Share("the unit's starting strength")] = later_option(
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
    closing_loss_step: Annotated[float | None, Share("the charging unit's men")] = later_option(
        0.03,
        "[ours] With charge_test: the charging unit's test is -1 more for each whole "
        "share of this size of its strength it has lost to fire this turn (what the "
        "defender's fire has just done to it; rules version 3). null: no such modifier "
        "(version 2).",
        gt=0,
        le=1,
    )
    closing_support: int | None = later_option(
        1,
        "[ours] With charge_test: +this when a unit of its own side in good order stands "
        "right behind the charging unit (its rear hexside): a supported attack, a column "
        "of lines, goes in where a lone line stops (rules version 3). null: support does "
        "not count (version 2).",
        ge=0,
        le=6,
    )
    closing_odds: int | None = later_option(
        1,
        "[ours] With charge_test: +this when the charging unit's men are at least twice "
        "the target's melee strength, -this when they are fewer (rules version 3). "
        "null: odds do not count in the test (version 2).",
        ge=0,
        le=6,
    )
    closing_recoil_margin: int | None = later_option(
        3,
        "[ours] With charge_test: a unit that fails its test by this much or more (roll "
        "minus morale value) is thrown back: it is spent (assault_exhaustion) and "
        "withdraws; failing by less it stays in the firefight (rules version 3). null: "
        "a failed test always leaves it in the firefight (version 2).",
        ge=1,
        le=12,
    )
    rout_loss: Annotated[float | None, Share("the unit's starting strength")] = later_option(
        0.3,
        "[ours] A unit that fails a morale check when it has lost this share of its "
        "starting strength routs, in any phase (defensive fire included): heavy losses "
        "end its fight (rules version 3). null: a failed check in defensive fire only "
        "disrupts (version 2).",
        ge=0,
        le=1,
    )
    cover_morale: int = later_option(
        1,
        "[ours] Morale checks and rallies of a unit in a hex with 20 % cover or more (a "
        "wall, breastworks, a fence, woods) are +this: men behind works stand (rules "
        "version 3; 0: no such modifier, as version 2).",
        ge=0,
        le=6,
    )
    heavy_loss_check: bool = later_option(
        True,
        "[ours] A unit that has lost rout_loss or more of its starting strength checks "
        "morale after every loss (reason heavy_losses), as a unit at maximum fatigue does "
        "[src]: the seed's probability still decides the other checks (rules version 3). "
        "false: only the seed's draw and maximum fatigue require checks (version 2).",
    )
    loss_morale_step: Annotated[float | None, Share("the unit's starting strength")] = later_option(
        0.2,
        "[ours] Every morale check and rally of a unit is -1 for each whole share of "
        "this size of its starting strength it has lost (rules version 3). null: losses "
        "weigh on morale only through the check's probability (version 2).",
        gt=0,
        le=1,
    )
    pass_through_friends: bool = later_option(
        True,
        "[ours] Routed units, and disrupted or spent units falling back, go through "
        "hexes of their own side and around them to get out (they end in an empty "
        "hex); rules version 3. false: they step only into empty hexes nearer their "
        "edge, and a unit blocked by its own side stays (version 2).",
    )
    assault_exhaustion: int | None = later_option(
        1,
        "[ours] A repulsed attacker (one that was disrupted, or thrown back by its "
        "charge test) rallies only to 'spent': it does not advance or charge, and "
        "withdraws until no enemy is within this many hexes (1: it keeps up the firefight "
        "at two hexes); it rallies to good order only out of fire (spent_rally_distance) "
        "(rules version 3). null: it rallies straight to good order and comes on again "
        "(version 2).",
        ge=1,
        le=50,
    )
    spent_counts_out: bool = later_option(
        True,
        "[ours] With assault_exhaustion: a spent unit counts as out for its army's "
        "break_units, as routed and eliminated ones do: an assault whose regiments have "
        "all been thrown back is over (rules version 3).",
    )
    spent_out_loss: Annotated[float | None, Share("the unit's starting strength")] = later_option(
        0.2,
        "[ours] With spent_counts_out: the share of its starting strength a spent unit "
        "must have lost to count as out for its army's break_units (0: every spent unit "
        "counts out); 0.2 chosen on the fitting cases (rules version 4). null: "
        "rout_loss's share (version 3).",
        ge=0,
        le=1,
    )
    disrupted_counts_out: bool = later_option(
        False,
        "[ours] With spent_counts_out: a disrupted unit counts as out for its army's "
        "break_units on the same terms as a spent one (once it has lost spent_out_loss, or "
        "rout_loss when that is null), so that a rally from disrupted to spent never turns a "
        "unit from in to out and breaks its army. false: a disrupted unit never counts out "
        "(rules version 8 as shipped).",
    )
    spent_rally_distance: int = later_option(
        4,
        "[ours] With assault_exhaustion: a spent unit rallies to good order only with no "
        "enemy within this many hexes, in a turn it was not fired on, and rested (fatigue "
        "below fatigue_medium).",
        ge=1,
        le=50,
    )
    routed_rally_out_of_fire: bool = later_option(
        True,
        "[ours] A routed unit does not try to rally in a turn it was fired on, so a unit "
        "routed by a volley runs before it can rally (rules version 3). false: it rallies "
        "whenever no enemy is next to it (version 2).",
    )
    spare_routed: bool = later_option(
        True,
        "[ours] A unit fires on a routed enemy (its ordered target or the nearest) only "
        "when no enemy in better order is within reach: fire goes to the threats, and a "
        "broken unit can get away (rules version 3). false: routed enemies are targets "
        "like any other (version 2).",
    )
    enfilade: bool = later_option(
        True,
        "[ours] Facing: every unit faces away from its side's retreat edge. Fire from a "
        "target's flank or rear gets enfilade_fire_modifier and its morale check "
        "enfilade_morale; a wall, breastworks or fence covers only against fire and "
        "charges from the front (rules version 3). false: units have no facing "
        "(version 2).",
    )
    enfilade_fire_modifier: int = later_option(
        40,
        "Fire at a unit from its flank or rear: +40 % [fan], with enfilade.",
        ge=-100,
        le=500,
    )
    enfilade_morale: int = later_option(
        -2,
        "Morale check of a unit fired on or charged from its flank or rear: -2 [src], "
        "with enfilade.",
        ge=-6,
        le=6,
    )
    column_fire_share: Annotated[float | None, Share("a column's men")] = later_option(
        0.5,
        "[ours] The share of a column's men that fire: an infantry or cavalry unit in "
        "column fires as strength x this many men (V = per-man value x strength x share, "
        "not rounded; the factor column_fire of its fire), as only a column's leading "
        "ranks could fire; 0.5 chosen on the fitting cases (rules version 4). null: "
        "every man fires, as the seed's family has it (version 3). Artillery and units "
        "in line are unaffected.",
        gt=0,
        le=1,
    )
    fire_scale: float = later_option(
        1.0,
        "[ours] Fire's Low and High Combat Values are multiplied by this: L = s x fire_lcv "
        "x E/1000, H = s x fire_hcv x E/1000 (melee untouched). 1: the fan reading's "
        "5/25, 15 men lost per 1,000 of effective fire value per turn on average.",
        gt=0,
        le=100,
    )
    close_fire_factor: float = later_option(
        1.0,
        "[ours] Fire at one hex (125 yards or less) is multiplied by this: the factor "
        "close of its fire value, small arms and guns alike, as musketry and canister at "
        "point-blank range were far deadlier than the fan's table's step from two hexes "
        "to one gives. 1: the fan's table as it is (rules version 5 as shipped).",
        gt=0,
        le=10,
    )
    spent_cover: int = later_option(
        0,
        "[ours] Fire at a spent unit (an attacker thrown back, keeping up the firefight) "
        "gets this modifier, in percent, as a cover modifier: its men have gone to ground "
        "short of the enemy's line, as repulsed attackers lay down and dug in. 0: none "
        "(rules version 5 as shipped).",
        ge=-100,
        le=0,
    )
    cover_woods: int = _cover("woods", "")
    cover_stone_wall: int = _cover("stone_wall", " (from the front only, with enfilade)")
    cover_breastworks: int = _cover("breastworks", " (from the front only, with enfilade)")
    cover_fence: int = _cover("fence", " (from the front only, with enfilade)")
    cavalry_target_modifier: int = later_option(
        0,
        "[ours] Fire at a cavalry unit (infantry's and artillery's) gets this modifier, in "
        "percent, recorded as the fired's modifier cavalry: horsemen spread out and moving at "
        "speed cross the last hundred yards under a volley or two, where a formed line stands "
        "a turn's fire. It lowers that fire's casualties, so a charging regiment's under_fire "
        "and its own losses. 0: none (rules version 8 as shipped).",
        ge=-90,
        le=0,
    )
    closing_depth: bool = later_option(
        True,
        "[ours] With charge_test: a charge in depth goes in as one mass. The charging "
        "unit's share lost to fire this turn (closing_loss_step) and its men for the odds "
        "(closing_odds) are taken over it together with the lines behind it: the unit of "
        "its own side and kind, in good order or spent, next to it in its rear arc, the "
        "one next to that in the same direction, and so on, in a straight line (a column "
        "of lines, whose rear lines carry the first one in); chosen on the fitting "
        "cases (rules version 5). false: the charging unit alone (version 4).",
    )
    column_closing_share: Annotated[float | None, Share("a column's men")] = later_option(
        0.25,
        "[ours] With charge_test: a charging infantry or cavalry unit in column counts "
        "this share of its men when its loss to fire this turn is taken as a share "
        "(closing_loss_step): the head of the column takes the volley, and a loss of 5 % "
        "of the column at 0.5 counts as 10 %; 0.25 chosen on the fitting cases (rules "
        "version 5). null: its whole strength (version 4).",
        gt=0,
        le=1,
    )
    assault_over_ends: bool = later_option(
        False,
        "[ours] The battle ends at a turn's end once its attack is over: some unit with a "
        "charge or engage order started in good order, and none is still in the attack "
        "(on the field, in good order and not broken off: every one is disrupted, spent, "
        "routed, eliminated, gone or has broken off). It is then decided as at the turn limit, "
        "on objective points. false: the battle runs to its turn limit unless an army "
        "breaks (rules version 5 as shipped).",
    )
    closing_rout_margin: int | None = later_option(
        None,
        "[ours] With charge_test: a unit that fails its test by this much or more (roll "
        "minus morale value) routs: the volley that stopped it broke it, its head "
        "carrying the rest away. null: a failure by closing_recoil_margin or more throws it "
        "back, spent, however large (rules version 5 as shipped).",
        ge=1,
        le=60,
    )
    counter_charge: Literal["open", "any"] | None = later_option(
        None,
        "[ours] The counterstroke: a unit under a hold order, infantry or cavalry in good "
        "order that has not fought this turn, charges an enemy next to it that is spent or "
        "disrupted (an attack thrown back or broken at its front) in a counterstroke phase "
        "after the melee phase, "
        "with no charge test; the melee is any charge's, and a winner takes the hex the "
        "loser left and holds there. 'open': only from a hex that gives it no cover "
        "against that enemy (men behind a wall, breastworks, a fence or in woods stay in "
        "them); 'any': from any hex. null: a unit on hold never charges (rules version 5 "
        "as shipped).",
    )
    counter_charge_own: bool = later_option(
        False,
        "[ours] With counter_charge: a unit on hold counter-charges only an enemy whose "
        "charge or engage order names it, the attack that came at it. false: any spent or "
        "disrupted enemy next to it (counter_charge as first written).",
    )
    counter_charge_holds: bool = later_option(
        False,
        "[ours] With counter_charge: a unit that wins its counterstroke stays where it "
        "stood, its line held, instead of taking the hex the loser left. false: it "
        "advances, as any winning attacker (counter_charge as first written).",
    )
    charging_fire: bool = later_option(
        False,
        "[ours] A unit on a charge order that moved this turn fires in the offensive fire "
        "phase, as any unit that moved (x moved_fire_factor), at its order's target when "
        "that is in reach, and then charges in the melee phase: the attack's fire on its "
        "way in. false: a charging unit that moved holds its fire (it fires only in a turn "
        "it did not move, in defensive fire).",
    )
    charge_in_the_way: bool = later_option(
        False,
        "[ours] A unit that may charge (on a charge order, not artillery, in good order, not "
        "yet fought this turn, not broken off) whose charge target is not next to it "
        "charges instead the enemy in its way: of the active enemy units next to it, the "
        "one nearest its charge target (ties: scenario order). Its charge test, the closing "
        "fire of cavalry_charge_home and the melee are against that enemy; it still moves "
        "toward its order's target. false: it charges only its charge target, and halted "
        "next to another enemy it stands and fires (rules version 6 as shipped); fitted on "
        "2026-12-07, the neutral chosen.",
    )
    rout_contagion: int | None = later_option(
        None,
        "[ours] When a unit routs (a failed check, or a melee lost that routs it), each "
        "unit of its side within this many hexes of it, on the map and not routed, takes "
        "an ordinary morale check (reason friend_routed; failing, disrupted in defensive "
        "fire and routed in any other phase, as any check), and a unit it routs spreads the "
        "test in turn. null: a unit's morale answers only to its own losses.",
        ge=1,
        le=3,
    )
    cavalry_closing_loss_step: Annotated[float | None, Share("the unit's men")] = later_option(
        0.06,
        "[ours] With charge_test: a cavalry unit's under_fire modifier is -1 for each whole "
        "step of this size of its men it lost to fire this turn (horse closed the last "
        "stretch in moments, through the volley). 0.06 chosen on the fitting cases with "
        "cavalry_ride_past all (rules version 7). null: closing_loss_step's, as infantry's "
        "(version 6).",
        gt=0,
        le=1,
    )
    cavalry_ride_past: Literal["broken", "all"] | None = later_option(
        "all",
        "[ours] Cavalry moving on its order is not held by the zone of control of every "
        "enemy. broken: an enemy that is routed or disrupted does not hold it (it rides on "
        "past, and one that starts next to only such enemies moves). all: as broken, and a "
        "cavalry unit on a charge order is held by no enemy but its charge target (it rides "
        "past formed units, squares included, to the one it was sent at); all chosen on the "
        "fitting cases with cavalry_closing_loss_step 0.06 (rules version 7). null: every "
        "enemy holds every unit (version 6).",
    )
    rout_prisoners_share: Annotated[float, Share("the routing unit's men left")] = later_option(
        0.25,
        "[ours] A unit that routs (a failed check in any phase, or a melee lost that routs "
        "it) while an enemy unit in good order (or spent) stands next to it loses this "
        "share of the strength it has left, rounded down (men, or guns): taken prisoner "
        "or missing. Recorded as the routing event's prisoners. 0.25 chosen on the fitting "
        "cases (rules version 6). 0: none (version 5).",
        ge=0,
        le=1,
    )
    melee_winner_tests: bool = later_option(
        False,
        "[ours] false: the side that wins a melee takes no morale check for its losses "
        "in it, only the loser does (rules version 2). true: both do, so a defender that "
        "throws a charge back can rout for the men it lost doing so (version 1).",
    )
