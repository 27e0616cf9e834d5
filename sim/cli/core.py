"""``battlesim run``, ``verify``, ``validate`` and ``schema``: wrappers over :mod:`sim.api`."""

from __future__ import annotations

import sys

import click

from sim.cli.common import (
    Command,
    echo_json,
    fail,
    force_option,
    json_option,
    out_option,
    readable_file,
    say,
    seed_option,
)

__all__ = ["run", "schema", "validate", "verify"]

# Each command imports what it wraps in its body (PLC0415): start-up stays light.
# ruff: noqa: PLC0415


@click.command(cls=Command)
@click.argument("scenario", type=click.Path(dir_okay=False), callback=readable_file)
@seed_option("Seed (default: the scenario's own 'seed').")
@out_option("Replay file (default: <scenario stem>-s<seed>.jsonl here; .gz for gzip).")
@force_option()
@json_option()
def run(scenario: str, seed: int | None, out: str | None, force: bool, as_json: bool) -> None:
    """Fight SCENARIO headless, write its replay, print the outcome.

    An existing file at --out is overwritten only when it is a replay of
    the same scenario (or with --force).

    \b
    Example:
      battlesim run scenarios/stone_wall.yaml --seed 7 -o sw7.jsonl
    """
    import structlog

    from sim import api
    from sim.outputs import OutputError

    try:
        result = api.run(scenario, seed=seed, out=out, force=force)
    except api.ScenarioError as exc:
        click.echo(str(exc), err=True)
        sys.exit(2)
    except OutputError as exc:
        fail(str(exc))
    except OSError as exc:
        fail(f"cannot write replay: {exc}")
    structlog.get_logger("battlesim").info(
        "battle fought",
        scenario=scenario,
        seed=result.seed,
        events=result.events,
        replay=result.replay,
    )
    if as_json:
        echo_json(result.as_json())
        return
    name = click.format_filename(scenario, shorten=True)
    say(f"{name} (seed {result.seed}): {result.headline}")
    for line in result.summary:
        say(f"  {line}")
    say(f"Replay: {result.replay} ({result.events} events)")


@click.command(cls=Command)
@click.argument("replay", type=click.Path(dir_okay=False), callback=readable_file)
@json_option()
def verify(replay: str, as_json: bool) -> None:
    """Check REPLAY's integrity and re-simulate it byte for byte.

    Exit 0 when identical; 1 naming the first damaged, unlawful or
    differing seq (INCOMPLETE: a run stopped before its end); 2 when
    REPLAY is not a battlesim replay, or is from a newer battlesim.

    \b
    Example:
      battlesim verify replays/stone_wall-s1862.jsonl --json
    """
    from sim import api
    from sim.cli import views

    result = api.verify_replay(replay)
    if result.damage is not None and result.damage.kind in views.NOT_A_REPLAY:
        fail(str(result.damage))
    if as_json:
        echo_json(views.verify_json(result))
    else:
        for line in views.verify_lines(result):
            say(line)
    sys.exit(0 if result.ok else 1)


@click.command(cls=Command)
@click.argument("scenario", type=click.Path(dir_okay=False), callback=readable_file)
@json_option("Print one JSON object: ok, ruleset, name, or every error.")
def validate(scenario: str, as_json: bool) -> None:
    """Check SCENARIO; every error as file:line: field: message.

    Exit 0 when valid, 2 with the errors on stderr.

    Every error is found in one pass, with "did you mean" for a misspelt
    field or value.

    \b
    Example:
      battlesim validate scenarios/napoleonic_brigade.yaml
    """
    from sim.cli import views
    from sim.scenario.load import ScenarioError, load_scenario

    try:
        ruleset, sc = load_scenario(scenario)
    except ScenarioError as exc:
        if as_json:
            echo_json({"file": scenario, "ok": False, "errors": views.problems_json(exc)})
        else:
            click.echo(str(exc), err=True)
        sys.exit(2)
    name = str(getattr(sc, "name", ""))
    if as_json:
        echo_json({"file": scenario, "ok": True, "ruleset": ruleset.name, "name": name})
        return
    say(f"OK: {scenario} is a valid {ruleset.name} scenario: {name}")


@click.command(cls=Command)
@out_option("Write the schema to this file instead of printing it.")
@force_option()
def schema(out: str | None, force: bool) -> None:
    """Print the JSON Schema of scenario files, for editors.

    \b
    Example:
      battlesim schema -o docs/scenario.schema.json --force
    """
    from sim.outputs import OutputError, check_output, write_text
    from sim.scenario.schema import schema_text

    text = schema_text()
    if out is None:
        click.echo(text, nl=False)
        return
    try:
        write_text(check_output(out, force=force), text)
    except OutputError as exc:
        fail(str(exc))
    except OSError as exc:
        fail(f"cannot write {out}: {exc.strerror or exc}")
    say(f"Wrote {out}")
