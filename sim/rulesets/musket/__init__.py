"""The ``musket`` ruleset: horse-and-musket fire and melee combat results (seed 003)."""

from engine.events import EventRegistry
from sim.contract import Ruleset
from sim.rulesets import examples_of
from sim.rulesets.musket.audit import audit
from sim.rulesets.musket.battle import plan
from sim.rulesets.musket.campaign import carry_over
from sim.rulesets.musket.data import RULESET_VERSION, rules_data
from sim.rulesets.musket.engage import engagements
from sim.rulesets.musket.events import UPCASTERS
from sim.rulesets.musket.odds import RESOLUTIONS
from sim.rulesets.musket.reach import reach
from sim.rulesets.musket.report import narrate, outcome, render_state, summary
from sim.rulesets.musket.scenario import MusketScenario, cross_check
from sim.rulesets.musket.state import BattleState, initial_state, snapshot_json
from sim.rulesets.musket.view import DERIVED_FIELDS, measures, space, units

__all__ = ["RULESET"]

RULESET = Ruleset(
    examples=examples_of(__file__),
    name="musket",
    version=RULESET_VERSION,
    older_versions=("1", "2"),
    scenario_model=MusketScenario,
    registry=EventRegistry(BattleState.applied_events(), UPCASTERS),
    cross_check=cross_check,
    rules_data=rules_data,
    plan=plan,
    initial_state=initial_state,
    snapshot_json=snapshot_json,
    outcome=outcome,
    summary=summary,
    audit=audit,
    render_state=render_state,
    narrate=narrate,
    carry_over=carry_over,
    units=units,
    engagements=engagements,
    measures=measures,
    space=space,
    derived_fields=DERIVED_FIELDS,
    odds=RESOLUTIONS,
    reach=reach,
)
