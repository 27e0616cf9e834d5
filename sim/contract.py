"""The typed ruleset contract: what a rule system gives battlesim's generic tools.

A generic tool (show, diff, fork, report, batch, campaign) asks a ruleset
through these hooks and models; it never reads a ruleset's state by key.

* :class:`Outcome` — who won, why, after how many turns, and each side's
  losses as named :class:`Measure` values with units.
* :class:`UnitRow` — one row of "who is on the field": id, name, side,
  kind, position in the battle's :class:`Space`, a strength measure and
  status words.
* :class:`Reading` — a measure worth charting per turn, of a side or a unit.
* :class:`Space` — the field the battle is fought on, for a viewer to draw.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Generic, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field

from engine.events import Event, EventRegistry, assemble
from engine.log import Header, Sink
from sim.runner import Ending, Plan, fight

__all__ = [
    "Feature",
    "Measure",
    "Outcome",
    "Problem",
    "Reading",
    "Ruleset",
    "ScenarioT",
    "SideResult",
    "Space",
    "StateT",
    "UnitRow",
    "trusted_measure",
    "trusted_outcome",
    "trusted_row",
    "trusted_side",
    "typed",
]

Problem = tuple[tuple[str | int, ...], str]
"""A scenario problem: the field path and the message."""

ScenarioT = TypeVar("ScenarioT", bound=BaseModel)
StateT = TypeVar("StateT", bound=Ending)

Number = int | float


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Measure(_Frozen):
    """A named quantity with its unit: ``Measure(name="men", value=120, unit="men")``."""

    name: str
    value: Number
    unit: str


class SideResult(_Frozen):
    """One side's result of a battle.

    Attributes:
        name: the side's name.
        losses: what it lost, each a named measure (``men``, ``ships_sunk``, ``hp``).
        details: further plain data the ruleset reports (``run --json`` prints it).
    """

    name: str
    losses: list[Measure]
    details: dict[str, Any] = Field(default_factory=dict)

    def loss(self, name: str) -> Number:
        """The value of the loss called ``name``.

        Raises:
            KeyError: no such loss.
        """
        for m in self.losses:
            if m.name == name:
                return m.value
        raise KeyError(name)


class Outcome(_Frozen):
    """How a battle ended: winner (side id, None for a draw), reason, turns, sides."""

    winner: str | None
    winner_name: str | None
    reason: str
    turns: int
    sides: dict[str, SideResult]

    def losses(self) -> dict[str, dict[str, Number]]:
        """Side id → loss name → value."""
        return {sid: {m.name: m.value for m in s.losses} for sid, s in self.sides.items()}

    def as_json(self) -> dict[str, Any]:
        """Plain JSON data: ``winner``, ``winner_name``, ``reason``, ``turns`` and ``sides``.

        Each side is ``{"name", "losses": {name: value}, **details}`` — the
        keys ``run --json``, batch tables and campaigns have always used.
        """
        return {
            "winner": self.winner,
            "winner_name": self.winner_name,
            "reason": self.reason,
            "turns": self.turns,
            "sides": {
                sid: {
                    "name": s.name,
                    **s.details,
                    "losses": {m.name: m.value for m in s.losses},
                }
                for sid, s in self.sides.items()
            },
        }


class UnitRow(_Frozen):
    """One unit on the field, as every generic tool sees it.

    Attributes:
        id: the unit's id (``show --unit`` takes it).
        name, side, side_name, kind: who it is.
        position: coordinates in the battle's space (``Space.axes``), None when off the field.
        strength: what it fights with (``men``, ``hp``, ``hits`` left...).
        initial: its strength at the start, same measure.
        status: words describing its state (``disrupted``, ``routed``,
            ``knocked out``, ``crippled``, ``sunk``); empty when all is well.
        details: further plain data worth a column (fatigue, morale...).
        route: for a unit travelling between places rather than standing at
            one (a strike in flight), the places it travels between, from
            first to last; a viewer draws it along that line.  None otherwise.
    """

    id: str
    name: str
    side: str
    side_name: str
    kind: str
    position: tuple[Number, ...] | None
    strength: Measure
    initial: Measure
    status: list[str] = Field(default_factory=list)
    details: dict[str, Any] = Field(default_factory=dict)
    route: list[tuple[Number, ...]] | None = None

    def flat(self, axes: Sequence[str] = ()) -> dict[str, Any]:
        """One flat dict (a table row): position split by ``axes``, strength as value + unit.

        Keys: ``id``, ``name``, ``side``, ``side_name``, ``kind``, ``strength``,
        ``strength_unit``, ``initial``, ``status`` (words joined by commas),
        the details, then one key per axis (None off the field).
        """
        out: dict[str, Any] = {
            "id": self.id,
            "name": self.name,
            "side": self.side,
            "side_name": self.side_name,
            "kind": self.kind,
            "strength": self.strength.value,
            "strength_unit": self.strength.unit,
            "initial": self.initial.value,
            "status": ", ".join(self.status),
            **self.details,
        }
        for k, axis in enumerate(axes):
            out[axis] = self.position[k] if self.position is not None else None
        return out


_M = TypeVar("_M", bound=BaseModel)

CHECK_TRUSTED = os.environ.get("BATTLESIM_CHECK_LINES") == "1"
"""Validate every model built by :func:`trusted_measure` / :func:`trusted_row` again and
require the same model (the test suite turns this on, with the event line check)."""


def typed(value: Any) -> Any:
    """``value`` with the exact type of every part spelled out, for comparing two models.

    ``1 == 1.0 == True`` and ``(1, 2) != [1, 2]`` only by type: two values
    whose :func:`typed` forms are equal are the same data of the same types.
    """
    if isinstance(value, BaseModel):
        return (type(value), tuple((k, typed(v)) for k, v in value.__dict__.items()))
    if isinstance(value, dict):
        return (dict, tuple((typed(k), typed(v)) for k, v in value.items()))
    if isinstance(value, list | tuple):
        return (type(value), tuple(typed(v) for v in value))
    return (type(value), value)


def _trusted(cls: type[_M], data: dict[str, Any]) -> _M:
    """``cls`` holding ``data`` (every field, in declaration order) without validating it.

    Every field is given, so every instance's set of fields set is the same
    full set: one set per class is shared (nothing adds to it but a name
    already in it).
    """
    model = assemble(cls, data, _ALL_SET[cls])
    if CHECK_TRUSTED:
        again = cls.model_validate(model.model_dump())
        if typed(again) != typed(model):
            raise TypeError(f"a trusted {cls.__name__} is not what validation makes: {model!r}")
    return model


def trusted_measure(name: str, value: Number, unit: str) -> Measure:
    """``Measure(name=name, value=value, unit=unit)`` without validation: for a ruleset's
    ``units`` hook, which generic tools call for every unit of every run.

    The caller guarantees the exact types (``value`` an ``int`` or a ``float``,
    never a ``bool``), so the model is what validation would make.
    """
    return _trusted(Measure, {"name": name, "value": value, "unit": unit})


def trusted_row(
    id: str,
    name: str,
    side: str,
    side_name: str,
    kind: str,
    position: tuple[Number, ...] | None,
    strength: Measure,
    initial: Measure,
    status: list[str],
    details: dict[str, Any],
    route: list[tuple[Number, ...]] | None = None,
) -> UnitRow:
    """A :class:`UnitRow` built without validation (about a tenth of the cost).

    The caller guarantees every value has its field's exact type — text as
    ``str``, a position as a ``tuple`` of ``int``/``float``, measures built
    (trusted or not), a fresh ``list`` of status words and ``dict`` of
    details — so the row equals, type for type, the validated
    ``UnitRow(...)`` of the same values.  The contract suite checks that for
    every ruleset at every turn; with :data:`CHECK_TRUSTED` every row is
    validated again as it is built.  A plugin may keep building rows the
    ordinary way.
    """
    return _trusted(
        UnitRow,
        {
            "id": id,
            "name": name,
            "side": side,
            "side_name": side_name,
            "kind": kind,
            "position": position,
            "strength": strength,
            "initial": initial,
            "status": status,
            "details": details,
            "route": route,
        },
    )


_ALL_SET: dict[type[BaseModel], set[str]] = {
    cls: set(cls.model_fields) for cls in (Measure, UnitRow, SideResult, Outcome)
}


def trusted_side(name: str, losses: list[Measure], details: dict[str, Any]) -> SideResult:
    """``SideResult(name=name, losses=losses, details=details)`` without validation (as
    :func:`trusted_row`: the caller guarantees exact types and fresh containers)."""
    return _trusted(SideResult, {"name": name, "losses": losses, "details": details})


def trusted_outcome(
    winner: str | None,
    winner_name: str | None,
    reason: str,
    turns: int,
    sides: dict[str, SideResult],
) -> Outcome:
    """An :class:`Outcome` without validation (as :func:`trusted_row`): a study asks for
    the outcome of every run.  The contract suite checks it against its validated copy."""
    data = {
        "winner": winner,
        "winner_name": winner_name,
        "reason": reason,
        "turns": turns,
        "sides": sides,
    }
    return _trusted(Outcome, data)


class Reading(_Frozen):
    """One measure worth charting, of one side or one unit, at one moment."""

    scope: Literal["side", "unit"]
    subject: str
    """The side id or unit id."""
    name: str
    """The subject's display name."""
    measure: Measure


class Feature(_Frozen):
    """Something drawn on the field: terrain, an objective, a base."""

    kind: str
    """``terrain``, ``objective``, ``base``..."""
    name: str
    cells: list[tuple[Number, ...]]
    """Positions (cells of a grid, points of a plane) it covers."""
    details: dict[str, Any] = Field(default_factory=dict)


class Space(_Frozen):
    """The field a battle is fought on.

    Attributes:
        kind: ``hex`` (a hex grid of offset columns), ``plane`` (continuous
            coordinates) or another word a viewer may know.
        axes: the names of a position's coordinates (``col``, ``row``; ``x``, ``y``).
        unit: what one step along an axis is (``hex``, ``ft``, ``sea hex (20 nm)``).
        bounds: inclusive (low, high) per axis, None when the field is open.
        features: terrain, objectives and the like.
    """

    kind: str
    axes: tuple[str, ...]
    unit: str
    bounds: list[tuple[Number, Number]] | None = None
    features: list[Feature] = Field(default_factory=list)


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
            table of the unit rows (``sim.table``) for every ruleset.
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
