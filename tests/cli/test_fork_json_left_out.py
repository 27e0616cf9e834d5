"""``fork --json`` names the parent's changes a fork leaves out, as the text output's note on
stderr does: ``left_out``, a list (empty when none was), each change as the header's ``fork``
object records it (``at_seq``, ``event``, ``state``). Before, the key was missing, and a
script reading the JSON could not tell a fork that kept its parent's change from one that
dropped it."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import Result

from tests.forge import invoke

ROOT = Path(__file__).resolve().parents[2]
STONE_WALL = ROOT / "replays" / "stone_wall-s1862.jsonl"


def _fork(replay: Path, at: int, out: Path, *sets: str) -> Result:
    """``battlesim fork REPLAY --at AT --set …  --out OUT --json``."""
    changes = [a for s in sets for a in ("--set", s)]
    return invoke("fork", str(replay), "--at", str(at), *changes, "--out", str(out), "--json")


def _pats_fork(tmp_path: Path) -> Path:
    """Pat's fork (docs/replay-tools.md): the 69th New York's charge check at seq 19 passed."""
    parent = tmp_path / "charged.jsonl"
    made = _fork(STONE_WALL, 19, parent, "passed=true", "after=good")
    assert made.exit_code == 0, made.output
    return parent


def test_fork_json_lists_the_parents_change_left_out(tmp_path: Path) -> None:
    """Forked again at seq 16, before its change at 19: stdout is one JSON object whose
    ``left_out`` names that change; stderr keeps the note."""
    parent = _pats_fork(tmp_path)
    out = tmp_path / "charged3.jsonl"
    result = _fork(parent, 16, out, "passed=true", "after=good")
    assert result.exit_code == 0, result.output
    assert result.stdout.count("\n") == 1
    data = json.loads(result.stdout)
    assert data["left_out"] == [
        {"at_seq": 19, "event": {"after": "good", "passed": True}, "state": {}}
    ]
    assert (data["at"], data["parent"], data["replay"]) == (16, str(parent), str(out))
    assert result.stderr.startswith("battlesim: note: the parent's change at seq 19 ")


def test_fork_json_left_out_is_an_empty_list_when_nothing_is(tmp_path: Path) -> None:
    """A fork of a battle that is no fork, and a fork of a fork that keeps its parent's
    change (at or after it), give ``left_out: []`` and no note."""
    parent = _pats_fork(tmp_path)
    for replay, at in ((STONE_WALL, 10), (parent, 25)):
        out = tmp_path / f"f{at}.jsonl"
        result = _fork(replay, at, out, "state.units.69ny.strength=100")
        assert (result.exit_code, result.stderr) == (0, ""), result.output
        assert json.loads(result.stdout)["left_out"] == []


def test_fork_json_lists_a_state_change_left_out_with_its_paths(tmp_path: Path) -> None:
    """A parent's state change is given with its paths as the header records them (without
    ``state.``), each change left out in seq order."""
    first = tmp_path / "first.jsonl"
    made = _fork(STONE_WALL, 22, first, "state.units.69ny.strength=100")
    assert made.exit_code == 0, made.output
    second = tmp_path / "second.jsonl"
    made = _fork(first, 30, second, "state.units.wash.strength=1")
    assert made.exit_code == 0, made.output
    out = tmp_path / "third.jsonl"
    result = _fork(second, 10, out, "state.units.1ri.strength=2")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["left_out"] == [
        {"at_seq": 22, "event": {}, "state": {"units.69ny.strength": 100}},
        {"at_seq": 30, "event": {}, "state": {"units.wash.strength": 1}},
    ]
