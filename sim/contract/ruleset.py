"""The :class:`Ruleset`: everything battlesim needs from one rule system."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Generic, TypeVar

from pydantic import BaseModel

from engine.events import Event, EventRegistry
from engine.log import Header, Sink
from sim.contract.models import Outcome, Problem, Reading, Space, UnitRow
from sim.contract.odds import OddsResolution
from sim.runner import Ending, Plan, fight

__all__ = ["Ruleset", "ScenarioT", "StateT"]

ScenarioT = TypeVar("ScenarioT", bound=BaseModel)
StateT = TypeVar("StateT", bound=Ending)


@dataclass(frozen=True)
class Ruleset(Generic[ScenarioT, StateT]):
    """Everything battlesim needs from one rule system.

    Attributes:
        name: the ``ruleset:`` key.
        version: bumped when the rules change what a battle produces.
        scenario_model: pydantic model of a scenario file.
        registry: the ruleset's event classes.
        cross_check: problems spanning fields, each with its field path.
        rules_data: the rules tables as plain data (digested into headers).
        plan: the battle's :class:`~sim.runner.Plan` — its clock, read-only view,
            SimPy processes and end-of-turn rules; :meth:`simulate` runs it.
        initial_state: state before the first event.
        apply: the one apply function, ``apply(state, event)``.
        snapshot: the state as plain JSON data.
        restore: rebuild a state from its ``snapshot`` data:
            ``restore(sc, snapshot(s)) == s``, so reading can start from an
            ``engine.snapshot``.
        outcome: the :class:`Outcome` of a state.
        summary: readable lines for an outcome, one per side (``run`` prints them).
        render_state: the ruleset's own text table of the state, for its
            users' notebooks; None if it has none. ``show`` prints the generic
            table of the unit rows (``sim.cli.table``) for every ruleset.
        narrate: one line of text for an event (state before it), or None.
        units: the :class:`UnitRow` of every unit, in scenario order.
        measures: the :class:`Reading` worth charting at this state.
        space: the :class:`Space` of a scenario.
        derived_fields: names of state fields kept from others (positions,
            occupancy); ``fork`` refuses to set them.
        examples: scenario files the ruleset's package ships (the contract suite
            fights each; the built-in rulesets' live in ``scenarios/``).
        turn_name: what one turn is called in this game ("turn", "round").
        audit: ``audit(scenario, state, event)`` checks the event against the
            state before it and returns a message when broken, else None.
        carry_over: for campaigns, ``carry_over(scenario, final_state, next_data,
            settings)`` returns the next battle's scenario data with the
            survivors carried over; None when the ruleset has no campaigns.
        snapshot_json: optional, for speed: ``canonical_json(snapshot(state))``
            (:mod:`engine.canonical`) written straight from the state, the
            text each turn's state digest hashes.  It must give exactly that
            text for every state; the contract suite compares the two at every
            turn's end of every example, and the test suite's line check on
            every digest.  None: the snapshot is serialised (the same digest).
        odds: the single resolutions whose exact odds the ruleset gives,
            each a :class:`~sim.contract.odds.OddsResolution`; ``battlesim
            odds`` offers one command for each (docs/rulesets.md, "Exact
            odds: the ``odds`` hook").
    """

    name: str
    version: str
    scenario_model: type[ScenarioT]
    registry: EventRegistry
    cross_check: Callable[[ScenarioT], list[Problem]]
    rules_data: Callable[[], dict[str, Any]]
    plan: Callable[[ScenarioT], Plan[ScenarioT, StateT, Any]]
    initial_state: Callable[[ScenarioT], StateT]
    apply: Callable[[StateT, Event], None]
    snapshot: Callable[[StateT], dict[str, Any]]
    restore: Callable[[ScenarioT, dict[str, Any]], StateT]
    outcome: Callable[[ScenarioT, StateT], Outcome]
    summary: Callable[[Outcome], list[str]]
    narrate: Callable[[ScenarioT, StateT, Event], str | None]
    units: Callable[[ScenarioT, StateT], list[UnitRow]]
    measures: Callable[[ScenarioT, StateT], list[Reading]]
    space: Callable[[ScenarioT], Space]
    derived_fields: tuple[str, ...] = ()
    render_state: Callable[[ScenarioT, StateT], str] | None = None
    examples: tuple[Path, ...] = ()
    turn_name: str = "turn"
    audit: Callable[[ScenarioT, StateT, Event], str | None] | None = None
    carry_over: (
        Callable[[ScenarioT, StateT, dict[str, Any], dict[str, Any]], dict[str, Any]] | None
    ) = None
    snapshot_json: Callable[[StateT], str] | None = None
    odds: tuple[OddsResolution, ...] = ()

    def simulate(self, scenario: ScenarioT, header: Header, sink: Sink) -> StateT:
        """Fight a battle with the one runner, writing its replay; return the final state."""
        state = self.initial_state(scenario)
        return fight(
            self.plan(scenario),
            scenario,
            header,
            sink,
            state,
            self.apply,
            self.snapshot,
            snapshot_json=self.snapshot_json,
        )
