"""Reading flattop replays: snapshots restore the state, and verify's audit catches bad events."""

from __future__ import annotations

import json
from typing import Any

from sim import api
from sim.rulesets.flattop import RULESET
from sim.rulesets.flattop.model.events import Attacked
from sim.rulesets.flattop.reading.audit import audit
from tests.golden import GOLDEN, golden_path

DUEL = golden_path("carrier_duel.yaml", GOLDEN["carrier_duel.yaml"])
CORAL = golden_path("coral_sea.yaml", GOLDEN["coral_sea.yaml"])
snapshot, restore = RULESET.snapshot, RULESET.restore
SKETCH = DUEL.parents[1] / "tests" / "data" / "replays" / "coral_sea_sketch-s1942.jsonl"
"""The rules-notes sketch coral_sea.yaml was (its strike on Shoho hits her Ready box)."""


def test_restore_rebuilds_every_turns_state_from_its_snapshot() -> None:
    """restore(snapshot(state)) has the same snapshot at the end of every turn of the duel."""
    loaded = api.load_replay(DUEL)
    for turn in range(0, 13):
        state = loaded.state_at(turn, use_snapshots=False)
        data = snapshot(state)
        assert snapshot(restore(loaded.scenario, data)) == data


def test_reading_from_the_turn_10_snapshot_equals_folding_from_the_start() -> None:
    """The duel logs an engine.snapshot at turn 10; states after it agree either way."""
    loaded = api.load_replay(DUEL)
    assert [e.turn for e in loaded.events if e.type == "engine.snapshot"] == [10]
    for turn in (10, 11, 12, None):
        fast = snapshot(loaded.state_at(turn))
        assert fast == snapshot(loaded.state_at(turn, use_snapshots=False))


def test_the_golden_replays_are_lawful() -> None:
    """verify's audit finds nothing wrong in either golden flattop replay."""
    for path in (CORAL, SKETCH, DUEL):
        result = api.verify_replay(path)
        assert (result.ok, result.damage, result.mismatch) == (True, None, None)


def _attack_with_state() -> tuple[Any, Any, Attacked]:
    loaded = api.load_replay(SKETCH)
    for event, state in loaded.fold():
        if isinstance(event, Attacked) and event.ready_box:
            return loaded.scenario, state, event
    raise AssertionError("no Ready-box attack in the sketch's replay")


def test_audit_names_an_attack_whose_arithmetic_was_edited() -> None:
    """Altered hits, damage or losses aboard are each reported against the state before them."""
    sc, state, event = _attack_with_state()
    assert audit(sc, state, event) is None

    def changed(**fields: Any) -> str | None:
        return audit(sc, state, event.model_copy(update=fields))

    result = event.result.model_copy(update={"integer_hits": 0, "hits": 1})
    crt = (event.result.fraction_hits, event.result.integer_hits)
    assert changed(result=result) == f"hits {crt[0]} + 0 = 1 are not the CRT's {crt}"
    assert changed(hits_taken=3) == "hits taken 3 do not follow from 3 and the Ready box"
    assert changed(hits_after=5) == (
        f"hits_after must be 6 ({event.ship}'s 0 hits before + hits_taken 6), not 5"
    )
    assert changed(status_after="sunk") == (
        f"6/8 hits leave {event.ship} crippled: status_after must be crippled, not sunk"
    )
    assert changed(lost_hangar={"fighter": 9}) == "more lost aboard than was aboard"
    aboard = state.decks[event.ship].aboard()  # all in the Ready box, fewer than the hits
    assert event.hits_taken > aboard == sum(sum(c.values()) for c in event.lost_ready.values())
    assert changed(lost_ready={}) == (
        f"{event.ship}'s Ready box is hit: {event.hits_taken} hits taken lose {aboard} of "
        f"the {aboard} AF aboard (lost_ready {json.dumps(event.lost_ready)}), not 0 (none)"
    )
    rolled = event.result.model_copy(update={"fraction_roll": 5})
    assert (
        changed(result=rolled)
        == f"rolls [5, {event.result.integer_roll}] do not come from the draws"
    )


def test_a_snapshot_written_before_ships_were_named_ships_still_restores() -> None:
    """Older replays list ships under ``units`` in their snapshots; restore reads both."""
    loaded = api.load_replay(golden_path("carrier_duel.yaml", 688))
    state = loaded.state_at()
    data = json.loads(json.dumps(snapshot(state)))
    old = {("units" if k == "ships" else k): v for k, v in data.items()}
    assert "units" in old and "ships" not in old
    assert restore(loaded.scenario, old) == state


def test_air_combat_names_what_it_fires_at_as_the_firer_is_named() -> None:
    """ "Escort fires at cap" beside "CAP fires at escort": each target is named as a firer
    is, with its article (the CAP, the escort, the bombers)."""
    from sim.replay.analysis import narrative

    loaded = api.load_replay(golden_path("coral_sea.yaml", GOLDEN["coral_sea.yaml"]))
    said = [line for line in map(str, narrative(loaded)) if " fires at " in line]
    assert any("Escort fires at the CAP: " in line for line in said)
    assert any("CAP fires at the escort: " in line for line in said)
    assert not any(" fires at cap" in line or " fires at escort" in line for line in said)
