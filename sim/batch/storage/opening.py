"""Opening a study: its plan checked, its database created or reopened to resume.

A new study's design points are checked before anything is written; a
resumed study's stored plan must equal the one given.
"""

from __future__ import annotations

import dataclasses
import json
import shutil
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any, get_args

from pydantic import ValidationError

from engine.canonical import canonical_json, digest
from engine.replayfile.formats import DERIVATIONS, derivation_of
from engine.version import ENGINE_VERSION, FORMAT_VERSION
from sim.batch.execution.worker import prepare
from sim.batch.inputs.fieldpath import PathError, overlap, resolve_path, unsettable
from sim.batch.inputs.guard import DB_NAME, building
from sim.batch.inputs.seeds import DOMAIN
from sim.batch.inputs.target import Target
from sim.batch.planning.design import Design
from sim.batch.planning.factors import decimal_reason, stored_factor, unsweepable
from sim.batch.planning.plan import StudyPlan
from sim.batch.planning.resumed import Begun, Words, differences_text
from sim.batch.planning.stopping import pilot_problem
from sim.batch.storage.store import (
    BIGINT_MAX,
    BIGINT_MIN,
    Store,
    StoreError,
    abandoned,
    loss_columns,
    not_ours,
)
from sim.batch.storage.units import start_details
from sim.scenario.load import ScenarioError
from sim.text.grammar import count

__all__ = [
    "DB_NAME",
    "FactorRefused",
    "PlanDiffers",
    "PointError",
    "StudyError",
    "fresh_points",
    "open_store",
    "other_dice",
]


class StudyError(ValueError):
    """A study that cannot start: bad plan, output in the way, nothing to resume."""


class FactorRefused(StudyError):
    """A factor the scenario cannot take (``--sweep PATH: …``): a path that leads nowhere,
    one swept twice, one that may not be varied. A command names the file swept before it."""


class PlanDiffers(StudyError):
    """``--resume`` of a folder whose study was begun with other settings.

    The message says each setting that differs with both values as a plan made in Python
    names them (``begun with replications 10 (now 20)``); :meth:`said` says them
    in a command's words, ``batch``'s flags or a study file's fields
    (:mod:`sim.batch.planning.resumed`).

    Attributes:
        folder: the study folder, as given.
        stored: the plan stored in it.
        wanted: the command's plan (:meth:`StudyPlan.identity`).
        begun: the two studies' targets.
    """

    def __init__(
        self, folder: str, stored: dict[str, Any], wanted: dict[str, Any], begun: Begun
    ) -> None:
        self.folder, self.stored, self.wanted, self.begun = folder, stored, wanted, begun
        super().__init__(self.said("plan"))

    def said(self, words: Words, *, seed_given: bool = True) -> str:
        """The refusal in ``words``; ``seed_given``: ``batch`` was given ``--seed`` (else its
        seed is the scenario's own, and is said so)."""
        begun = dataclasses.replace(self.begun, seed_given=seed_given)
        return (
            f"--resume: {self.folder!r} holds a study "
            f"{differences_text(self.stored, self.wanted, begun, words)}: a begun study keeps "
            "its plan, so resume it as it was begun, or start this one in another --out"
        )


class PointError(StudyError):
    """A design point no run could fight: a value its factor gave that the scenario refuses.

    Attributes:
        field: the scenario's field that refused it ("" when none is named).
        point: the design point's values, by path.
        reason: the scenario's message, alone.
        path: the factor's path (a key of ``point``) that leads to ``field``, as its factor
            names it ("" when none does).
        index: the design point's number (None when not known).
    """

    def __init__(
        self,
        message: str,
        field: str = "",
        point: dict[str, Any] | None = None,
        reason: str = "",
        path: str = "",
        index: int | None = None,
    ) -> None:
        super().__init__(message)
        self.field, self.point, self.reason = field, point or {}, reason or message
        self.path, self.index = path, index


