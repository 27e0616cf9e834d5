"""Study files: a whole study in YAML, modelled on data-farming study specs.

```yaml
name: Stone wall — Union fire lethality
scenario: stone_wall.yaml        # or  campaign: fredericksburg_campaign.yaml
seed: 2024
replications: 200
design: grid                     # grid (full factorial); lhs, morris or sobol (points: K)
crn: true                        # common random numbers across design points
factors:
  - {path: options.fire_hcv, values: [15, 20, 25, 30, 35]}
  - {path: sides.csa.units.phil.strength, range: [300, 500], type: int, levels: 3}
outputs: {keep_replays: 1, export: [parquet]}
```

Paths in the file are relative to it. Every problem is reported as
``file:line: field: message`` (the scenario loader's parser and line map).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from sim.batch.inputs.fieldpath import PathError, overlap, resolve_path, unsettable
from sim.batch.inputs.files import (
    FieldPath,
    Validated,
    in_order,
    located,
    read_yaml,
    validate_all,
)
from sim.batch.inputs.sources import named_target, output_folder
from sim.batch.inputs.target import Target, campaign_at, source_label
from sim.batch.methods.differences import PAIRED_DEFAULT, Paired
from sim.batch.planning.design import Design, DesignError, Factor, consistent
from sim.batch.planning.factors import decimal_reason, repeated, unsweepable
from sim.batch.planning.plan import DEFAULT_CHUNK, StudyPlan
from sim.contract.models import typed
from sim.scenario.load import Located, ScenarioError, validate_data

__all__ = ["Outputs", "RunsFile", "StudyFile", "StudySpec", "load_study"]


class Outputs(BaseModel):
    """Where results go and what is written besides the database."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    dir: str | None = Field(
        None, description="Output folder, relative to the study file (default: ./<file stem>)."
    )
    keep_replays: int = Field(
        0, ge=0, le=1_000_000, description="Full replays of the first K replications per point."
    )
    plots: bool = Field(True, description="Write DIR/plots/*.png.")
    export: list[Literal["parquet", "csv"]] = Field(
        default_factory=list, description="Also export the tables (DIR/export/)."
    )


Interval = Literal["wilson", "clopper-pearson", "jeffreys"]
"""The interval methods a study file may name (:data:`sim.batch.methods.stats.METHODS`)."""


class RunsFile(BaseModel):
    """The fields a file of seeded runs opens with (a study's, a calibration's): its name,
    the scenario or campaign it fights, and the seed its runs' seeds are derived from.

    Each file checks that it names the one to fight: :func:`load_study` the scenario or
    the campaign, :mod:`sim.calibrate.spec` those or its historical cases.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str | None = Field(None, min_length=1, max_length=200)
    description: str = Field("", max_length=20_000)
    scenario: str | None = Field(None, min_length=1, description="Scenario file to fight.")
    campaign: str | None = Field(None, min_length=1, description="Campaign file to fight.")
    seed: int = Field(1, ge=0, le=2**63 - 1, description="The seed every run's is derived from.")


class StudyFile(RunsFile):
    """The fields of a study file."""

    replications: int = Field(ge=1, le=10_000_000, description="Runs per design point.")
    design: Design = "grid"
    points: int | None = Field(None, ge=1, le=100_000, description="Points of a Latin hypercube.")
    crn: bool = Field(False, description="Common random numbers across design points.")
    chunk_size: int = Field(DEFAULT_CHUNK, ge=1, le=100_000)
    until_ci: float | None = Field(
        None, gt=0, lt=0.5, description="Stop a point at this Wilson 95 % half-width."
    )
    baseline: int = Field(
        0, ge=0, le=100_000, description="The design point the others are compared with."
    )
    interval: Interval = Field(
        "wilson", description="The 95 % interval of win and draw rates (summary only)."
    )
    paired_interval: Paired = Field(
        PAIRED_DEFAULT,
        description="The 95 % interval of a paired (CRN) win-rate difference (summary only).",
    )
    factors: list[Factor] = Field(default_factory=list, max_length=100)
    outputs: Outputs = Field(default_factory=Outputs)


@dataclass(frozen=True)
class StudySpec:
    """A study file read and checked: the plan and its outputs."""

    plan: StudyPlan
    outputs: Outputs
    out: Path
    """The output folder (``outputs.dir`` relative to the file, else ./<stem>)."""
    baseline: int = 0
    """The design point the others are compared with."""
    interval: str = "wilson"
    """The proportions' interval (:data:`sim.batch.methods.stats.METHODS`)."""
    paired_interval: Paired = PAIRED_DEFAULT
    """The paired win-rate differences' interval (:data:`sim.batch.methods.differences.PAIRED`)."""
    file: str = ""
    """The study file, as named (for messages about its fields once flags are applied)."""
    lines: dict[FieldPath, int] = field(default_factory=dict)
    """Each field's line in the file (:func:`sim.scenario.load.line_of` reads it)."""


