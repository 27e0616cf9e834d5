"""What a calibration hands back: the best point, each target against it, the patch, the plot.

Everything here is a function of the trials (no clock, no host), so the
same calibration prints and writes the same bytes on any machine, with any
number of workers, resumed or not.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from engine.safety.atomic import atomic_write_text
from engine.safety.text import one_line
from sim.calibrate.calibrated import SCENARIO, write_calibrated
from sim.calibrate.measures import Estimate
from sim.calibrate.search import TRIALS, Search, Trial, best_of, sampler_name
from sim.calibrate.spec import MAGNITUDE, CalibrationSpec, Goal, verdict
from sim.scenario.load import dump_yaml
from sim.text.grammar import count

__all__ = [
    "PATCH",
    "PLOT",
    "SCENARIO",
    "format_leave_one_out",
    "format_progress",
    "format_result",
    "result_json",
    "write_outputs",
]

PATCH = "patch.yaml"
"""The best point's factor values, ``path: value``."""

PLOT = "search.png"
"""Objective by trial and best so far."""


def _value(x: Any) -> str:
    """A factor's value as the calibration file and patch.yaml spell it: a float to 4
    significant digits, else its YAML (``null``, ``true``, a string quoted where it would
    read as another value: ``'1'``), not Python's ``None``/``True``."""
    if isinstance(x, float):
        return f"{x:.4g}"
    from sim.scenario.patch import _scalar  # noqa: PLC0415

    shown = _scalar(x)
    return str(x) if shown is None else shown


def _num(x: float | None, digits: int = 3) -> str:
    if x is None or math.isnan(x):
        return "—"
    return f"{x:,.{digits}f}"


def _bound(x: float) -> str:
    """A target's value or bound as written (``0.9``, ``13``), with thousands separators
    from a thousand up (``1,515``), never ``1e+06``."""
    text = f"{x:,g}"
    return f"{x:,.0f}" if "e+" in text else text


def _goal_text(goal: Goal) -> str:
    if goal.range is not None:
        low, high = goal.range
        if low <= -MAGNITUDE:
            return f"≤ {_bound(high)}"
        if high >= MAGNITUDE:
            return f"≥ {_bound(low)}"
        return f"{_bound(low)} … {_bound(high)}"
    assert goal.value is not None
    return _bound(goal.value)


def _record_text(goal: Goal) -> str:
    """The record's value as written (``0.69``, ``1,515``), ``—`` for a target that gives
    only a range."""
    return "—" if goal.record is None else _bound(goal.record)


def status(goal: Goal, est: Estimate) -> str:
    """``met`` when the whole 95 % interval lies within the target's range, ``missed`` when
    it lies wholly outside, else ``unsure`` (a straddling interval, or none)."""
    return verdict(goal, est.low, est.high)


def _target_name(spec: CalibrationSpec) -> str:
    if spec.target is not None:
        return spec.target.source
    assert spec.cases is not None
    return "history cases " + ", ".join(spec.cases.ids)


def format_progress(trial: Trial, best: Trial | None, planned: int) -> str:
    """One line per finished trial: its point, objective, and the best so far."""
    point = ", ".join(f"{k}={_value(v)}" for k, v in trial.params.items())
    if trial.objective is None:
        score = f"failed ({trial.error})"
    else:
        score = f"objective {_obj(trial, best)}"
    tail = f"; best {_obj(best, trial)} (trial {best.number})" if best is not None else ""
    return f"trial {trial.number} ({trial.number + 1} of {planned}): {point}: {score}{tail}"


def _files(spec: CalibrationSpec, out: Path, best: Trial | None) -> dict[str, Path | None]:
    """The files of a calibration in folder ``out``, by kind, in the order the summary
    names them (None: not written for this calibration; the patch and the calibrated
    scenario are not when no trial was fought to the end, ``best`` None)."""
    return {
        "patch": out / PATCH if best is not None else None,
        "scenario": out / SCENARIO if spec.target is not None and best is not None else None,
        "trials": out / TRIALS,
        "plot": out / PLOT if spec.plots else None,
    }