def _meta(plan: StudyPlan) -> dict[str, Any]:
    ruleset = plan.target.ruleset()
    try:
        own = version("battlesim")
    except PackageNotFoundError:  # running from a source tree
        own = "unknown"
    return {
        "name": plan.name or plan.target.name,
        "kind": plan.target.kind,
        "source": plan.target.source,
        "ruleset": ruleset.name,
        "ruleset_version": ruleset.version,
        "engine_version": ENGINE_VERSION,
        "battlesim_version": own,
        "rules_digest": digest(ruleset.rules_data()),
        "target_digest": plan.target.digest(),
        "seed": plan.seed,
        "seed_scheme": DOMAIN,
        "crn": plan.crn,
        "replications": plan.replications,
        "design": plan.design,
        "design_points": len(plan.design_points()),
        "chunk_size": plan.chunk_size,
        "until_ci": plan.until_ci,
        "keep_replays": plan.keep_replays,
        "factors": [f.stored() for f in plan.factors],
        "sides": [[sid, name, kinds] for sid, (name, kinds) in plan.target.sides().items()],
        "plan": plan.identity(),
        "target": plan.target.as_json(),
    }


def _check(plan: StudyPlan) -> list[dict[str, Any]]:
    """The design points, after checking the plan can run.

    Raises:
        StudyError: a bad path, an empty design or bad numbers.
    """
    if plan.replications < 1:
        raise StudyError("--runs must be at least 1")
    if plan.chunk_size < 1:
        raise StudyError("--chunk-size must be at least 1")
    if plan.until_ci is not None and not 0 < plan.until_ci < 0.5:
        raise StudyError("--until-ci W needs 0 < W < 0.5 (a half-width of a probability)")
    if plan.until_ci is not None:
        w = plan.until_ci
        problem = pilot_problem(w, plan.replications, plan.chunk_size, "--runs", "--chunk-size")
        if problem is not None:
            raise StudyError(f"--until-ci {w:g}: {problem}")
    _check_paths(plan)
    try:
        points = plan.design_points()
    except ValueError as exc:
        raise StudyError(str(exc)) from None
    for i, point in enumerate(points):
        _check_point(plan, i, point)
    if any(isinstance(v, dict | list) for f in plan.factors for v in f.values or []):
        _same_ids(plan, points)  # a whole side or unit as a factor's value may rename it
    return points


def _check_paths(plan: StudyPlan) -> None:
    """Every factor's path leads to a field a factor may vary, and no two sweep one field.

    Raises:
        FactorRefused: a path that leads nowhere, sweeps what another sweeps (the same field,
            named the same way or otherwise, or a field inside the other's), or may not be
            varied (:func:`~sim.batch.inputs.fieldpath.unsettable`, as ``run --set``
            refuses it, and :func:`~sim.batch.planning.factors.unsweepable`).
    """
    for f in plan.factors:
        try:
            plan.target.check_path(f.path)
        except PathError as exc:
            raise FactorRefused(f"--sweep {f.path}: {exc}") from None
    paths = [f.path for f in plan.factors]
    fields = [_field(plan, p) for p in paths]  # an item by its id and by its index: one field
    clash = overlap(fields)
    if clash is not None:
        twice, first = paths[clash[0]], paths[clash[1]]
        if fields[clash[0]] == fields[clash[1]]:
            also = f", as {first} too" if first != twice else ""
            raise FactorRefused(
                f"--sweep {twice}: the field is swept twice{also} (give its values once)"
            )
        raise FactorRefused(
            f"--sweep {twice}: sweeps what --sweep {first} sweeps (give one of them)"
        )
    for path in paths:
        why = unsettable(path) or unsweepable(path)
        if why is not None:
            raise FactorRefused(f"--sweep {path}: {why}")


def _same_ids(plan: StudyPlan, points: list[dict[str, Any]]) -> None:
    """Every design point has the base's sides and units, by id.

    Raises:
        StudyError: a point renames, adds or drops one.
    """
    base = plan.target.identities()
    for i, point in enumerate(points):
        at = Target(plan.target.kind, plan.target.source, plan.target.at(point)).identities()
        if at != base:
            shown = ", ".join(f"{k}={json.dumps(v)}" for k, v in point.items())
            raise StudyError(
                f"design point {i} ({shown[:200]}) has sides {at[0]} and units {at[1]}, not "
                f"the battle's {base[0]} and {base[1]}: a study compares the same sides and "
                "units at every point, read by their ids"
            )


