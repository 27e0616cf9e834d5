"""Named, documented options of the ``flattop`` ruleset.

Each option is a number or reading the seed does not give (rules-notes §2
[src], [fan] or [ours]); ``docs/rules/flattop.md`` gives each one's source and
why its default was chosen.  Scenarios set them under ``options:``.  Hit
tables are 0..15, 0 standing for the matrix's ``*`` row.
"""

from __future__ import annotations

from typing import Annotated, Any, ClassVar, Literal, get_args

from pydantic import ConfigDict, Field

from sim.contract.bases import Share
from sim.contract.options import ChangedDefaults, int_option, later_option
from sim.rulesets.flattop.model.data import ShipKind

__all__ = ["AA_OPTIONS", "DAMAGE_OPTIONS", "RULES_V1", "RULES_V2", "FlattopOptions"]

RULES_V1: dict[str, object] = {"table_anti_aircraft": 4, "cap_engagement": "every_raid"}
"""The options whose defaults flattop rules version 2 changed, at their version-1 values:
a replay fought under version 1 is read, fought again and written with these."""

RULES_V2: dict[str, object] = {
    "table_anti_aircraft": 1,
    "attack_factor_scale": 1,
    "retarget_sunk": True,
    "log_target_sunk": False,
    "aa_spoiled_per_kill": 0,
    "modifier_small_target": 0,
    "damage_carrier": 8,
    "damage_light_carrier": 5,
    "damage_battleship": 12,
    "damage_heavy_cruiser": 6,
    "damage_light_cruiser": 4,
    "damage_destroyer": 2,
    "damage_auxiliary": 3,
}
"""The options whose defaults flattop rules version 3 changed or added, at their version-2
(and version-1) values: the hits a strike puts on its target and the hits a ship of each
class takes to sink, both taken from the record of 1942's strikes, and what an attack does
when its target has sunk (docs/rules/flattop.md, *Rules versions*).  The damage factors
are those of ``data.SHIP_CLASSES``, which stays the tables' (and the header digest's)
version 1."""

DAMAGE_OPTIONS: dict[str, str] = {kind: f"damage_{kind}" for kind in get_args(ShipKind)}
"""The option holding each ship class's default damage factor (hits to sink), for each
of ``data.ShipKind``."""


AA_OPTIONS: dict[str, str] = {kind: f"aa_{kind}" for kind in get_args(ShipKind)}
"""The option holding each ship class's default AA factor, for each of ``data.ShipKind``."""


def _aa(default: int, what: str, why: str) -> Any:
    return later_option(
        default,
        f"[ours] AA factor of a {what} that does not set its own: {why}.  Left out of a "
        "replay's header at its default (data.SHIP_CLASSES' AA column, every rules version).",
        ge=0,
        le=50,
    )


def _table(default: int, text: str) -> int:
    return Field(default, ge=0, le=15, description=text)


def _damage(default: int, what: str, record: str) -> int:
    return Field(
        default,
        ge=1,
        le=100,
        description=f"[ours] Damage factor (hits to sink) of a {what} that does not set its "
        f"own; from the record of 1942: {record}.",
    )


def _speed(default: int, what: str) -> int:
    return Field(
        default, ge=1, le=100, description=f"[ours] Cruising speed of {what}, hexes an hour."
    )


def _radius(default: int, what: str) -> int:
    return Field(default, ge=0, le=200, description=f"[ours] Strike radius of {what}, hexes.")


