"""An ideal process pool, for the batch benchmark: TASKS trivial tasks on JOBS processes.

``python benchmarks/ideal_pool.py TASKS JOBS SPIN``: maps ``TASKS`` CPU-bound
tasks of ``SPIN`` loop steps each over a ``ProcessPoolExecutor`` of ``JOBS``
workers started as a study starts its own (``forkserver`` where the platform
has it, else ``spawn``) and discards the results. This script imports nothing
beyond the standard library, so its workers start as cheaply as a pool's can:
what a study adds over it is the study's own doing.
"""

from __future__ import annotations

import multiprocessing
import sys
from concurrent.futures import ProcessPoolExecutor


def spin(n: int) -> int:
    """A trivial CPU-bound task."""
    total = 0
    for i in range(n):
        total += i * i % 7
    return total


def main() -> None:
    tasks, jobs, steps = (int(a) for a in sys.argv[1:4])
    methods = multiprocessing.get_all_start_methods()
    ctx = multiprocessing.get_context("forkserver" if "forkserver" in methods else "spawn")
    with ProcessPoolExecutor(jobs, mp_context=ctx) as pool:
        for _ in pool.map(spin, [steps] * tasks):
            pass


if __name__ == "__main__":
    main()
