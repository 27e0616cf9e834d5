"""``battlesim history``: the historical benchmark suite, each case against the record."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import click

from sim.cli import common

__all__ = ["history"]


def _select(cases: list[Any], wanted: tuple[str, ...]) -> list[Any]:
    """The cases named by ``--case`` (all when none), or exit 2 naming an unknown one."""
    if not wanted:
        return cases
    from sim.text.suggest import did_you_mean  # noqa: PLC0415

    ids = [c.id for c in cases]
    for w in wanted:
        if w not in ids:
            common.fail(f"--case {w}: no such case{did_you_mean(w, ids)} (cases: {', '.join(ids)})")
    return [c for c in cases if c.id in wanted]


def _write(
    folder: Path | None, png: Path | None, lines: list[str], data: Any, results: Any
) -> None:
    """history.txt, history.json and the plot, put in place together (none of them when one
    cannot be written, and Ctrl-C held back among the renames): a full disk at the plot, or
    a Ctrl-C, had left a new table beside the last run's plot."""
    import json  # noqa: PLC0415

    from engine.safety.atomic import exporting_together  # noqa: PLC0415

    finals = [*(() if folder is None else (folder / "history.txt", folder / "history.json"))]
    finals += [] if png is None else [png]
    if not finals:
        return
    if folder is not None:
        folder.mkdir(parents=True, exist_ok=True)
    with exporting_together(finals) as held:
        if folder is not None:
            held[0].write_text("\n".join(lines) + "\n", encoding="utf-8")
            held[1].write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
        if png is not None:
            from sim.history.plot import plot as draw  # noqa: PLC0415

            draw(results, held[-1])


def _outputs(
    out: str | None, plot: str | None, force: bool, reads: tuple[Path, ...] = ()
) -> tuple[Path | None, Path | None]:
    """The output folder and the plot's path, checked before anything is fought (never one
    of the files the command ``reads``: a case file or its scenario)."""
    from sim.outputs import OutputError, check_output  # noqa: PLC0415

    try:
        folder = check_output(out, folder=True) if out is not None else None
        png = Path(plot) if plot is not None else None
        if png is None and folder is not None:
            png = folder / "history.png"
        if plot is not None and folder is not None:  # --out's own files are not the plot's
            ours = {(folder / n).resolve() for n in ("history.txt", "history.json")}
            if Path(plot).resolve() in ours:
                raise OutputError(
                    f"--plot {plot}: that is where --out writes {Path(plot).name}: "
                    "choose another name for the plot"
                )
        # a plot in --out's folder, which the command makes: nothing there to check yet
        unmade = folder.resolve() if folder is not None and not folder.exists() else None
        if plot is not None and Path(plot).resolve().parent != unmade:
            check_output(plot, option="--plot", force=force, reads=reads)
        if folder is not None and folder.is_dir() and plot is not None:
            for name in ("history.txt", "history.json"):
                check_output(folder / name, force=force, reads=reads)
        elif folder is not None and folder.is_dir():
            for name in ("history.txt", "history.json", "history.png"):
                check_output(folder / name, force=force, reads=reads)
    except OutputError as exc:
        common.fail(str(exc))
    return folder, png


