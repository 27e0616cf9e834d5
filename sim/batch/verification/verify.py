"""``battlesim verify STUDY_DIR``: a finished study checked as a whole.

Four checks, every difference named:

1. **The plan**: the stored target data digests to the stored
   ``target_digest``; the stored design points are the plan's design
   (recomputed from its factors, design, points and seed); every run's id is
   ``point × replications + replication`` and its seed the one the seed
   scheme spawns (:mod:`sim.batch.inputs.seeds`).
2. **The summary**: ``summary.json`` is re-derived from the database by
   the summary code (:func:`sim.batch.analysis.summary.summarize`, with the baseline
   the stored summary names) and compared field by field.
3. **A sample of runs, fought again**: ``sample`` run ids drawn without
   replacement from the stored runs by NumPy's ``default_rng`` seeded
   ``derived_seed(seed, "verify-sample")`` (``seed``: the study seed, or the
   one given), each re-fought from the stored target, design point and seed
   exactly as a worker fights it; its ``runs`` row and its unit rows must
   equal the stored ones column by column.
4. **Kept replays** of the sampled runs: the re-fought replay must equal the
   file in ``replays/`` byte for byte.

A study that cannot be checked here — no study in the folder, a database
that is not a study's, a study fought with other dice — raises
:class:`StudyVerifyError` (exit 2); differences are data (exit 1).
"""

from __future__ import annotations

import inspect
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from engine.canonical import canonical_json
from engine.jsondiff import diff
from sim.batch.analysis.summary import summarize
from sim.batch.execution.rows import ChunkRows, Losses, run_row
from sim.batch.execution.worker import Prepared, RunSpec, failure, prepare, run_rows
from sim.batch.inputs.seeds import derived_seed, run_seed
from sim.batch.inputs.target import Target
from sim.batch.planning.design import Factor, design_points
from sim.batch.storage.opening import DB_NAME, other_dice
from sim.batch.storage.store import Store
from sim.batch.storage.units import TABLE as UNIT_TABLE
from sim.batch.storage.units import legacy_units
from sim.batch.verification.replays import replay_name
from sim.scenario.load import ScenarioError

__all__ = ["DEFAULT_SAMPLE", "StudyCheck", "StudyVerifyError", "verify_study"]

DEFAULT_SAMPLE = 5
"""Runs re-fought when no ``--sample`` is given."""
SHOWN = 3
"""Differences of one kind shown in a message before "and N more"."""


class StudyVerifyError(ValueError):
    """A folder that cannot be verified as a study (exit 2)."""


@dataclass
class StudyCheck:
    """What ``verify`` found in a study folder."""

    study: str
    runs: int
    sample_seed: int
    sampled: list[int] = field(default_factory=list)
    replays: int = 0
    """Kept replays of the sampled runs compared byte for byte."""
    differences: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """True when nothing differs."""
        return not self.differences

    def as_json(self) -> dict[str, Any]:
        """Plain data for ``--json``."""
        return {
            "study": self.study,
            "ok": self.ok,
            "runs": self.runs,
            "sample_seed": self.sample_seed,
            "sampled": self.sampled,
            "replays": self.replays,
            "differences": self.differences,
            "notes": self.notes,
        }


def _open(folder: Path) -> Store:
    if not folder.is_dir():
        raise StudyVerifyError(f"{str(folder)!r} is not a folder")
    db = folder / DB_NAME
    if not db.is_file():
        raise StudyVerifyError(f"{str(folder)!r}: no study here (no {DB_NAME})")
    return Store.open(db, read_only=True)


def _changes(a: Any, b: Any, what: str, left: str, right: str) -> list[str]:
    found = diff(a, b)
    out = [
        f"{what}: {c.path or '(whole)'}: {left} {json.dumps(c.a)}, {right} {json.dumps(c.b)}"
        if c.kind == "changed"
        else f"{what}: {c.path}: only {left if c.kind == 'missing' else right}"
        for c in found[:SHOWN]
    ]
    if len(found) > SHOWN:
        out.append(f"{what}: … and {len(found) - SHOWN} more differences")
    return out


