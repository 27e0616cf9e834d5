"""The conduct script's default list (``tests/sim/musket_conduct.py``, docs/rules/musket.md,
*Conduct over 200 runs*) is every shipped musket scenario and campaign: issue 30's conduct
targets are over "each shipped musket scenario", and a list written out by hand went stale
when the historical suite's scenarios were added to the folder."""

from __future__ import annotations

from pathlib import Path

from sim.batch.inputs.target import load_target
from sim.scenario.load import ScenarioError
from tests.sim.musket_conduct import held_out_scenarios, shipped

ROOT = Path(__file__).resolve().parents[2]


def _rulesets(path: Path) -> set[str]:
    """The rulesets a scenario or campaign file fights; none for a study or calibration file
    (which the folder holds too)."""
    try:
        target = load_target(path)
    except ScenarioError:
        return set()
    if target.kind == "scenario":
        return {target.data["ruleset"]}
    return {b["scenario"]["ruleset"] for b in target.data["battles"]}


def test_the_default_list_is_every_shipped_musket_scenario_and_campaign() -> None:
    every = sorted((ROOT / "scenarios").glob("*.yaml"))
    musket = [p for p in every if "musket" in _rulesets(p)]
    assert shipped() == sorted(p for p in musket if load_target(p).kind == "scenario") + [
        p for p in musket if load_target(p).kind == "campaign"
    ]
    names = {p.name for p in shipped()}
    assert {"stone_wall.yaml", "sunken_road.yaml", "fredericksburg_campaign.yaml"} <= names
    assert "coral_sea.yaml" not in names and "carrier_war_campaign.yaml" not in names


def test_the_fitting_list_leaves_out_what_the_held_out_cases_fight() -> None:
    held = held_out_scenarios()
    assert {"maida.yaml", "waterloo_derlon.yaml", "santa_cruz_hornet.yaml"} <= held
    assert "stone_wall.yaml" not in held and "sunken_road.yaml" not in held  # fitting cases'
