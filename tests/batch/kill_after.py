"""Run the battlesim CLI and SIGKILL this very process right after its N-th committed chunk.

Each chunk is its own commit point here (``COMMIT_SECONDS`` 0), so N commits are N chunks.

``python -m tests.batch.kill_after N PIDS battlesim-args...``: the kill happens at
a count of committed work, not after a delay, so the test that uses it is
deterministic under any load.  The workers are left to notice their parent
is gone, as they must after a real SIGKILL; their pids are written to the
file PIDS first, one a line, so the test can check that none outlives it.

``interrupt:N`` instead of ``N`` sends SIGINT (a Ctrl-C) instead: right after the N-th
commit, or with ``interrupt:0`` as the first chunk arrives, before anything is committed.
``interrupt-group:N`` sends it to this process's whole process group, as a terminal's
Ctrl-C does (start the command in a session of its own): a local Dask cluster's
processes get it too, and a local pool's workers.

``interrupt-in-duckdb:N:KIND`` interrupts the commit after the N-th as DuckDB reports a
Ctrl-C that comes while it runs a statement: the interrupt is taken, and an error of the
library's raised instead (KIND: ``interrupt``, ``InterruptException``; ``runtime``, a
``RuntimeError`` "Query interrupted"; ``transaction``, the "transaction is aborted" error of
the statement after one it interrupted).
"""

from __future__ import annotations

import os
import signal
import sys
import time
from pathlib import Path
from typing import Any

import duckdb

from sim.batch import study
from sim.batch.execution.rows import ChunkRows
from sim.batch.storage.store import Store
from sim.cli import cli


def descendants(pid: int) -> set[int]:
    """Processes below ``pid`` (from /proc)."""
    children: dict[int, list[int]] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        children.setdefault(int(fields[1]), []).append(int(stat.parent.name))
    found: set[int] = set()
    todo = [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.add(child)
            todo.append(child)
    return found


def _arm_interrupt(after: int, group: bool = False) -> None:
    # a Ctrl-C at a terminal: Python's own handler, as at any start where SIGINT is not
    # ignored (a shell's `cmd &` starts its children with SIGINT ignored, and they inherit it)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    study.COMMIT_SECONDS = 0.0
    commit = Store.commit
    done = 0

    def commit_then_maybe_interrupt(self: Store, records: ChunkRows, *digests: Any) -> None:
        nonlocal done
        if after == 0:
            os.kill(os.getpid(), signal.SIGINT)  # Ctrl-C before the first commit
        commit(self, records, *digests)
        done += 1
        if done == after:
            if group:
                os.killpg(os.getpgid(0), signal.SIGINT)
            else:
                os.kill(os.getpid(), signal.SIGINT)

    Store.commit = commit_then_maybe_interrupt  # type: ignore[method-assign,assignment]


LIBRARY_ERRORS: dict[str, BaseException] = {
    "interrupt": duckdb.InterruptException("INTERRUPT Error: Interrupted!"),
    "runtime": RuntimeError("Query interrupted"),
    "transaction": duckdb.TransactionException(
        "TransactionContext Error: Current transaction is aborted (please ROLLBACK)"
    ),
}


def _arm_library_interrupt(after: int, kind: str) -> None:
    signal.signal(signal.SIGINT, signal.default_int_handler)  # as _arm_interrupt says
    study.COMMIT_SECONDS = 0.0
    commit = Store.commit
    done = 0

    def commit_interrupted_inside(self: Store, records: ChunkRows, *digests: Any) -> None:
        nonlocal done
        done += 1
        if done == after + 1:
            try:
                os.kill(os.getpid(), signal.SIGINT)
                time.sleep(10)  # the handler runs at once: an interrupted sleep
            except KeyboardInterrupt:
                raise LIBRARY_ERRORS[kind] from None
        commit(self, records, *digests)

    Store.commit = commit_interrupted_inside  # type: ignore[method-assign,assignment]


def _arm(after: int, pids: Path) -> None:
    study.COMMIT_SECONDS = 0.0  # a commit point after every chunk: N commits are N chunks
    commit = Store.commit
    done = 0

    def commit_then_maybe_die(self: Store, records: ChunkRows, *digests: Any) -> None:
        nonlocal done
        commit(self, records, *digests)
        done += 1
        if done == after:
            pids.write_text("".join(f"{p}\n" for p in sorted(descendants(os.getpid()))))
            os.kill(os.getpid(), signal.SIGKILL)

    Store.commit = commit_then_maybe_die  # type: ignore[method-assign,assignment]


if __name__ == "__main__":
    if sys.argv[1].startswith("interrupt-in-duckdb:"):
        count, kind = sys.argv[1].removeprefix("interrupt-in-duckdb:").split(":")
        _arm_library_interrupt(int(count), kind)
    elif sys.argv[1].startswith("interrupt-group:"):
        _arm_interrupt(int(sys.argv[1].removeprefix("interrupt-group:")), group=True)
    elif sys.argv[1].startswith("interrupt:"):
        _arm_interrupt(int(sys.argv[1].removeprefix("interrupt:")))
    else:
        _arm(int(sys.argv[1]), Path(sys.argv[2]))
    cli(sys.argv[3:], prog_name="battlesim")
