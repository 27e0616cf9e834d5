"""Why a ``--resume`` is refused: the settings of the folder's study that differ from the
command's, each named as the user gave it, with both values.

A study's plan (:meth:`~sim.batch.planning.plan.StudyPlan.identity`) is stored when it
starts; a ``--resume`` whose plan is not that one is refused (it would mix two studies'
runs in one table). The refusal names each setting that differs in the words of what
was typed, what the study was begun with and the command's beside it: ``batch``'s flags
(``begun with --runs 10 (now --runs 20)``), a study file's fields (``begun from a study
file with replications: 10 (now 20)``), or a :class:`~sim.batch.planning.plan.StudyPlan`'s
attributes for a plan made in Python (``begun with replications 10 (now 20)``). The plan's
digest of the scenario is said as the scenario file (``the scenario file tavern_brawl.yaml
(now the scenario file dungeon_skirmish.yaml)``), never as a key.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

__all__ = ["Begun", "Words", "differences_text"]

Words = Literal["plan", "flags", "file"]
"""Whose words a setting is said in: a StudyPlan's attributes, ``batch``'s flags, or a
study file's fields."""

FLAGS = {
    "seed": "--seed",
    "replications": "--runs",
    "factors": "--sweep",
    "design": "--design",
    "points": "--points",
    "crn": "--crn",
    "chunk_size": "--chunk-size",
    "until_ci": "--until-ci",
    "keep_replays": "--keep-replays",
}
"""``batch``'s flag for each setting of a plan (``study``'s for those it overrides), in the
order the refusal names them."""

FIELDS = {"keep_replays": "outputs.keep_replays"}
"""A study file's field for a setting, where it is not the setting's own name."""

_ORDER = ["target_digest", *FLAGS, "stopping", "seed_scheme", "overrides"]
"""The settings in the order they are named; any other after them, by name."""


@dataclass(frozen=True)
class Begun:
    """What the refusal knows of the two studies' targets besides their plans.

    Attributes:
        kind: ``"scenario"`` or ``"campaign"``, the command's.
        source: the command's scenario or campaign file.
        begun_kind: the stored study's (None: not recorded).
        begun_source: the stored study's file (None: not recorded).
        seed_given: the command gave ``--seed`` (``batch``; else the seed is the scenario's own).
    """

    kind: str
    source: str
    begun_kind: str | None = None
    begun_source: str | None = None
    seed_given: bool = True


def differences_text(
    stored: Mapping[str, Any], wanted: Mapping[str, Any], begun: Begun, words: Words
) -> str:
    """What the folder's study was begun with, each setting ``stored`` (its plan) and
    ``wanted`` (the command's) differ in said in ``words`` with the command's value beside
    it: ``begun with --runs 10 (now --runs 20)``."""
    keys = {k for k in stored.keys() | wanted.keys() if stored.get(k) != wanted.get(k)}
    if "until_ci" in keys:
        keys.discard("stopping")  # the rule follows --until-ci: said by it
    ordered = [k for k in _ORDER if k in keys] + sorted(keys - set(_ORDER))
    lead = "begun from a study file with " if words == "file" else "begun with "
    return lead + "; ".join(_difference(k, stored, wanted, begun, words) for k in ordered)


def _difference(
    key: str, stored: Mapping[str, Any], wanted: Mapping[str, Any], begun: Begun, words: Words
) -> str:
    """One setting: what the study was begun with, then ``(now …)`` the command's."""
    now, then = wanted.get(key), stored.get(key)
    if key == "target_digest":
        return _target(begun)
    if key == "overrides":
        return _overrides(stored, wanted, words)
    if key == "stopping":
        rule = "--until-ci" if words == "flags" else "until_ci"
        return f"the {rule} stopping rule {_plain(then)} (now {_plain(now)})"
    if key == "seed_scheme":
        return f"the seed scheme {_plain(then)} (now {_plain(now)})"
    if words == "flags" and key in FLAGS:
        if key == "seed":
            whose = "the campaign's" if begun.kind == "campaign" else "the scenario's"
            said = f"--seed {now}" if begun.seed_given else f"{whose} seed {now}"
            return f"seed {then} (now {said})"
        return f"{_flag(key, then)} (now {_flag(key, now)})"
    if words == "file":
        return f"{FIELDS.get(key, key)}: {_plain(then)} (now {_plain(now)})"
    return f"{key} {_plain(then)} (now {_plain(now)})"


def _target(begun: Begun) -> str:
    """The scenario (or campaign) file: another one, or the same one since changed."""
    now = f"the {begun.kind} file {begun.source}"
    then = f"the {begun.begun_kind or begun.kind} file {begun.begun_source}"
    if begun.begun_source is None or then == now:
        inside = " (or a scenario it names)" if begun.kind == "campaign" else ""
        return f"{now}{inside} as it was then (it has changed since)"
    return f"{then} (now {now})"


def _overrides(stored: Mapping[str, Any], wanted: Mapping[str, Any], words: Words) -> str:
    """The study file's fields a flag overrode, where the two plans differ in them (a
    ``batch`` command, which reads no study file, has none)."""
    was, now = stored.get("overrides") or {}, wanted.get("overrides") or {}
    if not isinstance(was, dict) or not isinstance(now, dict):  # a damaged plan
        return f"the study file's overrides {_plain(was)} (now {_plain(now)})"

    def said(field: str, record: Any, plan: Mapping[str, Any]) -> str:
        if isinstance(record, dict):
            return (
                f"{FLAGS.get(field, field)} {_plain(record.get('value'))} over the study "
                f"file's {field}: {_plain(record.get('file'))}"
            )
        if words == "flags" and plan is wanted:
            return "no study file"
        return f"the study file's {field}: {_plain(plan.get(field))}"

    return "; ".join(
        f"{said(f, was.get(f), stored)} (now {said(f, now.get(f), wanted)})"
        for f in sorted(was.keys() | now.keys())
        if was.get(f) != now.get(f)
    )


def _flag(key: str, value: Any) -> str:
    """A setting as ``batch``'s flags give it: ``--runs 20``, ``--crn``, ``no --until-ci``."""
    flag = FLAGS[key]
    if key == "factors":
        sweeps = [f"--sweep {_sweep(f)}" for f in value] if isinstance(value, list) else []
        return " ".join(sweeps) or "no --sweep"
    if value is None or value is False:
        return f"no {flag}"
    if value is True:
        return flag
    return f"{flag} {_plain(value)}"


def _sweep(factor: Any) -> str:
    """A stored factor as ``--sweep`` takes it: ``path=15,35`` or ``path=15..35``."""
    if not isinstance(factor, dict):
        return json.dumps(factor)
    path = factor.get("path")
    if isinstance(factor.get("values"), list):
        return f"{path}=" + ",".join(_plain(v) for v in factor["values"])
    rng = factor.get("range")
    if isinstance(rng, list) and len(rng) == 2:
        levels = f" ({factor['levels']} levels)" if factor.get("levels") is not None else ""
        return f"{path}={_plain(rng[0])}..{_plain(rng[1])}{levels}"
    return json.dumps(factor)


def _plain(value: Any) -> str:
    """A value as a study file writes it: ``20``, ``0.05``, ``true``, ``none``; a list of
    factors as ``path=15,35, path=-50..-20``."""
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return f"{value:g}"
    if isinstance(value, list) and all(isinstance(f, dict) and "path" in f for f in value):
        return ", ".join(_sweep(f) for f in value) or "none"
    if isinstance(value, (int, str)):
        return str(value)
    return json.dumps(value)
