"""Small flattop scenarios built in memory, and a battle view over them for rule tests."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import simpy
import yaml

from engine.kernel import TurnKernel
from engine.rng import Streams
from sim.rulesets.flattop.model.scenario import FlattopScenario
from sim.rulesets.flattop.model.state import initial_state
from sim.rulesets.flattop.rules.context import Battle
from sim.scenario.load import validate_data

BASE: dict[str, Any] = {
    "ruleset": "flattop",
    "name": "Test",
    "seed": 3,
    "turns": {"limit": 6, "start": "06:00"},
    "sides": [
        {
            "id": "blue",
            "name": "Blue",
            "task_forces": [
                {
                    "id": "tf1",
                    "name": "TF 1",
                    "at": [0, 0],
                    "cap": 2,
                    "ships": [
                        {"id": "cv1", "name": "CV 1", "kind": "carrier",
                         "aircraft": {"fighter": 4, "dive_bomber": 8, "torpedo_bomber": 6}},
                        {"id": "cv2", "name": "CV 2", "kind": "carrier",
                         "aircraft": {"fighter": 2, "dive_bomber": 2}},
                        {"id": "dd1", "name": "DD 1", "kind": "destroyer"},
                    ],
                }
            ],
            "strikes": [
                {"id": "s1", "name": "Strike 1", "origin": "cv1", "launch": "07:00",
                 "target": "tf2", "escort": 4,
                 "attacks": [{"aircraft": "dive_bomber", "factors": 8, "target": "cv3"},
                             {"aircraft": "torpedo_bomber", "factors": 6, "target": "cv3"}]},
            ],
        },
        {
            "id": "red",
            "name": "Red",
            "task_forces": [
                {
                    "id": "tf2",
                    "name": "TF 2",
                    "at": [8, 0],
                    "cap": 5,
                    "ships": [
                        {"id": "cv3", "name": "CV 3", "kind": "carrier",
                         "aircraft": {"fighter": 3, "torpedo_bomber": 3}},
                        {"id": "ca1", "name": "CA 1", "kind": "heavy_cruiser"},
                        {"id": "dd2", "name": "DD 2", "kind": "destroyer"},
                    ],
                }
            ],
        },
    ],
}  # fmt: skip


def scenario_data(**changes: Any) -> dict[str, Any]:
    """A deep copy of :data:`BASE` with top-level keys replaced."""
    data = copy.deepcopy(BASE)
    data.update(changes)
    return data


def load(data: dict[str, Any]) -> FlattopScenario:
    """Validate an in-memory scenario as the loader would."""
    _, sc = validate_data(data, {}, "t.yaml")
    assert isinstance(sc, FlattopScenario)
    return sc


def battle(data: dict[str, Any] | None = None, at: float = 0) -> Battle:
    """A battle view of a scenario (default :data:`BASE`) with the clock at ``at`` minutes."""
    sc = load(data if data is not None else scenario_data())
    kernel = TurnKernel(simpy.Environment(initial_time=at), ("hour",), 60)
    kernel.turn = int(at // 60) + 1
    return Battle(sc, initial_state(sc), Streams(sc.seed), kernel)


def with_options(source: Path, folder: Path, **options: Any) -> Path:
    """The scenario file ``source`` with ``options`` added to its own, written under its own
    name in the new ``folder``."""
    data = yaml.safe_load(source.read_text(encoding="utf-8"))
    data["options"] = {**(data.get("options") or {}), **options}
    folder.mkdir()
    path = folder / source.name
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return path
