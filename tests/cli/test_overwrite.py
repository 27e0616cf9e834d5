"""Writing over what battlesim wrote is routine; --force is for anything else (issue 24)."""

from __future__ import annotations

import gzip
import json
import shutil
from pathlib import Path

from click.testing import CliRunner, Result

from sim.cli import cli
from sim.outputs import is_page, is_replay

REPO = Path(__file__).resolve().parents[2]
STONE_WALL = REPO / "scenarios" / "stone_wall.yaml"
GOLDEN = REPO / "replays" / "stone_wall-s1862.jsonl"


def _invoke(*args: str) -> Result:
    result = CliRunner().invoke(cli, list(args), prog_name="battlesim")
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result


def _refused(option: str, path: Path, what: str) -> str:
    return (
        f"battlesim: error: {option} {path}: the file is not {what} battlesim wrote; "
        "add --force to overwrite it, or choose another name\n"
    )


def test_an_edited_scenario_runs_again_over_its_own_replay(tmp_path: Path) -> None:
    """`new; run; edit; run` replaces the first replay (exit 0), and the new one is the edit's."""
    scenario = tmp_path / "m.yaml"
    assert _invoke("new", "musket", str(scenario)).exit_code == 0
    replay = tmp_path / "m-s1.jsonl"
    assert _invoke("run", str(scenario), "-o", str(replay)).exit_code == 0
    scenario.write_text(scenario.read_text().replace('name: "M"', 'name: "Edited"'))
    again = _invoke("run", str(scenario), "-o", str(replay), "--json")
    assert (again.exit_code, again.stderr) == (0, "")
    header = json.loads(replay.read_text().splitlines()[0])
    assert header["scenario"]["name"] == "Edited"


def test_a_gzip_replay_is_known_as_a_replay(tmp_path: Path) -> None:
    """A .gz replay at --out is battlesim's own: run writes over it without --force."""
    out = tmp_path / "r.jsonl.gz"
    assert _invoke("run", str(STONE_WALL), "--seed", "3", "-o", str(out)).exit_code == 0
    assert is_replay(out)
    assert _invoke("run", str(STONE_WALL), "--seed", "4", "-o", str(out)).exit_code == 0
    with gzip.open(out, "rt", encoding="utf-8") as fh:
        assert json.loads(fh.readline())["seed"] == 4


def test_report_and_diff_pages_are_written_again_without_force(tmp_path: Path) -> None:
    """`report` twice and `diff --html` twice exit 0; the pages carry battlesim's mark."""
    page = tmp_path / "r.html"
    for _ in range(2):
        result = _invoke("report", str(GOLDEN), "-o", str(page))
        assert (result.exit_code, result.stderr) == (0, "")
    assert is_page(page)
    assert '<meta name="generator" content="battlesim">' in page.read_text()[:4000]
    other = tmp_path / "sw7.jsonl"
    assert _invoke("run", str(STONE_WALL), "--seed", "7", "-o", str(other)).exit_code == 0
    both = tmp_path / "d.html"
    for _ in range(2):
        result = _invoke("diff", str(GOLDEN), str(other), "--html", str(both))
        assert (result.exit_code, result.stderr) == (1, f"Wrote {both}\n")  # stdout: the diff
    assert is_page(both)
    # a page where a replay goes is of another kind: --force
    refused = _invoke("run", str(STONE_WALL), "-o", str(page))
    assert (refused.exit_code, refused.stderr) == (2, _refused("--out", page, "a replay"))
    assert is_page(page)


def test_a_page_battlesim_did_not_write_needs_force(tmp_path: Path) -> None:
    """Another HTML file, or a replay, at report's -o and diff's --html survives without --force."""
    mine = tmp_path / "mine.html"
    mine.write_text("<!DOCTYPE html>\n<html><head><title>x</title></head><body></body></html>\n")
    result = _invoke("report", str(GOLDEN), "-o", str(mine))
    assert (result.exit_code, result.stderr) == (2, _refused("--out", mine, "a page"))
    result = _invoke("diff", str(GOLDEN), str(GOLDEN), "--html", str(mine))
    assert (result.exit_code, result.stderr) == (2, _refused("--html", mine, "a page"))
    replay = tmp_path / "copy.jsonl"
    shutil.copy(GOLDEN, replay)
    result = _invoke("report", str(GOLDEN), "-o", str(replay))
    assert (result.exit_code, result.stderr) == (2, _refused("--out", replay, "a page"))
    assert replay.read_bytes() == GOLDEN.read_bytes()
    assert _invoke("report", str(GOLDEN), "-o", str(mine), "--force").exit_code == 0
    assert is_page(mine)


def test_a_page_from_before_the_mark_is_still_battlesims(tmp_path: Path) -> None:
    """A page without the generator mark but with battlesim's first line and probe is its own."""
    page = tmp_path / "old.html"
    assert _invoke("report", str(GOLDEN), "-o", str(page)).exit_code == 0
    text = page.read_text().replace('<meta name="generator" content="battlesim">\n', "", 1)
    page.write_text(text)
    assert is_page(page)
    page.write_text(text.replace('<svg id="ns-probe"', '<svg id="other"', 1))
    assert not is_page(page)


def test_fork_and_schema_write_again_without_force(tmp_path: Path) -> None:
    """A fork made again, and a schema written again, need no --force; a foreign file does."""
    child = tmp_path / "held.jsonl"
    fork = ("fork", str(GOLDEN), "--at", "8", "--set", "roll=6", "--set", "after=routed", "-o")
    for _ in range(2):
        made = _invoke(*fork, str(child))
        assert (made.exit_code, made.stderr) == (0, "")
    schema = tmp_path / "s.json"
    for _ in range(2):
        assert _invoke("schema", "-o", str(schema)).exit_code == 0
    notes = tmp_path / "notes.json"
    notes.write_text('{"title": "mine"}')
    result = _invoke("schema", "-o", str(notes))
    assert (result.exit_code, result.stderr) == (2, _refused("--out", notes, "a schema"))
    result = _invoke(*fork, str(notes))
    assert (result.exit_code, result.stderr) == (2, _refused("--out", notes, "a replay"))


def test_force_help_says_what_each_command_replaces_anyway() -> None:
    """Each --force help says what the command replaces without it; new and schema: no replays."""
    expected = {
        "run": "not a battlesim replay",
        "fork": "not a battlesim replay",
        "rerun": "not a battlesim replay",
        "report": "not a page battlesim wrote",
        "diff": "not a page battlesim wrote",
        "schema": "not a schema battlesim wrote",
        "new": "Overwrite an existing NAME.yaml",
    }
    for command, words in expected.items():
        text = " ".join(_invoke(command, "--help").stdout.split())
        force = text[text.index("--force") :]
        assert words in force, (command, force[:200])
    for command in ("new", "schema"):
        text = " ".join(_invoke(command, "--help").stdout.split())
        assert "replay" not in text[text.index("--force") :].split("-h, --help")[0], command
