"""A history case of a ruleset whose space is a line (the toy ``pips``): a ``reaches``
measure names its places with one coordinate, as the space has one axis (it required two,
so such a ruleset could not use the kind)."""

from __future__ import annotations

import json
from pathlib import Path

from tests.batch.helpers import invoke

TOY = Path(__file__).resolve().parent / "toy" / "pips_duel.yaml"

CASE = """\
format: 1
id: line
title: The red band stands where it stood
scenario: {scenario}
seed: 3
runs: 4
measures:
  - id: there
    label: P(a red fighter is on square {where})
    kind: reaches
    side: red
    hexes: [{where}]
    historical: 1
    accept: {{min: 0.5}}
    source: A test of a one-axis space.
"""


def _case(tmp_path: Path, where: str) -> Path:
    folder = tmp_path / "suite"
    folder.mkdir(exist_ok=True)
    (folder / "line.yaml").write_text(CASE.format(scenario=TOY, where=where), encoding="utf-8")
    return folder


def test_a_place_on_a_line_has_one_coordinate(tmp_path: Path) -> None:
    """Ash stands on square 4 all battle: reached in every run; nobody stands on 50."""
    result = invoke("history", "--suite", _case(tmp_path, "[4]"), "--json", "-q")
    assert result.exit_code == 0, result.output
    [measure] = json.loads(result.stdout)["cases"][0]["measures"]
    assert (measure["value"], measure["verdict"]) == (1.0, "pass")
    result = invoke("history", "--suite", _case(tmp_path, "[50]"), "--json", "-q")
    assert result.exit_code == 1
    [measure] = json.loads(result.stdout)["cases"][0]["measures"]
    assert (measure["value"], measure["verdict"]) == (0.0, "fail")


def test_a_place_with_the_wrong_number_of_coordinates_is_located(tmp_path: Path) -> None:
    folder = _case(tmp_path, "[4, 0]")
    result = invoke("history", "--suite", folder)
    assert result.exit_code == 2
    assert result.output == (
        f"battlesim: error: {folder / 'line.yaml'}:12: measures.0.hexes: place [4, 0] has 2 "
        "coordinates; the map has 1\n"
    )


def test_a_place_is_checked_against_a_space_without_bounds_too(tmp_path: Path) -> None:
    """flattop's space declares no bounds: a one-coordinate place on its two-axis map read
    nothing in every run (and passed a record of 0), as the review found."""
    scenario = Path(__file__).resolve().parents[2] / "scenarios" / "coral_sea.yaml"
    folder = tmp_path / "suite"
    folder.mkdir()
    text = CASE.format(scenario=scenario, where="[5]").replace("side: red", "side: allied")
    (folder / "line.yaml").write_text(text.replace("historical: 1", "historical: 0"))
    result = invoke("history", "--suite", folder)
    assert result.exit_code == 2
    assert result.output == (
        f"battlesim: error: {folder / 'line.yaml'}:12: measures.0.hexes: place [5] has 1 "
        "coordinate; the map has 2\n"
    )
