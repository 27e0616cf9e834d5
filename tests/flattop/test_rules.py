"""The flattop rules one at a time: modifiers, air combat, AA, attacks, the Ready box, flight."""

from __future__ import annotations

from typing import Any

import pytest

from engine.rng import Stream
from sim.rulesets.flattop.model.data import SHIP_CLASSES
from sim.rulesets.flattop.model.events import Attacked, TargetSunk
from sim.rulesets.flattop.model.options import FlattopOptions
from sim.rulesets.flattop.reading.audit import audit
from sim.rulesets.flattop.rules import combat, flight
from sim.rulesets.flattop.rules.context import Battle
from sim.rulesets.flattop.rules.resolve import modified_table, resolve
from sim.rulesets.flattop.rules.victory import points
from tests.flattop.builders import battle, scenario_data
from tests.flattop.scripted import Scripted


def _script(b: Battle, *rolls: int) -> list[str]:
    """Make every stream of ``b`` give ``rolls``; return the names asked for, in order."""
    names: list[str] = []

    def stream(strike: str, purpose: str, *key: str | int) -> Stream:
        names.append("/".join(str(p) for p in (strike, purpose, *key)))
        return Scripted(*rolls)

    b.stream = stream  # type: ignore[method-assign]
    return names


def _airborne(b: Battle, escort: int, attacks: list[int]) -> None:
    s = b.state.strikes["s1"]
    s.status, s.escort, s.attacks = "airborne", escort, attacks


def test_modified_table_clamps_to_the_matrix() -> None:
    """Above 15 → 15, 0 → '*' (row 0), below '*' → no attack, or '*' with below_star 'star'."""
    assert modified_table(9, {"night": -4}) == 5
    assert modified_table(15, {"crippled": 2, "anchored": 2}) == 15
    assert modified_table(2, {"clouds": -2}) == 0
    assert modified_table(4, {"clouds": -2, "night": -4}) is None
    assert modified_table(4, {"clouds": -2, "night": -4}, "star") == 0


def test_no_attack_and_no_effect_draw_nothing() -> None:
    """Below '*' and a '--' cell resolve to 0 hits without a roll."""
    none = resolve(Scripted(), 1, {"night": -4}, 10)
    assert (none.hit_table, none.column, none.cell, none.hits, none.draws) == (
        None, "9-10", None, 0, [],
    )  # fmt: skip
    dash = resolve(Scripted(), 0, {}, 4)
    assert (dash.hit_table, dash.column, dash.cell, dash.hits, dash.draws) == (
        "*", "3-4", None, 0, [],
    )  # fmt: skip


def test_whole_cells_roll_only_the_integer_die_and_pure_fractions_only_the_fraction_die() -> None:
    """Cell 1.0 rolls once on column 1; cell 0.4 rolls once on .4."""
    one = resolve(Scripted(6), 9, {}, 3)
    assert (one.cell, one.fraction_roll, one.integer_roll, one.hits) == (1.0, None, 6, 1)
    frac = resolve(Scripted(0), 9, {}, 1)
    assert (frac.cell, frac.fraction_roll, frac.integer_roll, frac.hits) == (0.4, 0, None, 2)


def test_allocate_spreads_hits_over_the_largest_attack_first() -> None:
    """Hits go one by one to the attack with most factors left, ties to the first declared."""
    assert combat.allocate([8, 6], 3) == [3, 0]
    assert combat.allocate([8, 6], 4) == [3, 1]
    assert combat.allocate([3, 3], 3) == [2, 1]
    assert combat.allocate([1, 0], 5) == [1, 0]
    assert combat.allocate([], 2) == []


def test_ship_status_crippled_at_half_sunk_at_damage_factor() -> None:
    """Damage 8: 3 afloat, 4 crippled, 8 sunk; damage 5: 2 afloat, 3 crippled (half is 2.5)."""
    assert [combat.ship_status(h, 8, 0.5) for h in (3, 4, 7, 8, 9)] == [
        "afloat", "crippled", "crippled", "sunk", "sunk",
    ]  # fmt: skip
    assert [combat.ship_status(h, 5, 0.5) for h in (2, 3)] == ["afloat", "crippled"]


