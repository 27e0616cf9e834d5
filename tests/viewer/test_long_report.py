"""``report`` holds memory flat in a replay's length in turns (issue 31).

A replay long in turns (``benchmarks/long_turns.py``: the stone-wall golden's
header, then one ``engine.turn_ended`` a turn, chained) is written as a page at
two lengths, 8x apart; the traced peak (tracemalloc) of the longer may exceed
the shorter's by far less than its page's data (a keyframe of every unit a
turn: about 1.5 KB a turn, 3.7 MB at 2,400 turns, which compress into one 64 KiB
read of the spool).
"""

from __future__ import annotations

import html
import tracemalloc
from pathlib import Path

import pytest

from sim.replay.file import ReplayFile
from sim.replay.report import write_report
from sim.replay.viewer.model import CHART_TURNS
from sim.rulesets import trusted
from tests.cli.test_long_in_turns import rows_checked_once, write_long


def _peak(path: Path, out: Path) -> int:
    loaded = ReplayFile(path)
    loaded.scan()
    tracemalloc.start()
    try:
        write_report(loaded, out)
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_report_peak_does_not_grow_with_turns(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """300 and 2,400 turns: the peaks differ by under 2 MiB (the old spool: by 5 MiB).

    Every turn holds one state, whose rows are checked against validation once here
    (:func:`~tests.cli.test_long_in_turns.rows_checked_once`), not at each of 2,700 turns."""
    short = write_long(tmp_path / "short.jsonl", 300)
    long = write_long(tmp_path / "long.jsonl", 2400)
    rows_checked_once(short)
    monkeypatch.setattr(trusted, "CHECK_TRUSTED", False)
    small = _peak(short, tmp_path / "short.html")
    large = _peak(long, tmp_path / "long.html")
    assert large - small < 2 * 1024 * 1024, (small, large)


@pytest.mark.parametrize(("turns", "every"), [(400, "2nd"), (600, "3rd")])
def test_a_long_battles_header_says_which_turn_ends_its_charts_show(
    tmp_path: Path, turns: int, every: str
) -> None:
    """400 and 600 turns, 200 turn ends a chart at most: the header says "every 2nd" and
    "every 3rd" turn's end (not "every 3th")."""
    replay = write_long(tmp_path / "long.jsonl", turns)
    page = tmp_path / "long.html"
    write_report(ReplayFile(replay), page)
    assert -(-turns // CHART_TURNS) == int(every[:-2])  # the charts read every k-th turn
    text = html.unescape(page.read_text(encoding="utf-8"))
    assert f"The charts show every {every} turn's end." in text
