"""Musket rules version 3's options of ours around the seed, each on a hand-built battle.

Facing and enfilade, the melee won on odds, the closing test, rout after heavy losses,
getting out through friends, assault exhaustion (docs/rules/musket.md, *Rules version
3*). Expected values come from the rules' arithmetic and the events' own draws.
"""

from __future__ import annotations

import math
from typing import Any

import pytest

from engine.rng import Streams
from sim.rulesets.musket.model.options import RULES_V2, MusketOptions
from sim.rulesets.musket.rules.context import Battle, arc_of
from sim.rulesets.musket.rules.melee import attacker_chance, can_charge
from sim.rulesets.musket.rules.morale import (
    charge_failure,
    closing_loss_steps,
    decide_rally,
    failure_state,
)
from sim.rulesets.musket.rules.movement import decide_move
from tests.sim.test_rules import _fight as _lines
from tests.sim.test_rules import _inf, _scenario, battle_of


def _fight(data: dict[str, Any], seed: int = 1) -> list[dict[str, Any]]:
    return [e for e in _lines(data, seed) if "type" in e]


_battle = battle_of


# --- facing -------------------------------------------------------------------------


def test_a_unit_faces_away_from_its_retreat_edge() -> None:
    """Flat-topped hexes: facing north (retreat south), the N, NE and NW hexsides are the
    front (0° and 60°), SE and SW the flank (120°), S the rear (180°); facing east
    (retreat west), NE and SE are the front (30°), N and S the flank (90°), NW and SW the
    rear (150°). Farther away, the same arcs by angle."""
    at = (4, 4)  # even column: N (4,3), NE (5,3), SE (5,4), S (4,5), SW (3,4), NW (3,3)
    around = [(4, 3), (5, 3), (5, 4), (4, 5), (3, 4), (3, 3)]
    assert [arc_of(at, "south", h) for h in around] == [
        "front",
        "front",
        "flank",
        "rear",
        "flank",
        "front",
    ]
    assert [arc_of(at, "north", h) for h in around] == [
        "rear",
        "flank",
        "front",
        "front",
        "front",
        "flank",
    ]
    assert [arc_of(at, "west", h) for h in around] == [
        "flank",
        "front",
        "front",
        "flank",
        "rear",
        "rear",
    ]
    assert arc_of(at, "south", (4, 0)) == "front"
    assert arc_of(at, "south", (9, 4)) == "flank"  # 5 hexes east, level: 90°
    assert arc_of(at, "south", (4, 9)) == "rear"


def _wall_fire(firer_at: list[int], **options: Any) -> dict[str, Any]:
    """B's regiment on a stone wall at (4, 4), retreat north (so it faces south), under
    A's regiment's fire from ``firer_at``; one turn."""
    data = _scenario(
        [_inf("att", firer_at, order={"kind": "hold"})],
        [_inf("def", [4, 4], order={"kind": "hold"})],
        limit=1,
        options=options,
    )
    data["map"]["terrain"] = [{"terrain": "stone_wall", "hexes": [[4, 4]]}]
    return data


def test_fire_from_the_flank_or_rear_is_enfilade_and_the_wall_does_not_cover() -> None:
    """From the front (S of the wall) the wall covers, -40; from the rear (N) or flank
    (NE) it does not, and the fire gets enfilade +40; without option enfilade the wall
    covers from anywhere and nothing is enfilade."""

    def mods(at: list[int], **options: Any) -> dict[str, float]:
        fired = [e for e in _fight(_wall_fire(at, **options)) if e["type"] == "musket.fired"]
        return next(e for e in fired if e["unit"] == "att")["result"]["modifiers"]

    assert mods([4, 5]) == {"stone_wall": -40.0}
    assert mods([4, 3]) == {"enfilade": 40.0}
    assert mods([5, 3]) == {"enfilade": 40.0}
    assert mods([4, 3], enfilade=False) == {"stone_wall": -40.0}


def test_a_check_after_enfilade_fire_is_two_worse() -> None:
    """A check required by fire from the rear counts enfilade -2 (the family's modifier)."""
    for seed in range(1, 40):
        events = _fight(_wall_fire([4, 3]), seed)
        checks = [e for e in events if e["type"] == "musket.morale_tested" and e["unit"] == "def"]
        fired = {e["seq"]: e for e in events if e["type"] == "musket.fired"}
        for check in checks:
            if fired[check["cause"]]["unit"] == "att":
                assert check["modifiers"]["enfilade"] == -2
                assert check["morale_value"] == 4 + sum(check["modifiers"].values())
                return
    pytest.fail("no check after the rear fire in 39 seeds")