def test_screen_interception_splits_the_cap_between_escorts_and_bombers() -> None:
    """Escort 4 vs CAP 5: escorts fire 4 at the CAP, 4 CAP at the escorts, 1 CAP at the bombers."""
    b = battle(at=90)
    _airborne(b, 4, [8, 6])
    names = _script(b, 5, 5)
    events = combat.decide_air_combat(b, "s1", cause=7)
    assert names == [
        "s1/air_combat/escort",
        "s1/air_combat/cap/escort",
        "s1/air_combat/cap/bombers",
    ]
    assert [(e.firer, e.target, e.result.factors, e.result.cell) for e in events] == [
        ("escort", "cap", 4, 1.0), ("cap", "escort", 4, 1.0), ("cap", "bombers", 1, 0.4),
    ]  # fmt: skip
    assert [(e.cap_lost, e.escort_lost, e.attack_losses) for e in events] == [
        (1, 0, [0, 0]), (0, 1, [0, 0]), (0, 0, [0, 0]),
    ]  # fmt: skip
    assert {(e.turn, e.time, e.cause, e.task_force) for e in events} == {(2, 90.0, 7, "tf2")}


def test_escorts_first_interception_puts_all_cap_hits_on_escorts_before_bombers() -> None:
    """escorts_first: 5 CAP factors roll once at the strike; 4 hits kill the 4 escorts first."""
    data = scenario_data(options={"interception": "escorts_first"})
    b = battle(data)
    _airborne(b, 4, [8, 6])
    names = _script(b, 0, 0)
    events = combat.decide_air_combat(b, "s1", cause=0)
    assert names == ["s1/air_combat/escort", "s1/air_combat/cap/strike"]
    cap_fire = events[1]
    assert (cap_fire.result.cell, cap_fire.result.hits) == (1.6, 4)
    assert (cap_fire.escort_lost, cap_fire.attack_losses) == (4, [0, 0])
    assert events[0].cap_lost == 2


def test_unescorted_strike_meets_the_whole_cap_and_no_cap_means_no_combat() -> None:
    """No escort: all 5 CAP factors fire at the bombers; no CAP: no air combat at all."""
    b = battle()
    _airborne(b, 0, [8, 6])
    _script(b, 0, 0)
    (only,) = combat.decide_air_combat(b, "s1", cause=0)
    assert (only.firer, only.target, only.result.factors, only.attack_losses) == (
        "cap", "bombers", 5, [3, 1],
    )  # fmt: skip
    b.state.task_forces["tf2"].cap = 0
    assert combat.decide_air_combat(b, "s1", cause=0) == []


def test_weather_modifies_air_combat_and_aa_unless_switched_off() -> None:
    """Clouds −2 and night −4 reach fighters' table 9 and AA's table 4; options turn that off."""
    data = scenario_data(turns={"limit": 24, "start": "17:00", "dusk": "18:00", "dawn": "06:00"})
    data["sides"][1]["task_forces"][0]["clouds"] = True
    b = battle(data, at=60)
    _airborne(b, 4, [8, 6])
    _script(b, 0, 0)
    first = combat.decide_air_combat(b, "s1", cause=0)[0]
    assert (first.result.modifiers, first.result.hit_table) == ({"clouds": -2, "night": -4}, "3")
    aa = combat.decide_anti_aircraft(b, "s1", cause=0)
    assert aa is not None
    assert (aa.result.basic_table, aa.result.hit_table, aa.result.hits) == (4, None, 0)
    data["options"] = {"weather_in_air_combat": False, "weather_in_anti_aircraft": False}
    b = battle(data, at=60)
    _airborne(b, 4, [8, 6])
    _script(b, 0, 0)
    assert combat.decide_air_combat(b, "s1", cause=0)[0].result.modifiers == {}
    aa = combat.decide_anti_aircraft(b, "s1", cause=0)
    assert aa is not None and aa.result.hit_table == "4"


