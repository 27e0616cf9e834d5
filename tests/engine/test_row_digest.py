"""RowDigest gives digest()'s exact bytes while it re-serialises only the rows that changed."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import canonical
from engine.canonical import RowDigest, canonical_json, digest, rows_json


def _state(n: int) -> dict[str, Any]:
    return {
        "units": [
            {"id": f"u{i}", "strength": 100 + i, "hex": (i, 2), "fatigue": 0.5} for i in range(n)
        ],
        "sides": [{"id": "a", "broken": False}, {"id": "b", "broken": False}],
        "ended": False,
        "winner": None,
        "objective_points": {"b": 1, "a": 2},
    }


class Counting:
    """Counts calls of an encoding function."""

    def __init__(self, encode: Any) -> None:
        self.calls = 0
        self._encode = encode

    def encode(self, *value: Any) -> Any:
        self.calls += 1
        return self._encode(*value)


def test_same_text_and_digest_as_a_full_serialisation() -> None:
    """The cached text and digest equal canonical_json and digest of the whole state."""
    rows = RowDigest()
    state = _state(5)
    assert rows.canonical_json(state) == canonical_json(state)
    assert rows.digest(state) == digest(state)


def test_only_changed_rows_are_serialised_again(monkeypatch: pytest.MonkeyPatch) -> None:
    """With one of 40 unit rows changed, only that row is encoded again.

    Each digest has the encoder write the 5 keys and the 3 values that are
    not lists of rows, and a row's fatigue (a float; its hex, a tuple of
    ints, is written by RowDigest itself); the first encodes every row
    (2 sides + 40 units), the second only the changed one.
    """
    rows = RowDigest()
    state = _state(40)
    counter = Counting(canonical._ENCODER.encode)
    row_counter = Counting(RowDigest._encode)
    monkeypatch.setattr(canonical._ENCODER, "encode", counter.encode)
    # a function, not the bound method: the class attribute must bind to each RowDigest
    monkeypatch.setattr(RowDigest, "_encode", lambda self, row: row_counter.encode(self, row))  # noqa: PLW0108
    rows.digest(state)
    assert (counter.calls, row_counter.calls) == (5 + 3 + 40, 2 + 40)
    counter.calls = row_counter.calls = 0
    state["units"][7]["strength"] -= 3
    assert rows.digest(state) == digest(state)
    assert (counter.calls, row_counter.calls) == (5 + 3 + 1, 1)


@pytest.mark.parametrize("new", [1, True, 1.0, (1,), [1], "1"])
def test_a_value_of_another_type_is_never_taken_for_the_old_one(new: Any) -> None:
    """1, 1.0, True, (1,), [1] and "1" compare or print alike; the row's text is still exact."""
    rows = RowDigest()
    state = {"units": [{"v": 1}]}
    rows.digest(state)
    state["units"][0]["v"] = new
    assert rows.canonical_json(state) == canonical_json(state)


def test_a_row_marshal_refuses_is_serialised_each_time() -> None:
    """A row holding a type marshal refuses (a str subclass) is encoded afresh, and exactly."""

    class Name(str):
        pass

    rows = RowDigest()
    state = {"units": [{"name": Name("x")}]}
    assert rows.canonical_json(state) == canonical_json(state) == '{"units":[{"name":"x"}]}'


_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(), inner, max_size=3),
    max_leaves=6,
)


@given(st.lists(st.dictionaries(st.text(), _VALUES, max_size=6), max_size=4))
def test_rows_written_member_by_member_are_the_encoders_text(units: list[dict[str, Any]]) -> None:
    """Any rows (any text, with quotes, controls or non-ASCII; ints, bools, None, floats,
    nested values) give canonical_json's exact text, the first time and from the cache."""
    rows = RowDigest()
    state = {"units": units}
    assert rows.canonical_json(state) == canonical_json(state)
    assert rows.canonical_json(state) == canonical_json(state)


