"""``battlesim show``: a replay's units at a turn, one unit's history, or the narrative."""

from __future__ import annotations

import json
from collections.abc import Iterator
from itertools import islice
from typing import TYPE_CHECKING, Any

import click

from sim.cli import common

if TYPE_CHECKING:
    from sim.replay.file import ReplayFile

__all__ = ["show"]

# The command imports what it wraps in its body (PLC0415): start-up stays light.
# ruff: noqa: PLC0415


@click.command(cls=common.Command)
@common.file_argument("replay")
@click.option(
    "--turn",
    type=common.Whole(0),
    default=None,
    metavar="N",
    help="State at the end of this turn (0: the start); with --events, that turn's events.",
)
@click.option("--events", "narrate", is_flag=True, help="Narrate the events turn by turn.")
@click.option(
    "--unit",
    default=None,
    metavar="ID",
    help="Only this unit (its id, or its name as show prints it): with --events its "
    "events, without them its state turn by turn.",
)
@click.option("--seqs", is_flag=True, help="With --events: start each line with its [seq N].")
@click.option(
    "--type",
    "types",
    multiple=True,
    metavar="TYPE",
    help="With --events: only this event type (e.g. fired or musket.fired); repeatable.",
)
@common.json_option("Print one JSON object: the units (or the unit's rows, or the events).")
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
    from sim.cli.battles import views

    loaded = views.load_replay(replay)
    with views.reading(loaded):
        last = loaded.last_turn
        if turn is not None and turn > last:
            common.fail(f"--turn {turn}: the battle ended at {loaded.ruleset.turn_name} {last}")
        if types and not narrate:
            common.fail("--type filters the narrative: add --events")
        if seqs and not narrate:
            common.fail("--seqs numbers the narrative: add --events")
        problem = views.unknown_types(types, loaded.ruleset.registry.types)
        if problem is not None:
            common.fail(problem)
        if unit is not None:
            unit = _check_unit(loaded, unit)
        if narrate:
            _narrative(loaded, turn, unit, types, seqs, as_json)
        elif unit is not None:
            _history(loaded, unit, turn, as_json)
        else:
            _state(loaded, turn, last, as_json)


def _check_unit(loaded: ReplayFile, unit: str) -> str:
    """The id of the unit ``--unit`` names (:func:`sim.replay.analysis.unit_id`)."""
    from sim.replay.analysis import unit_id
    from sim.scenario.values import ValueProblem

    try:
        return unit_id(loaded, unit)
    except ValueProblem as exc:
        common.fail(f"--unit {unit}: {exc}")


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
        events = [
            {
                "seq": e.seq,
                "turn": e.turn,
                "type": e.type,
                "line": line,
                "event": e.model_dump(mode="json"),  # the fields a line is told from
            }
            for e, line in told
        ]
        common.echo_json({"replay": loaded.path, "events": events})
        return
    shown = 0
    for event, line in told:
        common.say(f"[seq {event.seq}] {line}" if seqs else line)
        shown += 1
    if not shown:  # a silent exit 0 read as a fault: say so, on stderr (stdout stays the lines)
        given = [f"--turn {turn}"] if turn is not None else []
        given += [f"--unit {unit}"] if unit is not None else []
        given += [f"--type {t}" for t in types]
        start = " (turn 0 is the start: the battle's events begin in turn 1)" if turn == 0 else ""
        what = f" matches {' '.join(given)}" if given else " is told"
        click.echo(f"battlesim: note: no event of this replay{what}{start}", err=True)


def _history(loaded: ReplayFile, unit: str, turn: int | None, as_json: bool) -> None:
    """The unit's row at the start and at each turn's end, printed as the replay is read."""
    from sim.cli.battles import views
    from sim.cli.battles.table import stream_table, unit_cells

    word = loaded.ruleset.turn_name
    if as_json:
        _history_json(loaded, unit, turn)
        return
    axes = loaded.ruleset.space(loaded.scenario).axes
    first = next(views.iter_unit_history(loaded, unit, 0))[1]
    name, side = first.name, first.side_name
    common.say(f"{loaded.scenario.name} — {name} ({side}) at the end of each {word}, 0: the start")

    def cells() -> Iterator[dict[str, Any]]:
        for t, r in views.iter_unit_history(loaded, unit, turn):
            row = {word: t, **unit_cells(r, axes, loaded.ruleset.shown_details)}
            del row["unit"], row["side"]
            yield row

    for line in stream_table(cells):
        click.echo(line)


def _history_json(loaded: ReplayFile, unit: str, turn: int | None) -> None:
    """``echo_json({"replay", "unit", "rows"})``'s exact line, its rows written as they come.

    Each row's ``turn`` is keyed so in every ruleset, as ``show --json``'s ``turn`` and
    ``last_turn`` are (becmi's text says "round"; its JSON keyed ``round`` here alone).

    The file is read to its end first when the history is long (more than
    :data:`_KEEP` rows), so damage is reported before anything is printed.
    """
    from sim.cli.battles import views

    def rows() -> Iterator[dict[str, Any]]:
        for t, r in views.iter_unit_history(loaded, unit, turn):
            yield {"turn": t, **views.unit_json(r)}

    found = rows()
    kept = list(islice(found, _KEEP + 1))
    if len(kept) <= _KEEP:
        common.echo_json({"replay": loaded.path, "unit": unit, "rows": kept})
        return
    for _ in found:
        pass  # read (and check) the rest before printing
    del kept
    head = json.dumps({"replay": loaded.path}, sort_keys=True)[:-1]
    click.echo(f'{head}, "rows": [', nl=False)
    for i, row in enumerate(rows()):
        click.echo((", " if i else "") + json.dumps(row, sort_keys=True), nl=False)
    click.echo(f'], "unit": {json.dumps(unit)}}}')


_KEEP = 2000
"""Rows of a unit's history held in memory; a longer one is read twice (measured, printed)."""


def _state(loaded: ReplayFile, turn: int | None, last: int, as_json: bool) -> None:
    from sim.cli.battles import views
    from sim.cli.battles.table import render_units

    rows = views.state_rows(loaded, turn)
    if as_json:
        common.echo_json(
            {
                "replay": loaded.path,
                "scenario": loaded.scenario.name,
                "ruleset": loaded.header.ruleset,
                "ruleset_version": loaded.header.ruleset_version,
                "turn": last if turn is None else turn,
                "last_turn": last,
                "units": [views.unit_json(r) for r in rows],
            }
        )
        return
    word = loaded.ruleset.turn_name
    label = f"end of {word} {turn}" if turn is not None else f"end of battle ({word} {last})"
    common.say(f"{loaded.scenario.name} — {label}")
    rs = loaded.ruleset
    click.echo(render_units(rows, rs.space(loaded.scenario), rs.shown_details))