def test_aa_is_the_task_forces_total_on_table_4_with_crippled_ships_at_half() -> None:
    """AA 3 + 2 + 1 = 6 → [5-6] on table 4 = 0.7 (roll 1: 2 hits); a crippled cruiser adds 1.

    Both hits spoil the dive bombers' attack (``aa_spoiled_per_kill`` 2: a kill needs 3
    hits).  Rules version 2's table 1 with every hit a kill: 0.2 (roll 1: 1 hit), one
    bomber shot down.
    """
    b = battle()
    _airborne(b, 4, [8, 6])
    _script(b, 1)
    aa = combat.decide_anti_aircraft(b, "s1", cause=3)
    assert aa is not None
    assert (aa.aa, aa.result.factors, aa.result.cell, aa.result.hits) == (
        {"cv3": 3, "ca1": 2, "dd2": 1}, 6, 0.7, 2,
    )  # fmt: skip
    assert (aa.attack_losses, aa.attack_spoiled) == ([0, 0], [2, 0])
    b = battle(scenario_data(options={"table_anti_aircraft": 1, "aa_spoiled_per_kill": 0}))
    _airborne(b, 4, [8, 6])
    _script(b, 1)
    aa = combat.decide_anti_aircraft(b, "s1", cause=3)
    assert aa is not None
    assert (aa.result.cell, aa.result.hits, aa.attack_losses, aa.attack_spoiled) == (
        0.2, 1, [1, 0], [],
    )  # fmt: skip
    b.state.ships["ca1"].status = "crippled"
    b.state.ships["dd2"].status = "sunk"
    assert combat.task_force_aa(b, "tf2") == {"cv3": 3, "ca1": 1}
    _airborne(b, 4, [0, 0])
    assert combat.decide_anti_aircraft(b, "s1", cause=3) is None


@pytest.mark.parametrize(
    ("rule", "expected"), [("half", {"cv3": 1}), ("full", {"cv3": 3}), ("none", {"cv3": 0})]
)
def test_crippled_ship_aa_option(rule: str, expected: dict[str, int]) -> None:
    """crippled_ship_aa: half rounds 3 down to 1, full keeps 3, none gives 0."""
    b = battle(scenario_data(options={"crippled_ship_aa": rule}))
    b.state.ships["cv3"].status = "crippled"
    b.state.ships["ca1"].status = b.state.ships["dd2"].status = "sunk"
    assert combat.task_force_aa(b, "tf2") == expected


def test_attack_modifiers_crippled_and_anchored_add_two_each() -> None:
    """A crippled, anchored target: dive bombers' table 7 + 2 + 2 = 11; 8 AF count 16 factors
    (``attack_factor_scale`` 2) → [16-20] 6.5; rolls 9, 9: .5 → 0, n>1 → 6 − 2 = 4 hits, and
    4 + 4 = 8 sinks a carrier of damage 6."""
    data = scenario_data()
    data["sides"][1]["task_forces"][0]["ships"][0]["anchored"] = True
    b = battle(data)
    _airborne(b, 0, [8, 0])
    b.state.ships["cv3"].hits, b.state.ships["cv3"].status = 4, "crippled"
    _script(b, 9, 9)
    event = combat.decide_attack(b, "s1", 0, cause=1)
    assert isinstance(event, Attacked)
    r = event.result
    assert (r.modifiers, r.hit_table, r.factors, r.cell, r.hits) == (
        {"crippled": 2, "anchored": 2},
        "11",
        16,
        6.5,
        4,
    )
    assert (event.hits_before, event.hits_after, event.status_after) == (4, 8, "sunk")


