"""Commit points paced by work, unit finals read without flat rows, lazy plots, early boot.

The pacing tests drive :class:`sim.batch.storage.commits.CommitPoints` with injected
clocks and chunks whose CPU is given: they count commit points, never time.
"""

from __future__ import annotations

import subprocess
import sys
from dataclasses import dataclass, field
from typing import Any

import pytest

from engine.canonical import canonical_json
from sim.batch.execution import executors
from sim.batch.execution.rows import UNIT_COLUMNS, ChunkRows
from sim.batch.execution.worker import fight, final_values, prepare, unit_finals
from sim.batch.inputs.target import load_target
from sim.batch.storage.commits import FIRST_COST, CommitPoints
from sim.contract import Measure, UnitRow
from tests.batch.helpers import REPO
from tests.contract.cases import INSTALLED_CASES


@dataclass
class FakeStore:
    """Counts commits; each costs ``cost`` on the fake CPU clock."""

    clock: list[float]
    cost: float
    commits: list[int] = field(default_factory=list)

    def commit(self, rows: ChunkRows) -> None:
        self.commits.append(len(rows))
        self.clock[0] += self.cost


def _rows(runs: int, cpu: float) -> ChunkRows:
    """A chunk of ``runs`` runs (one column is enough) that cost its worker ``cpu``."""
    return ChunkRows([list(range(runs))], [[]], cpu=cpu)


def _points(cost: float, seconds: float = 1.0, runs: int = 5000) -> tuple[CommitPoints, Any]:
    cpu, wall = [0.0], [0.0]
    store = FakeStore(cpu, cost)
    points = CommitPoints(
        store,  # type: ignore[arg-type]
        seconds,
        runs,
        ratio=100.0,
        cpu=lambda: cpu[0],
        clock=lambda: wall[0],
    )
    return points, (store, wall)


def test_a_commit_point_needs_the_seconds_and_the_work() -> None:
    """Ratio 100 and the first cost assumed (FIRST_COST): rows waiting 1 s are due only once
    their runs cost 100 x FIRST_COST of worker CPU; work enough before the second only sets
    the timer; a commit point then costs 0.004, and the next needs 100 x 0.004 of work."""
    points, (store, wall) = _points(cost=0.004)
    need = 100 * FIRST_COST
    points.add(_rows(20, need / 2))
    wall[0] = 5.0
    assert not points.due() and points.left() is None  # late, but too little work: wait
    points.add(_rows(20, need / 2))
    assert points.due()
    assert points.write() == 40 and store.commits == [40]
    points.add(_rows(20, 100 * 0.004))  # enough for the cost just measured
    wall[0] = 5.5
    assert not points.due() and points.left() == pytest.approx(0.5)
    wall[0] = 6.0
    assert points.due() and points.write() == 20
    points.add(_rows(20, 100 * 0.004 - 0.001))
    wall[0] = 99.0
    assert not points.due()
    assert store.commits == [40, 20] and points.written == 2


def test_enough_runs_waiting_or_no_seconds_make_a_commit_point_at_once() -> None:
    """However little work and however soon: 50 runs waiting with a bound of 50 are due, and
    with ``seconds`` 0 every chunk is; nothing waiting is never due."""
    points, _ = _points(cost=0.01, runs=50)
    assert not points.due() and points.left() is None
    points.add(_rows(30, 0.0))
    assert not points.due()
    points.add(_rows(20, 0.0))
    assert points.due() and points.waiting == 50
    each, _ = _points(cost=0.01, seconds=0.0)
    each.add(_rows(1, 0.0))
    assert each.due()


def test_the_cheapest_commit_point_sets_the_work_needed() -> None:
    """Costs 0.008 then 0.02 (a checkpoint, say): the work needed stays 100 x 0.008."""
    points, (store, wall) = _points(cost=0.008)
    points.add(_rows(10, 1.0))
    wall[0] = 1.0
    points.write()
    store.cost = 0.02
    points.add(_rows(10, 1.0))
    wall[0] = 2.0
    points.write()
    points.add(_rows(10, 0.8))
    wall[0] = 3.0
    assert points.due()


