"""sim.contract.parts: rows by id, fixed fields, and the snapshot order of a StateBase."""

from __future__ import annotations

import json
from typing import ClassVar

import pytest
from pydantic import Field

from sim.contract import ById, Part, StateBase, fixed


class Crew(Part):
    id: str
    hurt: int = 0


class Ship(Part):
    id: str
    hits: int = 0
    name: str = fixed()
    fought_turn: int = fixed(0)
    crews: ById[Crew] = Field(default_factory=dict)


class Fleet(StateBase):
    ships: ById[Ship]
    points: dict[str, int] = Field(default_factory=dict)


def _start() -> Fleet:
    crews = {"c1": Crew(id="c1"), "c2": Crew(id="c2")}
    ships = {"b": Ship(id="b", name="Bravo", crews=crews), "a": Ship(id="a", name="Alpha")}
    return Fleet(ships=ships)


def test_rows_by_id_are_lists_of_rows_in_the_snapshot_and_fixed_fields_are_left_out() -> None:
    """ById fields (nested too) dump as lists in order; a fixed field is not in the snapshot."""
    state = _start()
    state.ships["b"].hits, state.ships["b"].fought_turn = 2, 3
    state.ships["b"].crews["c2"].hurt = 1
    assert Fleet.rows_paths == [("ships", "*", "crews"), ("ships",)]
    assert state.snapshot() == {
        "ended": False,
        "ships": [
            {"id": "b", "hits": 2, "crews": [{"id": "c1", "hurt": 0}, {"id": "c2", "hurt": 1}]},
            {"id": "a", "hits": 0, "crews": []},
        ],
        "points": {},
    }


def test_restore_takes_fixed_fields_from_the_start_and_equals_the_state() -> None:
    """restore(data, start) rebuilds rows by id; fixed fields come from start; == skips them."""
    state = _start()
    state.ships["a"].hits, state.ships["a"].fought_turn = 4, 2
    data = json.loads(json.dumps(state.snapshot()))
    back = Fleet.restore(data, _start())
    assert back == state
    assert (back.ships["a"].name, back.ships["a"].fought_turn) == ("Alpha", 0)
    assert list(back.ships) == ["b", "a"] and list(back.ships["b"].crews) == ["c1", "c2"]
    back.ships["a"].hits = 5
    assert back != state


def test_a_snapshot_order_names_each_snapshot_field_once() -> None:
    """snapshot_order reorders the snapshot's keys; one naming other fields is refused."""

    class Ordered(StateBase):
        snapshot_order: ClassVar[tuple[str, ...]] = ("turn", "ended")
        turn: int = 0

    assert list(Ordered().snapshot()) == ["turn", "ended"]
    with pytest.raises(TypeError, match=r"expected \['ended', 'turn'\], got \['turn'\]"):

        class Wrong(StateBase):
            snapshot_order: ClassVar[tuple[str, ...]] = ("turn",)
            turn: int = 0
