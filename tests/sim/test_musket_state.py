"""musket's state: snapshot_json writes exactly canonical_json(state.snapshot()) for any field
values; apply is the state base's (@applies methods, an unknown class refused); occupant is
derived from the units' hexes, out of the snapshot, and rebuilt on restore."""

from __future__ import annotations

from typing import Any, Literal, get_args

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.canonical import canonical_json
from engine.events import Event
from engine.projection import set_path
from sim.contract.defaults import apply_by_state
from sim.rulesets.musket import RULESET
from sim.rulesets.musket.model.data import Ammo, Formation, Kind, Quality
from sim.rulesets.musket.model.events import LeftField, MoraleState, Moved, Rested
from sim.rulesets.musket.model.state import BattleState, SideState, UnitState, snapshot_json

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
    """A unit with every field of its declared type (any text, or one of its words)."""
    text = st.text()

    def words(kind: Any) -> Any:
        return st.sampled_from(get_args(kind))

    return UnitState(
        id=draw(text),
        side=draw(text),
        name=draw(text),
        kind=draw(words(Kind)),
        quality=draw(words(Quality)),
        weapon=draw(text),
        formation=draw(words(Formation)),
        leader=draw(st.booleans()),
        ammo=draw(words(Ammo)),
        initial=draw(_INTS),
        strength=draw(_INTS),
        hex=draw(_HEXES),
        fatigue=draw(_INTS),
        morale=draw(words(MoraleState)),
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
        sides={f"s{i}": SideState(id=i_, name=n, broken=b) for i, (i_, n, b) in enumerate(sides)},
        ended=draw(st.booleans()),
        ended_turn=draw(_INTS),
        winner=draw(st.none() | st.text()),
        reason=draw(st.text()),
        objective_points=draw(st.dictionaries(st.text(), _INTS, max_size=3)),
    )


@given(states())
def test_any_state_is_written_as_its_snapshots_canonical_json(state: BattleState) -> None:
    """Text with quotes, controls or non-ASCII, ints of any size, hexes or None: the same text."""
    assert snapshot_json(state) == canonical_json(state.snapshot())


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
    assert snapshot_json(state) == canonical_json(state.snapshot())


class Stranger(Event):
    """An event class musket does not know."""

    type: Literal["test.stranger"] = "test.stranger"


def unit_state(uid: str = "a", at: tuple[int, int] | None = None, **fields: Any) -> UnitState:
    """A musket unit's state: B-class infantry in line, 9 men, on side ``s`` (or ``fields``)."""
    values: dict[str, Any] = {
        "id": uid,
        "side": "s",
        "name": uid.upper(),
        "kind": "infantry",
        "quality": "B",
        "weapon": "musket",
        "formation": "line",
        "leader": False,
        "ammo": "full",
        "initial": 9,
        "strength": 9,
        "hex": at,
    }
    return UnitState(**(values | fields))


_unit = unit_state


def test_apply_is_the_state_bases_and_refuses_an_unknown_class() -> None:
    """Rested lowers fatigue by what it recovered (never below 0) every time; an event
    class no @applies method names is refused, naming it."""
    state = BattleState(units={"a": _unit()}, sides={})
    state.units["a"].fatigue = 10
    for expected in (7, 4, 1, 0):
        apply_by_state(state, Rested(turn=1, time=0.0, unit="a", p=0.5, draws=[], recovered=3))
        assert state.units["a"].fatigue == expected
    with pytest.raises(TypeError, match=r"no @applies\(Stranger\) method"):
        apply_by_state(state, Stranger(turn=1, time=0.0))


def test_the_registry_is_the_applied_events() -> None:
    """The ruleset records exactly the event classes its state applies."""
    assert set(BattleState.applied_events()) <= set(RULESET.registry.classes)
    assert {c.__name__ for c in BattleState.applied_events()} == {
        "Moved",
        "LeftField",
        "Fired",
        "Meleed",
        "MoraleTested",
        "Rallied",
        "Rested",
        "SideBroken",
        "BattleEnded",
    }


def test_occupant_follows_the_hexes_and_is_rebuilt_on_restore() -> None:
    """Made from units, occupant maps each placed unit's hex to it; a move and a unit
    leaving the field change it (and count a placement); restore rebuilds it from the
    snapshot's hexes, which is all the snapshot holds of it."""
    state = BattleState(units={"a": _unit("a", (1, 1)), "b": _unit("b", None)}, sides={})
    assert state.occupant == {(1, 1): "a"}
    assert "occupant" not in state.snapshot() and "placements" not in state.snapshot()
    state.apply(Moved(turn=1, time=0.0, unit="a", reason="order", path=[(1, 2)], start=(1, 1)))
    assert (state.occupant, state.placements, state.units["a"].moved_turn) == ({(1, 2): "a"}, 1, 1)
    again = BattleState.restore(state.snapshot(), BattleState(units={}, sides={}))
    assert again == state and again.occupant == {(1, 2): "a"}
    state.apply(LeftField(turn=2, time=0.0, unit="a", at=(1, 2)))
    gone = state.units["a"]
    assert (state.occupant, gone.morale, gone.hex) == ({}, "eliminated", None)
