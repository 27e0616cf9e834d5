"""A becmi fork that takes a combatant to 0 hit points puts it out of the fight at once.

"At 0 or below a combatant is dead" (docs/rules/becmi.md, *Damage, hit points, death*): a
live blow that leaves 0 hp or fewer records ``killed`` (``model/events.py:wound``), and
applying it kills. ``fork --set hp_after=0`` left ``killed`` false, so Pip's arrow at seq 9
of ``dungeon_skirmish`` left Goblin spearman 1 standing at 0 hp: he moved at seq 14 and
fell only to the next arrow, at seq 16. The one apply now kills a combatant its blow
leaves at 0 hp or fewer, as the rules do, whatever the event's ``killed`` says.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sim import api
from sim.rulesets.becmi import RULESET
from sim.rulesets.becmi.model.events import Attacked
from tests.forge import invoke

ROOT = Path(__file__).resolve().parents[2]
DUNGEON = ROOT / "replays" / "dungeon_skirmish-s3.jsonl"
ARROW = 9
"""Pip's arrow takes Goblin spearman 1 (g5) from 4 hp to 1."""


@pytest.mark.parametrize("hp", [0, -3])
def test_a_blow_forked_to_0_hp_or_fewer_kills_at_once(tmp_path: Path, hp: int) -> None:
    out = tmp_path / "f.jsonl"
    made = invoke(
        "fork", str(DUNGEON), "--at", str(ARROW), "--set", f"hp_after={hp}", "-o", str(out)
    )
    assert (made.exit_code, made.stderr) == (0, ""), made.output
    forked = api.load_replay(out)
    g5 = forked.after(ARROW).combatants["g5"]
    assert (g5.hp, g5.status, g5.fallen_by) == (hp, "dead", ARROW)
    after = [json.loads(line) for line in out.read_text().splitlines()[2 + ARROW : -1]]
    acting = [e for e in after if "g5" in (e.get("combatant"), e.get("attacker"), e.get("target"))]
    assert acting == []
    verified = invoke("verify", str(out))
    assert (verified.exit_code, verified.stdout.split(":")[0]) == (0, "OK"), verified.stdout


def test_the_one_apply_kills_at_0_hp_whatever_killed_says() -> None:
    """Applied with ``killed`` false, a blow to 0 hp kills as the live one does (the
    recorded ``killed`` true): the two states are one; above 0 it does not."""
    loaded = api.load_replay(DUNGEON)
    event = loaded.event(ARROW)
    assert isinstance(event, Attacked) and (event.hp_after, event.killed) == (1, False)
    states = []
    for fields in ({"hp_after": 0, "killed": False}, {"hp_after": 0, "killed": True}):
        state = loaded.after(ARROW - 1)
        RULESET.apply(state, event.model_copy(update=fields))
        assert state.combatants["g5"].status == "dead"
        states.append(RULESET.snapshot(state))
    assert states[0] == states[1]
    state = loaded.after(ARROW - 1)
    RULESET.apply(state, event)
    assert state.combatants["g5"].status == "ok"