def _check_plan(store: Store, meta: dict[str, Any], check: StudyCheck) -> None:
    plan = meta["plan"]
    target = Target.from_json(meta["target"])
    if (
        target.digest() != meta["target_digest"]
        or plan.get("target_digest") != meta["target_digest"]
    ):
        check.differences.append("study: the stored target data does not digest to target_digest")
    try:
        factors = [Factor.model_validate(f) for f in plan.get("factors", meta["factors"])]
        design, seed = plan.get("design", meta["design"]), int(plan.get("seed", meta["seed"]))
        wanted = design_points(design, factors, plan.get("points"), seed)
    except (ValueError, TypeError) as exc:
        check.differences.append(f"points: the plan's design cannot be made: {exc}")
    else:
        if canonical_json(wanted) != canonical_json(store.points()):
            check.differences.append("points: the stored design points are not the plan's design")
    reps, seed, crn = int(meta["replications"]), int(meta["seed"]), bool(meta["crn"])
    rows = store.con.execute(
        "SELECT run_id, point, replication, seed FROM runs ORDER BY run_id"
    ).fetchall()
    bad = [
        run_id
        for run_id, p, r, s in rows
        if run_id != p * reps + r or not 0 <= r < reps or s != run_seed(seed, p, r, crn)
    ]
    if bad:
        shown = ", ".join(str(b) for b in bad[:SHOWN]) + (" …" if len(bad) > SHOWN else "")
        check.differences.append(
            f"runs: {len(bad)} run(s) whose id or seed is not the plan's ({shown})"
        )


def _check_summary(store: Store, folder: Path, meta: dict[str, Any], check: StudyCheck) -> None:
    path = folder / "summary.json"
    try:
        stored = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        check.differences.append("summary.json: missing (a study stopped before its end?)")
        return
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        check.differences.append(f"summary.json: unreadable: {exc}")
        return
    again = json.loads(json.dumps(summarize(store, **_settings(stored))))
    found = _changes(stored, again, "summary.json", "stored", "re-derived")
    check.differences.extend(found)
    if found and meta.get("battlesim_version") not in (None, _own_version()):
        check.notes.append(
            f"the study was made by battlesim {meta['battlesim_version']}; its summary is "
            f"re-derived by {_own_version()}, whose summary may hold other fields"
        )


def _settings(stored: Any) -> dict[str, Any]:
    """The summary's settings that are not in the database, as ``summary.json`` names them.

    The baseline of the comparisons, and the proportions' interval when the
    summary code takes one (``study.interval``): the summary is made again as
    the study made it.
    """
    out: dict[str, Any] = {"baseline": 0}
    if not isinstance(stored, dict):
        return out
    if isinstance(stored.get("baseline"), int):
        out["baseline"] = stored["baseline"]
    study = stored.get("study")
    takes = inspect.signature(summarize).parameters
    if isinstance(study, dict) and isinstance(study.get("interval"), str) and "interval" in takes:
        out["interval"] = study["interval"]
    return out


def _own_version() -> str:
    from importlib.metadata import PackageNotFoundError, version  # noqa: PLC0415

    try:
        return version("battlesim")
    except PackageNotFoundError:
        return "unknown"


def sample_ids(ids: list[int], n: int, seed: int) -> list[int]:
    """``n`` of ``ids`` (all when fewer), drawn by a generator seeded from ``seed``; sorted."""
    import numpy as np  # noqa: PLC0415

    if n >= len(ids):
        return sorted(ids)
    rng = np.random.default_rng(derived_seed(seed, "verify-sample"))
    picked = rng.choice(len(ids), size=n, replace=False)
    return sorted(ids[int(i)] for i in picked)


def _stored_units(store: Store, run_id: int) -> list[tuple[Any, ...]]:
    table = UNIT_TABLE if store.legacy is None else "unit_finals"
    rows = store.con.execute(
        f"SELECT * EXCLUDE (run_id) FROM {table} WHERE run_id = ? ORDER BY battle, unit",
        [run_id],
    ).fetchall()
    return [tuple(r) for r in rows]


def _fought_units(
    store: Store, units: list[tuple[Any, ...]], losses: Losses
) -> list[tuple[Any, ...]]:
    columns = ChunkRows.of([], units, losses).units
    if store.legacy is not None and units:  # a study made before unit_rows
        columns = legacy_units(columns, store.legacy)
    rows = [tuple(r) for r in zip(*columns, strict=True)] if units else []
    return sorted((r[1:] for r in rows), key=lambda r: (r[0], r[2]))


def _compare_row(run_id: int, stored: dict[str, Any], fought: tuple[Any, ...]) -> list[str]:
    names = list(stored)
    out: list[str] = []
    for name, mine in zip(names, fought, strict=True):
        theirs = stored[name]
        if name == "outcome" and theirs is not None and mine is not None:
            out += _changes(json.loads(theirs), json.loads(mine), f"run {run_id}: outcome",
                            "stored", "re-fought")  # fmt: skip
        elif theirs != mine:
            out.append(f"run {run_id}: {name}: stored {theirs!r}, re-fought {mine!r}")
    return out


