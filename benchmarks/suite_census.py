"""Where a command's CPU goes, by process: a census of every process it starts (Linux).

    .venv/bin/python benchmarks/suite_census.py -- .venv/bin/pytest -n 2 --dist loadfile

Runs the command and, every ``--every`` seconds until it ends, reads each process's
CPU (user + system, ``/proc/PID/stat``), its parent and its command line. Each process
is put in the first group (:data:`GROUPS`) that its own command line or an ancestor's
matches — a pool worker under the test suite's fork server is a pool worker — and the
table gives each group's CPU seconds and process count, and the CPU ``getrusage`` saw
reaped (``RUSAGE_CHILDREN``: not that of processes no one waited for, such as a
browser's). A process that lives less than one interval may be missed: the census is a
lower bound. Nothing is timed against anything: it says where the CPU went,
not how fast. Used for benchmarks/README.md, *Where the suite's CPU goes*.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

GROUPS = (
    ("chromium (viewer tests)", "chrom"),
    ("multiprocessing pool (studies, history)", "multiprocessing.forkserver"),
    ("forked battlesim commands (tests/forkserver.py)", "tests/forkserver.py"),
    ("pytest-xdist workers (tests in process)", "exec(eval(sys.stdin.readline()))"),
)
"""(name, a text of the command line) in the order they are tried, innermost first."""

TICK = os.sysconf("SC_CLK_TCK")


Key = tuple[int, int]
"""A process: its pid and its start time (clock ticks after boot), since pids are reused."""


def _read(pid: str) -> tuple[Key, int, float, str] | None:
    """(key, parent pid, CPU seconds, command line) of a live process, or None."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        cmd = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ")
    except OSError:
        return None
    cpu = (int(stat[11]) + int(stat[12])) / TICK
    return (int(pid), int(stat[19])), int(stat[1]), cpu, cmd.decode(errors="replace")


class Seen:
    """Every process seen: its parent as first seen (an orphan is handed to init later), its
    command line as first seen, and its CPU as last seen."""

    def __init__(self) -> None:
        self.parent: dict[Key, Key | None] = {}
        self.cmd: dict[Key, str] = {}
        self.cpu: dict[Key, float] = {}
        self._latest: dict[int, Key] = {}

    def add(self, key: Key, parent_pid: int, cpu: float, cmd: str) -> None:
        if key not in self.cmd:
            self.parent[key] = self._latest.get(parent_pid)
            self.cmd[key] = cmd
            self._latest[key[0]] = key
        self.cpu[key] = cpu

    def below(self, root: Key) -> list[Key]:
        """``root`` and every process seen whose ancestors include it."""
        out = []
        for key in self.cmd:
            at: Key | None = key
            while at is not None and at != root:
                at = self.parent[at]
            if at == root:
                out.append(key)
        return out


def census(command: list[str], every: float) -> tuple[Seen, list[Key], float]:
    """Run ``command``: the processes seen, those below it, and its CPU by ``getrusage``."""
    child = subprocess.Popen(command)
    seen = Seen()
    root: Key | None = None
    while True:
        alive = child.poll() is None
        for pid in sorted((p for p in os.listdir("/proc") if p.isdigit()), key=int):
            row = _read(pid)
            if row is not None:
                seen.add(*row)
                if row[0][0] == child.pid and root is None:
                    root = row[0]
        if not alive:
            break
        time.sleep(every)
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    below = seen.below(root) if root is not None else []
    return seen, below, usage.ru_utime + usage.ru_stime


def group(key: Key, seen: Seen) -> str:
    """The first group the process or an ancestor matches ("other" if none)."""
    for name, text in GROUPS:
        at: Key | None = key
        while at is not None:
            if text in seen.cmd[at]:
                return name
            at = seen.parent[at]
    return "other (the pytest controller, subprocesses)"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--every", type=float, default=0.2, help="seconds between readings")
    parser.add_argument("command", nargs="+", help="the command (after --)")
    args = parser.parse_args()
    seen, below, total = census(args.command, args.every)
    cpu: Counter[str] = Counter()
    count: Counter[str] = Counter()
    for key in below:
        name = group(key, seen)
        cpu[name] += seen.cpu[key]
        count[name] += 1
    print(f"{'CPU s':>8} {'processes':>9}  group")
    for name, seconds in cpu.most_common():
        print(f"{seconds:8.1f} {count[name]:9d}  {name}")
    counted = sum(cpu.values())
    print(f"{counted:8.1f} {len(below):9d}  counted (getrusage saw {total:.1f} s reaped)")
    sys.exit(0)


if __name__ == "__main__":
    main()
