"""A fork of a fork may end the battle before its parent's fork point, and still verify.

The stone wall golden as musket rules version 2 wrote it (kept in tests/data/replays;
forks of it are fought again under version 2): its seq 87 is the 69th New York's
failed charge check; forked there with ``passed=true`` the battle runs on (the parent's fork at 87).
Forking that child at seq 66 (an earlier charge check) ends the battle in 75
events, before seq 87: the earlier fork is never reached because the later
one changed the course first.  The file is lawful and must verify; a fork
whose own point the battle never reaches is still refused.
"""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest

from engine.replayfile.formats import ShapeError, check_forks_reached
from tests.forge import invoke

GOLDEN = (
    Path(__file__).resolve().parents[2]
    / "tests"
    / "data"
    / "replays"
    / "stone_wall-s1862-musket-rules2.jsonl"
)


def _chain(*ats: int) -> SimpleNamespace | None:
    """A fork chain, outermost (this file's own fork) first."""
    fork = None
    for at in reversed(ats):
        fork = SimpleNamespace(at_seq=at, earlier=fork)
    return fork


def test_a_fork_of_a_fork_that_ends_before_its_parents_fork_verifies(tmp_path: Path) -> None:
    child, grandchild = tmp_path / "child.jsonl", tmp_path / "grandchild.jsonl"
    args = ["--set", "passed=true", "--out"]
    assert invoke("fork", str(GOLDEN), "--at", "87", *args, str(child)).exit_code == 0
    made = invoke("fork", str(child), "--at", "66", *args, str(grandchild))
    assert made.exit_code == 0, made.stderr
    assert "(75 events)" in made.stdout
    checked = invoke("verify", str(grandchild))
    assert (checked.exit_code, checked.stdout.split(":")[0]) == (0, "OK")


def test_only_a_fork_passed_by_a_lower_later_fork_may_lie_past_the_end() -> None:
    check_forks_reached(_chain(66, 87), events=75)  # 87 never reached: 66 changed the course
    with pytest.raises(ShapeError, match="fork at seq 80 changes nothing"):
        check_forks_reached(_chain(80), events=75)  # this file's own fork, never reached
    with pytest.raises(ShapeError, match="fork at seq 90 changes nothing"):
        check_forks_reached(_chain(90, 87), events=75)  # the later fork is past the end too
