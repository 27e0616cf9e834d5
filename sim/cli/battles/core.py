"""``battlesim run``, ``verify``, ``validate`` and ``schema``: wrappers over :mod:`sim.api`."""

from __future__ import annotations

import sys
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

import click

from sim.cli import common

__all__ = ["run", "schema", "validate", "verify"]

if TYPE_CHECKING:
    from pydantic import BaseModel

    from sim.contract import AnyRuleset
    from sim.scenario.load import Located, ScenarioError

# Each command imports what it wraps in its body (PLC0415): start-up stays light.
# ruff: noqa: PLC0415


@click.command(cls=common.Command)
@common.file_argument("scenario")
@common.seed_option("Seed (default: the scenario's own 'seed').")
@common.out_option("Replay file (default: <scenario stem>-s<seed>.jsonl here; .gz for gzip).")
@common.force_option()
@click.option(
    "--set",
    "sets",
    multiple=True,
    metavar="FIELD=VALUE",
    help="Set a scenario field before the battle, as a study's factor names it "
    "(options.rout_contagion=1, sides.csa.units.phil.strength=900, "
    "map.terrain.0.cover=-20). Repeatable; the replay holds the scenario as fought.",
)
@click.option(
    "--patch",
    type=click.Path(dir_okay=False),
    callback=common.readable_file,
    metavar="PATCH.yaml",
    help="Set each field a calibration's patch.yaml names (field.path: value, one a "
    "line), as --set does: with --set beside it, each field once.",
)
@common.json_option()
def run(
    scenario: str,
    seed: int | None,
    out: str | None,
    force: bool,
    sets: tuple[str, ...],
    patch: str | None,
    as_json: bool,
) -> None:
    """Fight SCENARIO headless, write its replay, print the outcome.

    A battlesim replay already at --out (of this battle or another, edited or
    not) is replaced; any other file only with --force. With --set, the
    scenario is fought with those fields changed; the file is not touched.
    --patch sets the fields of a calibration's DIR/patch.yaml so.

    \b
    Examples:
      battlesim run scenarios/stone_wall.yaml --seed 7 -o sw7.jsonl
      battlesim run scenarios/stone_wall.yaml --set options.fire_scale=1.5 -o sw-fire.jsonl
    """
    import structlog

    from sim import api
    from sim.cli.errors import describe
    from sim.outputs import OutputError

    if sets:
        from sim.replay.fork import ForkError, parse_assignment

        try:
            for text in sets:
                parse_assignment(text)
        except ForkError as exc:  # named as a value the scenario refuses is: file, then flag
            click.echo(f"{scenario}: {exc}", err=True)
            sys.exit(2)
    patched, origins = _patch(patch) if patch else ([], {})
    given: list[tuple[str, object] | str] = [*patched, *sets]
    try:
        # as typed, read by run as here: a number refused where text goes is quoted as typed
        result = api.run(scenario, seed=seed, out=out, force=force, sets=given, origins=origins)
    except api.ScenarioError as exc:
        click.echo(str(exc), err=True)
        sys.exit(2)
    except OutputError as exc:
        common.fail(str(exc))
    except OSError as exc:
        common.fail(f"cannot write replay: {describe(exc)}")
    structlog.get_logger("battlesim").info(
        "battle fought",
        scenario=scenario,
        seed=result.seed,
        events=result.events,
        replay=result.replay,
    )
    if as_json:
        common.echo_json(result.as_json())
        return
    name = click.format_filename(scenario, shorten=True)
    common.say(f"{name} (seed {result.seed}): {result.headline}")
    for line in result.summary:
        common.say(f"  {line}")
    common.say(f"Replay: {result.replay} ({result.events} events)")


def _refuse(message: str) -> NoReturn:
    """A patch file refused as a scenario's problems are: ``file:line: message``, exit 2."""
    click.echo(message, err=True)
    sys.exit(2)


