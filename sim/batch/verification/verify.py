"""``battlesim verify STUDY_DIR``: a finished study checked as a whole.

Seven checks, every difference named (what each proves: docs/batch.md,
*What verify proves*):

1. **The plan**: the stored target data digests to the stored
   ``target_digest``; the stored design points are the plan's design
   (recomputed from its factors, design, points and seed); every run's id is
   ``point × replications + replication`` and its seed the one the seed
   scheme spawns (:mod:`sim.batch.inputs.seeds`).
2. **The summary**: ``summary.json`` is re-derived from the database by
   the summary code (:func:`sim.batch.analysis.summary.summarize`, with the baseline
   the stored summary names) and compared field by field.
3. **Completeness**: every run the plan calls for is stored, and no other —
   each point's replications ``0 … n-1``, ``n`` the plan's ``--runs`` or, with
   ``--until-ci``, what the stopping rule gives when replayed over the stored
   pilot runs (:mod:`sim.batch.planning.stopping`).
4. **Every run's digests** (:mod:`sim.batch.execution.digests`), recomputed
   from its stored row, unit rows and kept replay files, must equal its row of
   ``run_digests``: an edit that did not recompute them is named by run and
   part, without fighting anything.
5. **The manifest** (:mod:`sim.batch.storage.manifest`): the chain of the run
   digests, the study row and points, and every file it lists
   (``summary.json``, plots, exports) recomputed and compared.
6. **A sample of runs, fought again**: ``sample`` run ids drawn without
   replacement by NumPy's ``default_rng`` seeded ``derived_seed(seed,
   "verify-sample")``, ``seed`` drawn afresh from the operating system
   (:func:`secrets.randbits`) unless one is given — printed, so the check can
   be repeated; a forger cannot know which runs will be fought. Each is
   re-fought from the stored target, design point and seed exactly as a worker
   fights it; its ``runs`` row and unit rows must equal the stored ones.
   ``everything`` fights every run.
7. **Kept replays** of the sampled runs: the re-fought replay must equal the
   file in ``replays/`` byte for byte.

A study made before per-run digests or the manifest is checked as far as it
can be, and the check says (``notes``) what it could not check.

A study that cannot be checked here — no study in the folder, a database
that is not a study's, a study fought with other dice — raises
:class:`StudyVerifyError` (exit 2); differences are data (exit 1).
"""

from __future__ import annotations

import inspect
import json
import math
import re
import secrets
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from engine.canonical import canonical_json
from engine.comparison.jsondiff import diff
from engine.safety.files import FileProblem, read_bounded
from sim.batch.analysis.summary import summarize
from sim.batch.execution.digests import run_digests
from sim.batch.execution.rows import ChunkRows, Losses, run_row
from sim.batch.execution.worker import Prepared, RunSpec, failure, prepare, run_rows
from sim.batch.inputs.seeds import derived_seed, run_seed
from sim.batch.inputs.target import Target
from sim.batch.methods.differences import PAIRED
from sim.batch.methods.stats import METHODS
from sim.batch.planning.design import Factor, design_points
from sim.batch.planning.stopping import PILOT, confirm_runs, pilot_runs, rule_of
from sim.batch.storage.duck import duckdb
from sim.batch.storage.manifest import (
    BLOCK,
    file_digest,
    listed_files,
    read_manifest,
    runs_root,
    study_digest,
)
from sim.batch.storage.manifest import (
    NAME as MANIFEST,
)
from sim.batch.storage.opening import DB_NAME, other_dice, row_mismatches, rules_differ
from sim.batch.storage.schema import DIGEST_TABLE
from sim.batch.storage.sql import table_columns
from sim.batch.storage.store import (
    Store,
    StoreDamaged,
    damaged,
    in_factor_order,
    point_cells,
    point_label,
    quote,
)
from sim.batch.storage.units import TABLE as UNIT_TABLE
from sim.batch.storage.units import legacy_units
from sim.batch.verification.replays import replay_name
from sim.scenario.load import ScenarioError
from sim.text.grammar import count

__all__ = ["DEFAULT_SAMPLE", "StudyCheck", "StudyVerifyError", "verify_study"]

