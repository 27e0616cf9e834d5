"""unit_finals holds every ruleset's final unit rows; a study of the older shape still works."""

from __future__ import annotations

import csv
import json
import shutil
from collections import Counter
from pathlib import Path
from typing import Any

import duckdb
import pytest

from sim.batch import RunOptions, StudyPlan, load_target, run_study
from sim.scenario.load import load_scenario
from tests.batch.helpers import SCENARIOS, STONE_WALL, invoke, tables

LEGACY = ("side", "initial", "strength", "fatigue", "morale", "men_lost", "guns_lost")
"""The value columns of unit_finals before it held every ruleset's unit rows."""


def _study(scenario: Path, out: Path, runs: int, chunk: int = 5) -> Path:
    """A --jobs 1 study of ``runs`` runs of ``scenario`` in ``out``, no plots."""
    plan = StudyPlan(load_target(scenario), seed=7, replications=runs, chunk_size=chunk)
    run_study(plan, out, RunOptions(plots=False))
    return out


def _query(out: Path, sql: str) -> tuple[list[str], list[tuple[Any, ...]]]:
    """Column names and rows of ``sql`` over the study in ``out``."""
    con = duckdb.connect(str(out / "study.duckdb"), read_only=True)
    try:
        cur = con.execute(sql)
        rows = cur.fetchall()
        return [d[0] for d in cur.description], rows
    finally:
        con.close()


def _finals(out: Path) -> list[dict[str, Any]]:
    names, rows = _query(out, "SELECT * FROM unit_finals ORDER BY run_id, battle, unit")
    return [dict(zip(names, r, strict=True)) for r in rows]


def _losses(out: Path) -> dict[int, dict[str, Any]]:
    names, rows = _query(out, "SELECT * FROM runs ORDER BY run_id")
    return {r[0]: dict(zip(names, r, strict=True)) for r in rows}


