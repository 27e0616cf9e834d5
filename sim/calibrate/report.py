"""What a calibration hands back: the best point, each target against it, the patch, the plot.

Everything here is a function of the trials (no clock, no host), so the
same calibration prints and writes the same bytes on any machine, with any
number of workers, resumed or not.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import yaml

from engine.atomic import atomic_write_text
from sim.calibrate.search import SAMPLER, Trial, best_of
from sim.calibrate.spec import CalibrationSpec, Goal

__all__ = [
    "PATCH",
    "PLOT",
    "SCENARIO",
    "format_progress",
    "format_result",
    "result_json",
    "write_outputs",
]

PATCH = "patch.yaml"
"""The best point's factor values, ``path: value``."""

SCENARIO = "calibrated.yaml"
"""The scenario (or campaign) with the best point's values set."""

PLOT = "search.png"
"""Objective by trial and best so far."""


def _value(x: Any) -> str:
    if isinstance(x, float):
        return f"{x:.4g}"
    return str(x)


def _num(x: float | None, digits: int = 3) -> str:
    if x is None or math.isnan(x):
        return "—"
    return f"{x:.{digits}f}"


def _goal_text(goal: Goal) -> str:
    if goal.range is not None:
        return f"{goal.range[0]:g} … {goal.range[1]:g}"
    assert goal.value is not None
    return f"{goal.value:g}"


def format_progress(trial: Trial, best: Trial | None, planned: int) -> str:
    """One line per finished trial: its point, objective, and the best so far."""
    point = ", ".join(f"{k}={_value(v)}" for k, v in trial.params.items())
    if trial.objective is None:
        score = f"failed ({trial.error})"
    else:
        score = f"objective {trial.objective:.4f}"
    tail = f"; best {best.objective:.4f} (trial {best.number})" if best is not None else ""
    return f"trial {trial.number} ({trial.number + 1} of {planned}): {point}: {score}{tail}"


def result_json(spec: CalibrationSpec, trials: list[Trial], out: Path) -> dict[str, Any]:
    """The whole result as plain data (``--json``)."""
    best = best_of(trials)
    start = trials[0] if trials else None
    return {
        "name": spec.name,
        "source": spec.source,
        "target": spec.target.source,
        "seed": spec.seed,
        "replications": spec.replications,
        "crn": True,
        "sampler": SAMPLER,
        "trials": len(trials),
        "factors": [f.model_dump(mode="json", exclude_none=True) for f in spec.factors],
        "start": _trial_json(spec, start),
        "best": _trial_json(spec, best),
        "improved": best is not None
        and start is not None
        and start.objective is not None
        and best.objective is not None
        and best.objective < start.objective,
        "files": {
            "trials": str(out / "trials.jsonl"),
            "patch": str(out / PATCH),
            "scenario": str(out / SCENARIO),
            "plot": str(out / PLOT) if spec.plots else None,
        },
    }


def _trial_json(spec: CalibrationSpec, trial: Trial | None) -> dict[str, Any] | None:
    if trial is None:
        return None
    targets = []
    for goal, measure, est in zip(spec.goals, spec.measures, trial.estimates, strict=False):
        low, high = goal.bounds()
        targets.append(
            {
                "measure": measure.name,
                "kind": measure.kind,
                "historical": {"low": low, "high": high},
                "weight": goal.weight,
                "achieved": None if math.isnan(est.value) else est.value,
                "low": None if math.isnan(est.low) else est.low,
                "high": None if math.isnan(est.high) else est.high,
                "interval": est.method,
                "runs": est.n,
                "miss": goal.miss(est.value, measure.kind),
                "met": goal.miss(est.value, measure.kind) == 0,
                "source": goal.source,
            }
        )
    return {
        "trial": trial.number,
        "params": trial.params,
        "objective": trial.objective,
        "failed_runs": trial.failed,
        "targets": targets,
    }


