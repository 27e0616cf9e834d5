"""The ``musket`` ruleset: horse-and-musket fire and melee combat results (seed 003)."""

from engine.events import EventRegistry
from sim.contract import Ruleset, hooks
from sim.rulesets import examples_of
from sim.rulesets.musket import battle, campaign
from sim.rulesets.musket.model import data, scenario, state
from sim.rulesets.musket.model.events import UPCASTERS
from sim.rulesets.musket.reading import audit, engage, reach, report, view
from sim.rulesets.musket.reading.odds import RESOLUTIONS

__all__ = ["RULESET"]

RULESET: Ruleset[scenario.MusketScenario, state.BattleState] = Ruleset(
    examples=examples_of(__file__),
    name="musket",
    version=data.RULESET_VERSION,
    older_versions=("1", "2", "3", "4", "5", "6", "7"),
    scenario_model=scenario.MusketScenario,
    registry=EventRegistry(state.BattleState.applied_events(), UPCASTERS, since_format=1),
    odds=RESOLUTIONS,
    **hooks(audit, battle, campaign, data, engage, reach, report, scenario, state, view),
)
