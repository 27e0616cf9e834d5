"""``battlesim show``: a replay's units at a turn, one unit's history, or the narrative."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from sim.cli.common import Command, Whole, echo_json, fail, json_option, readable_file, say

if TYPE_CHECKING:
    from sim.replay.file import ReplayFile

__all__ = ["show"]

# The command imports what it wraps in its body (PLC0415): start-up stays light.
# ruff: noqa: PLC0415


@click.command(cls=Command)
@click.argument("replay", type=click.Path(dir_okay=False), callback=readable_file)
@click.option(
    "--turn",
    type=Whole(0),
    default=None,
    help="State at the end of this turn (0: the start); with --events, that turn's events.",
)
@click.option("--events", "narrate", is_flag=True, help="Narrate the events turn by turn.")
@click.option(
    "--unit",
    default=None,
    help="Only this unit (its id, or its name as show prints it): with --events its "
    "events, without them its state turn by turn.",
)
@click.option("--seqs", is_flag=True, help="With --events: start each line with its [seq N].")
@click.option(
    "--type",
    "types",
    multiple=True,
    help="With --events: only this event type (e.g. fired or musket.fired); repeatable.",
)
@json_option("Print one JSON object: the units (or the unit's rows, or the events).")
def show(
    replay: str,
    turn: int | None,
    narrate: bool,
    unit: str | None,
    seqs: bool,
    types: tuple[str, ...],
    as_json: bool,
) -> None:
    """Show a replay's units, one unit's history, or its narrative.

    Units at the end of the battle or of --turn.

    The fold starts from the nearest state snapshot in the log, so a late
    turn of a long battle is quick. With --unit (and no --events), that
    unit's state at the end of every turn. With --events, the battle is told
    as a narrative instead, filtered by --turn, --unit and --type.

    \b
    Examples:
      battlesim show replays/stone_wall-s1862.jsonl --turn 2
      battlesim show replays/stone_wall-s1862.jsonl --unit 69ny
      battlesim show replays/stone_wall-s1862.jsonl --events --type morale_tested
    """
    from engine.reader import ReplayError
    from sim import api
    from sim.cli import views

    try:
        loaded = api.open_replay(replay)
        loaded.scan()  # every line's chain and the footer, before anything is printed
        _show(loaded, turn, narrate, unit, seqs, types, as_json)
    except ReplayError as exc:
        fail(views.replay_problem(exc))


def _show(
    loaded: ReplayFile,
    turn: int | None,
    narrate: bool,
    unit: str | None,
    seqs: bool,
    types: tuple[str, ...],
    as_json: bool,
) -> None:
    from sim.cli import views

    last = loaded.last_turn
    if turn is not None and turn > last:
        fail(f"--turn {turn}: the battle ended at turn {last}")
    if types and not narrate:
        fail("--type filters the narrative: add --events")
    if seqs and not narrate:
        fail("--seqs numbers the narrative: add --events")
    problem = views.unknown_types(types, loaded.ruleset.registry.types)
    if problem is not None:
        fail(problem)
    if unit is not None:
        unit = _check_unit(loaded, unit)
    if narrate:
        _narrative(loaded, turn, unit, types, seqs, as_json)
    elif unit is not None:
        _history(loaded, unit, turn, as_json)
    else:
        _state(loaded, turn, last, as_json)


def _check_unit(loaded: ReplayFile, unit: str) -> str:
    """The id of the unit ``--unit`` names: its id, or its name as ``show`` prints it."""
    from sim.cli import views
    from sim.text.suggest import did_you_mean, known

    rows = views.state_rows(loaded, 0)
    ids = [r.id for r in rows]
    if unit in ids:
        return unit
    named = [r.id for r in rows if r.name.casefold() == unit.casefold()]
    if len(named) == 1:
        return named[0]
    hint = did_you_mean(unit, ids) or f"; units: {known(ids, limit=40)}"
    fail(f"--unit {unit}: no unit {unit!r} in this battle{hint}")


def _narrative(
    loaded: ReplayFile,
    turn: int | None,
    unit: str | None,
    types: tuple[str, ...],
    seqs: bool,
    as_json: bool,
) -> None:
    from sim.replay import analysis

    told = analysis.narrative(loaded, turn=turn, unit=unit, types=types)
    if as_json:
        events = [{"seq": e.seq, "turn": e.turn, "type": e.type, "line": line} for e, line in told]
        echo_json({"replay": loaded.path, "events": events})
        return
    for event, line in told:
        say(f"[seq {event.seq}] {line}" if seqs else line)


def _history(loaded: ReplayFile, unit: str, turn: int | None, as_json: bool) -> None:
    from sim.cli import views
    from sim.cli.table import table, unit_cells

    history = views.unit_history(loaded, unit, turn)
    word = loaded.ruleset.turn_name
    if as_json:
        rows = [{word: t, **views.unit_json(r)} for t, r in history]
        echo_json({"replay": loaded.path, "unit": unit, "rows": rows})
        return
    axes = loaded.ruleset.space(loaded.scenario).axes
    name, side = history[0][1].name, history[0][1].side_name
    say(f"{loaded.scenario.name} — {name} ({side}) at the end of each {word}, 0: the start")
    cells = [{word: t, **unit_cells(r, axes)} for t, r in history]
    for row in cells:
        del row["unit"], row["side"]
    for line in table(cells):
        click.echo(line)


def _state(loaded: ReplayFile, turn: int | None, last: int, as_json: bool) -> None:
    from sim.cli import views
    from sim.cli.table import render_units

    rows = views.state_rows(loaded, turn)
    if as_json:
        echo_json(
            {
                "replay": loaded.path,
                "scenario": loaded.scenario.name,
                "turn": last if turn is None else turn,
                "last_turn": last,
                "units": [views.unit_json(r) for r in rows],
            }
        )
        return
    word = loaded.ruleset.turn_name
    label = f"end of {word} {turn}" if turn is not None else f"end of battle ({word} {last})"
    say(f"{loaded.scenario.name} — {label}")
    click.echo(render_units(rows, loaded.ruleset.space(loaded.scenario)))
