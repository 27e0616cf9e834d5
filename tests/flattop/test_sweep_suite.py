"""The fitting sweep script (tests/flattop/sweep_suite.py): its grid, its verdicts, and its
refusal of held-out cases (defaults are chosen on the fitting set alone, issue 30)."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from tests.flattop import sweep_suite


def test_the_grid_is_every_combination_in_order_with_yaml_values() -> None:
    """Two options of two and three values: six points, the first option slowest."""
    points = sweep_suite._grid(["table_anti_aircraft=1,4", "cap_engagement=once_per_turn,x,true"])
    assert points == [
        {"table_anti_aircraft": 1, "cap_engagement": "once_per_turn"},
        {"table_anti_aircraft": 1, "cap_engagement": "x"},
        {"table_anti_aircraft": 1, "cap_engagement": True},
        {"table_anti_aircraft": 4, "cap_engagement": "once_per_turn"},
        {"table_anti_aircraft": 4, "cap_engagement": "x"},
        {"table_anti_aircraft": 4, "cap_engagement": True},
    ]


@pytest.mark.parametrize(
    ("low", "high", "verdict"),
    [(0.1, 0.3, "pass"), (0.36, 0.5, "FAIL"), (0.3, 0.4, "?"), (0.35, 0.35, "pass")],
)
def test_a_verdict_is_taken_on_the_whole_interval(low: float, high: float, verdict: str) -> None:
    """Accepted at most 0.35: inside passes, wholly above fails, across is inconclusive."""
    measure = {"accept": {"min": None, "max": 0.35}, "low": low, "high": high}
    assert sweep_suite.verdict(measure) == verdict


def test_held_out_cases_are_refused_and_fitting_ones_read() -> None:
    """A held-out case stops the sweep before anything is fought; fitting ones are read."""
    with pytest.raises(SystemExit, match="midway_hiryu_strikes is held_out"):
        sweep_suite._cases(["coral_sea_shoho", "midway_hiryu_strikes"])
    cases = sweep_suite._cases(["coral_sea_shoho", "eastern_solomons_ryujo"])
    assert [c["id"] for c in cases.values()] == ["coral_sea_shoho", "eastern_solomons_ryujo"]


def test_max_runs_is_passed_to_history_and_left_out_by_default() -> None:
    """``--max-runs 200`` caps history's doubling at a case's own 200 runs; without it,
    history's default cap applies."""
    base = sweep_suite.history_command(sweep_suite.SUITE)
    assert base[1:] == ["history", "--suite", str(sweep_suite.SUITE), "--json", "-q", "--jobs", "1"]
    assert sweep_suite.history_command(sweep_suite.SUITE, 200) == [*base, "--max-runs", "200"]


def test_a_later_option_is_written_into_a_copy_of_the_scenario(tmp_path: Path) -> None:
    """``modifier_aa_dive_bombers`` (a later_option, absent from canonical data at its
    default) cannot be a ``set:`` path, so it goes into a copy of the scenario, the link
    to the shipped file replaced and the file itself untouched; a plain option does not."""
    assert sweep_suite._later("modifier_aa_dive_bombers")
    assert not sweep_suite._later("table_anti_aircraft")
    shipped = tmp_path / "shipped.yaml"
    shipped.write_text("name: x\noptions: {table_anti_aircraft: 3}\n")
    link = tmp_path / "link.yaml"
    link.symlink_to(shipped)
    sweep_suite._with_options(link, {"modifier_aa_dive_bombers": -2})
    assert not link.is_symlink()
    assert yaml.safe_load(link.read_text()) == {
        "name": "x",
        "options": {"table_anti_aircraft": 3, "modifier_aa_dive_bombers": -2},
    }
    assert shipped.read_text() == "name: x\noptions: {table_anti_aircraft: 3}\n"