def test_ready_box_doubles_hits_and_loses_that_many_air_factors_aboard() -> None:
    """2 hits on a carrier with aircraft spotted become 4; 4 AF are lost: Ready box, then hangar.

    (4 AF on the matrix as 4 factors, ``attack_factor_scale`` 1: one die.)"""
    b = battle(scenario_data(options={"attack_factor_scale": 1}))
    _airborne(b, 0, [4, 0])
    deck = b.state.decks["cv3"]
    deck.ready = {"x": {"fighter": 1, "dive_bomber": 0, "torpedo_bomber": 2, "level_bomber": 0}}
    deck.hangar = {"fighter": 2, "dive_bomber": 0, "torpedo_bomber": 1, "level_bomber": 0}
    _script(b, 0)
    event = combat.decide_attack(b, "s1", 0, cause=1)
    assert isinstance(event, Attacked)
    assert (event.result.cell, event.result.hits, event.ready_box, event.hits_taken) == (
        0.8,
        2,
        True,
        4,
    )
    assert (event.hits_after, event.status_after) == (4, "crippled")
    assert event.lost_ready == {"x": {"torpedo_bomber": 2, "fighter": 1}}
    assert (event.lost_rearming, event.lost_hangar) == ({}, {"torpedo_bomber": 1})


def test_ready_box_losses_option_hits_rolled_loses_the_undoubled_count() -> None:
    """With ready_box_losses 'hits_rolled', the same attack loses 2 AF aboard, not 4."""
    b = battle(scenario_data(options={"ready_box_losses": "hits_rolled", "attack_factor_scale": 1}))
    _airborne(b, 0, [4, 0])
    b.state.decks["cv3"].ready = {"x": {"fighter": 1, "torpedo_bomber": 2}}
    _script(b, 0)
    event = combat.decide_attack(b, "s1", 0, cause=1)
    assert isinstance(event, Attacked) and event.hits_taken == 4
    assert event.lost_ready == {"x": {"torpedo_bomber": 2}}


def test_a_sunk_carrier_loses_everything_aboard() -> None:
    """A carrier sunk by an attack loses every air factor in every box (8 AF, 16 factors on
    table 7: 4.2; rolls 0, 0: 1 + 6 = 7 hits on a carrier of damage 6 with 2)."""
    b = battle()
    _airborne(b, 0, [8, 0])
    b.state.ships["cv3"].hits = 2
    _script(b, 0, 0)
    event = combat.decide_attack(b, "s1", 0, cause=1)
    assert isinstance(event, Attacked)
    assert (event.result.hits, event.hits_after, event.status_after) == (7, 9, "sunk")
    assert (event.lost_ready, event.lost_rearming, event.lost_hangar) == (
        {}, {}, {"torpedo_bomber": 3, "fighter": 3},
    )  # fmt: skip


def test_an_attack_on_a_sunk_target_makes_none_or_goes_for_a_carrier_afloat() -> None:
    """Declared target sunk: by default (rules version 3) no attack, logged as
    flattop.target_sunk; retarget_sunk: the first carrier afloat, else the first ship; with
    log_target_sunk off (versions 1 and 2) nothing is logged."""
    b = battle()
    _airborne(b, 0, [8, 0])
    b.state.ships["cv3"].status = "sunk"
    event = combat.decide_attack(b, "s1", 0, cause=1)
    assert isinstance(event, TargetSunk)
    assert (event.declared, event.factors, event.aircraft, event.cause) == (
        "cv3", 8, "dive_bomber", 1,
    )  # fmt: skip
    assert audit(b.scenario, b.state, event) is None
    b = battle(scenario_data(options={"retarget_sunk": True}))
    _airborne(b, 0, [8, 0])
    b.state.ships["cv3"].status = "sunk"
    _script(b, 0, 0)
    event = combat.decide_attack(b, "s1", 0, cause=1)
    assert isinstance(event, Attacked) and (event.declared, event.ship) == ("cv3", "ca1")
    b = battle(scenario_data(options={"log_target_sunk": False}))
    _airborne(b, 0, [8, 0])
    b.state.ships["cv3"].status = "sunk"
    assert combat.decide_attack(b, "s1", 0, cause=1) is None


def test_aboard_losses_take_ready_then_rearming_then_hangar_bombers_first() -> None:
    """6 AF lost: Ready box by strike (dive, torpedo, fighter), rearming, then the hangar."""
    b = battle()
    deck = b.state.decks["cv1"]
    deck.ready = {"a": {"fighter": 1, "dive_bomber": 1}, "b": {"torpedo_bomber": 1}}
    deck.rearming = {"fighter": 1, "dive_bomber": 1, "torpedo_bomber": 0, "level_bomber": 0}
    assert combat.aboard_losses(deck, 5, everything=False) == (
        {"a": {"dive_bomber": 1, "fighter": 1}, "b": {"torpedo_bomber": 1}},
        {"dive_bomber": 1, "fighter": 1},
        {},
    )
    assert combat.aboard_losses(deck, 6, everything=False)[2] == {"dive_bomber": 1}


