"""Full replays of a study's runs: the ones kept while it ran, and reruns of any run.

A run's replay is what ``battlesim run`` would write for its scenario (the
design point's data) and its seed: the same header — ``source`` is the
scenario file's name — and the same lines. A campaign run writes one replay
per battle. Names: ``run-<id>.jsonl``, or ``run-<id>-<k>-<battle>.jsonl``
for battle k (from 1) of a campaign.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from engine.log import Sink
from engine.safety.atomic import atomic_write_bytes, exporting_together, own_folder
from sim.batch.execution.worker import fight, prepare
from sim.batch.inputs.campaign import HeldSink
from sim.batch.inputs.target import Target
from sim.batch.storage.opening import other_dice
from sim.batch.storage.store import Store
from sim.outputs import OutputError, check_output, is_replay
from sim.scenario.load import ScenarioError
from sim.scenario.values import ValueProblem, whole
from sim.text.grammar import count

__all__ = ["Rerun", "RerunError", "replay_name", "rerun", "write_replays"]


class RerunError(ValueError):
    """A run that cannot be rerun (no such run, or its point does not validate)."""


def replay_name(target: Target, run_id: int, k: int = 0, battle: str = "") -> str:
    """The file name of a run's replay (battle ``k`` from 0 of a campaign)."""
    if target.kind == "scenario":
        return f"run-{run_id}.jsonl"
    return f"run-{run_id}-{k + 1}-{battle}.jsonl"


def write_replays(
    out: Path, target: Target, kept: Sequence[tuple[int, Sequence[tuple[str, Sequence[str]]]]]
) -> None:
    """Write kept replays, (run id, [(battle name, lines)]), to ``out/replays/`` atomically.

    Raises:
        OSError: a replay cannot be written (its ``filename`` is the replay's
            path; no temporary file is left).
    """
    for run_id, battles in kept:
        folder = own_folder(out / "replays")
        for k, (battle, lines) in enumerate(battles):
            path = folder / replay_name(target, run_id, k, battle)
            try:
                atomic_write_bytes(path, "".join(f"{line}\n" for line in lines).encode("utf-8"))
            except OSError as exc:
                if exc.filename is None:
                    exc.filename = str(path)  # a refused write (disk full) names no file
                raise


@dataclass(frozen=True)
class Rerun:
    """A rerun: the run, where its replays went and its outcome."""

    run_id: int
    point: int
    replication: int
    seed: int
    paths: list[Path]
    outcome: dict[str, Any]
    turn_name: str = "turn"
    """The ruleset's word for a turn ("round" in becmi)."""


def _paths(target: Target, run_id: int, dest: Path | None) -> tuple[Path, Path | None]:
    """(folder for a campaign's replays, file for a scenario's replay: ``dest``, or in the
    folder ``dest`` names, its default name)."""
    if target.kind == "scenario":
        if dest is not None and dest.is_dir():
            return Path("."), dest / replay_name(target, run_id)
        return Path("."), dest or Path(replay_name(target, run_id))
    if dest is not None and not dest.is_dir() and dest.name.endswith((".jsonl", ".gz")):
        raise RerunError(
            f"{dest}: run {run_id} is a campaign's, one replay for each of its battles, "
            f"written into a folder: name a folder, not a replay file (e.g. run-{run_id})"
        )
    return dest or Path("."), None


def _run_number(run_id: object) -> int:
    """``run_id`` as a whole number (a NumPy integer from a study's DataFrame too)."""
    number = whole(run_id)
    if number is None or number < 0:
        raise ValueProblem(f"{run_id!r} is not a run id: use a whole number from 0")
    return number


def _held(
    paths: list[Path], study_dir: Path, dest: str | Path | None, force: bool, file: bool
) -> None:
    """Refuse a file inside the study, or one of the user's without ``force``
    (:func:`sim.outputs.check_output`); ``dest`` is named as ``--out`` in the message.
    ``file``: the run is a scenario's, one replay file (else a campaign's, in a folder
    the rerun makes)."""
    for path in paths:
        if path.resolve().is_relative_to(study_dir.resolve()):
            raise OutputError(
                f"{str(path)!r} is inside the study {str(study_dir)!r}, whose files its "
                "manifest lists: write the replay elsewhere (-o)"
            )
        named = "--out" if dest is not None and Path(dest) == path else "replay"
        if file or path.parent.is_dir():  # a campaign's new folder holds nothing yet
            check_output(path, option=named, force=force, ours=is_replay, what="a replay")
        elif not path.parent.parent.is_dir():  # the folder a campaign's is made in must be
            check_output(path.parent, option="--out", folder=True)


def _planned(target: Target, run_id: int, folder: Path, file: Path | None) -> list[Path]:
    """The files a rerun may write: a scenario run's replay, or each battle's of a campaign
    run (every battle the campaign names: it may end before the last)."""
    if file is not None:
        return [file]
    battles = [str(b["id"]) for b in target.data["battles"]]
    return [folder / replay_name(target, run_id, k, b) for k, b in enumerate(battles)]


SHOWN_RANGES = 4
"""The runs of consecutive ids a refused rerun names before "and N more"."""


