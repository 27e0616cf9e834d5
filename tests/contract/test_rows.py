"""sim.contract.parts.row and trusted_part: slotted rows of a StateBase, made with or without
validation, snapshot, restored and compared as a Part is."""

from __future__ import annotations

import json

import pytest
from pydantic import Field, ValidationError

from sim.contract import ById, Part, StateBase, fixed, row, trusted_part


@row
class Gun:
    id: str
    rounds: int
    at: tuple[int, int] | None = None
    name: str = fixed("")
    hits: list[int] = Field(default_factory=list)


class Battery(StateBase):
    guns: ById[Gun]


class Slow(Part):
    id: str
    rounds: int


def test_a_row_is_slotted_refuses_unknown_fields_and_validates_when_made() -> None:
    """No instance dict; an unknown attribute and an unknown or mistyped argument refused."""
    gun = Gun(id="g", rounds=3)
    assert not hasattr(gun, "__dict__")
    with pytest.raises(AttributeError):
        gun.round = 4  # type: ignore[attr-defined]
    with pytest.raises(ValidationError):
        Gun(id="g", rounds="many")  # type: ignore[arg-type]
    with pytest.raises(ValidationError):
        Gun(id="g", rounds=3, colour="red")  # type: ignore[call-arg]


def test_rows_snapshot_restore_and_compare_as_parts_do() -> None:
    """A ById of rows dumps as a list of rows without the fixed field; restore takes the
    fixed field from the start; == ignores it; has_fixed sees it inside the row."""
    start = Battery(guns={"g": Gun(id="g", rounds=3, at=(1, 2), name="Long Tom")})
    state = Battery.restore(json.loads(json.dumps(start.snapshot())), start)
    assert start.snapshot() == {
        "ended": False,
        "guns": [{"id": "g", "rounds": 3, "at": [1, 2], "hits": []}],
    }
    assert Battery.has_fixed and Battery.rows_paths == [("guns",)]
    assert state == start and state.guns["g"].name == "Long Tom" and state.guns["g"].at == (1, 2)
    state.guns["g"].name = "other"
    assert state == start
    state.guns["g"].rounds = 2
    assert state != start


def test_trusted_part_makes_what_validation_makes_and_refuses_bad_names() -> None:
    """Defaults filled, a fresh list per row from the default factory; an unknown or a
    missing field is a TypeError naming it."""
    made = trusted_part(Gun, id="g", rounds=3)
    assert made == Gun(id="g", rounds=3)
    assert (made.at, made.name, made.hits) == (None, "", [])
    assert trusted_part(Gun, id="h", rounds=1).hits is not made.hits
    with pytest.raises(TypeError, match="Gun has no field 'colour'"):
        trusted_part(Gun, id="g", rounds=3, colour="red")
    with pytest.raises(TypeError, match="Gun: no value for 'rounds'"):
        trusted_part(Gun, id="g")


def test_a_row_reads_faster_than_a_part() -> None:
    """Not a timing: the mechanism.  A BaseModel's class has a __getattr__ hook (every read
    of an instance goes through it); a row's has none."""
    assert "__getattr__" not in {n for k in Gun.__mro__ for n in vars(k)}
    assert any("__getattr__" in vars(k) for k in Slow.__mro__)


def test_the_test_suite_checks_each_trusted_part_against_validation() -> None:
    """Under BATTLESIM_CHECK_LINES=1 (set by the suite) a value of another type than its
    field's, which validation would convert, is refused."""
    from sim.contract import parts

    trusted_part(Gun, id="g", rounds=3)
    assert parts.CHECK_TRUSTED is True
    with pytest.raises(TypeError, match="a trusted Gun is not what validation makes"):
        trusted_part(Gun, id="g", rounds="3")


def test_the_suite_checks_a_trusted_parts_values_type_for_type_inside_containers() -> None:
    """Not the field's type alone: a list of bools where validation makes a list of ints is
    refused (``True == 1``; validation makes ``[1]``)."""
    trusted_part(Gun, id="g", rounds=3, hits=[1, 2])
    with pytest.raises(TypeError, match="a trusted Gun is not what validation makes"):
        trusted_part(Gun, id="g", rounds=3, hits=[True, 2])
