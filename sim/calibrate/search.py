"""The search: trials proposed by optuna's seeded TPE sampler, each fought by the batch engine.

Trial k sets the free factors to the sampler's point and fights
``replications`` runs of it in chunks (:func:`sim.batch.execution.worker.run_chunk`)
on the executor, with **common random numbers**: run r of every trial uses
the seed :func:`sim.batch.inputs.seeds.run_seed` ``(seed, ·, r, crn=True)``, so two
trials differ by their factors, not by their dice. Trial 0 is the target's
own values (the starting point). Each target's measure is estimated over the
trial's done runs, and the trial's objective is

    Σ weight · (miss / scale)²

where *miss* is how far the estimate lies outside the target's range (0
inside it; a value is a range of one point) and *scale* the target's unit of
a miss (:meth:`sim.calibrate.spec.Goal.unit`). The sampler sees only the
objective; it is seeded from the calibration seed, and trials run one after
another, so the search — every point and every number — is the same with any
number of workers.

**Resume.** Every finished trial is appended to ``DIR/trials.jsonl`` (the
file rewritten atomically). ``--resume`` asks a fresh sampler with the same
seed for the stored trials again — it proposes the same points, which are
checked against the stored ones — tells it their stored objectives, and goes
on: the result equals an uninterrupted search's.
"""

from __future__ import annotations

import json
import math
import warnings
from collections.abc import Callable
from concurrent.futures import Executor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engine.atomic import atomic_write_text
from engine.canonical import canonical_json
from sim.batch.execution.rows import ChunkRows
from sim.batch.execution.worker import Chunk, Shared, run_chunk
from sim.batch.inputs.guard import FolderError, claim_folder
from sim.batch.inputs.seeds import derived_seed
from sim.batch.planning.plan import StudyPlan
from sim.batch.storage.store import loss_columns
from sim.calibrate.measures import Estimate, estimate, values
from sim.calibrate.spec import CalibrationSpec

__all__ = [
    "IDENTITY",
    "TRIALS",
    "CalibrationError",
    "Trial",
    "calibrate",
]

IDENTITY = "calibration.json"
"""The calibration's settings, written when it starts (``--resume`` must match them)."""

TRIALS = "trials.jsonl"
"""One line per finished trial, in order."""

SAMPLER = "optuna TPESampler"


class CalibrationError(ValueError):
    """A calibration that cannot start or resume; the message names the file."""


