"""A chart legend's places: up to twelve names, or eleven and "+N more" in the twelfth."""

from __future__ import annotations

import re

from sim.replay.viewer.charts import _legend


def _texts(n: int) -> list[tuple[str, str, str]]:
    parts = _legend([(f"unit {k}", "#000", "") for k in range(n)])
    return re.findall(r'<text class="legend" x="(\d+)" y="(\d+)">([^<]*)</text>', "".join(parts))


def test_twelve_entries_take_the_twelve_places() -> None:
    texts = _texts(12)
    assert [t for _, _, t in texts] == [f"unit {k}" for k in range(12)]
    assert len({(x, y) for x, y, _ in texts}) == 12


def test_beyond_twelve_the_last_place_says_how_many_more() -> None:
    texts = _texts(13)
    assert [t for _, _, t in texts] == [*(f"unit {k}" for k in range(11)), "+2 more"]
    assert len({(x, y) for x, y, _ in texts}) == 12  # each in a place of its own