DEFAULT_SAMPLE = 5
"""Runs re-fought when no ``--sample`` is given."""
SHOWN = 3
_MORE = re.compile(r": … and ([\d,]+) more differences?$")
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
    every_run: bool = False
    """Every stored run was fought again (``--all``, or a sample as large as the study): the
    sample seed chose nothing, so the verdict does not name it."""
    digests: int = 0
    """Runs whose stored rows and kept replays were checked against their digests."""
    files: int = 0
    """Files of the manifest checked against their digests."""
    replays: int = 0
    """Kept replays of the sampled runs that are the re-fought ones (byte for byte, or the
    :attr:`by_value` ones)."""
    by_value: int = 0
    """Of :attr:`replays`, those in their rules version's event shapes, the same by value
    (``Event.older_rules``)."""
    differences: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    damaged: bool = False
    """The database could not be read through: nothing past the damage was checked."""

    @property
    def ok(self) -> bool:
        """True when nothing differs."""
        return not self.differences

    @property
    def difference_count(self) -> int:
        """Every difference found: a line ``… and N more differences`` (one file's beyond
        the :data:`SHOWN` listed) counts as its N."""
        total = 0
        for line in self.differences:
            more = _MORE.search(line)
            total += int(more.group(1).replace(",", "")) if more else 1
        return total

    @property
    def catch(self) -> float:
        """The chance the re-fought sample holds one given run: k / N."""
        return len(self.sampled) / self.runs if self.runs else 1.0

    def as_json(self) -> dict[str, Any]:
        """Plain data for ``--json``."""
        return {
            "study": self.study,
            "ok": self.ok,
            "runs": self.runs,
            # a seed that drew no sample (every run fought, or none: --sample 0) is no seed
            "sample_seed": None if self.every_run or not self.sampled else self.sample_seed,
            "sampled": self.sampled,
            "catch_probability": None if self.damaged else self.catch,
            "digests": self.digests,
            "files": self.files,
            "replays": self.replays,
            "replays_by_value": self.by_value,
            "differences": self.differences,
            "difference_count": self.difference_count,
            "notes": self.notes,
            "damaged": self.damaged,
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
        out.append(f"{what}: … and {count(len(found) - SHOWN, 'more difference', spec=',')}")
    # (SHOWN listed and the rest counted: StudyCheck.difference_count reads this line)
    return out


def _check_plan(store: Store, meta: dict[str, Any], check: StudyCheck) -> None:
    plan = meta["plan"]
    target = store.target()
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
            f"runs: {count(len(bad), 'run', spec=',')} whose id or seed is not the plan's ({shown})"
        )


def _check_row(store: Store, meta: dict[str, Any], check: StudyCheck) -> bool:
    """The study row against what its stored plan and target make
    (:func:`~sim.batch.storage.opening.row_mismatches`), its rules against those this
    battlesim re-fights under, and the design points' numbers; whether the row is the
    plan's (the summary, which reads it, is re-derived only then)."""
    target = store.target()
    wrong = row_mismatches(meta, target, len(store.points()))
    if wrong:
        check.differences.append(
            f"study: the row's {', '.join(wrong)} {'is' if len(wrong) == 1 else 'are'} not what "
            "its stored plan and target make (edited since the study was written?)"
        )
    fights = rules_differ(meta, target)
    if fights is not None:
        check.differences.append(
            f"study: it says its runs were fought under {meta['ruleset']} rules version "
            f"{meta['ruleset_version']} ({meta['rules_digest']}); this battlesim re-fights "
            f"them under version {fights[0]} ({fights[1]})"
        )
    ids = [p for (p,) in store.con.execute("SELECT point FROM points ORDER BY point").fetchall()]
    if ids != list(range(len(ids))):
        check.differences.append(
            "points: the design points are not numbered 0, 1, 2 … in order (renumbered since "
            "the study was written?)"
        )
    return not wrong


def _check_summary(store: Store, folder: Path, meta: dict[str, Any], check: StudyCheck) -> None:
    path = folder / "summary.json"
    if not path.exists() and not path.is_symlink():
        check.differences.append("summary.json: missing (a study stopped before its end?)")
        return
    try:
        if path.is_symlink():
            raise FileProblem("a link, not a file of the study")
        stored = json.loads(read_bounded(path).decode("utf-8"))  # a FIFO or /dev/zero: refused
    except RecursionError:  # nested 100,000 deep: not a summary battlesim wrote
        check.differences.append("summary.json: unreadable: nested too deeply")
        return
    except (FileProblem, OSError, UnicodeDecodeError, ValueError) as exc:
        check.differences.append(f"summary.json: unreadable: {exc}")
        return
    try:
        again = json.loads(json.dumps(summarize(store, **_settings(stored))))
    except duckdb.DataError as exc:  # values no study holds (losses that overflow a sum)
        check.differences.append(f"summary.json: cannot be re-derived from the runs: {exc}")
        return
    found = _changes(stored, again, "summary.json", "stored", "re-derived")
    check.differences.extend(found)
    if found and meta.get("battlesim_version") not in (None, _own_version()):
        check.notes.append(
            f"the study was made by battlesim {meta['battlesim_version']}; its summary is "
            f"re-derived by {_own_version()}, whose summary may hold other fields"
        )