def test_chunks_add_their_workers_cpu() -> None:
    """Rows of chunks that cost 0.25 and 0.5 wait as 0.75 of work, in their columns' order."""
    rows = _rows(2, 0.25)
    rows.extend(_rows(3, 0.5))
    assert rows.cpu == 0.75 and rows.runs == [[0, 1, 0, 1, 2]]


def _unit(details: dict[str, Any], status: list[str]) -> UnitRow:
    return UnitRow(
        id="u",
        name="U",
        side="blue",
        side_name="Blue",
        kind="foot",
        position=None,
        strength=Measure(name="strength", value=7, unit="men"),
        initial=Measure(name="strength", value=9, unit="men"),
        status=status,
        details=details,
    )


def test_final_values_are_the_rows_own_fields_its_status_words_and_its_details() -> None:
    """Side, kind, initial, strength, its unit, the words joined by ", " and the details as
    canonical JSON (keys sorted; a float and a nested list written as the canonical encoder
    writes them; no details: {})."""
    plain = _unit({"morale": "good", "fatigue": 2}, ["disrupted", "out of ammunition"])
    assert final_values(plain) == (
        "blue", "foot", 9, 7, "men", "disrupted, out of ammunition",
        '{"fatigue":2,"morale":"good"}',
    )  # fmt: skip
    odd = _unit({"side": "red", "hp": 1.5, "path": [[0, 1]]}, [])
    assert final_values(odd) == (
        "blue", "foot", 9, 7, "men", "", canonical_json(odd.details),
    )  # fmt: skip
    assert final_values(_unit({}, []))[-1] == "{}"
    assert len(final_values(plain)) == len(UNIT_COLUMNS)


@pytest.mark.parametrize("case", INSTALLED_CASES, ids=str)
def test_unit_finals_hold_every_unit_rows_fields_for_every_ruleset(case: Any) -> None:
    """Each shipped scenario's fought units: the finals equal the unit rows' fields, the
    details as the canonical encoder writes them (tests/contract checks the toy's)."""
    if not case.scenario.exists():
        pytest.skip("no scenario")
    fought = fight(prepare(load_target(case.scenario), {}), 3)
    expected = [
        (k, battle, u.id, u.side, u.kind, u.initial.value, u.strength.value, u.strength.unit,
         ", ".join(u.status), canonical_json(u.details))
        for k, (battle, ruleset, state, scenario) in enumerate(fought.battles)
        for u in ruleset.units(scenario, state)
    ]  # fmt: skip
    assert unit_finals(fought) == expected and expected


def test_a_study_without_plots_never_loads_matplotlib(tmp_path: Any) -> None:
    """A --no-plots study in a fresh interpreter writes its tables and summary and leaves
    matplotlib unimported; the drawing code loads it only to draw."""
    code = (
        "import sys\nfrom sim.batch import RunOptions, StudyPlan, load_target, run_study\n"
        f"plan = StudyPlan(load_target({str(REPO / 'scenarios' / 'stone_wall.yaml')!r}), "
        "seed=1, replications=2)\n"
        f"run_study(plan, {str(tmp_path / 's')!r}, RunOptions(plots=False))\n"
        "print('matplotlib' in sys.modules)\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=False
    )
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, "False\n", "")
    assert (tmp_path / "s" / "summary.json").exists()


def test_only_a_local_pool_of_two_or_more_boots_a_forkserver(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """boot_workers starts the forkserver for local --jobs 2 and 16 (where the platform uses
    one), never for --jobs 1 (no pool) or Dask (its own workers)."""
    calls: list[int] = []
    monkeypatch.setattr(executors.forkserver, "ensure_running", lambda: calls.append(1))
    for kind, jobs in (("local", 1), ("dask", 4), ("local", 2), ("local", 16)):
        executors.boot_workers(kind, jobs)  # type: ignore[arg-type]
    uses = executors.mp_context().get_start_method() == "forkserver"
    assert len(calls) == (2 if uses else 0)
