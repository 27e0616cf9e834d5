"""``battlesim rulesets``, ``scenarios`` and ``new``: wrappers over :mod:`sim.scenario.catalog`."""

from __future__ import annotations

from dataclasses import asdict
from typing import TYPE_CHECKING

import click

from sim.cli import common

if TYPE_CHECKING:
    from sim.scenario.catalog import ScenarioInfo

__all__ = ["new", "rulesets", "scenarios"]

# Each command imports what it wraps in its body (PLC0415): start-up stays light.
# ruff: noqa: PLC0415


@click.command(cls=common.Command)
@common.json_option("Print one JSON object: every ruleset with its version and source.")
def rulesets(as_json: bool) -> None:
    """List the installed rulesets: name, version and where from.

    A ruleset whose package cannot be imported is listed with its error
    (exit 0: the others are usable).

    \b
    Example:
      battlesim rulesets --json
    """
    from sim.scenario.catalog import installed_rulesets

    found = installed_rulesets()
    if as_json:
        common.echo_json({"rulesets": [asdict(r) for r in found]})
        return
    width = max(len(r.name) for r in found)
    for r in found:
        if r.error is not None:
            click.echo(f"{r.name:<{width}}  BROKEN       {r.error}")
        else:
            click.echo(f"{r.name:<{width}}  version {r.version:<4} {r.source} ({r.target})")


@click.command(cls=common.Command)
@common.json_option(
    "Print one JSON object: the folder, and every file with its kind, name, summary, "
    "path and source."
)
def scenarios(as_json: bool) -> None:
    """List the shipped scenarios, campaigns and studies.

    First the checkout's scenarios/ folder (when battlesim runs from one),
    then each installed ruleset's examples, under a line saying where they
    come from; a file is listed once.

    \b
    Example:
      battlesim scenarios
    """
    from sim.scenario.catalog import SCENARIOS, CatalogError, listed_scenarios

    try:
        found = listed_scenarios()
    except CatalogError as exc:
        common.fail(str(exc))
    if as_json:
        common.echo_json({"folder": str(SCENARIOS), "scenarios": [asdict(s) for s in found]})
        return
    _print_scenarios(found)


def _print_scenarios(found: list[ScenarioInfo]) -> None:
    """A heading per source (the folder, then each ruleset), its files one line each."""
    from sim.scenario.catalog import FOLDER_SOURCE, SCENARIOS, ruleset_source

    width = max(len(s.file) for s in found)
    kind_width = max(len(s.kind) for s in found)
    columns = _columns()
    source = None
    for s in found:
        if s.source != source:
            source = s.source
            if source == FOLDER_SOURCE:
                click.echo(f"{FOLDER_SOURCE} {SCENARIOS}:")
            else:
                name = source.removeprefix("ruleset ")
                click.echo(f"examples of ruleset {name} ({ruleset_source(name)}):")
        about = s.name if s.summary == s.name else f"{s.name}: {s.summary}"  # no description
        line = f"  {s.file:<{width}}  {s.kind:<{kind_width}}  {about}"
        click.echo(_clip(line, columns))


SCENARIO_COLUMNS = 100
"""Width of a `scenarios` line when the output is not a terminal (a pipe, a file)."""


def _columns() -> int:
    """The terminal's width, or :data:`SCENARIO_COLUMNS` when stdout is not a terminal."""
    import shutil
    import sys

    if not sys.stdout.isatty():
        return SCENARIO_COLUMNS
    return max(shutil.get_terminal_size((SCENARIO_COLUMNS, 24)).columns, 40)


def _clip(line: str, columns: int) -> str:
    """LINE cut to COLUMNS characters, ending in "…" when cut (--json has every word)."""
    return line if len(line) <= columns else line[: columns - 1].rstrip() + "…"


@click.command(cls=common.Command)
@click.argument("ruleset")
@click.argument("name", metavar="NAME.yaml", type=common.OutPath(dir_okay=False))
@common.force_option(
    "Overwrite an existing NAME.yaml (a scenario is yours once written: "
    "without --force new never writes over one)."
)
@common.json_option(
    "Print one JSON object: the file, ruleset and scenario name, the schema's path and "
    "what was done with it (schema_state: written, unchanged or left), and a note or null."
)
def new(ruleset: str, name: str, force: bool, as_json: bool) -> None:
    """Write NAME.yaml: a commented, valid scenario of RULESET.

    The file starts with the schema line for editor completion; it
    validates and runs as written. The line points at scenario.schema.json
    beside it, the JSON Schema of every installed ruleset, which new writes
    (or refreshes, if battlesim wrote it); a file of that name battlesim did
    not write is never overwritten (a note on stderr says so).

    \b
    Example:
      battlesim new musket my_battle.yaml && battlesim run my_battle.yaml
    """
    from sim.outputs import OutputError
    from sim.scenario.catalog import CatalogError, new_scenario

    try:
        made = new_scenario(ruleset, name, force=force)
    except (CatalogError, OutputError) as exc:
        common.fail(str(exc))
    except OSError as exc:
        common.fail(f"cannot write {name}: {exc.strerror or exc}")
    if made["note"] is not None:
        click.echo(f"battlesim: note: {made['note']}", err=True)
    if as_json:
        common.echo_json(made)
        return
    from sim.text.grammar import an

    next_step = common.command_line("validate", name)
    common.say(f"Wrote {name}: {an(ruleset)} scenario; next: {next_step}")
