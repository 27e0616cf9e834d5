"""A musket state fork to strength 0 must put the unit out as the rules do, or be refused.

A loss's apply eliminates the unit it leaves at strength 0 (``model/state.py``: ``_take``,
``_pursued``: morale ``eliminated``, off the map). ``fork --set state.units.wash.strength=0``
is no loss but an ``engine.override``, which sets the one field: the Washington Artillery
stood at 0 of 9 guns in good order and fired its 0 guns at seq 44 (``value 0 … → 0
casualties``), and ``verify`` called the fork lawful. As for becmi's hit points
(tests/becmi/test_state_fork_to_0_hp.py), a state the rules never make is refused, naming
the field to set too: the strength declares ``OutAt(0, "morale", "eliminated")``.
"""

from __future__ import annotations

import json
from pathlib import Path

from sim import api
from sim.contract.parts import OutAt, fields_of, outs_of
from sim.rulesets.musket.model.state import UnitState
from tests.forge import invoke

ROOT = Path(__file__).resolve().parents[2]
STONE_WALL = ROOT / "replays" / "stone_wall-s1862.jsonl"
VOLLEY = 14
"""The Washington Artillery (wash, 9 guns at 6,1) fires on the 28th Massachusetts; it fires
again at seq 43 of the golden."""
CHANCELLORSVILLE = ROOT / "replays" / "chancellorsville-s1863.jsonl"
TAKEN = 77
"""Cobb's Legion wins its charge on the 5th Maine Battery (5me): eliminated, its 6 guns lost."""


def _fork(replay: Path, out: Path, at: int, *sets: str) -> list[str]:
    changes = [a for s in sets for a in ("--set", s)]
    result = invoke("fork", str(replay), "--at", str(at), *changes, "-o", str(out))
    return [str(result.exit_code), result.stdout, result.stderr]


def _named(events: list[dict[str, object]], uid: str) -> list[tuple[object, object]]:
    return [(e["seq"], e["type"]) for e in events if uid in (e.get("unit"), e.get("target"))]


def test_the_strength_declares_where_a_unit_is_eliminated() -> None:
    assert outs_of(fields_of(UnitState)["strength"]) == [OutAt(0, "morale", "eliminated")]


def test_a_state_fork_to_strength_0_alone_is_refused_naming_the_morale(tmp_path: Path) -> None:
    out = tmp_path / "f.jsonl"
    wash = api.load_replay(STONE_WALL).after(VOLLEY).units["wash"]
    assert (wash.strength, wash.morale) == (9, "good")
    assert _fork(STONE_WALL, out, VOLLEY, "state.units.wash.strength=0") == [
        "2",
        "",
        "battlesim: error: --set state.units.wash.strength: at strength 0 or fewer, wash's "
        "morale is eliminated, not good: set state.units.wash.morale=eliminated too\n",
    ]
    assert list(tmp_path.iterdir()) == []


def test_with_its_morale_eliminated_it_is_out_at_once_and_verifies(tmp_path: Path) -> None:
    """Both overrides follow the volley (seq 15 and 16, sorted by path); the battery fires
    no more (the golden's second volley, seq 43, is gone) and no one fires on it. An
    override places no unit: it keeps its hex (``hex`` is derived, and cannot be forked)."""
    assert _named(
        [json.loads(line) for line in STONE_WALL.read_text().splitlines()[1:-1]], "wash"
    ) == [(14, "musket.fired"), (43, "musket.fired")]
    out = tmp_path / "f.jsonl"
    code, stdout, stderr = _fork(
        STONE_WALL, out, VOLLEY, "state.units.wash.strength=0", "state.units.wash.morale=eliminated"
    )
    assert (code, stderr) == ("0", ""), stdout + stderr
    forked = api.load_replay(out)
    overrides = [forked.event(seq) for seq in (VOLLEY + 1, VOLLEY + 2)]
    assert [(e.type, getattr(e, "path", None)) for e in overrides] == [
        ("engine.override", "units.wash.morale"),
        ("engine.override", "units.wash.strength"),
    ]
    wash = forked.after(VOLLEY + 2).units["wash"]
    assert (wash.strength, wash.morale, wash.hex) == (0, "eliminated", (6, 1))
    events = [json.loads(line) for line in out.read_text().splitlines()[1:-1]]
    assert _named(events, "wash") == [(14, "musket.fired")]
    verified = invoke("verify", str(out))
    assert (verified.exit_code, verified.stdout) == (
        0,
        f"OK: {out}: {forked.count} events, intact, lawful, re-simulates byte for byte\n",
    )


def test_an_eliminated_battery_brought_back_at_0_guns_is_refused(tmp_path: Path) -> None:
    """Set ``good`` after the charge that took its guns, the 5th Maine would stand with
    none: set its strength too."""
    out = tmp_path / "f.jsonl"
    battery = api.load_replay(CHANCELLORSVILLE).after(TAKEN).units["5me"]
    assert (battery.strength, battery.morale, battery.hex) == (0, "eliminated", None)
    assert _fork(CHANCELLORSVILLE, out, TAKEN + 1, "state.units.5me.morale=good")[2] == (
        "battlesim: error: --set state.units.5me.morale: 5me's strength is 0, and at strength "
        "0 or fewer its morale is eliminated, not good: set state.units.5me.strength above 0 "
        "too\n"
    )
    assert list(tmp_path.iterdir()) == []
