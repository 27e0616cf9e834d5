"""diff's text shows a changed list of values from its first differing item.

A list of values (a result's draws, a route of hexes) changes as one value; cut to the
line's width from its start, two draw lists that share their first eight draws showed
the same start on both sides and hid the change (an extra draw in a rare branch: found
by an engineer's review). ``--json`` keeps both lists whole.
"""

from __future__ import annotations

from sim.replay.diff import _change


def _draws(indices: list[int]) -> list[list[object]]:
    return [["3/melee/cobb", i, round(0.1 + i / 100, 2)] for i in indices]


def test_the_line_starts_at_the_first_differing_draw_and_says_the_lengths() -> None:
    a = _draws([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10])
    b = _draws([0, 1, 2, 3, 4, 5, 6, 7, 9, 10, 11, 12])
    line = _change({"kind": "changed", "path": "attacker_losses.draws", "a": a, "b": b})
    assert line.startswith("  changed  attacker_losses.draws from item 8; 11 items -> 12: ")
    shown_a, shown_b = line.split(": ", 1)[1].split(" -> ")
    assert shown_a.startswith("(3/melee/cobb, 8, 0.18)")
    assert shown_b.startswith("(3/melee/cobb, 9, 0.19)")


def test_a_list_that_differs_from_its_first_item_and_other_values_are_shown_whole() -> None:
    line = _change({"kind": "changed", "path": "to", "a": [3, 4], "b": [4, 4]})
    assert line == "  changed  to: (3, 4) -> (4, 4)"
    assert _change({"kind": "changed", "path": "range", "a": 2, "b": 3}) == (
        "  changed  range: 2 -> 3"
    )


def test_a_list_that_only_grows_is_shown_from_where_it_grew() -> None:
    line = _change({"kind": "changed", "path": "route", "a": [[1, 1]], "b": [[1, 1], [1, 2]]})
    assert line == "  changed  route from item 1; 1 item -> 2: (empty) -> (1, 2)"


def test_a_hex_that_changes_in_its_second_number_is_shown_whole() -> None:
    """A hex is one value, written as everywhere else in diff: a melee's retreat hex that
    moved from 8,1 to 8,0 read ``from item 1: (1) -> (0)``, half a hex on each side."""
    line = _change({"kind": "changed", "path": "loser_retreats_to", "a": [8, 1], "b": [8, 0]})
    assert line == "  changed  loser_retreats_to: (8, 1) -> (8, 0)"
    position = _change({"kind": "changed", "path": "at", "a": [10, 20, 5], "b": [10, 20]})
    assert position == "  changed  at: (10, 20, 5) -> (10, 20)"
