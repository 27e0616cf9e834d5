"""Replay commands: ``diff``, ``fork``, ``why`` and ``report`` (registered on the CLI group)."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path

import click

from engine.reader import ReplayError
from sim import analysis, api
from sim.cli import _bad_input, cli
from sim.diff import diff_replays, render
from sim.fork import ForkError, fork, parse_assignment
from sim.report_html import write_diff, write_report
from sim.ruleset import headline

__all__ = ["diff", "fork_command", "report", "why"]


def _load(path: str) -> api.LoadedReplay:
    try:
        return api.load_replay(path)
    except ReplayError as exc:
        _bad_input(f"battlesim: error: {exc}")


@cli.command()
@click.argument("a", type=click.Path(exists=True, dir_okay=False))
@click.argument("b", type=click.Path(exists=True, dir_okay=False))
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@click.option(
    "--html",
    "html_out",
    type=click.Path(dir_okay=False),
    default=None,
    help="Also write both battles side by side on one timeline as one HTML page.",
)
@click.option(
    "--context",
    type=click.IntRange(0),
    default=3,
    show_default=True,
    help="Events of context around the first divergence.",
)
def diff(a: str, b: str, as_json: bool, html_out: str | None, context: int) -> None:
    """Compare two battles. Exit 0 when identical, 1 when they differ, 2 on bad input.

    Same scenario and seed: the first divergent event with a field-level diff,
    context and the random-stream draw counts at that point.  Otherwise: the
    scenario diff by field path and the outcomes side by side.  With --html,
    also a page showing both battles from their first divergent event.
    """
    la, lb = _load(a), _load(b)
    page = Path(html_out) if html_out is not None else None
    if page is not None:
        _writable("--html", page)
        _write(lambda: [write_diff(la, lb, page)])
    result = diff_replays(la, lb, context)
    if as_json:
        click.echo(json.dumps(result, sort_keys=True))
    else:
        for line in render(result):
            click.echo(line)
    sys.exit(0 if result["identical"] else 1)


@cli.command("fork")
@click.argument("replay", type=click.Path(exists=True, dir_okay=False))
@click.option(
    "--at",
    "at_seq",
    type=click.IntRange(0),
    required=True,
    help="The event (seq) to change, or after which to change the state.",
)
@click.option(
    "--set",
    "sets",
    multiple=True,
    required=True,
    metavar="FIELD=VALUE",
    help="An event field (passed=true, after=good, result.casualties=0) or a state "
    "field after the event (state.units.1ri.strength=6). Repeatable.",
)
@click.option(
    "--out",
    type=click.Path(dir_okay=False),
    default=None,
    help="The forked replay (default: <replay stem>-fork<SEQ>.jsonl here).",
)
def fork_command(replay: str, at_seq: int, sets: tuple[str, ...], out: str | None) -> None:
    """Fork REPLAY at event SEQ with a change, and fight on with the same random streams."""
    loaded = _load(replay)
    path = Path(out) if out else Path(f"{Path(replay).name.split('.')[0]}-fork{at_seq}.jsonl")
    if not path.parent.is_dir():
        _bad_input(f"battlesim: error: --out: directory {str(path.parent)!r} does not exist")
    try:
        assignments = [parse_assignment(s) for s in sets]
        written = fork(loaded, at_seq, assignments, path)
    except ForkError as exc:
        _bad_input(f"battlesim: error: {exc}")
    child = api.load_replay(written)
    outcome = child.ruleset.outcome(child.scenario, child.state_at())
    click.echo(f"forked {replay} at seq {at_seq}: {headline(child.ruleset, outcome)}")
    click.echo(
        f"Replay: {written} ({len(child.events)} events); "
        f"compare with: battlesim diff {replay} {written}"
    )


@cli.command()
@click.argument("replay", type=click.Path(exists=True, dir_okay=False))
@click.argument("seq", type=click.IntRange(0))
def why(replay: str, seq: int) -> None:
    """Explain event SEQ of REPLAY: the chain of events that caused it, root first."""
    loaded = _load(replay)
    try:
        chain = analysis.why(loaded, seq)
    except IndexError as exc:
        _bad_input(f"battlesim: error: {exc}")
    for depth, (event, line) in enumerate(chain):
        arrow = "→ " if depth else ""
        click.echo(f"{'  ' * depth}{arrow}[seq {event.seq}] {line}")
    if len(chain) == 1:
        click.echo("  (no recorded cause: a decision of its own, from its order and the dice)")


@cli.command()
@click.argument("replay", type=click.Path(exists=True, dir_okay=False))
@click.option(
    "-o",
    "--out",
    type=click.Path(dir_okay=False),
    default=None,
    help="The HTML file (default: <replay stem>.html here).",
)
@click.option(
    "--png",
    "png_dir",
    type=click.Path(file_okay=False),
    default=None,
    help="Also write each chart as a PNG into this directory.",
)
def report(replay: str, out: str | None, png_dir: str | None) -> None:
    """Write one self-contained HTML page to watch REPLAY: map, timeline, charts, key events."""
    loaded = _load(replay)
    path = Path(out) if out else Path(f"{Path(replay).name.split('.')[0]}.html")
    _writable("-o", path)
    files = _write(lambda: write_report(loaded, path, Path(png_dir) if png_dir else None))
    for f in files:
        click.echo(f"wrote {f}")


def _writable(flag: str, path: Path) -> None:
    if not path.parent.is_dir():
        _bad_input(f"battlesim: error: {flag}: directory {str(path.parent)!r} does not exist")


def _write(action: Callable[[], list[Path]]) -> list[Path]:
    """Run a writer; an unwritable place is bad input (exit 2), never a traceback."""
    try:
        return action()
    except OSError as exc:
        _bad_input(f"battlesim: error: cannot write {exc.filename or ''}: {exc.strerror or exc}")
