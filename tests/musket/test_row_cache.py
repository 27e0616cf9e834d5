"""musket's ``snapshot_json`` fills a row template per set of a unit's static fields
(``state._rows``): the text is exactly the uncached row's (``state._unit_json``) and the
snapshot's canonical JSON, whatever events and overrides changed in between."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.canonical import canonical_json
from engine.projection import set_path
from sim.contract.defaults import apply_by_state
from sim.rulesets.musket.model.events import Casualties, Fired, Moved, Rested
from sim.rulesets.musket.model.state import (
    _TEMPLATES,
    BattleState,
    SideState,
    UnitState,
    _rows,
    _unit_json,
    snapshot_json,
)
from tests.sim.test_musket_state import unit_state

_TEXT = st.text() | st.sampled_from(["%", "%d", "%s%%", "100% strong", '"q"', "\\", "é"])
_INTS = st.integers(min_value=0, max_value=3) | st.integers(min_value=0)
_STATIC_TEXT = ("ammo", "formation", "kind", "name", "quality", "side", "weapon")


def _unit(uid: str, at: tuple[int, int] | None) -> UnitState:
    side = "a" if uid < "m" else "b"
    return unit_state(uid, at, side=side, name=f"{uid} 50% strong", initial=400, strength=400)


def _state() -> BattleState:
    units = {uid: _unit(uid, (i, i % 3)) for i, uid in enumerate(("a1", "a2", "x1", "x2"))}
    sides = {s: SideState(id=s, name=s.upper()) for s in ("a", "b")}
    return BattleState(units=units, sides=sides)


def _casualties(men: int, fatigue: int) -> Casualties:
    return Casualties(
        v=1.0, modifier=0.0, modifiers={}, lcv=1.0, hcv=1.0, alternative=False,
        effective=1.0, low=0.0, high=1.0, value=1.0,
        casualties=men, guns_lost=0, fatigue_value=float(fatigue), fatigue_added=fatigue,
        morale_check_p=0.0, morale_check=False, morale_check_reason=None,
        draws=[],
    )  # fmt: skip


_UIDS = st.sampled_from(("a1", "a2", "x1", "x2"))
_STEPS = st.one_of(
    st.tuples(st.just("fired"), _UIDS, _UIDS, st.integers(0, 150), st.integers(0, 4)),
    st.tuples(st.just("moved"), _UIDS, st.tuples(st.integers(0, 9), st.integers(0, 9))),
    st.tuples(st.just("rested"), _UIDS, st.integers(0, 3)),
    st.tuples(st.just("static"), _UIDS, st.sampled_from(_STATIC_TEXT), _TEXT),
    st.tuples(st.just("initial"), _UIDS, _INTS),
    st.tuples(st.just("leader"), _UIDS, st.booleans()),
    st.tuples(st.just("seq"), _UIDS, st.none() | _INTS),
)


def _step(state: BattleState, turn: int, step: tuple[Any, ...]) -> None:
    """One event applied, or one override (set_path: how a fork changes a static field)."""
    kind, uid = step[0], step[1]
    unit = state.units[uid]
    if kind == "fired":
        target = state.units[step[2]]
        if unit.active and target.active:
            apply_by_state(state, Fired(
                turn=turn, time=0.0, phase="defensive_fire", unit=uid, target=step[2],
                range=1, base_value=1.0, factors={}, result=_casualties(step[3], step[4]),
            ))  # fmt: skip
    elif kind == "moved":
        if unit.active and unit.hex is not None and step[2] not in state.occupant:
            apply_by_state(
                state,
                Moved(
                    turn=turn, time=0.0, unit=uid, reason="order", path=[step[2]], start=unit.hex
                ),
            )
    elif kind == "rested":
        apply_by_state(
            state, Rested(turn=turn, time=0.0, unit=uid, p=0.5, draws=[], recovered=step[2])
        )
    elif kind == "static":
        set_path(state, f"units.{uid}.{step[2]}", step[3], counts=True)
    elif kind == "initial":
        set_path(state, f"units.{uid}.initial", step[2], counts=True)
    elif kind == "leader":
        set_path(state, f"units.{uid}.leader", step[2], counts=True)
    else:
        set_path(state, f"units.{uid}.morale_cause", step[2], counts=True, allow_none=True)


@settings(max_examples=150)
@given(st.lists(st.lists(_STEPS, max_size=6), min_size=1, max_size=8))
def test_the_cached_digest_text_is_the_uncached_one_after_any_events(
    turns: list[list[tuple[Any, ...]]],
) -> None:
    """Turn by turn, events and overrides of any field (text with %, quotes, non-ASCII; ints
    of any size): each turn's text is the uncached rows' and the snapshot's canonical JSON."""
    state = _state()
    for turn, steps in enumerate(turns, start=1):
        for step in steps:
            _step(state, turn, step)
        units = list(state.units.values())
        assert list(_rows(units)) == [_unit_json(u) for u in units]
        assert snapshot_json(state) == canonical_json(state.snapshot())


def test_a_template_is_made_once_per_set_of_static_fields_and_is_shared() -> None:
    """Two states of the same units share their templates; a changed static field makes a
    new one, and the row follows it; the changing fields never make one."""
    _TEMPLATES.clear()
    first, second = _state(), _state()
    snapshot_json(first)
    assert len(_TEMPLATES) == 4
    second.units["a1"].strength = 7
    second.units["a1"].hex = (5, 5)
    assert snapshot_json(second) == canonical_json(second.snapshot())
    assert len(_TEMPLATES) == 4
    set_path(second, "units.a1.name", 'new "name" 10%', counts=True)
    row = next(_rows([second.units["a1"]]))
    assert len(_TEMPLATES) == 5
    assert row == _unit_json(second.units["a1"])
    assert '"name":"new \\"name\\" 10%"' in row and '"strength":7' in row


def test_a_leader_that_is_not_a_bool_is_written_as_the_uncached_row() -> None:
    """True == 1 as a key: a leader of another type (no override can give one; set by hand
    here) skips the templates and is written by the uncached row."""
    unit = _unit("a1", (1, 1))
    object.__setattr__(unit, "leader", 1)
    assert next(_rows([unit])) == _unit_json(unit)
    assert '"leader":1,' in _unit_json(unit)
