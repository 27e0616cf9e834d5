"""``battlesim discover``: where in the factors of a study an outcome holds (PRIM).

A wrapper over :mod:`sim.batch.discovery.discover`; ``verify STUDY_DIR`` is in
:mod:`sim.cli.battles.core` beside the replay ``verify``. Exit codes: 0 done, 2 bad
input (no study, a condition that cannot be read).
"""

from __future__ import annotations

from pathlib import Path

import click

from sim.cli import common

__all__ = ["discover"]

# Each command imports what it wraps in its body (PLC0415): start-up stays light.
# ruff: noqa: PLC0415


@click.command(cls=common.Command)
@click.argument("study_dir", metavar="STUDY_DIR", type=click.Path(file_okay=False))
@click.option(
    "--measure",
    "-m",
    required=True,
    metavar="CONDITION",
    help="The outcome, a condition on a run: \"winner == 'usa'\", 'turns > 10', "
    "'usa_men_lost >= 500 and not draw' (see docs/batch.md).",
)
@common.default_option(
    "--boxes",
    kind=click.IntRange(1, 20),
    default=3,
    metavar="N",
    help_text="Boxes to find at most (each covers what the ones before left).",
)
@common.default_option(
    "--min-coverage",
    kind=common.Real(0, 1),
    default=0.5,
    help_text="The box reported is the densest whose coverage is at least this.",
)
@common.default_option(
    "--alpha",
    kind=common.Real(0, 0.5, min_open=True, max_open=True),
    default=0.05,
    help_text="Share of a box's runs each peel removes.",
)
@common.default_option(
    "--min-mass",
    kind=common.Real(0, 1, min_open=True, max_open=True),
    default=0.05,
    help_text="Peeling stops before a box holds less than this share of the runs.",
)
@common.out_option("The plot (default: STUDY_DIR/plots/discover.png).")
@click.option("--no-plot", is_flag=True, help="Draw no plot.")
@common.force_option(
    "Overwrite a file already at --out (the study's own plots/discover.png is redrawn without it)."
)
@common.json_option("Print the boxes as one JSON object.")
def discover(
    study_dir: str,
    measure: str,
    boxes: int,
    min_coverage: float,
    alpha: float,
    min_mass: float,
    out: str | None,
    no_plot: bool,
    force: bool,
    as_json: bool,
) -> None:
    """Find where in a study's factors an outcome holds (PRIM).

    Prints each box as plain conditions on the factors with its density
    (share of its runs where the outcome holds), coverage (share of all
    such runs it holds) and counts, and draws the coverage-density
    trade-off. Deterministic: the same study gives the same boxes.

    \b
    Examples:
      battlesim discover stone_wall_study --measure "usa_men_lost >= 541"
      battlesim discover sw-quick -m 'usa_men_lost > 600' --boxes 1 --json
    """
    from sim.batch.discovery.condition import ConditionError
    from sim.batch.discovery.discover import DiscoverError, discover_lines
    from sim.batch.discovery.discover import discover as find
    from sim.batch.storage.store import StoreError

    if out is not None and Path(out).resolve().is_relative_to(Path(study_dir).resolve()):
        common.fail(  # its database, summary, manifest and plots are the study's own
            f"--out {out!r} is inside the study {study_dir!r}, whose files its manifest "
            "lists: write the plot elsewhere, or leave --out out (plots/discover.png)"
        )
    try:
        result = find(study_dir, measure, boxes, min_coverage, alpha, min_mass)
    except (ConditionError, DiscoverError, StoreError) as exc:
        common.fail(str(exc))
    from sim.cli.outcomes.batch import note_incomplete

    note_incomplete(Path(study_dir), None, "discover")
    drawn = not no_plot and bool(result["boxes"])  # never an empty chart
    result["plot"] = str(_plot(result, study_dir, out, force)) if drawn else None
    if as_json:
        common.echo_json(result)
        return
    for line in discover_lines(result):
        click.echo(line)
    if result["plot"] is not None:
        common.say(f"Plot: {result['plot']}")
    elif not no_plot:
        click.echo("Plot: none (no box to draw)")


def _plot(result: dict[str, object], study_dir: str, out: str | None, force: bool) -> Path:
    """Draw the plot at ``out``, or in the study's plots/ folder (a real folder, not a link)."""
    from sim.batch.charts.discover import discover_plot
    from sim.outputs import OutputError, check_output

    if out is None:
        folder = Path(study_dir) / "plots"
        if folder.is_symlink() or (folder.exists() and not folder.is_dir()):
            common.fail(
                f"{folder}: not a folder of the study (a link or a file): name the plot with --out"
            )
        folder.mkdir(exist_ok=True)
        path = folder / "discover.png"
        force = True  # the study's own plot, drawn again; the manifest lists it
    else:
        path = Path(out)
    try:
        checked = check_output(path, force=force)
    except OutputError as exc:
        common.fail(str(exc))
    try:
        drawn = discover_plot(result, checked)
        if out is None:
            from sim.batch.storage.manifest import list_files

            list_files(Path(study_dir), ["plots/discover.png"])
        return drawn
    except OSError as exc:
        common.fail(f"cannot write {path}: {exc.strerror or exc}")
