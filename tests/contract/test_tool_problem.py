"""A failed command is told in one line that keeps a bad scenario's first problems."""

from __future__ import annotations

from pathlib import Path

import yaml
from click.testing import CliRunner

from sim.cli.main import cli
from sim.conformance.battle import tool_problem

ROOT = Path(__file__).resolve().parents[2]


def _bad_scenario(tmp_path: Path, units: int) -> Path:
    """The stone wall with ``units`` units of each side given a strength below 1 and quality Z."""
    data = yaml.safe_load((ROOT / "scenarios" / "stone_wall.yaml").read_text("utf-8"))
    for side in data["sides"]:
        for unit in side["units"][:units]:
            unit["strength"], unit["quality"] = -5, "Z"
    path = tmp_path / "bad.yaml"
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    return path


def test_up_to_ten_lines_are_all_kept(tmp_path: Path) -> None:
    result = CliRunner().invoke(cli, ["validate", str(_bad_scenario(tmp_path, 2))])
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert (result.exit_code, len(lines)) == (2, 8)
    assert tool_problem(result) == "exit 2: " + " / ".join(lines)


def test_beyond_ten_the_first_six_a_count_and_the_last_three(tmp_path: Path) -> None:
    result = CliRunner().invoke(cli, ["validate", str(_bad_scenario(tmp_path, 3))])
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert (result.exit_code, len(lines)) == (2, 12)
    told = tool_problem(result).removeprefix("exit 2: ").split(" / ")
    assert told == [*lines[:6], "… 3 more lines …", *lines[-3:]]
    # validate lists the problems in the file's order; safe_dump sorts a unit's keys, so its
    # quality (Z) is written above its strength
    assert "sides.0.units.0.quality" in told[0]
    assert "sides.0.units.0.strength" in told[1]
