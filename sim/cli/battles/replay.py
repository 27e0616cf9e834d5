"""Replay commands: ``diff``, ``fork``, ``why`` and ``report`` (wrappers over sim modules)."""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import TYPE_CHECKING

import click

from sim.cli import common

if TYPE_CHECKING:
    from pathlib import Path


__all__ = ["diff", "fork_command", "report", "why"]

# Each command imports what it wraps in its body (PLC0415): start-up stays light.
# ruff: noqa: PLC0415


def _stem(replay: str) -> str:
    """:func:`sim.outputs.replay_stem` (imported when a command runs)."""
    from sim.outputs import replay_stem

    return replay_stem(replay)


@click.command(cls=common.Command)
@common.file_argument("a")
@common.file_argument("b")
@common.json_option()
@common.out_option(
    "Also write both battles side by side on one timeline as one HTML page.",
    names=("--html", "html_out"),
)
@common.force_option(common.PAGE_FORCE)
@click.option(
    "--verbose",
    "-v",
    is_flag=True,
    help="Print every changed field, unit, turn and random stream, not a bounded summary.",
)
@common.default_option(
    "--context",
    kind=common.Whole(0),
    default=3,
    metavar="N",
    help_text="Events of context around the first divergence.",
)
def diff(
    a: str,
    b: str,
    as_json: bool,
    html_out: str | None,
    force: bool,
    verbose: bool,
    context: int,
) -> None:
    """Compare two battles: 0 identical, 1 different, 2 bad input.

    Same scenario and seed: the first divergent event with a field-level diff,
    context and the draw counts of the random streams it draws from.
    Otherwise: the scenario diff by field path and the outcomes side by side.
    The text is a bounded summary (at most 20 rows a section); --verbose or
    --json gives every row and the draw count of every stream.  With --html,
    also a page showing both battles from their first divergent event.

    \b
    Example:
      battlesim diff replays/stone_wall-s1862.jsonl held.jsonl --context 8  # exit 1: they differ
    """
    from pathlib import Path

    from sim.cli.battles.views import load_replay, reading
    from sim.outputs import OutputError, check_output, is_page
    from sim.replay.diff import diff_replays, render
    from sim.replay.report import write_diff

    la, lb = load_replay(a), load_replay(b)
    with reading(la, lb):
        page = None
        if html_out is not None:
            try:
                page = check_output(
                    html_out,
                    option="--html",
                    force=force,
                    ours=is_page,
                    what="a page",
                    reads=(a, b),
                )
            except OutputError as exc:
                common.fail(str(exc))
        result = diff_replays(la, lb, context, detail=as_json or verbose)
        if page is not None:
            _write(lambda: [write_diff(la, lb, Path(page), compared=result)])
    if as_json:
        common.echo_json(result)
    else:
        axes = {*la.ruleset.space(la.scenario).axes, *lb.ruleset.space(lb.scenario).axes}
        for line in render(result, verbose=verbose, turn=la.ruleset.turn_name, axes=sorted(axes)):
            common.say(line)
    if page is not None and not as_json:  # stdout is the diff's: the page is named on stderr
        common.say(f"Wrote {page}", err=True)
    sys.exit(0 if result["identical"] else 1)


@click.command("fork", cls=common.Command)
@common.file_argument("replay")
@click.option(
    "--at",
    "at_seq",
    type=common.Whole(0),
    required=True,
    metavar="SEQ",
    help="The event (seq) to change, or after which to change the state.",
)
@click.option(
    "--set",
    "sets",
    multiple=True,
    required=True,
    metavar="FIELD=VALUE",
    help="An event field (passed=true, after=good; a loss's result.casualties=0 with the "
    "fields it decides, which the refusal names) or a state field after the event "
    "(state.units.1ri.strength=4). Repeatable.",
)
@common.out_option("The forked replay (default: <replay stem>-fork<SEQ>.jsonl here; .gz for gzip).")
@common.force_option()
@common.json_option()
def fork_command(
    replay: str,
    at_seq: int,
    sets: tuple[str, ...],
    out: str | None,
    force: bool,
    as_json: bool,
) -> None:
    """Fork REPLAY at event SEQ with a change and fight on.

    The battle goes on with the same random streams. SEQ is the event's
    number: 'battlesim show REPLAY --events --seqs' starts each line with it
    (narrow the lines with --type or --unit).

    \b
    Example:
      battlesim fork replays/stone_wall-s1862.jsonl --at 39 \\
        --set passed=true --set after=good -o held.jsonl
    """
    from pathlib import Path

    from engine.safety.atomic import named_as_given
    from sim.cli.battles.views import load_replay, reading
    from sim.contract import headline
    from sim.outputs import OutputError, check_output, is_replay
    from sim.replay.fork import ForkError, fork_battle, parse_assignment
    from sim.scenario.values import typed_number

    loaded = load_replay(replay)
    path = Path(out) if out else Path(f"{_stem(replay)}-fork{at_seq}.jsonl")
    try:
        with reading(loaded):
            check_output(path, force=force, ours=is_replay, what="a replay")
            assignments = [parse_assignment(s) for s in sets]
            typed = {f: typed_number(v) for f, _, v in (s.partition("=") for s in sets)}
            texts = {f: t for f, t in typed.items() if t is not None}  # 08, not 8, if refused
            forked = fork_battle(loaded, at_seq, assignments, out if out else path, texts)
    except (ForkError, OutputError) as exc:
        common.fail(str(exc))
    except OSError as exc:  # a full disk names --out as given; a link planted at <out>.partial
        named_as_given(exc, out if out else path)  # is named as the system names it
        common.fail(f"cannot write {exc.filename}: {exc.strerror or exc}")
    written, outcome = forked.path, loaded.ruleset.outcome(loaded.scenario, forked.state)
    if forked.note is not None:  # stdout keeps the headline (or the JSON)
        common.say(f"battlesim: note: {forked.note}", err=True)
    if as_json:
        common.echo_json(
            {
                "replay": str(written),
                "parent": replay,
                "at": at_seq,
                "ruleset": loaded.header.ruleset,
                "ruleset_version": loaded.header.ruleset_version,  # a fork keeps its parent's
                "events": forked.events,
                **outcome.as_json(),
                # the parent's changes the note on stderr names: as its header records them
                "left_out": [
                    {"at_seq": at, "event": f.event, "state": f.state}
                    for at, f in forked.left_out.items()
                ],
            }
        )
        return
    common.say(f"forked {replay} at seq {at_seq}: {headline(loaded.ruleset, outcome)}")
    common.say(
        f"Replay: {written} ({forked.events} events); "
        f"compare with: {common.command_line('diff', replay, written)}"
    )


