"""flattop's lines word a count of one as one: ``odds``' "1 factor", a strike "1 hex away",
and the audit's "1 attack", "1 hit", "1 bomber", "1 escort" (each said "1 …s").

The audit's lines are what ``verify`` says of a replay whose event the rules could not have
made (``INVARIANT broken at seq …``); here each is drawn from the golden Coral Sea replay's
own events, changed as a hand-edited file would be.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from sim import api
from sim.rulesets.flattop.reading.audit import (
    _after,
    _spoiled,
    _within,
    audit,
    audit_resolution,
)
from tests.batch.helpers import SCENARIOS, invoke

REPO = Path(__file__).resolve().parents[2]
CORAL_SEA = REPO / "replays" / "coral_sea-s1942.jsonl"


@pytest.fixture(scope="module")
def coral_sea() -> Any:
    return api.load_replay(CORAL_SEA)


def _event(replay: Any, seq: int) -> Any:
    return next(e for e in replay.events if e.seq == seq)


def test_odds_of_one_factor_says_1_factor() -> None:
    """``odds flattop --factors 1``: "hit table 7, 1 factor (column 1-2)"."""
    result = invoke("odds", "flattop", "--hit-table", "7", "--factors", "1")
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[0] == "hit table 7, 1 factor (column 1-2): cell 0.3"


def test_a_target_one_hex_beyond_the_radius_is_1_hex_away(tmp_path: Path) -> None:
    """MO Main Force set one hex from Task Force 17 and the fighters' radius set to 0: each
    strike's escort cannot reach it, "mo_main is 1 hex away"."""
    out = tmp_path / "o.jsonl"
    result = invoke(
        "run", SCENARIOS / "coral_sea.yaml", "-o", out,
        "--set", "sides.japan.task_forces.mo_main.at=[12,14]",
        "--set", "options.radius_fighter=0",
    )  # fmt: skip
    assert result.exit_code == 2
    after = "(after --set sides.japan.task_forces.mo_main.at, --set options.radius_fighter)"
    assert result.output.splitlines() == [
        f"{SCENARIOS / 'coral_sea.yaml'}: sides.0.strikes.{i}.target: mo_main is 1 hex away, "
        f"beyond the fighter radius of 0 {after}"
        for i in (0, 1)
    ]
    assert not out.exists()


def test_a_resolution_of_1_factor_is_not_its_column(coral_sea: Any) -> None:
    """Seq 6, the escort's 3 AF on column 3-4: as 1 factor, "1 factor is not column 3-4";
    its 3 on another column still "3 factors are not …"."""
    result = _event(coral_sea, 6).result
    assert audit_resolution(result.model_copy(update={"factors": 1}), "star") == (
        "1 factor is not column 3-4"
    )
    assert audit_resolution(result.model_copy(update={"column": "1-2"}), "star") == (
        "3 factors are not column 1-2"
    )


def test_losses_for_a_strike_of_one_attack_name_1_attack() -> None:
    """Two losses for a strike of one attack: "not one for each of the 1 attack [8]"."""
    assert _within([0, 0], [8], "bomber") == (
        "bomber losses [0, 0] are not one for each of the 1 attack [8]"
    )


def test_an_escort_lost_to_no_hit_is_1_escort(coral_sea: Any) -> None:
    """Seq 7, the CAP's 0 hits on Lexington's escort of 3: one escort AF lost is "1 escort
    lost of 3", two "2 escorts lost of 3"."""
    for event, state in coral_sea.fold():
        if event.seq == 7:
            lost = [audit(coral_sea.scenario, state, event.model_copy(update={"escort_lost": n}))
                    for n in (1, 2)]  # fmt: skip
            break
    assert lost == ["1 escort lost of 3", "2 escorts lost of 3"]


def test_the_aa_and_the_cap_on_one_hit_say_1_hit_and_1_bomber(coral_sea: Any) -> None:
    """Seq 12, the AA on Yorktown's [8, 3], with 1 hit (aa_spoiled_per_kill 2: no kill, one
    attack spoiled); and seq 7 as the CAP's 1 hit on the bombers (one kill before the attack)."""
    aa = _event(coral_sea, 12)
    one_hit = aa.result.model_copy(update={"hits": 1})
    shot = aa.model_copy(update={"result": one_hit, "attack_losses": [1, 0]})
    assert _spoiled(coral_sea.scenario, [8, 3], shot) == "1 bomber shot down, not the 0 of 1 hit"
    unspoiled = aa.model_copy(update={"result": one_hit, "attack_spoiled": [0, 0]})
    assert _spoiled(coral_sea.scenario, [8, 3], unspoiled) == "0 attacks spoiled, not 1 of 1 hit"
    cap = _event(coral_sea, 7)
    at_bombers = cap.model_copy(
        update={"target": "bombers", "result": cap.result.model_copy(update={"hits": 1})}
    )
    assert _after(coral_sea.scenario, [9, 4], at_bombers) == (
        "0 bombers shot down, not the 1 of 1 hit"
    )