def _patch(path: str) -> tuple[list[tuple[str, object]], dict[int, tuple[str, int]]]:
    """The ``(field path, value)`` pairs of a calibration's ``patch.yaml`` (``field.path:
    value`` a line), read as safely as a scenario is (:func:`~sim.scenario.load.read_yaml`:
    its size, nesting, alias and tag limits), and beside them the file and line of each, by
    place, for a refusal that names them; a file that is not YAML, or not such a mapping, is
    one line, exit 2."""
    from sim.scenario.load import ScenarioError, read_yaml

    try:
        data, lines = read_yaml(path)
    except ScenarioError as exc:
        _refuse(str(exc.problems[0]) if exc.problems else f"{path}: not YAML")
    if not isinstance(data, dict) or not data or not all(isinstance(k, str) for k in data):
        _refuse(
            f"{path}: not a patch: write one field.path: value a line, as calibrate's "
            "patch.yaml does"
        )
    for key, value in data.items():
        if isinstance(value, dict):  # as --set refuses one: it would replace the whole section
            first = next(iter(value.items()), None)
            shown = f"{key}.{first[0]}: {_scalar(first[1])}" if first else f"{key}.FIELD: VALUE"
            _refuse(
                f"{path}:{lines.get((key,), 0)}: {key}: set one field at a time, not a mapping: "
                f"write {shown} a line, as calibrate's patch.yaml does"
            )
    return list(data.items()), {i: (path, lines.get((k,), 0)) for i, k in enumerate(data)}


def _scalar(value: object) -> str:
    """A value as a patch line would write it (YAML's flow text, one line)."""
    import yaml

    text: str = yaml.safe_dump(value, default_flow_style=True, width=1_000_000)
    return text.removesuffix("\n...\n").strip()


def _existing(ctx: click.Context, param: click.Parameter, value: str) -> str:
    """Callback: a replay file or a study folder that exists, else a plain error (exit 2)."""
    del ctx, param
    from pathlib import Path

    from engine.safety.files import missing

    if not Path(value).exists():
        common.fail(f"{value}: {missing(value)}")
    return value


@click.command(cls=common.Command)
@click.argument("replay", metavar="REPLAY|STUDY_DIR", type=click.Path(), callback=_existing)
@click.option(
    "--sample",
    type=click.IntRange(0, 1_000_000),
    default=None,
    metavar="N",
    help="Study folder: runs to fight again and compare (default 5; 0: none).",
)
@common.seed_option("Study folder: the same as --sample-seed.")
@click.option(
    "--sample-seed",
    type=click.IntRange(0, 2**63 - 1),
    default=None,
    metavar="S",
    help="Study folder: seed of the sample of runs (default: drawn afresh and printed).",
)
@click.option(
    "--all",
    "everything",
    is_flag=True,
    help="Study folder: fight every run again (the one check a forger cannot pass).",
)
@common.json_option()
def verify(
    replay: str,
    sample: int | None,
    seed: int | None,
    sample_seed: int | None,
    everything: bool,
    as_json: bool,
) -> None:
    """Check a replay byte for byte, or a study folder as a whole.

    A replay: its integrity checked and the battle re-simulated. Exit 0
    when identical; 1 naming the first damaged, unlawful or differing seq
    (INCOMPLETE: a run stopped before its end); 2 when REPLAY is not a
    battlesim replay, or is from a newer battlesim.

    Given a study folder (battlesim batch/study's DIR): checks the plan,
    every run's seed and that every planned run is stored, each run's rows
    and kept replays against its digest, manifest.json's files (summary.json,
    plots, exports), re-derives summary.json, and fights again a sample of
    runs drawn from fresh randomness (--sample N; its seed is printed, and
    --sample-seed S repeats it; --all fights every run). Exit 0 when all
    agree, 1 naming each difference (a database cut short is damaged), 2
    when the folder holds no study or a database that is not battlesim's.

    \b
    Examples:
      battlesim verify replays/stone_wall-s1862.jsonl --json
      battlesim verify stone_wall_study --sample 10
    """
    from pathlib import Path

    if Path(replay).is_dir():
        if seed is not None and sample_seed is not None and seed != sample_seed:
            common.fail(
                f"--seed {seed} and --sample-seed {sample_seed}: the same option under two "
                "names, given two values; give one"
            )
        chosen = sample_seed if sample_seed is not None else seed
        _verify_study(replay, sample, chosen, everything, as_json)
        return
    if sample is not None or seed is not None or sample_seed is not None or everything:
        common.fail(
            f"{replay}: --sample, --sample-seed and --all apply to a study folder, not a replay"
        )
    from sim import api
    from sim.cli.battles import views
    from sim.replay.verify import rules_version

    rules = rules_version(replay)
    if rules is not None and rules.newer:  # a newer battlesim's, as a newer format is
        common.fail(
            f"{replay}: fought under {rules.ruleset} rules v{rules.fought_under}, newer than "
            f"this battlesim's (v{rules.current}); upgrade battlesim (or the ruleset's plugin)"
        )
    result = api.verify_replay(replay)
    if result.damage is not None and result.damage.kind in views.NOT_A_REPLAY:
        common.fail(views.replay_problem(result.damage))
    if as_json:
        data = views.verify_json(result)
        common.echo_json(data if rules is None else {**data, "rules": rules.as_json()})
    else:
        for line in views.verify_lines(result):
            common.say(line)
        if rules is not None:  # a note beside the verdict: stdout keeps its one line
            fought = result.damage is None  # damage stops verify before it fights again
            click.echo(f"battlesim: note: {rules.line(fought)}", err=True)
    sys.exit(0 if result.ok else 1)


