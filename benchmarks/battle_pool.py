"""A pool fighting the study's battles with no study around them, for the batch benchmark.

``python benchmarks/battle_pool.py SCENARIO RUNS JOBS``: the first ``RUNS``
runs of a one-point study of ``SCENARIO`` (study seed 99, the study's seeds)
fought as a plain loop would — header, simulate into the discarding sink,
outcome — in chunks of 20 over a ``ProcessPoolExecutor`` of ``JOBS``
workers made exactly as a study makes its pool (``sim.batch.execution.executors``),
results dropped. Against a trivial task, it shows what running battles side
by side costs on the machine itself (two battles at once may each take more
CPU than one alone: they share caches and memory); against a study, what the
study adds to a pool.
"""

from __future__ import annotations

import functools
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

from engine.log import DiscardSink
from sim import api
from sim.batch.execution.executors import mp_context
from sim.batch.execution.worker import prepare
from sim.batch.inputs.target import load_target
from sim.batch.planning.plan import StudyPlan

CHUNK = 20


@functools.cache
def _prepared(scenario: str) -> tuple[Any, Any, str]:
    """The scenario validated once per worker, as a study's worker does."""
    target = load_target(Path(scenario))
    ruleset, sc = prepare(target, {}).scenario or (None, None)
    return ruleset, sc, target.source


def fight(scenario: str, seeds: list[int]) -> None:
    """Fight each seed's battle and drop it (its outcome computed, as a study's is)."""
    ruleset, sc, source = _prepared(scenario)
    for seed in seeds:
        header = api.make_header(ruleset, sc, seed, source=source)
        ruleset.outcome(sc, ruleset.simulate(sc, header, DiscardSink()))


def main() -> None:
    scenario, runs, jobs = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    plan = StudyPlan(load_target(Path(scenario)), seed=99, replications=runs)
    seeds = [plan.run(0, r).seed for r in range(runs)]
    chunks = [seeds[i : i + CHUNK] for i in range(0, runs, CHUNK)]
    with ProcessPoolExecutor(jobs, mp_context=mp_context()) as pool:
        for _ in pool.map(fight, [scenario] * len(chunks), chunks):
            pass


if __name__ == "__main__":
    main()
