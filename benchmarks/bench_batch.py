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
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import yaml

from sim import api
from sim.batch import RunOptions, StudyPlan, load_target, run_study
from sim.batch.worker import NullSink, prepare

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
    """Progress callback that records when commits happen (for steady-state rates)."""

    def __init__(self) -> None:
        self.first: tuple[float, int] | None = None
        self.last: tuple[float, int] | None = None

    def __call__(self, done: int, total: int) -> None:
        now = time.perf_counter()
        if done == 0:
            return
        if self.first is None:
            self.first = (now, done)
        self.last = (now, done)

    def steady_rate(self) -> float:
        """Runs per second between the first and the last commit."""
        if self.first is None or self.last is None or self.last[0] <= self.first[0]:
            return float("nan")
        return (self.last[1] - self.first[1]) / (self.last[0] - self.first[0])


def study_rate(runs: int, jobs: int, executor: str = "local") -> dict[str, float]:
    """One study of stone_wall.yaml: whole-study and steady-state runs/s."""
    plan = StudyPlan(load_target(STONE_WALL), seed=99, replications=runs)
    clock = Clock()
    with tempfile.TemporaryDirectory() as tmp:
        start = time.perf_counter()
        kind: Any = executor
        run_study(
            plan, Path(tmp) / "s", RunOptions(jobs=jobs, executor=kind, progress=clock, plots=False)
        )
        wall = time.perf_counter() - start
    return {"wall_s": wall, "rate_whole": runs / wall, "rate_steady": clock.steady_rate()}


def plain_loop(runs: int) -> float:
    """Seconds for the same battles as a study's (same seeds), in a bare loop."""
    plan = StudyPlan(load_target(STONE_WALL), seed=99, replications=runs)
    prepared = prepare(plan.target, {})
    seeds = [plan.run(0, r).seed for r in range(runs)]
    ruleset, scenario = prepared.scenario or (None, None)
    assert ruleset is not None
    start = time.perf_counter()
    for seed in seeds:
        header = api.make_header(ruleset, scenario, seed, source=plan.target.source)
        state = ruleset.simulate(scenario, header, NullSink())
        ruleset.outcome(scenario, state)
    return time.perf_counter() - start


def batch_inline(runs: int) -> float:
    """Seconds for the same battles through the study machinery in this process (--jobs 1)."""
    plan = StudyPlan(load_target(STONE_WALL), seed=99, replications=runs)
    with tempfile.TemporaryDirectory() as tmp:
        start = time.perf_counter()
        run_study(plan, Path(tmp) / "s", RunOptions(jobs=1, plots=False))
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller studies")
    parser.add_argument("--reps", type=int, default=3, help="repetitions of each timed study")
    parser.add_argument("--json", type=Path, default=None, help="where to write the results")
    args = parser.parse_args()
    runs = 400 if args.quick else 1600
    sizes = [500, 1000, 4000] if args.quick else [2000, 5000, 20000, 50000]
    path = args.json or HERE / ("results-batch-quick.json" if args.quick else "results-batch.json")
    results: dict[str, Any] = {"runs": runs}

    print(f"throughput: stone_wall.yaml, {runs} runs a study, best of {args.reps}", file=sys.stderr)
    rates: dict[str, list[dict[str, float]]] = {"1": [], "2": [], "dask2": []}
    for _ in range(args.reps):  # interleaved, so each pair meets the same machine load
        rates["1"].append(study_rate(runs, 1))
        rates["2"].append(study_rate(runs, 2))
    rates["dask2"].append(study_rate(runs, 2, "dask"))
    best = {k: {m: max(r[m] for r in v) for m in v[0]} for k, v in rates.items()}
    results["throughput"] = {"all": rates, "best": best}
    ratio_steady = best["2"]["rate_steady"] / best["1"]["rate_steady"]
    ratio_whole = best["2"]["rate_whole"] / best["1"]["rate_whole"]

    print("overhead: batch --jobs 1 against a plain loop over the same battles", file=sys.stderr)
    loops, batches = [], []
    for _ in range(args.reps):
        loops.append(plain_loop(runs))
        batches.append(batch_inline(runs))
    loop_s, batch_s = min(loops), min(batches)
    overhead_ms = (batch_s - loop_s) / runs * 1000
    results["overhead"] = {"loop_s": loops, "batch_s": batches, "per_run_ms": overhead_ms}

    print(f"memory: a small battle, studies of {sizes} runs in fresh processes", file=sys.stderr)
    with tempfile.TemporaryDirectory() as tmp:
        small = Path(tmp) / "small.yaml"
        small.write_text(yaml.safe_dump(SMALL))
        memory = {str(n): memory_run(n, 1, small) for n in sizes}
    results["memory"] = memory

    lines = [
        f"stone_wall.yaml, {runs} runs a study (best of {args.reps})",
        f"  --jobs 1       {best['1']['rate_whole']:7.1f} runs/s whole study, "
        f"{best['1']['rate_steady']:7.1f} steady",
        f"  --jobs 2       {best['2']['rate_whole']:7.1f} runs/s whole study, "
        f"{best['2']['rate_steady']:7.1f} steady",
        f"  dask, 2 procs  {best['dask2']['rate_whole']:7.1f} runs/s whole study, "
        f"{best['dask2']['rate_steady']:7.1f} steady",
        f"  scaling 2/1    {ratio_whole:.2f} whole study, {ratio_steady:.2f} steady",
        f"plain loop {loop_s / runs * 1000:.2f} ms/run; batch --jobs 1 {batch_s / runs * 1000:.2f} "
        f"ms/run; overhead {overhead_ms:.2f} ms/run ({100 * (batch_s / loop_s - 1):.1f} %)",
        "memory of a study (small battle, --jobs 1: one process does it all, chunks of 50):",
        "    runs    wall   ru_maxrss  (before the study)  database",
    ]
    for n, m in memory.items():
        lines.append(
            f"  {int(n):>6,}  {m['wall_s']:5.1f} s  {m['maxrss_kib'] / MIB:6.1f} MiB  "
            f"({m['maxrss_kib_before'] / MIB:6.1f} MiB)      {m['db_bytes'] / MIB / MIB:5.1f} MiB"
        )
    results["table"] = lines
    results["machine"] = {
        "platform": platform.platform(),
        "python": sys.version.split()[0],
        "cpus": os.cpu_count(),
        "load_avg": os.getloadavg(),
        "median_loop_s": statistics.median(loops),
    }
    path.write_text(json.dumps(results, indent=2) + "\n")
    print("\n".join(lines))
    print(f"(written to {path.relative_to(ROOT) if path.is_relative_to(ROOT) else path})")


if __name__ == "__main__":
    main()
