"""A study file's runs, stopping width and points overridden from the command line.

``battlesim study STUDY.yaml --runs N --until-ci W --points K`` cuts a
shipped study down (or raises it) without editing its YAML. What was
overridden is recorded in the study's plan as ``overrides`` — each field the
study file names, with the file's value and the one run::

    "overrides": {"replications": {"file": 200, "value": 20}}

so a plan that overrides nothing is exactly the plan it always was, and
``--resume``, ``verify`` and the summary know the study is not the file's.
``--resume`` without the flags completes the study as it was begun (its
recorded overrides are taken again); a flag that asks for something else
than the folder's plan, or one the study file's design cannot take
(``--points`` of a grid, a Sobol' base sample that is not a power of two),
is refused with one line (:class:`OverrideError`).
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sim.batch.inputs.files import located
from sim.batch.planning.plan import StudyPlan
from sim.batch.planning.spec import StudySpec
from sim.batch.planning.stopping import pilot_problem
from sim.scenario.load import ScenarioError

__all__ = [
    "FLAGS",
    "OverrideError",
    "Overrides",
    "check_stopping",
    "override",
    "stored_overrides",
]

FLAGS = {"replications": "--runs", "until_ci": "--until-ci", "points": "--points"}
"""The plan field each flag overrides."""


class OverrideError(ValueError):
    """A flag the study file or the folder's study cannot take; the message says why."""


@dataclass(frozen=True)
class Overrides:
    """The flags given (None: not given)."""

    replications: int | None = None
    until_ci: float | None = None
    points: int | None = None

    def given(self) -> dict[str, Any]:
        """The fields given, in flag order."""
        return {k: getattr(self, k) for k in FLAGS if getattr(self, k) is not None}


def _check_design(plan: StudyPlan, points: int | None) -> None:
    if points is None:
        return
    if plan.design == "grid":
        raise OverrideError(
            "--points: the study file's design is grid (every combination of the factors' "
            "levels); --points applies to designs lhs, morris and sobol"
        )
    if plan.design == "sobol" and (points < 2 or points & (points - 1)):
        raise OverrideError(
            f"--points {points}: the study file's design is sobol, which needs a power of "
            "two (base samples)"
        )


def _flag(field: str, value: Any) -> str:
    return f"{FLAGS[field]} {value:g}" if isinstance(value, float) else f"{FLAGS[field]} {value}"


def _against_folder(given: dict[str, Any], stored: dict[str, Any]) -> None:
    """Refuse a flag whose value is not the one the folder's study was begun with."""
    was = stored.get("overrides", {})
    for field, value in given.items():
        before = stored.get(field)
        if before != value:
            how = (
                f"begun with {_flag(field, before)}"
                if field in was
                else f"planned with {field} {json.dumps(before)} (the study file's)"
            )
            raise OverrideError(
                f"{_flag(field, value)}: the study being resumed was {how}; a begun study "
                "keeps its plan: resume without the flag, or start it in another --out"
            )


def override(spec: StudySpec, flags: Overrides, stored: dict[str, Any] | None = None) -> StudySpec:
    """``spec`` with the flags applied and recorded in its plan.

    Args:
        spec: the study file, read.
        flags: the flags given.
        stored: the plan stored in the folder being resumed (None: a new study);
            its recorded overrides are taken for the flags not given.

    Raises:
        OverrideError: a flag conflicts with the study file's design or with
            the stored plan.
    """
    plan = spec.plan
    given = flags.given()
    _check_design(plan, flags.points)
    if stored is not None:
        _against_folder(given, stored)
        for field, record in stored.get("overrides", {}).items():
            if field in FLAGS and field not in given and isinstance(record, dict):
                given[field] = record.get("value")
    changed = {k: v for k, v in given.items() if getattr(plan, k) != v}
    if not changed:
        return spec
    record = {k: {"file": getattr(plan, k), "value": v} for k, v in changed.items()}
    new = dataclasses.replace(plan, **changed, overrides=record)
    return dataclasses.replace(spec, plan=new)


def check_stopping(spec: StudySpec) -> None:
    """Refuse an ``until_ci`` whose pilot would leave no confirmatory sample, each value
    named as the user gave it: the file's ``until_ci`` and ``replications`` or the flags
    ``--until-ci`` and ``--runs``, and the file's ``chunk_size`` (``study`` has no flag
    for it).

    Raises:
        ScenarioError: the file's ``until_ci``, located at its line (``FILE:LINE: until_ci: …``).
        OverrideError: ``--until-ci``'s, or that of a spec made in code (no file).
    """
    plan = spec.plan
    if plan.until_ci is None:
        return
    runs = "--runs" if "replications" in plan.overrides else "replications"
    flag = "until_ci" in plan.overrides
    chunk = "the study file's chunk_size" if flag else "chunk_size"
    problem = pilot_problem(plan.until_ci, plan.replications, plan.chunk_size, runs, chunk)
    if problem is None:
        return
    if flag:
        raise OverrideError(f"--until-ci {plan.until_ci:g}: {problem}")
    if not spec.file:  # a spec made in code, not read from a file: no line to name
        raise OverrideError(f"until_ci {plan.until_ci:g}: {problem}")
    raise ScenarioError([located(spec.file, spec.lines, ("until_ci",), problem)])


def stored_overrides(out: Path) -> dict[str, Any] | None:
    """The plan stored in ``out``'s study database, or None when it holds none.

    Raises:
        StoreError: the database cannot be read.
    """
    from sim.batch.storage.opening import DB_NAME  # noqa: PLC0415  # DuckDB only when resuming
    from sim.batch.storage.store import Store  # noqa: PLC0415

    db = out / DB_NAME
    if not db.is_file():
        return None
    store = Store.open(db, read_only=True)
    try:
        plan: dict[str, Any] = store.meta()["plan"]
        return plan
    finally:
        store.close()
