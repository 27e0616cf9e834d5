"""CPU accounting of a study, for the batch benchmark: where a study's CPU goes.

CPU seconds, not wall seconds: a loaded machine stretches wall time (and
shifts it from one repetition to the next) but barely the CPU a piece of
work takes, so these figures hold on a shared machine.

:func:`accounting` patches the study machinery for the time of a ``with``
block and fills a :class:`StudyCpu`:

* ``loop``: this process's CPU inside the study's run loop (``_Runner.run``:
  submitting, fighting inline with ``--jobs 1``, collecting, committing,
  progress) — the study without its fixed costs (creating the database,
  the summary);
* ``battles``: with ``--jobs 1``, the CPU of the battles themselves fought
  inside that loop (``sim.batch.execution.worker.fight``: header, simulate, outcome,
  what a plain loop does), measured at the same moments as the rest, so
  ``loop / battles - 1`` is the machinery's share with the load cancelled;
* ``workers``: with a process pool, the CPU of its worker processes (read
  from ``/proc/<pid>/stat`` before the pool is shut down; Linux only, else
  the sum of the chunks' own CPU the rows carry).
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Callable, Iterator
from concurrent.futures import Executor, ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sim.batch import study
from sim.batch.execution import worker
from sim.batch.storage import store

__all__ = ["StudyCpu", "accounting", "process_cpu"]


@dataclass
class StudyCpu:
    """CPU seconds of one study's parts (see the module docstring)."""

    loop: float = 0.0
    battles: float = 0.0
    workers: float = 0.0
    chunks: float = 0.0
    """The CPU the chunks' rows say their workers spent (``ChunkRows.cpu``)."""
    fights: int = 0
    unit_rows: float = 0.0
    """With ``--jobs 1``: the unit finals (``ruleset.units`` and their columns)."""
    run_rows: float = 0.0
    """With ``--jobs 1``: the runs' rows (outcome JSON, loss columns)."""
    commits: float = 0.0
    """DuckDB at commit points (``Store.commit``)."""


def process_cpu(pid: int) -> float | None:
    """User + system CPU seconds of process ``pid`` so far, or None off Linux."""
    stat = Path(f"/proc/{pid}/stat")
    if not stat.exists():
        return None
    fields = stat.read_text().rsplit(")", 1)[1].split()
    ticks = os.sysconf("SC_CLK_TCK")
    return (int(fields[11]) + int(fields[12])) / ticks  # utime, stime (fields 14, 15)


def _pool_cpu(executor: Executor) -> float | None:
    if not isinstance(executor, ProcessPoolExecutor):
        return None
    found = [process_cpu(p) for p in list(getattr(executor, "_processes", {}) or {})]
    return None if not found or None in found else sum(f for f in found if f is not None)


@contextlib.contextmanager
def accounting() -> Iterator[StudyCpu]:
    """Patch the study machinery to fill a :class:`StudyCpu` for the studies run inside."""
    cpu = StudyCpu()
    fight, run, arrived = worker.fight, study._Runner.run, study._Runner._arrived
    opener = study.open_executor

    def timed_fight(*args: Any, **kwargs: Any) -> Any:
        start = time.process_time()
        try:
            return fight(*args, **kwargs)
        finally:
            cpu.battles += time.process_time() - start
            cpu.fights += 1

    def timed_run(self: Any, executor: Executor) -> None:
        start = time.process_time()
        try:
            run(self, executor)
        finally:
            cpu.loop += time.process_time() - start

    def counted_arrived(self: Any, chunk: Any, rows: Any) -> None:
        cpu.chunks += rows.cpu
        arrived(self, chunk, rows)

    @contextlib.contextmanager
    def counting(*args: Any, **kwargs: Any) -> Iterator[Executor]:
        with opener(*args, **kwargs) as executor:
            try:
                yield executor
            finally:  # before the pool shuts down: its workers are still there
                found = _pool_cpu(executor)
                cpu.workers += cpu.chunks if found is None else found

    def timing(owner: Any, name: str, into: str) -> tuple[Any, str, Callable[..., Any]]:
        real = getattr(owner, name)

        def timed_part(*args: Any, **kwargs: Any) -> Any:
            start = time.process_time()
            try:
                return real(*args, **kwargs)
            finally:
                setattr(cpu, into, getattr(cpu, into) + time.process_time() - start)

        return owner, name, timed_part

    patches: list[tuple[Any, str, Callable[..., Any]]] = [
        timing(worker, "unit_finals", "unit_rows"),
        timing(worker, "run_row", "run_rows"),
        timing(store.Store, "commit", "commits"),
        (worker, "fight", timed_fight),
        (study._Runner, "run", timed_run),
        (study._Runner, "_arrived", counted_arrived),
        (study, "open_executor", counting),
    ]
    saved = [(owner, name, getattr(owner, name)) for owner, name, _ in patches]
    try:
        for owner, name, new in patches:
            setattr(owner, name, new)
        yield cpu
    finally:
        for owner, name, old in saved:
            setattr(owner, name, old)