def test_a_line_fires_at_the_nearest_enemy_straight_ahead() -> None:
    """Three enemies one hex off, NW, N and NE of a unit facing north: it fires at the one
    straight ahead (N), not the first in scenario order; without enfilade, scenario order."""
    data = _scenario(
        [_inf("me", [4, 5], order={"kind": "hold"})],
        [
            _inf("nw", [3, 4], order={"kind": "hold"}),
            _inf("n", [4, 4], order={"kind": "hold"}),
            _inf("ne", [5, 4], order={"kind": "hold"}),
        ],
        limit=1,
    )
    first = [e for e in _fight(data) if e["type"] == "musket.fired" and e["unit"] == "me"]
    assert first[0]["target"] == "n"
    data["options"] = {"enfilade": False}
    first = [e for e in _fight(data) if e["type"] == "musket.fired" and e["unit"] == "me"]
    assert first[0]["target"] == "nw"


# --- the melee on odds ----------------------------------------------------------------


def test_the_attackers_chance_is_r_to_the_k_over_one_plus() -> None:
    """r^k/(r^k + 1): even odds one half, 2:1 at k = 2 four fifths, 1:2 one fifth."""
    assert attacker_chance(1.0, 2.0) == 0.5
    assert attacker_chance(2.0, 2.0) == pytest.approx(0.8, abs=1e-15)
    assert attacker_chance(0.5, 2.0) == pytest.approx(0.2, abs=1e-15)
    assert attacker_chance(3.0, 1.0) == pytest.approx(0.75, abs=1e-15)
    assert attacker_chance(0.0, 2.0) == 0.0
    assert attacker_chance(1e300, 2.0) == 1.0


def test_a_melee_is_won_on_odds_weighed_with_cover_and_column() -> None:
    """Men in column (C) charge men (C) behind breastworks, charge test off: the attacker
    weighs its men x 1.2, the defender its men / 0.7; the attacker wins when the odds
    draw falls below r^2/(r^2 + 1)."""
    data = _scenario(
        [_inf("att", [4, 5], order={"kind": "charge", "target": "def"}, formation="column")],
        [_inf("def", [4, 4], order={"kind": "hold"}, strength=300)],
        limit=1,
        options={"charge_test": False, "melee_odds_exponent": 2},
    )
    data["map"]["terrain"] = [{"terrain": "breastworks", "hexes": [[4, 4]]}]
    wins = 0
    for seed in range(1, 30):
        melees = [e for e in _fight(data, seed) if e["type"] == "musket.meleed"]
        if not melees:
            continue  # the attacker was disrupted by the defensive fire first
        (m,) = melees
        odds = m["odds"]
        assert odds["attacker_modifiers"] == {"column": 20.0}
        assert odds["attacker_weight"] == pytest.approx(odds["attacker_strength"] * 1.2)
        order = 0.5 if "disorder" in odds["defender_factors"] else 1.0  # disrupted by fire
        assert odds["defender_factors"] == {"breastworks": pytest.approx(1 / 0.7)} | (
            {"disorder": 0.5} if order < 1 else {}
        )
        w_def = odds["defender_strength"] / 0.7 * order
        assert odds["defender_weight"] == pytest.approx(w_def)
        r = odds["attacker_weight"] / w_def
        assert odds["ratio"] == pytest.approx(r)
        assert odds["p_attacker"] == pytest.approx(r * r / (r * r + 1))
        (draw,) = odds["draws"]
        assert draw[0] == "1/melee/att"
        assert odds["attacker_wins"] == (draw[2] < odds["p_attacker"])
        assert (m["winner"] == "att") == odds["attacker_wins"]
        assert m["flank"] == "front"
        wins += odds["attacker_wins"]
    assert wins > 0


def test_version_2_melees_record_no_odds() -> None:
    """lower_loss_share (rules versions 1-2): the line has no odds and no flank."""
    data = _scenario(
        [_inf("att", [4, 5], order={"kind": "charge", "target": "def"})],
        [_inf("def", [4, 4], order={"kind": "hold"})],
        limit=1,
        options=dict(RULES_V2) | {"charge_test": False},
    )
    for seed in range(1, 6):
        for m in (e for e in _fight(data, seed) if e["type"] == "musket.meleed"):
            assert "odds" not in m and "flank" not in m
            assert (m["winner"] == "att") == (m["attacker_share"] < m["defender_share"])


# --- closing ---------------------------------------------------------------------------


