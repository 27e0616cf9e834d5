"""Per-test cost, for measuring the suite on a loaded machine (``-p tests.profile_tests``).

With ``BATTLESIM_TEST_PROFILE=FILE`` each test appends one JSON line to FILE: its node id,
wall seconds, the CPU seconds of the test process and of the children it waited for, and
how many processes it started (``subprocess.Popen`` and ``os.fork`` in the test process;
what those children start in turn is in their CPU, not in the count), and the commands
the fork server ran for it (:mod:`tests.forkserver`: their count and CPU, which no
``getrusage`` of the test process sees).  CPU time does not
grow with the load the way wall time does, so the sum is comparable between runs on a
busy machine.  Nothing is recorded without the variable.
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import time
from collections.abc import Generator
from typing import Any

import pytest

_started = [0]


def _count(wrapped: Any) -> Any:
    def counted(*args: Any, **kwargs: Any) -> Any:
        _started[0] += 1
        return wrapped(*args, **kwargs)

    return counted


if os.environ.get("BATTLESIM_TEST_PROFILE"):
    subprocess.Popen.__init__ = _count(subprocess.Popen.__init__)  # type: ignore[method-assign]
    os.fork = _count(os.fork)


def _cpu() -> tuple[float, float]:
    me = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime, kids.ru_utime + kids.ru_stime


def _pool_cpu() -> float:
    """CPU seconds of multiprocessing's forkserver of this process and the workers it reaped."""
    from multiprocessing import forkserver

    pid = getattr(forkserver._forkserver, "_forkserver_pid", None)
    if pid is None:
        return 0.0
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
    except OSError:  # gone, or not Linux
        return 0.0
    return sum(int(f) for f in fields[11:15]) / os.sysconf("SC_CLK_TCK")


def _forked() -> list[dict[str, Any]]:
    server = sys.modules.get("tests.forkserver")
    return [] if server is None else server.stats()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item) -> Generator[None, None, None]:
    """Time the test's setup, call and teardown together."""
    target = os.environ.get("BATTLESIM_TEST_PROFILE")
    if not target:
        yield
        return
    started, wall, (me, kids) = _started[0], time.perf_counter(), _cpu()
    forked, pools = _forked(), _pool_cpu()
    yield
    me2, kids2 = _cpu()
    forked_rows = _forked()[len(forked) :]
    row = {
        "test": item.nodeid,
        "wall": round(time.perf_counter() - wall, 4),
        "cpu": round(me2 - me, 4),
        "children_cpu": round(kids2 - kids, 4),
        "processes": _started[0] - started,
        "forked": len(forked_rows),
        "forked_cpu": round(sum(r["cpu"] for r in forked_rows), 4),
        "pool_cpu": round(max(_pool_cpu() - pools, 0.0), 4),
    }
    with open(target, "a", encoding="utf-8") as out:
        out.write(json.dumps(row) + "\n")
