"""Whole flattop battles: the golden outcomes, the hour clock, same-time order, streams, the CLI."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import yaml
from click.testing import CliRunner

from sim import api
from sim.cli import cli
from sim.rulesets.flattop.model import tables
from sim.rulesets.flattop.rules.resolve import modified_table
from sim.scenario.load import load_scenario
from tests.flattop.builders import load, scenario_data
from tests.golden import GOLDEN, golden_path

ROOT = Path(__file__).resolve().parents[2]
CORAL = ROOT / "scenarios" / "coral_sea.yaml"
SKETCH = ROOT / "tests" / "data" / "scenarios" / "coral_sea_sketch.yaml"
"""coral_sea.yaml as the rules-notes sketch had it (a Ready box hit, B-17s, a cancelled strike)."""
SKETCH_REPLAY = ROOT / "tests" / "data" / "replays" / "coral_sea_sketch-s1942.jsonl"
DUEL = ROOT / "scenarios" / "carrier_duel.yaml"
BATTLESIM = Path(sys.executable).parent / "battlesim"


def _events(path: Path) -> list[dict[str, Any]]:
    return [json.loads(x) for x in path.read_text(encoding="utf-8").split("\n")[1:-2]]


def _golden(scenario: str) -> list[dict[str, Any]]:
    return _events(golden_path(scenario, GOLDEN[scenario]))


def _simulate(data: dict[str, Any], seed: int = 5) -> list[dict[str, Any]]:
    """Events of an in-memory scenario, as the JSON lines a replay holds."""
    from engine.log import MemorySink
    from sim.rulesets.flattop import RULESET

    sc = load(data)
    sink = MemorySink()
    RULESET.simulate(sc, api.make_header(RULESET, sc, seed, "t.yaml"), sink)
    return [json.loads(x) for x in sink.lines[1:-1]]


def test_coral_sea_golden_outcome(tmp_path: Path) -> None:
    """At seed 1942 (flattop rules v3) Lexington's dive bombers sink Shoho in one attack: 9 AF
    count 18 factors (``attack_factor_scale`` 2), [16-20] 4.2, rolls 1 and 5: 1 + 4 = 5 hits of
    her 5.  Everything else finds her sunk and makes no attack (``flattop.target_sunk``):
    Lexington's 4 AF of torpedo bombers, then Yorktown's 6 AF of dive bombers (2 of the 8
    spoiled by the AA: table 4, 5 factors once Shoho is gone, 2 hits, none a kill) and 3 of
    torpedo bombers.  The AA against Lexington's strike (7 factors, 1.0) rolls 7: no hit.
    The Allies score 5 for Shoho and 4 for the AF lost aboard her; the Japanese nothing."""
    result = api.run(CORAL, out=tmp_path / "coral.jsonl")
    o = result.outcome.as_json()
    assert (o["winner"], o["turns"], o["reason"]) == (
        "allied",
        5,
        "every strike flown: Allied 9 points, Japanese 0 — Allied leads by 9",
    )
    japan, allied = o["sides"]["japan"], o["sides"]["allied"]
    assert japan["air_factors_lost"] == {
        "air_combat": 0, "anti_aircraft": 0, "aboard": 4, "ditched": 0,
    }  # fmt: skip
    assert allied["air_factors_lost"] == {
        "air_combat": 0, "anti_aircraft": 0, "aboard": 0, "ditched": 0,
    }  # fmt: skip
    assert (japan["sunk"], japan["crippled"], result.state.ships["shoho"].hits) == (
        ["Shoho"],
        [],
        5,
    )
    assert (allied["points"], japan["points"]) == (5 + 4, 0)
    golden = _golden("coral_sea.yaml")
    aa = [
        (e["result"]["factors"], e["result"]["hits"], e["attack_losses"], e.get("attack_spoiled"))
        for e in golden
        if e["type"] == "flattop.anti_aircraft"
    ]
    assert aa == [(2 + 4 * 1 + 1, 0, [0, 0], None), (4 * 1 + 1, 2, [0, 0], [2, 0])]
    assert [(e["strike"], e["firer"]) for e in golden if e["type"] == "flattop.air_combat"] == [
        ("lex_strike", "escort"), ("lex_strike", "cap"),
    ]  # fmt: skip
    attacks = [
        (e["strike"], e["result"]["factors"], e["hits_taken"], e["status_after"])
        for e in golden
        if "hits_taken" in e
    ]
    assert attacks == [("lex_strike", 18, 5, "sunk")]
    withheld = [
        (e["strike"], e["aircraft"], e["factors"], e["declared"])
        for e in golden
        if e["type"] == "flattop.target_sunk"
    ]
    assert withheld == [
        ("lex_strike", "torpedo_bomber", 4, "shoho"),
        ("yorktown_strike", "dive_bomber", 8 - 2, "shoho"),
        ("yorktown_strike", "torpedo_bomber", 3, "shoho"),
    ]
    assert [e["time"] for e in golden if e["type"] == "flattop.launched"] == [30.0, 45.0]


def test_coral_sea_sketch_outcome(tmp_path: Path) -> None:
    """The sketch at seed 1942 (flattop rules v3): the CAP takes one of Lexington's escorts and
    misses the bombers; the AA (table 4, 9 factors, 1 hit) spoils one dive bomber AF's attack;
    the other 7 attack as 14 factors ([13-15] 3.2: 1 + 3 = 4 hits) and sink Shoho, whose strike
    is spotted: 4 hits doubled in the Ready box are her 8, and the 5 AF aboard go down with her.
    The torpedo bombers find her sunk.  The B-17s six minutes later meet no CAP (it fought this
    turn), their AA roll misses, and level bombing of a cruiser (table 2 − 4) is no attack.
    The Allies win 13 (Shoho's 8 and 5 AF) to 1 (the escort)."""
    result = api.run(SKETCH, out=tmp_path / "coral.jsonl")
    o = result.outcome.as_json()
    assert (o["winner"], o["turns"], o["reason"]) == (
        "allied",
        6,
        "every strike flown: Allied 13 points, Japanese 1 — Allied leads by 12",
    )
    assert o["sides"]["japan"]["air_factors_lost"] == {
        "air_combat": 0, "anti_aircraft": 0, "aboard": 5, "ditched": 0,
    }  # fmt: skip
    assert o["sides"]["allied"]["air_factors_lost"] == {
        "air_combat": 1, "anti_aircraft": 0, "aboard": 0, "ditched": 0,
    }  # fmt: skip
    assert (o["sides"]["japan"]["crippled"], o["sides"]["japan"]["sunk"]) == ([], ["Shoho"])
    assert (result.state.ships["shoho"].hits, result.events) == (8, 24)
    assert result.summary == [
        "Allied: 0 ships sunk, 0 crippled, 1 air factor lost; 13 points",
        "Japanese: 1 ship sunk (Shoho), 0 crippled, 5 air factors lost; 1 point",
    ]


def test_coral_sea_sketch_event_sequence() -> None:
    """The sketch's strike on Shoho: air combat, AA, the attacks (doubled in the Ready box),
    recovery; the B-17s lose their bombers to the CAP and AA before they can attack."""
    kinds = [(e["type"].split(".")[1], e.get("strike"), e["time"]) for e in _events(SKETCH_REPLAY)]
    assert kinds == [
        ("turn_ended", None, 60.0),
        ("spotted", "lex_strike", 90.0),
        ("spotted", "b17_raid", 105.0),
        ("turn_ended", None, 120.0),
        ("launched", "lex_strike", 120.0),
        ("launched", "b17_raid", 135.0),
        ("turn_ended", None, 180.0),
        ("spotted", "shoho_strike", 210.0),
        ("air_combat", "lex_strike", 216.0),
        ("air_combat", "lex_strike", 216.0),
        ("air_combat", "lex_strike", 216.0),
        ("anti_aircraft", "lex_strike", 216.0),
        ("attacked", "lex_strike", 216.0),
        ("attacked", "lex_strike", 216.0),
        ("air_combat", "b17_raid", 222.0),
        ("anti_aircraft", "b17_raid", 222.0),
        ("turn_ended", None, 240.0),
        ("strike_cancelled", "shoho_strike", 240.0),
        ("turn_ended", None, 300.0),
        ("recovered", "b17_raid", 309.0),
        ("recovered", "lex_strike", 312.0),
        ("battle_ended", None, 360.0),
        ("turn_ended", None, 360.0),
    ]
    dive = _events(SKETCH_REPLAY)[12]
    got = (dive["ready_box"], dive["result"]["hits"], dive["hits_taken"], dive["status_after"])
    assert got == (True, 3, 6, "crippled")
    assert dive["lost_ready"] == {"shoho_strike": {"torpedo_bomber": 3, "fighter": 2}}


def test_each_hour_closes_with_one_turn_end_before_anything_else_at_that_minute() -> None:
    """Turn k's end is logged at 60k; every other event's turn is ⌊time/60⌋ + 1."""
    for scenario in ("coral_sea.yaml", "carrier_duel.yaml"):
        events = _golden(scenario)
        ends = [e for e in events if e["type"] == "engine.turn_ended"]
        assert [e["turn"] for e in events if e["type"] == "engine.snapshot"] == (
            [10] if scenario == "carrier_duel.yaml" else []
        )
        assert [(e["turn"], e["time"]) for e in ends] == [
            (k, 60.0 * k) for k in range(1, len(ends) + 1)
        ]
        for e in events:
            if not e["type"].startswith("engine.") and e["type"] != "flattop.battle_ended":
                assert e["turn"] == int(e["time"] // 60) + 1, e


def _two_strikes(launch2: str = "07:00", **options: str) -> dict[str, Any]:
    """BASE with a second strike from cv2 (launched at ``launch2``) on the same task force."""
    data = scenario_data(options=options)
    blue = data["sides"][0]
    blue["strikes"].append(
        {"id": "s2", "name": "Strike 2", "origin": "cv2", "launch": launch2, "target": "tf2",
         "escort": 2, "attacks": [{"aircraft": "dive_bomber", "factors": 2, "target": "cv3"}]}
    )  # fmt: skip
    blue["strikes"][0]["attacks"] = [{"aircraft": "dive_bomber", "factors": 8, "target": "cv3"}]
    return data


def test_two_strikes_at_the_same_minute_act_in_scenario_order() -> None:
    """Strikes launched together from two carriers arrive together; the first declared fights
    first and (``cap_engagement: every_raid``) its escorts' kills leave the second facing a
    smaller CAP."""
    data = _two_strikes(cap_engagement="every_raid")
    events = _simulate(data, seed=8)  # seed 8: s1's escorts shoot down one of the CAP
    arrival = [e for e in events if e["time"] == 129.0]
    assert [(e["strike"], e["type"].split(".")[1]) for e in arrival] == [
        ("s1", "air_combat"), ("s1", "air_combat"), ("s1", "air_combat"),
        ("s1", "anti_aircraft"), ("s1", "attacked"),
        ("s2", "air_combat"), ("s2", "air_combat"), ("s2", "air_combat"),
        ("s2", "anti_aircraft"), ("s2", "attacked"),
    ]  # fmt: skip
    assert arrival[0]["cap_lost"] == 1
    assert [e["result"]["factors"] for e in arrival[6:8]] == [2, 2]  # the 4 CAP left, split


def test_the_cap_fights_once_a_turn_by_default() -> None:
    """``cap_engagement: once_per_turn`` (rules version 2's default): the second raid of the same
    minute meets no CAP (a ``cap_rearming`` naming the raid it fought, then AA); a raid an hour
    later, in the next turn, meets it again."""
    together = [e for e in _simulate(_two_strikes(), seed=8) if e["time"] == 129.0]
    assert [(e["strike"], e["type"].split(".")[1]) for e in together] == [
        ("s1", "air_combat"), ("s1", "air_combat"), ("s1", "air_combat"),
        ("s1", "anti_aircraft"), ("s1", "attacked"),
        ("s2", "cap_rearming"), ("s2", "anti_aircraft"), ("s2", "attacked"),
    ]  # fmt: skip
    rearming = together[5]
    assert (rearming["task_force"], rearming["fought"], rearming["cap"]) == (
        "tf2", "s1", 5 - together[0]["cap_lost"],
    )  # fmt: skip
    later = _simulate(_two_strikes(launch2="08:00"), seed=8)
    s2 = [(e["turn"], e["type"].split(".")[1]) for e in later if e.get("strike") == "s2"]
    assert ("air_combat" in {t for _, t in s2}) and {n for n, t in s2 if t == "air_combat"} == {4}


def test_a_launch_on_the_hour_belongs_to_the_next_turn() -> None:
    """A 07:00 launch (minute 60) is logged after turn 1's end, in turn 2."""
    events = _simulate(scenario_data())
    first = [(e["type"], e["turn"], e["time"]) for e in events[:3]]
    assert first == [
        ("flattop.spotted", 1, 30.0),
        ("engine.turn_ended", 1, 60.0),
        ("flattop.launched", 2, 60.0),
    ]


def _draws(events: list[dict[str, Any]], strike: str) -> list[tuple[str, int, float]]:
    return [
        (d[0], d[1], d[2])  # format 4: each draw is [stream, i, u]
        for e in events
        if e.get("strike") == strike and "result" in e
        for d in e["result"]["draws"]
    ]


def test_one_strikes_change_moves_no_draw_of_another() -> None:
    """Launching the B-17s earlier changes what Lexington's strike meets, not the dice it rolls."""
    data = yaml.safe_load(SKETCH.read_text(encoding="utf-8"))
    base = _simulate(data, seed=1942)
    data["sides"][0]["strikes"][1]["launch"] = "08:00"
    moved = _simulate(data, seed=1942)
    lex = [e for e in moved if e.get("strike") == "lex_strike" and e["type"].endswith("air_combat")]
    assert lex[0]["result"]["factors"] == 4
    assert _draws(base, "lex_strike") == _draws(moved, "lex_strike")
    assert _draws(base, "b17_raid") != []


def test_every_draw_comes_from_its_own_resolutions_stream_in_order() -> None:
    """Each resolution has its own stream, named for its strike, used from draw 0 with no gaps."""
    for scenario in ("coral_sea.yaml", "carrier_duel.yaml"):
        owner: dict[str, int] = {}
        for e in _golden(scenario):
            if "result" not in e:
                continue
            draws = e["result"]["draws"]  # format 4: each draw is [stream, i, u]
            assert [i for _, i, _ in draws] == list(range(len(draws)))
            for stream, _, _ in draws:
                assert stream.startswith(e["strike"] + "/")
                assert owner.setdefault(stream, e["seq"]) == e["seq"]


def test_every_resolution_in_the_golden_replays_redoes_from_the_log() -> None:
    """Table, column, cell, d10 = ⌊10u⌋ and hits of every logged resolution follow from it."""
    count = 0
    for scenario in ("coral_sea.yaml", "carrier_duel.yaml"):
        for e in _golden(scenario):
            r = e.get("result")
            if r is None:
                continue
            count += 1
            row = modified_table(r["basic_table"], r["modifiers"])
            assert r["hit_table"] == (tables.ROWS[row] if row is not None else None)
            col = tables.column_index(r["factors"])
            assert r["column"] == tables.COLUMN_LABELS[col]
            tenths = tables.MATRIX[row][col] if row is not None else None
            assert r["cell"] == (tenths / 10 if tenths is not None else None)
            rolls = [x for x in (r["fraction_roll"], r["integer_roll"]) if x is not None]
            assert rolls == [int(10 * u) for _, _, u in r["draws"]]
            if tenths is not None:
                hits = tables.crt_hits(r["n"], r["f"], r["fraction_roll"], r["integer_roll"])
                assert (r["n"] * 10 + r["f"], hits) == (
                    tenths,
                    (r["fraction_hits"], r["integer_hits"]),
                )
            assert r["hits"] == r["fraction_hits"] + r["integer_hits"]
    resolutions = ("flattop.air_combat", "flattop.anti_aircraft", "flattop.attacked")
    every = [e for sc in ("coral_sea.yaml", "carrier_duel.yaml") for e in _golden(sc)]
    assert count == sum(e["type"] in resolutions for e in every) > 0  # every one was redone


def test_four_strikes_are_airborne_at_once_in_the_carrier_duel() -> None:
    """At 07:45 both sides' dawn strikes, four in all, are in the air together."""
    events = _golden("carrier_duel.yaml")
    up = {e["strike"]: e["time"] for e in events if e["type"] == "flattop.launched"}
    down = {e["strike"]: e["time"] for e in events if e["type"] == "flattop.recovered"}
    aloft = sorted(s for s in up if up[s] <= 105.0 < down.get(s, 1e9))
    assert aloft == ["ent_dawn", "hor_dawn", "sho_dawn", "zui_dawn"]


def test_same_seed_same_bytes_across_processes_and_hash_seeds(tmp_path: Path) -> None:
    """Two processes with different PYTHONHASHSEED write the carrier duel's golden bytes."""
    outs = []
    for hash_seed in ("0", "4242"):
        out = tmp_path / f"r{hash_seed}.jsonl"
        subprocess.run(
            [str(BATTLESIM), "run", str(DUEL), "--out", str(out)],
            check=True,
            env={**os.environ, "PYTHONHASHSEED": hash_seed},
            capture_output=True,
        )
        outs.append(out.read_bytes())
    assert outs[0] == outs[1] == golden_path("carrier_duel.yaml", 688).read_bytes()


def _invoke(*args: str) -> Any:
    result = CliRunner().invoke(cli, list(args), prog_name="battlesim")
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result


def test_cli_run_verify_and_show_work_on_a_flattop_battle(tmp_path: Path) -> None:
    """run prints the outcome, verify passes, show --turn folds and show --events narrates."""
    out = tmp_path / "cs.jsonl"
    run = _invoke("run", str(SKETCH), "--out", str(out))
    assert run.exit_code == 0
    assert run.stdout.splitlines() == [
        "coral_sea_sketch.yaml (seed 1942): Allied wins after 6 turns — every strike flown: "
        "Allied 13 points, Japanese 1 — Allied leads by 12",
        "  Allied: 0 ships sunk, 0 crippled, 1 air factor lost; 13 points",
        "  Japanese: 1 ship sunk (Shoho), 0 crippled, 5 air factors lost; 1 point",
        f"Replay: {out} (24 events)",
    ]
    verify = _invoke("verify", str(out))
    assert (verify.exit_code, verify.stdout.startswith(f"OK: {out}: 24 events")) == (0, True)
    show = _invoke("show", str(out), "--turn", "4")
    assert show.exit_code == 0
    lines = show.stdout.splitlines()
    assert lines[0] == "Coral Sea — the strike on Shoho — end of turn 4"
    [shoho] = [line for line in lines if line.split()[:2] == ["Shoho", "Japanese"]]
    # 8 hits of 8 taken: 0 of 8 left, sunk, on the Japanese side, at the task force's hex.
    expected = "Shoho Japanese 20,10 0/8 hits sunk - mo_cover 8 8 0 - -"
    assert shoho.split() == expected.split()
    events = _invoke("show", str(out), "--events")
    assert events.stdout.splitlines()[:4] == [
        "Turn 2, 08:30 — Lexington strike: F4 DB8 TB6 up to Lexington's Ready box",
        "Turn 2, 08:45 — B-17 raid: LB3 up to Port Moresby's Ready box",
        "Turn 3, 09:00 — Lexington strike launches from Lexington: escort F4, attacks 8+6 AF; "
        "8 hexes at 5 an hour, over MO Covering Group at 10:36",
        "Turn 3, 09:15 — B-17 raid launches from Port Moresby: attacks 3 AF; "
        "13 hexes at 9 an hour, over MO Covering Group at 10:42",
    ]
    shoho = _invoke("show", str(out), "--events", "--unit", "shoho").stdout.splitlines()
    assert [line[:40] for line in shoho] == [
        "Turn 4, 10:30 — Shoho strike: F2 TB3 up ",
        "Turn 4, 10:36 — Lexington strike: dive b",
        "Turn 4, 10:36 — Lexington strike: 6 AF o",
    ]


def test_the_aa_narrative_names_its_factor_an_aa_factor_not_air_factors() -> None:
    """The AA line's number is the task force's AA factor (the sum of its ships'), which
    the table reads as attacking factors; "7 AF" read as seven air factors of aircraft.

    The golden coral_sea replay: MO Main Force's AA 7 on table 4 is column 7-8, cell 1.0
    (one d10 on column 1: a 7 is 0 hits); then 5, column 5-6, cell 0.7 (a 0 on .7 is 2).
    """
    replay = golden_path("coral_sea.yaml", GOLDEN["coral_sea.yaml"])
    [first, second] = [json.loads(x) for x in replay.read_text(encoding="utf-8").splitlines()
                       if '"flattop.anti_aircraft"' in x]  # fmt: skip
    assert (sum(first["aa"].values()), sum(second["aa"].values())) == (7, 5)
    shown = _invoke("show", str(replay), "--events", "--type", "anti_aircraft")
    assert shown.stdout.splitlines() == [
        "Turn 3, 11:18 — Lexington strike: AA of MO Main Force: table 4, AA factor 7 [7-8] "
        "→ 1.0: 1 rolled 7 → 0 = 0 hits; bombers lose 0+0",
        "Turn 3, 11:33 — Yorktown strike: AA of MO Main Force: table 4, AA factor 5 [5-6] "
        "→ 0.7: .7 rolled 0 → 2 = 2 hits; bombers lose 0+0, 2+0 turn away",
    ]


def test_cli_validate_names_each_cross_field_problem_with_its_line(tmp_path: Path) -> None:
    """A strike at its own task force, one beyond its radius, a cruiser with aircraft: exit 2,
    in the file's order."""
    text = SKETCH.read_text(encoding="utf-8")
    text = text.replace("target: mo_cover\n        escort: 4", "target: tf17\n        escort: 4")
    text = text.replace("at: [20, 10]", "at: [20, 30]")
    text = text.replace(
        "{id: aoba, name: Aoba, kind: heavy_cruiser}",
        "{id: aoba, name: Aoba, kind: heavy_cruiser, aircraft: {fighter: 1}}",
    )
    bad = tmp_path / "bad.yaml"
    bad.write_text(text, encoding="utf-8")
    result = _invoke("validate", str(bad))
    assert result.exit_code == 2
    assert result.stderr.splitlines() == [
        f"{bad}:65: sides.0.strikes.0.target: 'tf17' is not a task force of japan",
        f"{bad}:91: sides.1.task_forces.0.ships.1.aircraft: a heavy_cruiser carries no aircraft",
        f"{bad}:100: sides.1.strikes.0.target: tf17 is 20 hexes away, "
        "beyond the fighter radius of 9",
        f"{bad}:100: sides.1.strikes.0.target: tf17 is 20 hexes away, "
        "beyond the torpedo_bomber radius of 9",
    ]


def test_a_launch_before_the_start_says_when_the_battle_is(tmp_path: Path) -> None:
    """A launch before the start (05:00 for a 09:00 battle) was "after the battle's last
    turn": it reads forward round the clock; the line now gives the battle's start and
    length."""
    text = CORAL.read_text(encoding="utf-8")
    assert text.count('launch: "09:30"') == 1
    bad = tmp_path / "bad.yaml"
    bad.write_text(text.replace('launch: "09:30"', 'launch: "05:00"'), encoding="utf-8")
    result = _invoke("validate", str(bad))
    line = text.splitlines().index(next(t for t in text.splitlines() if 'launch: "09:30"' in t)) + 1
    assert (result.exit_code, result.stderr) == (
        2,
        f"{bad}:{line}: sides.0.strikes.0.launch: 05:00 is not within the battle, which "
        "starts at 09:00 and lasts 6 hours (6 turns)\n",
    )


def test_a_launch_after_a_one_turn_battle_says_one_hour_one_turn(tmp_path: Path) -> None:
    """A one-turn battle's launch out of it said "lasts 1 hours (1 turns)"."""
    text = CORAL.read_text(encoding="utf-8")
    assert text.count('launch: "09:30"') == 1 and text.count("  limit: 6") == 1
    bad = tmp_path / "bad.yaml"
    text = text.replace('launch: "09:30"', 'launch: "10:30"').replace("  limit: 6", "  limit: 1")
    bad.write_text(text, encoding="utf-8")
    result = _invoke("validate", str(bad))
    assert result.exit_code == 2
    assert result.stderr.endswith(
        "sides.0.strikes.0.launch: 10:30 is not within the battle, which starts at 09:00 "
        "and lasts 1 hour (1 turn)\n"
    ), result.stderr


def test_installed_package_declares_the_flattop_entry_point() -> None:
    """The installed distribution lists flattop in the battlesim.rulesets entry-point group."""
    from importlib.metadata import entry_points

    names = {ep.name: ep.value for ep in entry_points(group="battlesim.rulesets")}
    assert names["flattop"] == "sim.rulesets.flattop:RULESET"
    ruleset, sc = load_scenario(CORAL)
    assert (ruleset.name, ruleset.version, type(sc).__name__) == ("flattop", "3", "FlattopScenario")
    assert ruleset.older_versions == ("1", "2")


def test_a_sunk_ship_answers_no_more_raids_and_its_process_ends() -> None:
    """Each ship is a process: sunk by one raid, it is gone from the next raid's AA and its process
    has ended, as have the strikes'; every other ship, task force and base was still waiting when
    the battle ended (the kernel closed its generator then; SimPy still counts it alive)."""
    from engine.log import MemorySink
    from sim import runner
    from sim.rulesets.flattop import RULESET

    data = scenario_data()
    blue = data["sides"][0]
    blue["strikes"][0]["attacks"] = [{"aircraft": "dive_bomber", "factors": 8, "target": "dd2"}]
    blue["strikes"].append(
        {"id": "s2", "name": "Strike 2", "origin": "cv2", "launch": "08:00", "target": "tf2",
         "escort": 2, "attacks": [{"aircraft": "dive_bomber", "factors": 2, "target": "cv3"}]}
    )  # fmt: skip
    rs, sc, sink, started = RULESET, load(data), MemorySink(), []
    header = api.make_header(rs, sc, 5, "t.yaml")  # seed 5: s1's bombs sink dd2
    runner.fight(
        rs.plan(sc), sc, header, sink, rs.initial_state(sc), rs.apply, rs.snapshot,
        watch=started.extend,
    )  # fmt: skip
    events = [json.loads(x) for x in sink.lines[1:-1]]
    assert [e["ship"] for e in events if e.get("status_after") == "sunk"] == ["dd2"]
    aa = {e["strike"]: list(e["aa"]) for e in events if e["type"] == "flattop.anti_aircraft"}
    assert aa == {"s1": ["cv3", "ca1", "dd2"], "s2": ["cv3", "ca1"]}
    assert [u for u, p in started if not p.is_alive] == ["dd2", "s1", "s2"]


def test_a_resolution_on_the_star_row_reads_table_star_not_table_0(tmp_path: Path) -> None:
    """A basic hit table of 0 is the matrix's ``*`` row (the event's ``basic_table`` 0,
    ``hit_table`` "*"); the narrative said "table 0", a row the matrix has not, where
    ``odds flattop`` and the rules page say ``*``. Coral Sea with ``table_anti_aircraft: 0``:
    AA 7 on row *, column 7-8, cell 0.1; then 5, column 5-6, cell 0.1."""
    data = yaml.safe_load(CORAL.read_text(encoding="utf-8"))
    data.setdefault("options", {})["table_anti_aircraft"] = 0
    scenario = tmp_path / "cs0.yaml"
    scenario.write_text(yaml.safe_dump(data), encoding="utf-8")
    out = tmp_path / "cs0.jsonl"
    assert _invoke("run", str(scenario), "--out", str(out)).exit_code == 0
    shown = _invoke("show", str(out), "--events", "--type", "anti_aircraft")
    assert shown.stdout.splitlines() == [
        "Turn 3, 11:18 — Lexington strike: AA of MO Main Force: table *, AA factor 7 [7-8] "
        "→ 0.1: .1 rolled 7 → 0 = 0 hits; bombers lose 0+0",
        "Turn 3, 11:33 — Yorktown strike: AA of MO Main Force: table *, AA factor 5 [5-6] "
        "→ 0.1: .1 rolled 0 → 1 = 1 hit; bombers lose 0+0, 1+0 turn away",
    ]


def test_a_modifier_of_two_words_is_said_in_words_in_the_narrative(tmp_path: Path) -> None:
    """The narrative wrote a modifier by its key, ``small_target -4`` (and ``dive_bombers``),
    in a line of words (``crippled +2 clouds -2``), where ``odds flattop --help`` and the rules
    page say "small target -4". Ceylon, seed 942: the Vals' 7 AF on the destroyer Vampire,
    table 7 − 4 = 3, 14 factors, column 13-15, cell 1.4 (the matrix's row 3)."""
    out = tmp_path / "ch.jsonl"
    assert _invoke("run", str(ROOT / "scenarios" / "ceylon_hermes.yaml"), "--out", str(out))
    event = next(
        json.loads(x)
        for x in out.read_text(encoding="utf-8").splitlines()
        if '"flattop.attacked"' in x and '"ship":"vampire"' in x
    )
    assert event["result"]["modifiers"] == {"small_target": -4}
    shown = _invoke("show", str(out), "--events", "--type", "attacked", "--unit", "vampire")
    assert shown.stdout.splitlines() == [
        "Turn 2, 10:35 — The Vals on Hermes and Vampire: dive bombers (ap bomb) attack Vampire: "
        "table 7 small target -4 → 3, 7 AF × 2 = 14 factors [13-15] → 1.4: .4 rolled 1 → 1, "
        "1 rolled 9 → 0 = 1 hit → 1/2 hits, crippled"
    ]