def held_ids(ranges: list[tuple[int, int]]) -> str:
    """The run ids a study holds, in words: ``runs 0 to 57``, ``runs 0 to 9, 20 and 30 to
    39``, ``run 0``, ``no run``; past :data:`SHOWN_RANGES` runs of consecutive ids, the
    ids left counted: ``runs 0 to 9, 20, 30 to 39, 50 to 59 and 12 others``."""
    if not ranges:
        return "no run"
    words = [_stretch(a, b) for a, b in ranges[:SHOWN_RANGES]]
    if len(ranges) > SHOWN_RANGES:
        rest = sum(b - a + 1 for a, b in ranges[SHOWN_RANGES:])
        words.append(f"{rest:,} {'other' if rest == 1 else 'others'}")
    single = len(ranges) == 1 and ranges[0][0] == ranges[0][1]
    listed = words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]
    return f"{'run' if single else 'runs'} {listed}"


def _stretch(a: int, b: int) -> str:
    return f"{a:,}" if a == b else f"{a:,}, {b:,}" if b == a + 1 else f"{a:,} to {b:,}"


def _no_run(run_id: int, planned: int, ranges: list[tuple[int, int]]) -> str:
    """Why ``run_id``, past the ``planned`` runs of a study holding the runs ``ranges``,
    is no run."""
    held = sum(b - a + 1 for a, b in ranges)
    plans = f"runs 0 to {planned - 1:,} and holds {held:,}"
    if planned == 1:  # not "runs 0 to 0 and holds 1"
        return (
            f"no run {run_id}: the study plans one run, run 0, and holds {'it' if held else 'none'}"
        )
    if held == planned:
        return f"no run {run_id}: the study plans {plans}"
    return f"no run {run_id}: the study plans {plans}: {held_ids(ranges)}"


def rerun(
    study_dir: str | Path,
    run_id: int,
    dest: str | Path | None = None,
    *,
    force: bool = False,
) -> Rerun:
    """Fight run ``run_id`` of a study again, writing its full replay(s).

    ``dest`` is the replay file of a scenario run (default ``run-<id>.jsonl``
    here), or the folder for a campaign run's replays (default: here). Every
    file the rerun may write is checked before any is written, as ``battlesim
    rerun`` checks it: none may be inside the study's folder (its files are the
    manifest's), and a file there that is not a battlesim replay is replaced
    only with ``force``.

    Raises:
        StoreError: the study database cannot be opened.
        RerunError: no such run, or its design point does not validate.
        OutputError: a file it would write is inside the study, cannot be written, or is
            the user's (see ``force``).
        ValueProblem: ``run_id`` is not a whole number from 0.
    """
    run_id = _run_number(run_id)
    store = Store.open(Path(study_dir) / "study.duckdb", read_only=True)
    try:
        meta = store.meta()
        points = store.points()
        row = store.run_row(run_id)
        ranges = store.held_ranges()
        target = store.target()
    finally:
        store.close()
    problem = other_dice(meta["plan"], str(study_dir))
    if problem is not None:
        raise RerunError(problem)
    reps = int(meta["replications"])
    if reps * len(points) <= 0:  # no study writes this: a database edited by hand
        raise RerunError(
            f"{study_dir}: damaged: the study plans no runs "
            f"({count(reps, 'replication')} of {count(len(points), 'design point')})"
        )
    planned = reps * len(points)
    if not 0 <= run_id < planned:
        raise RerunError(_no_run(run_id, planned, ranges))
    held = sum(b - a + 1 for a, b in ranges)
    point, replication = divmod(run_id, reps)
    if row is None:  # planned, never fought: a replay of it would match no row of the study
        raise RerunError(
            f"run {run_id} (point {point}, replication {replication}) is not in the study: it "
            f"holds {held:,} of its {count(planned, 'planned run', spec=',')}"
            f"{f', {held_ids(ranges)}' if held else ''} (a point stopped by --until-ci, or a "
            "study interrupted: --resume fights the rest)"
        )
    seed = row["seed"]
    try:
        prepared = prepare(target, points[point])
    except (ScenarioError, ValidationError) as exc:
        raise RerunError(f"run {run_id} cannot be fought: {exc}") from None
    folder, file = _paths(target, run_id, Path(dest) if dest is not None else None)
    _held(_planned(target, run_id, folder, file), Path(study_dir), dest, force, file is not None)
    written: list[Path] = []

    sinks: list[HeldSink] = []

    def sink_for(k: int, battle: str) -> Sink:
        path = file if file is not None else folder / replay_name(target, run_id, k, battle)
        written.append(path)
        sinks.append(HeldSink(path))
        return sinks[-1]

    if file is None:
        folder.mkdir(parents=True, exist_ok=True)
    try:
        fought = fight(prepared, seed, sink_for)
        # a campaign run's replays put in place all or none, as `campaign` puts its own:
        # one study's battle 1 had stood beside another's battle 2 after a failure or Ctrl-C
        with exporting_together([], sinks):
            pass
    except BaseException:  # Ctrl-C and SIGTERM too: no .partial is left
        for sink in sinks:
            sink.abandon()  # one put in place is kept
        raise
    turn = target.ruleset().turn_name
    return Rerun(run_id, point, replication, seed, written, fought.outcome, turn)
