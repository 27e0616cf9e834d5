"""A becmi state fork to 0 hit points must put the combatant out as the rules do.

"At 0 or below a combatant is dead" (docs/rules/becmi.md, *Damage, hit points, death*): a
blow's apply kills a combatant it leaves at 0 hp or fewer (``model/state.py:_wound``, and a
fork of ``hp_after=0`` with it: tests/becmi/test_fork_to_0_hp.py). ``fork --set
state.combatants.g5.hp=0`` is no blow but an ``engine.override``, which sets the one field
and nothing else: Goblin spearman 1 stood at 0 hp with his status ``ok``, moved at seq 15 and
fell only to Pip's next arrow, and ``verify`` called the fork lawful. A state the rules
never make is refused, as a count above its bound is (``AtMost``): the hp field declares
``OutAt(0, "status", "dead")``, and ``fork`` names the field to set too.
"""

from __future__ import annotations

import json
from pathlib import Path

from sim import api
from sim.contract.parts import OutAt, outs_of
from sim.rulesets.becmi.model.state import CombatantState
from tests.forge import invoke

ROOT = Path(__file__).resolve().parents[2]
DUNGEON = ROOT / "replays" / "dungeon_skirmish-s3.jsonl"
ARROW = 9
"""Pip's arrow leaves Goblin spearman 1 (g5) at 1 hp of 4."""
KILLED = 16
"""Pip's next arrow kills him (5 damage: -4 hp)."""


def _fork(out: Path, at: int, *sets: str) -> list[str]:
    changes = [a for s in sets for a in ("--set", s)]
    result = invoke("fork", str(DUNGEON), "--at", str(at), *changes, "-o", str(out))
    return [str(result.exit_code), result.stdout, result.stderr]


def test_the_hit_points_declare_where_a_combatant_is_dead() -> None:
    assert outs_of(CombatantState.model_fields["hp"]) == [OutAt(0, "status", "dead")]


def test_a_state_fork_to_0_hp_alone_is_refused_naming_the_status(tmp_path: Path) -> None:
    out = tmp_path / "f.jsonl"
    g5 = api.load_replay(DUNGEON).after(ARROW).combatants["g5"]
    assert (g5.hp, g5.status) == (1, "ok")
    assert _fork(out, ARROW, "state.combatants.g5.hp=0") == [
        "2",
        "",
        "battlesim: error: --set state.combatants.g5.hp: at hp 0 or fewer, g5's status is "
        "dead, not ok: set state.combatants.g5.status=dead too\n",
    ]
    assert list(tmp_path.iterdir()) == []


def test_with_its_status_dead_it_is_out_at_once_and_verifies(tmp_path: Path) -> None:
    """Both overrides follow the arrow (seq 10 and 11, sorted by path); g5 acts no more and
    is no one's target, and the goblins' first-fallen check comes at once (seq 12)."""
    out = tmp_path / "f.jsonl"
    code, stdout, stderr = _fork(
        out, ARROW, "state.combatants.g5.hp=0", "state.combatants.g5.status=dead"
    )
    assert (code, stderr) == ("0", ""), stdout + stderr
    forked = api.load_replay(out)
    g5 = forked.after(ARROW + 2).combatants["g5"]
    assert (g5.hp, g5.status) == (0, "dead")
    after = [json.loads(line) for line in out.read_text().splitlines()[2 + ARROW + 2 : -1]]
    named = ("combatant", "attacker", "target")
    assert [e["seq"] for e in after if "g5" in (e.get(k) for k in named)] == []
    check = forked.event(ARROW + 3)
    assert (check.type, check.trigger) == ("becmi.morale_checked", "first_fallen")  # type: ignore[attr-defined]
    verified = invoke("verify", str(out))
    assert (verified.exit_code, verified.stdout) == (
        0,
        f"OK: {out}: {forked.count} events, intact, lawful, re-simulates byte for byte\n",
    )


def test_a_dead_combatant_brought_back_at_0_hp_or_fewer_is_refused(tmp_path: Path) -> None:
    """Set ``ok`` after the killing arrow, g5 would fight at -4 hp: set his hp too. Set
    ``fled`` with his hp at 0, the refusal is named at the hp set."""
    out = tmp_path / "f.jsonl"
    g5 = api.load_replay(DUNGEON).after(KILLED).combatants["g5"]
    assert (g5.hp, g5.status) == (-4, "dead")
    assert _fork(out, KILLED + 1, "state.combatants.g5.status=ok")[2] == (
        "battlesim: error: --set state.combatants.g5.status: g5's hp is -4, and at hp 0 or "
        "fewer its status is dead, not ok: set state.combatants.g5.hp above 0 too\n"
    )
    fled = _fork(out, ARROW, "state.combatants.g5.status=fled", "state.combatants.g5.hp=0")
    assert fled[2] == (
        "battlesim: error: --set state.combatants.g5.hp: at hp 0 or fewer, g5's status is "
        "dead, not fled: set state.combatants.g5.status=dead too\n"
    )
    assert list(tmp_path.iterdir()) == []


def test_the_hp_of_one_already_dead_may_be_set(tmp_path: Path) -> None:
    out = tmp_path / "f.jsonl"
    code, stdout, stderr = _fork(out, KILLED + 1, "state.combatants.g5.hp=0")
    assert (code, stderr) == ("0", ""), stdout + stderr
