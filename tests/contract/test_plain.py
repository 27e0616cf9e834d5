"""sim.contract.plain: what canonical JSON cannot write, found where it is, and rules_data held
to it wherever a ruleset's rules are digested."""

from __future__ import annotations

import dataclasses
from fractions import Fraction
from typing import Any

import pytest

from sim.contract import HookError
from sim.contract.plain import not_plain_json
from sim.rulesets.musket import RULESET as MUSKET


@pytest.mark.parametrize(
    ("data", "said"),
    [
        ({"die": 10, "dice": {1, 2}}, "a set at 'dice'"),
        ({"tables": {"fire": [1, 2, float("nan")]}}, "the float nan at 'tables.fire.2'"),
        ({"bands": [(2, 100), (5, Fraction(3, 5))]}, "a Fraction at 'bands.1.1'"),
        ({"range": {(1, 2): 3}}, "a tuple key at 'range'"),
        ({"inf": -float("inf")}, "the float -inf at 'inf'"),
        (frozenset(), "a frozenset"),
        ({"a": 1, 2: "b"}, "data JSON cannot write ('<' not supported between instances of "
         "'int' and 'str')"),
    ],
)  # fmt: skip
def test_what_json_cannot_write_is_named_with_its_path(data: Any, said: str) -> None:
    """The first value (in the data's order) canonical_json refuses, by type and path."""
    assert not_plain_json(data) == said


def test_what_json_writes_today_passes() -> None:
    """A tuple (becmi's tables), None, booleans and nested lists pass: no digest given before
    is refused now."""
    assert not_plain_json({"a": (1, 2), "b": [None, True, 1.5, "x"], "c": {}}) is None


@pytest.mark.parametrize(
    ("data", "said"),
    [
        ({"die": 10, "dice": {1, 2}}, "rules_data returned a set at 'dice', not plain JSON data"),
        ({"die": float("nan")}, "rules_data returned the float nan at 'die', not plain JSON data"),
    ],
)
def test_rules_data_that_is_not_plain_json_is_a_hook_error(data: Any, said: str) -> None:
    """Every call of a ruleset's rules_data (each replay header, each study's row) gets plain
    JSON data or one line naming the ruleset and the hook; it raised json's own TypeError
    (at encoder.py:180) where a header was made."""
    broken: Any = dataclasses.replace(MUSKET, name="musket_tables", rules_data=lambda: data)
    with pytest.raises(HookError) as caught:
        broken.rules_data()
    assert str(caught.value) == f"ruleset 'musket_tables': {said}"
