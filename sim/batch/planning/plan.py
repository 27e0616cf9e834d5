"""A study's plan: what it runs, and the runs and chunks that follows from it.

A run is ``(design point p, replication r)``; its id is
``p × replications + r``, so ordering by id orders by point, then
replication. Replications go to workers in chunks of ``chunk_size``
consecutive replications of one point: chunk j of point p holds
replications ``j·C … min((j+1)·C, R) − 1``.
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass, field
from functools import partial
from typing import Any, get_args

from engine.version import FORMAT_VERSION
from sim.batch.inputs.seeds import DOMAIN, RunSpec, run_seed
from sim.batch.inputs.target import Target
from sim.batch.planning.design import Design, Factor, design_points
from sim.batch.planning.stopping import PILOT
from sim.scenario.values import ValueProblem, check_seed, whole
from sim.text.grammar import count

__all__ = ["DEFAULT_CHUNK", "MAX_RUNS", "StudyPlan", "size_problem"]

DEFAULT_CHUNK = 20
"""Replications per chunk: ~0.1 s of work for a small battle, so a task's
overhead (~0.2 ms in a process pool, a few ms in Dask) stays under a few %."""

MAX_RUNS = 100_000_000
"""Most runs (design points × replications) a study may plan: about a week of one
core's fighting at ~5 ms a small battle, and a runs table DuckDB still reads at ease."""


@dataclass(frozen=True)
class StudyPlan:
    """Everything that decides a study's results (what ``--resume`` must match).

    Attributes:
        target: the scenario or campaign.
        seed: the study seed (run seeds are spawned from it; see seeds.py).
        replications: replications per design point (the most, with ``until_ci``).
        factors: the swept fields.
        design: ``grid`` (full factorial) or ``lhs`` (Latin hypercube).
        points: design points of a Latin hypercube.
        crn: common random numbers: run seeds depend on the replication only.
        chunk_size: replications per chunk.
        until_ci: the target Wilson 95 % half-width of every side's win rate (a pilot
            sizes each point's confirmatory sample: :mod:`sim.batch.planning.stopping`).
        keep_replays: keep full replays of the first K replications of each point.
        name: the study's name.
        overrides: the study file's fields the command line overrode, each
            ``{"file": <the file's value>, "value": <this plan's>}``
            (:mod:`sim.batch.overrides`); part of the identity when there are any.
    """

    target: Target
    seed: int
    replications: int
    factors: tuple[Factor, ...] = ()
    design: Design = "grid"
    points: int | None = None
    crn: bool = False
    chunk_size: int = DEFAULT_CHUNK
    until_ci: float | None = None
    keep_replays: int = 0
    name: str = field(default="")
    overrides: dict[str, dict[str, Any]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        """Each setting checked as the command line and a study file check it, before any
        folder or database is made: a plan built in Python that could not run is refused
        here, in one line naming the field (whole numbers from NumPy are taken as ints)."""
        fix = partial(object.__setattr__, self)
        try:
            fix("seed", check_seed(self.seed))
        except ValueProblem as exc:
            raise ValueProblem(f"StudyPlan seed: {exc}") from None
        fix("replications", _whole("replications", self.replications, 1, MAX_RUNS))
        fix("chunk_size", _whole("chunk_size", self.chunk_size, 1, 100_000))
        fix("keep_replays", _whole("keep_replays", self.keep_replays, 0, 2**63 - 1))
        if self.points is not None:
            fix("points", _whole("points", self.points, 1, 100_000))
        if self.design not in get_args(Design):
            raise ValueProblem(
                f"StudyPlan design: {self.design!r} is not a design: "
                f"use one of {', '.join(get_args(Design))}"
            )
        ci = self.until_ci
        if ci is not None and (
            isinstance(ci, bool) or not isinstance(ci, numbers.Real) or not 0 < ci < 0.5
        ):
            raise ValueProblem(
                f"StudyPlan until_ci: {ci!r} is not a half-width: use a number between 0 and "
                "0.5 (not either end)"
            )
        if ci is not None:
            fix("until_ci", float(ci))
        fix("factors", tuple(self.factors))

    def design_points(self) -> list[dict[str, Any]]:
        """The design points (see :func:`sim.batch.planning.design.design_points`)."""
        return design_points(self.design, list(self.factors), self.points, self.seed)

    def point_count(self) -> int:
        """How many design points the design has, counted without building them."""
        k = len(self.factors)
        if k == 0:
            return 1
        if self.design == "grid":
            try:
                return math.prod(len(f.grid_levels()) for f in self.factors)
            except ValueError:
                return 1  # a bad grid is refused with its own message when it is built
        points = self.points or 0
        return points * {"lhs": 1, "morris": k + 1, "sobol": k + 2}[self.design]

    def identity(self) -> dict[str, Any]:
        """Plain data of every setting that changes results, for the study table."""
        out: dict[str, Any] = {
            "format_version": FORMAT_VERSION,  # the dice (engine.replayfile.formats.derivation_of)
            "seed_scheme": DOMAIN,
            "target_digest": self.target.digest(),
            "seed": self.seed,
            "replications": self.replications,
            "factors": [f.stored() for f in self.factors],
            "design": self.design,
            "points": self.points,
            "crn": self.crn,
            "chunk_size": self.chunk_size,
            "until_ci": self.until_ci,
            "keep_replays": self.keep_replays,
            # the --until-ci rule (planning/stopping.py); a plan without it stopped sequentially
            **({"stopping": PILOT} if self.until_ci is not None else {}),
        }
        if self.overrides:  # a plan that overrides nothing is the plan it always was
            out["overrides"] = self.overrides
        return out

    def chunks(self) -> int:
        """Chunks per design point."""
        return math.ceil(self.replications / self.chunk_size)

    def run_id(self, point: int, replication: int) -> int:
        """The id of run ``(point, replication)``."""
        return point * self.replications + replication

    def locate(self, run_id: int) -> tuple[int, int]:
        """``(point, replication)`` of a run id."""
        return divmod(run_id, self.replications)

    def run(self, point: int, replication: int) -> RunSpec:
        """The run ``(point, replication)`` with its spawned seed."""
        return RunSpec(
            run_id=self.run_id(point, replication),
            point=point,
            replication=replication,
            seed=run_seed(self.seed, point, replication, self.crn),
            keep_replay=replication < self.keep_replays,
        )

    def chunk_runs(self, point: int, chunk: int) -> list[RunSpec]:
        """The runs of chunk ``chunk`` of ``point``."""
        first = chunk * self.chunk_size
        last = min(first + self.chunk_size, self.replications)
        return [self.run(point, r) for r in range(first, last)]


def _whole(name: str, value: object, low: int, high: int) -> int:
    """``value`` as a whole number from ``low`` to ``high``, for :class:`StudyPlan`."""
    number = whole(value)
    if number is None or not low <= number <= high:
        raise ValueProblem(
            f"StudyPlan {name}: {value!r} is not a whole number from {low:,} to {high:,}"
        )
    return number


def size_problem(plan: StudyPlan) -> str | None:
    """Why the plan is too large to run (None when it is not): its points × replications.

    Said before a design point is built, so a study of 10¹² runs is refused at once.
    """
    points = plan.point_count()
    runs = points * plan.replications
    if runs <= MAX_RUNS:
        return None
    return (
        f"{count(points, 'design point', spec=',')} × "
        f"{count(plan.replications, 'replication', spec=',')} = {runs:,} runs; "
        f"a study plans at most {MAX_RUNS:,} (lower the replications or the points)"
    )
