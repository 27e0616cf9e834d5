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


def test_the_documented_header_is_the_goldens_in_every_field_it_shows_whole() -> None:
    """The Example's header is abridged (``…``), but every top-level scalar it shows whole —
    the rules version, the digests, the chain hash — is the golden replay's own."""
    page = (ROOT / "docs" / "replay-format.md").read_text("utf-8")
    section = page.split("\n## Example\n", 1)[1]
    shown = re.search(r"```json\n(\{\"engine_version\".+?)\n```", section, re.S)
    assert shown is not None, "the Example has no header"
    golden = json.loads((ROOT / "replays" / "stone_wall-s1862.jsonl").read_text().split("\n")[0])
    scalars = {k: v for k, v in golden.items() if not isinstance(v, dict | list)}
    assert len(scalars) >= 10
    for key, value in scalars.items():
        assert f'"{key}":{json.dumps(value)}' in shown.group(1), key
