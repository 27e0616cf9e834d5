"""benchmarks/suite_census.py: a process is counted under the root it started under, in the
group of its own command line or its nearest ancestor's."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[1]


def _census() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "suite_census", ROOT / "benchmarks" / "suite_census.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["suite_census"] = module
    spec.loader.exec_module(module)
    return module


def test_processes_are_grouped_by_their_nearest_matching_ancestor_and_kept_when_orphaned() -> None:
    census = _census()
    seen = census.Seen()
    pytest_ = (100, 1)
    seen.add(pytest_, 1, 1.0, "python -m pytest -n 2")
    seen.add((101, 2), 100, 50.0, "python -u -c import sys;exec(eval(sys.stdin.readline()))")
    seen.add((102, 3), 101, 7.0, "python tests/forkserver.py s r")  # a server
    seen.add((103, 4), 102, 2.0, "python tests/forkserver.py s r")  # a command it forked
    seen.add((104, 5), 103, 9.0, "python -c from multiprocessing.forkserver import main")
    seen.add((105, 6), 104, 4.0, "python -c from multiprocessing.forkserver import main")
    seen.add((106, 7), 101, 3.0, "/usr/lib/chromium/chromium --headless")
    seen.add((107, 8), 106, 5.0, "/usr/lib/chromium/chromium --type=renderer")
    seen.add((900, 9), 1, 99.0, "an unrelated process")
    # the command that forked 104 ends: its orphan is handed to init; a pid is reused
    seen.add((105, 6), 1, 6.0, "python -c from multiprocessing.forkserver import main")
    seen.add((103, 20), 1, 1.5, "a later process with a reused pid")
    below = seen.below(pytest_)
    assert sorted(below) == [
        (100, 1),
        (101, 2),
        (102, 3),
        (103, 4),
        (104, 5),
        (105, 6),
        (106, 7),
        (107, 8),
    ]
    assert seen.cpu[(105, 6)] == 6.0  # the last reading
    groups = {key: census.group(key, seen) for key in below}
    assert groups[(105, 6)] == groups[(104, 5)] == "multiprocessing pool (studies, history)"
    assert groups[(103, 4)] == groups[(102, 3)] == "forked battlesim commands (tests/forkserver.py)"
    assert groups[(107, 8)] == groups[(106, 7)] == "chromium (viewer tests)"
    assert groups[(101, 2)] == "pytest-xdist workers (tests in process)"
    assert groups[(100, 1)] == "other (the pytest controller, subprocesses)"
