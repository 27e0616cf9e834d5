"""Whole becmi fights: draws keyed per actor, resolutions that redo from the log, the CLI."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from engine.log import MemorySink
from sim import api
from sim.cli import cli
from sim.rulesets.becmi.model.tohit import needed
from sim.scenario.catalog import template_text
from sim.scenario.load import ScenarioError, load_scenario, parse_yaml, validate_data
from tests.golden import GOLDEN, golden_path

ROOT = Path(__file__).resolve().parents[2]
BECMI_GOLDEN = ["dungeon_skirmish.yaml", "tavern_brawl.yaml"]
TAVERN = ROOT / "scenarios" / "tavern_brawl.yaml"


def _events(scenario: str) -> list[dict[str, Any]]:
    return _lines(golden_path(scenario, GOLDEN[scenario]))


def _lines(path: Path) -> list[dict[str, Any]]:
    """A replay's event lines, decoded."""
    lines = path.read_text(encoding="utf-8").split("\n")
    return [json.loads(x) for x in lines[1:-2]]


def _actor(e: dict[str, Any]) -> tuple[str, list[str]]:
    """The purpose and the allowed stream keys of an event's draws."""
    kind = e["type"].removeprefix("becmi.")
    return {
        "initiative": ("initiative", list(e.get("rolls", {}))),
        "attacked": ("attack", [e.get("attacker")]),
        "struck": ("strike", [e.get("attacker")]),
        "wrestled": ("wrestle", [e.get("bout")]),
        "morale_checked": ("morale", [e.get("side")]),
    }[kind]


def test_goldens_are_registered() -> None:
    """Both becmi scenarios have golden replays at their own seeds."""
    assert {s: GOLDEN[s] for s in BECMI_GOLDEN} == {
        "dungeon_skirmish.yaml": 3,
        "tavern_brawl.yaml": 377,
    }


def test_every_draw_is_keyed_by_round_purpose_and_actor() -> None:
    """Each draw comes from ``<round>/<purpose>/<actor>`` of its own event, indices in order."""
    for scenario in BECMI_GOLDEN:
        seen: dict[str, int] = {}
        for e in _events(scenario):
            if not e.get("draws"):
                continue
            purpose, keys = _actor(e)
            for stream, i, _u in e["draws"]:  # format 4: each draw is [stream, i, u]
                rnd, p, key = stream.split("/")
                assert (int(rnd), p) == (e["turn"], purpose)
                assert key in keys
                assert i == seen.get(stream, 0)
                seen[stream] = i + 1


def _check_to_hit(th: dict[str, Any], u: float, opts: dict[str, Any]) -> None:
    assert th["roll"] == 1 + math.floor(u * 20)
    assert th["ac"] == th["ac_base"] + sum(th["ac_modifiers"].values())
    n = needed(th["thac0"], th["ac"])
    assert (th["h"], th["needed"], th["damage_bonus"]) == (n.h, n.needed, n.damage_bonus)
    assert [tuple(s.values()) for s in th["steps"]] == n.steps
    assert th["total"] == th["roll"] + sum(th["modifiers"].values())
    plain = th["total"] >= th["needed"]
    if th["roll"] == 1 and opts["natural_1_misses"]:
        plain = False
    assert th["hit"] == plain


