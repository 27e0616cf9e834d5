"""Campaigns for flattop and becmi: carry-over by id through the ruleset contract."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from sim.batch.execution.worker import NullSink
from sim.batch.inputs.campaign import fight_campaign, unit_ids
from sim.batch.inputs.files import read_yaml
from sim.batch.inputs.target import load_campaign
from sim.rulesets.becmi.campaign import carry_over as becmi_carry
from sim.rulesets.becmi.model.state import initial_state as becmi_initial
from sim.rulesets.flattop.campaign import carry_over as flattop_carry
from sim.rulesets.flattop.model.state import initial_state as flattop_initial
from sim.scenario.load import load_scenario
from tests.batch.helpers import SCENARIOS, invoke

CARRIER_WAR = SCENARIOS / "carrier_war_campaign.yaml"
DELVE = SCENARIOS / "delve_campaign.yaml"


def _ships(data: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {s["id"]: s for side in data["sides"] for tf in side["task_forces"] for s in tf["ships"]}


def test_flattop_carry_over_keeps_damage_aircraft_and_cap() -> None:
    """Sunk ships go, damage is hits-to-sink left plus repair, aircraft are those aboard."""
    _, sc = load_scenario(SCENARIOS / "carrier_duel.yaml")
    state = flattop_initial(sc)
    state.ships["hornet"].status = "sunk"  # Hornet's strikes cannot fly tomorrow
    state.ships["enterprise"].hits = 4  # damage factor 6 (fleet carrier): 2 left
    state.ships["shokaku"].hits = 2
    ent = state.decks["enterprise"]
    ent.hangar.update({"fighter": 5, "dive_bomber": 3, "torpedo_bomber": 0})
    ent.rearming["dive_bomber"] = 2
    ent.ready["ent_second"] = {"fighter": 0, "dive_bomber": 4, "torpedo_bomber": 0,
                               "level_bomber": 0}  # fmt: skip
    state.task_forces["kido"].cap = 2
    nxt, _ = read_yaml(SCENARIOS / "carrier_duel_day2.yaml")
    out = flattop_carry(sc, state, nxt, {"repair": 1})
    ships = _ships(out)
    assert "hornet" not in ships
    damage = {"carrier": sc.options.damage("carrier")}  # the class's (option damage_carrier, 6)
    assert ships["enterprise"]["damage"] == damage["carrier"] - 4 + 1
    assert ships["shokaku"]["damage"] == damage["carrier"] - 2 + 1
    assert ships["zuikaku"]["damage"] == damage["carrier"]  # untouched: repair cannot exceed it
    assert ships["enterprise"]["aircraft"] == {"fighter": 5, "dive_bomber": 9}
    red_tf = out["sides"][1]["task_forces"][0]
    assert red_tf["cap"] == 2
    assert out["sides"][0]["task_forces"][0]["cap"] == 4  # Blue's CAP untouched
    blue = {st["id"]: st for st in out["sides"][0]["strikes"]}
    assert sorted(blue) == ["ent_d2", "ent_d2_pm"]  # Hornet's dawn strike is gone with her
    # Enterprise has no torpedo bombers left: that attack is dropped, the dive bombers fly
    assert [a["aircraft"] for a in blue["ent_d2"]["attacks"]] == ["dive_bomber"]
    red = {st["id"]: st for st in out["sides"][1]["strikes"]}
    assert "target" not in red["zui_d2"]["attacks"][0]  # aimed at Hornet, which sank
    assert nxt["sides"][0]["task_forces"][0]["ships"][1]["id"] == "hornet"  # input unchanged


def test_becmi_carry_over_keeps_hit_points_and_leaves_the_dead() -> None:
    """Survivors keep their hit points plus healing (capped at the next hp); the dead stay out."""
    _, sc = load_scenario(SCENARIOS / "dungeon_skirmish.yaml")
    state = becmi_initial(sc)
    c = state.combatants
    c["alaric"].hp = 6  # 20 at most: 6 + 3 = 9
    c["mirela"].hp = 13  # 14 at most: 13 + 3 capped at 14
    c["pip"].hp, c["pip"].status = -2, "dead"
    c["zanthe"].hp, c["zanthe"].unconscious = 0, True  # comes round with 1, then heals
    nxt, _ = read_yaml(SCENARIOS / "delve_guardroom.yaml")
    out = becmi_carry(sc, state, nxt, {"healing": 3})
    party = {x["id"]: x["hp"] for x in out["sides"][0]["characters"]}
    assert party == {"alaric": 9, "mirela": 14, "zanthe": 4}
    guards = out["sides"][1]["monsters"]
    assert [g["hp"] for g in guards] == [7, 5, 6, 11]  # a new room's monsters are fresh
    c["pip"].status, c["pip"].hp = "fled", 5
    fled = becmi_carry(sc, state, nxt, {"fled_return": False})
    assert [x["id"] for x in fled["sides"][0]["characters"]] == ["alaric", "mirela", "zanthe"]


def test_the_fallen_stay_out_of_every_later_battle() -> None:
    """One who dies in the first room is in neither the second nor the third (a hook sees one)."""
    campaign = load_campaign(DELVE)
    result = fight_campaign(campaign, 17, lambda _k, _e: NullSink())
    first = result.battles[0]
    dead = {cid for cid, c in first.state.combatants.items() if c.status == "dead"}
    party = {"alaric", "mirela", "pip", "zanthe"}
    assert dead & party  # this seed costs the party someone in the barricade fight
    for later in result.battles[1:]:
        assert not unit_ids(later.ruleset, later.scenario) & dead & party
    assert len(result.battles) == 3


@pytest.mark.parametrize(
    ("campaign", "first_line", "battles"),
    [
        (CARRIER_WAR, "Carrier war — two days of strikes (seed 3):", ["1-day1", "2-day2"]),
        (DELVE, "The delve — barricade, guard room, lair (seed 3):", ["1-barricade"]),
    ],
)
def test_campaign_command_works_for_flattop_and_becmi(
    tmp_path: Path, campaign: Path, first_line: str, battles: list[str]
) -> None:
    """battlesim campaign fights each battle, one replay each, same bytes again for one seed."""
    result = invoke("campaign", campaign, "--seed", "3", "--out", tmp_path / "a")
    assert result.exit_code == 0, result.output
    assert result.output.splitlines()[0] == first_line
    summary = json.loads((tmp_path / "a" / "campaign.json").read_text())
    names = [Path(r).stem for r in summary["replays"]]
    assert names[: len(battles)] == battles
    assert invoke("campaign", campaign, "--seed", "3", "--out", tmp_path / "b").exit_code == 0
    for name in [*summary["replays"], "campaign.json"]:
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes()
    for replay in summary["replays"]:
        assert invoke("verify", tmp_path / "a" / replay).exit_code == 0


@pytest.mark.parametrize("campaign", [CARRIER_WAR, DELVE])
def test_batch_studies_a_flattop_or_becmi_campaign(tmp_path: Path, campaign: Path) -> None:
    """batch over a campaign: runs done, losses in the ruleset's own words in the text."""
    result = invoke("batch", campaign, "--runs", "4", "--out", tmp_path, "--jobs", "1")
    assert result.exit_code == 0, result.output
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["study"]["kind"] == "campaign"
    assert summary["points"][0]["done"] == 4
    words = "ships sunk" if campaign == CARRIER_WAR else " dead "
    assert words in result.output


