"""The ``flattop`` ruleset: carrier air strikes on the revised Flattop hit tables (seed 000)."""

from engine.events import EventRegistry
from sim.contract import Ruleset
from sim.rulesets import examples_of
from sim.rulesets.flattop.audit import audit
from sim.rulesets.flattop.battle import plan
from sim.rulesets.flattop.campaign import carry_over
from sim.rulesets.flattop.data import RULESET_VERSION, rules_data
from sim.rulesets.flattop.engage import engagements
from sim.rulesets.flattop.events import UPCASTERS
from sim.rulesets.flattop.odds import RESOLUTIONS
from sim.rulesets.flattop.report import narrate, outcome, render_state, summary
from sim.rulesets.flattop.scenario import FlattopScenario, cross_check
from sim.rulesets.flattop.state import BattleState, initial_state
from sim.rulesets.flattop.view import DERIVED_FIELDS, measures, space, units

__all__ = ["RULESET"]

RULESET = Ruleset(
    examples=examples_of(__file__),
    name="flattop",
    version=RULESET_VERSION,
    older_versions=("1", "2"),
    scenario_model=FlattopScenario,
    registry=EventRegistry(BattleState.applied_events(), UPCASTERS, since_format=2),
    cross_check=cross_check,
    rules_data=rules_data,
    plan=plan,
    initial_state=initial_state,
    outcome=outcome,
    summary=summary,
    render_state=render_state,
    narrate=narrate,
    audit=audit,
    units=units,
    engagements=engagements,
    measures=measures,
    space=space,
    derived_fields=DERIVED_FIELDS,
    carry_over=carry_over,
    odds=RESOLUTIONS,
)
