"""Running a study: chunks to an executor, results committed in order, resumable.

Chunks are submitted point by point in rounds (chunk 0 of every point, then
chunk 1, …), at most ``2 × jobs`` at a time. Results arrive in any order; a
point's chunks are committed in chunk order, later ones waiting in memory.
Committing a chunk counts it (for ``--until-ci``) and writes its kept
replays; its rows wait for the next **commit point** — at most about once a
second (:data:`COMMIT_SECONDS`), and only once the runs waiting cost their
workers 500 times what the cheapest commit point cost (:mod:`sim.batch.storage.commits`),
or as soon as :data:`COMMIT_RUNS` runs wait — when every chunk committed since
goes to DuckDB in one transaction of one INSERT a table and ``progress.json``
is rewritten. A pool's workers send their rows as Arrow record batches
(:mod:`sim.batch.execution.columnar`); chunks fought in this process
(``--jobs 1``) keep them as Python columns. The study's own work per run is
thus a share of a list append and of one bulk insert, so it keeps up with
many workers. So the committed
runs of a point are always a prefix of its chunks, and ``--until-ci W`` —
decided once a point's pilot chunks are committed (:mod:`sim.batch.planning.stopping`:
the pilot sizes a confirmatory sample) — stops a point after the same chunk
whatever the number of workers or their speed; chunks of a stopped point
still in flight are dropped. ``--resume`` reads what was
committed, replays the stopping rule over it and runs only what is missing.
"""

from __future__ import annotations

import contextlib
import json
import math
import re
from collections.abc import Callable, Iterator
from concurrent.futures import FIRST_COMPLETED, Executor, Future, wait
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from engine.safety.atomic import atomic_write_text
from sim.batch.analysis.summary import summarize
from sim.batch.execution.executors import (
    POLL_SECONDS,
    InlineExecutor,
    lost,
    may_be_lost,
    open_executor,
)
from sim.batch.execution.rows import ChunkRows
from sim.batch.execution.worker import Chunk, RunSpec, Shared, run_chunk, study_chunk
from sim.batch.inputs.guard import FolderError, claim_folder
from sim.batch.methods.differences import PAIRED, PAIRED_DEFAULT, Paired
from sim.batch.methods.stats import METHODS
from sim.batch.planning.plan import StudyPlan
from sim.batch.planning.stopping import confirm_runs, pilot_runs
from sim.batch.storage.commits import CommitPoints
from sim.batch.storage.duck import duckdb
from sim.batch.storage.manifest import write_manifest
from sim.batch.storage.opening import DB_NAME, StudyError, fresh_points, open_store
from sim.batch.storage.store import Store
from sim.batch.verification.replays import write_replays
from sim.scenario.values import ValueProblem, whole

__all__ = [
    "COMMIT_RUNS",
    "COMMIT_SECONDS",
    "DB_NAME",
    "RunOptions",
    "StudyError",
    "StudyIncomplete",
    "StudyResult",
    "run_study",
]

COMMIT_SECONDS = 1.0
"""Fewest seconds (monotonic clock) between commit points while chunks come in (more
pass when the work done since is light: see :mod:`sim.batch.storage.commits`).

The clock decides only when rows reach the database, never what they hold
or how they are read back (always ordered by their keys)."""

COMMIT_RUNS = 5000
"""Runs that make a commit point however soon: bounds the rows held in memory."""

Progress = Callable[[int, int], None]
"""Called with (runs committed, runs planned) after each commit point and when a point stops."""


class StudyIncomplete(RuntimeError):
    """A study stopped before its end (a worker was lost); ``--resume`` completes it."""