def test_spotting_takes_what_the_hangar_has_and_cancels_when_it_has_none() -> None:
    """Asked for F4 DB8 TB6 of a hangar down to F2 DB2 (losses earlier that day): F2 DB2
    come up; from nothing: cancelled.  (A scenario may not ask more than the deck holds at
    the start: tests/cli/test_flattop_commitments.py.)"""
    b = battle(scenario_data())
    b.state.decks["cv1"].hangar = {"fighter": 2, "dive_bomber": 2, "torpedo_bomber": 0,
                                   "level_bomber": 0}  # fmt: skip
    event = flight.decide_spot(b, "s1")
    assert event.type == "flattop.spotted"
    assert (event.requested, event.aircraft) == (  # type: ignore[union-attr]
        {"fighter": 4, "dive_bomber": 8, "torpedo_bomber": 6}, {"fighter": 2, "dive_bomber": 2},
    )  # fmt: skip
    b.state.decks["cv1"].hangar = {"fighter": 0, "dive_bomber": 0, "torpedo_bomber": 0,
                                   "level_bomber": 0}  # fmt: skip
    cancelled = flight.decide_spot(b, "s1")
    assert (cancelled.type, cancelled.reason) == (  # type: ignore[union-attr]
        "flattop.strike_cancelled", "no aircraft in the hangar",
    )  # fmt: skip


def _spot_and_launch(b: Battle) -> Any:
    b.state.decks["cv1"].ready["s1"] = {"fighter": 4, "dive_bomber": 8, "torpedo_bomber": 6}
    return flight.decide_launch(b, "s1", cause=0)


def test_launch_flies_at_the_slowest_types_speed_rounded_up_to_the_minute() -> None:
    """8 hexes with torpedo bombers (5 an hour) take 96 minutes; without them (7) 69."""
    b = battle(at=60)
    launched = _spot_and_launch(b)
    assert (launched.distance, launched.speed, launched.flight_minutes, launched.arrives) == (
        8, 5, 96, 156.0,
    )  # fmt: skip
    assert (launched.escort, launched.attacks) == (4, [8, 6])
    b.state.decks["cv1"].ready["s1"] = {"fighter": 4, "dive_bomber": 8, "torpedo_bomber": 0}
    again = flight.decide_launch(b, "s1", cause=0)
    assert (again.attacks, again.speed, again.flight_minutes) == ([8, 0], 7, 69)  # type: ignore[union-attr]


def test_crippled_carrier_cancels_its_strike_and_returns_the_ready_box_to_the_hangar() -> None:
    """A crippled carrier launches nothing (option off) and strikes back what was spotted."""
    b = battle()
    b.state.ships["cv1"].status = "crippled"
    event = _spot_and_launch(b)
    assert (event.type, event.reason, event.returned) == (
        "flattop.strike_cancelled", "CV 1 is crippled",
        {"fighter": 4, "dive_bomber": 8, "torpedo_bomber": 6},
    )  # fmt: skip
    b = battle(scenario_data(options={"crippled_carrier_flight_ops": True}))
    b.state.ships["cv1"].status = "crippled"
    assert _spot_and_launch(b).type == "flattop.launched"


def test_recovery_diverts_to_another_carrier_or_ditches() -> None:
    """Own carrier sunk: land on the task force's other carrier; none left or divert off: ditch."""
    b = battle()
    _airborne(b, 3, [5, 4])
    b.state.ships["cv1"].status = "sunk"
    landed = flight.decide_recovery(b, "s1", cause=0)
    assert (landed.deck, landed.diverted, landed.aircraft) == (
        "cv2", True, {"fighter": 3, "dive_bomber": 5, "torpedo_bomber": 4},
    )  # fmt: skip
    b.state.ships["cv2"].status = "crippled"
    assert flight.decide_recovery(b, "s1", cause=0).deck is None
    b = battle(scenario_data(options={"divert": False}))
    _airborne(b, 3, [5, 4])
    b.state.ships["cv1"].status = "sunk"
    assert flight.decide_recovery(b, "s1", cause=0).deck is None


