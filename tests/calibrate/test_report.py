"""What calibrate's text and JSON say of each target: the record's value beside the range
accepted, the sources the targets cite, and a best point that misses a target wholly."""

from __future__ import annotations

from pathlib import Path

from sim.calibrate import load_calibration
from sim.calibrate import search as search_module
from sim.calibrate.measures import Estimate
from sim.calibrate.report import format_result, result_json
from sim.calibrate.spec import CalibrationSpec
from sim.history.fit import load_cases
from tests.calibrate.test_calibrate import small
from tests.calibrate.test_search import _fit, _suite


def _history_spec(tmp_path: Path) -> CalibrationSpec:
    """The two-case fit of tests/calibrate/test_search.py: each case's ``holds`` (record 1,
    accepted ≥ 0.5) and ``loss`` (record 0.4, accepted 0.3 … 0.45)."""
    _suite(tmp_path / "suite")
    return load_calibration(_fit(tmp_path), load_cases)


def _trial(
    spec: CalibrationSpec, estimates: list[Estimate], objective: float = 0.0
) -> search_module.Trial:
    """Trial 0 at the start, with these estimates (4 runs) and objective."""
    return search_module.Trial(0, dict(spec.start), objective, tuple(estimates), 4, 0)


def _row(lines: list[str], measure: str) -> list[str]:
    """A target's line, split on white space."""
    (line,) = [x for x in lines if x.startswith(f"  {measure} ")]
    return line.split()


def test_the_history_column_is_the_records_value_and_the_range_is_accepted(
    tmp_path: Path,
) -> None:
    """A history case's target read ``history ≥ 0.5``, its accepted range, under a name
    that promised the record: the text now reads ``history 1  accepted ≥ 0.5`` (the case's
    ``historical`` and ``accept``), and ``--json`` adds the record as ``record`` beside the
    range it keeps under ``historical``."""
    spec = _history_spec(tmp_path)
    rate, mean = Estimate(0.75, 0.3, 0.95, 4, "Wilson 95 %"), Estimate(0.4, 0.35, 0.42, 4, "t")
    trial = _trial(spec, [rate, mean, rate, mean])
    lines = format_result(spec, search_module.Search([trial]), tmp_path)
    assert _row(lines, "a_case.holds")[1:5] == ["history", "1", "accepted", "≥"]
    assert _row(lines, "a_case.holds")[5] == "0.5"
    assert _row(lines, "b_case.loss")[1:7] == ["history", "0.4", "accepted", "0.3", "…", "0.45"]
    data = result_json(spec, search_module.Search([trial]), tmp_path)
    targets = data["best"]["targets"]
    assert [t["record"] for t in targets] == [1, 0.4, 1, 0.4]
    assert targets[1]["historical"] == {"low": 0.3, "high": 0.45}  # the key kept as it was


def test_a_scenario_target_shows_its_value_as_the_record_and_a_range_none(
    tmp_path: Path,
) -> None:
    """A scenario's target with a ``value`` is the record (and a range of that one point);
    one with a ``range`` gives no record: its history reads ``—``, null in ``--json``."""
    targets = [
        {"measure": "turns", "value": 5},
        {"measure": "losses.allied.air_factors", "range": [0, 1]},
    ]
    spec = load_calibration(small(tmp_path, targets=targets))
    est = Estimate(4.0, 3.5, 4.5, 4, "Student t 95 %")
    trial = _trial(spec, [est, est], 0.04)
    lines = format_result(spec, search_module.Search([trial]), tmp_path)
    assert _row(lines, "turns")[1:5] == ["history", "5", "accepted", "5"]
    assert _row(lines, "losses.allied.air_factors")[1:7] == [
        "history", "—", "accepted", "0", "…", "1",
    ]  # fmt: skip
    data = result_json(spec, search_module.Search([trial]), tmp_path)
    assert [t["record"] for t in data["best"]["targets"]] == [5, None]
