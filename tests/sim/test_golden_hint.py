"""The golden tests' failure hint writes today's replay where no one else's file can be.

It said ``-o /tmp/new.jsonl``: one name for every checkout, worktree and user, so two
failing runs wrote over each other's replay, and a file or link another user left there
was what ``run`` refused (not a replay: ``--force``) or ``diff`` compared. The commands now
write under the failing test's own ``tmp_path`` (made by pytest for this user alone, kept
after the failure), at a name made from the golden's, and stay pasteable whole.
"""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

import pytest

from tests.golden import golden_path
from tests.sim.test_battle import ROOT, _fresh, _golden_hint


def _hint(scenario: str, seed: int, out: Path) -> str:
    path = golden_path(scenario, seed)
    recorded = path.read_text(encoding="utf-8").split("\n")[:-1]
    return _golden_hint(scenario, path, [*recorded[:-1], "{}"], recorded, out)


def test_the_hint_writes_in_the_tests_tmp_path_at_the_goldens_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(ROOT)
    out = _fresh(golden_path("coral_sea.yaml", 1942), tmp_path)
    assert out == tmp_path / "coral_sea-s1942.new.jsonl"
    python = shlex.quote(sys.executable)
    new = shlex.quote(str(out))
    hint = _hint("coral_sea.yaml", 1942, out)
    assert (
        f"with the code this test fought ({ROOT / 'sim'}): {python} -m sim run "
        f"scenarios/coral_sea.yaml --seed 1942 -o {new} && {python} -m sim diff "
        f"replays/coral_sea-s1942.jsonl {new} (an extra or missing draw shows as the streams' "
        "counts;"
    ) in hint
    assert "/tmp/new.jsonl" not in hint


def test_each_golden_and_each_test_writes_its_own_file(tmp_path: Path) -> None:
    one, two = tmp_path / "one", tmp_path / "two"
    names = {
        _fresh(golden_path(s, seed), where)
        for s, seed in (("stone_wall.yaml", 1862), ("tavern_brawl.yaml", 377))
        for where in (one, two)
    }
    assert len(names) == 4
    assert all(n.parent in (one, two) and n.name.endswith(".new.jsonl") for n in names)


def test_a_path_with_a_space_is_quoted_whole(tmp_path: Path) -> None:
    out = tmp_path / "a b" / "stone_wall-s1862.new.jsonl"
    hint = _hint("stone_wall.yaml", 1862, out)
    assert f" -o '{out}' && " in hint
    assert hint.count(f"'{out}'") == 2