@dataclass(frozen=True)
class RunOptions:
    """How to run a study; none of it changes the results."""

    jobs: int = 1
    executor: Literal["local", "dask"] = "local"
    scheduler: str | None = None
    resume: bool = False
    progress: Progress | None = None
    fought: Progress | None = None
    """For a display: called with (runs fought, runs planned) as each chunk comes in, its
    rows perhaps still waiting for the next commit point (``progress`` counts only what
    is committed, and moves at commit points)."""
    note: Callable[[str], None] | None = None
    """Told, in a sentence, what the study did besides fighting (files it removed)."""
    plots: bool = True
    baseline: int = 0
    """The design point every other is compared with (summary only)."""
    interval: str = "wilson"
    """The win and draw rates' 95 % interval (summary only).

    One of :data:`sim.batch.methods.stats.METHODS`."""
    paired_interval: Paired = PAIRED_DEFAULT
    """A paired (CRN) win-rate difference's 95 % interval (summary only)."""
    commit_seconds: float | None = None
    """Fewest seconds between commit points (None: :data:`COMMIT_SECONDS`; 0: after each chunk)."""
    commit_runs: int | None = None
    """Runs waiting that make a commit point (None: :data:`COMMIT_RUNS`)."""

    def __post_init__(self) -> None:
        """Each setting checked as the command line checks it, before any run is fought:
        an unknown executor or interval is refused here, not after the study's last run."""
        jobs = whole(self.jobs)
        if jobs is None or jobs < 1:
            raise ValueProblem(f"RunOptions jobs: {self.jobs!r} is not a whole number from 1")
        object.__setattr__(self, "jobs", jobs)
        choices: tuple[tuple[str, object, tuple[str, ...]], ...] = (
            ("executor", self.executor, ("local", "dask")),
            ("interval", self.interval, METHODS),
            ("paired_interval", self.paired_interval, PAIRED),
        )
        for name, value, known in choices:
            if value not in known:
                raise ValueProblem(f"RunOptions {name}: {value!r} is not one of {', '.join(known)}")
        baseline = whole(self.baseline)
        if baseline is None or baseline < 0:
            raise ValueProblem(
                f"RunOptions baseline: {self.baseline!r} is not a whole number from 0"
            )
        object.__setattr__(self, "baseline", baseline)
        runs = self.commit_runs
        if runs is not None and (whole(runs) is None or runs < 1):
            raise ValueProblem(f"RunOptions commit_runs: {runs!r} is not a whole number from 1")
        seconds = self.commit_seconds
        if seconds is not None and (
            isinstance(seconds, bool)
            or not isinstance(seconds, (int, float))
            or not seconds >= 0  # nan is not; inf is "never by the clock"
        ):
            raise ValueProblem(
                f"RunOptions commit_seconds: {seconds!r} is not a number of seconds from 0"
            )


@dataclass(frozen=True)
class StudyResult:
    """A finished study: where it is and its summary."""

    out: Path
    summary: dict[str, Any]
    committed: int
    ran: int
    """Runs fought by this invocation (less than ``committed`` after a resume)."""


@dataclass
class _Point:
    """Scheduling state of one design point."""

    index: int
    values: dict[str, Any]
    chunks: int
    next_commit: int = 0
    stopped: bool = False
    done: int = 0
    runs: int = 0
    wins: dict[str, int] = field(default_factory=dict)
    complete: dict[int, dict[str | None, int]] = field(default_factory=dict)
    partial: dict[int, dict[str | None, int]] = field(default_factory=dict)
    """Chunks stored in part (only if rows were deleted by hand): their stored counts."""
    buffered: dict[int, ChunkRows] = field(default_factory=dict)
    last: int | None = None
    """With ``--until-ci``: the chunks the point runs in all, once its pilot has sized it."""
    capped: bool = False
    """The confirmatory sample the pilot asked for was cut to ``--runs``."""

    def absorb(self, counts: dict[str | None, int]) -> None:
        for winner, n in counts.items():
            self.runs += n
            if winner is not None:
                self.done += n
                self.wins[winner] = self.wins.get(winner, 0) + n