def _settings(stored: Any) -> dict[str, Any]:
    """The summary's settings that are not in the database, as ``summary.json`` names them.

    The baseline of the comparisons, the proportions' interval when the
    summary code takes one (``study.interval``), and the paired differences'
    interval when it was not the default (``study.paired_interval``): the
    summary is made again as the study made it.
    """
    out: dict[str, Any] = {"baseline": 0}
    if not isinstance(stored, dict):
        return out
    if isinstance(stored.get("baseline"), int):
        out["baseline"] = stored["baseline"]
    study = stored.get("study")
    takes = inspect.signature(summarize).parameters
    # only an interval summarize takes: another is an edit, which the comparison names
    if isinstance(study, dict) and study.get("interval") in METHODS and "interval" in takes:
        out["interval"] = study["interval"]
    if isinstance(study, dict) and study.get("paired_interval") in PAIRED:
        out["paired_interval"] = study["paired_interval"]
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
            try:
                was = json.loads(theirs)
            except (ValueError, RecursionError):  # edited by hand: a difference, not a crash
                shown = (
                    repr(theirs)
                    if len(theirs) <= 40
                    else f"{theirs[:40]!r}… ({len(theirs)} characters)"
                )
                out.append(f"run {run_id}: outcome: stored {shown}, not JSON")
                continue
            out += _changes(was, json.loads(mine), f"run {run_id}: outcome",
                            "stored", "re-fought")  # fmt: skip
        elif theirs != mine:
            out.append(f"run {run_id}: {name}: stored {theirs!r}, re-fought {mine!r}")
    return out


def _refight(
    store: Store, folder: Path, target: Target, run: RunSpec, prepared: Prepared | str
) -> tuple[list[str], int, int]:
    """Differences of one run fought again, the kept replays compared, and how many of
    those were the same by value, in their rules version's event shapes."""
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
    compared = by_value = 0
    for k, (battle, lines) in enumerate(kept):
        path = folder / "replays" / replay_name(target, run.run_id, k, battle)
        if not path.is_file():
            out.append(f"run {run.run_id}: kept replay {path.name} is missing")
            continue
        compared += 1
        fought = "".join(f"{line}\n" for line in lines).encode("utf-8")
        if path.read_bytes() == fought:
            continue
        if _same_in_older_shapes(path, fought):
            by_value += 1
        else:
            out.append(f"run {run.run_id}: kept replay {path.name} differs from the re-fought one")
    return out, compared, by_value


def _same_in_older_shapes(path: Path, fought: bytes) -> bool:
    """Whether a kept replay that is not byte for byte the re-fought one is the same battle
    written in the event shapes of the rules version it was fought under
    (``Event.older_rules``): it reads whole, some of its events through the upcasters, and
    its header, its events value for value and its footer are the re-fought one's."""
    import tempfile  # noqa: PLC0415 - only for a study kept before an event changed shape

    from engine.replayfile.reader import ReplayError, read_replay  # noqa: PLC0415
    from sim.replay.header import registry_for  # noqa: PLC0415

    try:
        kept = read_replay(path, registry_for)
    except ReplayError:
        return False
    if kept.upcast == 0:  # in today's shapes: its bytes are the only answer
        return False
    with tempfile.TemporaryDirectory() as folder:
        again = Path(folder) / "fought.jsonl"
        again.write_bytes(fought)
        made = read_replay(again, registry_for)
    values = [canonical_json(e.model_dump(mode="json")) for e in kept.events]
    return (kept.lines[0], kept.footer, values) == (
        made.lines[0],
        made.footer,
        [canonical_json(e.model_dump(mode="json")) for e in made.events],
    )


