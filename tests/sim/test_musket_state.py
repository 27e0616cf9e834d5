"""musket's state: snapshot_json writes exactly canonical_json(snapshot(state)) for any field
values, and apply_event dispatches as the singledispatch apply does."""

from __future__ import annotations

from typing import Literal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.canonical import canonical_json
from engine.events import Event
from engine.projection import set_path
from sim.rulesets.musket.events import Rested
from sim.rulesets.musket.state import (
    BattleState,
    SideState,
    UnitState,
    apply,
    apply_event,
    snapshot,
    snapshot_json,
)

_INTS = st.integers() | st.integers(min_value=-3, max_value=3)
_HEXES = st.none() | st.tuples(st.integers(), st.integers())
_ODD = (
    st.lists(st.integers(), max_size=3)
    | st.text()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.booleans()
)
"""Values an override may give a field that is None now (set_path takes any type there)."""


@st.composite
def units(draw: st.DrawFn) -> UnitState:
    """A unit with every field of its declared type."""
    text = st.text()
    return UnitState(
        id=draw(text),
        side=draw(text),
        name=draw(text),
        kind=draw(text),
        quality=draw(text),
        weapon=draw(text),
        formation=draw(text),
        leader=draw(st.booleans()),
        ammo=draw(text),
        initial=draw(_INTS),
        strength=draw(_INTS),
        hex=draw(_HEXES),
        fatigue=draw(_INTS),
        morale=draw(text),
        men_lost=draw(_INTS),
        guns_lost=draw(_INTS),
        moved_turn=draw(_INTS),
        fired_turn=draw(_INTS),
        fought_turn=draw(_INTS),
        morale_cause=draw(st.none() | _INTS),
    )


@st.composite
def states(draw: st.DrawFn) -> BattleState:
    """A battle state of a few units and sides, with any outcome fields."""
    found = draw(st.lists(units(), max_size=5))
    sides = draw(st.lists(st.tuples(st.text(), st.text(), st.booleans()), max_size=3))
    return BattleState(
        units={f"k{i}": u for i, u in enumerate(found)},
        sides={f"s{i}": SideState(*side) for i, side in enumerate(sides)},
        ended=draw(st.booleans()),
        ended_turn=draw(_INTS),
        winner=draw(st.none() | st.text()),
        reason=draw(st.text()),
        objective_points=draw(st.dictionaries(st.text(), _INTS, max_size=3)),
    )


@given(states())
def test_any_state_is_written_as_its_snapshots_canonical_json(state: BattleState) -> None:
    """Text with quotes, controls or non-ASCII, ints of any size, hexes or None: the same text."""
    assert snapshot_json(state) == canonical_json(snapshot(state))


@given(states(), st.data())
def test_a_none_field_overridden_with_any_value_is_still_written_exactly(
    state: BattleState, data: st.DataObject
) -> None:
    """hex and morale_cause, which an override (set_path) may set to any type while they are
    None, are still written exactly."""
    for key, unit in state.units.items():
        for name in ("hex", "morale_cause"):
            if getattr(unit, name) is None:
                set_path(state, f"units.{key}.{name}", data.draw(_ODD), counts=True)
    assert snapshot_json(state) == canonical_json(snapshot(state))


class Stranger(Event):
    """An event class musket does not know."""

    type: Literal["test.stranger"] = "test.stranger"


class LongRest(Rested):
    """A subclass of a musket event: singledispatch gives it Rested's implementation."""


def _unit() -> UnitState:
    return UnitState("a", "s", "A", "infantry", "B", "musket", "line", False, "full", 9, 9, None)


def test_apply_event_dispatches_as_apply_does_every_time() -> None:
    """A subclass takes its base's implementation, an unknown class is refused, both
    again on a second call (when apply_event has kept what it looked up)."""
    state = BattleState(units={"a": _unit()}, sides={})
    state.units["a"].fatigue = 10
    for expected in (7, 4):
        apply_event(state, LongRest(turn=1, time=0.0, unit="a", p=0.5, draws=[], recovered=3))
        assert state.units["a"].fatigue == expected
    for _ in range(2):
        with pytest.raises(TypeError, match="musket cannot apply Stranger"):
            apply_event(state, Stranger(turn=1, time=0.0))
    assert apply.dispatch(LongRest) is apply.dispatch(Rested)
