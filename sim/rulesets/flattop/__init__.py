"""The ``flattop`` ruleset: carrier air strikes on the revised Flattop hit tables (seed 000)."""

from engine.events import EventRegistry
from sim.contract import Ruleset, hooks
from sim.rulesets import examples_of
from sim.rulesets.flattop import battle, campaign
from sim.rulesets.flattop.model import data, scenario, state
from sim.rulesets.flattop.model.events import UPCASTERS
from sim.rulesets.flattop.reading import audit, engage, report, view
from sim.rulesets.flattop.reading.odds import RESOLUTIONS

__all__ = ["RULESET"]

RULESET: Ruleset[scenario.FlattopScenario, state.BattleState] = Ruleset(
    examples=examples_of(__file__),
    name="flattop",
    version=data.RULESET_VERSION,
    older_versions=("1", "2"),
    scenario_model=scenario.FlattopScenario,
    registry=EventRegistry(state.BattleState.applied_events(), UPCASTERS, since_format=2),
    odds=RESOLUTIONS,
    **hooks(audit, battle, campaign, data, engage, report, scenario, state, view),
)