@click.command(cls=common.Command)
@click.option(
    "--case",
    "cases",
    metavar="ID",
    multiple=True,
    help="Run only this case (repeat for more; default: every case).",
)
@click.option(
    "--suite",
    type=click.Path(file_okay=False, exists=True),
    default=None,
    help="A folder of case files (default: the suite shipped with battlesim).",
)
@common.default_option(
    "--jobs",
    "-j",
    kind=click.IntRange(1, 64),
    default=1,
    metavar="N",
    help_text="Worker processes (the results are the same for any number).",
)
@click.option(
    "--split",
    "split",
    type=click.Choice(["fitting", "held_out"]),
    default=None,
    help="Fight only the fitting or only the held-out cases (default: both).",
)
@common.default_option(
    "--max-runs",
    kind=click.IntRange(1, 100_000),
    default=1600,
    metavar="N",
    help_text="While a measure is inconclusive, double its case's runs up to this many.",
)
@click.option(
    "--allow-inconclusive",
    is_flag=True,
    help="Exit 0 when no measure fails, even if some are inconclusive.",
)
@common.out_option("Also draw every measure against history into this PNG.", names=("--plot",))
@common.out_option(
    "Also write history.txt, history.json and history.png into this folder (the plot goes "
    "to --plot's file instead when that is given).",
    folder=True,
)
@common.force_option(common.FILE_FORCE)
@common.quiet_option("No progress on stderr: no line as each case starts, no bar.")
@common.json_option("Print the results as one JSON object.")
def history(
    cases: tuple[str, ...],
    suite: str | None,
    jobs: int,
    split: str | None,
    max_runs: int,
    allow_inconclusive: bool,
    plot: str | None,
    out: str | None,
    force: bool,
    quiet: bool,
    as_json: bool,
) -> None:
    """Fight the historical cases and compare each with the record.

    Each case is a shipped scenario or campaign set up from the record; it
    is fought as a study with fixed seeds, and each measure's estimate (with
    its 95 % interval and the interval's method) is set against the
    historical value, the range a designer accepts and the source. A
    measure passes when its whole interval lies within the range, fails
    when it lies wholly outside, and is inconclusive otherwise; a case with
    an inconclusive measure is fought again with twice the runs (the next
    seeds of its sequence) up to --max-runs. The fitting and held-out cases
    are reported apart. Each measure's "record's p" says how far out among the
    model's runs the record's value lies ("beyond" when at most about one run
    in twenty reaches it on its side); it informs, and changes no verdict.

    Exit 0 when every measure passes, 1 when one fails or is inconclusive
    (inconclusive only: 0 with --allow-inconclusive), 2 on bad input. Needs
    the study extra (numpy, scipy: make dev, or pip install 'battlesim[study]').

    \b
    Examples:
      battlesim history                                          # exit 0 or 1
      battlesim history --case quatre_bras_hedge --jobs 2        # exit 0 or 1
      battlesim history --split held_out --max-runs 3200         # exit 0 or 1
      battlesim history --json --plot history.png                # exit 0 or 1
    """
    common.needs("numpy", "scipy")  # the study extra: said before a case is read or fought
    from sim.history import SUITE, load_suite, run_suite, table  # noqa: PLC0415
    from sim.history import as_json as json_of  # noqa: PLC0415
    from sim.scenario.load import ScenarioError  # noqa: PLC0415

    try:
        chosen = _select(load_suite(Path(suite) if suite is not None else SUITE), cases)
    except ScenarioError as exc:  # every problem of the file, a line each
        for problem in exc.problems:
            common.say(f"battlesim: error: {problem}", err=True)
        sys.exit(2)
    if not chosen:
        common.fail(f"{suite}: no case files (*.yaml) in this folder")
    if split is not None:
        others = [c for c in chosen if c.spec.split != split]
        chosen = [c for c in chosen if c.spec.split == split]
        if not chosen:
            names = ", ".join(c.spec.id for c in others[:3]) + (" …" if len(others) > 3 else "")
            held = "held out" if split == "fitting" else "fitting"
            common.fail(
                f"--split {split}: no {split.replace('_', '-')} case among those chosen "
                f"({names}: {held}); leave out --split, or choose a {split.replace('_', '-')} case"
            )
    reads = tuple(  # each case file and the scenario or campaign it names
        p for c in chosen for p in (c.file, c.file.parent / str(c.spec.scenario or c.spec.campaign))
    )
    folder, png = _outputs(out, plot, force, reads)
    results = run_suite(chosen, jobs, _progress(chosen, quiet), max_runs)
    lines = table(results, max_runs, split)  # type: ignore[arg-type]
    data = json_of(results, max_runs)
    _write(folder, png, lines, data, results)
    if as_json:
        common.echo_json(data)
    else:
        for line in lines:
            click.echo(line)
    verdicts = {m.verdict for r in results for m in r.measures}
    if "fail" in verdicts or ("inconclusive" in verdicts and not allow_inconclusive):
        sys.exit(1)
    sys.exit(0)


def _progress(chosen: list[Any], quiet: bool) -> Any:
    """For each case as it starts: its line on stderr, and a bar on a terminal; off a
    terminal, a line each time an inconclusive case is fought again with more runs (a log
    said only the first count, of a case that went on to fight eight times as many)."""
    from sim.batch.execution.progress import ProgressBar  # noqa: PLC0415
    from sim.text.grammar import count  # noqa: PLC0415

    bars: list[ProgressBar] = []

    def start(case: Any) -> Any:
        if bars:
            bars.pop().close()
        if quiet:
            return None
        n = chosen.index(case) + 1
        head = f"[{n}/{len(chosen)}] {case.id}"
        click.echo(f"{head}: {count(case.spec.runs, 'run', spec=',')}", err=True)
        if sys.stderr.isatty():
            bars.append(ProgressBar(sys.stderr))
            return bars[-1]
        asked = [case.spec.runs]

        def doubled(_done: int, total: int) -> None:
            if total > asked[-1]:
                click.echo(f"{head}: {total:,} runs (inconclusive at {asked[-1]:,})", err=True)
                asked.append(total)

        return doubled

    return start