def _field(plan: StudyPlan, path: str) -> tuple[str | int, ...] | str:
    """The keys and indexes ``path`` walks in the target (the path as written, where it
    leads to no field: refused later, on its own)."""
    try:
        return resolve_path(plan.target.data, path, plan.target.filled())
    except PathError:
        return path


def _check_point(plan: StudyPlan, index: int, point: dict[str, Any]) -> None:
    """Refuse a design point no run could fight, before the study starts.

    A value the schema refuses (``--sweep turns.limit=-5``) would otherwise fail
    every run of its point, and an integer beyond the database's 64 bits
    would leave a study that cannot be opened.

    Raises:
        StudyError: the point's values do not make a valid scenario (campaign).
    """
    shown = ", ".join(f"{k}={json.dumps(v)}" for k, v in point.items())
    for path, value in point.items():
        if type(value) is int and not BIGINT_MIN <= value <= BIGINT_MAX:
            why = f"out of range (a study stores whole numbers from {BIGINT_MIN} to {BIGINT_MAX})"
            raise PointError(
                f"design point {index} ({path}={value}): {why}",
                point=point,
                reason=why,
                path=path,
                index=index,
            )
    try:
        prepare(plan.target, point)
    except ScenarioError as exc:
        p = exc.problems[0]
        where = f"{p.field}: " if p.field else ""
        reason = decimal_reason(plan.factors, p.field, p.message)
        # the factor that leads to the field, however each names it (a campaign's problem
        # names its battle by id, its side by index: battles.day2.scenario.sides.0.…)
        field = _field(plan, p.field)
        path = next((k for k in point if _field(plan, k) in (field, p.field)), "")
        raise PointError(
            f"design point {index} ({shown}) is not a valid scenario: {where}{reason}",
            p.field,
            point,
            reason,
            path,
            index,
        ) from None
    except ValidationError as exc:
        err = exc.errors()[0]
        where = ".".join(str(x) for x in err["loc"])
        raise PointError(
            f"design point {index} ({shown}) is not a valid campaign: {where}: {err['msg']}"
        ) from None


def fresh_points(plan: StudyPlan, out: Path) -> list[dict[str, Any]]:
    """The design points of a new study in ``out``, checked before anything is written.

    Raises:
        StudyError: ``out`` already holds a study, or the plan cannot run.
    """
    db = out / DB_NAME
    if abandoned(db):  # a study killed as its database was made: nothing in it
        for leftover in (db, db.with_name(db.name + ".wal")):
            leftover.unlink(missing_ok=True)
    if db.exists():
        try:
            Store.open(db, read_only=True).close()
        except StoreError as exc:  # --resume would refuse it too: say so now
            raise StudyError(
                f"{exc}: choose another --out (there is no study to --resume)"
            ) from None
        raise StudyError(
            f"{str(db)!r} already holds a study: --resume completes it, or choose another --out"
        )
    return _check(plan)


def other_dice(stored: dict[str, Any], where: str) -> str | None:
    """Why a study begun with other dice cannot go on here (None when it can).

    A study's plan records the replay format its runs were fought in (none:
    before format 5).  A study begun under random derivation 1 completed or
    rerun with derivation 2's dice would mix two battles' worth of dice in
    one table, so it is refused, never mixed; so is a study of a newer
    battlesim, and a plan recording a format no battlesim writes (edited).
    """
    begun = stored.get("format_version", 4)
    if type(begun) is int and begun == FORMAT_VERSION:
        return None
    if type(begun) is int and begun > FORMAT_VERSION:
        return (
            f"the study in {where!r} was fought with the dice of replay format {begun}, "
            f"newer than this battlesim writes ({FORMAT_VERSION}): upgrade battlesim"
        )
    if type(begun) is not int or begun not in DERIVATIONS:
        return (
            f"the study in {where!r} records replay format {json.dumps(begun)}, "
            "which no battlesim writes: its plan is damaged"
        )
    return (
        f"the study in {where!r} was fought with the dice of replay format {begun} "
        f"(random derivation {derivation_of(begun)}); this battlesim fights with "
        f"format {FORMAT_VERSION}'s (derivation {derivation_of(FORMAT_VERSION)}), so it "
        "cannot complete or rerun it: start it again in another folder"
    )


