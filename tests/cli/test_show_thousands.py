"""show's unit table writes counts of men with thousands separators, as run and diff do.

``run``'s summary and ``diff`` print ``1,702 men``; ``show`` printed d'Erlon's divisions at
Waterloo as ``3909/4000 men`` (a reviewer's report). The strength, its start and every
whole-number detail (men lost, fatigue) are counts; a position and ``--unit``'s turn are not.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from click.testing import CliRunner

from sim.cli import cli
from sim.cli.battles.table import render_units
from sim.contract import Measure, Space, UnitRow

ROOT = Path(__file__).resolve().parents[2]


def test_a_count_past_a_thousand_has_its_separator_and_a_position_has_none() -> None:
    """A plane battle's unit at x 1200 with 1500 of 2000 men and 1234 lost reads so."""
    row = UnitRow(
        id="u",
        name="Big",
        side="a",
        side_name="A",
        kind="foot",
        position=(1200, 15),
        strength=Measure(name="strength", value=1500, unit="men"),
        initial=Measure(name="strength", value=2000, unit="men"),
        details={"men_lost": 1234, "fatigue": 12, "morale": "good"},
    )
    space = Space(kind="plane", axes=("x", "y"), unit="ft")
    assert render_units([row], space).splitlines() == [
        "unit  side  x,y      strength         status  men_lost  fatigue  morale",
        "Big   A     1200,15  1,500/2,000 men  -          1,234       12  good",
    ]


def test_show_writes_waterloos_divisions_with_separators(tmp_path: Path) -> None:
    """Each division's row at turn 2 reads its strength, start and losses from --json, grouped."""
    replay = tmp_path / "w.jsonl"
    runner = CliRunner()
    scenario = str(ROOT / "scenarios" / "waterloo_derlon.yaml")
    ran = runner.invoke(cli, ["run", scenario, "-o", str(replay)])
    assert ran.exit_code == 0, ran.output
    text = runner.invoke(cli, ["show", str(replay), "--turn", "2"]).stdout.splitlines()
    units = json.loads(runner.invoke(cli, ["show", str(replay), "--turn", "2", "--json"]).stdout)
    big = [u for u in units["units"] if u["initial"]["value"] >= 1000]
    assert len(big) == 3  # Quiot's, Donzelot's and Marcognet's divisions, 4,000 men each
    for u in big:
        line = next(t for t in text if t.startswith(u["name"]))
        strength = f"{u['strength']['value']:,}/{u['initial']['value']:,} men"
        assert strength in re.split(r"\s{2,}", line)
        assert line.split()[-2] == f"{u['details']['men_lost']:,}"
        assert u["strength"]["value"] + u["details"]["men_lost"] == u["initial"]["value"]
