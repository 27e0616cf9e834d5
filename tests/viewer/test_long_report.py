"""``report`` holds memory flat in a replay's length in turns (issue 31).

A replay long in turns (``benchmarks/long_turns.py``: the stone-wall golden's
header, then one ``engine.turn_ended`` a turn, chained) is written as a page at
two lengths, 8x apart; the traced peak (tracemalloc) of the longer may exceed
the shorter's by far less than its page's data (a keyframe of every unit a
turn: about 1.5 KB a turn, 3.7 MB at 2,400 turns, which compress into one 64 KiB
read of the spool).
"""

from __future__ import annotations

import tracemalloc
from pathlib import Path

import pytest

from sim.replay.file import ReplayFile
from sim.replay.report import write_report
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