def _check_runs(
    store: Store,
    folder: Path,
    meta: dict[str, Any],
    sample: int,
    check: StudyCheck,
    progress: Callable[[int, int], None] | None = None,
) -> None:
    problem = other_dice(meta["plan"], str(folder))
    if problem is not None:
        raise StudyVerifyError(problem)
    ids = [r[0] for r in store.con.execute("SELECT run_id FROM runs ORDER BY run_id").fetchall()]
    check.sampled = sample_ids(ids, sample, check.sample_seed)
    check.every_run = bool(ids) and sample >= len(ids)
    target = store.target()
    points = store.points()
    # the plan's (the row's copy is checked against it: an edited one is a difference there)
    plan = meta["plan"]
    reps = int(plan.get("replications", meta["replications"]))
    keep = int(plan.get("keep_replays", meta["keep_replays"]) or 0)
    prepared: dict[int, Prepared | str] = {}
    for done, run_id in enumerate(check.sampled, 1):
        row = store.run_row(run_id)
        assert row is not None
        point, replication = divmod(run_id, reps)
        if point not in prepared:
            try:
                prepared[point] = prepare(target, points[point])
            except (ScenarioError, ValidationError) as exc:
                prepared[point] = failure(exc)
        run = RunSpec(run_id, point, replication, int(row["seed"]), replication < keep)
        found, compared, by_value = _refight(store, folder, target, run, prepared[point])
        check.differences.extend(found)
        check.replays += compared
        check.by_value += by_value
        if progress is not None:
            progress(done, len(check.sampled))


# ----------------------------------------------------------------- completeness


def _wanted_runs(store: Store, meta: dict[str, Any], points: int) -> list[int] | None:
    """Runs each point's plan calls for (None: a stopping rule this battlesim cannot replay)."""
    plan, reps = meta["plan"], int(meta["replications"])
    rule = rule_of(plan)
    if rule is None:
        return [reps] * points
    if rule != PILOT:
        return None
    w, chunk = float(plan["until_ci"]), int(plan["chunk_size"])
    pilot = pilot_runs(w, reps, chunk)
    sides = [str(s[0]) for s in meta["sides"]]
    done = [0] * points
    wins = [dict.fromkeys(sides, 0) for _ in range(points)]
    for point, winner, status, n in store.con.execute(
        "SELECT point, winner, status, count(*) FROM runs WHERE replication < ? "
        "GROUP BY ALL LIMIT 100000",
        [pilot],
    ).fetchall():
        if status == "done" and 0 <= point < points:
            done[point] += n
            if winner in wins[point]:
                wins[point][winner] += n
    out = []
    for p in range(points):
        extra, _ = confirm_runs([wins[p][s] for s in sides], done[p], w, reps, chunk)
        out.append(min(reps, math.ceil((pilot + extra) / chunk) * chunk))
    return out


def _check_complete(store: Store, meta: dict[str, Any], check: StudyCheck) -> bool:
    """Every run the plan (or its stopping rule) calls for is stored, and no other.

    False when the runs table holds more rows than the plan could call for (then
    nothing else of it is read).
    """
    points = len(store.points())
    reps = int(meta["replications"])
    if check.runs > points * reps:
        check.differences.append(
            f"runs: {check.runs:,} stored, more than the plan's {count(points, 'point', spec=',')} "
            f"× {count(reps, 'run', spec=',')}"
        )
        return False
    wanted = _wanted_runs(store, meta, points)
    if wanted is None:
        check.notes.append(
            "could not check that every run is stored: the study's stopping rule "
            f"({meta['plan'].get('stopping')}) is not one this battlesim replays"
        )
        return True
    have: dict[int, set[int]] = {}
    cur = store.con.cursor()
    try:
        cur.execute("SELECT point, replication FROM runs ORDER BY run_id")
        while rows := cur.fetchmany(BLOCK):
            for p, r in rows:
                have.setdefault(int(p), set()).add(int(r))
    finally:
        cur.close()
    counts = {"missing": 0, "not in the plan": 0}
    shown: dict[str, list[int]] = {"missing": [], "not in the plan": []}
    for p in sorted(set(range(points)) | set(have)):
        n = wanted[p] if 0 <= p < points else 0
        stored = have.get(p, set())
        extra = sorted(r for r in stored if not 0 <= r < n)
        counts["not in the plan"] += len(extra)
        shown["not in the plan"] += [p * reps + r for r in extra[:SHOWN]]
        counts["missing"] += n - (len(stored) - len(extra))
        r = 0  # the first missing ones: at most len(stored) + SHOWN steps, whatever n is
        while r < n and len(shown["missing"]) < SHOWN:
            if r not in stored:
                shown["missing"].append(p * reps + r)
            r += 1
    for what, n in counts.items():
        if n:
            ids = ", ".join(str(i) for i in shown[what][:SHOWN]) + (" …" if n > SHOWN else "")
            check.differences.append(f"runs: {count(n, 'run', spec=',')} {what} ({ids})")
    return True


