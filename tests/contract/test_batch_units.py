"""A study stores every installed ruleset's final unit rows, a plugin's status and details too."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import duckdb
import pytest

from sim.api import load_replay
from sim.batch import RunOptions, StudyPlan, load_target, run_study
from sim.batch.execution.worker import RunSpec, fight, prepare, run_rows
from sim.runner import recorded_draws
from tests.contract.cases import CASES, Case
from tests.contract.toy import SCENARIOS

PIPS = {"ash": 3, "bo": 2, "cy": 4}
"""Each fighter's pips in pips_duel.yaml."""


def _study(scenario: Path, out: Path, runs: int) -> Path:
    run_study(
        StudyPlan(load_target(scenario), seed=5, replications=runs), out, RunOptions(plots=False)
    )
    return out


def _select(out: Path, sql: str) -> tuple[list[str], list[tuple[Any, ...]]]:
    with duckdb.connect(str(out / "study.duckdb"), read_only=True) as con:
        cur = con.execute(sql)
        rows = cur.fetchall()
        return [d[0] for d in cur.description], rows


def test_a_pips_study_stores_the_toys_status_words_and_details(tmp_path: Path) -> None:
    """Each fighter starts at its scenario pips, is `down` exactly when none is left, has no
    details ({} and no detail column), and its band's pips lost add up to the run's."""
    out = _study(SCENARIOS[0], tmp_path / "s", 12)
    names, rows = _select(out, "SELECT * FROM unit_finals ORDER BY run_id, battle, unit")
    assert names == [
        "run_id", "battle", "battle_id", "unit", "side", "kind", "initial", "strength",
        "strength_unit", "status", "details",
    ]  # fmt: skip
    lost: Counter[tuple[int, str]] = Counter()
    for run_id, battle, battle_id, unit, side, kind, initial, strength, what, status, d in rows:
        assert (battle, battle_id, kind, what, d) == (0, None, "fighter", "pips", "{}")
        assert initial == PIPS[unit] and 0 <= strength <= initial
        assert status == ("down" if strength == 0 else "")
        lost[run_id, side] += int(initial - strength)
    _, runs = _select(out, "SELECT run_id, red_pips_lost, blue_pips_lost FROM runs")
    assert len(runs) == 12 and len(rows) == 12 * 3
    assert sorted(runs) == sorted((r, lost[r, "red"], lost[r, "blue"]) for r, _, _ in runs)
    assert any(status == "down" for *_, status, _d in rows)


@pytest.mark.parametrize("case", CASES, ids=str)
def test_a_studys_unit_finals_are_the_rulesets_unit_rows(case: Case, tmp_path: Path) -> None:
    """Every installed ruleset: run 1's stored rows equal its final UnitRows fought again with
    the run's seed (side, kind, measures, status words, details)."""
    if case.scenario is None:
        pytest.skip("no scenario (check-ruleset's ships-a-scenario fails it)")
    scenario = case.scenario
    out = _study(scenario, tmp_path / "s", 2)
    (seed,) = _select(out, "SELECT seed FROM runs WHERE run_id = 1")[1][0]
    _, stored = _select(
        out,
        "SELECT battle, unit, side, kind, initial, strength, strength_unit, status, details "
        "FROM unit_finals WHERE run_id = 1 ORDER BY battle, unit",
    )
    fought = fight(prepare(load_target(scenario), {}), seed)
    expected = sorted(
        (k, u.id, u.side, u.kind, u.initial.value, u.strength.value, u.strength.unit,
         ", ".join(u.status), u.details)
        for k, (_, ruleset, state, scenario) in enumerate(fought.battles)
        for u in ruleset.units(scenario, state)
    )  # fmt: skip
    assert [(*r[:-1], json.loads(r[-1])) for r in stored] == expected and expected


@pytest.mark.parametrize("case", CASES, ids=str)
def test_each_sides_draws_are_the_draws_its_units_events_record(case: Case, tmp_path: Path) -> None:
    """Every installed ruleset and both plugins: the draws counted while fighting, by unit,
    add up to the Draw records of every event of the run's replay; a side's draws column is
    the sum over its units (read from the contract's unit rows), and no unit's count is
    anything but a unit row's id or None (no unit's process: a turn's end, a referee)."""
    if case.scenario is None:
        pytest.skip("no scenario (check-ruleset's ships-a-scenario fails it)")
    target = load_target(case.scenario)
    prepared = prepare(target, {})
    sides = tuple(target.sides())
    row, finals, kept = run_rows(prepared, RunSpec(0, 0, 0, 77, keep_replay=True), (), sides)
    fought = fight(prepared, 77)
    recorded = 0
    for k, (battle, lines) in enumerate(kept):
        path = tmp_path / f"{k}-{battle}.jsonl"
        path.write_text("".join(f"{line}\n" for line in lines))
        recorded += sum(recorded_draws(e) for e in load_replay(path).events)
    assert sum(n for by_unit in fought.draws for n in by_unit.values()) == recorded > 0
    units = {(f[1], f[3]): f[4] for f in finals}  # (battle, unit) -> side; f[0]: run id
    for k, by_unit in enumerate(fought.draws):
        assert all(u is None or (k, u) in units for u in by_unit)
    by_side = dict.fromkeys(sides, 0)
    for k, by_unit in enumerate(fought.draws):
        for unit, n in by_unit.items():
            if unit is not None:
                by_side[units[k, unit]] += n
    assert row[11 : 11 + len(sides)] == tuple(by_side[s] for s in sides)
    assert sum(by_side.values()) > 0
