"""Wrestling (seed 001 L57–L65): ratings, several wrestlers, the ladder, pins."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from sim.cli import cli
from sim.rulesets.becmi.rules.wrestling import decide_bout, decide_join, decide_wrestle, team_rating
from tests.becmi.helpers import FIGHTER, ORC, apply, battle, scenario

SNAGA = {**ORC, "id": "snaga", "name": "Snaga", "attack": "wrestle", "at": [0, 5]}


def test_wrestling_ratings_of_characters_and_monsters() -> None:
    """Fighter 4, Str 16, Dex 13, unarmoured: 2+2+1+9 = 14; a 1-HD orc, AC 6: 2+6 = 8."""
    plate = {**FIGHTER, "id": "sir", "name": "Sir", "level": 5, "armour_ac": 3, "shield": True}
    b = battle(scenario([FIGHTER, plate], [ORC, {**SNAGA, "hd": "1/2", "ac": 7}]), {})
    got = {cid: (w.wr, w.parts, w.twice_hd) for cid in b.specs if (w := b.wrestler(cid))}
    assert got == {
        "thorgrim": (14, {"half_level": 2, "strength": 2, "dexterity": 1, "basic_ac": 9}, 8),
        "sir": (9, {"half_level": 3, "strength": 2, "dexterity": 1, "basic_ac": 3}, 10),
        "grub": (8, {"twice_hd": 2, "ac": 6}, 2),
        "snaga": (8, {"twice_hd": 1, "ac": 7}, 1),
    }


def test_several_wrestlers_add_one_for_small_and_five_for_big_helpers() -> None:
    """The leader is the highest WR; a helper of at most half its HD adds 1, a bigger one 5."""
    ogre = {**ORC, "id": "ogre", "name": "Ogre", "hd": "4+1", "ac": 5}
    gob = {**ORC, "id": "gob", "name": "Gob", "hd": "1-1", "ac": 6}
    b = battle(scenario([FIGHTER], [ORC, ogre, gob]), {})
    members = [b.wrestler(c) for c in ("grub", "ogre", "gob")]
    leader, helpers = team_rating(b, members, 1, 5)
    assert (leader.id, leader.wr, helpers) == ("ogre", 13, {"grub": 1, "gob": 1})
    leader, helpers = team_rating(b, [members[0], members[2]], 1, 5)
    assert (leader.id, helpers) == ("grub", {"gob": 5})


def test_higher_total_moves_the_hold_one_step_toward_it() -> None:
    """Orc 8 + 12 = 20 beats fighter 14 + 3 = 17: free → grab by the orc; the bout starts."""
    b = battle(scenario([FIGHTER], [SNAGA]), {"1/wrestle/snaga-1": [12, 3]})
    e = decide_wrestle(b, "snaga-1", ["snaga"], ["thorgrim"], 0, started=True)
    assert (e.aggressors.total, e.defenders.total, e.winner) == (20, 17, "aggressors")
    assert (e.hold_before, e.hold_after, e.ended, e.pins) == (0, 1, False, [])
    apply(b, e.model_copy(update={"seq": 0}))
    bout = b.state.bouts["snaga-1"]
    assert (bout.aggressors, bout.defenders, bout.hold, bout.resolved_round) == (
        ["snaga"],
        ["thorgrim"],
        1,
        1,
    )
    assert b.state.combatants["thorgrim"].bout == "snaga-1"
    assert decide_bout(b, bout) is None  # once a round


def test_tie_changes_nothing_and_a_bout_back_at_free_ends() -> None:
    """A tie leaves the hold; a hold returned to 0 ends the bout and frees both."""
    b = battle(scenario([FIGHTER], [SNAGA]), {"1/wrestle/snaga-1": [9, 3]})
    e = decide_wrestle(b, "snaga-1", ["snaga"], ["thorgrim"], 2, started=True)
    assert (e.winner, e.hold_after, e.ended) == (None, 2, False)
    b = battle(scenario([FIGHTER], [SNAGA]), {"1/wrestle/snaga-1": [1, 10]})
    e = decide_wrestle(b, "snaga-1", ["snaga"], ["thorgrim"], 1, started=True)
    assert (e.winner, e.hold_after, e.ended) == ("defenders", 0, True)
    apply(b, e.model_copy(update={"seq": 0}))
    assert (b.state.bouts, b.state.combatants["snaga"].bout) == ({}, None)


def test_pinned_wrestler_rolls_at_wr_minus_3_and_saves_or_takes_damage() -> None:
    """Pinned orc: WR 8 − 3; the pin holds; save 5 < 12 fails: 1 + Str 2 = 3 damage."""
    b = battle(scenario([FIGHTER], [SNAGA]), {"1/wrestle/thorgrim-1": [10, 10, 5]})
    e = decide_wrestle(b, "thorgrim-1", ["thorgrim"], ["snaga"], 3, started=True)
    assert (e.defenders.pinned_penalty, e.defenders.wr, e.defenders.total) == (-3, 5, 15)
    assert (e.aggressors.total, e.hold_after) == (24, 3)
    [pin] = e.pins
    assert (pin.combatant, pin.save.number, pin.save.roll, pin.save.saved) == (
        "snaga",
        12,
        5,
        False,
    )
    assert (pin.str_bonus, pin.damage, pin.hp_before, pin.hp_after, pin.killed) == (
        2,
        3,
        6,
        3,
        False,
    )
    b = battle(scenario([FIGHTER], [SNAGA]), {"1/wrestle/thorgrim-1": [1, 20]})
    e = decide_wrestle(b, "thorgrim-1", ["thorgrim"], ["snaga"], 3, started=True)
    assert (e.winner, e.hold_after, e.pins) == ("defenders", 2, [])  # escaped to takedown


def test_a_second_wrestler_joins_against_its_target() -> None:
    """A wrestler whose target is already held joins the team against it."""
    b = battle(scenario([FIGHTER], [SNAGA, {**SNAGA, "id": "grub", "name": "Grub"}]), {})
    b.streams.script["1/wrestle/snaga-1"] = [12, 3]
    apply(
        b,
        decide_wrestle(b, "snaga-1", ["snaga"], ["thorgrim"], 0, True).model_copy(
            update={"seq": 0}
        ),
    )
    state = b.state
    join = decide_join(b, state.combatants["grub"], state.combatants["thorgrim"])
    assert (join.bout, join.combatant, join.team) == ("snaga-1", "grub", "aggressors")
    apply(b, join.model_copy(update={"seq": 1}))
    assert state.bouts["snaga-1"].aggressors == ["snaga", "grub"]


def test_bout_narrative_names_the_hold_and_who_holds_it() -> None:
    """Each bout line reads 'hold A → B' (or 'hold stays B'), each hold with its holder's name."""
    golden = Path(__file__).parents[2] / "replays" / "tavern_brawl-s377.jsonl"
    records = [json.loads(line) for line in golden.read_text().splitlines()]
    sides = records[0]["scenario"]["sides"]
    names = {c["id"]: c["name"] for s in sides for c in s["characters"] + s["monsters"]}
    holds = ["free", "grab", "takedown", "pin"]

    def words(e: dict[str, Any], hold: int) -> str:
        team = e["aggressors"] if hold > 0 else e["defenders"]
        return "free" if hold == 0 else f"{holds[abs(hold)]} ({names[team['leader']]})"

    expected = []
    for e in (r for r in records if r.get("type") == "becmi.wrestled"):
        before, after = words(e, e["hold_before"]), words(e, e["hold_after"])
        verb = "grapple" if e["started"] else "wrestle"
        verb += "s" if len(e["aggressors"]["members"]) == 1 else ""
        change = f"→ hold {before} → {after}" if before != after else f"→ hold stays {after}"
        first_defender = names[e["defenders"]["members"][0]["id"]]
        expected.append(f" {verb} vs {first_defender}")
        expected.append(change)
    shown = CliRunner().invoke(cli, ["show", str(golden), "--events", "--type", "becmi.wrestled"])
    lines = [line for line in shown.output.splitlines() if "Bout " in line]
    assert shown.exit_code == 0
    assert len(lines) == len(expected) // 2 > 0
    pairs = zip(expected[::2], expected[1::2], strict=True)
    assert all(v in line and c in line for (v, c), line in zip(pairs, lines, strict=True))
