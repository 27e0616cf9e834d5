"""``calibrated.yaml``: the scenario (or campaign) fitted, with the best point set.

Written by :func:`sim.calibrate.report.write_outputs` after the patch; like everything a
calibration writes, a function of the trials (no clock, no host).
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

from engine.safety.atomic import atomic_write_text
from engine.safety.text import one_line
from sim.calibrate.spec import CalibrationSpec
from sim.scenario.load import dump_yaml

__all__ = ["SCENARIO", "battle_file", "write_calibrated"]

SCENARIO = "calibrated.yaml"
"""The scenario (or campaign) with the best point's values set."""

MARK = "calibrated"
"""The note before the comment of a line whose value the fit changed: ``# calibrated: hp was
24; <the comment>`` (:func:`sim.scenario.patch.set_fields`). No date: the header names the
fit, and the file is a function of the trials."""


def battle_file(battle: str) -> str:
    """The calibrated scenario of a campaign's battle, beside ``calibrated.yaml``."""
    return f"calibrated-{battle}.yaml"


def _campaign_file(data: dict[str, Any], out: Path, head: str) -> dict[str, Any]:
    """A calibrated campaign as a campaign file ``battlesim campaign`` reads: each battle's
    scenario, with the point set, written to :func:`battle_file` beside it and named there
    (a campaign names its battles' scenario files; the study form inlines them)."""
    battles = []
    for battle in data["battles"]:
        name = battle_file(battle["id"])
        where = f"# battle {one_line(battle['id'])} of the calibrated campaign ({SCENARIO}), "
        where += f"from {one_line(battle['source'])}:\n"
        text = dump_yaml(battle["scenario"], sort_keys=False, allow_unicode=True)
        atomic_write_text(out / name, head + where + text)
        entry = {"id": battle["id"], "scenario": name, "points": battle["points"]}
        if battle.get("reinforcements"):
            entry["reinforcements"] = battle["reinforcements"]
        battles.append(entry)
    return {**{k: v for k, v in data.items() if k != "battles"}, "battles": battles}


def write_calibrated(spec: CalibrationSpec, params: dict[str, Any], head: str, out: Path) -> None:
    """``calibrated.yaml`` in ``out``: ``head`` (the comment naming the fit), then the scenario
    or campaign fitted with ``params`` set (a campaign's battles beside it:
    :func:`battle_file`)."""
    assert spec.target is not None
    data = spec.target.at(params)
    if spec.target.kind == "campaign":
        data = _campaign_file(data, out, head)
        text = head + dump_yaml(data, sort_keys=False, allow_unicode=True)
    else:
        text = _scenario_text(spec, params, data, head, out)
    atomic_write_text(out / SCENARIO, text)


def _scenario_text(
    spec: CalibrationSpec, params: dict[str, Any], data: dict[str, Any], head: str, out: Path
) -> str:
    """``head``, then the scenario file's own text with the point's fields set (its sources,
    comments and the options it leaves at their defaults kept:
    :func:`sim.scenario.patch.set_fields`), when the whole reads back as ``data``; else
    ``data`` written out whole, said so. An editor's schema line pointing at a relative
    path is pointed at the same file from ``out``."""
    from sim.batch.inputs.fieldpath import resolve_path  # noqa: PLC0415
    from sim.scenario.load import ScenarioError, parse_yaml, validate_data  # noqa: PLC0415
    from sim.scenario.patch import set_fields  # noqa: PLC0415

    target = spec.target
    assert target is not None
    edited = None
    if spec.target_file is not None:
        try:
            original = spec.target_file.read_text(encoding="utf-8").removeprefix("\ufeff")
        except (OSError, UnicodeDecodeError):
            original = None
        if original is not None:
            edits = [
                (resolve_path(target.data, f.path, target.filled()), params[f.path])
                for f in spec.factors
            ]
            edited = set_fields(original, edits, mark=MARK)
    if edited is not None and spec.target_file is not None:
        edited = _schema_from(edited, spec.target_file.parent, out)
    if edited is not None:
        name = str(spec.target_file)
        try:  # the text as written, header and all
            meant = validate_data(data, {}, name)[1].model_dump(mode="json")
            read = validate_data(*parse_yaml(head + edited, name), name)[1]
        except ScenarioError:
            read = None
        if read is not None and read.model_dump(mode="json") == meant:
            return head + edited
    return head + (
        "# (written from the scenario's data, every option at its value: its text could not "
        "be edited in place)\n" + dump_yaml(data, sort_keys=False, allow_unicode=True)
    )


_SCHEMA_LINE = re.compile(r"^(# yaml-language-server: \$schema=)(?!\w+:)(\S+)$", re.MULTILINE)
"""An editor's schema line naming a relative path (a URL, ``scheme:…``, is left alone)."""


def _schema_from(text: str, was: Path, out: Path) -> str:
    """``text`` with a relative schema path, written from folder ``was``, as seen from
    ``out``."""

    def moved(m: re.Match[str]) -> str:
        schema = (was / m[2]).resolve()
        return m[1] + Path(os.path.relpath(schema, out.resolve())).as_posix()

    return _SCHEMA_LINE.sub(moved, text)
