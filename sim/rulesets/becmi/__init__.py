"""The ``becmi`` ruleset: D&D Rules Cyclopedia skirmish combat (seed 001)."""

from engine.events import EventRegistry
from sim.contract import Ruleset
from sim.rulesets import examples_of
from sim.rulesets.becmi.battle import plan
from sim.rulesets.becmi.campaign import carry_over
from sim.rulesets.becmi.data import RULES_VERSION, rules_data
from sim.rulesets.becmi.engage import engagements
from sim.rulesets.becmi.events import UPCASTERS
from sim.rulesets.becmi.odds import RESOLUTIONS
from sim.rulesets.becmi.report import narrate, outcome, render_state, summary
from sim.rulesets.becmi.scenario import BecmiScenario, cross_check
from sim.rulesets.becmi.state import BattleState, initial_state
from sim.rulesets.becmi.view import DERIVED_FIELDS, measures, space, units

__all__ = ["RULESET"]

RULESET = Ruleset(
    examples=examples_of(__file__),
    name="becmi",
    version=RULES_VERSION,
    scenario_model=BecmiScenario,
    registry=EventRegistry(BattleState.applied_events(), UPCASTERS, since_format=2),
    cross_check=cross_check,
    rules_data=rules_data,
    plan=plan,
    initial_state=initial_state,
    outcome=outcome,
    summary=summary,
    render_state=render_state,
    narrate=narrate,
    turn_name="round",
    units=units,
    engagements=engagements,
    measures=measures,
    space=space,
    derived_fields=DERIVED_FIELDS,
    carry_over=carry_over,
    odds=RESOLUTIONS,
)