# ----------------------------------------------------------------- digests


def _stored_replays(
    folder: Path, target: Target, run_id: int, kept: str, named: set[str]
) -> list[tuple[str, str]]:
    """(battle, digest of the file in replays/) of each replay a run's digest lists; each
    file's name is added to ``named``."""
    out = []
    try:
        listed = json.loads(kept)
        battles = [str(item[0]) for item in listed]
    except (ValueError, TypeError, IndexError, KeyError, RecursionError):  # edited by hand
        return [("?", "not a list of kept replays")]
    ids = r"[A-Za-z0-9_-]{1,40}"  # a campaign's battle ids: its replays' names hold them
    if target.kind == "campaign" and not all(re.fullmatch(ids, b) for b in battles):
        return [("?", "a battle name that is no battle's id")]  # no path out of replays/
    for k, battle in enumerate(battles):
        name = replay_name(target, run_id, k, battle)
        named.add(name)
        path = folder / "replays" / name
        try:
            out.append((battle, file_digest(path, folder)))
        except OSError:  # missing, a link, a FIFO: not the kept replay
            out.append((battle, "missing"))
    return out


def _check_digests(
    store: Store, folder: Path, meta: dict[str, Any], check: StudyCheck, every_run: bool
) -> None:
    """Every run's stored rows and kept replays against its digests, in run-id order.

    A study without them (one made before them, or one whose digests were removed: the
    two look alike) is proved whole only by fighting every run again (``--all``, or a
    sample of every run): else a run changed outside the sample would pass, so that is a
    difference, not a note.
    """
    if not store.has_digests:
        if every_run:
            check.notes.append(
                "the study holds no per-run digests (made before them): every run was "
                "fought again and its stored rows compared instead"
            )
            # a re-fight compares the runs there are: unit rows of no run need their own look
            unit_table = UNIT_TABLE if store.legacy is None else "unit_finals"
            orphans = store.con.execute(
                f"SELECT DISTINCT run_id FROM {unit_table} WHERE run_id NOT IN "
                "(SELECT run_id FROM runs) ORDER BY run_id"
            ).fetchall()
            check.differences += [f"run {r[0]}: has unit rows but no stored row" for r in orphans]
        else:
            check.differences.append(
                "no per-run digests (a study made before them, or its run_digests table "
                "removed): its stored rows and kept replays cannot be proved without "
                "fighting every run again (verify --all)"
            )
        return
    target = store.target()
    con = store.con
    columns = [name for name, _ in table_columns(con, "runs")]
    at = {name: columns.index(name) for name in ("replication", "status", "battles")}
    keep = int(meta["plan"].get("keep_replays", meta["keep_replays"]) or 0)
    run_types = [sql for _, sql in table_columns(con, "runs")]
    unit_types = [sql for _, sql in table_columns(con, UNIT_TABLE)]
    runs, units, digests = con.cursor(), con.cursor(), con.cursor()
    found: list[str] = []
    named: set[str] = set()  # the files in replays/ that runs' digests list
    try:
        runs.execute("SELECT * FROM runs ORDER BY run_id")
        units.execute(f"SELECT * FROM {UNIT_TABLE} ORDER BY run_id, battle, unit")
        digests.execute(f"SELECT * FROM {DIGEST_TABLE} ORDER BY run_id")
        unit_rows = _Stream(units)
        kept_rows = _Stream(digests)
        while block := runs.fetchmany(BLOCK):
            for row in block:
                run_id = int(row[0])
                mine = unit_rows.take(run_id)
                stored = kept_rows.take(run_id)
                if not stored:
                    found.append(f"run {run_id}: has no digest (added after the study?)")
                    continue
                _, d_row, d_units, d_replays, d_all = stored[0]
                replays = None if d_replays is None else _stored_replays(
                    folder, target, run_id, d_replays, named
                )  # fmt: skip
                kept = _kept_problem(target, keep, [row[at[k]] for k in at], d_replays)
                if kept is not None:
                    found.append(f"run {run_id}: {kept}")
                again = run_digests(row, run_types, mine, unit_types, replays)
                check.digests += 1
                found += _named(run_id, again, (run_id, d_row, d_units, d_replays, d_all))
        found += [f"run {i}: has a digest but no stored row (deleted?)" for i in kept_rows.rest()]
        found += [f"run {i}: has unit rows but no stored row" for i in unit_rows.rest()]
    finally:
        for cur in (runs, units, digests):
            cur.close()
    found += _unkept_replays(folder, named)
    check.differences += found[: SHOWN * 4]
    if len(found) > SHOWN * 4:
        # differences, not runs: one run can differ in several ways (counted by difference_count)
        more = count(len(found) - SHOWN * 4, "more difference", spec=",")
        check.differences.append(f"runs: … and {more}")


