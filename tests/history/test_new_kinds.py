"""The ``events``, ``units_below`` and ``duration`` kinds and the ``split`` key on a real
battle: each run's value recomputed here from that run's replay file and final state."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sim import api
from sim.batch.inputs.seeds import run_seed
from sim.contract import get_ruleset
from sim.history.case import load_case
from sim.history.estimate import estimate
from tests.batch.helpers import SCENARIOS, invoke

CASE = """\
format: 1
id: kinds
title: The new kinds
scenario: {scenario}
seed: 11
runs: 3
{split}measures:
  - id: failed
    label: failed morale tests of Union units
    kind: events
    event: musket.morale_tested
    where: {{passed: false}}
    side: usa
    historical: 0
    accept: {{max: 1000}}
    source: A test.
  - id: melee_on_csa
    label: melees against Confederate units
    kind: events
    event: musket.meleed
    side: csa
    side_field: target
    historical: 0
    accept: {{max: 1000}}
    source: A test.
  - id: halved
    label: Union regiments at or under half strength
    kind: units_below
    side: usa
    unit: men
    share: 0.5
    historical: 0
    accept: {{max: 1000}}
    source: A test.
  - id: turns
    label: turns fought
    kind: duration
    historical: 0
    accept: {{max: 1000}}
    source: A test.
"""

RUNS, SEED = 3, 11


def _case(tmp_path: Path, split: str = "") -> Path:
    folder = tmp_path / "suite"
    folder.mkdir(exist_ok=True)
    path = folder / "kinds.yaml"
    path.write_text(CASE.format(scenario=SCENARIOS / "stone_wall.yaml", split=split))
    return path


def _by_hand(tmp_path: Path, r: int) -> tuple[int, int, int, int]:
    """Run r's four values, from its replay file and its final state."""
    done = api.run(
        SCENARIOS / "stone_wall.yaml", seed=run_seed(SEED, 0, r), out=tmp_path / f"{r}.jsonl"
    )
    lines = [json.loads(x) for x in Path(str(done.replay)).read_text().splitlines()]
    side = {u["id"]: s["id"] for s in lines[0]["scenario"]["sides"] for u in s["units"]}
    events = [e for e in lines[1:] if "type" in e]
    failed = sum(
        e["type"] == "musket.morale_tested" and e["passed"] is False and side[e["unit"]] == "usa"
        for e in events
    )
    melees = sum(e["type"] == "musket.meleed" and side[e["target"]] == "csa" for e in events)
    ruleset = get_ruleset("musket")
    scenario = ruleset.scenario_model.model_validate(lines[0]["scenario"])
    halved = sum(
        u.side == "usa"
        and u.strength.unit == "men"
        and float(u.strength.value) <= 0.5 * float(u.initial.value)
        for u in ruleset.units(scenario, done.state)
    )
    last_turn = max(e["turn"] for e in events if e["type"] == "engine.turn_ended")
    return failed, melees, halved, last_turn


def test_new_kinds_are_the_mean_of_what_each_replay_shows(tmp_path: Path) -> None:
    folder = _case(tmp_path).parent
    result = invoke("history", "--suite", folder, "--json")
    assert result.exit_code == 0, result.output
    (case,) = json.loads(result.stdout)["cases"]
    got = {m["id"]: (m["value"], m["method"]) for m in case["measures"]}
    each = [_by_hand(tmp_path, r) for r in range(RUNS)]
    for i, mid in enumerate(("failed", "melee_on_csa", "halved", "turns")):
        values = [float(v[i]) for v in each]
        # each a count: its interval is cut at 0 where the whole one reaches below
        cut = estimate("mean", values).low < 0
        method = "Student t 95 %, cut at 0" if cut else "Student t 95 %"
        assert got[mid] == (pytest.approx(sum(values) / RUNS), method), mid
    assert any(v[0] for v in each), "the battle has failed morale tests to count"
    assert all(v[3] > 0 for v in each)


def test_split_defaults_to_fitting_and_is_checked(tmp_path: Path) -> None:
    assert load_case(_case(tmp_path)).spec.split == "fitting"
    assert load_case(_case(tmp_path, "split: held_out\n")).spec.split == "held_out"
    path = _case(tmp_path, "split: later\n")
    result = invoke("history", "--suite", path.parent)
    assert result.exit_code == 2
    assert "kinds.yaml:7: split:" in result.output