@dataclass(frozen=True)
class Trial:
    """One finished trial: its point, each target's estimate, and the objective."""

    number: int
    params: dict[str, Any]
    objective: float | None
    """None when no run of the trial was done (the point failed to validate)."""
    estimates: tuple[Estimate, ...]
    runs: int
    failed: int
    error: str | None = None

    def as_json(self) -> dict[str, Any]:
        """Plain data for ``trials.jsonl``."""
        return {
            "trial": self.number,
            "params": self.params,
            "objective": self.objective,
            "estimates": [
                {
                    "value": _num(e.value),
                    "low": _num(e.low),
                    "high": _num(e.high),
                    "n": e.n,
                    "method": e.method,
                }
                for e in self.estimates
            ],
            "runs": self.runs,
            "failed": self.failed,
            "error": self.error,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Trial:
        """The inverse of :meth:`as_json`."""
        return cls(
            number=int(data["trial"]),
            params=dict(data["params"]),
            objective=data["objective"],
            estimates=tuple(
                Estimate(_nan(e["value"]), _nan(e["low"]), _nan(e["high"]), e["n"], e["method"])
                for e in data["estimates"]
            ),
            runs=int(data["runs"]),
            failed=int(data["failed"]),
            error=data.get("error"),
        )


def _num(x: float) -> float | None:
    return None if math.isnan(x) else x


def _nan(x: float | None) -> float:
    return math.nan if x is None else float(x)


Progress = Callable[[Trial, Trial | None, int], None]
"""Called after each trial with (the trial, the best so far, trials planned)."""


def objective(spec: CalibrationSpec, estimates: tuple[Estimate, ...]) -> float:
    """Σ weight · (miss / scale)² over the targets (see the module's docstring)."""
    total = 0.0
    for goal, measure, est in zip(spec.goals, spec.measures, estimates, strict=True):
        total += goal.weight * goal.miss(est.value, measure.kind) ** 2
    return total


def _evaluate(
    spec: CalibrationSpec,
    shared: Shared,
    losses: tuple[tuple[str, str], ...],
    executor: Executor,
    number: int,
    params: dict[str, Any],
) -> Trial:
    """Fight trial ``number`` at ``params`` and measure it."""
    plan = StudyPlan(
        target=spec.target,
        seed=spec.seed,
        replications=spec.replications,
        crn=True,
        chunk_size=spec.chunk_size,
    )
    chunks = [
        Chunk(shared, number, params, tuple(plan.chunk_runs(number, j)))
        for j in range(plan.chunks())
    ]
    futures = [executor.submit(run_chunk, c) for c in chunks]
    rows: ChunkRows | None = None
    for future in futures:  # in chunk order, whatever order they finish in
        got = future.result()
        if rows is None:
            rows = got
        else:
            rows.extend(got)
    assert rows is not None
    status = rows.runs[4]
    done = sum(1 for s in status if s == "done")
    failed = len(status) - done
    if done == 0:
        error = next((e for e in rows.runs[5] if e), "no run was done")
        return Trial(number, params, None, (), len(status), failed, str(error))
    estimates = tuple(estimate(m.kind, values(m, rows, losses)) for m in spec.measures)
    return Trial(number, params, objective(spec, estimates), estimates, len(status), failed)


def _distributions(spec: CalibrationSpec) -> dict[str, Any]:
    from optuna.distributions import (  # noqa: PLC0415  # optuna only in this command
        CategoricalDistribution,
        FloatDistribution,
        IntDistribution,
    )

    out: dict[str, Any] = {}
    for f in spec.factors:
        if f.values is not None:
            out[f.path] = CategoricalDistribution(f.values)
        elif f.type == "int":
            assert f.range is not None
            out[f.path] = IntDistribution(int(f.range[0]), int(f.range[1]))
        else:
            assert f.range is not None
            out[f.path] = FloatDistribution(float(f.range[0]), float(f.range[1]))
    return out


def _sampler_seed(seed: int) -> int:
    """The sampler's 32-bit seed: ``derived_seed(seed, "calibrate") mod 2³²``."""
    return derived_seed(seed, "calibrate") % 2**32


def _stored(out: Path, spec: CalibrationSpec, resume: bool) -> list[Trial]:
    """The trials already run (``--resume``), after checking the settings match."""
    ident = out / IDENTITY
    wanted = {"calibration": spec.identity(), "sampler": SAMPLER}
    if not ident.exists():
        if any(out.iterdir()):
            raise CalibrationError(
                f"{str(out)!r} holds files that no calibration made: name a new or empty folder"
            )
        atomic_write_text(ident, json.dumps(wanted, indent=2, sort_keys=True) + "\n")
        return []
    if not resume:
        raise CalibrationError(
            f"{str(out)!r} already holds a calibration: add --resume to continue it, "
            "or name a new folder"
        )
    try:
        stored = json.loads(ident.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise CalibrationError(f"{ident}: not a calibration's settings ({exc})") from None
    if stored != json.loads(json.dumps(wanted)):
        diff = [
            k
            for k in wanted["calibration"]
            if stored.get("calibration", {}).get(k)
            != json.loads(json.dumps(wanted["calibration"]))[k]
        ]
        raise CalibrationError(
            f"{ident}: the calibration there was started with other settings "
            f"({', '.join(diff) or 'sampler'}): resume it with the same file, or name a new folder"
        )
    path = out / TRIALS
    if not path.exists():
        return []
    trials: list[Trial] = []
    for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        try:
            trials.append(Trial.from_json(json.loads(line)))
        except (ValueError, KeyError, TypeError) as exc:
            raise CalibrationError(f"{path}:{i}: not a trial record ({exc})") from None
    return trials


def _write(out: Path, trials: list[Trial]) -> None:
    atomic_write_text(out / TRIALS, "".join(canonical_json(t.as_json()) + "\n" for t in trials))


def best_of(trials: list[Trial]) -> Trial | None:
    """The trial with the lowest objective (the first of equals); None if all failed."""
    best: Trial | None = None
    for t in trials:
        if t.objective is not None and (best is None or t.objective < best.objective):  # type: ignore[operator]
            best = t
    return best


def calibrate(
    spec: CalibrationSpec,
    out: Path,
    executor: Executor,
    resume: bool = False,
    progress: Progress | None = None,
) -> list[Trial]:
    """Run (or with ``resume`` complete) the calibration into folder ``out``; its trials.

    Raises:
        CalibrationError: the folder cannot be used, or holds another calibration.
    """
    try:
        # resume=True: the folder's own check (_stored) says "calibration", not "study".
        with claim_folder(out, IDENTITY, resume=True):
            return _search(spec, out, executor, resume, progress)
    except FolderError as exc:
        raise CalibrationError(str(exc)) from None


def _search(
    spec: CalibrationSpec,
    out: Path,
    executor: Executor,
    resume: bool,
    progress: Progress | None,
) -> list[Trial]:
    import optuna  # noqa: PLC0415  # the study extra; only this command needs it
    from optuna.trial import TrialState  # noqa: PLC0415

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    stored = _stored(out, spec, resume)
    sides = spec.target.sides()
    losses = tuple((side, kind) for side, kind, _ in loss_columns(sides))
    shared = Shared.of(spec.target, losses)
    sampler = optuna.samplers.TPESampler(
        seed=_sampler_seed(spec.seed), n_startup_trials=spec.startup_trials
    )
    study = optuna.create_study(direction="minimize", sampler=sampler)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # optuna's notes on enqueued points
        study.enqueue_trial(dict(spec.start))
    dists = _distributions(spec)
    trials: list[Trial] = []
    for number in range(spec.trials):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            asked = study.ask(dists)
        params = {f.path: asked.params[f.path] for f in spec.factors}
        if number < len(stored):
            trial = stored[number]
            if canonical_json(trial.params) != canonical_json(params):
                raise CalibrationError(
                    f"{out / TRIALS}: trial {number} was {trial.params}, the sampler now proposes "
                    f"{params} (another optuna version?): start again in a new folder"
                )
        else:
            trial = _evaluate(spec, shared, losses, executor, number, params)
        trials.append(trial)
        if trial.objective is None:
            study.tell(asked, state=TrialState.FAIL)
        else:
            study.tell(asked, trial.objective)
        if number >= len(stored):
            _write(out, trials)
        if progress is not None:
            progress(trial, best_of(trials), spec.trials)
    return trials