def _kept_problem(target: Target, keep: int, row: list[Any], listed: str | None) -> str | None:
    """What is wrong with the replays a run's digest lists, for its plan and its battles.

    A run keeps the replays of the battles it fought, in order, when its replication is
    below the plan's ``keep_replays``, and none otherwise. A replay put in for a run that
    kept none, or for a battle it did not fight, its digests recomputed, verified with
    ``--all`` (the re-fight compares only the replays it keeps).
    """
    replication, status, battles = int(row[0]), row[1], row[2]
    if listed is None:
        if replication < keep and status == "done":
            return f"kept no replay, though the plan keeps those of replications 0–{keep - 1}"
        return None
    if replication >= keep:
        return (
            f"lists kept replays, but the plan keeps none of replication {replication} "
            f"(it keeps {keep})"
        )
    try:
        names = [str(item[0]) for item in json.loads(listed)]
    except (ValueError, TypeError, IndexError, KeyError, RecursionError):
        return "its kept replays are not a list of battles"
    if target.kind == "scenario":
        fought = [target.stem]
    else:
        fought = [str(b["id"]) for b in target.data["battles"]][: int(battles or 0)]
    if names != fought:
        return f"lists kept replays of the battles {names}, not of those it fought {fought}"
    return None


def _unkept_replays(folder: Path, named: set[str]) -> list[str]:
    """Files in ``replays/`` no run kept: a replay there is read as its name's run's (a
    battle of another scenario, or another run's replay, put in under a kept one's name
    would pass every other check). Hidden files are not the study's names."""
    where = folder / "replays"
    if not where.is_dir() or where.is_symlink():
        return []
    return [
        f"replays/{name}: no run kept this replay (its name is not in the runs' digests)"
        for name in sorted(p.name for p in where.iterdir() if not p.name.startswith("."))
        if name not in named
    ]


def _named(run_id: int, again: tuple[Any, ...], stored: tuple[Any, ...]) -> list[str]:
    """Which of a run's parts do not match its stored digests."""
    out = []
    if again[1] != stored[1]:
        out.append(
            f"run {run_id}: its runs row (winner, losses, outcome …) does not match its digest"
        )
    if again[2] != stored[2]:
        out.append(f"run {run_id}: its unit rows do not match their digest")
    if again[3] != stored[3]:
        out.append(f"run {run_id}: its kept replay differs from its digest (edited or missing)")
    if not out and again[4] != stored[4]:
        out.append(f"run {run_id}: its digest does not match its parts")
    return out


class _Stream:
    """Rows of a cursor ordered by run id, taken run by run."""

    def __init__(self, cur: Any) -> None:
        self.cur = cur
        self.block: list[tuple[Any, ...]] = []
        self.i = 0
        self.skipped: list[int] = []

    def _peek(self) -> tuple[Any, ...] | None:
        if self.i >= len(self.block):
            self.block, self.i = self.cur.fetchmany(BLOCK), 0
            if not self.block:
                return None
        return self.block[self.i]

    def take(self, run_id: int) -> list[tuple[Any, ...]]:
        """The rows of ``run_id`` (rows of smaller ids passed over are remembered)."""
        out = []
        while (row := self._peek()) is not None and int(row[0]) <= run_id:
            if int(row[0]) < run_id:
                if not self.skipped or self.skipped[-1] != int(row[0]):
                    self.skipped.append(int(row[0]))
            else:
                out.append(row)
            self.i += 1
        return out

    def rest(self) -> list[int]:
        """Run ids passed over or left: rows with no run."""
        left = list(self.skipped)
        while (row := self._peek()) is not None:
            if not left or left[-1] != int(row[0]):
                left.append(int(row[0]))
            self.i += 1
        return left


