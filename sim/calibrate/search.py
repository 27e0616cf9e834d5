"""The search: trials proposed by a seeded optuna sampler, each fought by the batch engine.

The sampler is optuna's TPE sampler, or — when every factor is discrete (a
``values`` list, a range with ``levels``, or an ``int`` range) and the grid
of their combinations has no more points than ``trials`` — the whole grid, every point once: the
scenario's own point first, then the others in an order shuffled by a
generator seeded from the calibration seed (:func:`grid_points`). No point is fought twice: a point
the sampler proposes again is answered with the objective it already had
(the sampler learns nothing new, no run is fought, no trial is counted), and
after :data:`MAX_REPEATS` such answers in a row the search stops, the space
being as good as exhausted.

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
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from engine.canonical import canonical_json
from engine.safety.atomic import atomic_write_text
from engine.safety.files import FileProblem, read_bounded
from sim.batch.execution.rows import ChunkRows
from sim.batch.execution.worker import Chunk, Shared, run_chunk
from sim.batch.inputs.guard import FolderError, claim_folder
from sim.batch.inputs.seeds import derived_seed
from sim.batch.planning.plan import StudyPlan
from sim.batch.storage.store import loss_columns
from sim.calibrate.measures import Estimate, estimate, values
from sim.calibrate.spec import CalibrationSpec, verdict

__all__ = [
    "IDENTITY",
    "MAX_REPEATS",
    "TRIALS",
    "CalibrationError",
    "Search",
    "Trial",
    "calibrate",
    "grid_size",
    "refight",
    "refight_start",
    "run_search",
]

IDENTITY = "calibration.json"
"""The calibration's settings, written when it starts (``--resume`` must match them)."""

TRIALS = "trials.jsonl"
"""One line per finished trial, in order."""

SAMPLER = "optuna TPESampler"
BRUTE_FORCE = "the whole grid"

MAX_REPEATS = 200
"""Proposals of already-tried points in a row after which the search stops."""

FRESH = "calibrate-fresh"
"""What the fresh seeds of a re-fight are derived with: ``derived_seed(seed, FRESH)``."""


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
        """The inverse of :meth:`as_json`.

        Raises:
            ValueError, KeyError, TypeError: ``data`` is not such a record (a field of the
                wrong type: an objective that is text would fail only when compared).
        """
        if not isinstance(data["params"], dict) or not isinstance(data["estimates"], list):
            raise TypeError("params must be a mapping and estimates a list")
        error = data.get("error")
        if error is not None and not isinstance(error, str):
            raise TypeError(f"error must be text, not {error!r}")
        return cls(
            number=_whole(data["trial"]),
            params=dict(data["params"]),
            objective=_number(data["objective"]),
            estimates=tuple(
                Estimate(
                    _nan(_number(e["value"])),
                    _nan(_number(e["low"])),
                    _nan(_number(e["high"])),
                    _whole(e["n"]),
                    _text(e["method"]),
                )
                for e in data["estimates"]
            ),
            runs=_whole(data["runs"]),
            failed=_whole(data["failed"]),
            error=error,
        )


def _number(x: Any) -> float | None:
    """A stored number (or null), refusing text and true/false."""
    if x is None:
        return None
    if isinstance(x, bool) or not isinstance(x, int | float) or not math.isfinite(x):
        raise TypeError(f"{x!r} is not a finite number")
    return float(x)


def _whole(x: Any) -> int:
    if isinstance(x, bool) or not isinstance(x, int):
        raise TypeError(f"{x!r} is not a whole number")
    return x


def _text(x: Any) -> str:
    if not isinstance(x, str):
        raise TypeError(f"{x!r} is not text")
    return x


def _num(x: float) -> float | None:
    return None if math.isnan(x) else x


def _nan(x: float | None) -> float:
    return math.nan if x is None else float(x)


