"""``battlesim batch`` and ``study``: wrappers over sim.batch (``rerun``, ``export``,
``campaign``: :mod:`sim.cli.outcomes.runs`).

The root group (:mod:`sim.cli`) imports these commands by name on first use;
each imports :mod:`sim.batch` (numpy, DuckDB, matplotlib) in its own body.
Exit codes as for every command: 0 success, 1 a study that stopped before
its end (``--resume`` completes it), 2 bad input or usage.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, NoReturn

import click

from sim.cli import common

if TYPE_CHECKING:
    from sim.batch.execution.progress import ProgressBar
    from sim.batch.methods.differences import Paired
    from sim.batch.planning.design import Design, Factor
    from sim.batch.planning.plan import StudyPlan
    from sim.batch.planning.spec import StudySpec
    from sim.batch.storage.opening import PointError
    from sim.batch.storage.store import Store
    from sim.batch.study import RunOptions

__all__ = ["batch", "study"]

# Each command imports what it wraps in its body (PLC0415): start-up stays light.
# ruff: noqa: PLC0415

DEFAULT_CHUNK = 20
"""``sim.batch.planning.plan.DEFAULT_CHUNK``, repeated so help needs no numpy (a test checks)."""


LARGE_DESIGN = 2_000
"""Design points from which ``study`` says it is checking them (a few seconds' work)."""


def _bad_input(message: str) -> NoReturn:
    click.echo(message, err=True)
    sys.exit(2)


def _error(message: str) -> str:
    return f"battlesim: error: {message}"


def _factor(text: str) -> Factor:
    """A ``--sweep PATH=V1,V2,…`` or ``PATH=LOW..HIGH`` option as a factor.

    Raises:
        PathError: the option is malformed.
    """
    from sim.batch.inputs.fieldpath import PathError, parse_values
    from sim.batch.planning.design import Factor
    from sim.batch.planning.factors import repeated

    path, eq, spec = text.partition("=")
    if not eq or not path or not spec:
        raise PathError(f"--sweep {text!r}: write FIELD.PATH=V1,V2,… or FIELD.PATH=LOW..HIGH")
    low, dots, high = spec.partition("..")
    if dots and "," not in spec:
        ends = parse_values(f"{low},{high}", f"--sweep {path}")
        if not all(isinstance(v, int | float) and not isinstance(v, bool) for v in ends):
            raise PathError(f"--sweep {path}: a range LOW..HIGH needs two numbers")
        kind = "int" if all(isinstance(v, int) for v in ends) else "float"
        try:
            return Factor(path=path, range=(ends[0], ends[1]), type=kind)
        except ValueError as exc:
            raise PathError(f"--sweep {path}: {_first_error(exc)}") from None
    values = parse_values(spec, f"--sweep {path}")
    again = repeated(values)
    if again:
        raise PathError(f"--sweep {path}: the value {values[again[0]]!r} is named twice")
    return Factor(path=path, values=values)


def _first_error(exc: ValueError) -> str:
    errors = getattr(exc, "errors", None)
    if callable(errors):
        return str(errors()[0]["msg"]).removeprefix("Value error, ")
    return str(exc)


def _point_refused(exc: PointError, source: StudySpec | Swept | None) -> NoReturn:
    """A design point the scenario refuses, in one line (exit 2): at the study file's line of
    the factor's value, or, from ``--sweep``, as ``run --set`` words a value it refuses: the
    file, the flag, the design point, and the value as typed with its advice on quoting said
    for the command line (:func:`sim.scenario.values.for_the_shell`), last."""
    from sim.batch.planning.spec import StudySpec, point_problem
    from sim.scenario.values import for_the_shell

    if isinstance(source, StudySpec):
        told = point_problem(source, exc.field, exc.point, exc.reason)
        _bad_input(told if told is not None else _error(f"{source.file}: {exc}"))
    file = f"{source.file}: " if source is not None else ""
    if not exc.path or exc.index is None:  # no factor names the field: the point whole
        _bad_input(_error(f"{file}{exc}"))
    typed = source.typed(exc.path, exc.point[exc.path]) if source is not None else None
    reason = exc.reason
    if typed is not None and reason == _number_not_text(str(exc.point[exc.path])):
        reason = _number_not_text(typed)  # 08 as typed, not the 8 YAML read it as
    flag = f"--sweep {exc.path}"
    said = for_the_shell(reason, flag, typed if typed is not None else exc.point[exc.path])
    shown = ", ".join(
        f"{k}={typed if k == exc.path and typed is not None else json.dumps(v)}"
        for k, v in exc.point.items()
    )
    _bad_input(_error(f"{file}{flag}: design point {exc.index} ({shown}): {said}"))


def _number_not_text(written: str) -> str:
    """The scenario loader's words for a number where text goes, ``written`` as typed."""
    from sim.scenario.load import quote_hint

    return f"{written} is a number, not text: {quote_hint(written)}"


@dataclass(frozen=True)
class Swept:
    """A ``batch`` command's scenario file and ``--sweep`` options, as typed: what a refusal
    of one of its design points names (and a ``--resume`` refusal, its ``--seed``).

    Attributes:
        file: the scenario (or campaign) file as typed.
        sweeps: each ``--sweep PATH=V1,V2,…`` as typed.
        seed_given: ``--seed`` was given (else the seed is the scenario's own).
    """

    file: str
    sweeps: tuple[str, ...]
    seed_given: bool = True

    def typed(self, path: str, value: Any) -> str | None:
        """The text a number ``value`` of ``--sweep path`` was typed in (``08`` for 8), or
        None (not a number, or typed as read)."""
        from sim.batch.inputs.fieldpath import split_values
        from sim.scenario.values import typed_number

        for text in self.sweeps:
            at, _, spec = text.partition("=")
            for item in split_values(spec) if at == path else []:
                written = typed_number(item)
                if written is not None and written != str(value) and _same(item, value):
                    return written
        return None


def _same(item: str, value: Any) -> bool:
    """``item`` reads as ``value``, of its very type (8 is not 8.0)."""
    from sim.scenario.values import parse_value

    read = parse_value(item)
    return type(read) is type(value) and read == value


def _progress(quiet: bool) -> ProgressBar | None:
    from sim.batch.execution.progress import ProgressBar

    return None if quiet or not sys.stderr.isatty() else ProgressBar(sys.stderr)


def _folder(out: Path, *, probe: bool = True) -> Path:
    """``out`` as an output folder, or a plain error (exit 2) when a file stands in the way
    or no file can be made there (unless not ``probe``: :func:`sim.outputs.check_output`)."""
    from sim.outputs import OutputError, check_output

    try:
        return check_output(out, folder=True, probe=probe)
    except OutputError as exc:
        common.fail(str(exc))


def _run(
    plan: StudyPlan,
    out: Path,
    options: RunOptions,
    as_json: bool,
    source: StudySpec | Swept | None = None,
) -> dict[str, Any]:
    """Run the study; ``source`` is the study file's, which names the factor of a design point
    the scenario refuses at its line, or the ``--sweep`` options and their scenario file."""
    from sim.batch.analysis.summary import format_summary
    from sim.batch.execution.executors import ExecutorError
    from sim.batch.execution.progress import ProgressBar
    from sim.batch.planning.spec import StudySpec
    from sim.batch.storage.opening import PointError
    from sim.batch.storage.store import StoreError
    from sim.batch.study import DB_NAME, StudyError, StudyIncomplete, run_study
    from sim.cli.interrupts import errors_as_interrupts
    from sim.text.grammar import count

    bar = options.progress
    try:
        with errors_as_interrupts():  # DuckDB's error for a Ctrl-C at a commit is a Ctrl-C
            result = run_study(plan, out, options)
    except PointError as exc:  # from the study file's factors, or from --sweep
        _point_refused(exc, source)
    except (StudyError, ExecutorError, StoreError) as exc:
        _bad_input(_error(_refusal(exc, source)))
    except StudyIncomplete as exc:
        click.echo(_error(str(exc)), err=True)
        sys.exit(1)
    except KeyboardInterrupt:  # a new line first only to end a progress bar's line
        lead = "\n" if isinstance(bar, ProgressBar) else ""
        click.echo(lead + _interrupted(out / DB_NAME), err=True)
        sys.exit(1)
    finally:
        if isinstance(bar, ProgressBar):
            bar.close()
    if as_json:
        common.echo_json(result.summary)
    else:
        study_file = isinstance(source, StudySpec)  # --sweep's Swept is no study file
        for line in format_summary(result.summary, study_file=study_file):
            click.echo(line)
        overrides = result.summary["study"].get("overrides")
        if overrides:
            click.echo(f"Overrides of the study file: {_overrides_text(overrides)}")
        resumed = ""
        if result.ran != result.committed:  # a resumed study: what this command added
            resumed = f", {result.ran:,} fought now" if result.ran else ", all fought before"
        plots = f", {out / 'plots'}/" if options.plots else ""
        common.say(
            f"Results: {out / DB_NAME} ({count(result.committed, 'run', spec=',')}{resumed}), "
            f"{out / 'summary.json'}{plots}"
        )
    _every_run_failed(result.summary, out / DB_NAME)
    return result.summary


def _refusal(exc: Exception, source: StudySpec | Swept | None) -> str:
    """A study's refusal in one line; a ``--resume`` of a study begun otherwise names each
    setting as it was given, a study file's field or ``batch``'s flag (its ``--seed``, or
    the scenario's seed where none was given)."""
    from sim.batch.planning.spec import StudySpec
    from sim.batch.storage.opening import FactorRefused, PlanDiffers

    if isinstance(exc, FactorRefused) and isinstance(source, Swept):  # the file it sweeps
        return f"{source.file}: {exc}"
    if not isinstance(exc, PlanDiffers):
        return str(exc)
    if isinstance(source, StudySpec):
        return exc.said("file")
    return exc.said("flags", seed_given=source.seed_given if isinstance(source, Swept) else True)


def _every_run_failed(summary: dict[str, Any], db: Path) -> None:
    """Exit 2 with one line when the study has runs and none of them was fought to its end:
    every run raised (a ruleset's bug, or a scenario its rules cannot fight), so the tables
    hold no outcome and a script must not go on as if they did. Some runs failed among
    runs done: exit 0, the failures counted in the summary, as documented."""
    points = summary.get("points", [])
    pilots = [p.get("pilot") or {} for p in points]  # --until-ci: the pilot's runs apart
    failed = sum(int(p.get("failed", 0)) for p in points)
    failed += sum(int(p.get("runs", 0)) - int(p.get("done", 0)) for p in pilots)
    done = sum(int(p.get("done", 0)) for p in points) + sum(int(p.get("done", 0)) for p in pilots)
    if failed == 0 or done:
        return
    first = next((p for p in points if p.get("errors")), None)
    where = ""
    if first is not None:
        text = next(iter(first["errors"]))  # the summary's first (its errors in text order)
        where = f" ({text}, at point {first['point']})"
    _bad_input(
        _error(
            f"every run of the study failed, {failed} of {failed}{where}; no outcome was "
            f"recorded: the runs and their errors are in {db}"
        )
    )


def _interrupted(db: Path) -> str:
    """What an interrupt leaves: the committed chunks, or (truthfully) nothing yet."""
    from sim.batch.storage.store import Store, StoreError
    from sim.text.grammar import count

    if not db.is_file():  # interrupted while the database was being made: it was removed
        return (
            "battlesim: interrupted before the study's database was made: nothing is kept — "
            "run the same command to start the study"
        )
    done = 0
    try:
        store = Store.open(db, read_only=True)
        try:
            row = store.con.execute("SELECT count(*) FROM runs").fetchone()
            done = int(row[0]) if row else 0
        finally:
            store.close()
    except (StoreError, OSError, ValueError):
        done = 0  # not readable now: claim nothing
    if done == 0:
        return (
            "battlesim: interrupted before any chunk was committed: no run is kept — "
            "run the same command with --resume to start the study"
        )
    return (
        f"battlesim: interrupted; the committed chunks are kept ({count(done, 'run', spec=',')}) — "
        "run the same command with --resume to complete the study"
    )


def _sized(plan: StudyPlan, where: str, quiet: bool) -> None:
    """Refuse a plan of too many runs (exit 2) before a point is built; say a long check."""
    from sim.batch.planning.plan import size_problem

    problem = size_problem(plan)
    if problem is not None:
        _bad_input(_error(f"{where}: {problem}"))
    points = plan.point_count()
    if points >= LARGE_DESIGN and not quiet:
        click.echo(
            f"battlesim: building and checking {points:,} design points before the first run…",
            err=True,
        )


def _overrides_text(overrides: dict[str, dict[str, Any]]) -> str:
    """``--runs 20 (the file: 200), --until-ci 0.1 (the file: none)``."""
    from sim.batch.overrides import FLAGS

    def shown(value: Any) -> str:
        return "none" if value is None else f"{value:g}" if isinstance(value, float) else str(value)

    return ", ".join(
        f"{FLAGS.get(k, k)} {shown(v.get('value'))} (the file: {shown(v.get('file'))})"
        for k, v in overrides.items()
    )


_executor_options = common.executor_options(
    "Complete the study in --out after it was stopped.", "Print the summary as JSON."
)


def _interval_option(f: Any) -> Any:
    f = click.option(
        "--paired-interval",
        type=click.Choice(["newcombe-paired", "newcombe-paired-cc"]),
        default=None,
        help="A paired (--crn) win-rate difference's 95 % interval: Newcombe's method 10 "
        "(default) or 11, continuity-corrected (a study file's 'paired_interval').",
    )(f)
    return click.option(
        "--interval",
        type=click.Choice(["wilson", "clopper-pearson", "jeffreys"]),
        default=None,
        help="Win and draw rates' 95 % interval (default wilson; a study file's 'interval').",
    )(f)


def _until_ci_option(help_text: str) -> Callable[[Any], Any]:
    """``--until-ci W``: the half-width the --until-ci stopping rule aims at."""
    half_width = common.Real(0, 0.5, min_open=True, max_open=True)
    return click.option("--until-ci", type=half_width, default=None, metavar="W", help=help_text)


def _plan(**settings: Any) -> Any:
    """The study's plan; a setting it refuses (a scenario's seed out of range) one line."""
    from sim.batch.planning.plan import StudyPlan
    from sim.scenario.values import ValueProblem

    try:
        return StudyPlan(**settings)
    except ValueProblem as exc:
        _bad_input(_error(str(exc)))


def _options(
    execution: common.Execution,
    plots: bool,
    baseline: int = 0,
    interval: str = "wilson",
    paired_interval: str | None = None,
) -> RunOptions:
    from sim.batch.execution.executors import boot_workers

    execution.check()
    boot_workers(execution.kind, execution.workers)  # while DuckDB and the study load here
    from sim.batch.study import RunOptions  # DuckDB, NumPy: after the boot began

    bar = _progress(execution.quiet)
    return RunOptions(
        jobs=execution.workers,
        executor=execution.kind,
        scheduler=execution.scheduler,
        resume=execution.resume,
        progress=bar,
        fought=bar,  # the bar moves as chunks come in, not only at commit points
        note=lambda text: common.say(f"battlesim: note: {text}", err=True),
        plots=plots,
        baseline=baseline,
        interval=interval,
        paired_interval=_paired(paired_interval),
    )


def _paired(name: str | None) -> Paired:
    from sim.batch.methods.differences import PAIRED, PAIRED_DEFAULT

    return next((p for p in PAIRED if p == name), PAIRED_DEFAULT)


@click.command(cls=common.Command)
@common.file_argument("target", "SCENARIO")
@click.option(
    "--runs",
    "-n",
    type=common.Whole(1, 10_000_000),
    required=True,
    help="Replications per design point (the most, with --until-ci).",
)
@common.seed_option("Study seed (default: the scenario's or campaign's own 'seed').")
@common.out_option("Output folder (default: <scenario stem>-study here).", folder=True)
@click.option(
    "--sweep",
    multiple=True,
    metavar="FIELD.PATH=V1,V2,…",
    help="Sweep a field by its dotted path (list items by index or id): "
    "sides.csa.units.phil.strength=300,420 or, with --design lhs, options.fire_hcv=15..35.",
)
@common.default_option(
    "--design",
    kind=click.Choice(["grid", "lhs", "morris", "sobol"]),
    default="grid",
    help_text="grid: every combination of the sweeps; lhs: a Latin hypercube of --points points; "
    "morris: --points trajectories (elementary effects); sobol: --points base samples "
    "(a power of two) for Sobol' indices.",
)
@click.option(
    "--points",
    type=common.Whole(1, 100_000),
    default=None,
    metavar="K",
    help="Points (lhs), trajectories (morris) or base samples (sobol).",
)
@click.option("--crn", is_flag=True, help="Common random numbers: one seed per replication.")
@common.default_option(
    "--baseline",
    kind=common.Whole(0),
    default=0,
    metavar="K",
    help_text="Compare every design point with point K (paired with --crn).",
)
@_until_ci_option(
    "Target half-width W of each side's Wilson 95 % interval: a pilot sizes each "
    "point's run, a fresh confirmatory sample is summarised (unbiased)."
)
@_interval_option
@common.default_option(
    "--chunk-size",
    kind=common.Whole(1, 100_000),
    default=DEFAULT_CHUNK,
    help_text="Replications sent to a worker at once (--until-ci decides between chunks).",
)
@click.option(
    "--keep-replays",
    type=common.Whole(0),
    default=0,
    metavar="K",
    help="Keep full replays of the first K replications of each point (DIR/replays/).",
)
@click.option("--no-plots", is_flag=True, help="Do not write DIR/plots/.")
@_executor_options
def batch(
    target: str,
    runs: int,
    seed: int | None,
    out: str | None,
    sweep: tuple[str, ...],
    design: str,
    points: int | None,
    crn: bool,
    baseline: int,
    until_ci: float | None,
    interval: str | None,
    paired_interval: str | None,
    chunk_size: int,
    keep_replays: int,
    no_plots: bool,
    execution: common.Execution,
) -> None:
    """Fight SCENARIO (or a campaign) --runs times per design point.

    Writes DIR/study.duckdb (tables study, points, runs, unit_finals:
    each unit's final side, kind, strength, status words and details, every
    ruleset's), DIR/summary.json and DIR/plots/. See docs/batch.md.

    \b
    Example:
      battlesim batch scenarios/stone_wall.yaml --runs 200 --jobs 2 -o sw
    """
    from sim.batch.inputs.fieldpath import PathError
    from sim.batch.inputs.target import Target, load_target
    from sim.scenario.load import ScenarioError

    try:
        t: Target = load_target(target)
    except ScenarioError as exc:
        _bad_input(str(exc))
    try:
        factors = tuple(_factor(s) for s in sweep)
    except PathError as exc:  # every --sweep refusal names the file swept, as a value's does
        _bad_input(_error(f"{target}: {exc}"))
    if design != "grid" and not factors:
        _bad_input(_error(f"--design {design} needs at least one --sweep"))
    if design != "grid" and points is None:
        _bad_input(_error(f"--design {design} needs --points K"))
    if design == "grid" and points is not None:
        _bad_input(_error("--points applies to --design lhs, morris or sobol"))
    for f in factors:
        if design == "grid" and f.values is None:
            need = "--design lhs, morris or sobol"
            _bad_input(_error(f"{target}: --sweep {f.path}: a range LOW..HIGH needs {need}"))
    plan = _plan(
        target=t,
        seed=seed if seed is not None else int(t.data.get("seed", 1)),
        replications=runs,
        factors=factors,
        design=_design(design),
        points=points,
        crn=crn,
        chunk_size=chunk_size,
        until_ci=until_ci,
        keep_replays=keep_replays,
        name=t.name,
    )
    folder = _folder(Path(out) if out is not None else Path(f"{t.stem}-study"))
    _sized(plan, target, execution.quiet or execution.resume)
    options = _options(execution, not no_plots, baseline, interval or "wilson", paired_interval)
    _run(plan, folder, options, execution.as_json, Swept(target, tuple(sweep), seed is not None))


def _design(name: str) -> Design:
    for d in ("grid", "lhs", "morris", "sobol"):
        if d == name:
            return d
    raise click.BadParameter(name)


@click.command(cls=common.Command)
@common.file_argument("study_file", "STUDY.yaml")
@common.out_option(common.STUDY_OUT, folder=True)
@click.option(
    "--runs",
    "-n",
    type=click.IntRange(1, 10_000_000),
    default=None,
    metavar="N",
    help="Replications per design point instead of the file's 'replications'.",
)
@_until_ci_option(
    "Target half-width W (the --until-ci rule: a pilot, then a confirmatory sample) "
    "instead of the file's 'until_ci'."
)
@click.option(
    "--points",
    type=click.IntRange(1, 100_000),
    default=None,
    metavar="K",
    help="Points (lhs), trajectories (morris) or base samples (sobol) instead of the file's.",
)
@_interval_option
@_executor_options
def study(
    study_file: str,
    out: str | None,
    runs: int | None,
    until_ci: float | None,
    points: int | None,
    interval: str | None,
    paired_interval: str | None,
    execution: common.Execution,
) -> None:
    """Run the study described by STUDY.yaml.

    The file names a scenario or campaign, factors, design and outputs.
    --runs, --until-ci and --points override the file's replications,
    until_ci and points; what they changed is recorded in the study's plan
    (summary.json's "overrides"), and --resume without them completes the
    study as it was begun.

    Errors in the file are listed as file:line: field: message (exit 2).

    \b
    Examples:
      battlesim study scenarios/stone_wall_study.yaml --jobs 2
      battlesim study scenarios/stone_wall_study.yaml --runs 40 --out sw-quick
    """
    from sim.batch.overrides import (
        OverrideError,
        Overrides,
        check_stopping,
        override,
        stored_overrides,
    )
    from sim.batch.planning.spec import load_study
    from sim.batch.storage.store import StoreError
    from sim.scenario.load import ScenarioError

    try:
        spec = load_study(study_file)
    except ScenarioError as exc:
        _bad_input(str(exc))
    folder = _folder(Path(out) if out is not None else spec.out)
    try:
        stored = stored_overrides(folder) if execution.resume else None
        spec = override(spec, Overrides(runs, until_ci, points), stored)
        check_stopping(spec)
    except ScenarioError as exc:
        _bad_input(str(exc))
    except (OverrideError, StoreError) as exc:
        _bad_input(_error(str(exc)))
    _sized(spec.plan, study_file, execution.quiet or execution.resume)
    options = _options(
        execution, spec.outputs.plots, spec.baseline, interval or spec.interval,
        paired_interval or spec.paired_interval,
    )  # fmt: skip
    _run(spec.plan, folder, options, execution.as_json, spec)
    # With --json, stdout holds the summary object alone.
    show: Literal["none", "text"] = "none" if execution.as_json else "text"
    for fmt in spec.outputs.export:
        _export(folder, fmt, folder / "export", show, inside=True)


def note_incomplete(folder: Path, store: Store | None, command: str = "export") -> bool:
    """A note when the study in ``folder`` stopped before its end (its ``progress.json``
    not finished): what is read is the runs committed so far (counted in ``store``, else
    as the progress file says: it is written after each commit, so it may lag one).
    True when it noted so."""
    from sim.batch.storage.progress import read_progress
    from sim.text.grammar import count

    progress = read_progress(folder)
    if progress is not None and not progress.finished:
        committed = store.count() if store is not None else progress.committed
        common.say(
            f"battlesim: note: {str(folder)!r} is incomplete ({committed:,} of "
            f"{count(progress.planned, 'run', spec=',')} committed): {command} reads those; "
            "complete it with "
            f"--resume, then {command} again",
            err=True,
        )
        return True
    return False


def _export(
    folder: Path,
    fmt: str,
    dest: Path,
    show: Literal["text", "json", "none"] = "text",
    wide: bool = False,
    *,
    inside: bool = False,
    named: str | None = None,
) -> None:
    """Export the study in ``folder`` to ``dest`` (``inside``: the study's own ``export/``);
    ``named``: the flag and path the user gave ``dest`` as (``--out PATH``), which a folder
    that cannot be made or written is told by."""
    from engine.safety.atomic import own_folder
    from sim.batch.storage.store import Store, StoreError, utf8_path
    from sim.batch.storage.wide import export_wide
    from sim.batch.study import DB_NAME

    try:
        store = Store.open(folder / DB_NAME, read_only=True, files=True)
    except StoreError as exc:
        _bad_input(_error(str(exc)))
    try:
        store.meta(), store.points()  # a damaged plan or design point: refused, not copied
        incomplete = note_incomplete(folder, store)
        utf8_path(dest)  # DuckDB cannot write to any other
        if inside:
            own_folder(dest)  # a planted link must not send the export out of the study
        found = [export_wide(store, dest, fmt)] if wide else store.export(dest, fmt)
        written = [str(p) for p in found]
        if inside:  # the study's own export/: its files added to the manifest, nothing else
            from sim.batch.storage.manifest import list_files

            listed = list_files(folder, [f"export/{Path(p).name}" for p in found])
            if not listed and not incomplete:  # an incomplete study was noted just above
                common.say(
                    f"battlesim: note: {str(folder)!r} has no manifest.json battlesim wrote: "
                    "the export is listed in none, and verify says so",
                    err=True,
                )
    except StoreError as exc:
        _bad_input(_error(str(exc)))
    except OSError as exc:  # making or writing dest (the store is read through DuckDB)
        if named is None:
            raise
        from sim.cli.errors import describe

        why = exc.strerror or describe(exc)
        _bad_input(_error(f"{named}: cannot write the export there: {why}"))
    finally:
        store.close()
    if show == "json":
        common.echo_json({"study": str(folder), "format": fmt, "written": written})
    elif show == "text":
        for path in written:
            common.say(f"Wrote {path}")