def test_night_runs_from_dusk_to_dawn_across_midnight() -> None:
    """Dusk 18:00, dawn 06:00: 17:59 is day, 18:00 to 05:59 night; dusk 01:00, dawn 05:00 too."""
    b = battle(scenario_data(turns={"limit": 24, "start": "06:00"}))
    assert [b.night(m) for m in (0, 719, 720, 1000, 1439)] == [False, False, True, True, True]
    b = battle(
        scenario_data(turns={"limit": 24, "start": "06:00", "dusk": "01:00", "dawn": "05:00"})
    )
    assert [b.night(m) for m in (0, 1139, 1140, 1379, 1380)] == [False, False, True, True, False]


def test_victory_points_count_sunk_crippled_and_air_factors() -> None:
    """Red scores a sunk carrier 6, a crippled destroyer 1 and 5 AF: 12; Blue scores its 2 AF."""
    b = battle()
    b.state.ships["cv1"].status = "sunk"
    b.state.ships["dd1"].status = "crippled"
    b.state.sides["blue"].air_lost["anti_aircraft"] = 5
    b.state.sides["red"].air_lost["air_combat"] = 2
    assert points(b.state, 1) == {"blue": 2, "red": 12}
    assert points(b.state, 0) == {"blue": 0, "red": 7}


def test_the_audit_holds_the_cap_to_one_raid_a_turn() -> None:
    """verify's audit: a CAP that fought s0 this turn may only stand down (cap_rearming) for s1,
    and may not fight it; under every_raid a cap_rearming is never lawful."""
    from sim.rulesets.flattop.model.events import AirCombat, CapRearming
    from sim.rulesets.flattop.reading.audit import audit

    b = battle()
    _airborne(b, 4, [8, 6])
    _script(b, 5, 5)
    [fight, *_] = combat.decide_air_combat(b, "s1", cause=0)
    assert isinstance(fight, AirCombat) and audit(b.scenario, b.state, fight) is None
    tf = b.state.task_forces["tf2"]
    tf.fought_turn, tf.fought_strike = b.turn, "s0"
    [stand_down] = combat.decide_air_combat(b, "s1", cause=0)
    assert isinstance(stand_down, CapRearming) and stand_down.fought == "s0"
    assert audit(b.scenario, b.state, stand_down) is None
    assert audit(b.scenario, b.state, fight) == "tf2's CAP fights s1 after s0 in turn 1"
    every = battle(scenario_data(options={"cap_engagement": "every_raid"}))
    assert audit(every.scenario, every.state, stand_down) == (
        "tf2's CAP did not fight s0 this turn with 5 AF"
    )


def test_an_attacks_air_factors_count_attack_factor_scale_factors_each() -> None:
    """8 AF of dive bombers on table 7: 16 factors → [16-20] 4.2 by default (rules version
    3), 8 factors → [7-8] 1.7 at ``attack_factor_scale`` 1 (versions 1 and 2), 24 → 5.3 at 3."""
    cells = []
    for scale in (None, 1, 3):
        options = {} if scale is None else {"attack_factor_scale": scale}
        b = battle(scenario_data(options=options))
        _airborne(b, 0, [8, 0])
        _script(b, 9, 9)
        event = combat.decide_attack(b, "s1", 0, cause=1)
        assert isinstance(event, Attacked)
        assert audit(b.scenario, b.state, event) is None
        cells.append((event.result.factors, event.result.column, event.result.cell))
    assert cells == [(16, "16-20", 4.2), (8, "7-8", 1.7), (24, "21-25", 5.3)]


