"""A diff's bounded section says how many rows it cut in words that agree with the count.

The text diff shows at most 20 rows in a section and ends a cut one with a line saying how
many more there are. With one left the line read "... 1 more changed fields": the golden
Chancellorsville against itself with one stray draw taken in a melee against a disrupted
defender parts at seq 55 in 21 fields (an engineer's review, Eli's story). One is now said
in the singular: "1 more changed field (--verbose or --json lists it)", "1 more unit
differs", "1 more input change".
"""

from __future__ import annotations

import pytest

from sim.replay.diff import _bounded

ROWS = [f"  changed  f{i}: 0 -> 1" for i in range(21)]


@pytest.mark.parametrize(
    ("what", "one", "two"),
    [
        ("changed fields", "1 more changed field", "2 more changed fields"),
        ("units differ", "1 more unit differs", "2 more units differ"),
        ("input changes", "1 more input change", "2 more input changes"),
    ],
)
def test_one_row_cut_is_said_in_the_singular(what: str, one: str, two: str) -> None:
    assert _bounded(ROWS, False, what)[-1] == f"  ... {one} (--verbose or --json lists it)"
    assert _bounded([*ROWS, "x"], False, what)[-1] == (
        f"  ... {two} (--verbose or --json lists them)"
    )
    assert _bounded(ROWS, True, what) == ROWS
