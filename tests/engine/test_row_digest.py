"""RowDigest gives digest()'s exact bytes while it re-serialises only the rows that changed."""

from __future__ import annotations

from typing import Any

import pytest

from engine import canonical
from engine.canonical import RowDigest, canonical_json, digest


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
    """Counts the encoder's calls (rows serialised, and other values)."""

    def __init__(self) -> None:
        self.calls = 0
        self._encode = canonical._ENCODER.encode

    def encode(self, value: Any) -> str:
        self.calls += 1
        return self._encode(value)


def test_same_text_and_digest_as_a_full_serialisation() -> None:
    """The cached text and digest equal canonical_json and digest of the whole state."""
    rows = RowDigest()
    state = _state(5)
    assert rows.canonical_json(state) == canonical_json(state)
    assert rows.digest(state) == digest(state)


def test_only_changed_rows_are_serialised_again(monkeypatch: pytest.MonkeyPatch) -> None:
    """With one of 40 unit rows changed, only that row is encoded again.

    Each digest encodes the 5 keys and the 3 values that are not lists of
    rows; the first also encodes every row (2 sides + 40 units), the second
    only the changed one.
    """
    rows = RowDigest()
    state = _state(40)
    counter = Counting()
    monkeypatch.setattr(canonical._ENCODER, "encode", counter.encode)
    rows.digest(state)
    assert counter.calls == 5 + 3 + 2 + 40
    counter.calls = 0
    state["units"][7]["strength"] -= 3
    assert rows.digest(state) == digest(state)
    assert counter.calls == 5 + 3 + 1


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