@click.command(cls=common.Command)
@common.file_argument("replay")
@click.argument("seq", type=common.Whole(0))
@common.json_option("Print one JSON object: the chain of causes, root first.")
def why(replay: str, seq: int, as_json: bool) -> None:
    """Explain event SEQ of REPLAY: its chain of causes, root first.

    SEQ is the event's number: 'battlesim show REPLAY --events --seqs'
    starts each line with it (narrow the lines with --type or --unit).

    \b
    Example:
      battlesim why replays/stone_wall-s1862.jsonl 33
    """
    from sim.cli.battles.views import load_replay, reading
    from sim.replay import analysis

    loaded = load_replay(replay)
    try:
        with reading(loaded):
            chain = analysis.why(loaded, seq)
    except IndexError as exc:
        common.fail(f"{replay}: {exc}")
    if as_json:
        links = [{"seq": e.seq, "turn": e.turn, "type": e.type, "line": line} for e, line in chain]
        common.echo_json({"replay": replay, "seq": seq, "chain": links})
        return
    for depth, (event, line) in enumerate(chain):
        arrow = "→ " if depth else ""
        common.say(f"{'  ' * depth}{arrow}[seq {event.seq}] {line}")
    if len(chain) == 1 and chain[0][0].type in ("engine.turn_ended", "engine.snapshot"):
        click.echo("  (no cause: the engine's bookkeeping, which no decision or dice made)")
    elif len(chain) == 1:
        # every ruleset's words: "from its order" was musket's alone
        click.echo(
            "  (no recorded cause: a decision of its own, from the battle as it stood and the dice)"
        )


@click.command(cls=common.Command)
@common.file_argument("replay")
@common.out_option("The HTML file (default: <replay stem>.html here).")
@common.out_option(
    "Also write each chart as a PNG into this folder (matplotlib: the study extra, make dev).",
    folder=True,
    names=("--png", "png_dir"),
)
@click.option(
    "--parent",
    type=click.Path(dir_okay=False),
    callback=common.readable_file,
    metavar="PARENT",
    help="A fork's parent replay, whose outcome the What if banner shows beside the "
    "fork's (default: the parent's file beside the fork, as its header names it).",
)
@common.force_option(common.PAGE_FORCE)
@common.json_option("Print one JSON object: the files written.")
def report(
    replay: str,
    out: str | None,
    png_dir: str | None,
    parent: str | None,
    force: bool,
    as_json: bool,
) -> None:
    """Write one self-contained HTML page to watch REPLAY.

    Map, timeline, unit table, narrative, charts and key events, in one page.
    A fork's page shows how its parent ended beside how it did.

    \b
    Example:
      battlesim report held.jsonl -o held.html --png charts/
    """
    from pathlib import Path

    from sim.cli.battles.views import load_replay, reading
    from sim.outputs import OutputError, check_output, is_chart, is_page
    from sim.replay.parent import NotTheParent
    from sim.replay.report import write_report

    if png_dir is not None:
        # Refused before anything is written: a lean install has no matplotlib (one line
        # naming the extra, exit 2), and a page written first would go unmentioned.
        import matplotlib  # noqa: F401
    loaded = load_replay(replay)
    given = load_replay(parent) if parent is not None else None
    path = Path(out) if out is not None else Path(f"{_stem(replay)}.html")
    try:
        check_output(path, force=force, ours=is_page, what="a page", reads=(replay,))
        if png_dir is not None:
            check_output(png_dir, option="--png", folder=True)
    except OutputError as exc:
        common.fail(str(exc))

    def pngs_free(paths: list[Path]) -> None:
        """A chart's name holding a file of the user's is refused unless --force (a chart
        this command wrote is replaced, as its page is)."""
        try:
            for p in paths:
                if p.exists() or p.is_symlink():  # a folder made new holds nothing to keep
                    check_output(p, option="--png", force=force, ours=is_chart, what="a chart")
        except OutputError as exc:
            common.fail(str(exc))

    pngs = Path(png_dir) if png_dir is not None else None
    with reading(loaded, given):
        try:
            files = _write(lambda: write_report(loaded, path, pngs, pngs_free, parent=given))
        except NotTheParent as exc:
            common.fail(str(exc))
    if as_json:
        common.echo_json({"replay": replay, "written": [str(f) for f in files]})
        return
    for f in files:
        common.say(f"Wrote {f}")


def _write(action: Callable[[], list[Path]]) -> list[Path]:
    """Run a writer; an unwritable place is bad input (exit 2), never a traceback."""
    try:
        return action()
    except OSError as exc:
        common.fail(f"cannot write {exc.filename or ''}: {exc.strerror or exc}")