def result_json(
    spec: CalibrationSpec,
    search: Search,
    out: Path,
    checks: list[tuple[Trial, Trial]] | None = None,
    start_check: tuple[Trial, Trial] | None = None,
) -> dict[str, Any]:
    """The whole result as plain data (``--json``): ``search`` and the ``checks`` (each
    best point and its fight on fresh seeds) of ``spec``, written into ``out``;
    ``start_refight``, trial 0 and its fight on the same fresh seeds (``start_check``)."""
    trials = search.trials
    best = best_of(trials)
    start = trials[0] if trials else None
    return {
        "name": spec.name,
        "source": spec.source,
        "target": _target_name(spec),
        "cases": list(spec.cases.ids) if spec.cases is not None else [],
        "seed": spec.seed,
        "replications": spec.replications,
        "crn": True,
        "sampler": sampler_name(spec),
        "objective": spec.objective,
        "trials": len(trials),
        "repeats": search.repeats,
        "exhausted": search.exhausted,
        "refights": [
            {"trial": t.number, "in_sample": _trial_json(spec, t), "fresh": _trial_json(spec, f)}
            for t, f in (checks or [])
        ],
        "start_refight": None
        if start_check is None
        else {
            "trial": start_check[0].number,
            "in_sample": _trial_json(spec, start_check[0]),
            "fresh": _trial_json(spec, start_check[1]),
        },
        "factors": [f.model_dump(mode="json", exclude_none=True) for f in spec.factors],
        "start": _trial_json(spec, start),
        "best": _trial_json(spec, best),
        "improved": best is not None
        and start is not None
        and start.objective is not None
        and best.objective is not None
        and best.objective < start.objective,
        "files": {k: str(p) if p is not None else None for k, p in _files(spec, out, best).items()},
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
                "record": goal.record,
                "weight": goal.weight,
                "achieved": None if math.isnan(est.value) else est.value,
                "low": None if math.isnan(est.low) else est.low,
                "high": None if math.isnan(est.high) else est.high,
                "interval": est.method,
                "runs": est.n,
                "miss": None if math.isnan(est.value) else goal.miss(est.value, measure.kind),
                "status": status(goal, est),
                "met": status(goal, est) == "met",
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


def _missed_wholly(spec: CalibrationSpec, trial: Trial) -> list[str]:
    """A line for each target ``trial`` misses wholly (its whole interval outside the range),
    shown under the trial's score: the distance counts only how far the estimate lies
    outside, so a point can score well with a target missed wholly (docs/calibrate.md,
    *The objective*)."""
    return [
        f"  but target {one_line(measure.name)} missed wholly: interval "
        f"[{_num(est.low)}, {_num(est.high)}] outside {_goal_text(goal)}"
        for goal, measure, est in zip(spec.goals, spec.measures, trial.estimates, strict=True)
        if status(goal, est) == "missed"
    ]


def _source(goal: Goal) -> str:
    """A target's source on one line (a folded or wrapped text's spaces closed up)."""
    return one_line(" ".join(goal.source.split()))


def _sources(goals: tuple[Goal, ...]) -> list[str]:
    """The targets' sources, each text once, in the order first cited: ``[n]`` is the n-th
    (as ``battlesim history`` numbers its measures' sources)."""
    return list(dict.fromkeys(text for text in map(_source, goals) if text))


def _cells(trials: list[tuple[str, Trial]], i: int) -> list[str]:
    cells = []
    for label, trial in trials:
        if not trial.estimates:
            cells.append(f"{label} —")
            continue
        e = trial.estimates[i]
        cells.append(f"{label} {_num(e.value)} [{_num(e.low)}, {_num(e.high)}]")
    return cells


def _method(e: Estimate) -> str:
    return f"{e.method}, n={e.n}"


def _other_methods(shown: list[tuple[str, Trial]], best: Trial, i: int) -> str:
    """The method and runs of each interval shown beside the best's that has other ones
    (a loss's interval cut at 0 at the start or on fresh seeds, not at the best): every
    interval printed is named by the method that made it."""
    named = _method(best.estimates[i])
    return "".join(
        f"; {label}: {_method(t.estimates[i])}"
        for label, t in shown
        if t is not best and t.estimates and _method(t.estimates[i]) != named
    )


def _obj(t: Trial, other: Trial | None = None) -> str:
    """``t``'s objective to 4 decimals; beside ``other``'s, with as many more (up to 12) as
    tell two different objectives apart (2.98718 and 2.98719 both read 2.9872 at 4)."""
    if t.objective is None:
        return "failed"
    return f"{t.objective:.{_places(t, other)}f}"


def _places(a: Trial, b: Trial | None) -> int:
    """The fewest decimals from 4 to 12 at which ``a``'s and ``b``'s objectives read apart
    (4 when they are equal, or either is missing)."""
    if b is None or b.objective is None or a.objective is None or a.objective == b.objective:
        return 4
    x, y = a.objective, b.objective
    return next((d for d in range(4, 13) if f"{x:.{d}f}" != f"{y:.{d}f}"), 12)


def format_result(
    spec: CalibrationSpec,
    search: Search,
    out: Path,
    checks: list[tuple[Trial, Trial]] | None = None,
    start_check: tuple[Trial, Trial] | None = None,
) -> list[str]:
    """The text summary of what :func:`result_json` holds: the best point, each target at the
    start and at the best, and the best points fought again on fresh seeds beside their
    in-sample figures, then the start on those seeds when it is not among them."""
    trials = search.trials
    best = best_of(trials)
    start = trials[0]
    lines = [
        f"{one_line(spec.name)}: {count(len(trials), 'trial')} of "
        f"{count(spec.replications, 'run')} "
        f"(common random numbers; {sampler_name(spec)}, seed {spec.seed}"
        f"{'; objective: verdicts' if spec.objective == 'verdicts' else ''})"
    ]
    if spec.cases is not None:  # what a history fit was fitted on: its cases, by split
        split = "; ".join(f"{s}: {', '.join(ids)}" for s, ids in spec.cases.by_split().items())
        lines.append(f"Fitted on {count(len(spec.cases.ids), 'history case')}, {split}")
    if search.repeats or search.exhausted:
        were = "was" if search.repeats == 1 else "were"
        note = (
            f"{count(search.repeats, 'proposal')} of points already tried {were} not fought again"
        )
        if search.exhausted:
            note += "; the search stopped: the sampler proposed only tried points"
        lines.append(note + ".")
    if best is None:
        lines.append(f"No trial was fought to the end: every point failed (see {TRIALS}).")
        return lines
    lines.append(
        f"Best: trial {best.number}, objective {_obj(best, start)} "
        f"(the scenario's own values, trial 0: {_obj(start, best)})"
    )
    lines.extend(_missed_wholly(spec, best))
    width = max(len(f.path) for f in spec.factors)
    for f in spec.factors:
        lines.append(
            f"  {f.path:<{width}}  {_value(best.params[f.path]):>8}  "
            f"(start {_value(start.params[f.path])})"
        )
    fresh = next((again for t, again in checks or [] if t.number == best.number), None)
    sources = _sources(spec.goals)
    lines.append(
        "Targets (history: the record's value, — where the target gives only a range;"
        " accepted: the range the target asks for; estimate [95 % interval];"
        " met: the whole interval within the range, missed: wholly outside it,"
        " unsure: across an end"
        + ("; fresh: the best point on fresh seeds" if fresh is not None else "")
        + ("; [n]: the target's source, under Sources" if sources else "")
        + "):"
    )
    mwidth = max(len(m.name) for m in spec.measures)
    rwidth = max(len(_record_text(g)) for g in spec.goals)
    awidth = max(len(_goal_text(g)) for g in spec.goals)
    for i, (goal, measure) in enumerate(zip(spec.goals, spec.measures, strict=True)):
        shown = [("start", start), ("best", best)] + ([("fresh", fresh)] if fresh else [])
        cells = _cells(shown, i)
        verdict = status(goal, best.estimates[i])
        if fresh is not None and fresh.estimates:
            verdict += f", fresh {status(goal, fresh.estimates[i])}"
        lines.append(
            f"  {measure.name:<{mwidth}}  history {_record_text(goal):<{rwidth}}  "
            f"accepted {_goal_text(goal):<{awidth}}  "
            f"{'  '.join(cells)}  {verdict} (weight {goal.weight:g}; "
            f"{_method(best.estimates[i])}{_other_methods(shown, best, i)})"
            + (f" [{sources.index(_source(goal)) + 1}]" if _source(goal) else "")
        )
    if sources:
        lines.append("Sources:")
        lines.extend(f"  [{k}] {text}" for k, text in enumerate(sources, 1))
    if checks:
        lines.append(
            (f"The best {len(checks)} points" if len(checks) > 1 else "The best point")
            + " on fresh seeds (the winner's curse: the search chose "
            + ("them" if len(checks) > 1 else "it")
            + " on its own seeds):"
        )
        for t, again in checks:
            point = ", ".join(f"{f.path}={_value(t.params[f.path])}" for f in spec.factors)
            lines.append(
                f"  trial {t.number}: objective {_obj(t, again)}, fresh {_obj(again, t)}  ({point})"
            )
        if start_check is not None and all(t.number != 0 for t, _ in checks):
            t, again = start_check
            lines.append(
                f"  and the start, trial 0: objective {_obj(t, again)}, fresh {_obj(again, t)}  "
                "(the scenario's own values)"
            )
    lines.append(
        "Results: "
        + ", ".join(one_line(str(p)) for p in _files(spec, out, best).values() if p is not None)
    )
    return lines


def format_leave_one_out(
    spec: CalibrationSpec, fits: list[tuple[str | None, Trial | None]]
) -> list[str]:
    """The table of fitted values with each case left out in turn (``(none)``: all cases)."""
    head = ["case left out", *(f.path for f in spec.factors), "objective"]
    rows = [head]
    for left, best in fits:
        if best is None:
            rows.append([left or "(none)", *("—" for _ in spec.factors), "failed"])
            continue
        rows.append(
            [
                left or "(none)",
                *(_value(best.params[f.path]) for f in spec.factors),
                _obj(best),
            ]
        )
    widths = [max(len(r[i]) for r in rows) for i in range(len(head))]
    return [
        "Leave one out: the fitted values with each case left out (the objective is over "
        "the cases fitted)",
        *(
            "  " + "  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip()
            for r in rows
        ),
    ]


def patch_text(spec: CalibrationSpec, best: Trial) -> str:
    """The patch: a comment naming the fit, then each factor's path and best value."""
    if spec.target is None:
        where = (
            "# Field paths set on every case's scenario (in a campaign, each battle's):\n"
            f"# {one_line(_target_name(spec))}.\n"
        )
    else:
        where = (
            f"# Field paths of {one_line(spec.target.source)}, as a study's factors; "
            f"{SCENARIO}\n# beside this file is the scenario with them set.\n"
        )
    assert best.objective is not None
    head = (
        f"# battlesim calibrate {one_line(spec.source)}: the best point (trial {best.number}, "
        f"objective {best.objective:.6g}).\n" + where
    )
    body = dump_yaml(
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
    if best is not None and spec.target is not None:
        head = (
            f"# {one_line(spec.target.source)} with the best point of battlesim calibrate "
            f"{one_line(spec.source)} (trial {best.number}) set:\n"
            + "".join(
                f"#   {one_line(f.path)} = {one_line(_value(best.params[f.path]))}\n"
                for f in spec.factors
            )
        )
        write_calibrated(spec, best.params, head, out)
    if spec.plots:
        _plot(spec, trials, out / PLOT)


def _plot(spec: CalibrationSpec, trials: list[Trial], path: Path) -> None:
    """Objective by trial (failed trials left out) and the best so far, as a PNG at ``path``
    (in matplotlib's default style: :func:`~sim.batch.charts.plotting.in_default_style`)."""
    from matplotlib import style  # noqa: PLC0415  # matplotlib only when plotting

    with style.context("default"):
        _draw(spec, trials, path)


def _draw(spec: CalibrationSpec, trials: list[Trial], path: Path) -> None:
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
    ax.set_ylabel(
        "objective (targets not met, then missed, then misses)"
        if spec.objective == "verdicts"
        else "objective (weighted squared misses)"
    )
    ax.set_title(wrap(spec.name, 70).replace("$", r"\$"))
    fig.legend(loc="outside lower center", ncols=3, frameon=False)  # never over a point
    ax.grid(True, alpha=0.3)
    save(fig, path)
