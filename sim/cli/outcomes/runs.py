"""``battlesim rerun``, ``export`` and ``campaign``: a study's runs again, its tables, campaigns.

Wrappers over :mod:`sim.batch`, imported in each command's body.
Exit codes: 0 success, 2 bad input or usage.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import click

from sim.cli import common
from sim.cli.outcomes.batch import _bad_input, _error, _export, _folder

__all__ = ["campaign", "export", "rerun_command"]

# Each command imports what it wraps in its body (PLC0415): start-up stays light.
# ruff: noqa: PLC0415


@click.command(name="rerun", cls=common.Command)
@click.argument("study_dir", metavar="DIR", type=click.Path(file_okay=False))
@click.argument("run_id", type=common.Whole(0))
@click.option(
    "-o",
    "--out",
    type=common.OutPath(),
    default=None,
    help="Replay file (default: run-<RUN_ID>.jsonl here); a folder for a campaign run.",
)
@common.force_option()
@common.json_option("Print one JSON object: the run, its seed, outcome and replay paths.")
def rerun_command(study_dir: str, run_id: int, out: str | None, force: bool, as_json: bool) -> None:
    """Fight run RUN_ID of the study in DIR again, as a full replay.

    The replay is byte for byte what the run would have written (and what
    --keep-replays kept); verify it with 'battlesim verify'.

    \b
    Example:
      battlesim rerun sw 42 -o run-42.jsonl
    """
    from sim.batch.inputs.campaign import shown_reason
    from sim.batch.storage.store import StoreError
    from sim.batch.verification.replays import RerunError, rerun
    from sim.cli.errors import describe
    from sim.outputs import OutputError, check_output, is_replay
    from sim.text.grammar import agree, count, one_point

    if out is not None:
        inside = Path(out).resolve().is_relative_to(Path(study_dir).resolve())
        if inside:  # its kept replays, plots and manifest are the study's, not a scratch space
            common.fail(
                f"--out {out!r} is inside the study {study_dir!r}, whose files its manifest "
                "lists: write the replay elsewhere"
            )
        try:
            # os.path.isdir: a name too long is no folder (check_output then says so)
            check_output(
                out, folder=os.path.isdir(out), force=force, ours=is_replay, what="a replay"
            )
        except OutputError as exc:
            common.fail(str(exc))

    try:
        r = rerun(study_dir, run_id, out, force=force)
    except (StoreError, RerunError) as exc:
        _bad_input(_error(str(exc)))
    except OutputError as exc:
        common.fail(str(exc))
    except OSError as exc:
        _bad_input(_error(f"cannot write replay: {describe(exc)}"))
    o = r.outcome
    if as_json:
        where = {"run": r.run_id, "point": r.point, "replication": r.replication, "seed": r.seed}
        common.echo_json({**where, **o, "replays": [str(p) for p in r.paths]})
        return
    who = agree(o["winner_name"], "wins") if o["winner"] else "Draw"
    # a campaign run's reason as the campaign's line says it (a drawn last battle: drawn)
    said = shown_reason(o) if "battles" in o else one_point(o["reason"])
    common.say(
        f"Run {r.run_id} (point {r.point}, replication {r.replication}, seed {r.seed}): "
        f"{who} after {count(o['turns'], r.turn_name)} — {said}"
    )
    for path in r.paths:
        common.say(f"Replay: {path}")


@click.command(cls=common.Command)
@click.argument("study_dir", metavar="DIR", type=click.Path(file_okay=False))
@click.option(
    "--format", "fmt", type=click.Choice(["parquet", "csv"]), required=True, help="File format."
)
@common.out_option("Folder for the files (default: DIR/export).", folder=True)
@click.option(
    "--wide",
    is_flag=True,
    help="Write runs_wide only: one row per run, each factor a typed column named by its path.",
)
@common.force_option(
    "Overwrite files already at --out (in the study's own export/ folder, the default, "
    "an earlier export is replaced without it)."
)
@common.json_option("Print one JSON object: the files written.")
def export(
    study_dir: str, fmt: str, out: str | None, wide: bool, force: bool, as_json: bool
) -> None:
    """Export a study's tables: study, points, runs, unit_finals.

    Rows are ordered by key. unit_finals has a column per unit detail
    (docs/batch.md); a study made by an older battlesim exports as it is.

    \b
    Example:
      battlesim export sw --format parquet
    """
    if out is not None:
        study, at = Path(study_dir).resolve(), Path(out).resolve()
        if at.is_relative_to(study) and at != study / "export":
            common.fail(
                f"--out {out!r} is inside the study {study_dir!r}, whose files its manifest "
                f"lists: export elsewhere, or leave --out out for {study_dir}/export"
            )
    # no probe: a folder that cannot be made or written is told as the export's own
    # ("--out PATH: cannot write the export there: …"), as it is made
    dest = _folder(Path(out) if out is not None else Path(study_dir) / "export", probe=False)
    if out is not None and not force:  # files battlesim cannot tell from the user's own
        from sim.batch.storage.store import TABLES
        from sim.batch.storage.wide import VIEW

        names = [VIEW] if wide else list(TABLES)
        _refuse_existing([dest / f"{name}.{fmt}" for name in names])
    named = None if out is None else f"--out {out}"
    _export(
        Path(study_dir), fmt, dest, "json" if as_json else "text", wide, inside=out is None,
        named=named,
    )  # fmt: skip


def _refuse_existing(paths: list[Path]) -> None:
    """Exit 2 naming the first of ``paths`` that exists (nothing is written)."""
    for path in paths:
        if path.exists() or path.is_symlink():
            common.fail(
                f"--out: {str(path)!r} already exists; add --force to overwrite it, or choose "
                "another folder"
            )


@click.command(cls=common.Command)
@common.file_argument("campaign_file", "CAMPAIGN.yaml")
@common.seed_option(
    "Campaign seed (default: the file's 'seed'); battle k's seed is derived from it."
)
@common.out_option(
    "Folder for the replays and campaign.json (default: <stem>-s<seed> here).", folder=True
)
@common.force_option(
    "Overwrite a file in the folder that battlesim did not write (its earlier replays and "
    "campaign.json there are replaced without it)."
)
@common.json_option(
    "Print the campaign outcome as JSON: campaign.json's object (name, seed, outcome), "
    "the replays as paths."
)
def campaign(
    campaign_file: str, seed: int | None, out: str | None, force: bool, as_json: bool
) -> None:
    """Fight a campaign's battles in order, survivors carried over.

    Writes one replay per battle and campaign.json (the campaign's outcome).

    \b
    Example:
      battlesim campaign scenarios/fredericksburg_campaign.yaml --seed 3
    """
    from sim.batch.inputs.campaign import play_campaign, shown_reason
    from sim.batch.inputs.target import load_campaign
    from sim.cli.errors import describe
    from sim.contract import headline
    from sim.scenario.load import ScenarioError
    from sim.text.grammar import agree

    try:
        data = load_campaign(campaign_file)
    except ScenarioError as exc:
        _bad_input(str(exc))
    s = seed if seed is not None else data.seed
    folder = _folder(Path(out) if out is not None else Path(f"{Path(campaign_file).stem}-s{s}"))
    _check_campaign_files(data, folder, force, _campaign_reads(campaign_file))
    try:
        result, paths = play_campaign(data, s, folder)
    except OSError as exc:
        _bad_input(_error(f"cannot write replays: {describe(exc)}"))
    o = result.outcome
    if as_json:
        # campaign.json's object, the replays as paths from here (the file names them)
        common.echo_json(
            {"campaign": data.campaign, "seed": s, **o, "replays": [str(p) for p in paths]}
        )
        return
    common.say(f"{data.campaign} (seed {s}):")
    for b, path in zip(result.battles, paths, strict=True):
        common.say(f"  {b.id}: {headline(b.ruleset, b.outcome)}")
        for line in b.ruleset.summary(b.outcome):
            common.say(f"    {line}")
        common.say(f"    Replay: {path}")
    who = agree(o["winner_name"], "wins the campaign") if o["winner"] else "The campaign is drawn"
    common.say(f"{who}: {shown_reason(o)}")
    common.say(f"Summary: {folder / 'campaign.json'}")


def _campaign_reads(campaign_file: str) -> tuple[Path, ...]:
    """The files a campaign reads: its file and each battle's scenario (never replaced,
    ``--force`` or not)."""
    from sim.scenario.load import read_yaml

    data, _lines = read_yaml(campaign_file)  # read and checked once already: plain data
    battles = data.get("battles") if isinstance(data, dict) else None
    named = [b.get("scenario") for b in battles or () if isinstance(b, dict)]
    base = Path(campaign_file).parent
    return (Path(campaign_file), *(base / n for n in named if isinstance(n, str)))


def _check_campaign_files(
    data: Any, folder: Path, force: bool, reads: tuple[Path, ...] = ()
) -> None:
    """Refuse (exit 2) a file in ``folder`` the campaign would replace that battlesim did
    not write: a replay where a battle's replay goes, or a campaign.json not a campaign's;
    and, ``--force`` or not, one of the files it reads, or a study's folder or a folder
    inside one (as a study refuses a folder holding files it did not make)."""
    from sim.batch.inputs.campaign import campaign_replay_name
    from sim.outputs import OutputError, check_output, is_replay

    if _holds_study(folder):
        common.fail(
            f"{str(folder)!r} holds a study: name a new or empty folder "
            "(a campaign never writes into a study's folder)"
        )
    study = _study_around(folder)
    if study is not None:  # its subfolders are the study's too: its manifest lists its files
        common.fail(
            f"{str(folder)!r} is inside the study {str(study)!r}, whose files its manifest "
            "lists: name a folder outside it (a campaign never writes into a study's folder)"
        )
    if not folder.is_dir():
        return  # made new: nothing in it to replace
    try:
        for k, entry in enumerate(data.battles):
            path = folder / campaign_replay_name(k, entry.id)
            check_output(path, force=force, ours=is_replay, what="a replay", reads=reads)
        check_output(
            folder / "campaign.json",
            force=force,
            ours=_is_campaign_json,
            what="a campaign.json",
            reads=reads,
        )
    except OutputError as exc:
        common.fail(str(exc))


def _holds_study(folder: Path) -> bool:
    """Whether ``folder`` is a study's: its database there, or one a study killed as it
    began left being built."""
    from sim.batch.inputs.guard import DB_NAME, building

    db = folder / DB_NAME
    return folder.is_dir() and (db.exists() or db.is_symlink() or bool(building(folder, DB_NAME)))


def _study_around(folder: Path) -> Path | None:
    """The study folder ``folder`` is inside (made yet or not, reached through ``..`` or a
    link), as the user's path names it when one of its folders is the study's, else the
    study's real path; None when no folder above it holds a study."""
    try:
        above = folder.resolve().parents
    except (OSError, RuntimeError):  # a loop of links: check_output has said what it is
        return None
    study = next((p for p in above if _holds_study(p)), None)
    if study is None:
        return None
    named = [p for p in Path(folder).parents if p.resolve() == study]
    return named[-1] if named else study


def _is_campaign_json(path: Path) -> bool:
    """Whether ``path`` holds a campaign's outcome as ``campaign`` writes it."""
    import json

    try:
        data = json.loads(path.read_text(encoding="utf-8")[:1_000_000])
    except (OSError, ValueError, RecursionError):  # nested 100,000 deep: not ours
        return False
    return isinstance(data, dict) and {"campaign", "seed", "replays"} <= data.keys()