# ----------------------------------------------------------------- manifest


def _check_points(store: Store, check: StudyCheck) -> None:
    """Each design point's label and typed factor columns against its ``values``.

    The digests cover ``values``; the label and the typed columns are what
    ``export``, ``runs_wide`` and ``load_study`` read, so an edit of them alone
    would otherwise verify and then be reported as the study's.
    """
    types = dict(table_columns(store.con, "points")[3:])
    picked = "".join(f", {quote(path)}" for path in types)
    rows = store.con.execute(f"SELECT point, label{picked} FROM points ORDER BY point").fetchall()
    for (point, label, *cells), values in zip(rows, store.points(), strict=True):
        # ``values`` is canonical JSON (keys sorted); the label and the columns follow the
        # factors' own order, which the columns keep
        ordered = in_factor_order(values, list(types))
        if label != point_label(ordered) or cells != point_cells(values, types):
            check.differences.append(
                f"points: design point {point}'s label or factor columns do not match its "
                "values (edited since the study was written?)"
            )


def _check_chain(store: Store, manifest: dict[str, Any], check: StudyCheck) -> None:
    """The chain of the runs' digests the manifest records, against the study's."""
    if not store.has_digests:
        if manifest.get("runs_root") is not None:  # written only beside digests
            check.differences.append(
                f"{MANIFEST}: records a chain of run digests, but the study holds none (its "
                "run_digests table removed since the study ended)"
            )
        return
    runs, root = runs_root(store)
    if (manifest.get("runs"), manifest.get("runs_root")) != (runs, root):
        recorded = manifest.get("runs")
        said = f"{recorded:,}" if type(recorded) is int else json.dumps(recorded)
        check.differences.append(
            f"{MANIFEST}: the runs' digests chain to another value than it records "
            f"({count(runs, 'run', spec=',')} stored, {said} recorded): runs deleted, "
            "added or changed since the study ended"
        )


def _check_manifest(store: Store, folder: Path, check: StudyCheck) -> None:
    """The manifest's run chain, study digest and files, recomputed and compared."""
    try:
        manifest = read_manifest(folder)
    except ValueError as exc:
        check.differences.append(str(exc))
        return
    if manifest is None:
        if store.has_digests:  # written last by every study that has digests: its end
            check.differences.append(
                f"{MANIFEST}: missing (a study stopped before its end, or the file removed): "
                "summary.json, plots and exports cannot be checked against their digests"
            )
        else:
            check.notes.append(
                f"no {MANIFEST} (a study made before manifests): summary.json, plots and "
                "exports could not be checked against their digests"
            )
        return
    _check_chain(store, manifest, check)
    if manifest.get("study") != study_digest(store):
        check.differences.append(f"{MANIFEST}: the study row or design points have changed")
    files: dict[str, str] = manifest["files"]
    for name, value in sorted(files.items()):
        path = folder / name
        if ".." in Path(name).parts or Path(name).is_absolute():
            check.differences.append(f"{MANIFEST}: lists {name!r}, outside the study")
            continue
        try:
            now = file_digest(path, folder)
        except FileNotFoundError:
            check.differences.append(f"{name}: missing (listed in {MANIFEST})")
            continue
        except OSError as exc:  # a link, a FIFO, a device: not read
            check.differences.append(f"{name}: {exc.strerror or exc}, not a file of the study")
            continue
        check.files += 1
        if now != value:
            check.differences.append(f"{name}: differs from its digest in {MANIFEST}")
    unlisted = [n for n in listed_files(folder) if n not in files]
    if unlisted:
        shown = ", ".join(unlisted[:SHOWN]) + (" …" if len(unlisted) > SHOWN else "")
        check.notes.append(f"not in {MANIFEST} (written after the study?): {shown}")


def fresh_seed() -> int:
    """A sample seed from the operating system's randomness (no study data, no clock)."""
    return secrets.randbits(63)