def test_aa_split_shoots_down_one_in_one_plus_n_hits() -> None:
    """floor(hits / (1 + N)) shot down, the rest spoiled; N = 0: every hit shoots one down."""
    assert [combat.aa_split(h, 2) for h in range(7)] == [
        (0, 0), (0, 1), (0, 2), (1, 2), (1, 3), (1, 4), (2, 4),
    ]  # fmt: skip
    assert [combat.aa_split(h, 0) for h in range(4)] == [(0, 0), (1, 0), (2, 0), (3, 0)]


def test_spoiled_air_factors_make_no_attack_and_fly_home() -> None:
    """AA 6 on table 4 (0.7), roll 0: 2 hits, both spoiling the dive bombers' attack (8 → 6
    attacking, 12 factors: [11-12] 2.7); the 8 still fly home; the audit holds both events
    to the split, and refuses an attack with the spoiled factors in it."""
    b = battle()
    _airborne(b, 0, [8, 6])
    _script(b, 0)
    aa = combat.decide_anti_aircraft(b, "s1", cause=3)
    assert aa is not None
    assert (aa.result.hits, aa.attack_losses, aa.attack_spoiled) == (2, [0, 0], [2, 0])
    assert audit(b.scenario, b.state, aa) is None
    assert audit(b.scenario, b.state, aa.model_copy(update={"attack_spoiled": [1, 0]}))
    aa = aa.model_copy(update={"seq": 7})
    b.state.apply(aa)
    assert (b.state.strikes["s1"].attacks, b.state.strikes["s1"].attacking(0)) == ([8, 6], 6)
    _script(b, 9, 9)
    event = combat.decide_attack(b, "s1", 0, cause=1)
    assert isinstance(event, Attacked)
    assert (event.result.factors, event.result.cell) == (12, 2.7)
    assert audit(b.scenario, b.state, event) is None
    forged = event.model_copy(update={"result": event.result.model_copy(update={"factors": 11})})
    assert audit(b.scenario, b.state, forged) == "attack 0 has 12 attacking factors, not 11"
    recovered = flight.decide_recovery(b, "s1", cause=1)
    assert recovered.aircraft == {"dive_bomber": 8, "torpedo_bomber": 6}


def test_ship_classes_damage_by_rules_version() -> None:
    """Version 3's damage factors (options of ours, from the record) and versions 1 and 2's
    (``data.SHIP_CLASSES``): a carrier 6 (8 before), a light carrier 4 (5), a battleship 8
    (12); cruisers, destroyers and auxiliaries unchanged.  A ship's own damage wins."""
    new = FlattopOptions()
    old = FlattopOptions.model_validate({}, context={"ruleset_version": "2"})
    kinds = list(SHIP_CLASSES)
    assert [new.damage(k) for k in kinds] == [6, 4, 8, 6, 4, 2, 3]
    assert [old.damage(k) for k in kinds] == [SHIP_CLASSES[k]["damage"] for k in kinds]
    b = battle()
    assert (b.state.ships["cv3"].damage, b.state.ships["ca1"].damage) == (6, 6)
    data = scenario_data()
    data["sides"][1]["task_forces"][0]["ships"][0]["damage"] = 9
    assert battle(data).state.ships["cv3"].damage == 9


def test_attacks_on_cruisers_and_destroyers_take_the_small_target_modifier() -> None:
    """Dive bombers on the cruiser: table 7 − 4 = 3 (``modifier_small_target``); on the
    carrier no such modifier; at 0 (rules versions 1 and 2) the modifier is not listed."""
    rows = []
    for target, options in (
        ("ca1", {}),
        ("dd2", {}),
        ("cv3", {}),
        ("ca1", {"modifier_small_target": 0}),
    ):
        data = scenario_data(options=options)
        data["sides"][0]["strikes"][0]["attacks"][0]["target"] = target
        b = battle(data)
        _airborne(b, 0, [8, 0])
        _script(b, 9, 9)
        event = combat.decide_attack(b, "s1", 0, cause=1)
        assert isinstance(event, Attacked)
        rows.append((event.ship, event.result.modifiers, event.result.hit_table))
    assert rows == [
        ("ca1", {"small_target": -4}, "3"),
        ("dd2", {"small_target": -4}, "3"),
        ("cv3", {}, "7"),
        ("ca1", {}, "7"),
    ]