def _refight(
    store: Store, folder: Path, target: Target, run: RunSpec, prepared: Prepared | str
) -> tuple[list[str], int]:
    """Differences of one run fought again, and the kept replays compared."""
    losses: Losses = tuple((s, k) for s, k, _ in store.losses)
    sides = tuple(side for side, _ in store.draws)
    ids = (run.run_id, run.point, run.replication, run.seed)
    units: list[tuple[Any, ...]] = []
    kept: list[tuple[str, list[str]]] = []
    if isinstance(prepared, str):
        row = run_row(ids, "failed", prepared, None, losses, (None,) * len(sides))
    else:
        row, units, kept = run_rows(prepared, run, losses, sides)
    stored = store.run_row(run.run_id)
    assert stored is not None
    out = _compare_row(run.run_id, stored, row)
    if _stored_units(store, run.run_id) != _fought_units(store, units, losses):
        out.append(f"run {run.run_id}: its unit rows differ from the re-fought battle's")
    compared = 0
    for k, (battle, lines) in enumerate(kept):
        path = folder / "replays" / replay_name(target, run.run_id, k, battle)
        if not path.is_file():
            out.append(f"run {run.run_id}: kept replay {path.name} is missing")
            continue
        compared += 1
        if path.read_bytes() != "".join(f"{line}\n" for line in lines).encode("utf-8"):
            out.append(f"run {run.run_id}: kept replay {path.name} differs from the re-fought one")
    return out, compared


def _check_runs(
    store: Store, folder: Path, meta: dict[str, Any], sample: int, check: StudyCheck
) -> None:
    problem = other_dice(meta["plan"], str(folder))
    if problem is not None:
        raise StudyVerifyError(problem)
    ids = [r[0] for r in store.con.execute("SELECT run_id FROM runs ORDER BY run_id").fetchall()]
    check.sampled = sample_ids(ids, sample, check.sample_seed)
    target = Target.from_json(meta["target"])
    points = store.points()
    reps, keep = int(meta["replications"]), int(meta["keep_replays"])
    prepared: dict[int, Prepared | str] = {}
    for run_id in check.sampled:
        row = store.run_row(run_id)
        assert row is not None
        point, replication = divmod(run_id, reps)
        if point not in prepared:
            try:
                prepared[point] = prepare(target, points[point])
            except (ScenarioError, ValidationError) as exc:
                prepared[point] = failure(exc)
        run = RunSpec(run_id, point, replication, int(row["seed"]), replication < keep)
        found, compared = _refight(store, folder, target, run, prepared[point])
        check.differences.extend(found)
        check.replays += compared


def verify_study(
    folder: str | Path, sample: int = DEFAULT_SAMPLE, seed: int | None = None
) -> StudyCheck:
    """Check the study in ``folder``: plan, summary, a re-fought sample, kept replays.

    Args:
        folder: the study's output folder.
        sample: runs to re-fight (0: none).
        seed: the seed of the sample (default: the study seed).

    Raises:
        StudyVerifyError: no study in ``folder``, or one that cannot be re-fought here.
        StoreError: the database cannot be opened as a study.
    """
    path = Path(folder)
    store = _open(path)
    try:
        meta = store.meta()
        check = StudyCheck(
            str(folder), store.count(), seed if seed is not None else int(meta["seed"])
        )
        _check_plan(store, meta, check)
        _check_summary(store, path, meta, check)
        if sample > 0:
            _check_runs(store, path, meta, sample, check)
        return check
    finally:
        store.close()


def verify_lines(check: StudyCheck) -> list[str]:
    """The check in words: each difference, then one line of verdict."""
    lines = [f"DIFFERS: {d}" for d in check.differences]
    lines += [f"note: {n}" for n in check.notes]
    fought = ", ".join(str(i) for i in check.sampled) or "none"
    replays = f", {check.replays} kept replay(s) byte for byte" if check.replays else ""
    if check.ok:
        lines.append(
            f"OK: {check.study}: plan, seeds and summary.json re-derived from {check.runs} runs; "
            f"{len(check.sampled)} run(s) re-fought identically (sample seed {check.sample_seed}: "
            f"{fought}){replays}"
        )
    else:
        lines.append(f"{check.study}: {len(check.differences)} difference(s)")
    return lines