_PICKETS = """ruleset: musket
name: {name}
turns: {{limit: 3}}
map: {{width: 10, height: 10}}
sides:
  - id: blue
    name: Blue
    retreat: south
    units:
      - {{id: b1, name: 1st Blue, kind: infantry, strength: 900, quality: A, weapon: rifle_musket,
          at: [4, 6]{order}}}
      - {{id: b2, name: 2nd Blue, kind: infantry, strength: 900, quality: A, weapon: rifle_musket,
          at: [5, 6]}}
  - id: red
    name: Red
    retreat: north
    units:
      - {{id: r1, name: 1st Red, kind: infantry, strength: 400, quality: C, weapon: rifle_musket,
          at: [1, 1]}}
      - {{id: r2, name: Red pickets, kind: infantry, strength: 1, quality: F,
          weapon: rifle_musket, at: [4, 5]}}
"""


def test_a_charge_at_a_unit_that_fell_two_battles_before_becomes_an_advance(
    tmp_path: Path,
) -> None:
    """Red's one-man pickets fall in battle one; battle three's file orders b1 to charge them.
    The order becomes an advance on the hex they were to hold, as for a unit that fell in
    the battle just before (docs/batch.md), and battle three is fought: before, only their
    target was dropped, the charge had none, and the campaign ended after battle two."""
    for k, name in enumerate(("Battle one", "Battle two", "Battle three"), 1):
        order = ", order: {kind: charge, target: r2}" if k == 3 else ""
        (tmp_path / f"f{k}.yaml").write_text(_PICKETS.format(name=name, order=order))
    (tmp_path / "three.yaml").write_text(
        "campaign: T\nbattles:\n  - {id: one, scenario: f1.yaml}\n"
        "  - {id: two, scenario: f2.yaml}\n  - {id: three, scenario: f3.yaml}\n"
    )
    result = fight_campaign(load_campaign(tmp_path / "three.yaml"), 1, lambda _k, _e: NullSink())
    first = result.battles[0]
    assert first.state.units["r2"].morale == "eliminated"
    assert len(result.battles) == 3
    third = result.battles[2].scenario
    [b1] = [u for u in third.sides[0].units if u.id == "b1"]
    assert (b1.order.kind, tuple(b1.order.to)) == ("advance", (4, 5))
    assert [u.id for u in third.sides[1].units] == ["r1"]


