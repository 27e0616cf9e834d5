"""A study database built by hand: chosen design points and chosen run outcomes, no battle.

Scenario discovery and its condition language are tested on studies whose
true regions are known because they were written so.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from sim.batch.execution.rows import ChunkRows, run_row
from sim.batch.storage.store import STUDY_COLUMNS, Store

SIDES = {"usa": ("Union", ["men"]), "csa": ("Confederate", ["men"])}
LOSSES = (("usa", "men"), ("csa", "men"))

Outcome = tuple[str | None, int]
"""(winner or None for a draw, turns) of one run."""


def synthetic_study(
    folder: Path,
    factors: list[dict[str, Any]],
    points: list[dict[str, Any]],
    outcomes: Callable[[int, dict[str, Any]], list[Outcome]],
    ruleset: str = "musket",
) -> Path:
    """A study in ``folder`` whose point p has the runs ``outcomes(p, values)``, recorded
    as a study of ``ruleset`` (whose words its summary and discover use)."""
    folder.mkdir(parents=True, exist_ok=True)
    meta: dict[str, Any] = dict.fromkeys(STUDY_COLUMNS)
    meta.update(
        name="synthetic",
        kind="scenario",
        source="synthetic.yaml",
        ruleset=ruleset,
        seed=1,
        crn=False,
        replications=max(len(outcomes(p, v)) for p, v in enumerate(points)),
        design="grid",
        design_points=len(points),
        chunk_size=20,
        keep_replays=0,
        factors=factors,
        sides=[[sid, name, kinds] for sid, (name, kinds) in SIDES.items()],
        plan={"design": "grid", "points": None},
        # the outline a study's target has (Store.meta checks it); nothing is fought from it
        target={"kind": "scenario", "source": "synthetic.yaml", "data": {}},
    )
    del meta["loss_columns"]
    store = Store.create(folder / "study.duckdb", meta, points, SIDES)
    reps = meta["replications"]
    rows = []
    for p, values in enumerate(points):
        for r, (winner, turns) in enumerate(outcomes(p, values)):
            outcome = {
                "winner": winner,
                "winner_name": SIDES[winner][0] if winner else None,
                "reason": "synthetic",
                "turns": turns,
                "sides": {sid: {"losses": {"men": 10 * turns}} for sid in SIDES},
            }
            ids = (p * reps + r, p, r, p * 1000 + r)
            rows.append(run_row(ids, "done", None, outcome, LOSSES, (turns, 2 * turns)))
    store.commit(ChunkRows.of(rows, [], LOSSES, draws=2))
    store.close()
    return folder