def point_problem(spec: StudySpec, field: str, point: dict[str, Any], reason: str) -> str | None:
    """A design point the scenario refuses, told at the study file's factor that made it:
    ``wall.yaml:5: factors.0.values.1: map.terrain.0.cover = -200: Input should be …``
    (the value's own line among ``values``, else the factor's ``range`` or the factor);
    None when no factor of the file sets ``field`` (a ``--sweep``'s)."""
    factors = list(enumerate(spec.plan.factors))
    told = _told(spec.plan.target, factors, spec.file, spec.lines, field, point, reason)
    return None if told is None else str(told)


def _told(
    target: Target,
    factors: Sequence[tuple[int, Factor]],
    file: str,
    lines: dict[FieldPath, int],
    field: str,
    point: dict[str, Any],
    reason: str,
) -> Located | None:
    """:func:`point_problem`'s problem, located: ``factors`` each with its place in the
    file's ``factors``."""
    for i, f in factors:
        try:  # the scenario names a field by its indexes (sides.1.units.0), a factor by ids
            keys = ".".join(str(k) for k in resolve_path(target.data, f.path, target.filled()))
        except PathError:
            keys = f.path
        if f.path not in point or not any(
            field == p or field.startswith(f"{p}.") for p in (f.path, keys)
        ):
            continue
        value = point[f.path]
        key: tuple[str | int, ...] = ("factors", i)
        fraction = next(  # a fraction among whole numbers, on a field of whole numbers: its line
            (j for j, v in enumerate(f.values or []) if isinstance(v, float) and not v.is_integer()
             and reason.startswith(f"{json.dumps(v)} is not a whole number")),
            None,
        )  # fmt: skip
        if fraction is not None and f.values is not None:
            value, key = f.values[fraction], ("factors", i, "values", fraction)
        elif f.values is not None:
            same = [j for j, v in enumerate(f.values) if typed(v) == typed(value)] or [
                j
                for j, v in enumerate(f.values)
                if v == value  # -20 made -20.0 by a -35.5
            ]
            key = ("factors", i, "values", same[0]) if same else ("factors", i, "values")
        elif f.range is not None:
            key = ("factors", i, "range")
            if f.type == "float" and reason.endswith("is not an integer"):
                # a fraction drawn from the range (a whole one is told so where the
                # study's points are checked: sim.batch.planning.factors.decimal_reason)
                reason += " (a range factor's values are decimals unless it says 'type: int')"
        return located(file, lines, key, f"{f.path} = {json.dumps(value)}: {reason}")
    return None


Problems = list[tuple[tuple[str, ...], str]]


