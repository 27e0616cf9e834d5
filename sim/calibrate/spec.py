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
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, model_validator

from sim.batch.inputs.fieldpath import PathError, get_path
from sim.batch.inputs.files import located, read_located
from sim.batch.inputs.sources import Lines, named_target, output_folder
from sim.batch.inputs.target import Target
from sim.batch.planning.factors import Factor
from sim.batch.planning.plan import DEFAULT_CHUNK
from sim.calibrate.measures import Measure, MeasureError, parse_measure
from sim.scenario.load import Located, ScenarioError

__all__ = ["CalibrationFile", "CalibrationSpec", "Goal", "Outputs", "load_calibration"]

MAX_TRIALS = 10_000
"""Most trials a calibration may ask for."""


class Goal(BaseModel):
    """One target: a measure, the historical value or range it should reproduce, a weight."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    measure: str = Field(min_length=1, max_length=200, description="What to measure (see docs).")
    value: float | None = Field(None, description="The historical value.")
    range: tuple[float, float] | None = Field(None, description="The historical range, inclusive.")
    weight: float = Field(1.0, gt=0, le=1e6, description="The target's weight in the objective.")
    scale: float | None = Field(
        None,
        gt=0,
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
            if x is not None and not math.isfinite(x):
                raise ValueError("the historical value must be a finite number")
        return self

    def bounds(self) -> tuple[float, float]:
        """The target as a range (a value is a range of one point)."""
        if self.range is not None:
            return self.range
        assert self.value is not None
        return self.value, self.value

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


class Outputs(BaseModel):
    """Where the calibration writes and whether it draws its plot."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    dir: str | None = Field(None, description="Output folder, relative to the file.")
    plots: bool = Field(True, description="Write DIR/search.png.")


class CalibrationFile(BaseModel):
    """The fields of a calibration file."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str | None = Field(None, min_length=1, max_length=200)
    description: str = Field("", max_length=20_000)
    scenario: str | None = Field(None, min_length=1, description="Scenario file to fit.")
    campaign: str | None = Field(None, min_length=1, description="Campaign file to fit.")
    seed: int = Field(1, ge=0, le=2**63 - 1, description="The calibration seed.")
    replications: int = Field(ge=1, le=1_000_000, description="Runs per trial (the same seeds).")
    trials: int = Field(ge=1, le=MAX_TRIALS, description="Points the search tries.")
    startup_trials: int = Field(
        10,
        ge=1,
        le=MAX_TRIALS,
        description="Random trials before the sampler models the objective.",
    )
    chunk_size: int = Field(DEFAULT_CHUNK, ge=1, le=100_000)
    factors: list[Factor] = Field(min_length=1, max_length=50)
    targets: list[Goal] = Field(min_length=1, max_length=100)
    outputs: Outputs = Field(default_factory=Outputs)


@dataclass(frozen=True)
class CalibrationSpec:
    """A calibration file read and checked."""

    name: str
    target: Target
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

    def identity(self) -> dict[str, Any]:
        """Every setting that changes the result (what ``--resume`` must match)."""
        return {
            "target_digest": self.target.digest(),
            "seed": self.seed,
            "replications": self.replications,
            "trials": self.trials,
            "startup_trials": self.startup_trials,
            "chunk_size": self.chunk_size,
            "factors": [f.model_dump(mode="json", exclude_none=True) for f in self.factors],
            "targets": [g.model_dump(mode="json", exclude_none=True) for g in self.goals],
        }


def _target(cf: CalibrationFile, file: str, lines: Lines) -> Target:
    if (cf.scenario is None) == (cf.campaign is None):
        raise ScenarioError(
            [located(file, lines, (), "name the 'scenario' or the 'campaign' to fit (one of them)")]
        )
    return named_target(file, lines, cf.scenario, cf.campaign)


def _start(cf: CalibrationFile, target: Target, file: str, lines: Lines) -> dict[str, Any]:
    """Each factor's value in the target, checked inside its range or among its values."""
    problems: list[Located] = []
    start: dict[str, Any] = {}
    for i, f in enumerate(cf.factors):
        where = ("factors", i, "path")
        if [g.path for g in cf.factors].index(f.path) != i:
            problems.append(located(file, lines, where, "a factor named twice"))
            continue
        try:
            value = get_path(target.data, f.path)
        except PathError as exc:
            problems.append(located(file, lines, where, str(exc)))
            continue
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
            elif value not in f.values:
                problems.append(
                    located(
                        file,
                        lines,
                        ("factors", i, "values"),
                        f"the scenario's value {value!r} is not among the values: "
                        "the search starts from the scenario's own values",
                    )
                )
        elif not isinstance(value, int | float) or isinstance(value, bool):
            problems.append(
                located(
                    file,
                    lines,
                    ("factors", i, "range"),
                    f"the scenario's value {value!r} is not a number",
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
                        f"the scenario's value {value!r} is outside [{f.range[0]:g}, "
                        f"{f.range[1]:g}]: the search starts from the scenario's own values",
                    )
                )
            if f.type == "int" and not float(value).is_integer():
                problems.append(
                    located(
                        file,
                        lines,
                        ("factors", i, "type"),
                        f"the scenario's value {value!r} is not a whole number",
                    )
                )
            value = int(value) if f.type == "int" else float(value)
        start[f.path] = value
    if problems:
        raise ScenarioError(problems)
    return start


def _measures(cf: CalibrationFile, target: Target, file: str, lines: Lines) -> tuple[Measure, ...]:
    sides = {sid: kinds for sid, (_name, kinds) in target.sides().items()}
    units: list[str] | None = None
    if target.kind == "scenario":
        ruleset, scenario = target.scenarios()[0]
        units = [u.id for u in ruleset.units(scenario, ruleset.initial_state(scenario))]
    out: list[Measure] = []
    problems: list[Located] = []
    for i, goal in enumerate(cf.targets):
        try:
            measure = parse_measure(goal.measure, sides, units)
        except MeasureError as exc:
            problems.append(located(file, lines, ("targets", i, "measure"), str(exc)))
            continue
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
    if problems:
        raise ScenarioError(problems)
    return tuple(out)


def load_calibration(path: str | Path) -> CalibrationSpec:
    """Read a calibration file and the scenario or campaign it fits.

    Raises:
        ScenarioError: every problem, located by file, line and field.
    """
    cf, file, lines = read_located(path, CalibrationFile, "calibration")
    if cf.startup_trials > cf.trials:
        raise ScenarioError(
            [
                located(
                    file,
                    lines,
                    ("startup_trials",),
                    f"{cf.startup_trials} random trials is more than the {cf.trials} trials",
                )
            ]
        )
    target = _target(cf, file, lines)
    start = _start(cf, target, file, lines)
    measures = _measures(cf, target, file, lines)
    return CalibrationSpec(
        name=cf.name or Path(file).stem,
        target=target,
        seed=cf.seed,
        replications=cf.replications,
        trials=cf.trials,
        startup_trials=cf.startup_trials,
        chunk_size=cf.chunk_size,
        factors=tuple(cf.factors),
        goals=tuple(cf.targets),
        measures=measures,
        start=start,
        out=output_folder(file, lines, cf.outputs.dir),
        plots=cf.outputs.plots,
        source=Path(file).name,
    )
