"""Replay tools hold memory flat in the replay's length (issue 25, item 6).

One replay of more than 200,000 events (the benchmarks' reference battle,
``benchmarks/lines.py``, fought once per session in a temporary folder) is
read by ``verify`` (which streams: the battle's state and one line), then by
``show --unit``, ``report``, ``diff`` and ``why``; each must peak at most
twice ``verify``'s resident memory.  Each command runs in a child of its
own, forked from a bare ``python -S`` that reaps it with ``wait4``, so the
peak (``ru_maxrss``) is that command's alone, never this test's.  Memory,
not time, is measured.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
EVENTS = 200_000
PER_SIDE, TURNS = 500, 450
"""The reference battle's size that gives more than :data:`EVENTS` events."""

_MEASURE = """
import json, os, sys
pid = os.fork()
if pid == 0:
    fd = os.open(os.devnull, os.O_WRONLY)
    os.dup2(fd, 1)
    os.execv(sys.argv[1], sys.argv[1:])
_, status, usage = os.wait4(pid, 0)
print(json.dumps({"rc": os.waitstatus_to_exitcode(status), "kib": usage.ru_maxrss}))
"""
"""Fork, run the command with stdout to /dev/null, print its exit code and peak RSS (KiB)."""


def _peak(*args: str) -> int:
    """The command's peak resident memory in KiB (``battlesim`` beside this Python)."""
    bs = str(Path(sys.executable).parent / "battlesim")
    done = subprocess.run(
        [sys.executable, "-S", "-c", _MEASURE, bs, *args],
        capture_output=True,
        text=True,
        check=True,
    )
    found = json.loads(done.stdout)
    assert found["rc"] in (0, 1), (args, done.stderr)  # diff: 1, the battles differ
    return int(found["kib"])


@pytest.fixture(scope="session")
def long_replay(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A replay of more than 200,000 events, and a short one of another seed to diff with."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        from lines import lines_scenario
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))
    from sim import api

    folder = tmp_path_factory.mktemp("long")
    big, short = folder / "long.jsonl", folder / "short.jsonl"
    scenario = folder / "lines.yaml"
    scenario.write_text(yaml.safe_dump(lines_scenario(PER_SIDE, TURNS).model_dump(mode="json")))
    assert api.run(scenario, out=big).events > EVENTS
    small = folder / "small.yaml"
    small.write_text(yaml.safe_dump(lines_scenario(PER_SIDE, 3).model_dump(mode="json")))
    api.run(small, out=short)
    return big, short


@pytest.mark.skipif(
    os.environ.get("BATTLESIM_LONG_TESTS") != "1",
    reason="about 6 CPU-minutes (a 200,000-event battle fought, then read five times): "
    "run by `make test-long` (BATTLESIM_LONG_TESTS=1), not in the 10-minute CI",
)
def test_tools_peak_within_twice_verify(long_replay: tuple[Path, Path], tmp_path: Path) -> None:
    """show --unit, report, diff and why each peak at most 2 x verify's memory on 200k+ events."""
    big, short = long_replay
    last = sum(1 for _ in big.open(encoding="utf-8")) - 3  # header and footer: seq 0..n-1
    verify = _peak("verify", str(big))
    peaks = {
        "show --unit": _peak("show", str(big), "--unit", "n0"),
        "report": _peak("report", str(big), "-o", str(tmp_path / "r.html")),
        "diff": _peak("diff", str(big), str(short)),
        "why": _peak("why", str(big), str(last)),
    }
    assert {k: v for k, v in peaks.items() if v > 2 * verify} == {}, (verify, peaks)


def test_a_long_battles_charts_are_thinned_and_the_page_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Past CHART_TURNS turns, the charts read every k-th turn's end and the last; the header
    names k (100 turns, at most 30 points: every 4th turn's end, 26 points)."""
    from sim import api
    from sim.replay.file import ReplayFile
    from sim.replay.viewer import model
    from sim.replay.viewer.report import report_pieces

    out = tmp_path / "long.jsonl"
    api.run(ROOT / "tests" / "data" / "long_lines.yaml", out=out)
    monkeypatch.setattr(model, "CHART_TURNS", 30)
    view = model.battle_view(ReplayFile(out))
    assert view.series.turns == list(range(0, 101, 4))
    assert view.meta["chart_every"] == 4
    assert all(len(v) == 26 for lines in view.series.values.values() for v in lines.values())
    page = "".join(report_pieces(view))
    assert "The charts show every 4th turn&#x27;s end." in page  # HTML-escaped
