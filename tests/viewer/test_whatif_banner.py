"""The report's "What if" banner says a fork's change once, and how its parent ended.

The banner quoted the changed event's narrative line, which a fork's line ends with
``[counterfactual: after=good, passed=true]``, and then listed the same change again:
``…: passes [counterfactual: after=good, passed=true]”: after = good; passed = true``
(a reviewer's report). The quoted line is now the event as told, the change listed after it.

It showed the fork's change but not how the parent ended, so a reader could not see what
the change did: it now sets the parent's outcome beside the fork's, from the parent's file
(beside the fork, or given by ``report --parent``), or says why it cannot.
"""

from __future__ import annotations

import html
import re
import shutil
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
        f"parent: not shown — {GOLDEN.name} is not beside this replay (give it with report "
        f"--parent FILE)this fork: {view.meta['headline']} — {view.meta['reason']}"
    )


def _battle_end(replay: Path) -> tuple[str, int, str]:
    """The winner's name, the last turn and the reason of a battle, read from its events."""
    loaded = api.load_replay(replay)
    ended = next(e for e in reversed(loaded.events) if e.type == "musket.battle_ended")
    assert ended.winner is not None
    name = next(s.name for s in loaded.scenario.sides if s.id == ended.winner)
    return name, ended.turn, ended.reason


def _said(name: str, turns: int, reason: str) -> str:
    """A musket outcome as a headline says it: its winner (one army: "wins"), turns, reason."""
    return f"{name} wins after {turns} turns — {reason}"


def _outcomes(page: Path) -> str:
    """The What if banner's outcome lines of a page, as text (a line break as " / ")."""
    found = re.search(r'<p class="outcomes">(.*?)</p>', page.read_text(encoding="utf-8"))
    assert found is not None
    return html.unescape(re.sub(r"<[^>]+>", "", found.group(1).replace("<br>", " / ")))


def _fork_into(folder: Path, parent: Path) -> Path:
    """Pat's fork of ``parent`` (the 69th's charge check passes), written into ``folder``."""
    out = folder / "held.jsonl"
    args = ["fork", str(parent), "--at", "19", "--set", "passed=true", "--set", "after=good"]
    assert CliRunner().invoke(cli, [*args, "-o", str(out)]).exit_code == 0
    return out


def test_the_banner_sets_the_parents_outcome_beside_the_forks(tmp_path: Path) -> None:
    """A fork whose parent's file is beside it: the banner says how each ended, the parent
    first: Union broken after 2 turns, and, with the 69th holding, after 3."""
    parent = tmp_path / GOLDEN.name
    shutil.copyfile(GOLDEN, parent)
    fork = _fork_into(tmp_path, parent)
    page = tmp_path / "held.html"
    assert CliRunner().invoke(cli, ["report", str(fork), "-o", str(page)]).exit_code == 0
    theirs, ours = _battle_end(parent), _battle_end(fork)
    assert (theirs[1], ours[1]) == (2, 3)  # the change cost the Confederates a turn
    assert _outcomes(page) == f"parent: {_said(*theirs)} / this fork: {_said(*ours)}"


def test_a_parent_not_beside_the_fork_is_named_and_may_be_given(tmp_path: Path) -> None:
    """Without the parent's file the banner says its outcome is not shown and why (its
    header holds none); --parent gives the file, and the outcome is shown as beside it."""
    fork = _fork_into(tmp_path, GOLDEN)  # the golden is in replays/, not beside it
    page = tmp_path / "held.html"
    assert CliRunner().invoke(cli, ["report", str(fork), "-o", str(page)]).exit_code == 0
    ours = _said(*_battle_end(fork))
    assert _outcomes(page) == (
        f"parent: not shown — {GOLDEN.name} is not beside this replay "
        f"(give it with report --parent FILE) / this fork: {ours}"
    )
    args = ["report", str(fork), "-o", str(page), "--parent", str(GOLDEN)]
    assert CliRunner().invoke(cli, args).exit_code == 0
    assert _outcomes(page) == f"parent: {_said(*_battle_end(GOLDEN))} / this fork: {ours}"


def test_a_file_beside_the_fork_of_another_battle_is_not_taken_for_its_parent(
    tmp_path: Path,
) -> None:
    """A file under the parent's name whose header is not the parent's (another seed) is
    another battle: not shown, said so; the same file given by --parent is bad input."""
    fork = _fork_into(tmp_path, GOLDEN)
    other = tmp_path / GOLDEN.name
    run = ["run", str(ROOT / "scenarios" / "stone_wall.yaml"), "--seed", "7", "--out"]
    assert CliRunner().invoke(cli, [*run, str(other)]).exit_code == 0
    page = tmp_path / "held.html"
    assert CliRunner().invoke(cli, ["report", str(fork), "-o", str(page)]).exit_code == 0
    assert _outcomes(page).startswith(
        f"parent: not shown — the {GOLDEN.name} beside this replay is another battle "
        "(give it with report --parent FILE) / this fork: "
    )
    page.unlink()
    result = CliRunner().invoke(cli, ["report", str(fork), "-o", str(page), "--parent", str(other)])
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == (
        f"battlesim: error: --parent {other}: not the parent of {fork}: its header is not "
        f"the one the fork's names ({GOLDEN.name}'s)\n"
    )
    assert not page.exists()


def test_parent_of_a_replay_that_is_no_fork_is_bad_input(tmp_path: Path) -> None:
    """--parent beside a replay that has none: one line, exit 2, no page."""
    page = tmp_path / "p.html"
    args = ["report", str(GOLDEN), "-o", str(page), "--parent", str(GOLDEN)]
    result = CliRunner().invoke(cli, args)
    assert (result.exit_code, result.stderr) == (
        2,
        f"battlesim: error: --parent {GOLDEN}: {GOLDEN} is not a fork; it has no parent\n",
    )
    assert not page.exists()


def test_diff_html_shows_the_parents_outcome_when_a_is_bs_parent(tmp_path: Path) -> None:
    """diff --html of a parent and its fork: the fork's banner has the parent's outcome from
    A, wherever A's file is."""
    fork = _fork_into(tmp_path, GOLDEN)
    page = tmp_path / "diff.html"
    result = CliRunner().invoke(cli, ["diff", str(GOLDEN), str(fork), "--html", str(page)])
    assert result.exit_code == 1
    assert _outcomes(page) == (
        f"parent: {_said(*_battle_end(GOLDEN))} / this fork: {_said(*_battle_end(fork))}"
    )