def _verify_study(
    folder: str, sample: int | None, seed: int | None, everything: bool, as_json: bool
) -> None:
    from pathlib import Path

    if not (Path(folder) / "study.duckdb").is_file():  # before the study extra is needed
        common.fail(f"{folder!r}: no study here (no study.duckdb)")
    from sim.batch.execution.progress import ProgressBar
    from sim.batch.storage.store import StoreError
    from sim.batch.verification.verify import (
        DEFAULT_SAMPLE,
        StudyVerifyError,
        verify_lines,
        verify_study,
    )

    bar = ProgressBar(sys.stderr) if sys.stderr.isatty() else None
    try:
        size = DEFAULT_SAMPLE if sample is None else sample
        check = verify_study(folder, size, seed, everything=everything, progress=bar)
    except (StudyVerifyError, StoreError) as exc:
        common.fail(str(exc))
    finally:
        if bar is not None:
            bar.close()
    if as_json:
        common.echo_json(check.as_json())
    else:
        for line in verify_lines(check):
            common.say(line)
    sys.exit(0 if check.ok else 1)


@click.command(cls=common.Command)
@click.argument("scenario", type=click.Path())  # checked in the body: with --json, as data
@common.json_option("Print one JSON object: ok, ruleset, name, or every error.")
def validate(scenario: str, as_json: bool) -> None:
    """Check SCENARIO or a campaign: each error as file:line: field.

    Exit 0 when valid, 2 with the errors on stderr. A campaign file is checked
    as 'battlesim campaign' checks it: its fields, every battle's scenario and
    each carry-over, nothing fought.

    Every error is found in one pass, with "did you mean" for a misspelt
    field or value.

    \b
    Example:
      battlesim validate scenarios/napoleonic_brigade.yaml
    """
    from pathlib import Path

    from sim.scenario.load import ScenarioError, load_scenario

    # an empty name or a missing file in every command's words; "" is no folder, though
    # Path("") is the current one
    if not as_json and (scenario == "" or not Path(scenario).is_dir()):
        ctx = click.get_current_context()
        param = next(p for p in ctx.command.params if p.name == "scenario")
        common.readable_file(ctx, param, scenario)
    if _is_campaign_file(scenario):  # a folder or a FIFO reads as no campaign
        _validate_campaign(scenario, as_json)
        return
    try:  # a folder (or a FIFO, a device) in the loader's one line; with --json, as an error
        ruleset, sc = load_scenario(scenario)
    except ScenarioError as exc:
        _invalid(scenario, exc, as_json)
    name = str(getattr(sc, "name", ""))
    warnings = _warnings(scenario, ruleset, sc)
    for w in warnings:
        click.echo(str(w), err=True)
    if as_json:
        common.echo_json(
            {
                "file": scenario,
                "ok": True,
                "ruleset": ruleset.name,
                "name": name,
                "warnings": [asdict(w) for w in warnings],
            }
        )
        return
    common.say(f"OK: {scenario} is a valid {ruleset.name} scenario: {name}")


