"""What an event measure names is checked against the ruleset's event classes
(:mod:`sim.history.eventpaths`): every field every shipped event has is a path, and a
name no event has, an item a list may not hold, or a value a field never holds is not."""

from __future__ import annotations

import pytest
from pydantic import BaseModel, Field

from sim.contract.registry import get_ruleset
from sim.history.eventpaths import path_problem, value_problem
from sim.rulesets.musket.model.events import Fired, Meleed

EVERY_EVENT = [
    cls for name in ("musket", "flattop", "becmi") for cls in get_ruleset(name).registry.classes
]


@pytest.mark.parametrize("cls", EVERY_EVENT, ids=lambda c: c.model_fields["type"].default)
def test_every_field_of_every_event_is_a_path_and_no_other_name_is(cls: type[BaseModel]) -> None:
    for name in cls.model_fields:
        assert path_problem(cls, name) is None, name
    assert path_problem(cls, "no_such_field") is not None


def test_paths_go_through_models_named_tuples_and_fixed_items_only() -> None:
    assert path_problem(Fired, "result.casualties", "number") is None
    assert path_problem(Fired, "result.modifiers.column") is None  # a mapping's key, in a where
    assert path_problem(Fired, "result.draws.0.2") is None  # a where may look anywhere
    # an amount summed over events must be where every such event has it
    not_fixed = "optional or an item of a list or mapping"
    assert not_fixed in str(path_problem(Fired, "result.draws.0.2", "number"))
    assert not_fixed in str(path_problem(Fired, "factors.x", "number"))
    assert path_problem(Fired, "result.draws.0.name") is not None  # a list is read by index
    assert path_problem(Fired, "phase", "number") == (
        "'phase' of musket.fired events is not a number"
    )
    assert path_problem(Meleed, "winner", "text") is None
    assert path_problem(Meleed, "attacker_share", "text") is not None
    assert path_problem(Meleed, "odds.attacker_weight") is None  # through an optional model
    assert "optional" in str(path_problem(Meleed, "odds.attacker_weight", "number"))


def test_a_where_value_must_be_one_the_field_can_hold() -> None:
    assert value_problem(Meleed, "turn", 1) is None
    assert value_problem(Meleed, "turn", 1.0) is None  # 1 is 1.0, as the reader compares
    assert value_problem(Meleed, "turn", "1") is not None
    assert value_problem(Meleed, "turn", True) is not None  # true is not 1
    assert value_problem(Meleed, "flank", "rear") is None
    assert value_problem(Meleed, "flank", "behind") is not None  # not one of its Literal's
    assert value_problem(Meleed, "winner", "attacker") is None


class _Omitted(BaseModel):
    """An event whose line leaves fields out at their defaults."""

    type: str = "test.omitted"
    taken: int = Field(0, exclude_if=lambda value: value == 0)
    left: int = Field(5, exclude_if=lambda value: value == 5)
    flag: bool = Field(False, exclude_if=lambda value: not value)
    inner: Fired | None = Field(None, exclude_if=lambda value: value is None)


def test_a_summed_field_left_out_of_its_line_must_read_0_when_missing() -> None:
    """The reader takes a last field missing from an event's line as 0
    (``sim.history.measures._path``): that is right only for a number left out at 0
    (a ``musket.meleed``'s ``prisoners``), so any other field a line may leave out is no
    amount: one left out at 5 would be summed as 0."""
    assert path_problem(Meleed, "prisoners", "number") is None
    assert path_problem(Meleed, "pursuit_losses", "number") is None
    assert path_problem(_Omitted, "taken", "number") is None
    assert "optional" in str(path_problem(_Omitted, "left", "number"))
    assert "optional" in str(path_problem(_Omitted, "inner.result.casualties", "number"))
    assert path_problem(_Omitted, "left") is None  # a where may still compare it