Progress = Callable[[Trial, Trial | None, int], None]
"""Called after each trial with (the trial, the best so far, trials planned)."""


def objective(spec: CalibrationSpec, estimates: tuple[Estimate, ...]) -> float | None:
    """Σ weight · (miss / scale)² over the targets (see the module's docstring); None when
    some target has no estimate (e.g. a ratio whose other side lost nothing in any run).

    With the file's ``objective: verdicts``, the verdicts come first: the weight of the
    targets not met (their 95 % interval not wholly within the range), plus
    (the weight of those missed, wholly outside, + D / (1 + D)) / (W + 1), where D is the
    distance above and W the targets' total weight. With weights of 1 the order is
    lexicographic: fewer targets not met, then fewer missed, then the smaller distance —
    the order `battlesim history`'s verdicts and the fitting protocols read.
    """
    total = 0.0
    not_met = missed = weights = 0.0
    for goal, measure, est in zip(spec.goals, spec.measures, estimates, strict=True):
        if math.isnan(est.value):
            return None
        total += goal.weight * goal.miss(est.value, measure.kind) ** 2
        found = verdict(goal, est.low, est.high)
        weights += goal.weight
        not_met += goal.weight * (found != "met")
        missed += goal.weight * (found == "missed")
    if spec.objective == "verdicts":
        return not_met + (missed + total / (1.0 + total)) / (weights + 1.0)
    return total


def _finished(
    spec: CalibrationSpec,
    number: int,
    params: dict[str, Any],
    estimates: tuple[Estimate, ...],
    runs: int,
    failed: int,
) -> Trial:
    value = objective(spec, estimates)
    if value is None:
        missing = next(
            m.name for m, e in zip(spec.measures, estimates, strict=True) if math.isnan(e.value)
        )
        return Trial(number, params, None, estimates, runs, failed, f"no estimate of {missing}")
    return Trial(number, params, value, estimates, runs, failed)


