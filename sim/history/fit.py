"""Historical cases as a calibration's targets: ``history:`` in a calibration file.

``battlesim calibrate`` reads a file with ``history:`` through
:func:`load_cases` (docs/calibrate.md, *Fitting defaults on the history
cases*): the cases chosen (by default the fitting set), each factor's value
they share (trial 0), and each case's measures as targets. A trial fights
every case at its point, run *r* of a case with the case's own seed for
replication *r* — the runs ``battlesim history`` fights first — so every
trial fights the same runs (common random numbers).
"""

from __future__ import annotations

import pickle
from concurrent.futures import Executor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from engine.canonical import canonical_json
from sim.batch.inputs.fieldpath import PathError
from sim.batch.inputs.files import located
from sim.batch.inputs.seeds import derived_seed
from sim.batch.inputs.sources import Lines
from sim.calibrate.measures import Estimate, Measure
from sim.calibrate.search import FRESH
from sim.calibrate.spec import MAGNITUDE, CalibrationFile, CaseGoal, Goal
from sim.history.case import SUITE, Case, load_suite
from sim.history.estimate import estimate
from sim.history.run import CHUNK, _Task, run_chunk
from sim.scenario.load import Located, ScenarioError

__all__ = ["HistoryCases", "case_path", "load_cases"]


def case_path(case: Case, path: str) -> list[str]:
    """The field paths a factor's ``path`` sets in a case: the path itself in a scenario,
    and in a campaign the path in each battle's scenario (``battles.<i>.scenario.<path>``)."""
    if case.target.kind == "scenario":
        return [path]
    battles = case.target.data.get("battles", [])
    return [f"battles.{i}.scenario.{path}" for i in range(len(battles))]


@dataclass(frozen=True)
class HistoryCases:
    """The cases a calibration fits (:class:`sim.calibrate.spec.Cases`)."""

    cases: tuple[Case, ...]

    @property
    def ids(self) -> tuple[str, ...]:
        return tuple(c.id for c in self.cases)

    def digest(self) -> str:
        return canonical_json(
            [[c.id, c.target.digest(), c.spec.model_dump(mode="json")] for c in self.cases]
        )

    def goals(self) -> tuple[tuple[Goal, ...], tuple[Measure, ...]]:
        """Each case's measures as goals: the accepted range (an open side is ±MAGNITUDE),
        weight 1, a scale of 0.1 for a probability, else the range's largest finite end
        (at least 1), and the record's value (shown, never scored)."""
        goals: list[Goal] = []
        measures: list[Measure] = []
        for case in self.cases:
            for m in case.spec.measures:
                lo = m.accept.min if m.accept.min is not None else -MAGNITUDE
                hi = m.accept.max if m.accept.max is not None else MAGNITUDE
                ends = [abs(x) for x in (m.accept.min, m.accept.max) if x is not None]
                probability = m.statistic == "probability"
                scale = 0.1 if probability else max(1.0, *ends)
                name = f"{case.id}.{m.id}"
                source = " ".join(m.source.split())
                goals.append(
                    CaseGoal(
                        measure=name,
                        range=(lo, hi),
                        scale=scale,
                        source=source,
                        historical=m.historical,
                    )
                )
                kind: Literal["rate", "mean"] = "rate" if probability else "mean"
                measures.append(Measure(name, kind, "history", (case.id, m.id)))
        return tuple(goals), tuple(measures)

    def by_split(self) -> dict[str, tuple[str, ...]]:
        splits = ("fitting", "held_out")
        found = {s: tuple(c.id for c in self.cases if c.spec.split == s) for s in splits}
        return {s: ids for s, ids in found.items() if ids}

    def without(self, case_id: str) -> HistoryCases:
        return HistoryCases(tuple(c for c in self.cases if c.id != case_id))

    def refused(self, params: dict[str, Any]) -> str | None:
        """Why some case's scenario with ``params`` set (over the case's own ``set``) is not
        valid, naming the case; None when every case's is."""
        from pydantic import ValidationError  # noqa: PLC0415

        from sim.batch.execution.worker import failure, prepare  # noqa: PLC0415

        for case in self.cases:
            values = dict(case.spec.set)
            for path, value in params.items():
                values.update(dict.fromkeys(case_path(case, path), value))
            try:
                prepare(case.target, values)
            except (ScenarioError, ValidationError) as exc:
                return f"case {case.id}: {failure(exc)}"
        return None

    def evaluate(
        self, executor: Executor, params: dict[str, Any], replications: int, fresh: bool
    ) -> tuple[tuple[Estimate, ...], int]:
        """Fight every case at ``params``: ``replications`` runs each, run *r* of a case with
        ``run_seed(case seed, 0, r)`` (or, ``fresh``, with ``derived_seed(case seed,
        "calibrate-fresh")`` for the case's seed), estimated as ``battlesim history`` does."""
        estimates: list[Estimate] = []
        runs = 0
        for case in self.cases:
            values = dict(case.spec.set)
            for path, value in params.items():
                values.update(dict.fromkeys(case_path(case, path), value))
            seed = derived_seed(case.spec.seed, FRESH) if fresh else case.spec.seed
            task = _Task(case.target, values, seed, list(case.spec.measures))
            blob = pickle.dumps(task, protocol=pickle.HIGHEST_PROTOCOL)
            n = replications
            futures = [
                executor.submit(run_chunk, blob, s, min(s + CHUNK, n)) for s in range(0, n, CHUNK)
            ]
            got = [row for f in futures for row in f.result()]  # in replication order
            runs += len(got)
            for i, m in enumerate(case.spec.measures):
                e = estimate(m.statistic, [row[i] for row in got], m.floor)
                estimates.append(Estimate(e.value, e.low, e.high, e.n, e.method))
        return tuple(estimates), runs


