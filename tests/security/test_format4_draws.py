"""Replay format 4 writes draws as [stream, i, u]; formats 1-3 held objects and still read."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from engine.events import Draw
from engine.replayfile import formats
from sim import api
from sim.replay.diff import draw_counts
from sim.rulesets.musket.model.events import Fired
from tests.forge import GOLDEN, ROOT, edit_header, forge, invoke

FORMAT3 = ROOT / "tests" / "data" / "replays"
OLD = ["stone_wall-s1862", "tavern_brawl-s377", "coral_sea-s1942"]


@pytest.mark.parametrize("name", OLD)
def test_a_format3_replay_of_each_ruleset_loads_shows_and_verifies(name: str) -> None:
    """A format-3 golden (musket, becmi, flattop; draws as objects) verifies as the same events."""
    path = FORMAT3 / f"{name}.format3.jsonl"
    loaded = api.load_replay(path)
    assert loaded.replay.header.format_version == 3
    draws = [
        d
        for line in path.read_text().splitlines()[1:-1]
        for d in _objects(json.loads(line))
        if set(d) == {"stream", "i", "u"}
    ]
    assert draws  # the fixture holds draws in the old shape...
    counts: dict[str, int] = {}
    for d in draws:
        counts[d["stream"]] = max(counts.get(d["stream"], 0), d["i"] + 1)
    assert draw_counts(loaded.events) == dict(sorted(counts.items()))  # ...read as Draws
    assert invoke("show", str(path)).exit_code == 0
    result = invoke("verify", str(path))
    assert result.exit_code == 0, result.output
    assert "upcast from an older format, re-simulates to the same events" in result.stdout


def _objects(value: Any) -> list[dict[str, Any]]:
    if isinstance(value, dict):
        return [value, *(o for v in value.values() for o in _objects(v))]
    if isinstance(value, list):
        return [o for v in value for o in _objects(v)]
    return []


def test_format4_writes_each_draw_as_an_array() -> None:
    """A fired event's draws are [stream, i, u] arrays in the golden file."""
    line = next(x for x in GOLDEN.read_text().splitlines() if '"musket.fired"' in x)
    draws = json.loads(line)["result"]["draws"]
    assert draws and all(
        isinstance(d, list) and [type(x) for x in d] == [str, int, float] for d in draws
    )


def test_a_format4_file_claiming_format3_is_refused(tmp_path: Path) -> None:
    """Array draws under a format-3 header (a downgrade) are damage, named by line and seq."""

    def edit(texts: list[str]) -> list[str]:
        return edit_header(texts, lambda h: h.update(format_version=3))

    result = invoke("verify", str(forge(tmp_path, edit)))
    assert result.exit_code == 1
    assert result.stdout.startswith("DAMAGED at ")
    assert "formats 1-3 write a draw as" in result.stdout


def test_a_format3_file_claiming_format4_is_refused(tmp_path: Path) -> None:
    """Object draws under a format-4 header are not the writer's form: damage."""
    source = FORMAT3 / "stone_wall-s1862.format3.jsonl"

    def edit(texts: list[str]) -> list[str]:
        return edit_header(texts, lambda h: h.update(format_version=4))

    result = invoke("verify", str(forge(tmp_path, edit, source=source)))
    assert result.exit_code == 1
    assert result.stdout.startswith("DAMAGED at ")
    # The message names the draw's place and what it should be, not pydantic's union branches.
    assert "bad event: musket.fired.result.draws.0: Input should be a valid tuple" in result.stdout
    assert "is-instance" not in result.stdout


@pytest.mark.parametrize(
    "draw",
    [
        {"stream": "1/fire/x", "i": 0, "u": 1},
        {"stream": "1/fire/x", "u": 0.5, "i": 0},
        {"stream": "1/fire/x", "i": 0, "u": 0.5, "x": 1},
        {"stream": "1/fire/x", "i": True, "u": 0.5},
        ["1/fire/x", 0, 0.5],
    ],
)
def test_an_old_draw_not_exactly_the_old_object_is_refused(draw: Any) -> None:
    """Formats 1-3: a draw is exactly {"stream": text, "i": int, "u": float}, in that order."""
    data = json.loads(next(x for x in GOLDEN.read_text().splitlines() if '"musket.fired"' in x))
    data["result"]["draws"] = [draw]
    with pytest.raises(formats.ShapeError, match=r"result\.draws\[0\]: formats 1-3 write a draw"):
        formats.draws_as_arrays(Fired, data)


def test_old_draw_objects_become_draws_and_nothing_else_changes() -> None:
    """Only the places Fired's schema holds draws are converted; other fields stay as they are."""
    data = json.loads(next(x for x in GOLDEN.read_text().splitlines() if '"musket.fired"' in x))
    del data["h"]
    draws = data["result"]["draws"]
    objects = [{"stream": d[0], "i": d[1], "u": d[2]} for d in draws]
    old = {**data, "result": {**data["result"], "draws": objects}}
    assert formats.draws_as_arrays(Fired, old) == data
    assert Fired.model_validate(data).result.draws == [Draw(*d) for d in draws]
