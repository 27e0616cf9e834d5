"""What calibrate's text and JSON say of each target: the record's value beside the range
accepted, the sources the targets cite, and a best point that misses a target wholly."""

from __future__ import annotations

import math
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


def test_the_targets_sources_are_listed_numbered_as_history_lists_them(tmp_path: Path) -> None:
    """calibrate printed no source for any target, where ``battlesim history`` numbers each
    measure's and lists them: each target's line now ends with its source's number, and
    ``Sources:`` lists each text once, numbered in the order first cited."""
    _suite(tmp_path / "suite")
    case = tmp_path / "suite" / "a_case.yaml"
    text = case.read_text(encoding="utf-8")
    head, tail = text.rsplit("source: A test.", 1)
    case.write_text(head + "source: The loss return,\n      p. 3." + tail, encoding="utf-8")
    spec = load_calibration(_fit(tmp_path), load_cases)
    est = Estimate(0.4, 0.35, 0.42, 4, "t")
    lines = format_result(spec, search_module.Search([_trial(spec, [est] * 4)]), tmp_path)
    refs = [_row(lines, g.measure)[-1] for g in spec.goals]
    assert refs == ["[1]", "[2]", "[1]", "[1]"]  # a_case.holds, a_case.loss, b_case's two
    at = lines.index("Sources:")
    assert lines[at + 1 : at + 3] == ["  [1] A test.", "  [2] The loss return, p. 3."]
    assert lines[at - 1].startswith("  b_case.loss ")  # right after the targets


def test_a_scenario_targets_sources_are_listed_and_one_without_has_no_number(
    tmp_path: Path,
) -> None:
    """The shipped calibration's two targets cite their sources (folded YAML, on one line
    here); a target the file gives no source has no number, and no Sources line is
    printed when none has one."""
    spec = load_calibration(small(tmp_path))
    est = Estimate(1.0, 0.9, 1.0, 4, "Wilson 95 %")
    lines = format_result(spec, search_module.Search([_trial(spec, [est, est])]), tmp_path)
    assert [_row(lines, g.measure)[-1] for g in spec.goals] == ["[1]", "[2]"]
    at = lines.index("Sources:")
    assert lines[at + 1 : at + 3] == [f"  [{k}] {' '.join(g.source.split())}" for k, g in
                                      enumerate(spec.goals, 1)]  # fmt: skip
    assert lines[at + 1].startswith("  [1] Shoho sank about 11:35 on 7 May 1942, hit by some")
    bare = [{"measure": "unit.shoho.sunk", "range": [0.9, 1.0]}]
    spec = load_calibration(small(tmp_path, targets=bare))
    lines = format_result(spec, search_module.Search([_trial(spec, [est])]), tmp_path)
    assert _row(lines, "unit.shoho.sunk")[-1] == "n=4)"
    assert "Sources:" not in lines


def test_a_best_point_that_misses_a_target_wholly_says_so_under_its_score(
    tmp_path: Path,
) -> None:
    """The distance scores a point by its estimates: Shoho sunk in 0.88 of the runs, interval
    [0.86, 0.89], is 0.02 below 0.9, a miss of 0.2 in units of 0.1 and an objective of 0.04,
    though the whole interval lies outside the range. The best point's score was printed
    with no word of that (only the target's own line, far below, said ``missed``): under
    its score each target it misses wholly is now named with its interval and range."""
    spec = load_calibration(small(tmp_path))
    sunk = Estimate(0.88, 0.86, 0.89, 100, "Wilson 95 %")
    lost = Estimate(0.5, 0.35, 0.65, 100, "Student t 95 %")
    value = search_module.objective(spec, (sunk, lost))
    assert value is not None and math.isclose(value, ((0.9 - 0.88) / 0.1) ** 2)
    lines = format_result(spec, search_module.Search([_trial(spec, [sunk, lost], value)]), tmp_path)
    at = next(k for k, x in enumerate(lines) if x.startswith("Best: "))
    assert (
        lines[at] == "Best: trial 0, objective 0.0400 (the scenario's own values, trial 0: 0.0400)"
    )
    assert lines[at + 1] == (
        "  but target unit.shoho.sunk missed wholly: interval [0.860, 0.890] outside 0.9 … 1"
    )
    assert lines[at + 2].startswith(f"  {spec.factors[0].path} ")
    straddling = Estimate(0.88, 0.85, 0.95, 100, "Wilson 95 %")  # unsure: no flag
    lines = format_result(spec, search_module.Search([_trial(spec, [straddling, lost])]), tmp_path)
    assert not any(x.startswith("  but target") for x in lines)


def test_a_one_sided_range_missed_wholly_reads_as_the_accepted_column(tmp_path: Path) -> None:
    """A history case's ``holds`` accepts ≥ 0.5: an interval [0.100, 0.450] misses it wholly
    and is flagged ``outside ≥ 0.5``; the others (met, or unsure) are not."""
    spec = _history_spec(tmp_path)
    low = Estimate(0.3, 0.1, 0.45, 4, "Wilson 95 %")
    loss = Estimate(0.4, 0.35, 0.42, 4, "t")
    high = Estimate(0.75, 0.3, 0.95, 4, "Wilson 95 %")
    trial = _trial(spec, [high, loss, low, loss])
    lines = format_result(spec, search_module.Search([trial]), tmp_path)
    assert [x for x in lines if x.startswith("  but ")] == [
        "  but target b_case.holds missed wholly: interval [0.100, 0.450] outside ≥ 0.5"
    ]