def test_a_ship_that_fell_two_days_before_leaves_her_task_force_as_on_the_day_after(
    tmp_path: Path,
) -> None:
    """flattop: Zuikaku alone in a task force of her own, fallen before the day just fought
    (absent from it): she is gone, her task force with her, and the strike aimed at it, as
    when she sinks the day before. Before, she was left out only after flattop's carry, the
    task force stayed with no ships, and the day could not be fought."""
    import copy

    import yaml

    from sim.batch.inputs.campaign import carried

    d = yaml.safe_load((SCENARIOS / "carrier_duel.yaml").read_text())
    red = d["sides"][1]
    kido = red["task_forces"][0]
    [zui] = [s for s in kido["ships"] if s["id"] == "zuikaku"]
    kido["ships"] = [s for s in kido["ships"] if s["id"] != "zuikaku"]
    red["task_forces"].append({"id": "kido2", "name": "Zuikaku", "at": [15, 9], "ships": [zui]})
    for st in d["sides"][0]["strikes"]:
        if st["id"] == "hor_dawn":
            st["target"] = "kido2"
        for a in st["attacks"]:
            if a.get("target") == "zuikaku" and st["id"] != "hor_dawn":
                a["target"] = "shokaku"
    (tmp_path / "three.yaml").write_text(yaml.safe_dump(d, sort_keys=False))
    before = copy.deepcopy(d)  # the day before: no Zuikaku, nothing aimed at her
    before["sides"][1]["task_forces"] = before["sides"][1]["task_forces"][:1]
    before["sides"][1]["strikes"] = [
        s for s in before["sides"][1]["strikes"] if s["origin"] != "zuikaku"
    ]
    before["sides"][0]["strikes"] = [
        s for s in before["sides"][0]["strikes"] if s["id"] != "hor_dawn"
    ]
    (tmp_path / "two.yaml").write_text(yaml.safe_dump(before, sort_keys=False))
    (tmp_path / "c.yaml").write_text(
        "campaign: T\nvictory: {rule: last_battle}\nbattles:\n"
        "  - {id: b2, scenario: two.yaml}\n  - {id: b3, scenario: three.yaml}\n"
    )
    campaign = load_campaign(tmp_path / "c.yaml")
    fought = fight_campaign(campaign, 1, lambda _k, _e: NullSink())
    fallen = frozenset({"zuikaku", "zui_dawn", "zui_second"})
    ready = carried(campaign, 1, fought.battles[0], fallen)
    assert not isinstance(ready, Exception), ready
    _, scenario = ready
    red_now = scenario.sides[1]
    assert [tf.id for tf in red_now.task_forces] == ["kido"]
    assert "zuikaku" not in [s.id for tf in red_now.task_forces for s in tf.ships]
    assert "hor_dawn" not in [s.id for s in scenario.sides[0].strikes]


def _carried_from(campaign: Path, end: Callable[[Any, Any], None]) -> tuple[set[str], set[str]]:
    """The ids of the units battle two's file brings that battle one's lacks, and of the
    units of battle two as carried from battle one's start changed by ``end``."""
    from sim.batch.inputs.campaign import BattleResult, carried, validate_battle

    data = load_campaign(campaign)
    rs, first = validate_battle(data.battles[0].scenario, data.battles[0].source)
    state = rs.initial_state(first)
    end(first, state)
    before = BattleResult("one", "", 1, rs, first, state, rs.outcome(first, state))
    own = validate_battle(data.battles[1].scenario, data.battles[1].source)
    ready = carried(data, 1, before)
    assert isinstance(ready, tuple), ready
    return unit_ids(*own) - unit_ids(rs, first), unit_ids(*ready)


@pytest.mark.parametrize(
    "campaign", [SCENARIOS / "fredericksburg_campaign.yaml", CARRIER_WAR, DELVE]
)
def test_each_rulesets_carry_keeps_the_units_the_next_battle_brings(campaign: Path) -> None:
    """musket, flattop, becmi: every unit of battle two's file that battle one lacks (a
    battery, cruisers and the day's strikes, a room's monsters) is in battle two as carried,
    battle one's start standing for its end."""
    newcomers, second = _carried_from(campaign, lambda _sc, _state: None)
    assert newcomers
    assert newcomers <= second


def test_flattop_leaves_out_the_next_days_strikes_of_a_sunk_carrier_by_its_rule() -> None:
    """Hornet and Enterprise sunk on day 1: day 2's strikes from them (units day 1 lacks)
    are left out by flattop's rule, which says so, and the day is carried, not refused; the
    day's other newcomers are there."""

    def sink(_sc: Any, state: Any) -> None:
        state.ships["hornet"].status = state.ships["enterprise"].status = "sunk"

    newcomers, second = _carried_from(CARRIER_WAR, sink)
    _, day2 = load_scenario(SCENARIOS / "carrier_duel_day2.yaml")
    grounded = {st.id for st in day2.sides[0].strikes if st.origin in ("hornet", "enterprise")}
    assert grounded == {"ent_d2", "hor_d2", "ent_d2_pm"}
    assert second & (grounded | {"hornet", "enterprise"}) == set()
    assert newcomers - grounded <= second