def _chosen(cf: CalibrationFile, file: str, lines: Lines) -> tuple[Case, ...]:
    """The cases a ``history:`` section chooses, or one located problem."""
    h = cf.history
    assert h is not None
    folder = SUITE if h.suite is None else Path(file).parent / h.suite
    if not folder.is_dir():
        raise ScenarioError(
            [located(file, lines, ("history", "suite"), f"no folder {str(folder)!r}")]
        )
    cases = load_suite(folder)
    names = sorted({c.target.ruleset().name for c in cases})
    if h.cases is not None:
        known = {c.id for c in cases}
        unknown = [c for c in h.cases if c not in known]
        if unknown:
            raise ScenarioError(
                [located(file, lines, ("history", "cases"), f"no case {unknown[0]!r} in {folder}")]
            )
        cases = [c for c in cases if c.id in h.cases]
    if h.ruleset is not None and h.ruleset not in names:
        from sim.text.suggest import did_you_mean  # noqa: PLC0415

        raise ScenarioError(
            [
                located(
                    file,
                    lines,
                    ("history", "ruleset"),
                    f"no case of ruleset {h.ruleset!r} in {folder} (its cases' rulesets: "
                    f"{', '.join(names)}){did_you_mean(h.ruleset, names)}",
                )
            ]
        )
    if h.cases is not None:  # a case named is fought, or the file says why it cannot be
        for c in cases:
            why = _left_out(c, h.split, h.ruleset)
            if why is not None:
                raise ScenarioError([located(file, lines, ("history", "cases"), why)])
    if h.split != "all":
        cases = [c for c in cases if c.spec.split == h.split]
    if h.ruleset is not None:
        cases = [c for c in cases if c.target.ruleset().name == h.ruleset]
    if not cases:
        raise ScenarioError([located(file, lines, ("history",), "no case is chosen")])
    return tuple(cases)


def _left_out(case: Case, split: str, ruleset: str | None) -> str | None:
    """Why a case named in ``history.cases`` would not be fought (its split or its ruleset
    is not the file's), or None."""
    if split not in ("all", case.spec.split):
        other = "held out" if case.spec.split == "held_out" else "a fitting case"
        return (
            f"case {case.id!r} is {other}, and history.split is {split}: name only "
            f"{split.replace('_', '-')} cases (or set split: all)"
        )
    own = case.target.ruleset().name
    if ruleset is not None and own != ruleset:
        return f"case {case.id!r} is a {own} case, and history.ruleset is {ruleset}"
    return None


def _factor_values(cases: tuple[Case, ...], path: str) -> tuple[dict[str, Any], str | None]:
    """Each case's value at a factor's path (``"case: path"`` → value), or the first problem."""
    seen: dict[str, Any] = {}
    for case in cases:
        for where in case_path(case, path):
            if where in case.spec.set:
                return seen, f"case {case.id} sets {where} itself: a factor cannot override it"
            try:
                seen[f"{case.id}: {where}"] = case.target.get(where)
            except PathError as exc:
                return seen, f"case {case.id}: {exc}"
    return seen, None


def load_cases(cf: CalibrationFile, file: str, lines: Lines) -> tuple[HistoryCases, dict[str, Any]]:
    """The cases a calibration file's ``history:`` chooses, and each factor's value they all
    share (trial 0: a default).

    Raises:
        ScenarioError: no such folder or case, no case chosen, a factor that a case does
            not have, sets itself, or on which the cases disagree (located in the file).
    """
    cases = _chosen(cf, file, lines)
    problems: list[Located] = []
    start: dict[str, Any] = {}
    for i, f in enumerate(cf.factors):
        seen, problem = _factor_values(cases, f.path)
        if problem is not None:
            problems.append(located(file, lines, ("factors", i, "path"), problem))
            continue
        values = {canonical_json(v) for v in seen.values()}
        if len(values) > 1:
            listed = ", ".join(f"{k} = {v!r}" for k, v in list(seen.items())[:4])
            problems.append(
                located(
                    file,
                    lines,
                    ("factors", i, "path"),
                    f"the cases disagree on {f.path} ({listed}): a factor must be a value "
                    "they share",
                )
            )
        elif seen:
            start[f.path] = next(iter(seen.values()))
    if problems:
        raise ScenarioError(problems)
    return HistoryCases(cases), start
