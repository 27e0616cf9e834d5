"""``calibrated.yaml``: the scenario (or campaign) fitted, with the best point set.

Written by :func:`sim.calibrate.report.write_outputs` after the patch; like everything a
calibration writes, a function of the trials (no clock, no host).
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

from engine.safety.atomic import atomic_write_text
from engine.safety.text import one_line
from sim.batch.inputs.fieldpath import resolve_path
from sim.batch.inputs.target import campaign_file_data
from sim.calibrate.spec import CalibrationSpec
from sim.scenario.load import ScenarioError, dump_yaml, parse_yaml, validate_data
from sim.scenario.patch import set_fields

__all__ = ["SCENARIO", "battle_file", "write_calibrated"]

SCENARIO = "calibrated.yaml"
"""The scenario (or campaign) with the best point's values set."""

Keys = tuple[str | int, ...]
Edit = tuple[Keys, Any]
"""A field's keys and indexes (:func:`~sim.batch.inputs.fieldpath.resolve_path`) and its value."""

MARK = "calibrated"
"""The note before the comment of a line whose value the fit changed: ``# calibrated: hp was
24; <the comment>`` (:func:`sim.scenario.patch.set_fields`). No date: the header names the
fit, and the file is a function of the trials."""


def battle_file(battle: str) -> str:
    """The calibrated scenario of a campaign's battle, beside ``calibrated.yaml``."""
    return f"calibrated-{battle}.yaml"


def write_calibrated(spec: CalibrationSpec, params: dict[str, Any], head: str, out: Path) -> None:
    """``calibrated.yaml`` in ``out``: ``head`` (the comment naming the fit), then the scenario
    or campaign fitted with ``params`` set (a campaign's battles beside it:
    :func:`battle_file`)."""
    target = spec.target
    assert target is not None
    data = target.at(params)
    edits = [
        (resolve_path(target.data, f.path, target.filled()), params[f.path]) for f in spec.factors
    ]
    if target.kind == "campaign":
        text = _campaign_text(spec.target_file, data, edits, head, out)
    else:
        text = _scenario_text(spec.target_file, data, edits, head, out)
    atomic_write_text(out / SCENARIO, text)


def _scenario_text(
    file: Path | None, data: dict[str, Any], edits: list[Edit], head: str, out: Path
) -> str:
    """``head``, then the scenario ``file``'s own text with ``edits`` set (:func:`_in_place`),
    when the whole reads back as ``data``; else ``data`` written out whole, said so."""
    edited = _in_place(file, edits, head, out, partial(_reads_as_scenario, data, str(file)))
    if edited is not None:
        return edited
    return head + (
        "# (written from the scenario's data, every option at its value: its text could not "
        "be edited in place)\n" + dump_yaml(data, sort_keys=False, allow_unicode=True)
    )


def _campaign_text(
    file: Path | None, data: dict[str, Any], edits: list[Edit], head: str, out: Path
) -> str:
    """``head``, then the campaign ``file``'s own text with each battle's scenario named as
    :func:`battle_file` and the point's campaign fields set (:func:`_in_place`), when the
    whole reads back as that campaign; else its data written out whole, said so. Each
    battle's scenario, the file the campaign names with the battle's fields set, is written
    to :func:`battle_file` beside it first, as :func:`_scenario_text` writes a scenario."""
    sources = _battle_sources(file, len(data["battles"]))
    own = [(keys, value) for keys, value in edits if not _in_battle(keys)]
    battles = []
    for i, (battle, source) in enumerate(zip(data["battles"], sources, strict=True)):
        name = battle_file(battle["id"])
        where = f"# battle {one_line(battle['id'])} of the calibrated campaign ({SCENARIO}), "
        where += f"from {one_line(battle['source'])}:\n"
        mine = [(keys[3:], value) for keys, value in edits if _in_battle(keys) and keys[1] == i]
        text = _scenario_text(source, battle["scenario"], mine, head + where, out)
        atomic_write_text(out / name, text)
        own.append((("battles", i, "scenario"), name))
        entry = {"id": battle["id"], "scenario": name, "points": battle["points"]}
        if battle.get("reinforcements"):
            entry["reinforcements"] = battle["reinforcements"]
        battles.append(entry)
    meant = {**{k: v for k, v in data.items() if k != "battles"}, "battles": battles}
    edited = _in_place(file, own, head, out, partial(_reads_as_campaign, meant, str(file)))
    if edited is not None:
        return edited
    return head + (
        "# (written from the campaign's data: its text could not be edited in place)\n"
        + dump_yaml(meant, sort_keys=False, allow_unicode=True)
    )


def _in_battle(keys: Keys) -> bool:
    """Whether a campaign's field at ``keys`` is in a battle's scenario (its file's, not the
    campaign file's)."""
    return len(keys) > 3 and keys[0] == "battles" and keys[2] == "scenario"


def _battle_sources(file: Path | None, count: int) -> list[Path | None]:
    """Each battle's scenario file, as the campaign ``file`` names it; None for each where
    that file cannot be read as a campaign of ``count`` battles (its data is written)."""
    if file is not None:
        try:
            text = file.read_text(encoding="utf-8").removeprefix("\ufeff")
            battles = campaign_file_data(parse_yaml(text, str(file))[0], str(file))["battles"]
        except (OSError, UnicodeDecodeError, ScenarioError):
            battles = []
        if len(battles) == count:
            return [file.parent / battle["scenario"] for battle in battles]
    return [None] * count


def _in_place(
    file: Path | None, edits: list[Edit], head: str, out: Path, reads_back: Callable[[str], bool]
) -> str | None:
    """``head``, then ``file``'s own text with ``edits`` set where it holds them or added where
    it leaves them out (its sources, comments and the options it leaves at their defaults
    kept; the comment beside a value changed noted with what it was, :data:`MARK`:
    :func:`sim.scenario.patch.set_fields`) and an editor's schema line pointing at a relative
    path pointed at the same file from ``out`` — when ``reads_back`` the whole, header and
    all; None when there is no such text."""
    if file is None:
        return None
    try:
        original = file.read_text(encoding="utf-8").removeprefix("\ufeff")
    except (OSError, UnicodeDecodeError):
        return None
    edited = set_fields(original, edits, mark=MARK)
    if edited is None:
        return None
    text = head + _schema_from(edited, file.parent, out)
    return text if reads_back(text) else None


def _reads_as_scenario(data: dict[str, Any], name: str, text: str) -> bool:
    """Whether ``text`` reads as the scenario ``data``."""
    try:
        meant = validate_data(data, {}, name)[1].model_dump(mode="json")
        read = validate_data(*parse_yaml(text, name), name)[1]
    except ScenarioError:
        return False
    return bool(read.model_dump(mode="json") == meant)


def _reads_as_campaign(data: dict[str, Any], name: str, text: str) -> bool:
    """Whether ``text`` reads as the campaign file ``data``."""
    try:
        return campaign_file_data(parse_yaml(text, name)[0], name) == campaign_file_data(data, name)
    except ScenarioError:
        return False


_SCHEMA_LINE = re.compile(r"^(# yaml-language-server: \$schema=)(?!\w+:)(\S+)$", re.MULTILINE)
"""An editor's schema line naming a relative path (a URL, ``scheme:…``, is left alone)."""


def _schema_from(text: str, was: Path, out: Path) -> str:
    """``text`` with a relative schema path, written from folder ``was``, as seen from
    ``out``."""

    def moved(m: re.Match[str]) -> str:
        schema = (was / m[2]).resolve()
        return m[1] + Path(os.path.relpath(schema, out.resolve())).as_posix()

    return _SCHEMA_LINE.sub(moved, text)