def test_every_resolution_redoes_from_its_own_numbers() -> None:
    """To-hit, damage, hit points, stun and saves in each event agree with its own numbers."""
    for scenario in BECMI_GOLDEN:
        _, sc = load_scenario(ROOT / "scenarios" / scenario)
        opts = sc.options.model_dump()  # type: ignore[attr-defined]
        for e in _events(scenario):
            if e["type"] in ("becmi.attacked", "becmi.struck") and e["to_hit"] is not None:
                _check_to_hit(e["to_hit"], e["draws"][0][2], opts)
                dmg = e["damage"]
                assert (dmg is not None) == e["to_hit"]["hit"]
                lost = dmg["total"] if dmg else 0
                assert (e["hp_after"], e["killed"]) == (e["hp_before"] - lost, e["hp_after"] <= 0)
            if e["type"] == "becmi.attacked" and e["damage"]:
                d = e["damage"]
                assert d["total"] == max(
                    d["minimum"], sum(d["rolls"]) + sum(d["modifiers"].values())
                )
            if e["type"] == "becmi.struck" and e["t"] is not None:
                assert (e["t"], e["stunned"]) == (e["stun_roll"] - e["con"], e["t"] > 0)
            if e["type"] == "becmi.wrestled":
                for team in (e["aggressors"], e["defenders"]):
                    assert team["total"] == team["roll"] + team["wr"]
                step = {"aggressors": 1, "defenders": -1, None: 0}[e["winner"]]
                assert e["hold_after"] == max(-3, min(3, e["hold_before"] + step))


def test_golden_fights_exercise_the_rules() -> None:
    """The goldens (today's and as format 4 wrote them, both verified) hold a knock-out and its
    recovery, a pin, morale flight, cover and range."""
    old = ROOT / "tests" / "data" / "replays"
    tavern = [*_events("tavern_brawl.yaml"), *_lines(old / "tavern_brawl-s377.format4.jsonl")]
    dungeon = [
        *_events("dungeon_skirmish.yaml"),
        *_lines(old / "dungeon_skirmish-s3.format4.jsonl"),
    ]
    assert any(e["type"] == "becmi.struck" and e["knocked_out_rounds"] for e in tavern)
    assert any(e["type"] == "becmi.recovered" for e in tavern)
    assert any(e["type"] == "becmi.wrestled" and e["pins"] for e in tavern)
    assert any(e["type"] == "becmi.morale_checked" and e["fled"] for e in tavern + dungeon)
    bands = {e["range_band"] for e in dungeon if e["type"] == "becmi.attacked"}
    assert bands == {None, "short", "medium", "long"}
    assert any(e["type"] == "becmi.attacked" and e["cover"] == "half hard" for e in dungeon)


def _round_one(text: str) -> list[dict[str, Any]]:
    data, lines = parse_yaml(text, "t.yaml")
    ruleset, sc = validate_data(data, lines, "t.yaml")
    sink = MemorySink()
    ruleset.simulate(sc, api.make_header(ruleset, sc, 3, "t.yaml"), sink)  # his first blow lands
    events = [json.loads(line) for line in sink.lines[1:-1]]
    # The chain hash and the round's state digest follow from the change by design.
    return [
        {k: v for k, v in e.items() if k != "h"}
        for e in events
        if e["turn"] == 1 and e["type"] != "engine.turn_ended"
    ]


def test_changing_one_combatant_moves_no_other_draw() -> None:
    """Thorgrim pulling his blows changes his blow's damage only: Snaga's bout is the same."""
    text = TAVERN.read_text(encoding="utf-8")
    pulled = text.replace(
        "        attack: strike       #", "        pull: true\n        attack: strike #"
    )
    a, b = _round_one(text), _round_one(pulled)
    assert [e["type"] for e in a] == [e["type"] for e in b]
    differ = [x["type"] for x, y in zip(a, b, strict=True) if x != y]
    assert differ == ["becmi.struck"]
    [sa], [sb] = ([e for e in r if e["type"] == "becmi.struck"] for r in (a, b))
    assert (sa["damage"]["total"], sb["damage"]["total"]) == (3, 0)
    assert (sa["draws"], sa["to_hit"]) == (sb["draws"], sb["to_hit"])


def _problems(text: str) -> list[str]:
    data, lines = parse_yaml(text, "t.yaml")
    try:
        validate_data(data, lines, "t.yaml")
    except ScenarioError as exc:
        return [str(p) for p in exc.problems]
    return []


