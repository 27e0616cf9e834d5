"""Helpers shared by the benchmarks: honest timing on a shared machine.

* CPU time (user + system) next to wall time, because a loaded machine
  stretches wall time but not the CPU a process used;
* paired, interleaved repetitions: every variant runs once per repetition
  and their order alternates, so variants meet the same load;
* medians with min–max;
* a line that flags a loaded machine: load average against usable CPUs, and
  the CPU share the measured work got (CPU seconds / wall seconds);
* children started through ``/bin/sh`` and reaped with ``os.wait4``, so
  their CPU and peak RSS are their own (ru_maxrss survives ``execve``: a child
  Python starts directly would report at least the parent's peak).
"""

from __future__ import annotations

import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
MIB = 1024.0 * 1024.0

__all__ = [
    "ROOT",
    "Child",
    "Timed",
    "fmt_spread",
    "load_line",
    "machine",
    "run_child",
    "spread",
    "table",
    "timed",
]


@dataclass(frozen=True)
class Timed:
    """CPU and wall seconds of one measured piece of work."""

    cpu: float
    wall: float


def timed(work: Callable[[], Any]) -> tuple[Timed, Any]:
    """Run ``work`` once; return its CPU and wall time and its result."""
    c0, w0 = time.process_time(), time.perf_counter()
    result = work()
    return Timed(time.process_time() - c0, time.perf_counter() - w0), result


@dataclass(frozen=True)
class Child:
    """A finished child process: its own CPU, wall time, peak RSS and output."""

    cpu: float
    wall: float
    maxrss_mib: float
    returncode: int
    stdout: str
    stderr: str


_LAUNCHER = """
import json, os, sys, time
report, argv = sys.argv[1], sys.argv[2:]
w0 = time.perf_counter()
pid = os.fork()
if pid == 0:
    try:
        os.execvp(argv[0], argv)
    finally:
        os._exit(127)
_, status, ru = os.wait4(pid, 0)
wall = time.perf_counter() - w0
with open(report, "w") as fh:
    code = os.waitstatus_to_exitcode(status)
    json.dump([ru.ru_utime + ru.ru_stime, wall, ru.ru_maxrss, code], fh)
"""


def run_child(
    command: Sequence[str], env: dict[str, str] | None = None, cwd: str | Path = ROOT
) -> Child:
    """Run ``command`` in ``cwd``; its own CPU, wall time and peak RSS, measured by a tiny
    launcher.

    ru_maxrss survives ``execve``, so a child forked from this (large)
    process would report at least this process's peak.  A bare interpreter
    (``python -S``, a few MiB) forks the command instead and reaps it with
    ``wait4``: the figures are the command's own, with the launcher's few
    MiB as the floor of the peak.
    """
    with tempfile.TemporaryDirectory(prefix="battlesim-bench-") as tmp:
        report = Path(tmp) / "rusage.json"
        done = subprocess.run(
            [sys.executable, "-S", "-c", _LAUNCHER, str(report), *command],
            capture_output=True,
            text=True,
            check=False,
            cwd=cwd,
            env=env,
        )
        cpu, wall, rss, code = json.loads(report.read_text())
    rss_bytes = rss * (1 if sys.platform == "darwin" else 1024)
    return Child(cpu, wall, rss_bytes / MIB, code, done.stdout, done.stderr)


def spread(values: Sequence[float]) -> dict[str, float]:
    """Median, min and max."""
    return {"median": statistics.median(values), "min": min(values), "max": max(values)}


def fmt_spread(values: Sequence[float], digits: int = 1, scale: float = 1.0) -> str:
    """``median (min–max)``."""
    s = spread([v * scale for v in values])
    return f"{s['median']:,.{digits}f} ({s['min']:,.{digits}f}–{s['max']:,.{digits}f})"


def machine() -> dict[str, Any]:
    """Platform, Python, CPUs and load average now."""
    try:
        usable: int | None = len(os.sched_getaffinity(0))
    except AttributeError:
        usable = None
    git = subprocess.run(
        ["git", "describe", "--always", "--dirty", "--abbrev=12"],
        capture_output=True,
        text=True,
        check=False,
        cwd=ROOT,
    )
    return {
        "platform": platform.platform(),
        "python": platform.python_version(),
        "cpu_count": os.cpu_count(),
        "cpus_usable": usable,
        "loadavg": list(os.getloadavg()),
        "commit": git.stdout.strip() or None,
    }


def load_line(before: Sequence[float], after: Sequence[float], cpu: float, wall: float) -> str:
    """One line saying whether the machine was loaded while we measured.

    Loaded: the 1-minute load average exceeded the usable CPUs at the start or
    the end, or the measured work got under 90 % of a CPU while it ran.
    """
    usable = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    share = cpu / wall if wall > 0 else 0.0
    loaded = max(before[0], after[0]) > (usable or 1) or share < 0.9
    flag = "LOADED MACHINE" if loaded else "machine quiet"
    return (
        f"{flag}: load average {before[0]:.2f} at start, {after[0]:.2f} at end, "
        f"{usable} usable CPUs; the measured work got {100 * share:.0f} % of a CPU "
        f"({cpu:.1f} CPU s in {wall:.1f} wall s). Compare ratios from one run, not seconds."
    )


def table(rows: list[list[str]], header: list[str]) -> str:
    """Fixed-width text table; first column left-aligned, the rest right-aligned."""
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]

    def line(cells: list[str]) -> str:
        return "  ".join(
            c.ljust(w) if i == 0 else c.rjust(w)
            for i, (c, w) in enumerate(zip(cells, widths, strict=True))
        )

    rule = "  ".join("-" * w for w in widths)
    return "\n".join([line(header), rule, *(line(r) for r in rows)])
