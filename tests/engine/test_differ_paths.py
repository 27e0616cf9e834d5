"""A MISMATCH names where in a field two lines part: the dotted path of the first value."""

from __future__ import annotations

from engine.comparison.compare import _fields_differ


def test_a_top_level_value_is_named_by_its_key() -> None:
    assert _fields_differ({"range": 2, "seq": 5}, {"range": 3, "seq": 5}) == "range"


def test_inside_a_mapping_the_first_differing_key_in_order_is_named() -> None:
    a = {"scenario": {"options": {"fire_hcv": 25, "spare_routed": True}, "name": "x"}}
    b = {"scenario": {"options": {"fire_hcv": 25}, "name": "x"}}
    assert _fields_differ(a, b) == "scenario.options.spare_routed"
    b = {"scenario": {"options": {"fire_hcv": 35, "spare_routed": False}, "name": "y"}}
    assert _fields_differ(a, b) == "scenario.options.fire_hcv"  # the line's order


def test_the_draws_are_named_before_what_they_decided() -> None:
    """A stray draw moves a draw's index and changes the casualties drawn with it: the draw
    is named, the cause before its effect, though `casualties` comes first in the line."""
    a = {"result": {"casualties": 6, "draws": [["2/fire/x", 0, 0.46]]}}
    b = {"result": {"casualties": 8, "draws": [["2/fire/x", 1, 0.68]]}}
    assert _fields_differ(a, b) == "result.draws.0.1"


def test_inside_a_list_of_the_same_length_the_first_differing_item_is_named() -> None:
    draws: list[list[object]] = [["s", 0, 0.5], ["s", 2, 0.25]]
    a = {"result": {"casualties": 3, "draws": [["s", 0, 0.5], ["s", 1, 0.25]]}}
    b = {"result": {"casualties": 3, "draws": draws}}
    assert _fields_differ(a, b) == "result.draws.1.1"
    draws.append(["s", 3, 0.1])  # another length: the list itself
    assert _fields_differ(a, b) == "result.draws"


def test_an_int_and_a_float_of_one_value_differ_as_written() -> None:
    assert _fields_differ({"result": {"v": 4}}, {"result": {"v": 4.0}}) == "result.v"


def test_several_fields_are_named_in_order_and_the_chain_hash_never() -> None:
    a = {"b": 1, "a": {"x": 1}, "h": "1"}
    b = {"b": 2, "a": {"x": 2}, "h": "2"}
    assert _fields_differ(a, b) == "a.x, b"


def test_a_top_level_draws_field_is_named_first_too() -> None:
    """A morale test's draws are its own field: a stray draw names them before the roll and
    the outcome they decided, which sort before them by name."""
    a = {"after": "good", "draws": [["s", 0, 0.1]], "passed": True, "roll": 2}
    b = {"after": "routed", "draws": [["s", 1, 0.9]], "passed": False, "roll": 6}
    assert _fields_differ(a, b) == "draws.0.1, after, passed, roll"
