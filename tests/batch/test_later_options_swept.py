"""An option added after replays were written (``later_option``) is left out of a scenario's
canonical data at its default, so no path could name it: ``--sweep``, a study's factors,
a history case's ``set`` and ``calibrate`` refused every option musket has added since
version 1 (``no field 'fire_scale' in options``). A path now finds it among the data with
those defaults filled in (:meth:`Target.filled`), and setting it writes it in."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from engine.canonical import digest
from sim.batch.inputs.fieldpath import PathError
from sim.batch.inputs.target import load_target
from sim.calibrate.spec import load_calibration
from sim.history.fit import load_cases
from sim.scenario.load import validate_data

ROOT = Path(__file__).resolve().parents[2]
SW = ROOT / "scenarios" / "stone_wall.yaml"


def _canonical(target_data: dict[str, Any]) -> dict[str, Any]:
    _, sc = validate_data(target_data, {}, "t.yaml")
    return sc.model_dump(mode="json")


def test_a_later_option_is_swept_and_at_its_default_is_the_scenario_itself() -> None:
    target = load_target(SW)
    assert "fire_scale" not in target.data["options"]
    assert target.get("options.fire_scale") == 1.0
    assert target.get("options.charging_fire") is False
    at_default = _canonical(target.at({"options.fire_scale": 1.0}))
    assert digest(at_default) == digest(target.data)  # left out again: the same scenario
    heavier = _canonical(target.at({"options.fire_scale": 2.0, "options.charging_fire": True}))
    assert heavier["options"]["fire_scale"] == 2.0 and heavier["options"]["charging_fire"] is True
    assert "fire_scale" not in target.data["options"]  # the target is unchanged
    with pytest.raises(PathError, match=r"did you mean 'options\.fire_scale'"):
        target.check_path("options.fire_scal")


def test_a_campaign_battles_later_option_is_swept() -> None:
    target = load_target(ROOT / "scenarios" / "fredericksburg_campaign.yaml")
    path = "battles.0.scenario.options.assault_over_ends"
    assert target.get(path) is False
    data = target.at({path: True})
    assert data["battles"][0]["scenario"]["options"]["assault_over_ends"] is True
    assert "assault_over_ends" not in data["battles"][1]["scenario"]["options"]


def test_calibrate_starts_a_later_option_at_its_default(tmp_path: Path) -> None:
    """A history calibration over the fitting cases may name any rule option."""
    f = tmp_path / "fit.yaml"
    f.write_text(
        "name: later options\n"
        "history: {split: fitting, ruleset: musket, cases: [marye_heights_day]}\n"
        "seed: 30\nreplications: 2\ntrials: 2\n"
        "factors:\n"
        "  - {path: options.charging_fire, values: [false, true]}\n"
        "  - {path: options.fire_scale, values: [1.0, 1.5]}\n"
        "outputs: {dir: out, plots: false}\n"
    )
    spec = load_calibration(f, load_cases)
    assert spec.start == {"options.charging_fire": False, "options.fire_scale": 1.0}


def test_a_field_named_by_its_alias_is_not_filled_in_again_under_its_python_name() -> None:
    """becmi's ``class_`` is written ``class``: the filled data must not grow a ``class_``,
    which a path could then name and no scenario accepts (a review found calibrate took
    ``…thorgrim.class_`` and every trial failed)."""
    target = load_target(ROOT / "scenarios" / "tavern_brawl.yaml")
    assert target.get("sides.thorgrim.characters.thorgrim.class") is not None
    with pytest.raises(PathError, match="no field 'class_'"):
        target.check_path("sides.thorgrim.characters.thorgrim.class_")