def test_the_closing_test_counts_steps_of_this_turns_fire() -> None:
    """Whole steps of closing_loss_step in the share lost: exact at the edges."""
    assert closing_loss_steps(0.3, 0.15) == 2
    assert closing_loss_steps(0.149, 0.05) == 2
    assert closing_loss_steps(0.15, 0.05) == 3
    assert closing_loss_steps(0.0, 0.05) == 0


def test_a_failed_closing_test_stays_or_is_thrown_back() -> None:
    """Failing by less than closing_recoil_margin (here 2) the unit stays in the firefight;
    by 2 or more it is spent (disrupted without assault_exhaustion); no margin: stays."""
    o = MusketOptions(closing_recoil_margin=2)
    assert charge_failure(o, "good", 4, 3) == "good"
    assert charge_failure(o, "good", 5, 3) == "spent"
    assert charge_failure(o, "good", 6, -2) == "spent"
    assert charge_failure(o.model_copy(update={"assault_exhaustion": None}), "good", 5, 3) == (
        "disrupted"
    )
    assert charge_failure(o.model_copy(update={"closing_recoil_margin": None}), "good", 6, 0) == (
        "good"
    )


def test_the_charge_test_records_fire_odds_and_cover() -> None:
    """Each test: target_in_cover from the wall, odds -1 (400 against 500), under_fire
    from the men lost to fire this turn in steps of closing_loss_step; the value is the
    sum; failing by closing_recoil_margin (here 2) or more leaves the unit spent, else as
    it was."""
    step = 0.05
    data = _scenario(
        [_inf("att", [4, 5], order={"kind": "charge", "target": "def"})],
        [_inf("def", [4, 4], order={"kind": "hold"}, strength=500)],
        limit=1,
        options={"closing_loss_step": step, "closing_recoil_margin": 2},
    )
    data["map"]["terrain"] = [{"terrain": "stone_wall", "hexes": [[4, 4]]}]
    seen = 0
    for seed in range(1, 30):
        events = _fight(data, seed)
        tests = [
            e for e in events if e["type"] == "musket.morale_tested" and e["reason"] == "charge"
        ]
        if not tests:
            continue
        (test,) = tests
        lost = sum(
            e["result"]["casualties"]
            for e in events
            if e["type"] == "musket.fired" and e["target"] == "att"
        )
        steps = math.floor(lost / 400 / step + 1e-9)
        mods = test["modifiers"]
        assert mods.get("under_fire", 0) == -steps
        assert mods["target_in_cover"] == -2 and mods["odds"] == -1
        assert test["morale_value"] == 4 + sum(mods.values())
        thrown = not test["passed"] and test["roll"] - test["morale_value"] >= 2
        assert test["after"] == ("spent" if thrown else "good")
        seen += 1
    assert seen


# --- morale ending a unit's fight -----------------------------------------------------


def test_a_failed_check_after_heavy_losses_routs_in_any_phase() -> None:
    assert failure_state("good", "defensive_fire") == "disrupted"
    assert failure_state("good", "defensive_fire", heavy=True) == "routed"
    assert failure_state("disrupted", "defensive_fire", heavy=True) == "routed"


def test_losses_weigh_on_morale_in_steps() -> None:
    """loss_morale_step 0.25: 99 of 400 lost, no modifier; 100, -1; 200, -2."""
    data = _scenario([_inf("a1", [1, 1])], [_inf("b1", [8, 8])], options={"loss_morale_step": 0.25})
    b = _battle(data)
    unit = b.state.units["a1"]
    for strength, mods in ((301, {}), (300, {"losses": -1}), (200, {"losses": -2})):
        unit.strength = strength
        assert b.morale_modifiers(unit) == mods


def test_a_unit_cut_up_checks_after_every_loss() -> None:
    """Once a loss leaves a unit at rout_loss (0.3) or more lost, it checks after every
    loss that does not draw a check (reason heavy_losses), as at maximum fatigue."""
    data = _scenario(
        [_inf("att", [4, 6], order={"kind": "hold"}, strength=1000)],
        [_inf("def", [4, 4], order={"kind": "hold"}, strength=100)],
        limit=4,
    )
    found = 0
    for seed in range(1, 20):
        for e in _fight(data, seed):
            if e["type"] != "musket.fired" or e["target"] != "def":
                continue
            r = e["result"]
            if r["morale_check_reason"] == "heavy_losses":
                assert r["casualties"] > 0 and r["draws"][-1][2] >= r["morale_check_p"]
                found += 1
    assert found


