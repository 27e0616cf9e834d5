"""``same_typed(a, b)`` answers what ``typed(a) == typed(b)`` does, building neither."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from sim.contract.models import Measure, same_typed, typed


class Word(str):
    """A subclass of ``str``: the same text, another type."""


class Items(list[Any]):
    """A subclass of ``list``: the same items, another type (the general branch of the walk)."""


class Table(dict[Any, Any]):
    """A subclass of ``dict``: :func:`typed` calls it a ``dict``, so the walk must too."""


SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 3),
    st.sampled_from([0.0, -0.0, 1.0, -1.0, 2.5]),  # -0.0: other bytes, the same typed value
    st.sampled_from(["", "a", "men", Word("a")]),
    st.sampled_from([b"a", bytearray(b"a")]),  # the same bytes, two types
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3),
        st.lists(inner, max_size=3).map(tuple),
        st.lists(inner, max_size=3).map(Items),
        st.dictionaries(
            st.one_of(st.sampled_from(["a", "b"]), st.integers(0, 1), st.booleans()),
            inner,
            max_size=3,
        ).flatmap(lambda d: st.sampled_from([d, Table(d)])),
    ),
    max_leaves=8,
)
MEASURES = st.builds(
    lambda name, value, unit: Measure.model_construct(name=name, value=value, unit=unit),
    st.sampled_from(["men", "guns"]),
    st.one_of(st.integers(0, 2), st.sampled_from([0.0, 1.0, 2.0])),
    st.sampled_from(["men", "guns"]),
)


@given(VALUES, VALUES)
def test_any_two_values(a: Any, b: Any) -> None:
    assert same_typed(a, b) == (typed(a) == typed(b))


@given(VALUES)
def test_a_value_and_itself_rebuilt(a: Any) -> None:
    assert same_typed(a, a) and (typed(a) == typed(a))


@given(
    st.lists(st.one_of(VALUES, MEASURES), max_size=3),
    st.lists(st.one_of(VALUES, MEASURES), max_size=3),
)
def test_models_among_values(a: list[Any], b: list[Any]) -> None:
    assert same_typed(a, b) == (typed(a) == typed(b))


def test_equal_values_of_other_types_differ() -> None:
    """-0.0 and 0.0 are the same typed value; a ``str`` subclass is not a ``str``, nor a
    ``bytearray`` ``bytes``, whatever they hold."""
    assert same_typed([0.0, {"a": (1, -0.0)}], [-0.0, {"a": (1, 0.0)}])
    assert not same_typed(["a"], [Word("a")])
    assert same_typed([Word("a")], [Word("a")])
    assert not same_typed([b"ab"], [bytearray(b"ab")])


def test_an_int_where_a_float_was_validated_differs() -> None:
    """What the trusted check is for: 1 and 1.0 are equal values of different types."""
    built = Measure.model_construct(name="men", value=1, unit="men")
    validated = Measure.model_construct(name="men", value=1.0, unit="men")
    assert built.value == validated.value
    assert not same_typed(built, validated)
    assert same_typed(built, Measure.model_construct(name="men", value=1, unit="men"))


def test_a_list_subclass_differs_and_a_dict_subclass_does_not() -> None:
    """As :func:`typed` has it: a ``list`` subclass is another type, a ``dict`` subclass is a
    ``dict`` (the walk's fast branches take exact types only)."""
    assert not same_typed([1, 2], Items([1, 2]))
    assert not same_typed(Items([1, 2]), [1, 2])
    assert same_typed(Items([1, (2,)]), Items([1, (2,)]))
    assert same_typed({"a": 1}, Table({"a": 1})) and same_typed(Table({"a": 1}), {"a": 1})
    assert not same_typed({"a": 1}, Table({"a": 1.0}))
    assert typed([1, 2]) != typed(Items([1, 2])) and typed({"a": 1}) == typed(Table({"a": 1}))


class Sorted(dict[Any, Any]):
    """A ``dict`` subclass that iterates its keys sorted: :func:`typed` reads its items."""

    def __iter__(self) -> Any:
        return iter(sorted(super().__iter__()))


def test_a_dict_is_walked_by_its_items_as_typed_reads_it() -> None:
    """Whatever its iteration says, a dict is compared item by item, in ``items()`` order."""
    a, b = {"b": 2, "a": 1}, Sorted(b=2, a=1)
    assert list(b) == ["a", "b"] and list(b.items()) == [("b", 2), ("a", 1)]
    assert same_typed(a, b) and (typed(a) == typed(b))
    assert not same_typed({"a": 1, "b": 2}, b) and typed({"a": 1, "b": 2}) != typed(b)