def test_a_list_that_mostly_changes_is_written_without_signatures_for_a_while(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Every unit row changed: the next DIRECT_DIGESTS digests take no signature of a unit
    row (2 sides still), then signatures are checked again; the text is exact throughout."""
    rows = RowDigest()
    state = _state(8)
    signed = Counting(canonical.marshal.dumps)
    monkeypatch.setattr(canonical.marshal, "dumps", signed.encode)
    calls = []
    for _ in range(RowDigest.DIRECT_DIGESTS + 3):
        for unit in state["units"]:
            unit["strength"] += 1
        signed.calls = 0
        assert rows.canonical_json(state) == canonical_json(state)
        calls.append(signed.calls)
    first_check, direct = [8 + 2, 8 + 2], [2] * RowDigest.DIRECT_DIGESTS
    assert calls == [*first_check, *direct, 8 + 2]


_TEXT = st.text(st.characters(exclude_categories=()))  # lone surrogates too
_SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.sampled_from([2**63 - 1, -(2**63), 2**64 - 1, 2**64, -(2**63) - 1])
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.sampled_from([-0.0, 1e16, 5e-324, 1e-7, 1e-5, 0.1, 1e22])
    | _TEXT
)
_ANY = st.recursive(
    _SCALARS,
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.lists(inner, max_size=3).map(tuple)
        | st.dictionaries(_TEXT, inner, max_size=3)
    ),
    max_leaves=8,
)


@settings(max_examples=500)
@given(st.lists(st.dictionaries(_TEXT, _ANY, max_size=6), max_size=4))
def test_rows_json_is_canonical_json_or_declines(rows: list[dict[str, Any]]) -> None:
    """For any rows (floats, 65-bit ints, surrogates, nested values) msgspec's text, when
    rows_json gives one, is exactly canonical_json's."""
    text = rows_json(rows)
    assert text is None or text == canonical_json(rows)


_PLAIN = st.none() | st.booleans() | st.integers(min_value=-(2**80), max_value=2**80) | st.text()
_ROW = st.dictionaries(
    st.text(),
    _PLAIN | st.lists(_PLAIN, max_size=3) | st.lists(_PLAIN, max_size=3).map(tuple),
    max_size=8,
)


@settings(max_examples=500)
@given(st.lists(_ROW, max_size=4))
def test_rows_of_text_ints_bools_and_arrays_of_them_are_written_by_msgspec(
    rows: list[dict[str, Any]],
) -> None:
    """Text (any but lone surrogates: non-ASCII, quotes, controls), ints of any width, bools,
    None and one level of arrays of them: rows_json never declines, and its text is exact."""
    assert rows_json(rows) == canonical_json(rows)


@pytest.mark.parametrize(
    ("value", "stdlib"),
    [
        (1e-7, "1e-07"),
        (1e16, "1e+16"),
        (-0.0, "-0.0"),
        ([[1]], "[[1]]"),
        ([0.5], "[0.5]"),
        ({"a": 1}, '{"a":1}'),
        ("\ud800", '"\ud800"'),
    ],
)
def test_rows_json_declines_what_msgspec_might_write_otherwise(value: Any, stdlib: str) -> None:
    """A float anywhere, a nested array or mapping, a lone surrogate: declined, and the
    stdlib writes it (the texts here are Python's own)."""
    assert rows_json([{"v": value}]) is None
    assert canonical_json([{"v": value}]) == '[{"v":' + stdlib + "}]"


def test_a_mostly_changing_list_of_plain_rows_is_written_by_msgspec(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Once the unit rows mostly change, each digest writes them through rows_json, exactly."""
    written = Counting(canonical.rows_json)
    monkeypatch.setattr(canonical, "rows_json", written.encode)
    rows = RowDigest()
    state = {"units": [{"id": f"u{i}", "hex": (i, 2), "strength": 100} for i in range(8)]}
    texts = []
    for turn in range(4):
        for unit in state["units"]:
            unit["strength"] -= turn
        texts.append(rows.canonical_json(state) == canonical_json(state))
    assert (texts, written.calls) == ([True] * 4, 2)  # turns 1-2 check signatures
