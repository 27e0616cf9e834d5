"""The report's "What if" banner says a fork's change once.

The banner quoted the changed event's narrative line, which a fork's line ends with
``[counterfactual: after=good, passed=true]``, and then listed the same change again:
``…: passes [counterfactual: after=good, passed=true]”: after = good; passed = true``
(a reviewer's report). The quoted line is now the event as told, the change listed after it.
"""

from __future__ import annotations

import html
import re
from pathlib import Path

from click.testing import CliRunner

from sim import api
from sim.cli import cli
from sim.replay.viewer.model import battle_view
from sim.replay.viewer.report import fork_banner

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = ROOT / "replays" / "stone_wall-s1862.jsonl"


def test_the_banner_names_the_change_once(tmp_path: Path) -> None:
    """Pat's fork (seq 19 passes and stays good): the event's told line, then its two fields."""
    out = tmp_path / "charged.jsonl"
    args = ["fork", str(GOLDEN), "--at", "19", "--set", "passed=true", "--set", "after=good"]
    assert CliRunner().invoke(cli, [*args, "-o", str(out)]).exit_code == 0
    view = battle_view(api.load_replay(out))
    told = next(e["line"] for e in view.data["events"] if e["seq"] == 19)
    tag = " [counterfactual: after=good, passed=true]"
    assert told.endswith(tag)  # the events list keeps the tag: there it marks the line
    text = html.unescape(re.sub(r"<[^>]+>", "", fork_banner(view)))
    assert text == (
        "What if — this battle is a fork of stone_wall-s1862.jsonl, fought on with the same "
        "random streams after these changes:"
        f"musket.morale_tested (seq 19, turn 1) — “{told.removesuffix(tag)}”: "
        "after = good; passed = true"
    )