def test_cross_field_problems_are_located() -> None:
    """Unknown weapon, a haymaker that does not strike, a friend as target, bad HD: each located."""
    text = TAVERN.read_text(encoding="utf-8")
    text = text.replace("target: grub ", "weapon: cutlass ")
    text = text.replace("attack: wrestle", "attack: wrestle\n        haymaker: true")
    text = text.replace("target: thorgrim", "target: grub")
    assert [p.split(";")[0] for p in _problems(text)] == [
        "t.yaml:33: sides.0.characters.0.weapon: unknown weapon 'cutlass'",
        "t.yaml:57: sides.1.monsters.1.haymaker: haymaker needs attack 'strike'",
        "t.yaml:58: sides.1.monsters.1.target: 'grub' is not an enemy",
    ]
    text = TAVERN.read_text(encoding="utf-8").replace('hd: "1"  ', 'hd: "1+"  ')
    text = text.replace("level: 4 ", "level: 37 ")
    assert _problems(text) == [
        "t.yaml:27: sides.0.characters.0.level: 37 is more than 36, the most it may be",
        "t.yaml:40: sides.1.monsters.0.hd: Hit Dice '1+': write 1/2, n, n+k or n-k (n >= 1)",
    ]


def test_a_demi_human_save_as_past_its_maximum_level_is_located() -> None:
    """D13 and H9 name no row of the Death Ray table (dwarves end at 12, halflings at 8):
    validate locates them, where the battle used to stop at the first save; E10 is valid."""
    text = TAVERN.read_text(encoding="utf-8").replace("save_as: F1", "save_as: D13", 1)
    text = text.replace("save_as: F1", "save_as: H9", 1)
    assert _problems(text) == [
        "t.yaml:44: sides.1.monsters.0.save_as: 'D13': a dwarf saves as level 1-12, e.g. 'D12'",
        "t.yaml:54: sides.1.monsters.1.save_as: 'H9': a halfling saves as level 1-8, e.g. 'H8'",
    ]
    elf = TAVERN.read_text(encoding="utf-8").replace("save_as: F1", "save_as: E10")
    assert _problems(elf) == []


def test_the_templates_chain_mail_and_shield_are_armour_5_and_a_shield(tmp_path: Path) -> None:
    """`battlesim new becmi` gives Hilda "chain mail and shield": chain mail is AC 5 [src],
    the shield 1 better (docs/rules/becmi.md: `armour_ac` is the armour alone, a wrestler's
    WR counts only it). The goblins' first blow at her reads AC 4 (base 5, shield −1); the
    template wrote armour_ac 4 with no shield, the same AC 4 but a WR one too good."""
    scenario = tmp_path / "mine.yaml"
    scenario.write_text(template_text("becmi").replace("{name}", "Mine"), encoding="utf-8")
    result = api.run(scenario, out=tmp_path / "mine.jsonl")
    events = [json.loads(x) for x in Path(result.replay).read_text(encoding="utf-8").splitlines()]
    at_hilda = [e["to_hit"] for e in events if e.get("target") == "hilda" and "to_hit" in e]
    assert (at_hilda[0]["ac_base"], at_hilda[0]["ac_modifiers"], at_hilda[0]["ac"]) == (
        5,
        {"shield": -1},
        4,
    )


