"""``battlesim calibrate``: a wrapper over :mod:`sim.calibrate`.

Exit codes as for every command: 0 done, 1 interrupted or a worker lost
(``--resume`` continues), 2 bad input or usage.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from sim.cli import common

if TYPE_CHECKING:
    from concurrent.futures import Executor

    from sim.calibrate import CalibrationSpec, Trial
    from sim.calibrate.search import Search

__all__ = ["calibrate"]

# Each command imports what it wraps in its body (PLC0415): start-up stays light.
# ruff: noqa: PLC0415


@click.command(cls=common.Command)
@common.file_argument("calibration_file", "CALIBRATION.yaml")
@common.out_option(common.STUDY_OUT, folder=True)
@common.default_option(
    "--refight",
    kind=click.IntRange(0, 20),
    default=3,
    metavar="N",
    help_text="Fight the best N points again on fresh seeds, beside their in-sample figures, "
    "and the start on the same seeds (one more fight when it is not among them).",
)
@click.option(
    "--leave-one-out",
    is_flag=True,
    help="With history: cases, fit again with each case left out, and print the fitted "
    "values of each fit (into DIR/leave-out-<case>/).",
)
@common.executor_options(
    "Continue the calibration in --out after it stopped.",
    "Print the result as one JSON object.",
    "No progress line per trial on stderr.",
)
def calibrate(
    calibration_file: str,
    out: str | None,
    refight: int,
    leave_one_out: bool,
    execution: common.Execution,
) -> None:
    """Fit a scenario's free factors to historical targets.

    CALIBRATION.yaml names a scenario (or campaign), free factors with ranges
    and targets (a measure, the historical value or range, a weight) — or,
    with history:, historical cases (by default the fitting set) whose
    measures are the targets. Each trial fights the same seeded runs (common
    random numbers) at a point proposed by optuna's seeded TPE sampler (or,
    for a small discrete grid, every point once); no point is fought twice;
    the first trial is the scenario's own values. Prints a line per trial on
    stderr, then the best point and each target at the start, at the best
    and on fresh seeds with its 95 % interval (met: the whole interval in
    range; missed: wholly outside; unsure: across an end), and the best
    --refight points on fresh seeds; writes DIR/patch.yaml, DIR/calibrated.yaml
    (for a scenario), DIR/trials.jsonl and DIR/search.png (battlesim run
    SCENARIO --patch DIR/patch.yaml fights a scenario with the best point
    set, a history case's too). Needs the study
    extra: pip install 'battlesim[study]'.
    See docs/calibrate.md.

    \b
    Example:
      battlesim calibrate scenarios/coral_sea_calibration.yaml --jobs 2
    """
    from sim.batch.execution.executors import ExecutorError, boot_workers, open_executor
    from sim.calibrate import CalibrationError, load_calibration
    from sim.calibrate.report import format_progress, write_outputs
    from sim.cli.interrupts import errors_as_interrupts
    from sim.history.fit import load_cases
    from sim.outputs import OutputError, check_output
    from sim.scenario.load import ScenarioError

    try:
        import optuna  # noqa: F401  # only to say plainly when it is missing
    except ImportError:
        common.fail("calibrate needs optuna: pip install 'battlesim[study]'")
    try:
        spec = load_calibration(calibration_file, load_cases)
    except ScenarioError as exc:
        click.echo(str(exc), err=True)
        sys.exit(2)
    execution.check()
    if leave_one_out and spec.target is not None:
        common.fail("--leave-one-out needs a calibration of history cases (history:)")
    if leave_one_out and (spec.cases is None or len(spec.cases.ids) < 2):
        common.fail("--leave-one-out needs at least two cases")
    try:
        folder = check_output(Path(out) if out is not None else spec.out, folder=True)
    except OutputError as exc:
        common.fail(str(exc))
    boot_workers(execution.kind, execution.workers)

    def progress(trial: Trial, best: Trial | None, planned: int) -> None:
        if not execution.quiet:
            click.echo(format_progress(trial, best, planned), err=True)

    try:
        with (
            errors_as_interrupts(),
            open_executor(execution.kind, execution.workers, execution.scheduler) as pool,
        ):
            found, checks, start, loo = _fight(
                spec, folder, pool, execution.resume, progress, refight, leave_one_out
            )
        # the outputs too: a Ctrl-C as they are written (search.png is the slowest) keeps
        # every trial as one in the search does, and --resume writes them again
        write_outputs(spec, found.trials, folder)
        _report(
            spec, folder, found, (checks, start), loo if leave_one_out else None, execution.as_json
        )
    except (CalibrationError, ExecutorError) as exc:
        common.fail(str(exc))
    except KeyboardInterrupt:
        click.echo(
            "\nbattlesim: interrupted; every finished trial is kept — "
            "run the same command with --resume to continue",
            err=True,
        )
        sys.exit(1)


Fits = list[tuple[str | None, "Trial | None"]]
Checks = list[tuple["Trial", "Trial"]]


def _fight(
    spec: CalibrationSpec,
    folder: Path,
    pool: Executor,
    resume: bool,
    progress: Any,
    refight: int,
    leave_one_out: bool,
) -> tuple[Search, Checks, tuple[Trial, Trial] | None, Fits]:
    """The search, its best points fought again on fresh seeds, the start on those seeds
    too, and the leave-one-out fits."""
    from sim.calibrate import best_of
    from sim.calibrate.search import refight as fight_again
    from sim.calibrate.search import refight_start, run_search
    from sim.calibrate.spec import without

    found = run_search(spec, folder, pool, resume, progress)
    checks = fight_again(spec, found.trials, pool, refight) if refight else []
    start = refight_start(spec, found.trials, pool, checks) if refight else None
    loo: Fits = []
    if leave_one_out:
        loo.append((None, best_of(found.trials)))
        assert spec.cases is not None
        for case_id in spec.cases.ids:
            out = folder / f"leave-out-{case_id}"
            sub = run_search(without(spec, case_id), out, pool, resume, progress, ours=True)
            loo.append((case_id, best_of(sub.trials)))
    return found, checks, start, loo


def _report(
    spec: CalibrationSpec,
    folder: Path,
    found: Search,
    fresh: tuple[Checks, tuple[Trial, Trial] | None],
    loo: Fits | None,
    as_json: bool,
) -> None:
    from sim.calibrate.report import format_leave_one_out, format_result, result_json

    if as_json:
        data = result_json(spec, found, folder, *fresh)
        if loo is not None:
            data["leave_one_out"] = [
                {
                    "left_out": left,
                    "trial": None if best is None else best.number,
                    "params": None if best is None else best.params,
                    "objective": None if best is None else best.objective,
                }
                for left, best in loo
            ]
        common.echo_json(data)
        return
    for line in format_result(spec, found, folder, *fresh):
        click.echo(line)
    if loo is not None:
        for line in format_leave_one_out(spec, loo):
            click.echo(line)
