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
from dataclasses import dataclass, replace
from typing import Any

from engine.log import DiscardSink, Sink
from sim.batch.execution.executors import open_executor
from sim.batch.execution.worker import Prepared, fight, prepare
from sim.batch.inputs.seeds import run_seed
from sim.contract import AnyRuleset, get_ruleset
from sim.history.bands import band_measure
from sim.history.case import Case, MeasureSpec, Verdict
from sim.history.estimate import Estimate, estimate
from sim.history.measures import BattleRecord, RunRecord, Value, settled, value_of
from sim.history.predictive import Predictive, predictive, spread

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
    record: Predictive | None = None
    """Where the record's value falls among the runs' values (:mod:`sim.history.predictive`);
    None when no run has a value."""
    spread: tuple[float, float] | None = None
    """The runs' 5th and 95th percentiles (:func:`sim.history.predictive.spread`); None for
    a probability."""

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


class _Live:
    """The state of the battle this worker is fighting, as its ruleset's ``initial_state``
    made it (the one the runner advances in place)."""

    state: Any = None


def _living(ruleset: AnyRuleset, live: _Live) -> AnyRuleset:
    """``ruleset``, its ``initial_state`` keeping the state it makes in ``live``."""
    make = ruleset.initial_state

    def initial_state(scenario: Any) -> Any:
        live.state = make(scenario)
        return live.state

    return replace(ruleset, initial_state=initial_state)


class _Watch:
    """A sink that reads a battle from its lines: unit rows at each turn end, some events.

    For a campaign's battle, which no live state is kept for: the battle is
    folded again here from the header's scenario (the contract's
    ``initial_state`` and ``apply``), so it reads any ruleset's battle through
    the contract.  A lone battle is read by :class:`_EventWatch`, from its
    events, without lines, unless a measure counts the engine's own events
    (:func:`_engine_events`): then it is read here too.
    """

    takes_bytes = True
    """The log hands over each line's bytes (:class:`engine.log.EventLog`)."""

    def __init__(self, rows: bool, events: frozenset[str]) -> None:
        self.rows, self.wanted = rows, events
        self.turns: list[list[Any]] = []
        self.events: list[dict[str, Any]] = []
        self._header = True
        self._ruleset: AnyRuleset | None = None
        self._scenario: Any = None
        self._state: Any = None

    def write(self, written: bytes | str) -> None:
        """Read one line (bytes, as the log gives them; text is taken too)."""
        line = written.encode() if isinstance(written, str) else written
        if self._header:  # line 1
            self._header = False
            data = json.loads(line)
            self._ruleset = get_ruleset(data["ruleset"])
            self._scenario = self._ruleset.scenario_model.model_validate(data["scenario"])
            self._state = self._ruleset.initial_state(self._scenario)
            return
        data = json.loads(line)
        data.pop("h", None)
        kind = data.get("type")
        if kind is None:  # the footer
            return
        if kind in self.wanted:
            self.events.append(data)
        if not self.rows:
            return
        ruleset = self._ruleset
        assert ruleset is not None
        if kind == "engine.turn_ended":
            self.turns.append(ruleset.units(self._scenario, self._state))
        elif not kind.startswith("engine."):
            ruleset.apply(self._state, ruleset.registry.parse(data))

    def flush(self) -> None:
        pass

    def close(self) -> None:
        pass


class _EventWatch:
    """:class:`_Watch` for a lone battle, handed its events instead of lines.

    A discarding sink that takes events (:class:`engine.log.EventLog`): the log
    builds, checks and hashes no line (nor the state digests only a reader of the
    file would look at), and hands over each event after it is applied.  The rows
    are read from the state being fought at each turn's end, and a wanted event is
    kept as its line's JSON object without ``h`` (``event.model_dump_json()``, the
    line's body), as :class:`_Watch` keeps it.  Not for a case that counts the
    engine's own events (:func:`_engine_events`): their digests are left out here.
    """

    discards = True
    takes_events = True

    def __init__(
        self,
        rows: bool,
        events: frozenset[str],
        live: Callable[[], list[Any]] | None,
        reads: Callable[[list[list[Any]]], bool],
    ) -> None:
        assert live is not None or not rows, "rows are read from the state being fought"
        self.rows, self.wanted, self.live, self.reads = rows, events, live, reads
        self.turns: list[list[Any]] = []
        self.events: list[dict[str, Any]] = []

    def write(self, _line: str) -> None:
        """The header and footer, which the log builds no line for."""

    def write_event(self, _line: bytes, event: Any) -> None:
        """One event, applied; no line was built (``_line`` is empty)."""
        kind = event.type
        if kind == "engine.turn_ended":
            if self.live is not None and self.reads(self.turns):
                self.turns.append(self.live())
        elif kind in self.wanted:
            self.events.append(json.loads(event.model_dump_json()))

    def flush(self) -> None:
        pass

    def close(self) -> None:
        pass


def _engine_events(events: frozenset[str]) -> bool:
    """Whether a measure counts the engine's own events (``engine.turn_ended``): those are
    read from the lines, where they hold the state digests a discarding log leaves out."""
    return any(e.startswith("engine.") for e in events)


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


_PREPARED: dict[bytes, tuple[_Task, Prepared, _Live | None]] = {}


def _prepared(blob: bytes) -> tuple[_Task, Prepared, _Live | None]:
    """The case's task and its prepared target; a lone scenario whose turns' rows a
    measure reads is fought by a ruleset that keeps its state in a :class:`_Live`."""
    found = _PREPARED.get(blob)
    if found is None:
        task: _Task = pickle.loads(blob)  # made by this program's parent process: trusted
        _PREPARED.clear()
        prepared, live = prepare(task.target, task.values), None
        if prepared.scenario is not None and _needs(task.measures)[0]:
            live = _Live()
            ruleset, scenario = prepared.scenario
            prepared = replace(prepared, scenario=(_living(ruleset, live), scenario))
        found = _PREPARED[blob] = (task, prepared, live)
    return found


