"""The ``battlesim`` command line: thin wrappers over :mod:`sim.api`.

Exit codes: 0 success, 1 mismatch (verify), 2 bad input or usage.
"""

from __future__ import annotations

import json
import logging
import sys
from pathlib import Path
from typing import Any, NoReturn

import click
import structlog

from engine.reader import ReplayError
from sim import analysis, api
from sim.errors import GuardedGroup
from sim.loader import ScenarioError, load_scenario
from sim.schema import scenario_json_schema
from sim.table import render_units

__all__ = ["cli", "main"]

log = structlog.get_logger("battlesim")


def _configure_logging(level: str, as_json: bool) -> None:
    renderer: Any = (
        structlog.processors.JSONRenderer()
        if as_json
        else structlog.dev.ConsoleRenderer(colors=False)
    )
    structlog.configure(
        processors=[
            structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="iso"),
            renderer,
        ],
        wrapper_class=structlog.make_filtering_bound_logger(getattr(logging, level.upper())),
        logger_factory=structlog.PrintLoggerFactory(file=sys.stderr),
        cache_logger_on_first_use=False,
    )


def _bad_input(message: str) -> NoReturn:
    click.echo(message, err=True)
    sys.exit(2)


@click.group(cls=GuardedGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="battlesim")
@click.option(
    "--log-level",
    type=click.Choice(["debug", "info", "warning", "error"]),
    default="warning",
    show_default=True,
    help="Operational log level (stderr).",
)
@click.option("--log-json", is_flag=True, help="Operational logs as JSON lines on stderr.")
def cli(log_level: str, log_json: bool) -> None:
    """battlesim: deterministic, event-sourced battle simulation.

    Run a scenario to a replay file, check a replay, and read it back.
    Exit codes: 0 success, 1 mismatch, 2 bad input or usage.
    """
    _configure_logging(log_level, log_json)


@cli.command()
@click.argument("scenario", type=click.Path(dir_okay=False))
@click.option(
    "--seed",
    type=click.IntRange(0, 2**63 - 1),
    default=None,
    help="Seed (default: the scenario's own 'seed').",
)
@click.option(
    "--out",
    type=click.Path(dir_okay=False),
    default=None,
    help="Replay file (default: <scenario stem>-s<seed>.jsonl here).",
)
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def run(scenario: str, seed: int | None, out: str | None, as_json: bool) -> None:
    """Fight SCENARIO headless, write its replay, print the outcome."""
    if out is not None and not Path(out).parent.is_dir():
        _bad_input(f"battlesim: error: --out: directory {str(Path(out).parent)!r} does not exist")
    if out is not None and Path(out).resolve() == Path(scenario).resolve():
        _bad_input(f"battlesim: error: --out: {out!r} is the scenario file itself")
    try:
        result = api.run(scenario, seed=seed, out=out)
    except ScenarioError as exc:
        _bad_input(str(exc))
    except OSError as exc:
        _bad_input(f"battlesim: error: cannot write replay: {exc}")
    log.info(
        "battle fought",
        scenario=scenario,
        seed=result.seed,
        events=result.events,
        replay=result.replay,
    )
    if as_json:
        click.echo(json.dumps(result.as_json(), sort_keys=True))
        return
    click.echo(f"{Path(scenario).name} (seed {result.seed}): {result.headline}")
    for line in result.summary:
        click.echo(f"  {line}")
    click.echo(f"Replay: {result.replay} ({result.events} events)")


def _damaged(d: ReplayError) -> NoReturn:
    """Exit 1 for a damaged or incomplete replay; 2 for a file that is no replay to check."""
    if d.kind in ("not_replay", "unsupported", "unreadable"):
        _bad_input(f"battlesim: error: {d}")
    at = f"seq {d.seq}" if d.seq is not None else f"line {d.line}"
    word = "INCOMPLETE" if d.kind == "incomplete" else "DAMAGED"
    click.echo(f"{word} at {at}: {d}", err=False)
    sys.exit(1)