@pytest.fixture(scope="module")
def musket(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Six runs of stone_wall.yaml."""
    return _study(STONE_WALL, tmp_path_factory.mktemp("musket"), 6, chunk=2)


def test_musket_keeps_its_columns_taken_from_the_details(musket: Path) -> None:
    """fatigue, morale, men_lost and guns_lost are typed columns equal to the details, and
    each side's men_lost and guns_lost add up to the run's loss columns."""
    names, _ = _query(musket, "SELECT * FROM unit_finals LIMIT 0")
    assert names == [
        "run_id", "battle", "battle_id", "unit", "side", "kind", "initial", "strength",
        "strength_unit", "status", "fatigue", "morale", "men_lost", "guns_lost", "details",
    ]  # fmt: skip
    types = dict(_query(musket, "DESCRIBE unit_finals")[1][k][:2] for k in range(15))
    assert [types[c] for c in ("fatigue", "morale", "men_lost", "guns_lost")] == [
        "BIGINT", "VARCHAR", "BIGINT", "BIGINT",
    ]  # fmt: skip
    rows, runs = _finals(musket), _losses(musket)
    sums: Counter[tuple[int, str, str]] = Counter()
    for r in rows:
        assert {k: r[k] for k in ("fatigue", "morale", "men_lost", "guns_lost")} == json.loads(
            r["details"]
        )
        sums[r["run_id"], r["side"], "men"] += r["men_lost"]
        sums[r["run_id"], r["side"], "guns"] += r["guns_lost"]
    assert len(rows) == 6 * 7 and len(runs) == 6
    for run_id, run in runs.items():
        for side in ("usa", "csa"):
            assert sums[run_id, side, "men"] == run[f"{side}_men_lost"]
            assert sums[run_id, side, "guns"] == run[f"{side}_guns_lost"]


def test_musket_status_and_strength_follow_the_scenario(musket: Path) -> None:
    """Each unit's kind and initial strength are the scenario's (guns for artillery), and its
    status is its morale word, empty when good."""
    _, sc = load_scenario(STONE_WALL)
    spec = {u.id: u for side in sc.sides for u in side.units}  # type: ignore[attr-defined]
    for r in _finals(musket):
        u = spec[r["unit"]]
        assert (r["kind"], r["initial"]) == (u.kind, u.strength)
        assert r["strength_unit"] == ("guns" if u.kind == "artillery" else "men")
        if r["morale"] == "good":
            assert r["status"] == ""
        elif r["status"] != "left the field":
            assert r["status"] == r["morale"]


def test_flattop_stores_ship_task_force_and_strike_rows(tmp_path: Path) -> None:
    """Ships hold hits left (damage - hits) in their scenario task force, a task force its
    ships (a JSON column); sunk and crippled ships per side are the run's losses; the
    details' typed columns equal the details."""
    out = _study(SCENARIOS / "carrier_duel.yaml", tmp_path, 4)
    _, sc = load_scenario(SCENARIOS / "carrier_duel.yaml")
    fleet = {
        ship.id: tf.id
        for side in sc.sides  # type: ignore[attr-defined]
        for tf in side.task_forces
        for ship in tf.ships
    }
    names, _ = _query(out, "SELECT * FROM unit_finals LIMIT 0")
    assert {"hits", "damage", "task_force", "origin", "target"} <= set(names)
    lost: Counter[tuple[int, str, str]] = Counter()
    for r in _finals(out):
        details = json.loads(r["details"])
        nested = {k for k, v in details.items() if isinstance(v, list | dict)}
        assert {k: json.loads(r[k]) if k in nested else r[k] for k in details} == details
        if r["kind"] == "task_force":
            assert json.loads(r["ships"]) == [s for s, tf in fleet.items() if tf == r["unit"]]
        if r["unit"] in fleet:
            assert details["task_force"] == fleet[r["unit"]]
            assert (r["strength"], r["initial"]) == (details["damage"] - details["hits"],
                                                     details["damage"])  # fmt: skip
            assert r["status"] in ("", "crippled", "sunk") and r["strength_unit"] == "hits"
            lost[r["run_id"], r["side"], r["status"]] += 1
    for run_id, run in _losses(out).items():
        for side in ("blue", "red"):
            assert lost[run_id, side, "sunk"] == run[f"{side}_ships_sunk_lost"]
            assert lost[run_id, side, "crippled"] == run[f"{side}_ships_crippled_lost"]


def test_becmi_stores_hit_points_and_dead_and_fled_words(tmp_path: Path) -> None:
    """Each combatant starts at its scenario hit points; dead and fled words per side are the
    run's dead and fled losses, and hp lost is initial minus what is left above 0."""
    path = SCENARIOS / "tavern_brawl.yaml"
    out = _study(path, tmp_path, 8)
    hp = {"thorgrim": 24, "grub": 6, "snaga": 5}  # tavern_brawl.yaml
    lost: Counter[tuple[int, str, str]] = Counter()
    for r in _finals(out):
        assert (r["initial"], r["strength_unit"]) == (hp[r["unit"]], "hp")
        assert (r["cover"], r["cover_kind"]) == ("none", "soft")
        words = r["status"].split(", ") if r["status"] else []
        for word in ("dead", "fled"):
            lost[r["run_id"], r["side"], word] += word in words
        lost[r["run_id"], r["side"], "hp"] += int(r["initial"] - max(r["strength"], 0))
    assert sum(v for (_, _, w), v in lost.items() if w == "dead") > 0
    for run_id, run in _losses(out).items():
        for side in ("thorgrim", "orcs"):
            for word in ("dead", "fled", "hp"):
                assert lost[run_id, side, word] == run[f"{side}_{word}_lost"]


def _make_legacy(out: Path) -> None:
    """Turn the study in ``out`` into the shape an older battlesim wrote: a unit_finals table
    of fixed columns (BIGINT strengths), no unit_rows."""
    con = duckdb.connect(str(out / "study.duckdb"))
    try:
        con.execute(
            "CREATE TABLE legacy AS SELECT run_id, battle, battle_id, unit, side, "
            "initial::BIGINT AS initial, strength::BIGINT AS strength, fatigue, morale, "
            "men_lost, guns_lost FROM unit_finals"
        )
        con.execute("DROP VIEW unit_finals")
        con.execute("DROP TABLE unit_rows")
        con.execute("ALTER TABLE legacy RENAME TO unit_finals")
    finally:
        con.close()


def test_a_study_of_the_older_shape_resumes_in_its_shape_and_exports(
    musket: Path, tmp_path: Path
) -> None:
    """An older study cut after 4 of 6 runs resumes to exactly the older study of 6 runs
    (its unit_finals columns and values), and exports its unit_finals as they are."""
    whole, cut = tmp_path / "whole", tmp_path / "cut"
    shutil.copytree(musket, whole)
    _make_legacy(whole)
    shutil.copytree(whole, cut)
    con = duckdb.connect(str(cut / "study.duckdb"))
    con.execute("DELETE FROM unit_finals WHERE run_id >= 4")
    con.execute("DELETE FROM runs WHERE run_id >= 4")
    con.close()
    plan = StudyPlan(load_target(STONE_WALL), seed=7, replications=6, chunk_size=2)
    result = run_study(plan, cut, RunOptions(plots=False, resume=True))
    assert (result.ran, result.committed) == (2, 6)
    assert tables(cut) == tables(whole)
    names, _ = _query(cut, "SELECT * FROM unit_finals LIMIT 0")
    assert names == ["run_id", "battle", "battle_id", "unit", *LEGACY]
    exported = invoke("export", cut, "--format", "csv")
    assert exported.exit_code == 0, exported.output
    with (cut / "export" / "unit_finals.csv").open(newline="") as fh:
        header, *rows = list(csv.reader(fh))
    assert header == names and len(rows) == 6 * 7
