"""Strict JSON: every leniency of json.loads refused, at its exact boundary."""

from __future__ import annotations

import pytest

from engine.safety.strictjson import INT_MAX, INT_MIN, MAX_DEPTH, StrictJSONError, loads
from engine.safety.text import escape, find_control


def test_nesting_of_exactly_max_depth_is_read_one_more_is_refused() -> None:
    """64 nested arrays are read; 65 are refused (no RecursionError at any depth)."""
    expected: list[object] = []
    for _ in range(MAX_DEPTH - 1):
        expected = [expected]
    assert loads("[" * MAX_DEPTH + "]" * MAX_DEPTH) == expected
    with pytest.raises(StrictJSONError, match="nested deeper than 64"):
        loads("[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1))
    with pytest.raises(StrictJSONError, match="nested deeper"):
        loads("[" * 100_000 + "]" * 100_000)


def test_integers_at_the_ends_of_the_range_are_read_beyond_them_refused() -> None:
    """-2**63 and 2**64-1 are read; one further either way is refused; 5,000 digits too."""
    assert loads(f"[{INT_MIN},{INT_MAX}]") == [-(2**63), 2**64 - 1]
    for text in (str(INT_MIN - 1), str(INT_MAX + 1), "9" * 5000):
        with pytest.raises(StrictJSONError, match="out of range"):
            loads(text)


@pytest.mark.parametrize("text", ["NaN", "Infinity", "-Infinity", "1e999", "-1e400"])
def test_non_finite_numbers_are_refused(text: str) -> None:
    """NaN, Infinity and numbers that overflow to infinity are not JSON numbers here."""
    with pytest.raises(StrictJSONError):
        loads(f'{{"x":{text}}}')


def test_a_repeated_key_is_refused_at_any_depth() -> None:
    """{"a":1,"a":2} would silently be {"a":2}; strict refuses it, nested too."""
    with pytest.raises(StrictJSONError, match="duplicate key 'a'"):
        loads('{"b":{"a":1,"a":2}}')


def test_escape_shows_controls_and_keeps_newlines() -> None:
    """ESC, BEL and C1 CSI are shown as \\xNN; newline and tab pass; text is otherwise unchanged."""
    assert escape("a\x1b[2Jb\x07\x9b\n\tc") == "a\\x1b[2Jb\\x07\\x9b\n\tc"


def test_find_control_names_the_path() -> None:
    """The first string holding a control character is named by its path (keys too)."""
    assert find_control({"a": [1, "ok", "bad\x1b"]}) == ("a", 2)
    assert find_control({"k\x00": 1}) == ("k\x00",)
    assert find_control({"a": "line\nbreak\tand tab"}) is None