def open_store(plan: StudyPlan, out: Path, points: list[dict[str, Any]] | None) -> Store:
    """Create the study's database with ``points``, or (None) open it to resume.

    Raises:
        StudyError: nothing to resume, or the stored study is not this plan.
    """
    db = out / DB_NAME
    # the database, its log, and the folder DuckDB spills to (``<db>.tmp``, made when needed)
    for name in (db, db.with_name(db.name + ".wal"), db.with_name(db.name + ".tmp")):
        if name.is_symlink():  # DuckDB would write through it, out of the study
            raise StudyError(
                f"{str(name)!r} is a symbolic link; battlesim writes a study only into "
                "files it made: remove it"
            )
        problem = not_ours(name, folder=name.suffix == ".tmp")
        if problem is not None:
            raise StudyError(
                f"{str(name)!r} is {problem}; battlesim writes a study only into files it "
                "made: remove it"
            )
    killed = building(out, DB_NAME)  # a study killed as its database was made: not one
    for leftover in killed:
        shutil.rmtree(leftover, ignore_errors=True)
    if points is not None:
        out.mkdir(parents=True, exist_ok=True)
        details = start_details(plan.target.scenarios())
        store = Store.create(db, _meta(plan), points, plan.target.sides(), details)
        store.cap_memory(_planned_rows(plan))
        return store
    if not db.is_file() and not killed:
        raise StudyError(f"--resume: no study to resume in {str(out)!r}")
    if not db.is_file() or abandoned(db):
        raise StudyError(
            f"--resume: no study to resume in {str(out)!r}: its database holds nothing (a "
            "study killed as it was made); run the command again without --resume"
        )
    store = Store.open(db)
    stored = _as_today(store.meta()["plan"])
    wanted = json.loads(json.dumps(plan.identity()))  # tuples as lists, as stored
    problem = other_dice(stored, str(out))
    if problem is not None:
        store.close()
        raise StudyError(f"--resume: {problem}")
    begun = store.meta().get("source")
    if stored != wanted:
        kind = store.meta().get("kind")
        store.close()
        raise PlanDiffers(
            str(out),
            stored,
            wanted,
            Begun(
                plan.target.kind,
                plan.target.source,
                kind if isinstance(kind, str) else None,
                begun if isinstance(begun, str) else None,
            ),
        )
    # a scenario's replays name its file; a campaign's name its battles' (not the campaign's)
    if plan.target.kind == "scenario" and begun is not None and begun != plan.target.source:
        store.close()
        raise StudyError(
            f"--resume: the study in {str(out)!r} was begun from {begun!r}, not "
            f"{plan.target.source!r} (the same battle, but its replays name the file): "
            "resume it with that file"
        )
    problem = _resumed_row(store, plan)
    if problem is not None:
        store.close()
        raise StudyError(f"--resume: {problem}")
    store.cap_memory(_planned_rows(plan))
    return store


def _as_today(plan: Any) -> Any:
    """A stored plan with its factors as today's are stored (:func:`stored_factor`): a study
    stored with a values factor's ``"type"`` is the study it always was."""
    if not isinstance(plan, dict) or not isinstance(plan.get("factors"), list):
        return plan  # a damaged plan: compared as it is, and said to differ
    factors = [stored_factor(f) if isinstance(f, dict) else f for f in plan["factors"]]
    return {**plan, "factors": factors}


_PLAN_COPIES = (
    "seed",
    "seed_scheme",
    "replications",
    "design",
    "crn",
    "chunk_size",
    "until_ci",
    "keep_replays",
    "factors",
    "target_digest",
)
"""The study row's fields that copy its stored plan's (``plan``), as :func:`_meta` writes them."""