@cli.command()
@click.argument("replay", type=click.Path(exists=True, dir_okay=False))
def verify(replay: str) -> None:
    """Check REPLAY's integrity, re-simulate it and compare byte for byte.

    Exit 0 when identical; 1 with the first damaged or differing seq (or
    INCOMPLETE: a run stopped before its end); 2 when REPLAY is not a
    battlesim replay, or is from a newer battlesim.
    """
    result = api.verify_replay(replay)
    if result.damage is not None:
        _damaged(result.damage)
    if result.violation is not None:
        v = result.violation
        click.echo(f"INVARIANT broken at seq {v.seq} (line {v.line}): {v.reason}")
        sys.exit(1)
    if result.mismatch is not None:
        m = result.mismatch
        at = f"seq {m.seq} (line {m.line})" if m.seq is not None else f"line {m.line}"
        click.echo(f"MISMATCH at {at}: {m.reason}")
        sys.exit(1)
    how = (
        "upcast from an older format, re-simulates to the same events"
        if result.upcast
        else "re-simulates byte for byte"
    )
    click.echo(f"OK: {replay}: {result.events} events, intact, lawful, {how}")


@cli.command()
@click.argument("replay", type=click.Path(dir_okay=False))
@click.option(
    "--turn",
    type=click.IntRange(0),
    default=None,
    help="State at the end of this turn (0: the start); with --events, that turn's events.",
)
@click.option("--events", "narrate", is_flag=True, help="Narrate the events turn by turn.")
@click.option(
    "--unit",
    default=None,
    help="Only this unit id: its row of the state; with --events, the events naming it.",
)
@click.option("--seqs", is_flag=True, help="With --events: start each line with its [seq N].")
@click.option(
    "--type",
    "types",
    multiple=True,
    help="With --events: only this event type (e.g. fired or musket.fired); repeatable.",
)
def show(
    replay: str,
    turn: int | None,
    narrate: bool,
    unit: str | None,
    seqs: bool,
    types: tuple[str, ...],
) -> None:
    """Show unit states of REPLAY at the end or at --turn, folded from its events.

    The fold starts from the nearest state snapshot in the log, so a late
    turn of a long battle is quick.  With --events, the battle is told as a
    narrative instead, filtered by --turn, --unit and --type.
    """
    try:
        loaded = api.load_replay(replay)
    except ReplayError as exc:
        _bad_input(f"battlesim: error: {exc}")
    rs, sc = loaded.ruleset, loaded.scenario
    last = loaded.events[-1].turn if loaded.events else 0
    if turn is not None and turn > last:
        _bad_input(f"battlesim: error: --turn {turn}: the battle ended at turn {last}")
    if unit is not None and unit not in {r.id for r in rs.units(sc, rs.initial_state(sc))}:
        _bad_input(f"battlesim: error: --unit: no unit {unit!r} in this battle")
    if narrate:
        for event, line in analysis.narrative(loaded, turn=turn, unit=unit, types=types):
            click.echo(f"[seq {event.seq}] {line}" if seqs else line)
        return
    state = loaded.state_at(turn)
    word = rs.turn_name
    label = f"end of {word} {turn}" if turn is not None else f"end of battle ({word} {last})"
    click.echo(f"{sc.name} — {label}")
    if unit is not None or rs.render_state is None:
        rows = [r for r in rs.units(sc, state) if unit is None or r.id == unit]
        click.echo(render_units(rows, rs.space(sc)))
    else:
        click.echo(rs.render_state(sc, state))


@cli.command()
@click.argument("scenario", type=click.Path(dir_okay=False))
def validate(scenario: str) -> None:
    """Check SCENARIO; exit 2 listing every error as file:line: field: message."""
    try:
        ruleset, sc = load_scenario(scenario)
    except ScenarioError as exc:
        _bad_input(str(exc))
    click.echo(f"OK: {scenario} is a valid {ruleset.name} scenario: {getattr(sc, 'name', '')}")


@cli.command()
def schema() -> None:
    """Print the JSON Schema of scenario files (for editor completion)."""
    click.echo(json.dumps(scenario_json_schema(), indent=2, sort_keys=True))


# Commands of other areas register themselves on the group when imported.
from sim import cli_batch, cli_odds, cli_replay  # noqa: E402, F401


def main() -> None:
    """Console-script entry point."""
    cli(prog_name="battlesim")