def _invalid(path: str, exc: ScenarioError, as_json: bool) -> NoReturn:
    """``validate``'s refusal of a file with problems: each on its line, or the ``--json``
    object listing them; exit 2."""
    from sim.cli.battles import views

    if as_json:
        common.echo_json({"file": path, "ok": False, "errors": views.problems_json(exc)})
    else:
        click.echo(str(exc), err=True)
    sys.exit(2)


def _is_campaign_file(path: str) -> bool:
    """Whether ``path`` reads as a campaign file (one that cannot be read is no campaign's:
    the scenario's check says why)."""
    from sim.scenario.load import ScenarioError, kind_of, read_yaml

    try:
        data, _ = read_yaml(path)
    except (ScenarioError, OSError):
        return False
    return kind_of(data) == "campaign"


def _validate_campaign(path: str, as_json: bool) -> None:
    """``validate`` of a campaign file: every problem, or OK naming its ruleset and battles;
    each battle's warnings at its scenario file's lines."""
    from sim.batch.inputs.target import load_target
    from sim.scenario.load import ScenarioError, read_yaml
    from sim.text.grammar import count

    try:
        target = load_target(path)
    except ScenarioError as exc:
        _invalid(path, exc, as_json)
    data, _ = read_yaml(path)
    files = [Path(path).parent / b["scenario"] for b in data["battles"]]
    battles = target.scenarios()
    warnings = [
        w
        for file, (rs, sc) in zip(files, battles, strict=True)
        for w in _warnings(str(file), rs, sc)
    ]
    for w in warnings:
        click.echo(str(w), err=True)
    ruleset, ids = battles[0][0].name, [b["id"] for b in target.data["battles"]]
    if as_json:
        common.echo_json(
            {"file": path, "ok": True, "ruleset": ruleset, "name": target.name,
             "kind": "campaign", "battles": ids, "warnings": [asdict(w) for w in warnings]}
        )  # fmt: skip
        return
    common.say(
        f"OK: {path} is a valid {ruleset} campaign of {count(len(ids), 'battle')}: {target.name}"
    )


def _warnings(path: str, ruleset: AnyRuleset, scenario: BaseModel) -> list[Located]:
    """``validate``'s warnings (a unit that can never reach an enemy), each at its line."""
    from sim.scenario.load import located, read_yaml
    from sim.scenario.reach import never_in_reach

    found = never_in_reach(ruleset, scenario)
    if not found:
        return []
    _, lines = read_yaml(path)
    return [located(path, lines, p, m) for p, m in found]


@click.command(cls=common.Command)
@common.out_option("Write the schema to this file instead of printing it.")
@common.force_option(
    "Overwrite a file at --out that is not a schema battlesim wrote "
    "(an earlier schema is replaced without it)."
)
def schema(out: str | None, force: bool) -> None:
    """Print the JSON Schema of scenario files, for editors.

    \b
    Example:
      battlesim schema -o docs/scenario.schema.json
    """
    from sim.outputs import OutputError, check_output, write_text
    from sim.scenario.schema import is_schema_file, schema_text

    text = schema_text()
    if out is None:
        click.echo(text, nl=False)
        return
    try:
        write_text(check_output(out, force=force, ours=is_schema_file, what="a schema"), text)
    except OutputError as exc:
        common.fail(str(exc))
    except OSError as exc:
        common.fail(f"cannot write {out}: {exc.strerror or exc}")
    common.say(f"Wrote {out}")
