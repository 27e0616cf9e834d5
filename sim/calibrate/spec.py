"""Calibration files: a scenario, free factors with ranges, and the targets to fit.

```yaml
name: Coral Sea — what AA reproduces the Shoho strike?
scenario: coral_sea.yaml         # or  campaign: …
seed: 1942
replications: 100                # runs per trial: the same seeds at every trial (CRN)
trials: 30                       # points the search tries (the scenario's own values first)
startup_trials: 8                # random points before the TPE sampler models the objective
factors:
  - {path: options.table_anti_aircraft, range: [1, 6], type: int}
targets:
  - {measure: unit.shoho.sunk, range: [0.7, 1.0], weight: 1}
  - {measure: losses.allied.air_factors, value: 1, weight: 1}
outputs: {dir: coral_sea_calibration, plots: true}
```

Paths are relative to the file. Every problem is ``file:line: field: message``.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from concurrent.futures import Executor
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any, Literal, Protocol

from pydantic import BaseModel, ConfigDict, Field, model_validator

from sim.batch.inputs.fieldpath import PathError, overlap, resolve_path
from sim.batch.inputs.files import Validated, in_order, located, read_yaml, validate_all
from sim.batch.inputs.sources import Lines, named_target, output_folder
from sim.batch.inputs.target import Target, source_label
from sim.batch.planning.factors import DesignError, Factor, repeated, unsweepable, value_key
from sim.batch.planning.plan import DEFAULT_CHUNK
from sim.batch.planning.spec import RunsFile
from sim.calibrate.measures import Estimate, Measure, MeasureError, parse_measure
from sim.scenario.load import Located, ScenarioError
from sim.text.grammar import count

__all__ = ["CalibrationFile", "CalibrationSpec", "CaseGoal", "Goal", "Outputs", "load_calibration"]

MAX_TRIALS = 10_000
"""Most trials a calibration may ask for."""


MAGNITUDE = 1e12
"""The largest magnitude a target's value or range, or a factor's range, may have."""
SCALE = (1e-6, 1e12)
"""The smallest and largest ``scale`` (a miss over a smaller scale could overflow)."""


class Goal(BaseModel):
    """One target: a measure, the historical value or range it should reproduce, a weight."""

    model_config = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False)

    measure: str = Field(min_length=1, max_length=200, description="What to measure (see docs).")
    value: float | None = Field(None, description="The historical value.")
    range: tuple[float, float] | None = Field(None, description="The historical range, inclusive.")
    weight: float = Field(1.0, gt=0, le=1e6, description="The target's weight in the objective.")
    scale: float | None = Field(
        None,
        ge=SCALE[0],
        le=SCALE[1],
        description="What a miss is measured in (default: 0.1 for a rate, else "
        "the target's magnitude, at least 1).",
    )
    source: str = Field("", max_length=2000, description="Where the historical figure comes from.")

    @model_validator(mode="after")
    def _one_kind(self) -> Goal:
        if (self.value is None) == (self.range is None):
            raise ValueError("give either 'value' or 'range', not both or neither")
        if self.range is not None and not self.range[0] <= self.range[1]:
            raise ValueError(
                f"range: low {self.range[0]:g} must not be above high {self.range[1]:g}"
            )
        for x in (self.value, *(self.range or ())):
            if x is not None and not (math.isfinite(x) and abs(x) <= MAGNITUDE):
                raise ValueError(f"the historical value must be a number within ±{MAGNITUDE:g}")
        return self

    def bounds(self) -> tuple[float, float]:
        """The target as a range (a value is a range of one point)."""
        if self.range is not None:
            return self.range
        assert self.value is not None
        return self.value, self.value

    @property
    def record(self) -> float | None:
        """The record's value the target stands for: its ``value``; a ``range`` gives none
        (what the text's *history* column shows, the range under *accepted*)."""
        return self.value

    def unit(self, kind: str) -> float:
        """What a miss is measured in: ``scale``, else 0.1 for a rate, else the magnitude."""
        if self.scale is not None:
            return self.scale
        if kind == "rate":
            return 0.1
        return max(1.0, *(abs(x) for x in self.bounds()))

    def miss(self, achieved: float, kind: str) -> float:
        """How far ``achieved`` is outside the target, in :meth:`unit` s (0 inside it)."""
        low, high = self.bounds()
        gap = low - achieved if achieved < low else achieved - high if achieved > high else 0.0
        return gap / self.unit(kind)


class CaseGoal(Goal):
    """A historical case's measure as a target: the range its case accepts, and the
    record's value (the case's ``historical``), which is shown beside it and never scored:
    left out of the dumps, so a calibration's settings (``--resume``) do not hold it."""

    historical: float = Field(exclude=True, description="The record's value.")

    @property
    def record(self) -> float | None:
        """The case's record (``historical``)."""
        return self.historical


class Outputs(BaseModel):
    """Where the calibration writes and whether it draws its plot."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    dir: str | None = Field(None, description="Output folder, relative to the file.")
    plots: bool = Field(True, description="Write DIR/search.png.")


class Cases(Protocol):
    """Historical cases a calibration fits (``history:``), as this layer sees them.

    :mod:`sim.history.fit` provides them; this layer is below the cases' own.
    """

    @property
    def ids(self) -> tuple[str, ...]:
        """The cases' ids, in order."""
        ...

    def digest(self) -> str:
        """Everything about the cases that changes a result (what ``--resume`` matches)."""
        ...

    def by_split(self) -> dict[str, tuple[str, ...]]:
        """The cases' ids by their split (``fitting``, ``held_out``), fitting first."""
        ...

    def goals(self) -> tuple[tuple[Goal, ...], tuple[Measure, ...]]:
        """Every case's measures as targets, in order."""
        ...

    def without(self, case_id: str) -> Cases:
        """The same cases less one."""
        ...

    def evaluate(
        self, executor: Executor, params: dict[str, Any], replications: int, fresh: bool
    ) -> tuple[tuple[Estimate, ...], int]:
        """Fight every case at ``params``: the goals' estimates, in order, and the runs."""
        ...

    def refused(self, params: dict[str, Any]) -> str | None:
        """Why some case's scenario with ``params`` set is not valid (naming the case), or
        None when every case's is."""
        ...


class HistoryTargets(BaseModel):
    """``history:``: fit to historical cases' measures instead of a scenario's targets."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    suite: str | None = Field(
        None, min_length=1, description="A folder of case files (default: the shipped suite)."
    )
    split: Literal["fitting", "held_out", "all"] = Field(
        "fitting", description="Which cases: the fitting set (default), held-out, or all."
    )
    ruleset: str | None = Field(None, min_length=1, description="Only this ruleset's cases.")
    cases: list[str] | None = Field(
        None, min_length=1, max_length=200, description="Only these cases (by id)."
    )


class CalibrationFile(RunsFile):
    """The fields of a calibration file."""

    model_config = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False)

    replications: int = Field(ge=1, le=1_000_000, description="Runs per trial (the same seeds).")
    trials: int = Field(ge=1, le=MAX_TRIALS, description="Points the search tries.")
    startup_trials: int | None = Field(
        None,
        ge=1,
        le=MAX_TRIALS,
        description="Random trials before the sampler models the objective (default: 10, "
        "or every trial when there are fewer).",
    )
    chunk_size: int = Field(DEFAULT_CHUNK, ge=1, le=100_000)
    objective: Literal["distance", "verdicts"] = Field(
        "distance",
        description="What the search minimises: 'distance', the sum of weight x (miss / "
        "scale)^2 over the targets; 'verdicts', first the targets not met (their weights), "
        "then those missed, then the distance (docs/calibrate.md, *The objective*).",
    )
    factors: list[Factor] = Field(min_length=1, max_length=50)
    targets: list[Goal] = Field(default_factory=list, max_length=100)
    history: HistoryTargets | None = None
    outputs: Outputs = Field(default_factory=Outputs)


def verdict(goal: Goal, low: float, high: float) -> str:
    """``met`` when the interval [low, high] lies within the target's range, ``missed`` when
    it lies wholly outside, else ``unsure`` (a straddling interval, or none: NaN ends)."""
    bottom, top = goal.bounds()
    if math.isnan(low) or math.isnan(high):
        return "unsure"
    if bottom <= low and high <= top:
        return "met"
    if high < bottom or low > top:
        return "missed"
    return "unsure"


CasesLoader = Callable[["CalibrationFile", str, Lines], tuple[Cases, dict[str, Any]]]
"""Reads a ``history:`` section: the cases, and each factor's value they share (trial 0)."""


@dataclass(frozen=True)
class CalibrationSpec:
    """A calibration file read and checked."""

    name: str
    target: Target | None
    """The scenario or campaign fitted; None when fitting to historical cases."""
    seed: int
    replications: int
    trials: int
    startup_trials: int
    chunk_size: int
    factors: tuple[Factor, ...]
    goals: tuple[Goal, ...]
    measures: tuple[Measure, ...]
    start: dict[str, Any]
    """The scenario's own value of each factor: the first trial."""
    out: Path
    plots: bool
    source: str
    """The calibration file's name."""
    cases: Cases | None = None
    """The historical cases fitted (``history:``); their measures are the goals."""
    objective: str = "distance"
    """What the search minimises: ``distance`` or ``verdicts``
    (:func:`sim.calibrate.search.objective`)."""
    target_file: Path | None = None
    """The scenario or campaign file fitted (None for the history cases): ``calibrated.yaml``
    is its text with the best point set (:mod:`sim.calibrate.calibrated`)."""

    def identity(self) -> dict[str, Any]:
        """Every setting that changes the result (what ``--resume`` must match)."""
        if self.target is not None:
            digest = self.target.digest()
        else:
            assert self.cases is not None
            digest = self.cases.digest()
        return {
            "target_digest": digest,
            "seed": self.seed,
            "replications": self.replications,
            "trials": self.trials,
            "startup_trials": self.startup_trials,
            "chunk_size": self.chunk_size,
            "factors": [f.model_dump(mode="json", exclude_none=True) for f in self.factors],
            "targets": [g.model_dump(mode="json", exclude_none=True) for g in self.goals],
            # left out at the default, so a calibration written before the choice resumes
            **({} if self.objective == "distance" else {"objective": self.objective}),
        }


Placed = list[tuple[int, Any]]
"""Items of a file's list (its factors, its targets), each with its place in the file's list
(:meth:`~sim.batch.inputs.files.Validated.placed`, ``texts``)."""


def _target(
    cf: CalibrationFile, read: Validated[CalibrationFile], file: str, lines: Lines
) -> tuple[Target | None, list[Located]]:
    """The scenario or campaign fitted (None: the history cases, or none read), and the
    problems of what the file names to fit; nothing is said of names the schema refused."""
    if not read.sound(("scenario",), ("campaign",), ("history",)):
        return None, []
    named = (cf.scenario is not None) + (cf.campaign is not None) + (cf.history is not None)
    if named != 1:
        message = "name the 'scenario', the 'campaign' or the 'history' cases to fit (one of them)"
        return None, [located(file, lines, (), message)]
    if cf.history is not None:
        if cf.targets:
            message = "with 'history' the targets are the cases' measures: give no targets"
            return None, [located(file, lines, ("targets",), message)]
        return None, []
    problems: list[Located] = []
    if not cf.targets and read.sound(("targets",)):
        problems.append(located(file, lines, ("targets",), "give at least one target"))
    try:
        return named_target(file, lines, cf.scenario, cf.campaign), problems
    except ScenarioError as exc:
        return None, problems + exc.problems


def _finite_ranges(factors: Placed, file: str, lines: Lines) -> list[Located]:
    """A problem for each factor whose range's ends are not finite or not within ±MAGNITUDE."""
    return [
        located(
            file,
            lines,
            ("factors", i, "range"),
            f"a range's ends must be numbers within ±{MAGNITUDE:g}",
        )
        for i, f in factors
        if f.range is not None
        and not all(math.isfinite(x) and abs(x) <= MAGNITUDE for x in f.range)
    ]


def _first(paths: Placed) -> dict[str, int]:
    """Each factor's path, with the place of the first factor that names it."""
    first: dict[str, int] = {}
    for i, path in paths:
        first.setdefault(path, i)
    return first


def _named_twice(factors: Placed, paths: Placed, file: str, lines: Lines) -> list[Located]:
    """A factor whose path an earlier one names, and a value a factor's ``values`` name
    again: the grid would fight the same point twice (and a path named twice would set
    one value over the other). ``paths``: every factor's path the schema did not refuse,
    ``factors``: the factors it kept."""
    problems: list[Located] = []
    first = _first(paths)
    for i, path in paths:
        if first[path] != i:
            problems.append(located(file, lines, ("factors", i, "path"), "a factor named twice"))
        why = unsweepable(path, "a calibration")  # a renamed side "meets" any target
        if why is not None:
            problems.append(located(file, lines, ("factors", i, "path"), why))
    for i, f in factors:
        for j in repeated(f.values or []):
            where = ("factors", i, "values", j)
            message = f"the value {f.values[j]!r} is named twice"
            problems.append(located(file, lines, where, message))
    return problems


def _start(
    factors: Placed, paths: Placed, target: Target, file: str, lines: Lines
) -> tuple[dict[str, Any], list[Located]]:
    """Each factor's value in the target, checked inside its range or among its values;
    and every problem of the factors (their ranges', their paths', their values'): of
    each path in ``paths`` (those of a factor the schema left out for another field too),
    of each factor in ``factors``."""
    problems = _named_twice(factors, paths, file, lines) + _finite_ranges(factors, file, lines)
    start: dict[str, Any] = {}
    reached: dict[tuple[str | int, ...], str] = {}
    first = _first(paths)
    kept = dict(factors)
    for i, path in paths:
        where = ("factors", i, "path")
        if first[path] != i or unsweepable(path):
            continue  # said once, by _named_twice
        try:
            value = target.get(path)
            field = resolve_path(target.data, path, target.filled())
        except PathError as exc:
            problems.append(located(file, lines, where, str(exc)))
            continue
        clash = overlap([*reached, field])  # a field by its id and by its index, or one
        if clash is not None:  # inside another's: one set over the other
            other = list(reached.values())[clash[1]]
            message = (
                f"a factor named twice, as {other} too"
                if field in reached
                else f"moves what the factor {other} moves: give one of them"
            )
            problems.append(located(file, lines, where, message))
            continue
        reached[field] = path
        f = kept.get(i)
        if f is not None:  # else its path alone is checked
            value, found = _start_problems(i, f, value, file, lines)
            problems.extend(found)
            start[path] = value
    return start, problems


def _shared_start(
    factors: Placed, start: dict[str, Any], file: str, lines: Lines
) -> tuple[dict[str, Any], list[Located]]:
    """The value each factor's path has in every case (``start``), checked as a scenario's
    is: inside the factor's range or among its values, of its type; and every problem."""
    problems = _named_twice(factors, [(i, f.path) for i, f in factors], file, lines)
    out = dict(start)
    first = _first([(i, f.path) for i, f in factors])
    for i, f in factors:
        if f.path in start and first[f.path] == i and not unsweepable(f.path):
            out[f.path], found = _start_problems(i, f, start[f.path], file, lines, "the cases'")
            problems.extend(found)
    return out, problems


def _start_problems(
    i: int, f: Factor, value: Any, file: str, lines: Lines, whose: str = "the scenario's"
) -> tuple[Any, list[Located]]:
    """A factor's start value (as its type reads it) and what is wrong with it: the search
    starts from it, so it must lie inside the factor's range or among its values (for a
    file with ``history:``, the value the cases share: ``whose`` says so)."""
    problems: list[Located] = []
    if f.values is not None:
        if not all(v is None or isinstance(v, bool | int | float | str) for v in f.values):
            problems.append(
                located(
                    file,
                    lines,
                    ("factors", i, "values"),
                    "a calibration's values are numbers, text, true/false or null "
                    "(one choice each)",
                )
            )
        elif value_key(value) not in (keys := [value_key(v) for v in f.values]):
            problems.append(
                located(
                    file,
                    lines,
                    ("factors", i, "values"),
                    f"{whose} value {value!r} is not among the values: "
                    f"the search starts from {whose} own values",
                )
            )
        else:  # as the file spells it (25, not 25.0): a point the grid or sampler proposes
            value = f.values[keys.index(value_key(value))]
    elif value is None:  # a field left unset, whose value the rules give (a class's value)
        problems.append(
            located(
                file,
                lines,
                ("factors", i, "path"),
                f"{whose} value there is null (unset: the rules give it a value, or "
                "switch it off); the search starts from its value: set one in the scenario",
            )
        )
    elif not isinstance(value, int | float) or isinstance(value, bool):
        problems.append(
            located(
                file,
                lines,
                ("factors", i, "range"),
                f"{whose} value {value!r} is not a number",
            )
        )
    else:
        assert f.range is not None
        if not f.range[0] <= value <= f.range[1]:
            problems.append(
                located(
                    file,
                    lines,
                    ("factors", i, "range"),
                    f"{whose} value {value!r} is outside [{f.range[0]:g}, "
                    f"{f.range[1]:g}]: the search starts from {whose} own values",
                )
            )
        if f.type == "int" and not float(value).is_integer():
            problems.append(
                located(
                    file,
                    lines,
                    ("factors", i, "type"),
                    f"{whose} value {value!r} is not a whole number",
                )
            )
        value = int(value) if f.type == "int" else float(value)
    return value, problems


def level_of(f: Factor, value: Any) -> tuple[Any, str | None]:
    """The level of a factor with ``levels`` that ``value`` is (within rounding), or a problem.

    A range with ``levels`` is a discrete factor: its evenly spaced levels
    (:meth:`sim.batch.planning.factors.Factor.grid_levels`), so the start must be one of them."""
    try:
        levels = f.grid_levels()
    except DesignError as exc:
        return value, str(exc)
    for level in levels:
        if isinstance(value, int | float) and math.isclose(
            level, value, rel_tol=1e-9, abs_tol=1e-12
        ):
            return level, None
    shown = ", ".join(f"{x:g}" for x in levels)
    return value, (
        f"the scenario's value {value!r} is not one of the {len(levels)} levels ({shown}): "
        "the search starts from the scenario's own values"
    )


def on_levels(
    factors: Placed, start: dict[str, Any], file: str, lines: Lines
) -> tuple[dict[str, Any], list[Located]]:
    """``start`` with each ``levels`` factor's value read as its level, and every problem."""
    problems: list[Located] = []
    out = dict(start)
    for i, f in factors:
        if f.levels is None or f.path not in out:
            continue
        out[f.path], problem = level_of(f, out[f.path])
        if problem is not None:
            problems.append(located(file, lines, ("factors", i, "levels"), problem))
    return out, problems


def _measures(
    targets: Placed, texts: Placed, target: Target, file: str, lines: Lines
) -> tuple[tuple[Measure, ...], list[Located]]:
    """Each target's measure, and every problem of them: of each measure in ``texts``
    (that of a target the schema left out for another field too), of each target in
    ``targets``."""
    sides = {sid: kinds for sid, (_name, kinds) in target.sides().items()}
    units: list[str] | None = None
    words = target.ruleset().status_words
    if target.kind == "scenario":
        ruleset, scenario = target.scenarios()[0]
        units = [u.id for u in ruleset.units(scenario, ruleset.initial_state(scenario))]
    out: list[Measure] = []
    problems: list[Located] = []
    kept = dict(targets)
    for i, text in texts:
        try:
            measure = parse_measure(text, sides, units, words)
        except MeasureError as exc:
            problems.append(located(file, lines, ("targets", i, "measure"), str(exc)))
            continue
        goal = kept.get(i)
        if goal is None:
            continue  # its measure alone is checked
        low, high = goal.bounds()
        if measure.kind == "rate" and not (low >= 0 and high <= 1):
            problems.append(
                located(
                    file,
                    lines,
                    ("targets", i),
                    f"{goal.measure} is a rate: its target must lie in [0, 1]",
                )
            )
        out.append(measure)
    return tuple(out), problems


def load_calibration(path: str | Path, cases: CasesLoader | None = None) -> CalibrationSpec:
    """Read a calibration file and the scenario or campaign it fits.

    ``cases`` reads a ``history:`` section: the layer of historical cases
    (:func:`sim.history.fit.load_cases`) passes it in, as this layer is below that one.

    Every problem is found in one pass: the schema's, and each later check's (the trials,
    what is fitted, the factors' paths, ranges and starts, the targets' measures, the
    values the factors reach, the output folder) unless it reads a field the schema
    refused (:class:`~sim.batch.inputs.files.Validated`); the history cases are read once
    the schema refused no factor, and a factor's values are tried once its own checks pass.

    Raises:
        ScenarioError: every problem, located by file, line and field, by line.
    """
    file = str(path)
    data, lines = read_yaml(path)
    read = validate_all(CalibrationFile, data, lines, file, "calibration")
    lines = read.lines(lines)
    cf, problems = read.model, list(read.problems)
    if cf is None:
        raise ScenarioError(in_order(file, problems))
    problems += _trials(cf, read, file, lines)
    target, found = _target(cf, read, file, lines)
    problems += found
    factors = read.placed("factors")
    fitted: Cases | None = None
    goals: tuple[Goal, ...] = ()
    measures: tuple[Measure, ...] = ()
    start: dict[str, Any] = {}
    refused: Callable[[dict[str, Any]], str | None] | None = None
    sound = read.sound(("scenario",), ("campaign",), ("history",))
    if target is None and sound and cf.history is not None and not found:
        fitted, start, found = _history(cf, read, file, lines, cases)
        problems += found
        if fitted is not None:
            goals, measures = fitted.goals()
            refused = fitted.refused
    elif target is not None:
        paths = read.texts(data, "factors", "path")
        start, found = _start(factors, paths, target, file, lines)
        problems += found
        texts = read.texts(data, "targets", "measure")
        measures, found = _measures(read.placed("targets"), texts, target, file, lines)
        problems += found
        goals = tuple(cf.targets)
        refused = partial(_refused, target)
    start, found = on_levels(factors, start, file, lines)
    problems += found
    if refused is not None:
        tried = [(i, f) for i, f in factors if f.path in start and not _said(problems, file, i)]
        problems += _ends_accepted(tried, start, file, lines, refused)
    out, found = _out(cf, read, file, lines)
    problems += found
    if problems or out is None:
        raise ScenarioError(in_order(file, problems))
    named = cf.scenario if cf.scenario is not None else cf.campaign
    return CalibrationSpec(
        name=cf.name or Path(file).stem,
        target=target,
        cases=fitted,
        seed=cf.seed,
        replications=cf.replications,
        trials=cf.trials,
        startup_trials=cf.startup_trials or min(10, cf.trials),
        objective=cf.objective,
        chunk_size=cf.chunk_size,
        factors=tuple(cf.factors),
        goals=goals,
        measures=measures,
        start=start,
        out=out,
        plots=cf.outputs.plots,
        source=source_label(file),
        target_file=Path(file).parent / named if named is not None else None,
    )


def _history(
    cf: CalibrationFile,
    read: Validated[CalibrationFile],
    file: str,
    lines: Lines,
    cases: CasesLoader | None,
) -> tuple[Cases | None, dict[str, Any], list[Located]]:
    """The history cases fitted and each factor's start, the value they share (None and
    none when they are not read), and every problem. The cases are read once the schema
    refused no factor: they name a factor by its place in the file."""
    factors = read.placed("factors")
    problems = _finite_ranges(factors, file, lines)
    if cases is None:
        said = "history cases are read by battlesim's CLI"
        return None, {}, [*problems, located(file, lines, ("history",), said)]
    if not read.sound(("factors",)):
        return None, {}, problems
    try:
        fitted, shared = cases(cf, file, lines)
    except ScenarioError as exc:
        return None, {}, problems + exc.problems
    start, found = _shared_start(factors, shared, file, lines)
    return fitted, start, problems + found


def _trials(
    cf: CalibrationFile, read: Validated[CalibrationFile], file: str, lines: Lines
) -> list[Located]:
    """More random trials than trials (unless the schema refused either)."""
    if not read.sound(("startup_trials",), ("trials",)):
        return []
    if cf.startup_trials is None or cf.startup_trials <= cf.trials:
        return []
    said = (
        f"{count(cf.startup_trials, 'random trial')} is more than the {count(cf.trials, 'trial')}"
    )
    return [located(file, lines, ("startup_trials",), said)]


def _out(
    cf: CalibrationFile, read: Validated[CalibrationFile], file: str, lines: Lines
) -> tuple[Path | None, list[Located]]:
    """The output folder, or its problem (None and none when the schema refused it)."""
    if not read.sound(("outputs", "dir")):
        return None, []
    try:
        return output_folder(file, lines, cf.outputs.dir, "calibration file"), []
    except ScenarioError as exc:
        return None, exc.problems


def _said(problems: list[Located], file: str, i: int) -> bool:
    """Whether ``problems`` hold one of the file's factor ``i`` (its own, or of a field)."""
    mine = f"factors.{i}"
    return any(
        p.file == file and (p.field == mine or p.field.startswith(f"{mine}.")) for p in problems
    )


def _refused(target: Target, params: dict[str, Any]) -> str | None:
    """Why ``target`` with ``params`` set is not a valid scenario (or campaign), or None."""
    from pydantic import ValidationError  # noqa: PLC0415

    from sim.batch.execution.worker import failure, prepare  # noqa: PLC0415

    try:
        prepare(target, params)
    except (ScenarioError, ValidationError) as exc:
        return failure(exc)
    return None


def _ends(f: Factor) -> list[tuple[Any, str]]:
    """The values of ``f`` at the edges of what the search proposes, each with how the
    file says it: each of its values, the first and last of its levels or of an int range
    (``= 5``), and for a float range a point a millionth of its width inside each end
    (``near 0.0``: the search practically never proposes an end itself, which an open
    bound, ``> 0``, may refuse)."""
    if f.values is not None:
        return [(v, f"= {v!r}") for v in f.values]
    if f.levels is not None:
        levels = f.grid_levels()
        return [(v, f"= {v!r}") for v in (levels[0], levels[-1])]
    assert f.range is not None
    low, high = f.range
    if f.type == "int":
        return [(int(v), f"= {int(v)!r}") for v in (low, high)]
    inward = (high - low) * 1e-6
    return [(low + inward, f"near {low!r}"), (high - inward, f"near {high!r}")]


def _ends_accepted(
    factors: Placed,
    start: dict[str, Any],
    file: str,
    lines: Lines,
    refused: Callable[[dict[str, Any]], str | None],
) -> list[Located]:
    """Refuse a factor that reaches values the scenario refuses, before any trial: each
    edge of what it proposes (:func:`_ends`), tried with the other factors at the start,
    then all at their low edges, then all at their high edges (a value that only some
    settings of the others accept, ``escort`` against ``fighters``, is not refused);
    refused only when every one refuses it. Without this, every trial the sampler put
    there failed ("invalid scenario"), and the search spent its trials on them.

    ``factors``: those whose other checks passed, each with its place in the file (any
    other is left at its start, or at the scenario's own value). Returns each such
    factor's problem, located at its range or values.
    """
    ends = [_ends(f) for _, f in factors]
    problems: list[Located] = []
    for n, (i, f) in enumerate(factors):
        lows = {g.path: ends[k][0][0] for k, (_, g) in enumerate(factors) if k != n}
        highs = {g.path: ends[k][-1][0] for k, (_, g) in enumerate(factors) if k != n}
        for value, said in ends[n]:
            whys = []
            for others in (start, {**start, **lows}, {**start, **highs}):
                why = refused({**others, f.path: value})
                if why is None:
                    break
                whys.append(why)
            else:
                problems.append(
                    located(
                        file,
                        lines,
                        ("factors", i, "range" if f.values is None else "values"),
                        f"{f.path} {said} is refused ({whys[0]}): every trial there would "
                        "fail; keep the factor to values the scenario accepts",
                    )
                )
                break
    return problems


def without(spec: CalibrationSpec, case_id: str) -> CalibrationSpec:
    """A calibration of cases with one case left out (its goals too): a leave-one-out fit."""
    from dataclasses import replace  # noqa: PLC0415

    assert spec.cases is not None
    cases = spec.cases.without(case_id)
    goals, measures = cases.goals()
    return replace(spec, cases=cases, goals=goals, measures=measures)
