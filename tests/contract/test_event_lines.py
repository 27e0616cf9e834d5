"""Every event class of every ruleset (and the toy) has the log's line body ``model_dump_json``'s.

The log writes an event's line from its serializer's bytes
(:func:`engine.log.line_body`) rather than through ``model_dump_json``; here
each registered class, built by Hypothesis from its fields' types, must
write the same text both ways, or refuse both ways (a lone surrogate).
"""

from __future__ import annotations

import typing
from typing import Any

import pytest
from hypothesis import HealthCheck, given, reject, settings
from hypothesis import strategies as st
from pydantic import ValidationError
from pydantic_core import PydanticSerializationError

from engine.events import Event
from engine.log import line_body
from sim.contract import get_ruleset, ruleset_names
from tests.contract.toy import RULESET as TOY

_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(), inner, max_size=3),
    max_leaves=8,
)
"""Any JSON value (and NaN, infinities, lone surrogates): what an ``Any`` field may hold."""


def _classes() -> list[type[Event]]:
    registries = [get_ruleset(name).registry for name in ruleset_names()] + [TOY.registry]
    found: dict[type[Event], None] = {}
    for registry in registries:
        for tag in registry.types:
            found[registry.cls(tag)] = None
    return list(found)


CLASSES = _classes()


def _strategy(cls: type[Event]) -> st.SearchStrategy[Event]:
    """``cls`` built from its fields' types; ``Any`` (alone or as a dict's values) as JSON."""
    fixed: dict[str, st.SearchStrategy[Any]] = {}
    for name, info in cls.model_fields.items():
        if info.annotation is Any:
            fixed[name] = _JSON
        elif info.annotation == dict[str, Any] or typing.get_args(info.annotation) == (str, Any):
            fixed[name] = st.dictionaries(st.text(), _JSON, max_size=4)
    return st.builds(cls, **fixed)


@pytest.mark.parametrize("cls", CLASSES, ids=[f"{c.__module__}.{c.__name__}" for c in CLASSES])
@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_line_body_is_model_dump_json(cls: type[Event], data: st.DataObject) -> None:
    """Built from its field types, the event's line body is its model_dump_json, encoded."""
    try:
        event = data.draw(_strategy(cls))
    except ValidationError:  # a constraint the types do not say (a die of 0)
        reject()
    try:
        expected = event.model_dump_json().encode()
    except PydanticSerializationError:
        with pytest.raises(PydanticSerializationError):
            line_body(event)
        return
    assert line_body(event) == expected
