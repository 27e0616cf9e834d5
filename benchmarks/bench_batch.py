"""battlesim batch benchmark: throughput, scaling, overhead and memory of studies.

A report, not a pass/fail test. What it measures (see benchmarks/README.md):

1. runs per second of a study of stone_wall.yaml with 1 and 2 local worker
   processes (and a Dask LocalCluster of 2), over the whole study and in its
   steady state (between the first and the last commit), and the 2/1 ratio;
2. per-run overhead of the batch machinery (chunks, outcome records, unit
   finals, DuckDB commits) against the same battles in a plain loop;
3. peak memory (ru_maxrss) of a study of a small fast scenario at 2,000,
   5,000, 20,000 and 50,000 runs, each in a fresh subprocess.

Run ``make bench-batch`` (or ``.venv/bin/python benchmarks/bench_batch.py``),
about 6 minutes on 2 cores; ``--quick`` runs smaller studies (about a minute).
Figures go to stdout and to ``benchmarks/results-batch.json``.
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import json
import math
import os
import pickle
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from concurrent.futures import Executor, Future, ProcessPoolExecutor
from multiprocessing import get_context
from pathlib import Path
from typing import Any

import yaml

from engine import garbage
from sim import api
from sim.batch import RunOptions, StudyPlan, load_target, run_study, study
from sim.batch.execution import columnar
from sim.batch.execution.digests import run_types
from sim.batch.execution.rows import ChunkRows
from sim.batch.execution.worker import (
    DIGEST_TYPES,
    UNIT_TYPES_LIST,
    Chunk,
    NullSink,
    Shared,
    prepare,
    study_chunk,
)

sys.path.insert(0, str(Path(__file__).resolve().parent))
from batch_cpu import StudyCpu, accounting
from common import Child, Timed, fmt_spread, load_line, run_child, timed

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
STONE_WALL = ROOT / "scenarios" / "stone_wall.yaml"
MIB = 1024.0

# A small, fast battle for the memory runs: a regiment charges a regiment, 4 turns.
SMALL: dict[str, Any] = {
    "ruleset": "musket",
    "name": "Two regiments",
    "seed": 1,
    "turns": {"limit": 4},
    "map": {"width": 6, "height": 6},
    "sides": [
        {
            "id": "blue",
            "name": "Blue",
            "retreat": "south",
            "units": [
                {
                    "id": "b1",
                    "name": "1st Blue",
                    "kind": "infantry",
                    "strength": 400,
                    "quality": "C",
                    "weapon": "rifle_musket",
                    "at": [2, 4],
                    "order": {"kind": "charge", "target": "r1"},
                }
            ],
        },
        {
            "id": "red",
            "name": "Red",
            "retreat": "north",
            "units": [
                {
                    "id": "r1",
                    "name": "1st Red",
                    "kind": "infantry",
                    "strength": 400,
                    "quality": "C",
                    "weapon": "rifle_musket",
                    "at": [2, 1],
                }
            ],
        },
    ],
}


class Clock:
    """Progress callback that records when commit points happen (for steady-state rates).

    Each record is (wall clock, this process's CPU clock, runs committed).
    """

    def __init__(self) -> None:
        self.first: tuple[float, float, int] | None = None
        self.last: tuple[float, float, int] | None = None
        self.commits = 0

    def __call__(self, done: int, total: int) -> None:
        now = (time.perf_counter(), time.process_time(), done)
        if done == 0:
            return
        if self.last is None or done > self.last[2]:
            self.commits += 1
        if self.first is None:
            self.first = now
        self.last = now

    def _delta(self) -> tuple[float, float, int] | None:
        if self.first is None or self.last is None or self.last[2] <= self.first[2]:
            return None
        return tuple(b - a for a, b in zip(self.first, self.last, strict=True))  # type: ignore[return-value]

    def steady_rate(self) -> float:
        """Runs per second between the first and the last commit point."""
        d = self._delta()
        return float("nan") if d is None or d[0] <= 0 else d[2] / d[0]

    def steady_cpu_per_run(self) -> float:
        """This process's CPU seconds per run between the first and the last commit point."""
        d = self._delta()
        return float("nan") if d is None else d[1] / d[2]


def study_rate(runs: int, jobs: int, executor: str = "local") -> dict[str, float]:
    """One study of stone_wall.yaml: whole-study and steady-state runs/s, the study
    process's own CPU (with more than one job: the parent's) and its workers' CPU."""
    plan = StudyPlan(load_target(STONE_WALL), seed=99, replications=runs)
    clock = Clock()
    with tempfile.TemporaryDirectory() as tmp, accounting() as acc:
        start, cpu = time.perf_counter(), time.process_time()
        kind: Any = executor
        run_study(
            plan, Path(tmp) / "s", RunOptions(jobs=jobs, executor=kind, progress=clock, plots=False)
        )
        wall, cpu = time.perf_counter() - start, time.process_time() - cpu
    return {
        "wall_s": wall,
        "rate_whole": runs / wall,
        "rate_steady": clock.steady_rate(),
        "parent_cpu_s": cpu,
        "parent_cpu_per_run_steady": clock.steady_cpu_per_run(),
        "commit_points": clock.commits,
        "workers_cpu_s": acc.workers,
        "chunks_cpu_s": acc.chunks,
    }


class LinesBuiltSink:
    """Drops lines the log has built: serialised and hash-chained, then thrown away.

    What a run that keeps no replay cost before the log learnt to skip
    building lines for a :class:`engine.log.DiscardSink`.
    """

    def write(self, line: str) -> None:
        pass

    def flush(self) -> None:
        pass

    def close(self) -> None:
        pass


def plain_loop(runs: int, sink: type[Any] = NullSink, collect: bool = False) -> Timed:
    """CPU and wall time of the same battles as a study's (same seeds), in a bare loop.

    With ``collect``, the loop frees its battles' garbage as every process
    does (the engine's :data:`engine.garbage.PACED`, looked at after every
    run); without, the paced collector is switched off and the loop leaves it
    (about 12 KiB a run of a small battle, see engine/garbage.py).
    """
    plan = StudyPlan(load_target(STONE_WALL), seed=99, replications=runs)
    prepared = prepare(plan.target, {})
    seeds = [plan.run(0, r).seed for r in range(runs)]
    ruleset, scenario = prepared.scenario or (None, None)
    assert ruleset is not None

    def work() -> None:
        for seed in seeds:
            header = api.make_header(ruleset, scenario, seed, source=plan.target.source)
            state = ruleset.simulate(scenario, header, sink())
            ruleset.outcome(scenario, state)

    ratio = garbage.PACED.ratio
    garbage.PACED.ratio = ratio if collect else math.inf
    try:
        return timed(work)[0]
    finally:
        garbage.PACED.ratio = ratio


def batch_inline(runs: int) -> tuple[Timed, StudyCpu]:
    """CPU and wall time of the same battles through a --jobs 1 study here, and its parts."""
    plan = StudyPlan(load_target(STONE_WALL), seed=99, replications=runs)
    with tempfile.TemporaryDirectory() as tmp, accounting() as acc:
        t = timed(lambda: run_study(plan, Path(tmp) / "s", RunOptions(jobs=1, plots=False)))[0]
    return t, acc


def _spin(n: int) -> int:
    """A trivial CPU-bound task: the ideal pool's work item."""
    total = 0
    for i in range(n):
        total += i * i % 7
    return total


def spin_for(battle_cpu: float) -> int:
    """Loop steps of :func:`_spin` that take one battle's CPU, so the ideal pool's tasks
    weigh what the study's do."""
    spin_t = timed(lambda: _spin(200_000))[0].cpu
    return max(1000, int(200_000 * battle_cpu / max(spin_t, 1e-9)))


def ideal_pool(tasks: int, jobs: int, spin: int) -> float:
    """Wall seconds of an ideal process pool: ``tasks`` trivial tasks, results discarded.

    The pool is started inside the timed region, as a study starts its workers.
    """
    start = time.perf_counter()
    with ProcessPoolExecutor(jobs, mp_context=get_context("spawn")) as pool:
        for _ in pool.map(_spin, [spin] * tasks):
            pass
    return time.perf_counter() - start


_CHILD = """
import json, resource, sys, time
from pathlib import Path
from sim.batch import RunOptions, StudyPlan, load_target, run_study
import sim.batch.study, duckdb  # imports done before the baseline is read
runs, jobs, scenario, out = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], Path(sys.argv[4])
plan = StudyPlan(load_target(scenario), seed=5, replications=runs, chunk_size=50)
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
start = time.perf_counter()
result = run_study(plan, out, RunOptions(jobs=jobs, plots=False))
wall = time.perf_counter() - start
status = Path("/proc/self/status").read_text() if Path("/proc/self/status").exists() else ""
hwm = [int(line.split()[1]) for line in status.splitlines() if line.startswith("VmHWM")]
print(json.dumps({
    "runs": result.committed, "wall_s": wall,
    "maxrss_kib_before": before,
    "maxrss_kib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
    "vmhwm_kib": hwm[0] if hwm else None,
    "db_bytes": (out / "study.duckdb").stat().st_size,
}))
"""


def memory_run(runs: int, jobs: int, scenario: Path) -> dict[str, Any]:
    """A study of ``runs`` runs in a fresh subprocess.

    Started through /bin/sh: on Linux ru_maxrss survives execve, so a child
    Python starts directly would report at least this process's peak.
    """
    with tempfile.TemporaryDirectory() as tmp:
        cmd = [sys.executable, "-c", _CHILD, str(runs), str(jobs), str(scenario), f"{tmp}/s"]
        shell = " ".join(f"'{c}'" for c in cmd)
        out = subprocess.run(["/bin/sh", "-c", shell], capture_output=True, text=True, check=True)
        return dict(json.loads(out.stdout.strip().splitlines()[-1]))


def scaling(runs: int, reps: int) -> dict[str, Any]:
    """--jobs 1 and 2 studies and an ideal pool of 1 and 2 processes, interleaved."""
    spin = spin_for(plain_loop(20).cpu / 20)
    print(f"throughput: stone_wall.yaml, {runs} runs a study, {reps} reps", file=sys.stderr)
    rates: dict[str, list[dict[str, float]]] = {"1": [], "2": [], "dask2": []}
    ideal: dict[str, list[float]] = {"1": [], "2": []}
    for rep in range(reps):  # interleaved, order alternating: pairs meet the same load
        order = ("1", "2") if rep % 2 == 0 else ("2", "1")
        for jobs in order:
            fresh_heap()  # as in overhead(): no variant pays for another's garbage
            rates[jobs].append(study_rate(runs, int(jobs)))
            ideal[jobs].append(ideal_pool(runs, int(jobs), spin))
    rates["dask2"].append(study_rate(runs, 2, "dask"))
    speedup = [
        b["rate_whole"] / a["rate_whole"] for a, b in zip(rates["1"], rates["2"], strict=True)
    ]
    ideal_speedup = [a / b for a, b in zip(ideal["1"], ideal["2"], strict=True)]
    share = [s / i for s, i in zip(speedup, ideal_speedup, strict=True)]
    steady = [
        b["rate_steady"] / a["rate_steady"] for a, b in zip(rates["1"], rates["2"], strict=True)
    ]
    return {
        "rates": rates,
        "ideal": ideal,
        "spin": spin,
        "speedup": speedup,
        "ideal_speedup": ideal_speedup,
        "share": share,
        "steady": steady,
    }


def cli_study(runs: int, jobs: int, tree: str | None = None) -> Child:
    """``battlesim batch stone_wall.yaml --runs N --jobs J`` as a user runs it, in a child
    process (of source ``tree`` when given): its wall time and its own CPU (a pool's
    workers are the forkserver's children, not its own: with --jobs 1 this is all)."""
    env = None
    if tree is not None:
        env = dict(os.environ, PYTHONPATH=tree + os.pathsep + os.environ.get("PYTHONPATH", ""))
    with tempfile.TemporaryDirectory() as tmp:
        cmd = [str(Path(sys.executable).parent / "battlesim"), "batch", str(STONE_WALL)]
        cmd += ["--runs", str(runs), "--jobs", str(jobs), "--seed", "99", "--no-plots", "-q"]
        child = run_child([*cmd, "--out", f"{tmp}/s"], env)
    if child.returncode != 0:
        raise RuntimeError(f"battlesim batch failed: {child.stderr}")
    return child


def cli_scaling(runs: int, reps: int, spin: int, before: str | None) -> dict[str, Any]:
    """The CLI's --jobs 1 and 2 studies (and a ``before`` tree's) and an ideal pool's 1 and
    2 processes, each in a child process, interleaved, order alternating."""
    print(f"cli scaling: battlesim batch, {runs} runs, {reps} reps", file=sys.stderr)
    pool = [sys.executable, str(HERE / "ideal_pool.py"), str(runs)]
    steps: list[tuple[str, Callable[[], Child]]] = [
        ("study1", lambda: cli_study(runs, 1)),
        ("study2", lambda: cli_study(runs, 2)),
        ("ideal1", lambda: run_child([*pool, "1", str(spin)])),
        ("ideal2", lambda: run_child([*pool, "2", str(spin)])),
    ]
    battles = [sys.executable, str(HERE / "battle_pool.py"), str(STONE_WALL), str(runs)]
    steps += [
        ("battles1", lambda: run_child([*battles, "1"])),
        ("battles2", lambda: run_child([*battles, "2"])),
    ]
    if before is not None:
        steps += [
            ("before1", lambda: cli_study(runs, 1, before)),
            ("before2", lambda: cli_study(runs, 2, before)),
        ]
    found: dict[str, list[Child]] = {key: [] for key, _ in steps}
    for rep in range(reps):
        for key, work in steps if rep % 2 == 0 else steps[::-1]:
            found[key].append(work())
    return {"children": {k: [vars(c) for c in v] for k, v in found.items()}}


def cli_lines(cli: dict[str, Any], runs: int, reps: int) -> list[str]:
    """The CLI scaling section of the table."""
    ch = cli["children"]

    def speedups(a: str, b: str) -> list[float]:
        return [x["wall"] / y["wall"] for x, y in zip(ch[a], ch[b], strict=True)]

    def cpu(key: str) -> str:
        return fmt_spread([c["cpu"] / runs for c in ch[key]], 3, 1e3)

    ideal = speedups("ideal1", "ideal2")

    def ratio(a: str, b: str) -> list[float]:
        mine, theirs = speedups(a + "1", a + "2"), speedups(b + "1", b + "2")
        return [x / y for x, y in zip(mine, theirs, strict=True)]

    def share(a: str, b: str) -> str:
        return fmt_spread([x / i for x, i in zip(speedups(a, b), ideal, strict=True)], 2)

    lines = [
        f"battlesim batch as a user runs it (child processes, {runs} runs, {reps} interleaved "
        "reps, --no-plots)",
        f"  speedup 2/1    study {fmt_spread(speedups('study1', 'study2'), 2)}, ideal pool "
        f"{fmt_spread(ideal, 2)} (benchmarks/ideal_pool.py: forkserver, same task sizes)",
        f"  batch / ideal  {share('study1', 'study2')}",
        f"  battle pool    2/1 {fmt_spread(speedups('battles1', 'battles2'), 2)} "
        "(benchmarks/battle_pool.py: the same battles, no study, a pool made as a study's)",
        f"  batch / battle pool {fmt_spread(ratio('study', 'battles'), 2)}",
        f"  --jobs 1 CPU   {cpu('study1')} ms/run, start-up, database and summary included",
    ]
    if "before1" in ch:
        lines[2] += f" (before: {share('before1', 'before2')})"
        lines[-1] += f" (before: {cpu('before1')})"
        lines.insert(2, f"  before 2/1     {fmt_spread(speedups('before1', 'before2'), 2)}")
        lines.insert(6, f"  before / battle pool {fmt_spread(ratio('before', 'battles'), 2)}")
    return lines


def coordinator(runs: int, reps: int, before: str | None) -> dict[str, Any]:
    """benchmarks/study_cost.py under this tree (and a ``before`` tree), one repetition a
    child process, trees interleaved and alternating: each child's plain loop and --jobs 1
    study of ``runs`` runs, and the coordinator's CPU in a --jobs 2 study of 4 x as many."""
    trees: list[str | None] = [None] if before is None else [None, before]
    print(f"coordinator: study_cost.py, {runs} runs, {reps} reps, trees {trees}", file=sys.stderr)
    found: dict[str, list[dict[str, Any]]] = {"after": [], "before": []}
    for rep in range(reps):
        for tree in trees if rep % 2 == 0 else trees[::-1]:
            env = dict(os.environ)
            if tree is not None:
                env["PYTHONPATH"] = tree + os.pathsep + env.get("PYTHONPATH", "")
            cmd = [sys.executable, str(HERE / "study_cost.py"), str(runs), "1", str(4 * runs)]
            # in the tree's own folder: a pool's forkserver imports the worker module from its
            # working folder first, whatever PYTHONPATH says
            child = run_child(cmd, env, cwd=tree or ROOT)
            if child.returncode != 0:
                raise RuntimeError(f"study_cost.py failed: {child.stderr}")
            found["after" if tree is None else "before"].append(
                json.loads(child.stdout.strip().splitlines()[-1])
            )
    return found


def coordinator_part(
    results: dict[str, Any], runs: int, reps: int, before: str | None
) -> tuple[tuple[float, float], list[str]]:
    """Run the coordinator part; (CPU, wall) seconds of its single-process work, its lines."""
    found = coordinator(runs, reps, before)
    results["coordinator"] = found
    cpu = wall = 0.0
    for rows in found.values():
        for r in rows:  # the loop and --jobs 1: all their work in the child's one process
            cpu += r["loop"][0]["cpu"] + r["jobs1"][0]["cpu"]
            wall += r["loop"][0]["wall"] + r["jobs1"][0]["wall"]
    return (cpu, wall), coordinator_lines(found, runs, reps)


def coordinator_lines(found: dict[str, Any], runs: int, reps: int) -> list[str]:
    """The coordinator section: issue 32's two study targets, before and after."""

    def figures(key: str) -> dict[str, list[float]]:
        rows = found[key]
        return {
            "over": [100 * (r["jobs1"][0]["cpu"] / r["loop"][0]["cpu"] - 1) for r in rows],
            "whole": [r["jobs2"][0]["cpu"] / r["runs2"] for r in rows],
            "steady": [
                r["jobs2"][0]["steady_per_run"]
                for r in rows
                if r["jobs2"][0]["steady_per_run"] is not None
            ],
            "loop": [r["loop"][0]["cpu"] / runs for r in rows],
        }

    lines = [
        f"study cost (benchmarks/study_cost.py, {runs} runs of stone_wall.yaml, --jobs 2 "
        f"{4 * runs}; {reps} interleaved reps, each in a fresh process; CPU)"
    ]
    for key in ("before", "after"):
        if not found[key]:
            continue
        f = figures(key)
        steady = fmt_spread(f["steady"], 1, 1e6) if f["steady"] else "n/a"
        lines += [
            f"  {key:6s} plain loop {fmt_spread(f['loop'], 3, 1e3)} ms/run; --jobs 1 study / "
            f"plain loop - 1 = {fmt_spread(f['over'], 1)} % (target <= 10)",
            f"         --jobs 2 coordinator CPU per committed run: whole study "
            f"{fmt_spread(f['whole'], 1, 1e6)} us, between commit points {steady} us "
            "(target <= 150)",
        ]
    return lines


def fresh_heap() -> None:
    """Collect the heap and restart the paced collector's count from here.

    Each variant then starts from the same heap, and the engine's paced full
    collection (about every 5 s of CPU, tens of ms each: engine/garbage.py)
    does not fall into one variant and not the other by chance: in a variant
    shorter than its interval it falls into none. It is the engine's cost, the
    same in a plain loop and in a study.
    """
    gc.collect()
    garbage.PACED._since = time.process_time()  # as if it had just collected


def overhead(runs: int, reps: int) -> tuple[dict[str, Any], float, float]:
    """A plain loop, a --jobs 1 study and a loop that builds its lines, interleaved (CPU).

    The plain loop runs as every loop over the engine does (the paced collector
    on, as in the study); each variant starts from a collected heap, so none
    pays for another's garbage.
    """
    cpu_used = wall_used = 0.0
    print(
        f"overhead: {reps} x (plain loop, --jobs 1 study, loop building lines) of {runs} runs",
        file=sys.stderr,
    )
    loops: list[Timed] = []
    batches: list[Timed] = []
    parts: list[StudyCpu] = []
    built: list[Timed] = []

    def study_step() -> Timed:
        t, acc = batch_inline(runs)
        parts.append(acc)
        return t

    for rep in range(reps):
        steps = [
            (loops, lambda: plain_loop(runs, collect=True)),
            (batches, study_step),
            (built, lambda: plain_loop(runs, LinesBuiltSink, collect=True)),
        ]
        for into, work in steps if rep % 2 == 0 else steps[::-1]:
            fresh_heap()
            t = work()
            into.append(t)
            cpu_used, wall_used = cpu_used + t.cpu, wall_used + t.wall
    found = {
        "loops": loops,
        "batches": batches,
        "loop": [vars(t) for t in loops],
        "batch": [vars(t) for t in batches],
        "batch_parts": [vars(p) for p in parts],
        "lines_built": [vars(t) for t in built],
        # the whole study (its fixed costs too) over the plain loop
        "overhead_cpu_share": [b.cpu / a.cpu - 1 for a, b in zip(loops, batches, strict=True)],
        # the study's run loop (no database creation, no summary) over the plain loop
        "per_run_cpu_share": [p.loop / a.cpu - 1 for a, p in zip(loops, parts, strict=True)],
        # inside the study: its run loop over the battles fought in it (same moments)
        "in_study_cpu_share": [p.loop / p.battles - 1 for p in parts],
        "machinery_us_per_run": [(p.loop - p.battles) / runs * 1e6 for p in parts],
        "fixed_ms": [(b.cpu - p.loop) * 1e3 for b, p in zip(batches, parts, strict=True)],
        "discard_saves_cpu_share": [1 - a.cpu / b.cpu for a, b in zip(loops, built, strict=True)],
    }
    return found, cpu_used, wall_used


class Instant(Executor):
    """Infinitely fast workers: each chunk's rows are a fought chunk's, renumbered.

    What is left is the study process's own work per run (scheduling, the
    pool's pickling both ways, collecting rows, DuckDB) at a rate no real
    pool reaches, so its CPU per run is what the parent would spend behind
    any number of workers. Every chunk's rows are made (renumbered and
    pickled, as a worker would send them) before the study starts, so none
    of a worker's work is counted as the parent's.
    """

    def __init__(self, plan: StudyPlan, shared: Shared) -> None:
        template = study_chunk(Chunk(shared, 0, {}, tuple(plan.chunk_runs(0, 0))))
        _, losses, sides = shared.opened()
        types = [run_types(len(losses), len(sides)), UNIT_TYPES_LIST, DIGEST_TYPES]
        self.sent = {
            runs[0].run_id: pickle.dumps(
                _renumbered(template, runs, types), pickle.HIGHEST_PROTOCOL
            )
            for runs in (plan.chunk_runs(0, j) for j in range(plan.chunks()))
        }

    def submit(self, fn: Any, /, *args: Any, **kwargs: Any) -> Future[Any]:
        chunk = args[0]
        pickle.dumps(chunk, protocol=pickle.HIGHEST_PROTOCOL)  # the pool's feeder does this
        future: Future[Any] = Future()  # and the pool's result thread unpickles this:
        future.set_result(pickle.loads(self.sent[chunk.runs[0].run_id]))
        return future


def _renumbered(template: ChunkRows, runs: list[Any], types: list[list[str]]) -> ChunkRows:
    """The template chunk's rows as those of ``runs`` (ids, point, replication, seed), its
    three tables packed again with their column ``types``."""
    count, *tables = template.packed[0]
    batches = [columnar.read(data) for data in tables]
    old = batches[0].column(0).to_pylist()
    new = {o: r for o, r in zip(old, runs, strict=True)}
    keys = (
        [r.run_id for r in runs],
        [r.point for r in runs],
        [r.replication for r in runs],
        [r.seed for r in runs],
    )
    out = []
    for k, (batch, sql) in enumerate(zip(batches, types, strict=True)):
        columns = [column.to_pylist() for column in batch.columns]
        if k == 0:
            columns[:4] = [list(v) for v in keys]
        else:
            columns[0] = [new[i].run_id for i in columns[0]]
        made = columnar.encode(columns, sql)
        assert made is not None
        out.append(made)
    rows = ChunkRows([[] for _ in template.runs], [[] for _ in template.units])
    rows.counts, rows.packed = dict(template.counts), [(count, *out)]
    return rows


def parent_alone(runs: int) -> dict[str, float]:
    """The study process's CPU per run when chunks come back at once (see :class:`Instant`)."""
    plan = StudyPlan(load_target(STONE_WALL), seed=99, replications=runs)
    losses = (("usa", "men"), ("usa", "guns"), ("csa", "men"), ("csa", "guns"))
    executor = Instant(plan, Shared.of(plan.target, losses, ("usa", "csa")))

    @contextlib.contextmanager
    def instant(*_args: Any) -> Iterator[Executor]:
        yield executor

    clock = Clock()
    real = study.open_executor
    study.open_executor = instant  # type: ignore[assignment]
    try:
        with tempfile.TemporaryDirectory() as tmp:
            t = timed(
                lambda: run_study(
                    plan, Path(tmp) / "s", RunOptions(jobs=16, progress=clock, plots=False)
                )
            )[0]
    finally:
        study.open_executor = real  # type: ignore[assignment]
    return {
        "cpu_s": t.cpu,
        "wall_s": t.wall,
        "cpu_per_run": t.cpu / runs,
        "steady_cpu_per_run": clock.steady_cpu_per_run(),
        "commit_points": clock.commits,
    }


def parent_lines(
    two: list[dict[str, float]], alone: list[dict[str, float]], runs: int, worker_cpu: float
) -> list[str]:
    """The parent's CPU per run, in the --jobs 2 studies and behind instant workers.

    CPU seconds, not wall: load-independent evidence of whether the parent
    (scheduling, pickling, collecting rows, writing DuckDB) keeps up with 16
    workers: 16 x its CPU per run must stay well under one run's CPU.
    """
    whole = [r["parent_cpu_s"] / runs for r in two]
    share = [r["parent_cpu_s"] / (r["parent_cpu_s"] + runs * worker_cpu) for r in two]
    steady = [r["parent_cpu_per_run_steady"] for r in two]
    fast = [a["cpu_per_run"] for a in alone]
    ratio = fmt_spread([16 * f / worker_cpu for f in fast], 3)
    return [
        f"  parent CPU     --jobs 2: {fmt_spread(whole, 1, 1e6)} us/run whole study (start-up, "
        f"DuckDB, summary), {fmt_spread(steady, 1, 1e6)} us/run between commit points "
        f"({fmt_spread([r['commit_points'] for r in two], 0)} commit points, about 1 a second)",
        f"                 instant workers, {alone[0]['runs']:,.0f} runs: "
        f"{fmt_spread(fast, 1, 1e6)} "
        f"us/run whole study ({fmt_spread([a['commit_points'] for a in alone], 0)} commit points)",
        f"  parent share   {fmt_spread(share, 1, 100)} % of the --jobs 2 study's CPU (parent "
        "and workers, a worker's CPU per run taken from the plain loop)",
        f"  16 workers     16 x parent CPU per run (instant workers) / a run's CPU "
        f"({worker_cpu * 1e3:.2f} ms, plain loop) = {ratio}"
        " (well under 1: the parent keeps up)",
    ]


def overhead_lines(ov: dict[str, Any], runs: int, reps: int) -> list[str]:
    """The overhead section of the table: paired CPU ratios, medians (min-max)."""
    loops, batches, parts = ov["loops"], ov["batches"], ov["batch_parts"]

    def pct(key: str) -> str:
        return fmt_spread([100 * o for o in ov[key]], 1)

    return [
        f"overhead (CPU, {reps} paired interleaved reps of {runs} runs): plain loop "
        f"{fmt_spread([t.cpu / runs * 1e3 for t in loops], 3)} ms/run; --jobs 1 study "
        f"{fmt_spread([t.cpu / runs * 1e3 for t in batches], 3)} ms/run",
        f"  per run        study's run loop / plain loop - 1 = {pct('per_run_cpu_share')} %",
        f"  in the study   run loop / the battles fought in it - 1 = {pct('in_study_cpu_share')} %"
        f" ({fmt_spread(ov['machinery_us_per_run'], 1)} us/run of machinery, "
        f"{statistics.median(p['fights'] for p in parts):,.0f} battles)",
        "  machinery      in place, us/run: unit finals (ruleset.units) "
        f"{fmt_spread([p['unit_rows'] / runs for p in parts], 1, 1e6)}, run rows "
        f"{fmt_spread([p['run_rows'] / runs for p in parts], 1, 1e6)}, DuckDB commits "
        f"{fmt_spread([p['commits'] / runs for p in parts], 1, 1e6)}, the rest "
        f"{fmt_spread([_rest(p) / runs for p in parts], 1, 1e6)} (of which the six "
        f"timer readings a run: {6e6 * _clock_cost():.1f})",
        f"  whole study    / plain loop - 1 = {pct('overhead_cpu_share')} %, fixed costs "
        f"(database, summary) {fmt_spread(ov['fixed_ms'], 0)} ms a study",
        f"a run that keeps no replay: not building and hashing its lines saves "
        f"{pct('discard_saves_cpu_share')} % of its CPU (plain loops)",
    ]


def _clock_cost() -> float:
    """CPU seconds of one reading of the CPU clock (the in-place timers take two a part)."""
    return timed(lambda: [time.process_time() for _ in range(20_000)])[0].cpu / 20_000


def _rest(p: dict[str, float]) -> float:
    """The study's run loop less its battles, unit finals, run rows and commits."""
    return p["loop"] - p["battles"] - p["unit_rows"] - p["run_rows"] - p["commits"]


def pool_cpu_line(two: list[dict[str, float]], runs: int, loop_cpu: float) -> str:
    """The --jobs 2 studies' whole CPU (parent + workers) per run against the plain loop's."""
    per_run = [(r["parent_cpu_s"] + r["workers_cpu_s"]) / runs for r in two]
    over = [100 * (c / loop_cpu - 1) for c in per_run]
    return (
        f"  CPU, --jobs 2  parent + workers {fmt_spread(per_run, 3, 1e3)} ms/run "
        f"(workers {fmt_spread([r['workers_cpu_s'] / runs for r in two], 3, 1e3)}) = "
        f"{fmt_spread(over, 1)} % over the plain loop's median (start-up, pickling included)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller studies")
    parser.add_argument("--reps", type=int, default=3, help="repetitions of each timed study")
    parser.add_argument(
        "--overhead-reps", type=int, default=7, help="repetitions of the overhead triple"
    )
    parser.add_argument(
        "--parts",
        default="overhead,coordinator,cli,scaling,alone,memory",
        help="comma-separated parts to run (default all)",
    )
    parser.add_argument("--json", type=Path, default=None, help="where to write the results")
    parser.add_argument(
        "--before", metavar="PATH", help="a second source tree whose CLI studies run alongside"
    )
    args = parser.parse_args()
    parts = set(args.parts.split(","))
    runs = 400 if args.quick else 1600
    over_runs = 300 if args.quick else 800
    sizes = [500, 1000, 4000] if args.quick else [2000, 5000, 20000, 50000]
    path = args.json or HERE / ("results-batch-quick.json" if args.quick else "results-batch.json")
    results: dict[str, Any] = {"runs": runs, "overhead_runs": over_runs}
    lines: list[str] = []
    start_load = os.getloadavg()
    cpu_used = wall_used = 0.0
    loop_cpu = plain_loop(20, collect=True).cpu / 20  # a first guess, replaced below
    if "overhead" in parts:
        ov, cpu_used, wall_used = overhead(over_runs, args.overhead_reps)
        loop_cpu = statistics.median(t.cpu for t in ov["loops"]) / over_runs
        keys = [k for k in ov if k not in ("loops", "batches")]
        results["overhead"] = {k: ov[k] for k in keys}
        lines += overhead_lines(ov, over_runs, args.overhead_reps)
    if "coordinator" in parts:
        used, more = coordinator_part(results, 200 if args.quick else 600, args.reps, args.before)
        cpu_used, wall_used = cpu_used + used[0], wall_used + used[1]
        lines += more
    if "cli" in parts:
        spin = spin_for(loop_cpu)
        cli = cli_scaling(runs, args.reps, spin, args.before)
        results["cli_scaling"] = cli | {"spin": spin}
        jobs1 = [c for k in ("study1", "before1") for c in cli["children"].get(k, [])]
        cpu_used += sum(c["cpu"] for c in jobs1)  # --jobs 1: all its work in its own process
        wall_used += sum(c["wall"] for c in jobs1)
        lines += cli_lines(cli, runs, args.reps)
    if "scaling" in parts:
        lines += scaling_lines(results, runs, args.reps, loop_cpu, "alone" in parts)
        jobs1 = results["throughput"]["all"]["1"]  # --jobs 1: all its work in this process
        cpu_used += sum(r["parent_cpu_s"] for r in jobs1)
        wall_used += sum(r["wall_s"] for r in jobs1)
    lines.insert(0, load_line(start_load, os.getloadavg(), cpu_used, wall_used))
    if "memory" in parts:
        lines += memory_lines(results, sizes)
    results["table"] = lines
    results["machine"] = {
        "platform": platform.platform(),
        "python": sys.version.split()[0],
        "cpus": os.cpu_count(),
        "load_avg": os.getloadavg(),
        "median_loop_cpu_per_run_s": loop_cpu,
    }
    path.write_text(json.dumps(results, indent=2) + "\n")
    print("\n".join(lines))
    print(f"(written to {path.relative_to(ROOT) if path.is_relative_to(ROOT) else path})")


def scaling_lines(
    results: dict[str, Any], runs: int, reps: int, loop_cpu: float, alone_too: bool
) -> list[str]:
    """Throughput and scaling (and the parent alone behind instant workers)."""
    sc = scaling(runs, reps)
    rates, speedup, ideal_speedup = sc["rates"], sc["speedup"], sc["ideal_speedup"]
    share, steady = sc["share"], sc["steady"]
    results["throughput"] = {"all": rates, "ideal_wall_s": sc["ideal"], "spin": sc["spin"]}
    results["scaling"] = {"batch": speedup, "ideal": ideal_speedup, "share": share}
    lines = [
        f"stone_wall.yaml, {runs} runs a study; medians (min-max) of {reps} interleaved reps",
        f"  --jobs 1       {fmt_spread([r['rate_whole'] for r in rates['1']])} runs/s whole "
        f"study, {fmt_spread([r['rate_steady'] for r in rates['1']])} steady",
        f"  --jobs 2       {fmt_spread([r['rate_whole'] for r in rates['2']])} runs/s whole "
        f"study, {fmt_spread([r['rate_steady'] for r in rates['2']])} steady",
        f"  dask, 2 procs  {rates['dask2'][0]['rate_whole']:.1f} runs/s whole study, "
        f"{rates['dask2'][0]['rate_steady']:.1f} steady (one run)",
        f"  speedup 2/1    {fmt_spread(speedup, 2)} whole study, {fmt_spread(steady, 2)} steady",
        f"  ideal pool 2/1 {fmt_spread(ideal_speedup, 2)} ({runs} trivial tasks of one battle's "
        "CPU each, same run)",
        f"  batch / ideal  {fmt_spread(share, 2)}",
        pool_cpu_line(rates["2"], runs, loop_cpu),
    ]
    if alone_too:
        alone_runs = 10 * runs
        print(f"parent alone: {alone_runs} runs behind instant workers", file=sys.stderr)
        alone = []
        for _ in range(reps):
            gc.collect()
            alone.append(parent_alone(alone_runs) | {"runs": alone_runs})
        results["parent_alone"] = alone
        lines += parent_lines(rates["2"], alone, runs, loop_cpu)
    return lines


def memory_lines(results: dict[str, Any], sizes: list[int]) -> list[str]:
    """Memory of studies of a small battle by size, each in a fresh process."""
    print(f"memory: a small battle, studies of {sizes} runs in fresh processes", file=sys.stderr)
    with tempfile.TemporaryDirectory() as tmp:
        small = Path(tmp) / "small.yaml"
        small.write_text(yaml.safe_dump(SMALL))
        memory = {str(n): memory_run(n, 1, small) for n in sizes}
    results["memory"] = memory
    lines = [
        "memory of a study (small battle, --jobs 1: one process does it all, chunks of 50):",
        "    runs    wall   ru_maxrss  (before the study)  database",
    ]
    for n, m in memory.items():
        lines.append(
            f"  {int(n):>6,}  {m['wall_s']:5.1f} s  {m['maxrss_kib'] / MIB:6.1f} MiB  "
            f"({m['maxrss_kib_before'] / MIB:6.1f} MiB)      {m['db_bytes'] / MIB / MIB:5.1f} MiB"
        )
    return lines


if __name__ == "__main__":
    main()