class FlattopOptions(ChangedDefaults):
    """Options of the flattop ruleset, with their defaults."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    CHANGED: ClassVar[dict[str, dict[str, object]]] = {"2": RULES_V1, "3": RULES_V2}
    ADDED: ClassVar[frozenset[str]] = frozenset(RULES_V2) - {"retarget_sunk", "table_anti_aircraft"}

    # Basic hit tables: they belong to the attacker (rules-notes §2 [src]).
    table_fighter_air_to_air: int = _table(9, "[src] Fighters in air-to-air combat.")
    table_dive_bomber_ap_bomb: int = _table(7, "[src] Dive bombers with AP bombs.")
    table_dive_bomber_gp_bomb: int = _table(5, "[ours] Dive bombers with GP bombs.")
    table_torpedo_bomber_torpedo: int = _table(6, "[src] Torpedo bombers with torpedoes.")
    table_torpedo_bomber_gp_bomb: int = _table(3, "[ours] Torpedo bombers bombing level.")
    table_level_bomber_gp_bomb: int = _table(2, "[ours] Level bombers against ships.")
    table_anti_aircraft: int = _table(
        4,
        "[ours] A task force's AA fire: the fan reading's 4 (rules versions 1 and 3; 1 in "
        "version 2), its hits split by aa_spoiled_per_kill; chosen on the historical "
        "suite's fitting flattop cases.",
    )

    # Modifiers to the hit table (rules-notes §2 [src]).
    modifier_crippled: int = Field(2, ge=-15, le=15, description="[src] Target ship crippled.")
    modifier_anchored: int = Field(2, ge=-15, le=15, description="[src] Target ship anchored.")
    modifier_clouds: int = Field(-2, ge=-15, le=15, description="[src] Target under clouds.")
    modifier_night: int = Field(-4, ge=-15, le=15, description="[src] At night.")
    modifier_small_target: int = Field(
        -4,
        ge=-15,
        le=0,
        description="[ours] Attacks on a cruiser or destroyer: a smaller, handier target "
        "than a carrier (in 1942 the dive bombers that turned on Tone at the Eastern "
        "Solomons and on Haruna, Tone and Chikuma at Midway hit nothing).  0 until rules "
        "version 3.",
    )
    below_star: Literal["no_attack", "star"] = Field(
        "no_attack",
        description="[ours] A modified table below '*' (under 0): 'no_attack' (no effect), "
        "or 'star' (clamped to '*' like 0).",
    )
    weather_in_air_combat: bool = Field(
        True, description="[ours] Clouds and night modify air-to-air combat too."
    )
    weather_in_anti_aircraft: bool = Field(
        True, description="[ours] Clouds and night modify AA fire too."
    )

    # Air combat and AA.
    interception: Literal["screen", "escorts_first"] = Field(
        "screen",
        description="[ours] 'screen': each escort factor ties down one CAP factor, the rest "
        "of the CAP attacks the bombers; 'escorts_first': all CAP fire at the strike, hits "
        "taken by escorts before bombers.  Either way both sides fire at once.",
    )
    cap_engagement: Literal["once_per_turn", "every_raid"] = Field(
        "once_per_turn",
        description="[ours] 'once_per_turn': the CAP fights the first raid over its task "
        "force in a turn and no other raid that turn (it has spent its ammunition and lands "
        "to rearm); 'every_raid' (rules version 1): it meets every raid, at its strength then.",
    )
    aa_spoiled_per_kill: int = Field(
        2,
        ge=0,
        le=10,
        description="[ours] Of each 1 + N hits of AA fire, one shoots down an air factor and "
        "N spoil an air factor's attack (it drops wide or turns away, and flies home): "
        "floor(hits / (1 + N)) shot down, the rest spoiled.  0 (rules versions 1 and 2): "
        "every hit shoots one down.  In 1942 the guns spoiled far more attacks than they "
        "shot down aircraft.",
    )
    modifier_aa_dive_bombers: int = later_option(
        0,
        "[ours] Modifier to a task force's AA hit table against a raid whose bombers left "
        "are all dive bombers: 1942's guns against aircraft in their dive (VB-3 lost none of "
        "its SBDs over Soryu; the two groups over Shoho lost one).  A raid with any torpedo "
        "or level bomber left meets the AA unmodified.  0 (no modifier) in rules version 3; "
        "left out of a replay's header while 0.",
        ge=-15,
        le=0,
    )
    cap_kills_after_attack: int = later_option(
        0,
        "[ours] Of each 1 + N hits the CAP scores on the bombers, floor(hits / (1 + N)) shoot "
        "an air factor down before the attack and the rest are after-attack kills: those "
        "air factors still attack (and face the AA) and are shot down once their attack is "
        "made or their wave turns home (in 1942 much of the CAP's execution was done on "
        "bombers in and after their dives).  0 (rules version 3): every hit shoots one down "
        "before the attack; left out of a replay's header while 0, until a fit chooses it.",
        ge=0,
        le=10,
    )
    loss_allocation: Literal["largest_first"] = Field(
        "largest_first",
        description="[ours] Hits on bombers fall one at a time on the attack with the most "
        "factors left (ties: declared order).",
    )
    default_target: Literal["first_carrier", "largest_carrier"] = later_option(
        "first_carrier",
        "[ours] The ship an attack that declares none goes for, of its strike's target task "
        "force (chosen as a declared one is, sunk or not): 'first_carrier', its first carrier "
        "(else its first ship) in scenario order; 'largest_carrier', the carrier with the "
        "largest damage factor (else the ship with the largest), the first listed of equals: "
        "a fleet carrier before a light one.  Left out of a replay's header at "
        "'first_carrier', the reading of every rules version.",
    )
    retarget_sunk: bool = Field(
        False,
        description="[ours] An attack whose declared target is already sunk goes for the "
        "first ship afloat of the task force, carriers first (true: rules versions 1 and 2); "
        "false (rules version 3): it makes no attack -- in 1942 a wave over a sinking target "
        "went on attacking it or went home, and the few that turned on an escort missed.",
    )
    log_target_sunk: bool = Field(
        True,
        description="[ours] An attack that makes none because its declared target has sunk (and "
        "retarget_sunk is off, or no ship of the task force is afloat) logs "
        "flattop.target_sunk (rules version 3; versions 1 and 2 logged nothing).",
    )
    crippled_ship_aa: Literal["half", "full", "none"] = Field(
        "half", description="[ours] AA factor of a crippled ship (half rounds down)."
    )

    # Carriers (rules-notes §2 [src]: the Ready box).
    ready_box_doubling: bool = Field(
        True, description="[src] A carrier with aircraft in its Ready box takes double hits."
    )
    aboard_loss_order: Literal["bombers_first", "fighters_first"] = later_option(
        "bombers_first",
        "[ours] Within each box of a hit carrier (Ready box, rearming, hangar), the order its "
        "air factors are lost: 'bombers_first' (dive, torpedo, level bombers, then fighters: "
        "armed, fuelled bombers are what burns), or 'fighters_first' (fighters, then dive, "
        "torpedo and level bombers).  Left out of a replay's header at 'bombers_first', the "
        "order of every rules version.",
    )
    ready_box_losses: Literal["hits_taken", "hits_rolled"] = Field(
        "hits_taken",
        description="[ours] Air factors lost aboard: the (doubled) hits the carrier takes, "
        "or the hits rolled before doubling.",
    )
    spot_minutes: int = Field(
        30,
        ge=0,
        le=240,
        description="[ours] Minutes a strike sits in the Ready box before it launches.",
    )
    rearm_minutes: int = Field(
        90,
        ge=0,
        le=1440,
        description="[ours] Minutes from recovery until aircraft are back in the hangar.",
    )
    crippled_carrier_flight_ops: bool = Field(
        False, description="[ours] A crippled carrier can still launch and recover."
    )
    divert: bool = Field(
        True,
        description="[ours] A strike whose carrier is sunk or cannot recover lands on "
        "another carrier of the same task force; else it ditches.",
    )

    # Attacks on ships.
    attack_factor_scale: int = Field(
        2,
        description="[ours] Each bomber air factor attacking a ship counts as this many attacking "
        "factors on the matrix (1 until rules version 3): 2 puts on a strike's target the "
        "hits per aircraft of 1942's carrier strikes (docs/rules/flattop.md, *Hits per "
        "strike in the record*).",
        ge=1,
        le=5,
    )

    # Damage.
    damage_carrier: int = _damage(
        6, "fleet carrier", "crippled by three bomb hits, sunk by five to seven"
    )
    damage_light_carrier: int = _damage(
        4, "light carrier", "Ryujo sunk by four or five hits, Zuiho put out of action by one"
    )
    damage_battleship: int = _damage(
        8, "battleship", "Prince of Wales and Repulse sunk by five to seven hits"
    )
    damage_heavy_cruiser: int = _damage(
        6, "heavy cruiser", "Mikuma sunk by about five hits, Mogami survived six"
    )
    damage_light_cruiser: int = _damage(4, "light cruiser", "Jintsu put out of action by one bomb")
    damage_destroyer: int = _damage(2, "destroyer", "Sims sunk by three bombs")
    damage_auxiliary: int = _damage(
        3, "auxiliary", "Neosho left sinking by seven bombs and a crashed Val"
    )
    aa_carrier: int = _aa(3, "fleet carrier", "the rules-notes §2 sketch's")
    aa_light_carrier: int = _aa(2, "light carrier", "no source; below a fleet carrier's 3")
    aa_battleship: int = _aa(4, "battleship", "no source; the most of any class")
    aa_heavy_cruiser: int = _aa(2, "heavy cruiser", "the rules-notes §2 sketch's")
    aa_light_cruiser: int = _aa(2, "light cruiser", "no source; a heavy cruiser's")
    aa_destroyer: int = _aa(1, "destroyer", "the rules-notes §2 sketch's")
    aa_auxiliary: int = _aa(0, "auxiliary", "no source; an auxiliary's guns are not counted")
    cripple_fraction: Annotated[float, Share("the ship's damage factor")] = Field(
        0.5, gt=0, le=1, description="[fan] Crippled when hits reach this share of damage."
    )

    # Flight.
    speed_fighter: int = _speed(8, "fighters")
    speed_dive_bomber: int = _speed(7, "dive bombers")
    speed_torpedo_bomber: int = _speed(5, "torpedo bombers")
    speed_level_bomber: int = _speed(9, "level bombers")
    radius_fighter: int = _radius(9, "fighters")
    radius_dive_bomber: int = _radius(11, "dive bombers")
    radius_torpedo_bomber: int = _radius(9, "torpedo bombers")
    radius_level_bomber: int = _radius(40, "level bombers")

    # Victory.
    points_per_air_factor: int = Field(
        1, ge=0, le=100, description="[ours] Victory points for each enemy air factor destroyed."
    )
    victory_margin: int = Field(
        1, ge=1, le=1000, description="[ours] Points a side must lead by to win; less is a draw."
    )
    end_when_strikes_done: bool = Field(
        True,
        description="[ours] End at the close of the hour in which the last strike is "
        "recovered or lost, not at the turn limit.",
    )

    def hit_table(self, aircraft: str, weapon: str) -> int:
        """Basic hit table of an aircraft type making an attack of a kind."""
        return int_option(self, f"table_{aircraft}_{weapon}")

    def damage(self, kind: str) -> int:
        """Default damage factor of a ship class (hits to sink)."""
        return int_option(self, DAMAGE_OPTIONS[kind])

    def aa(self, kind: str) -> int:
        """Default AA factor of a ship class."""
        return int_option(self, AA_OPTIONS[kind])

    def speed(self, aircraft: str) -> int:
        """Cruising speed of an aircraft type, hexes an hour."""
        return int_option(self, f"speed_{aircraft}")

    def radius(self, aircraft: str) -> int:
        """Strike radius of an aircraft type, hexes."""
        return int_option(self, f"radius_{aircraft}")