def _evaluate(
    spec: CalibrationSpec,
    shared: Shared | None,
    losses: tuple[tuple[str, str], ...],
    executor: Executor,
    number: int,
    params: dict[str, Any],
    fresh: bool = False,
) -> Trial:
    """Fight trial ``number`` at ``params`` and measure it (on fresh seeds: ``fresh``)."""
    if spec.target is None:
        return _evaluate_cases(spec, executor, number, params, fresh)
    assert shared is not None
    plan = StudyPlan(
        target=spec.target,
        seed=derived_seed(spec.seed, FRESH) if fresh else spec.seed,
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
    estimates = tuple(estimate(m.kind, values(m, rows, losses), m.floor) for m in spec.measures)
    return _finished(spec, number, params, estimates, len(status), failed)


def _evaluate_cases(
    spec: CalibrationSpec,
    executor: Executor,
    number: int,
    params: dict[str, Any],
    fresh: bool,
) -> Trial:
    """Fight every case at ``params`` (:meth:`sim.calibrate.spec.Cases.evaluate`); a point
    some case's scenario refuses is a failed trial, as a scenario's is (it stopped the
    whole calibration, and ``--resume`` proposed it again, so one never finished)."""
    assert spec.cases is not None
    refused = spec.cases.refused(params)
    if refused is not None:
        return Trial(number, params, None, (), 0, 0, refused)
    estimates, runs = spec.cases.evaluate(executor, params, spec.replications, fresh)
    return _finished(spec, number, params, estimates, runs, 0)


def grid_size(spec: CalibrationSpec) -> int | None:
    """How many points the factors' grid has; None when some factor is continuous."""
    size = 1
    for f in spec.factors:
        if f.values is not None:
            size *= len(f.values)
        elif f.levels is not None:
            size *= f.levels
        elif f.type == "int" and f.range is not None:
            size *= int(f.range[1]) - int(f.range[0]) + 1
        else:
            return None
    return size


def _levels(f: Any) -> list[Any]:
    if f.values is not None or f.levels is not None:
        return list(f.grid_levels())
    return list(range(int(f.range[0]), int(f.range[1]) + 1))


def grid_points(spec: CalibrationSpec) -> list[dict[str, Any]]:
    """Every point of a discrete grid: the scenario's own point first, then the rest in an
    order shuffled by ``numpy.random.default_rng(derived_seed(seed, "calibrate-grid"))``."""
    import itertools  # noqa: PLC0415

    import numpy as np  # noqa: PLC0415

    paths = [f.path for f in spec.factors]
    every = [
        dict(zip(paths, combo, strict=True))
        for combo in itertools.product(*(_levels(f) for f in spec.factors))
    ]
    start = canonical_json(dict(spec.start))
    rest = [p for p in every if canonical_json(p) != start]
    order = np.random.default_rng(derived_seed(spec.seed, "calibrate-grid")).permutation(len(rest))
    return [dict(spec.start), *(rest[int(i)] for i in order)]


def sampler_name(spec: CalibrationSpec) -> str:
    """The sampler the search uses: brute force over a grid no larger than ``trials``."""
    size = grid_size(spec)
    return BRUTE_FORCE if size is not None and size <= spec.trials else SAMPLER


def planned(spec: CalibrationSpec) -> int:
    """The trials the search fights: ``trials``, or the grid's points when it is smaller."""
    size = grid_size(spec)
    return min(spec.trials, size) if size is not None else spec.trials


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
        elif f.levels is not None:
            out[f.path] = CategoricalDistribution(f.grid_levels())
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


def _stored(out: Path, spec: CalibrationSpec, resume: bool, ours: bool = False) -> list[Trial]:
    """The trials already run (``--resume``), after checking the settings match. A folder
    the user names for ``--resume`` must hold a calibration (a mistyped one would start
    the whole search again); one of the tool's own (a leave-one-out fit's) may not yet."""
    ident = out / IDENTITY
    wanted = {"calibration": spec.identity(), "sampler": sampler_name(spec)}
    if resume and not ours and not ident.exists():
        raise CalibrationError(f"--resume: no calibration to resume in {str(out)!r}")
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
    try:  # a regular file only: a FIFO blocked --resume for ever
        stored = json.loads(read_bounded(ident).decode("utf-8"))
    except (FileProblem, OSError, UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise CalibrationError(f"{ident}: not a calibration's settings ({exc})") from None
    if stored != json.loads(json.dumps(wanted)):
        now = json.loads(json.dumps(wanted["calibration"]))
        was = stored.get("calibration", {}) if isinstance(stored, dict) else {}
        was = was if isinstance(was, dict) else {}
        # every setting either side names (one left out at its default is named by the other)
        keys = list(now) + [k for k in was if k not in now]
        diff = [k for k in keys if was.get(k) != now.get(k)]
        raise CalibrationError(
            f"{ident}: the calibration there was started with other settings "
            f"({', '.join(diff) or 'sampler'}): resume it with the same file, or name a new folder"
        )
    path = out / TRIALS
    if not path.exists():
        return []
    trials: list[Trial] = []
    try:
        text = read_bounded(path).decode("utf-8")
    except (FileProblem, OSError, UnicodeDecodeError) as exc:
        raise CalibrationError(f"{path}: not a calibration's trials ({exc})") from None
    for i, line in enumerate(text.splitlines(), 1):
        try:
            trial = Trial.from_json(json.loads(line))
            if trial.number != i - 1:  # its number is what the report and re-fights name
                raise ValueError(f"trial {trial.number} where trial {i - 1} was stored")
            _consistent(spec, trial)
        except (ValueError, KeyError, TypeError, RecursionError) as exc:
            raise CalibrationError(f"{path}:{i}: not a trial record ({exc})") from None
        trials.append(trial)
    return trials


def _consistent(spec: CalibrationSpec, trial: Trial) -> None:
    """Refuse a stored trial whose figures cannot be the calibration's own: an objective
    that is not what its estimates give (a forged best: an objective of −1 made it the
    winner, its patch written), or an estimate over more runs than the trial fought.

    A forgery consistent in every figure is not caught here: only fighting the point
    again would (``--refight``).

    Raises:
        ValueError: the trial is not one this calibration could have stored.
    """
    if any(e.n > trial.runs for e in trial.estimates):
        raise ValueError(f"estimates over more runs than the trial's {trial.runs}")
    if trial.objective is None:
        return
    if len(trial.estimates) != len(spec.goals):
        raise ValueError(f"{len(trial.estimates)} estimates for {len(spec.goals)} targets")
    again = objective(spec, trial.estimates)
    if again is None or not math.isclose(again, trial.objective, rel_tol=1e-12, abs_tol=0):
        raise ValueError(f"its objective {trial.objective} is not what its estimates give")


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
    return run_search(spec, out, executor, resume, progress).trials


def run_search(
    spec: CalibrationSpec,
    out: Path,
    executor: Executor,
    resume: bool = False,
    progress: Progress | None = None,
    ours: bool = False,
) -> Search:
    """:func:`calibrate`, handing back the whole :class:`Search`. ``ours``: ``out`` is a
    folder named by the tool inside the user's (a leave-one-out fit's), never a link."""
    import optuna  # noqa: PLC0415  # the study extra; only this command needs it

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    try:
        # resume=True: the folder's own check (_stored) says "calibration", not "study".
        with claim_folder(out, IDENTITY, resume=True, ours=ours):
            stored = _stored(out, spec, resume, ours)
            fought = _Trials(spec, out, executor, *_shared(spec), progress, stored)
            return _grid(fought) if sampler_name(spec) == BRUTE_FORCE else _sampled(fought)
    except FolderError as exc:
        raise CalibrationError(str(exc)) from None


@dataclass
class Search:
    """A finished (or resumed) search: its trials and how many proposals repeated a point."""

    trials: list[Trial]
    repeats: int = 0
    """Proposals of already-tried points, answered from the trials without a fight."""
    exhausted: bool = False
    """True when the search stopped after :data:`MAX_REPEATS` repeated proposals in a row."""
    sampler: str = SAMPLER


@dataclass
class _Trials:
    """The search's trials in order: each read back from the stored ones (``--resume``) or
    fought, then written and reported."""

    spec: CalibrationSpec
    out: Path
    executor: Executor
    shared: Shared | None
    losses: tuple[tuple[str, str], ...]
    progress: Progress | None
    stored: list[Trial]
    trials: list[Trial] = field(default_factory=list)

    def take(self, params: dict[str, Any], planned: int, proposed: str) -> Trial:
        """The next trial, at ``params`` (``proposed``: where they come from, for the error
        when a stored trial was at another point)."""
        number = len(self.trials)
        if number < len(self.stored):
            trial = self.stored[number]
            if canonical_json(trial.params) != canonical_json(params):
                raise CalibrationError(
                    f"{self.out / TRIALS}: trial {number} was {trial.params}, {proposed}: "
                    "start again in a new folder"
                )
            # read back with sorted keys (canonical JSON): shown in the factors' order again
            trial = replace(trial, params={k: trial.params[k] for k in params})
        else:
            trial = _evaluate(self.spec, self.shared, self.losses, self.executor, number, params)
        self.trials.append(trial)
        if number >= len(self.stored):
            _write(self.out, self.trials)
        if self.progress is not None:
            self.progress(trial, best_of(self.trials), planned)
        return trial


def _sampled(fought: _Trials) -> Search:
    """The points the seeded sampler proposes, none fought twice."""
    from optuna.trial import TrialState  # noqa: PLC0415

    spec = fought.spec
    study = _study(spec, SAMPLER)
    dists = _distributions(spec)
    tried: dict[str, Trial] = {}
    repeats = in_a_row = 0
    wanted = planned(spec)
    while len(fought.trials) < wanted:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            asked = study.ask(dists)
        params = {f.path: asked.params[f.path] for f in spec.factors}
        key = canonical_json(params)
        known = tried.get(key)
        if known is not None:  # never fought twice: the sampler is told what it had
            repeats += 1
            in_a_row += 1
            _tell(study, asked, known, TrialState)
            if in_a_row >= MAX_REPEATS:
                return Search(fought.trials, repeats, True, SAMPLER)
            continue
        in_a_row = 0
        proposed = f"the sampler now proposes {params} (another optuna version?)"
        trial = fought.take(params, wanted, proposed)
        tried[key] = trial
        _tell(study, asked, trial, TrialState)
    return Search(fought.trials, repeats, False, SAMPLER)


def _grid(fought: _Trials) -> Search:
    """Fight every point of the grid once (:func:`grid_points`)."""
    points = grid_points(fought.spec)
    for number, params in enumerate(points):
        fought.take(params, len(points), f"the grid's point {number} is {params}")
    return Search(fought.trials, 0, False, BRUTE_FORCE)


def _shared(spec: CalibrationSpec) -> tuple[Shared | None, tuple[tuple[str, str], ...]]:
    """What every chunk of a scenario's trial shares, and its loss columns (none for cases)."""
    if spec.target is None:
        return None, ()
    sides = spec.target.sides()
    losses = tuple((side, kind) for side, kind, _ in loss_columns(sides))
    return Shared.of(spec.target, losses), losses


def _study(spec: CalibrationSpec, name: str) -> Any:
    """A fresh optuna study with the seeded sampler named ``name``, trial 0 enqueued."""
    import optuna  # noqa: PLC0415

    del name  # one sampler: the grid never asks optuna
    sampler = optuna.samplers.TPESampler(
        seed=_sampler_seed(spec.seed), n_startup_trials=spec.startup_trials
    )
    study = optuna.create_study(direction="minimize", sampler=sampler)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # optuna's notes on enqueued points
        study.enqueue_trial(dict(spec.start))
    return study


def _tell(study: Any, asked: Any, trial: Trial, states: Any) -> None:
    if trial.objective is None:
        study.tell(asked, state=states.FAIL)
    else:
        study.tell(asked, trial.objective)


def refight(
    spec: CalibrationSpec, trials: list[Trial], executor: Executor, best: int = 3
) -> list[tuple[Trial, Trial]]:
    """The ``best`` trials with the lowest objectives (distinct points, first of equals
    first), each fought again on fresh seeds: (the trial, its re-fight). The search picked
    its best on its own seeds, so their luck is in its figures (the winner's curse); the
    re-fight's are not."""
    shared, losses = _shared(spec)
    ranked = sorted(
        (t for t in trials if t.objective is not None),
        key=lambda t: (t.objective, t.number),
    )[:best]
    return [
        (t, _evaluate(spec, shared, losses, executor, t.number, t.params, fresh=True))
        for t in ranked
    ]


def refight_start(
    spec: CalibrationSpec,
    trials: list[Trial],
    executor: Executor,
    checks: list[tuple[Trial, Trial]],
) -> tuple[Trial, Trial] | None:
    """Trial 0, the scenario's own values, and its fight on the same fresh seeds as
    :func:`refight`'s: the baseline the best points' fresh figures are read against (the
    best's in-sample lead over the start is partly the winner's curse; on fresh seeds it
    is not). Taken from ``checks`` when the start is among them; None when it failed."""
    start = next((t for t in trials if t.number == 0), None)
    if start is None or start.objective is None:
        return None
    done = next((pair for pair in checks if pair[0].number == 0), None)
    if done is not None:
        return done
    shared, losses = _shared(spec)
    return start, _evaluate(spec, shared, losses, executor, 0, start.params, fresh=True)
