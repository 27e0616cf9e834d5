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
from sim.history.bands import band_measure
from sim.history.case import Case, MeasureSpec, Verdict
from sim.history.estimate import Estimate, estimate
from sim.history.measures import BattleRecord, RunRecord, Value, value_of

__all__ = [
    "CHUNK",
    "MAX_RUNS",
    "CaseResult",
    "MeasureResult",
    "run_case",
    "run_chunk",
    "run_suite",
]

CHUNK = 10
"""Runs a worker fights per task."""

MAX_RUNS = 1600
"""The default cap on a case's runs when an inconclusive verdict asks for more."""

Progress = Callable[[int, int], None]


@dataclass(frozen=True)
class MeasureResult:
    """One measure of a case: its spec, the estimate over the runs, and the verdict."""

    spec: MeasureSpec
    estimate: Estimate

    @property
    def verdict(self) -> Verdict:
        """``pass``, ``fail`` or ``inconclusive``: the whole interval against the range."""
        e = self.estimate
        return self.spec.accept.verdict(e.value, e.low, e.high)

    @property
    def passed(self) -> bool:
        """True when the whole interval lies in the accepted range."""
        return self.verdict == "pass"


@dataclass(frozen=True)
class CaseResult:
    """A case fought: every measure's result, the runs fought and when verdicts were taken."""

    case: Case
    measures: list[MeasureResult]
    looks: tuple[int, ...] = ()
    """The run counts at which the verdicts were taken: the case's ``runs``, then each
    doubling fought because some measure was inconclusive; the last is :attr:`runs`."""
    band: MeasureResult | None = None
    """The attacker ÷ defender loss ratio a musket case is set beside its CDB90 band with
    (:mod:`sim.history.bands`); None for a case with no band."""
    ruleset: str = ""
    """The case's ruleset (its first battle's)."""

    @property
    def runs(self) -> int:
        """The runs fought: replications 0 … runs − 1 of the case's seed."""
        return self.looks[-1] if self.looks else self.case.spec.runs

    @property
    def verdict(self) -> Verdict:
        """``fail`` if any measure fails, else ``inconclusive`` if any is, else ``pass``."""
        verdicts = {m.verdict for m in self.measures}
        if "fail" in verdicts:
            return "fail"
        return "inconclusive" if "inconclusive" in verdicts else "pass"

    @property
    def passed(self) -> bool:
        """True when every measure passes."""
        return self.verdict == "pass"


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


def _fight(case: Case, ex: Executor, progress: Progress | None, max_runs: int) -> CaseResult:
    """Fight the case's runs; while a measure is inconclusive, double them up to ``max_runs``.

    The runs added are the next replications of the case's seed (run *r* always
    fights with ``run_seed(seed, 0, r)``), so a re-fight continues the case's
    seed sequence and the result is the same on every machine.
    """
    spec = case.spec
    band = band_measure(case)
    measures = [*spec.measures, *([band] if band is not None else [])]
    task = _Task(case.target, dict(spec.set), spec.seed, measures)
    blob = pickle.dumps(task, protocol=pickle.HIGHEST_PROTOCOL)
    values: list[list[Value]] = []
    looks: list[int] = []
    wanted = spec.runs
    while True:
        start = len(values)
        bounds = [(s, min(s + CHUNK, wanted)) for s in range(start, wanted, CHUNK)]
        futures: list[Future[list[list[Value]]]] = [
            ex.submit(run_chunk, blob, s, e) for s, e in bounds
        ]
        for future in futures:  # in replication order: the result never depends on timing
            values.extend(future.result())
            if progress is not None:
                progress(len(values), wanted)
        looks.append(wanted)
        results = [
            MeasureResult(m, estimate(m.statistic, [v[i] for v in values]))
            for i, m in enumerate(measures)
        ]
        shown = results[: len(spec.measures)]
        if wanted >= max_runs or all(r.verdict != "inconclusive" for r in shown):
            extra = results[-1] if band is not None else None
            return CaseResult(case, shown, tuple(looks), extra, case.target.ruleset().name)
        wanted = min(2 * wanted, max_runs)


def run_case(
    case: Case, jobs: int = 1, progress: Progress | None = None, max_runs: int = MAX_RUNS
) -> CaseResult:
    """Fight ``case`` (on ``jobs`` local workers) and estimate its measures (see :func:`_fight`)."""
    return run_suite([case], jobs, lambda _c: progress, max_runs)[0]


def run_suite(
    cases: list[Case],
    jobs: int = 1,
    progress: Callable[[Case], Progress | None] | None = None,
    max_runs: int = MAX_RUNS,
) -> list[CaseResult]:
    """Fight every case in turn on one pool of ``jobs`` local workers.

    Args:
        progress: for each case as it starts, the callback that is told
            ``(runs done, runs wanted)`` as its chunks come in (or None).
        max_runs: the most runs a case is doubled to while a measure is
            inconclusive (a case whose own ``runs`` is larger fights those, once).
    """
    out = []
    with open_executor("local", jobs) as ex:
        for case in cases:
            hook = progress(case) if progress is not None else None
            out.append(_fight(case, ex, hook, max_runs))
    return out