def row_mismatches(meta: dict[str, Any], target: Target, points: int) -> list[str]:
    """The study row's fields that are not what its stored plan (``meta["plan"]``) and
    ``target`` make, ``points`` the design points there are (what ``verify`` and a
    ``--resume`` hold the row to).

    The summary, exports and readers take the sides' names, the loss columns and the
    factors from the row, and the run digests do not cover them: a row whose sides were
    swapped, resealed, credited each army with the other's battles. The fields the row only
    records (its name, the battlesim and engine versions that made it) are not compared;
    the rules are, by :func:`rules_differ`.
    """
    plan = meta["plan"]
    wrong = [key for key in _PLAN_COPIES if key in plan and meta[key] != plan[key]]
    sides = target.sides()
    derived = {
        "kind": target.kind,
        "source": target.source,
        "ruleset": target.ruleset().name,
        "sides": [[sid, name, kinds] for sid, (name, kinds) in sides.items()],
        "loss_columns": [list(x) for x in loss_columns(sides)],
        "design_points": points,
    }
    wrong += [key for key, value in derived.items() if json.loads(json.dumps(value)) != meta[key]]
    if "design" not in plan and meta["design"] not in get_args(Design):  # a plan without one
        wrong.append("design")
    return wrong


def rules_differ(meta: dict[str, Any], target: Target) -> tuple[str, str] | None:
    """The version and rules digest this battlesim fights ``target`` under, when the study
    row names others (the study was fought under other rules), else None."""
    ruleset = target.ruleset()
    fights = (ruleset.version, digest(ruleset.rules_data()))
    return fights if (meta["ruleset_version"], meta["rules_digest"]) != fights else None


def _resumed_row(store: Store, plan: StudyPlan) -> str | None:
    """Why the study row or its runs are not what ``plan`` makes, or None.

    The plan's identity matched; the row's copies of it, its sides and loss columns (which
    the summary reads), its rules, and the runs' numbers must too. An edited row crashed
    the resume's summary (``TypeError``), a run of no design point its start
    (``IndexError``), and a study begun under other rules would have been finished under
    these, its runs fought under two rule sets.
    """
    meta = store.meta()
    fights = rules_differ(meta, plan.target)
    if fights is not None:
        return (
            f"the study in {str(store.path.parent)!r} was begun under {meta['ruleset']} rules "
            f"version {meta['ruleset_version']} ({meta['rules_digest']}); this battlesim "
            f"fights version {fights[0]}: its runs would be fought under two rule sets — "
            "finish it with the battlesim that began it, or start a new study"
        )
    points = plan.design_points()
    # the source is compared before, in its own words (and a campaign's file may move)
    wrong = [k for k in row_mismatches(meta, plan.target, len(points)) if k != "source"]
    if wrong:
        return (
            f"{store.path}: damaged: the study row's {', '.join(wrong)} "
            f"{'is' if len(wrong) == 1 else 'are'} not its plan's (edited since it was written?)"
        )
    if canonical_json(points) != canonical_json(store.points()):
        return f"{store.path}: damaged: the stored design points are not the plan's design"
    row = store.con.execute(
        "SELECT count(*) FROM runs WHERE point < 0 OR point >= ? OR replication < 0 "
        "OR replication >= ? OR run_id <> point * ? + replication",
        [meta["design_points"], plan.replications, plan.replications],
    ).fetchone()
    if row is not None and row[0]:
        return (
            f"{store.path}: damaged: {count(row[0], 'run')} whose point or number is not the plan's"
        )
    return None


def _planned_rows(plan: StudyPlan) -> int:
    """The rows the study's keyed tables may hold: a run's row and its units' final rows
    for every run planned (the most, with ``until_ci``)."""
    units = sum(len(rs.units(sc, rs.initial_state(sc))) for rs, sc in plan.target.scenarios())
    return plan.point_count() * plan.replications * (1 + units)
