"""What a study costs beyond its battles, in one process of one source tree (issue 32 item 4).

``python benchmarks/study_cost.py RUNS REPS [RUNS2]`` prints one JSON line. It uses
only the public study API (``StudyPlan``, ``run_study``, ``api.make_header``),
so the batch benchmark can run it under another tree (``PYTHONPATH=TREE``) and
compare the two in one session (``bench_batch.py --parts coordinator --before
TREE``). Each repetition, interleaved and in alternating order:

* **plain loop**: the study's battles (stone_wall.yaml, study seed 99, the
  study's run seeds) fought in a bare loop — header, simulate into the
  discarding sink, outcome — CPU seconds;
* **--jobs 1 study** of the same runs, no plots: this process's CPU for the
  whole ``run_study`` (creating the database and the summary included);
* **--jobs 2 study** of ``RUNS2`` runs (default ``RUNS``; more runs give the
  steady state more commit points): the coordinator's own CPU (this process,
  all its threads; the workers are other processes) for the whole study, and
  per run between its first and last commit point (``steady``).
"""

from __future__ import annotations

import gc
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from engine.log import DiscardSink
from sim import api
from sim.batch import RunOptions, StudyPlan, load_target, run_study

STONE_WALL = Path(__file__).resolve().parent.parent / "scenarios" / "stone_wall.yaml"


def _plan(runs: int) -> StudyPlan:
    return StudyPlan(load_target(STONE_WALL), seed=99, replications=runs)


def plain_loop(runs: int) -> dict[str, float]:
    """CPU and wall seconds of the study's battles in a bare loop."""
    plan = _plan(runs)
    target = plan.target
    ruleset, scenario = target.scenarios()[0]
    seeds = [plan.run(0, r).seed for r in range(runs)]
    start, wall = time.process_time(), time.perf_counter()
    for seed in seeds:
        header = api.make_header(ruleset, scenario, seed, source=target.source)
        state = ruleset.simulate(scenario, header, DiscardSink())
        ruleset.outcome(scenario, state)
    return {"cpu": time.process_time() - start, "wall": time.perf_counter() - wall}


class _Commits:
    """Progress callback: this process's CPU at the first and last commit point."""

    def __init__(self) -> None:
        self.first: tuple[float, int] | None = None
        self.last: tuple[float, int] | None = None

    def __call__(self, done: int, _total: int) -> None:
        if done == 0:
            return
        now = (time.process_time(), done)
        if self.first is None:
            self.first = now
        self.last = now

    def steady(self) -> float | None:
        if self.first is None or self.last is None or self.last[1] <= self.first[1]:
            return None
        return (self.last[0] - self.first[0]) / (self.last[1] - self.first[1])


def study(runs: int, jobs: int) -> dict[str, Any]:
    """CPU (and wall) seconds of this process for a whole study, and its CPU per run
    between the first and the last commit point."""
    commits = _Commits()
    with tempfile.TemporaryDirectory() as tmp:
        start, wall = time.process_time(), time.perf_counter()
        run_study(
            _plan(runs), Path(tmp) / "s", RunOptions(jobs=jobs, plots=False, progress=commits)
        )
        cpu, wall = time.process_time() - start, time.perf_counter() - wall
    return {"cpu": cpu, "wall": wall, "steady_per_run": commits.steady()}


def main() -> None:
    runs, reps = int(sys.argv[1]), int(sys.argv[2])
    runs2 = int(sys.argv[3]) if len(sys.argv) > 3 else runs
    plain_loop(5)  # warm-up: imports, caches, the first validations
    found: dict[str, list[Any]] = {"loop": [], "jobs1": [], "jobs2": []}
    steps = [
        ("loop", lambda: plain_loop(runs)),
        ("jobs1", lambda: study(runs, 1)),
        ("jobs2", lambda: study(runs2, 2)),
    ]
    for rep in range(reps):
        for key, work in steps if rep % 2 == 0 else steps[::-1]:
            gc.collect()
            found[key].append(work())
    print(json.dumps({"runs": runs, "runs2": runs2, **found}))


if __name__ == "__main__":
    main()
