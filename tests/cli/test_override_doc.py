"""docs/replay-format.md's ``engine.override`` example is the line ``battlesim fork`` writes."""

from __future__ import annotations

import json
import re
from pathlib import Path

from sim.api import open_replay
from sim.replay.fork import fork

ROOT = Path(__file__).resolve().parents[2]


def test_the_documented_override_line_is_the_one_fork_writes(tmp_path: Path) -> None:
    page = (ROOT / "docs" / "replay-format.md").read_text("utf-8")
    section = page.split("### `engine.override`", 1)[1].split("\n## ", 1)[0]
    shown = re.search(r"```json\n(.+?)\n```", section, re.S)
    assert shown is not None, "the engine.override section has no json example"
    assert "replays/stone_wall-s1862.jsonl --at 10 --set state.units.1ri.strength=2" in section
    parent = open_replay(ROOT / "replays" / "stone_wall-s1862.jsonl")
    out = fork(parent, 10, [("state.units.1ri.strength", 2)], tmp_path / "f.jsonl")
    lines = [line for line in out.read_text("utf-8").splitlines() if '"engine.override"' in line]
    assert lines == [shown.group(1)]
    assert json.loads(lines[0])["cause"] == 10