def format_result(spec: CalibrationSpec, trials: list[Trial], out: Path) -> list[str]:
    """The text summary: the best point, then each target at the start and at the best."""
    best = best_of(trials)
    start = trials[0]
    lines = [
        f"{spec.name}: {len(trials)} trials of {spec.replications} runs "
        f"(common random numbers; {SAMPLER}, seed {spec.seed})"
    ]
    if best is None:
        lines.append("No trial was fought to the end: every point failed (see trials.jsonl).")
        return lines
    s_obj = "failed" if start.objective is None else f"{start.objective:.4f}"
    lines.append(
        f"Best: trial {best.number}, objective {best.objective:.4f} "
        f"(the scenario's own values, trial 0: {s_obj})"
    )
    width = max(len(f.path) for f in spec.factors)
    for f in spec.factors:
        lines.append(
            f"  {f.path:<{width}}  {_value(best.params[f.path]):>8}  "
            f"(start {_value(start.params[f.path])})"
        )
    lines.append("Targets (estimate [95 % interval]):")
    mwidth = max(len(m.name) for m in spec.measures)
    for i, (goal, measure) in enumerate(zip(spec.goals, spec.measures, strict=True)):
        cells = []
        for label, trial in (("start", start), ("best", best)):
            if not trial.estimates:
                cells.append(f"{label} —")
                continue
            e = trial.estimates[i]
            cells.append(f"{label} {_num(e.value)} [{_num(e.low)}, {_num(e.high)}]")
        met = "met" if goal.miss(best.estimates[i].value, measure.kind) == 0 else "missed"
        lines.append(
            f"  {measure.name:<{mwidth}}  history {_goal_text(goal):<11}  "
            f"{cells[0]}  {cells[1]}  {met} (weight {goal.weight:g}; "
            f"{best.estimates[i].method}, n={best.estimates[i].n})"
        )
    files = [f"{out / PATCH}", f"{out / SCENARIO}", f"{out / 'trials.jsonl'}"]
    if spec.plots:
        files.append(f"{out / PLOT}")
    lines.append("Results: " + ", ".join(files))
    return lines


def patch_text(spec: CalibrationSpec, best: Trial) -> str:
    """The patch: a comment naming the fit, then each factor's path and best value."""
    head = (
        f"# battlesim calibrate {spec.source}: the best point (trial {best.number}, "
        f"objective {best.objective:.6g}).\n"
        f"# Field paths of {spec.target.source}, as a study's factors; {SCENARIO} beside this\n"
        "# file is the scenario with them set.\n"
    )
    body = yaml.safe_dump(
        {f.path: best.params[f.path] for f in spec.factors},
        sort_keys=False,
        allow_unicode=True,
        default_flow_style=False,
    )
    return head + body


def write_outputs(spec: CalibrationSpec, trials: list[Trial], out: Path) -> None:
    """``patch.yaml``, ``calibrated.yaml`` and (unless switched off) ``search.png``."""
    best = best_of(trials)
    if best is not None:
        atomic_write_text(out / PATCH, patch_text(spec, best))
        data = spec.target.at(best.params)
        head = (
            f"# {spec.target.source} with the best point of battlesim calibrate "
            f"{spec.source} (trial {best.number}) set:\n"
            + "".join(f"#   {f.path} = {_value(best.params[f.path])}\n" for f in spec.factors)
        )
        text = yaml.safe_dump(data, sort_keys=False, allow_unicode=True)
        atomic_write_text(out / SCENARIO, head + text)
    if spec.plots:
        _plot(spec, trials, out / PLOT)


def _plot(spec: CalibrationSpec, trials: list[Trial], path: Path) -> None:
    """Objective by trial (failed trials left out) and the best so far, as a PNG at ``path``."""
    from matplotlib.figure import Figure  # noqa: PLC0415  # matplotlib only when plotting

    from sim.batch.charts.plotting import COLOURS, save, wrap  # noqa: PLC0415

    fig = Figure(figsize=(7, 4.4), layout="constrained")
    ax = fig.add_subplot(1, 1, 1)
    xs = [t.number for t in trials if t.objective is not None]
    ys = [float(t.objective) for t in trials if t.objective is not None]
    best, running = math.inf, []
    for y in ys:
        best = min(best, y)
        running.append(best)
    ax.plot(xs, ys, "o", color=COLOURS[0], label="objective of the trial", markersize=4)
    ax.step(xs, running, where="post", color=COLOURS[1], label="best so far")
    if xs and xs[0] == 0:
        ax.plot([0], [ys[0]], "s", color=COLOURS[2], label="the scenario's own values (trial 0)")
    if ys and min(ys) > 0 and max(ys) / min(ys) > 100:
        ax.set_yscale("log")
    ax.set_xlabel("trial")
    ax.set_ylabel("objective (weighted squared misses)")
    ax.set_title(wrap(spec.name, 70).replace("$", r"\$"))
    fig.legend(loc="outside lower center", ncols=3, frameon=False)  # never over a point
    ax.grid(True, alpha=0.3)
    save(fig, path)
