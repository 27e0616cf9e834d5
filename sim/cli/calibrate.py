"""``battlesim calibrate``: a wrapper over :mod:`sim.calibrate`.

Exit codes as for every command: 0 done, 1 interrupted or a worker lost
(``--resume`` continues), 2 bad input or usage.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Literal

import click

from sim.cli.common import (
    STUDY_OUT,
    Command,
    echo_json,
    executor_options,
    fail,
    out_option,
    readable_file,
)

if TYPE_CHECKING:
    from sim.calibrate import Trial

__all__ = ["calibrate"]

# Each command imports what it wraps in its body (PLC0415): start-up stays light.
# ruff: noqa: PLC0415


@click.command(cls=Command)
@click.argument(
    "calibration_file",
    metavar="CALIBRATION.yaml",
    type=click.Path(dir_okay=False),
    callback=readable_file,
)
@out_option(STUDY_OUT, folder=True)
@executor_options(
    "Continue the calibration in --out after it stopped.", "Print the result as one JSON object."
)
def calibrate(
    calibration_file: str,
    out: str | None,
    jobs: int | None,
    executor: str,
    scheduler: str | None,
    resume: bool,
    quiet: bool,
    as_json: bool,
) -> None:
    """Fit a scenario's free factors to historical targets.

    CALIBRATION.yaml names a scenario (or campaign), free factors with ranges
    and targets (a measure, the historical value or range, a weight). Each
    trial fights the same seeded runs (common random numbers) at a point
    proposed by optuna's seeded TPE sampler; the first trial is the
    scenario's own values. Prints a line per trial on stderr, then the best
    point and each target at the start and at the best with its 95 %
    interval; writes DIR/patch.yaml, DIR/calibrated.yaml, DIR/trials.jsonl
    and DIR/search.png. Needs the study extra: pip install 'battlesim[study]'.
    See docs/calibrate.md.

    \b
    Example:
      battlesim calibrate scenarios/coral_sea_calibration.yaml --jobs 2
    """
    from sim.batch.execution.executors import (
        JOBS_PER_CPU,
        ExecutorError,
        boot_workers,
        default_jobs,
        max_jobs,
        open_executor,
    )
    from sim.calibrate import CalibrationError, load_calibration
    from sim.calibrate import calibrate as run
    from sim.calibrate.report import format_progress, format_result, result_json, write_outputs
    from sim.outputs import OutputError, check_output
    from sim.scenario.load import ScenarioError

    try:
        import optuna  # noqa: F401  # only to say plainly when it is missing
    except ImportError:
        fail("calibrate needs optuna: pip install 'battlesim[study]'")
    try:
        spec = load_calibration(calibration_file)
    except ScenarioError as exc:
        click.echo(str(exc), err=True)
        sys.exit(2)
    if scheduler is not None and executor != "dask":
        fail("--scheduler needs --executor dask")
    if jobs is not None and jobs > max_jobs():
        fail(f"--jobs {jobs}: at most {max_jobs()} ({JOBS_PER_CPU} per CPU here)")
    try:
        folder = check_output(Path(out) if out is not None else spec.out, folder=True)
    except OutputError as exc:
        fail(str(exc))
    kind: Literal["local", "dask"] = "dask" if executor == "dask" else "local"
    workers = jobs or default_jobs()
    boot_workers(kind, workers)

    def progress(trial: Trial, best: Trial | None, planned: int) -> None:
        if not quiet:
            click.echo(format_progress(trial, best, planned), err=True)

    try:
        with open_executor(kind, workers, scheduler) as pool:
            trials = run(spec, folder, pool, resume, progress)
    except (CalibrationError, ExecutorError) as exc:
        fail(str(exc))
    except KeyboardInterrupt:
        click.echo(
            "\nbattlesim: interrupted; every finished trial is kept — "
            "run the same command with --resume to continue",
            err=True,
        )
        sys.exit(1)
    write_outputs(spec, trials, folder)
    if as_json:
        echo_json(result_json(spec, trials, folder))
    else:
        for line in format_result(spec, trials, folder):
            click.echo(line)