def _consistency(sf: StudyFile, read: Validated[StudyFile]) -> Problems:
    """Problems between fields, each with the field to point at (each checked unless the
    schema refused a field it reads)."""
    problems: Problems = []
    named = read.sound(("scenario",), ("campaign",))
    if named and sf.scenario is not None and sf.campaign is not None:
        problems.append((("campaign",), "name a 'scenario' or a 'campaign', not both"))
    if named and sf.scenario is None and sf.campaign is None:
        problems.append(((), "name the 'scenario' (or 'campaign') file to run"))
    points = read.sound(("design",), ("points",))
    if points and sf.design != "grid" and sf.points is None:
        what = {"lhs": "design points", "morris": "trajectories", "sobol": "base samples"}
        problems.append(
            (("design",), f"design {sf.design} needs 'points' (how many {what[sf.design]})")
        )
    if read.sound(("design",), ("factors",)) and sf.design != "grid" and not sf.factors:
        problems.append((("design",), f"design {sf.design} needs at least one factor"))
    if points and sf.design == "sobol" and sf.points is not None and sf.points & (sf.points - 1):
        problems.append((("points",), "a sobol design needs a power of two (base samples)"))
    if points and sf.design == "grid" and sf.points is not None:
        problems.append(
            (
                ("points",),
                "'points' applies to designs lhs, morris and sobol; a grid has every combination",
            )
        )
    return problems


def _resolved(target: Target | None, path: str) -> tuple[str | int, ...] | str:
    """The keys and indexes ``path`` walks in the target; the path as written, where it
    leads to no field (refused on its own) or there is no target to walk."""
    if target is None:
        return path
    try:
        return resolve_path(target.data, path, target.filled())
    except PathError:
        return path


def _factor_problems(
    sf: StudyFile,
    read: Validated[StudyFile],
    data: Any,
    target: Target | None,
    file: str,
    lines: dict[FieldPath, int],
) -> tuple[list[Located], list[tuple[int, Factor]]]:
    """The factors' problems, and the factors kept whose paths and levels have none, each
    with its place in the file. A path is checked against the target when there is one;
    a design's checks are left out when the schema refused ``design``."""
    problems, flawed = _path_problems(read.texts(data, "factors", "path"), target, file, lines)
    design = sf.design if read.sound(("design",)) else None
    kept: list[tuple[int, Factor]] = read.placed("factors")
    for i, f in kept:
        if f.values is not None and "type" in f.model_fields_set:
            # docs/batch.md gives 'type' to a range alone (a stored plan's values factors carry
            # the default, so Factor itself cannot refuse it)
            message = "'type' applies to a range; a values list's levels are typed as written"
            problems.append(located(file, lines, ("factors", i), message))
        for j in repeated(f.values or []):
            message = f"the value {f.values[j]!r} is named twice"  # type: ignore[index]
            problems.append(located(file, lines, ("factors", i, "values", j), message))
        if design == "grid":
            try:
                f.grid_levels()
            except DesignError as exc:
                problems.append(located(file, lines, ("factors", i), str(exc)))
                flawed.add(i)
        elif design is not None and f.levels is not None:  # the others draw from the range
            problems.append(
                located(
                    file,
                    lines,
                    ("factors", i, "levels"),
                    f"'levels' applies to a grid design; {design} draws from the whole range",
                )
            )
    return problems, [(i, f) for i, f in kept if i not in flawed]


def _path_problems(
    paths: list[tuple[int, str]], target: Target | None, file: str, lines: dict[FieldPath, int]
) -> tuple[list[Located], set[int]]:
    """The problems of the factors' ``paths`` (each with its factor's place in the file),
    and the places of the factors that have one."""
    problems: list[Located] = []
    flawed: set[int] = set()
    fields = [_resolved(target, path) for _, path in paths]
    for n, (i, path) in enumerate(paths):
        if target is not None:
            try:
                target.check_path(path)
            except PathError as exc:
                problems.append(located(file, lines, ("factors", i, "path"), str(exc)))
                flawed.add(i)
        j = next((j for j in range(n) if overlap([fields[j], fields[n]]) is not None), None)
        if j is not None:  # this factor against each before it: a third of one field too
            at, other = paths[j]
            if fields[n] != fields[j]:
                message = f"sweeps what factors.{at} ({other}) sweeps: give one of them"
            else:
                message = "swept twice" + (f", as factors.{at} ({other})" if other != path else "")
            problems.append(located(file, lines, ("factors", i, "path"), message))
            flawed.add(i)
        why = unsettable(path) or unsweepable(path)
        if why is not None:
            problems.append(located(file, lines, ("factors", i, "path"), why))
            flawed.add(i)
    return problems, flawed