def _record(task: _Task, prepared: Prepared, live: _Live | None, seed: int) -> RunRecord:
    rows, events = _needs(task.measures)
    watches: list[_Watch | _EventWatch] = []
    rows_now: Callable[[], list[Any]] | None = None
    if live is not None:
        assert prepared.scenario is not None
        ruleset, scenario = prepared.scenario
        rows_now = lambda: ruleset.units(scenario, live.state)  # noqa: E731

    def reads(turns: list[list[Any]]) -> bool:
        return not all(settled(m, turns) for m in task.measures)

    def sink_for(_k: int, _name: str) -> Sink:
        if not rows and not events:
            return DiscardSink()
        if prepared.scenario is not None and not _engine_events(events):
            watches.append(_EventWatch(rows, events, rows_now, reads))  # a lone battle, no lines
        else:
            watches.append(_Watch(rows, events))
        return watches[-1]

    fought = fight(prepared, seed, sink_for, draws=False)  # no measure reads them
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
    task, prepared, live = _prepared(blob)
    out = []
    for r in range(start, stop):
        run = _record(task, prepared, live, run_seed(task.seed, 0, r))
        out.append([value_of(run, m) for m in task.measures])
    return out


class _Fight:
    """One case being fought on an executor: its chunks in flight and its values so far.

    The runs added by a doubling are the next replications of the case's seed
    (run *r* always fights with ``run_seed(seed, 0, r)``), so a re-fight
    continues the case's seed sequence and the result is the same on every machine.
    """

    def __init__(self, case: Case, ex: Executor, max_runs: int) -> None:
        self.case, self.ex, self.max_runs = case, ex, max_runs
        spec = case.spec
        self.band = band_measure(case)
        self.measures = [*spec.measures, *([self.band] if self.band is not None else [])]
        task = _Task(case.target, dict(spec.set), spec.seed, self.measures)
        self.blob = pickle.dumps(task, protocol=pickle.HIGHEST_PROTOCOL)
        self.values: list[list[Value]] = []
        self.futures: list[Future[list[list[Value]]]] = []
        self.wanted = 0

    def submit(self, wanted: int) -> None:
        """Hand the executor the chunks of replications ``len(values)`` … ``wanted − 1``."""
        bounds = [(s, min(s + CHUNK, wanted)) for s in range(len(self.values), wanted, CHUNK)]
        self.futures = [self.ex.submit(run_chunk, self.blob, s, e) for s, e in bounds]
        self.wanted = wanted

    def _record(self, i: int, r: MeasureResult) -> MeasureResult:
        """``r`` with the record's place among the runs and their spread: read once, at
        the last look, from the values every verdict was taken on."""
        m, values = r.spec, [v[i] for v in self.values]
        found = predictive(m.statistic, values, m.historical)
        return replace(r, record=found, spread=spread(m.statistic, values))

    def result(self, progress: Progress | None) -> CaseResult:
        """Its runs' values as they come in; while a measure is inconclusive, double the
        runs up to ``max_runs``; then every measure's estimate."""
        spec, looks = self.case.spec, []
        if not self.futures:
            self.submit(spec.runs)
        while True:
            for future in self.futures:  # in replication order: never depends on timing
                self.values.extend(future.result())
                if progress is not None:
                    progress(len(self.values), self.wanted)
            looks.append(self.wanted)
            results = [
                MeasureResult(m, estimate(m.statistic, [v[i] for v in self.values], m.floor))
                for i, m in enumerate(self.measures)
            ]
            shown = results[: len(spec.measures)]
            if self.wanted >= self.max_runs or all(r.verdict != "inconclusive" for r in shown):
                extra = results[-1] if self.band is not None else None
                ruleset = self.case.target.ruleset().name
                shown = [self._record(i, r) for i, r in enumerate(shown)]
                return CaseResult(self.case, shown, tuple(looks), extra, ruleset)
            self.submit(min(2 * self.wanted, self.max_runs))


def run_case(
    case: Case, jobs: int = 1, progress: Progress | None = None, max_runs: int = MAX_RUNS
) -> CaseResult:
    """Fight ``case`` (on ``jobs`` local workers) and estimate its measures (:class:`_Fight`)."""
    return run_suite([case], jobs, lambda _c: progress, max_runs)[0]


def run_suite(
    cases: list[Case],
    jobs: int = 1,
    progress: Callable[[Case], Progress | None] | None = None,
    max_runs: int = MAX_RUNS,
) -> list[CaseResult]:
    """Fight every case on one pool of ``jobs`` local workers; results in the cases' order.

    With a pool, every case's first runs are handed out at once, so the
    workers never wait while a case's last chunk is fought or its verdicts
    taken; a doubling's runs queue behind them. One worker fights each case
    in turn. Either way each case's values are its replications in order, so
    the results are the same for any ``jobs``.

    Args:
        progress: for each case as its results are read, the callback that is
            told ``(runs done, runs wanted)`` as its chunks come in (or None).
        max_runs: the most runs a case is doubled to while a measure is
            inconclusive (a case whose own ``runs`` is larger fights those, once).
    """
    out = []
    with open_executor("local", jobs) as ex:
        fights = [_Fight(case, ex, max_runs) for case in cases]
        if jobs > 1:
            for f in fights:
                f.submit(f.case.spec.runs)
        for f in fights:
            hook = progress(f.case) if progress is not None else None
            out.append(f.result(hook))
    return out