class _Runner:
    """The study loop: submit chunks, commit them in order per point, stop points early."""

    def __init__(self, plan: StudyPlan, store: Store, out: Path, options: RunOptions) -> None:
        self.plan = plan
        self.store = store
        self.out = out
        self.options = options
        self.sides = [side[0] for side in store.meta()["sides"]]
        self.points = [_Point(i, v, plan.chunks()) for i, v in enumerate(store.points())]
        self.committed = 0 if store.created else store.count()
        self.ran = 0
        self.arrived = 0
        """Runs of the chunks taken in by this invocation (committed or waiting to be)."""
        self._planned: int | None = None
        """:meth:`planned` as last computed, for ``fought`` (a walk over every point)."""
        losses = tuple((side, kind) for side, kind, _ in store.losses)
        sides = tuple(side for side, _ in store.draws)
        self.shared = Shared.of(plan.target, losses, sides)
        self.commits = CommitPoints(
            store,
            COMMIT_SECONDS if options.commit_seconds is None else options.commit_seconds,
            COMMIT_RUNS if options.commit_runs is None else options.commit_runs,
        )
        stored = {} if store.created else store.chunk_counts(plan.chunk_size)
        for (p, j), counts in stored.items():
            expected = len(plan.chunk_runs(p, j))
            if sum(counts.values()) == expected:
                self.points[p].complete[j] = counts
            else:
                self.points[p].partial[j] = counts
        for pt in self.points:
            self._advance(pt)

    # ------------------------------------------------------------ the stopping rule

    def _sized(self, pt: _Point) -> None:
        """Once the pilot's chunks are in: the chunks the point runs (pilot and confirmation)."""
        w, chunk, runs = self.plan.until_ci, self.plan.chunk_size, self.plan.replications
        if w is None or pt.last is not None or pt.next_commit * chunk < pilot_runs(w, runs, chunk):
            return
        wins = [pt.wins.get(s, 0) for s in self.sides]
        extra, pt.capped = confirm_runs(wins, pt.done, w, runs, chunk)
        pt.last = math.ceil((pilot_runs(w, runs, chunk) + extra) / chunk)

    def _satisfied(self, pt: _Point) -> bool:
        """The point has run every chunk its pilot asked for."""
        self._sized(pt)
        return pt.last is not None and pt.next_commit >= pt.last

    def _advance(self, pt: _Point) -> None:
        """Commit (or absorb, if already stored) this point's chunks that are next in order."""
        while not pt.stopped and pt.next_commit < pt.chunks:
            j = pt.next_commit
            if j in pt.complete:
                pt.absorb(pt.complete.pop(j))
            elif j in pt.buffered:
                self._commit(pt, pt.buffered.pop(j))
                pt.absorb(pt.partial.pop(j, {}))
            else:
                return
            pt.next_commit += 1
            if self._satisfied(pt):
                pt.stopped = True
                pt.buffered.clear()
                self._report()  # the point's remaining runs leave the plan

    def _commit(self, pt: _Point, rows: ChunkRows) -> None:
        """Commit a chunk: count it, write its kept replays, keep its rows for the commit point."""
        write_replays(self.out, self.plan.target, rows.replays)
        self.commits.add(rows)
        pt.absorb(rows.counts)
        if self.commits.due():
            self._write()

    def _write(self) -> None:
        """A commit point: the waiting chunks to DuckDB, then progress.json."""
        written = self.commits.write()
        if written:
            self.committed += written
            self.ran += written
            self._report()

    def planned(self) -> int:
        """Runs the study will have: committed, plus the rest of each unstopped point."""
        total = 0
        for pt in self.points:
            end = self.plan.replications if pt.last is None else pt.last * self.plan.chunk_size
            rest = 0 if pt.stopped else max(0, min(end, self.plan.replications) - pt.runs)
            total += pt.runs + rest
        return total

    def _report(self, finished: bool = False) -> None:
        planned = self.planned()
        state: dict[str, Any] = {"committed": self.committed, "planned": planned}
        if finished:
            state["finished"] = True
            state["stopped"] = {
                str(pt.index): "ci" if pt.last is not None and not pt.capped else "runs"
                for pt in self.points
            }
        atomic_write_text(self.out / "progress.json", json.dumps(state) + "\n")
        if self.options.progress is not None:
            self.options.progress(self.committed, planned)

    # ------------------------------------------------------------ scheduling

    def _pending(self) -> Iterator[Chunk]:
        """Chunks still to run, in rounds across points; skips stopped points as they stop."""
        for j in range(self.plan.chunks()):
            for pt in self.points:
                if pt.stopped or j < pt.next_commit or j in pt.complete:
                    continue
                runs = self.plan.chunk_runs(pt.index, j)
                if j in pt.partial:
                    have = self.store.run_ids(*_span(runs))
                    runs = [r for r in runs if r.run_id not in have]
                yield Chunk(self.shared, pt.index, pt.values, tuple(runs))

    def _arrived(self, chunk: Chunk, rows: ChunkRows) -> None:
        pt = self.points[chunk.point]
        if not pt.stopped:
            pt.buffered[chunk.runs[0].replication // self.plan.chunk_size] = rows
            before = (pt.stopped, pt.last)
            self._advance(pt)
            if self.options.fought is not None:
                self.arrived += len(chunk.runs)
                if self._planned is None or (pt.stopped, pt.last) != before:
                    self._planned = self.planned()  # only a point's stop or size moves it
                done = self.committed - self.ran + self.arrived
                self.options.fought(min(done, self._planned), self._planned)

    def run(self, executor: Executor) -> None:
        """Run every pending chunk on ``executor``; committed chunks are written even on failure."""
        try:
            self._loop(executor)
        except BaseException:
            with contextlib.suppress(Exception):  # the first error is the one to report
                self._write()
            raise
        self._write()
        self._report(finished=True)

    def _loop(self, executor: Executor) -> None:
        window = 2 * max(1, self.options.jobs)
        # Rows fought in this process need no transport: packing them would cost more
        # than the Arrow append saves (sim.batch.execution.columnar).
        work = run_chunk if isinstance(executor, InlineExecutor) else study_chunk
        pending = self._pending()
        inflight: dict[Future[ChunkRows], Chunk] = {}
        first = True
        polled = may_be_lost(executor)  # Dask: its futures never end if it is lost
        while True:
            while len(inflight) < window:
                chunk = next(pending, None)
                if chunk is None:
                    break
                try:
                    inflight[executor.submit(work, chunk)] = chunk
                except Exception as exc:  # a Dask client closed when its scheduler went
                    raise self._incomplete(inflight, f"could not send work ({_said(exc)})") from exc
            if first:  # the progress clock starts once the workers are busy
                self._report()
                first = False
            if not inflight:
                return
            finished = self._wait(executor, inflight, polled)
            if self.commits.due():  # no chunk came in time: the waiting ones are due
                self._write()
            for future in sorted(finished, key=lambda f: inflight[f].runs[0].run_id):
                chunk = inflight.pop(future)
                if not future.cancelled():
                    self._arrived(chunk, self._result(future, inflight))
                elif not self.points[chunk.point].stopped:
                    # the study cancels only a stopped point's chunks: this one its executor
                    # cancelled (a Dask client cancels every future the moment it loses its
                    # scheduler), and its runs were never fought; dropping it ended the
                    # study "complete", exit 0, or left a hole when the client reconnected
                    inflight[future] = chunk  # cancelled with the rest, counted as not run
                    raise self._incomplete(inflight, lost(executor) or _cancelled(executor))
            for future, chunk in inflight.items():
                if self.points[chunk.point].stopped:
                    future.cancel()  # its results would be dropped anyway

    def _wait(
        self, executor: Executor, inflight: dict[Future[ChunkRows], Chunk], polled: bool
    ) -> set[Future[ChunkRows]]:
        """The chunks that came in by the next commit point; on Dask, asked every
        :data:`POLL_SECONDS` whether the scheduler is still there (its futures never end
        once it is gone: a study waited for ever).

        Raises:
            StudyIncomplete: the scheduler was lost.
        """
        left = self.commits.left()
        if polled:
            left = POLL_SECONDS if left is None else min(left, POLL_SECONDS)
        finished, _ = wait(inflight, left, FIRST_COMPLETED)
        why = lost(executor) if polled and not finished else None
        if why is not None:
            raise self._incomplete(inflight, why)
        return finished

    def _result(
        self, future: Future[ChunkRows], inflight: dict[Future[ChunkRows], Chunk]
    ) -> ChunkRows:
        """A chunk's rows; a lost worker ends the study, keeping what was committed."""
        try:
            return future.result()
        except Exception as exc:
            raise self._incomplete(inflight, f"a worker failed ({_said(exc)})") from exc

    def _incomplete(self, inflight: dict[Future[ChunkRows], Chunk], why: str) -> StudyIncomplete:
        """The study stopped for ``why``: the other chunks cancelled, what was committed
        kept, and the error that says to resume."""
        for other in inflight:
            with contextlib.suppress(Exception):  # a closed client's futures may refuse it
                other.cancel()
        self._write()
        if self.committed == 0:  # worded as an interrupt before any commit (cli.outcomes.batch)
            return StudyIncomplete(
                f"{why} before any chunk was committed: no run is kept — run the same command "
                "with --resume to start the study"
            )
        kept = (
            "the run committed is kept"
            if self.committed == 1
            else f"the {self.committed} runs committed are kept"
        )
        return StudyIncomplete(f"{why}; {kept}: run the same command with --resume")


def _cancelled(executor: Executor) -> str:
    """Why a chunk the study did not cancel came back cancelled."""
    if may_be_lost(executor):
        return "the connection to the Dask scheduler was lost (the chunks in flight were cancelled)"
    return "the executor cancelled a chunk"


def _said(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}"


def _span(runs: list[RunSpec]) -> tuple[int, int]:
    return runs[0].run_id, runs[-1].run_id + 1


def run_study(plan: StudyPlan, out: str | Path, options: RunOptions | None = None) -> StudyResult:
    """Run (or with ``options.resume`` complete) a study into directory ``out``.

    ``out`` is locked for the whole study, and a new study is refused in a
    folder holding files no study made (:mod:`sim.batch.inputs.guard`).

    Raises:
        StudyError: as :func:`_run_study`, or the folder cannot be claimed.
    """
    options = options or RunOptions()
    try:
        with claim_folder(Path(out), DB_NAME, options.resume):
            return _run_study(plan, out, options)
    except FolderError as exc:  # only the claim raises it
        raise StudyError(str(exc)) from None
    except duckdb.Error as exc:  # a full disk, a damaged database: name the file
        detail = (str(exc).splitlines() or [type(exc).__name__])[0]
        raise StudyError(f"{Path(out) / DB_NAME}: {detail}") from None


STALE = ("export", "plots/discover.png", "manifest.json")
"""What commands after a study write into its folder (``export``, ``discover``, the
manifest they update), drawn from the runs committed then: a ``--resume`` that fights
more removes them before it starts, so no export of an incomplete study is left beside
the complete one, and no manifest vouches for it."""


_EXPORTED = re.compile(
    r"\.?(study|points|runs|unit_finals|runs_wide)\.(csv|parquet)(\.\d+\.[^./]+\.tmp)?"
)
"""The names ``export`` writes in a study's ``export/`` (and the hidden temporary names it
writes them under, :func:`engine.safety.atomic.replacing`'s); nothing else there is
battlesim's."""


def _drop_stale(out: Path, note: Callable[[str], None] | None) -> None:
    """Remove :data:`STALE` from the study folder ``out`` (in ``export/`` only the files
    ``export`` writes, and the folder once they leave it empty; links as links, never
    followed), and say which. A file of the user's in ``export/`` is left (every file
    there was removed, whatever its name)."""
    removed: list[str] = []
    for name in STALE:
        path = out / name
        if path.is_dir() and not path.is_symlink():
            for item in sorted(path.iterdir()):
                if (item.is_file() or item.is_symlink()) and _EXPORTED.fullmatch(item.name):
                    item.unlink()
                    removed.append(f"{name}/{item.name}")
            with contextlib.suppress(OSError):  # not empty: a folder of the user's inside
                path.rmdir()
        elif path.is_file() or path.is_symlink():
            path.unlink()
            removed.append(name)
    if removed and note is not None:
        more = f" and {len(removed) - 4} more" if len(removed) > 4 else ""
        shown = ", ".join(removed[:4]) + more
        note(
            f"removed what was made from the incomplete study ({shown}): export or discover "
            "again once it is complete"
        )


_DRAWN = re.compile(
    r"(outcomes|losses|convergence|paired|sensitivity|sensitivity_convergence|win_vs_.+)\.png"
)
"""The names of the plots a study draws itself in its ``plots/`` (never ``discover.png``,
which ``discover`` draws from the runs alone)."""


def _drop_undrawn(
    plots: Path, drawn: list[Path], drawing: bool, note: Callable[[str], None] | None
) -> None:
    """Remove from ``plots`` (a real folder: a link is never followed) the plots an
    earlier invocation of the study drew that this one did not — every one with
    ``--no-plots`` — and say which. They were drawn from the ``summary.json`` this one has
    just written again (perhaps with another ``--baseline`` or ``--interval``): left, they
    would contradict it, and the manifest would vouch for them. Without ``drawing``, a
    ``plots/`` left empty goes too, as an uninterrupted study with ``--no-plots`` has none."""
    if plots.is_symlink() or not plots.is_dir():
        return
    kept = {path.name for path in drawn}
    removed: list[str] = []
    for item in sorted(plots.iterdir()):
        if (
            item.name not in kept
            and _DRAWN.fullmatch(item.name)
            and (item.is_symlink() or item.is_file())
        ):
            item.unlink()
            removed.append(f"plots/{item.name}")
    if not drawing:
        with contextlib.suppress(OSError):  # not empty: discover.png, a file of the user's
            plots.rmdir()
    if removed and note is not None:
        more = f" and {len(removed) - 4} more" if len(removed) > 4 else ""
        shown = ", ".join(removed[:4]) + more
        why = (
            "the new one draws none of them"
            if drawing
            else "plots are off (--no-plots), so none is drawn from the new one; resume with "
            "plots on to draw them"
        )
        note(f"removed the plots drawn from the earlier summary.json ({shown}): {why}")


def _run_study(plan: StudyPlan, out: str | Path, options: RunOptions | None = None) -> StudyResult:
    """Run (or with ``options.resume`` complete) a study into directory ``out``.

    Writes ``out/study.duckdb``, ``out/summary.json``, ``out/plots/*.png`` and
    the kept replays in ``out/replays/``.

    Raises:
        StudyError: the plan cannot run, or ``out`` holds another study.
        StudyIncomplete: a worker was lost; what was committed is kept.
        ExecutorError: the executor cannot start.
    """
    options = options or RunOptions()
    out = Path(out)
    plots = out / "plots"
    if options.plots and (plots.is_symlink() or (plots.exists() and not plots.is_dir())):
        # refused when the plots are drawn, after the last run: say so before the first
        what = "a symbolic link" if plots.is_symlink() else "a file"
        raise StudyError(
            f"{str(plots)!r} is {what}, not the study's folder of plots: remove it "
            "(or add --no-plots)"
        )
    points = None if options.resume else fresh_points(plan, out)
    count = len(points if points is not None else plan.design_points())
    if not 0 <= options.baseline < count:
        has = "one point, 0" if count == 1 else f"points 0 to {count - 1:,}"
        raise StudyError(f"--baseline {options.baseline}: the design has {has}")
    # The executor first: a scheduler that cannot be reached leaves no study behind.
    store: Store | None = None
    try:
        with open_executor(options.executor, options.jobs, options.scheduler) as executor:
            store = open_store(plan, out, points)
            runner = _Runner(plan, store, out, options)
            if options.resume and runner.committed < runner.planned():
                _drop_stale(out, options.note)
            runner.run(executor)
    except BaseException:  # Ctrl-C as the pool shuts down too: the store is closed, so
        if store is not None:  # what was committed can be read (and counted) at once
            store.close()
        raise
    try:
        store.unlimit()
        summary = summarize(store, options.baseline, options.interval, options.paired_interval)
        atomic_write_text(out / "summary.json", json.dumps(summary, indent=2) + "\n")
        drawn: list[Path] = []
        if options.plots:
            # matplotlib only when plots are drawn: half a second of start-up saved otherwise
            from sim.batch.charts.results import write_plots  # noqa: PLC0415

            drawn = write_plots(store, summary, plots)
        _drop_undrawn(plots, drawn, options.plots, options.note)
        # last: it lists summary.json and the plots drawn now, no other file in plots/
        write_manifest(out, store, [f"plots/{path.name}" for path in drawn])
        return StudyResult(out, summary, runner.committed, runner.ran)
    finally:
        store.close()