# --- getting out ----------------------------------------------------------------------


def test_a_routed_unit_goes_through_its_own_side() -> None:
    """Routed at (4, 5) with friends at (4, 6) and both sides of it, retreat south: it
    passes through (4, 6) and runs on south; version 2 stays blocked... unless a side
    step is nearer the edge, which it is not here."""
    data = _scenario(
        [
            _inf("r", [4, 5], morale="routed"),
            _inf("f1", [4, 6]),
            _inf("f2", [3, 6]),
            _inf("f3", [5, 6]),
        ],
        [_inf("e", [4, 1])],
    )
    b = _battle(data)
    (moved,) = decide_move(b, b.state.units["r"])
    assert moved.type == "musket.moved" and moved.path[0] == (4, 6)
    assert moved.path[-1] == (4, 9)
    b2 = _battle({**data, "options": {"pass_through_friends": False}})
    assert decide_move(b2, b2.state.units["r"]) == []


def test_a_routed_unit_on_its_edge_leaves_the_field() -> None:
    data = _scenario([_inf("r", [4, 9], morale="routed")], [_inf("e", [4, 1])])
    b = _battle(data)
    (left,) = decide_move(b, b.state.units["r"])
    assert left.type == "musket.left_field" and left.at == (4, 9)


# --- assault exhaustion ----------------------------------------------------------------


def _assault(**options: Any) -> dict[str, Any]:
    return _scenario(
        [_inf("att", [4, 5], order={"kind": "charge", "target": "def"})],
        [_inf("def", [4, 1], order={"kind": "hold"})],
        options=options,
    )


def test_a_repulsed_attacker_rallies_only_to_spent() -> None:
    """A disrupted attacker's successful rally makes it spent (a defender's, good); a
    spent unit neither advances nor charges, and withdraws until no enemy is within
    assault_exhaustion (1) hexes: it keeps up the firefight at two."""
    for seed in range(1, 20):
        b = _battle(_assault())
        b.streams = Streams(seed)
        unit = b.state.units["att"]
        unit.morale = "disrupted"
        event = decide_rally(b, unit)
        assert event is not None
        assert event.after == ("spent" if event.success else "disrupted")
        dfn = b.state.units["def"]
        dfn.morale = "disrupted"
        event = decide_rally(b, dfn)
        assert event is not None and event.after == ("good" if event.success else "disrupted")
    b = _battle(_assault())
    unit = b.state.units["att"]
    unit.morale = "spent"
    assert can_charge(b, unit) is None
    unit.hex = (4, 2)  # next to the enemy at (4, 1)
    b.state.occupant = {(4, 2): "att", (4, 1): "def"}
    b.state.placements += 1
    (moved,) = decide_move(b, unit)  # one step back: no enemy within 1 hex
    assert (moved.reason, moved.path) == ("withdraw", [(4, 3)])
    unit.hex = (4, 3)
    b.state.occupant = {(4, 3): "att", (4, 1): "def"}
    b.state.placements += 1
    assert decide_move(b, unit) == []  # two hexes off: it stays in the firefight


def test_a_spent_unit_rallies_only_out_of_fire_and_rested() -> None:
    """Within spent_rally_distance (4) hexes of an enemy, fired on this turn, or tired
    (fatigue 300+), a spent unit does not try; out of reach and rested it rallies to
    good on d6 <= morale."""
    data = _scenario(
        [_inf("att", [4, 8], order={"kind": "charge", "target": "def"}, morale="good")],
        [_inf("def", [4, 1], order={"kind": "hold"})],
    )
    b = _battle(data)
    unit = b.state.units["att"]
    unit.morale = "spent"
    event = decide_rally(b, unit)
    assert event is not None and event.after in ("good", "spent")
    unit.fatigue = 300
    assert decide_rally(b, unit) is None
    unit.fatigue = 0
    b.fire_losses["att"] = (b.turn, 0)
    assert decide_rally(b, unit) is None
    b.fire_losses["att"] = (b.turn - 1, 5)
    unit.hex = (4, 5)  # 4 hexes from the enemy
    b.state.occupant = {(4, 5): "att", (4, 1): "def"}
    b.state.placements += 1
    assert decide_rally(b, unit) is None


def test_a_routed_unit_fired_on_this_turn_does_not_rally() -> None:
    data = _scenario([_inf("r", [4, 8], morale="routed")], [_inf("e", [4, 1])])
    b = _battle(data)
    unit = b.state.units["r"]
    assert decide_rally(b, unit) is not None
    b.fire_losses["r"] = (b.turn, 0)
    assert decide_rally(b, unit) is None
    b2 = _battle({**data, "options": {"routed_rally_out_of_fire": False}})
    b2.fire_losses["r"] = (b2.turn, 0)
    assert decide_rally(b2, b2.state.units["r"]) is not None


