"""Fighting a case: its runs through the batch engine, each read into the measures' values.

A case is a study of one design point (its ``set`` values) with ``runs``
replications; run *r* fights with the batch engine's seed for (point 0,
replication *r*) of the case's seed (:func:`sim.batch.inputs.seeds.run_seed`), so
its battle can be fought again alone with ``battlesim run --seed``. Runs go
in chunks to the batch engine's executors (:mod:`sim.batch.execution.executors`); the
values come back in replication order whatever the worker count, so the
result is the same on every machine.
"""

from __future__ import annotations

import json
import pickle
from collections.abc import Callable
from concurrent.futures import Executor, Future
from dataclasses import dataclass
from typing import Any

from engine.log import DiscardSink, Sink
from sim.batch.execution.executors import open_executor
from sim.batch.execution.worker import Prepared, fight, prepare
from sim.batch.inputs.seeds import run_seed
from sim.contract import AnyRuleset, get_ruleset
from sim.history.case import Case, MeasureSpec
from sim.history.estimate import Estimate, estimate
from sim.history.measures import BattleRecord, RunRecord, Value, value_of

__all__ = ["CHUNK", "CaseResult", "MeasureResult", "run_case", "run_chunk", "run_suite"]

CHUNK = 10
"""Runs a worker fights per task."""

Progress = Callable[[int, int], None]


@dataclass(frozen=True)
class MeasureResult:
    """One measure of a case: its spec, the estimate over the runs, and the verdict."""

    spec: MeasureSpec
    estimate: Estimate

    @property
    def passed(self) -> bool:
        """True when the estimate lies in the accepted range."""
        return self.spec.accept.holds(self.estimate.value)


@dataclass(frozen=True)
class CaseResult:
    """A case fought: every measure's result."""

    case: Case
    measures: list[MeasureResult]

    @property
    def passed(self) -> bool:
        """True when every measure passes."""
        return all(m.passed for m in self.measures)


class _Watch:
    """A sink that reads a battle as it is written: unit rows at each turn end, some events.

    The log hands it each line after the event is applied; it folds its own
    copy of the battle from the header's scenario (the contract's
    ``initial_state`` and ``apply``), so it reads any ruleset's battle,
    lone or in a campaign.
    """

    def __init__(self, rows: bool, events: frozenset[str]) -> None:
        self.rows, self.wanted = rows, events
        self.turns: list[list[Any]] = []
        self.events: list[dict[str, Any]] = []
        self._ruleset: AnyRuleset | None = None
        self._scenario: Any = None
        self._state: Any = None

    def write(self, line: str) -> None:
        data = json.loads(line)
        data.pop("h", None)
        if self._ruleset is None:  # line 1: the header
            self._ruleset = get_ruleset(data["ruleset"])
            self._scenario = self._ruleset.scenario_model.model_validate(data["scenario"])
            self._state = self._ruleset.initial_state(self._scenario)
            return
        kind = data.get("type")
        if kind is None:  # the footer
            return
        if kind in self.wanted:
            self.events.append(data)
        if not self.rows:
            return
        ruleset = self._ruleset
        if kind == "engine.turn_ended":
            self.turns.append(ruleset.units(self._scenario, self._state))
        elif not kind.startswith("engine."):
            ruleset.apply(self._state, ruleset.registry.parse(data))

    def flush(self) -> None:
        pass

    def close(self) -> None:
        pass


def _needs(measures: list[MeasureSpec]) -> tuple[bool, frozenset[str]]:
    """Whether any measure reads the turns' rows, and the event types they sum."""
    rows = any(m.kind == "reaches" or m.after_contact is not None for m in measures)
    events = frozenset(m.event for m in measures if m.kind in ("loss_from", "events") and m.event)
    return rows, events


@dataclass(frozen=True)
class _Task:
    """What a worker needs for a case's runs: the prepared target and the measures."""

    target: Any
    values: dict[str, Any]
    seed: int
    measures: list[MeasureSpec]


_PREPARED: dict[bytes, tuple[_Task, Prepared]] = {}


def _prepared(blob: bytes) -> tuple[_Task, Prepared]:
    found = _PREPARED.get(blob)
    if found is None:
        task: _Task = pickle.loads(blob)  # made by this program's parent process: trusted
        _PREPARED.clear()
        found = _PREPARED[blob] = (task, prepare(task.target, task.values))
    return found


def _record(task: _Task, prepared: Prepared, seed: int) -> RunRecord:
    rows, events = _needs(task.measures)
    watches: list[_Watch] = []

    def sink_for(_k: int, _name: str) -> Sink:
        if not rows and not events:
            return DiscardSink()
        watches.append(_Watch(rows, events))
        return watches[-1]

    fought = fight(prepared, seed, sink_for)
    battles = []
    for k, (bid, ruleset, state, scenario) in enumerate(fought.battles):
        outcome = ruleset.outcome(scenario, state)
        watch = watches[k] if watches else None
        battles.append(
            BattleRecord(
                bid,
                outcome.winner,
                ruleset.units(scenario, state),
                watch.turns if watch is not None else [],
                watch.events if watch is not None else [],
                {s: {k: float(v) for k, v in ls.items()} for s, ls in outcome.losses().items()},
                outcome.turns,
            )
        )
    return RunRecord(battles, fought.outcome.get("winner"))


def run_chunk(blob: bytes, start: int, stop: int) -> list[list[Value]]:
    """Fight replications ``start`` … ``stop − 1``; each run's value of every measure."""
    task, prepared = _prepared(blob)
    out = []
    for r in range(start, stop):
        run = _record(task, prepared, run_seed(task.seed, 0, r))
        out.append([value_of(run, m) for m in task.measures])
    return out


def _fight(case: Case, ex: Executor, progress: Progress | None) -> CaseResult:
    spec = case.spec
    task = _Task(case.target, dict(spec.set), spec.seed, list(spec.measures))
    blob = pickle.dumps(task, protocol=pickle.HIGHEST_PROTOCOL)
    bounds = [(s, min(s + CHUNK, spec.runs)) for s in range(0, spec.runs, CHUNK)]
    futures: list[Future[list[list[Value]]]] = [ex.submit(run_chunk, blob, s, e) for s, e in bounds]
    values: list[list[Value]] = []
    for future in futures:  # in replication order: the result never depends on timing
        values.extend(future.result())
        if progress is not None:
            progress(len(values), spec.runs)
    results = [
        MeasureResult(m, estimate(m.statistic, [v[i] for v in values]))
        for i, m in enumerate(spec.measures)
    ]
    return CaseResult(case, results)


def run_case(case: Case, jobs: int = 1, progress: Progress | None = None) -> CaseResult:
    """Fight every run of ``case`` (on ``jobs`` local workers) and estimate its measures."""
    return run_suite([case], jobs, lambda _c: progress)[0]


def run_suite(
    cases: list[Case],
    jobs: int = 1,
    progress: Callable[[Case], Progress | None] | None = None,
) -> list[CaseResult]:
    """Fight every case in turn on one pool of ``jobs`` local workers.

    Args:
        progress: for each case as it starts, the callback that is told
            ``(runs done, runs)`` as its chunks come in (or None).
    """
    out = []
    with open_executor("local", jobs) as ex:
        for case in cases:
            out.append(_fight(case, ex, progress(case) if progress is not None else None))
    return out