def verify_study(
    folder: str | Path,
    sample: int = DEFAULT_SAMPLE,
    seed: int | None = None,
    *,
    everything: bool = False,
    progress: Callable[[int, int], None] | None = None,
) -> StudyCheck:
    """Check the study in ``folder``: plan, completeness, every run's digests, the
    manifest, the summary, a re-fought sample drawn from fresh randomness, kept replays.

    Args:
        folder: the study's output folder.
        sample: runs to re-fight (0: none).
        seed: the seed of the sample (default: drawn afresh, :func:`fresh_seed`).
        everything: re-fight every run (``verify --all``).
        progress: called with (runs re-fought, runs to re-fight) after each.

    Raises:
        StudyVerifyError: no study in ``folder``, or one that cannot be re-fought here.
        StoreError: the database cannot be opened as a study (one DuckDB cannot read
            through is a difference instead: the study is damaged).
    """
    path = Path(folder)
    try:
        store = _open(path)
    except StoreDamaged as exc:  # a study cut short or overwritten: damaged, not foreign
        check = StudyCheck(str(folder), 0, seed if seed is not None else fresh_seed())
        check.differences.append(str(exc))
        check.damaged = True
        return check
    check = StudyCheck(str(folder), 0, seed if seed is not None else fresh_seed())
    try:
        meta = store.meta()
        check.runs = store.count()
        if not _check_complete(store, meta, check):
            return check  # more rows than any plan: nothing more is read
        _check_plan(store, meta, check)
        row_ok = _check_row(store, meta, check)
        _check_points(store, check)
        if everything:
            sample = check.runs
        _check_digests(store, path, meta, check, sample >= check.runs)
        _check_manifest(store, path, check)
        if row_ok:  # the summary reads the row: one the plan does not make is not read further
            _check_summary(store, path, meta, check)
        else:
            check.notes.append("summary.json was not re-derived: the study row is not its plan's")
        if sample > 0:
            _check_runs(store, path, meta, sample, check, progress)
        return check
    except duckdb.Error as exc:  # damaged past what opening reads (the file's tail cut off)
        damaged_as = damaged(store.path, exc)
        if damaged_as is None:
            raise
        check.differences.append(damaged_as)
        check.damaged = True
        return check
    finally:
        store.close()


def verify_lines(check: StudyCheck) -> list[str]:
    """The check in words: each difference, then one line of verdict."""
    lines = [f"DIFFERS: {d}" for d in check.differences]
    lines += [f"note: {n}" for n in check.notes]
    fought = ", ".join(str(i) for i in check.sampled[:10]) or "none"
    # a seed that chose nothing is not said: a fresh one each time, the same check
    chosen = "every run: " if check.every_run else f"sample seed {check.sample_seed}: "
    if len(check.sampled) > 10:
        fought += f" … {len(check.sampled) - 10:,} more"
    kept = count(check.replays, "kept replay", spec=",")
    replays = f", {kept} byte for byte" if check.replays else ""
    if check.by_value:
        exact = check.replays - check.by_value
        replays = (
            f", {kept} the re-fought ones ({exact:,} byte for byte, "
            f"{check.by_value:,} by value, in their rules version's event shapes)"
        )
    rows = count(check.digests, "run's", "runs'", spec=",")
    digests = f"{rows} rows and kept replays match their digests; " if check.digests else ""
    matches = "matches" if check.files == 1 else "match"
    files = (
        f"{count(check.files, 'file', spec=',')} {matches} the manifest; " if check.files else ""
    )
    # what --all would do, unless it was done: every run was fought again
    done = ": every run re-fought" if check.every_run else "; --all fights every run"
    catch = (
        f"a run altered with its digests recomputed is caught with probability "
        f"{check.catch:.2%} ({len(check.sampled):,} of {check.runs:,}{done})"
    )
    if check.damaged:
        lines.append(
            f"{check.study}: {count(check.difference_count, 'difference', spec=',')}: its "
            "database is damaged, so nothing past the damage was checked"
        )
    elif check.ok:
        lines.append(
            f"OK: {check.study}: plan, seeds, every planned run present and summary.json "
            f"re-derived from {count(check.runs, 'run', spec=',')}; {digests}{files}"
            + (
                f"{count(len(check.sampled), 'run', spec=',')} re-fought identically ({chosen}"
                f"{fought}){replays}; {catch}"
                if check.sampled
                else f"no run re-fought (--sample 0){replays}; {catch}"
            )
        )
    else:
        again = (
            f" (sample seed {check.sample_seed}; repeat with --sample-seed {check.sample_seed})"
            if check.sampled and not check.every_run
            else ""
        )
        differences = count(check.difference_count, "difference", spec=",")
        lines.append(f"{check.study}: {differences}{again}")
    return lines
