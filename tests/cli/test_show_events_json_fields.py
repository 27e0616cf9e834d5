"""``show --events --json`` gives each event's recorded fields beside its line, so a script
(or a designer checking a morale check by hand: d6 = 1 + floor(6u), passes at or under
``base`` + ``modifiers``) reads the roll, the draw, the phase and the states, not only the
words (docs/replay-tools.md, *show*)."""

from __future__ import annotations

import json
import math
from pathlib import Path

from click.testing import CliRunner

from sim.cli import cli

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = ROOT / "replays" / "stone_wall-s1862.jsonl"


def test_each_event_carries_its_fields() -> None:
    """Seq 19 of the golden replay: the 69th New York's charge test, u 0.4846... -> d6 3,
    above its morale value 5 - 2 - 2 - 1 = 0: failed, good -> spent, in the melee phase."""
    result = CliRunner().invoke(
        cli, ["show", str(GOLDEN), "--events", "--type", "morale_tested", "--json"]
    )
    assert result.exit_code == 0, result.output
    told = {e["seq"]: e for e in json.loads(result.stdout)["events"]}
    e = told[19]["event"]
    assert (e["type"], e["seq"], e["phase"], e["unit"], e["reason"]) == (
        "musket.morale_tested",
        19,
        "melee",
        "69ny",
        "charge",
    )
    assert (e["quality"], e["base"], e["modifiers"], e["morale_value"]) == (
        "B",
        5,
        {"target_in_cover": -2, "under_fire": -2, "odds": -1},
        0,
    )
    assert e["draws"] == [["1/morale/charge/69ny", 0, 0.4846457990771954]]
    assert e["roll"] == 1 + math.floor(6 * e["draws"][0][2]) == 3
    assert (e["passed"], e["before"], e["after"]) == (False, "good", "spent")
    assert e["base"] + sum(e["modifiers"].values()) == e["morale_value"]
    assert told[19]["line"].endswith(
        "rolled 3; cannot pass (needs 0 or less)): is thrown back, spent"
    )
