"""Batch outcome studies: replications, sweeps and campaigns on all cores or on Dask.

>>> from sim.batch import StudyPlan, RunOptions, Factor, load_target, run_study
>>> plan = StudyPlan(load_target("scenarios/stone_wall.yaml"), seed=1, replications=200,
...                  factors=(Factor(path="options.fire_hcv", values=[15, 25, 35]),))
>>> result = run_study(plan, "sw-study", RunOptions(jobs=2))        # doctest: +SKIP
>>> result.summary["points"][0]["win"]["usa"]                       # doctest: +SKIP

See docs/batch.md for the commands, file formats, seeds and tables.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from sim.batch.analysis.summary import format_summary, summarize
    from sim.batch.discovery.discover import discover
    from sim.batch.execution.executors import ExecutorError, open_executor
    from sim.batch.inputs.campaign import CampaignData, CampaignResult, fight_campaign
    from sim.batch.inputs.fieldpath import PathError, get_path, set_paths
    from sim.batch.inputs.seeds import battle_seed, run_seed
    from sim.batch.inputs.target import Target, load_campaign, load_target
    from sim.batch.methods.stats import Interval, wilson
    from sim.batch.planning.design import DesignError, Factor, design_points
    from sim.batch.planning.plan import StudyPlan
    from sim.batch.planning.spec import StudySpec, load_study
    from sim.batch.storage.store import Store, StoreError
    from sim.batch.study import RunOptions, StudyError, StudyIncomplete, StudyResult, run_study
    from sim.batch.verification.replays import Rerun, RerunError, rerun
    from sim.batch.verification.verify import StudyCheck, verify_study

__all__ = [
    "CampaignData",
    "CampaignResult",
    "DesignError",
    "ExecutorError",
    "Factor",
    "Interval",
    "PathError",
    "Rerun",
    "RerunError",
    "RunOptions",
    "Store",
    "StoreError",
    "StudyCheck",
    "StudyError",
    "StudyIncomplete",
    "StudyPlan",
    "StudyResult",
    "StudySpec",
    "Target",
    "battle_seed",
    "design_points",
    "discover",
    "fight_campaign",
    "format_summary",
    "get_path",
    "load_campaign",
    "load_study",
    "load_target",
    "open_executor",
    "rerun",
    "run_seed",
    "run_study",
    "set_paths",
    "summarize",
    "verify_study",
    "wilson",
]

# Imported on first use, so a worker that needs only sim.batch.execution.worker does not
# pay for scipy, DuckDB and matplotlib.
_HOME = {
    "CampaignData": "sim.batch.inputs.campaign",
    "CampaignResult": "sim.batch.inputs.campaign",
    "DesignError": "sim.batch.planning.design",
    "ExecutorError": "sim.batch.execution.executors",
    "Factor": "sim.batch.planning.design",
    "Interval": "sim.batch.methods.stats",
    "PathError": "sim.batch.inputs.fieldpath",
    "Rerun": "sim.batch.verification.replays",
    "RerunError": "sim.batch.verification.replays",
    "RunOptions": "sim.batch.study",
    "Store": "sim.batch.storage.store",
    "StoreError": "sim.batch.storage.store",
    "StudyCheck": "sim.batch.verification.verify",
    "StudyError": "sim.batch.study",
    "StudyIncomplete": "sim.batch.study",
    "StudyPlan": "sim.batch.planning.plan",
    "StudyResult": "sim.batch.study",
    "StudySpec": "sim.batch.planning.spec",
    "Target": "sim.batch.inputs.target",
    "battle_seed": "sim.batch.inputs.seeds",
    "design_points": "sim.batch.planning.design",
    "discover": "sim.batch.discovery.discover",
    "fight_campaign": "sim.batch.inputs.campaign",
    "format_summary": "sim.batch.analysis.summary",
    "get_path": "sim.batch.inputs.fieldpath",
    "load_campaign": "sim.batch.inputs.target",
    "load_study": "sim.batch.planning.spec",
    "load_target": "sim.batch.inputs.target",
    "open_executor": "sim.batch.execution.executors",
    "rerun": "sim.batch.verification.replays",
    "run_seed": "sim.batch.inputs.seeds",
    "run_study": "sim.batch.study",
    "set_paths": "sim.batch.inputs.fieldpath",
    "summarize": "sim.batch.analysis.summary",
    "verify_study": "sim.batch.verification.verify",
    "wilson": "sim.batch.methods.stats",
}


def __getattr__(name: str) -> Any:
    if name not in _HOME:
        raise AttributeError(f"module 'sim.batch' has no attribute {name!r}")
    return getattr(import_module(_HOME[name]), name)