def test_the_pages_morale_check_is_redone_by_hand_from_its_draws() -> None:
    """docs/rules/becmi.md, *Random streams*: a die of n sides is 1 + floor(n u) of its draw.
    The golden tavern brawl's seq 17 (the orcs' morale, half out) drew u 0.713 and 0.727:
    2d6 = 5 + 5 = 10 > Grub's ML 8, so he flees; the page works it, as flattop's does its d10
    (it said only that events record their draws, not how a value becomes a face)."""
    golden = ROOT / "replays" / "tavern_brawl-s377.jsonl"
    [event] = [json.loads(x) for x in golden.read_text(encoding="utf-8").splitlines()
               if '"seq":17,' in x]  # fmt: skip
    assert (event["type"], event["trigger"], event["morale"]) == (
        "becmi.morale_checked",
        "half_out",
        {"grub": 8},
    )
    rolls = [1 + math.floor(6 * u) for _, _, u in event["draws"]]
    assert (rolls, sum(rolls)) == ([5, 5], 10)
    assert (event["rolls"], event["total"], event["fled"]) == (rolls, 10, ["grub"])
    page = " ".join((ROOT / "docs" / "rules" / "becmi.md").read_text(encoding="utf-8").split())
    assert "A die of n sides shows **1 + ⌊n·u⌋** of its draw's value u" in page
    assert "2d6 = (1 + ⌊4.28⌋) + (1 + ⌊4.36⌋) = 5 + 5 = 10, above Grub's ML 8" in page


def test_cli_runs_verifies_and_shows_a_becmi_fight(tmp_path: Path) -> None:
    """run, verify, show and show --events work on a becmi scenario with the generic CLI."""
    out = tmp_path / "tb.jsonl"
    runner = CliRunner()
    run = runner.invoke(cli, ["run", str(TAVERN), "--out", str(out)])
    assert run.exit_code == 0
    assert run.stdout.splitlines()[:3] == [
        "tavern_brawl.yaml (seed 377): Thorgrim wins after 4 rounds — "
        "Thorgrim is the only side left standing",
        "  Thorgrim: 1 of 1 standing; 0 dead, 0 knocked out, 0 fled; 2 hp lost",
        "  Orc band: 0 of 2 standing; 1 dead, 0 knocked out, 1 fled; 5 hp lost",
    ]
    verify = runner.invoke(cli, ["verify", str(out)])
    assert (verify.exit_code, verify.stdout.startswith(f"OK: {out}: 20 events")) == (0, True)
    show = runner.invoke(cli, ["show", "--turn", "3", str(out)])
    assert show.exit_code == 0
    assert show.stdout.splitlines() == [
        "Brawl at the Prancing Goat — end of round 3",
        "unit      side      x,y    strength  status             cover  cover_kind",
        "Thorgrim  Thorgrim  30,10  22/24 hp  stunned, in a pin  none   -",
        "Grub      Orc band  25,8   6/6 hp    -                  none   -",
        "Snaga     Orc band  25,12  2/5 hp    in a pin           none   -",
    ]
    events = runner.invoke(cli, ["show", "--events", str(out)])
    assert events.exit_code == 0
    assert events.stdout.splitlines()[-1] == (
        "Round 4 — Thorgrim wins: Thorgrim is the only side left standing"
    )


def test_verify_names_the_first_round_apart_as_diff_does(tmp_path: Path) -> None:
    """verify said "first turn whose state differs" of a becmi battle, whose turns diff and
    show call rounds; it says round, as diff does, in the text and in --json."""
    from tests.forge import bodies, forge

    golden = golden_path("tavern_brawl.yaml", GOLDEN["tavern_brawl.yaml"])
    texts = bodies(golden)
    at = next(i for i, t in enumerate(texts) if json.loads(t).get("type") == "engine.turn_ended")
    end = json.loads(texts[at])
    forged = {**end, "state_digest": "sha256:" + "0" * 64}

    def edit(lines: list[str]) -> list[str]:
        return [*lines[:at], json.dumps(forged, separators=(",", ":")), *lines[at + 1 :]]

    path = forge(tmp_path, edit, source=golden)
    said = (
        f"MISMATCH at seq {end['seq']} (line {at + 1}): event engine.turn_ended differs from "
        f"re-simulation in: state_digest; first round whose state differs: {end['turn']}"
    )
    result = CliRunner().invoke(cli, ["verify", str(path)])
    assert (result.exit_code, result.stdout) == (1, said + "\n")
    result = CliRunner().invoke(cli, ["verify", str(path), "--json"])
    assert json.loads(result.stdout)["message"] == said.split(": ", 1)[1]
