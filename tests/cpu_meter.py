"""The CPU a test unit (or any command) costs, counting every process it started.

``/usr/bin/time`` and ``getrusage(RUSAGE_CHILDREN)`` count a descendant only
when its parent waited for it.  The workers of a ``--jobs 2`` pool are
children of multiprocessing's forkserver, which nobody waits for: it is left
running when the test process exits.  So ``/usr/bin/time pytest
tests/history/test_suite.py`` reports about 12 CPU seconds for a file whose
pool spends about 200, and a whole ``make test`` looks as if its cores idle.

This runs the command as a child subreaper (Linux ``PR_SET_CHILD_SUBREAPER``):
every orphaned descendant is re-parented to it and waited for here, so the
sum of the rusage of what it reaps is every process's CPU.  It prints one
JSON line: ``cpu`` (user + system seconds), ``wall``, ``rc``.

    python tests/cpu_meter.py -- .venv/bin/pytest tests/history/test_suite.py -p no:xdist
    python tests/cpu_meter.py --unit 'README.md#using-it'     # one xdist unit (tests/units.py)

Linux only; a measuring tool, not a test.
"""

from __future__ import annotations

import argparse
import ctypes
import json
import os
import subprocess
import sys
import time
from pathlib import Path

_PR_SET_CHILD_SUBREAPER = 36


def measure(argv: list[str]) -> dict[str, float | int | None]:
    """Run ``argv`` and wait for it and every process it left behind; their CPU and wall."""
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_CHILD_SUBREAPER)")
    started = time.perf_counter()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child becomes the command
        try:
            os.execvp(argv[0], argv)
        finally:
            os._exit(127)
    cpu, rc = 0.0, None
    while True:
        try:
            done, status, usage = os.wait4(-1, 0)
        except ChildProcessError:
            break
        cpu += usage.ru_utime + usage.ru_stime
        if done == pid:
            rc = os.waitstatus_to_exitcode(status)
    return {"cpu": round(cpu, 2), "wall": round(time.perf_counter() - started, 2), "rc": rc}


def unit_ids(name: str, python: str) -> list[str]:
    """The node ids of the xdist unit ``name`` (:func:`tests.units.unit`)."""
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # run as a script
    from tests.units import unit

    listed = subprocess.run(
        [python, "-m", "pytest", "--collect-only", "-p", "no:xdist", "-p", "no:cacheprovider"],
        capture_output=True,
        text=True,
        check=False,
    ).stdout.splitlines()
    return [line for line in listed if "::" in line and unit(line) == name]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--unit", help="an xdist unit's name, run in one pytest process")
    parser.add_argument("command", nargs="*", help="the command (after --)")
    args = parser.parse_args()
    python = sys.executable
    if args.unit:
        ids = unit_ids(args.unit, python)
        if not ids:
            sys.exit(f"--unit {args.unit}: no such unit")
        argv = [python, "-m", "pytest", "-q", "-p", "no:xdist", "-p", "no:cacheprovider", *ids]
    elif args.command:
        argv = args.command
    else:
        sys.exit("give a command after --, or --unit NAME")
    result = measure(argv)
    print(json.dumps({**result, "unit": args.unit} if args.unit else result))


if __name__ == "__main__":
    main()
