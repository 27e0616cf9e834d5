"""The ``becmi`` ruleset: D&D Rules Cyclopedia skirmish combat (seed 001)."""

from engine.events import EventRegistry
from sim.contract import Ruleset, hooks
from sim.rulesets import examples_of
from sim.rulesets.becmi import battle, campaign
from sim.rulesets.becmi.model import data, scenario, state
from sim.rulesets.becmi.model.events import UPCASTERS
from sim.rulesets.becmi.reading import audit, engage, report, subjects, view
from sim.rulesets.becmi.reading.odds import RESOLUTIONS

__all__ = ["RULESET"]

RULESET: Ruleset[scenario.BecmiScenario, state.BattleState] = Ruleset(
    examples=examples_of(__file__),
    name="becmi",
    version=data.RULES_VERSION,
    scenario_model=scenario.BecmiScenario,
    registry=EventRegistry(state.BattleState.applied_events(), UPCASTERS, since_format=2),
    turn_name="round",
    odds=RESOLUTIONS,
    **hooks(audit, battle, campaign, data, engage, report, scenario, state, subjects, view),
)