def _value_problems(
    target: Target, factors: list[tuple[int, Factor]], file: str, lines: dict[FieldPath, int]
) -> list[Located]:
    """Each level of a grid's factor that the scenario refuses, at its line in the file as
    the study's check of its design points before the first run says it
    (:func:`point_problem`): each factor's levels tried at a point of the grid, the other
    factors at their first levels (a factor the schema left out at the scenario's own
    value), and every problem of the point said that a factor's value makes (once for a
    value; for a range, its first). A point refused for what no factor sets is left to
    that check, which says it whole."""
    if not factors:
        return []
    levels = [f.grid_levels() for _, f in factors]
    first = {f.path: at[0] for (_, f), at in zip(factors, levels, strict=True)}
    tried = [first] + [
        {**first, f.path: v} for (_, f), at in zip(factors, levels, strict=True) for v in at[1:]
    ]
    found: list[Located] = []
    for point in consistent(tried):  # each number typed as the grid types it (25.0 by 2.5)
        try:
            if target.kind == "scenario":
                validate_data(target.at(point), {}, target.source)
            else:
                campaign_at(target, point)
        except ScenarioError as exc:
            for p in exc.problems:
                reason = decimal_reason([f for _, f in factors], p.field, p.message)
                told = _told(target, factors, file, lines, p.field, point, reason)
                if told is not None and not any(told.field == t.field for t in found):
                    found.append(told)  # one for each value, or for a range: its first
        except ValidationError:
            continue  # a campaign's own field: left to the check of every point
    return found


def load_study(path: str | Path) -> StudySpec:
    """Read a study file and the scenario or campaign it names.

    Every problem is found in one pass: the schema's, and each later check's (the names,
    the design, the factors' paths and levels, the values of a grid's factors, the output
    folder) unless it reads a field the schema refused (:class:`Validated`); the factors'
    paths are checked once the scenario or campaign reads (its own problems are said
    after the study file's).

    Raises:
        ScenarioError: every problem, located by file, line and field, by line.
    """
    file = str(path)
    data, lines = read_yaml(path)
    read = validate_all(StudyFile, data, lines, file, "study")
    lines = read.lines(lines)
    problems = list(read.problems)
    sf, target, out = read.model, None, None
    if sf is not None:
        problems += [located(file, lines, p, m) for p, m in _consistency(sf, read)]
        one = (sf.scenario is None) != (sf.campaign is None)
        if one and read.sound(("scenario",), ("campaign",)):
            try:
                target = named_target(file, lines, sf.scenario, sf.campaign)
            except ScenarioError as exc:
                problems += exc.problems
        found, usable = _factor_problems(sf, read, data, target, file, lines)
        problems += found
        if target is not None and read.sound(("design",)) and sf.design == "grid":
            problems += _value_problems(target, usable, file, lines)
        if read.sound(("outputs", "dir")):
            try:
                out = output_folder(file, lines, sf.outputs.dir)
            except ScenarioError as exc:
                problems += exc.problems
    if problems or sf is None or target is None or out is None:
        raise ScenarioError(in_order(file, problems))
    plan = StudyPlan(
        target=target,
        seed=sf.seed,
        replications=sf.replications,
        factors=tuple(sf.factors),
        design=sf.design,
        points=sf.points,
        crn=sf.crn,
        chunk_size=sf.chunk_size,
        until_ci=sf.until_ci,
        keep_replays=sf.outputs.keep_replays,
        name=sf.name or Path(source_label(file)).stem,
    )
    return StudySpec(
        plan, sf.outputs, out, sf.baseline, sf.interval, sf.paired_interval, file, lines
    )
