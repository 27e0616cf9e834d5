"""``objective: verdicts`` (docs/calibrate.md, *The objective*): the search minimises the
targets not met first, then those missed, then the distance, so its best point is the one
`battlesim history`'s verdicts and the fitting protocols prefer (a search on the distance
alone halved it while passing fewer measures: docs/rules/musket.md, *A search of eight
options with calibrate*)."""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from sim.batch.methods.stats import Estimate
from sim.calibrate.search import objective
from sim.calibrate.spec import Goal, load_calibration


@dataclass
class _Measure:
    kind: str = "rate"


@dataclass
class _Spec:
    goals: tuple[Goal, ...]
    measures: tuple[_Measure, ...]
    objective: str


GOALS = (Goal(measure="a", range=(0.0, 0.2)), Goal(measure="b", range=(0.5, 1.0)))


def _est(value: float, low: float, high: float) -> Estimate:
    return Estimate(value, low, high, 200, "Wilson")


def _score(kind: str, *ests: Estimate) -> float:
    spec: Any = _Spec(GOALS, (_Measure(), _Measure()), kind)
    found = objective(spec, tuple(ests))
    assert found is not None
    return found


MET_A = _est(0.1, 0.05, 0.15)  # within 0–0.2
UNSURE_A = _est(0.19, 0.15, 0.25)  # straddles 0.2: miss 0, not met
MISSED_A = _est(0.3, 0.25, 0.35)  # wholly above: miss 0.1
MET_B = _est(0.7, 0.6, 0.8)
MISSED_B = _est(0.42, 0.35, 0.49)  # wholly below 0.5: miss 0.08


def test_the_distance_is_the_sum_of_squared_misses_in_scale_units() -> None:
    """A rate's miss is in units of 0.1: 0.1 above → 1, 0.08 below → 0.64."""
    assert _score("distance", MET_A, MET_B) == 0.0
    assert _score("distance", MISSED_A, MET_B) == pytest.approx(1.0)
    assert _score("distance", MISSED_A, MISSED_B) == pytest.approx(1.64)
    assert _score("distance", UNSURE_A, MET_B) == 0.0  # an estimate in range misses nothing


def test_verdicts_count_targets_not_met_then_missed_then_distance() -> None:
    """W = 2: not met + (missed + D/(1 + D)) / 3."""
    assert _score("verdicts", MET_A, MET_B) == 0.0
    assert _score("verdicts", UNSURE_A, MET_B) == pytest.approx(1.0)
    assert _score("verdicts", MISSED_A, MET_B) == pytest.approx(1 + (1 + 0.5) / 3)
    assert _score("verdicts", MISSED_A, MISSED_B) == pytest.approx(2 + (2 + 1.64 / 2.64) / 3)


def test_verdicts_order_is_lexicographic_where_distance_is_not() -> None:
    """Every pair of these outcomes is ordered by (not met, missed, distance) under
    ``verdicts``; under ``distance`` an unsure target counts for nothing, so a point with a
    target unsure ties one with every target met, and a point that misses one target by a
    little beats one with two unsure."""
    outcomes = [
        (MET_A, MET_B),
        (UNSURE_A, MET_B),
        (MISSED_A, MET_B),
        (MET_A, MISSED_B),
        (MISSED_A, MISSED_B),
        (UNSURE_A, MISSED_B),
    ]

    def key(pair: tuple[Estimate, Estimate]) -> tuple[int, int, float]:
        verdicts = [
            ("met" if g.range[0] <= e.low and e.high <= g.range[1]  # type: ignore[index]
             else "missed" if e.high < g.range[0] or e.low > g.range[1]  # type: ignore[index]
             else "unsure")
            for g, e in zip(GOALS, pair, strict=True)
        ]  # fmt: skip
        return (
            sum(v != "met" for v in verdicts),
            sum(v == "missed" for v in verdicts),
            _score("distance", *pair),
        )

    for x, y in itertools.combinations(outcomes, 2):
        if key(x) < key(y):
            assert _score("verdicts", *x) < _score("verdicts", *y)
        elif key(y) < key(x):
            assert _score("verdicts", *y) < _score("verdicts", *x)
    assert _score("distance", MET_A, MET_B) == _score("distance", UNSURE_A, MET_B)


def _files(tmp_path: Path) -> str:
    """The stone wall and two calibration files of it, ``d.yaml`` (the default objective)
    and ``v.yaml`` (``objective: verdicts``); the body they share."""
    scenario = Path(__file__).resolve().parents[2] / "scenarios" / "stone_wall.yaml"
    (tmp_path / "sw.yaml").write_text(scenario.read_text())
    body = (
        "scenario: sw.yaml\nseed: 1\nreplications: 4\ntrials: 2\n"
        "factors:\n  - {path: options.fire_hcv, values: [25.0, 30.0]}\n"
        "targets:\n  - {measure: win.csa, range: [0.9, 1.0]}\n"
    )
    (tmp_path / "d.yaml").write_text(body)
    (tmp_path / "v.yaml").write_text(body + "objective: verdicts\n")
    return body


def test_a_calibration_file_chooses_its_objective(tmp_path: Path) -> None:
    body = _files(tmp_path)
    d, v = load_calibration(tmp_path / "d.yaml"), load_calibration(tmp_path / "v.yaml")
    assert (d.objective, v.objective) == ("distance", "verdicts")
    assert "objective" not in d.identity()  # a calibration written before the choice resumes
    assert v.identity()["objective"] == "verdicts"
    (tmp_path / "x.yaml").write_text(body + "objective: passes\n")
    with pytest.raises(Exception, match="objective"):
        load_calibration(tmp_path / "x.yaml")


def test_a_resume_with_the_objective_left_out_names_it(tmp_path: Path) -> None:
    """A calibration started with ``objective: verdicts`` and resumed from a file that leaves
    the key out (the default, distance) is refused naming ``objective``, not the sampler
    (a review found it said "(sampler)": the key is left out of the settings at its
    default, and only the new settings' keys were compared)."""
    import json

    from sim.calibrate.search import IDENTITY, CalibrationError, _stored

    _files(tmp_path)
    out = tmp_path / "out"
    out.mkdir()
    _stored(out, load_calibration(tmp_path / "v.yaml"), resume=False)
    assert json.loads((out / IDENTITY).read_text())["calibration"]["objective"] == "verdicts"
    with pytest.raises(CalibrationError, match=r"other settings \(objective\)"):
        _stored(out, load_calibration(tmp_path / "d.yaml"), resume=True)