def test_men_behind_works_stand_better() -> None:
    """cover_morale +1 in a hex of 20 % cover or more (wall, works, fence, woods)."""
    data = _scenario([_inf("a1", [1, 1])], [_inf("b1", [8, 8])])
    data["map"]["terrain"] = [{"terrain": "fence", "hexes": [[1, 1]]}]
    b = _battle(data)
    assert b.morale_modifiers(b.state.units["a1"]) == {"in_cover": 1}
    assert b.morale_modifiers(b.state.units["b1"]) == {}


def test_a_spent_unit_cut_up_counts_out_for_the_break() -> None:
    """spent_counts_out: a spent unit that has lost rout_loss (0.3) counts as out, with
    spent_out_loss null as version 3 had it (version 4's 0.2: tests/musket/)."""
    from sim.rulesets.musket.rules.victory import side_shares

    data = _scenario([_inf("a1", [1, 1]), _inf("a2", [2, 1])], [_inf("b1", [8, 8])])
    data["options"] = {"spent_out_loss": None}
    b = _battle(data)
    unit = b.state.units["a1"]
    unit.morale = "spent"
    unit.strength = 281
    assert side_shares(b, "a")[0] == 0.0
    unit.strength = 280
    assert side_shares(b, "a")[0] == 0.5
    b2 = _battle({**data, "options": {"spent_counts_out": False, "spent_out_loss": None}})
    b2.state.units["a1"].morale = "spent"
    b2.state.units["a1"].strength = 100
    assert side_shares(b2, "a")[0] == 0.0


def test_unit_rows_face_away_from_the_retreat_edge() -> None:
    """Side a retreats south (faces up the map: 0°), side b north (180°); no facing
    without enfilade."""
    from sim.rulesets.musket.reading.view import units

    data = _scenario([_inf("a1", [1, 1])], [_inf("b1", [8, 8])])
    b = _battle(data)
    assert [r.facing for r in units(b.scenario, b.state)] == [0.0, 180.0]
    b2 = _battle({**data, "options": {"enfilade": False}})
    assert [r.facing for r in units(b2.scenario, b2.state)] == [None, None]


def test_fire_spares_a_routed_enemy_while_another_is_in_reach() -> None:
    """spare_routed: a routed enemy next to the firer is passed over for one in good order
    two hexes off; alone in reach it is fired on; without the option it is the target."""
    from sim.rulesets.musket.rules.fire import decide_fire

    data = _scenario(
        [_inf("me", [4, 5], order={"kind": "hold"})],
        [_inf("r", [4, 4], morale="routed"), _inf("g", [4, 3])],
        limit=1,
    )
    b = _battle(data)
    me = b.state.units["me"]
    fired = decide_fire(b, me, "defensive_fire")
    assert fired is not None and fired.target == "g"
    b2 = _battle({**data, "options": {"spare_routed": False}})
    fired = decide_fire(b2, b2.state.units["me"], "defensive_fire")
    assert fired is not None and fired.target == "r"
    b3 = _battle(
        {
            **data,
            "sides": [
                data["sides"][0],
                {**data["sides"][1], "units": [_inf("r", [4, 4], morale="routed")]},
            ],
        }
    )
    fired = decide_fire(b3, b3.state.units["me"], "defensive_fire")
    assert fired is not None and fired.target == "r"


def test_a_friend_right_behind_supports_the_charge() -> None:
    """closing_support: a good-order friend on the rear hexside (S, for a side retreating
    south) gives +1; one beside it (SE: the flank) does not; nor a routed one."""
    from sim.rulesets.musket.rules.morale import supported

    def battle(friend_at: list[int], morale: str = "good") -> Battle:
        return _battle(
            _scenario(
                [
                    _inf("att", [4, 5], order={"kind": "charge", "target": "def"}),
                    _inf("f", friend_at, morale=morale),
                ],
                [_inf("def", [4, 4], order={"kind": "hold"})],
            )
        )

    b = battle([4, 6])
    assert supported(b, b.state.units["att"])
    b = battle([5, 5])  # even column 4: (5, 5) is the SE neighbour
    assert not supported(b, b.state.units["att"])
    b = battle([4, 6], "routed")
    assert not supported(b, b.state.units["att"])
