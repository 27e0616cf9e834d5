"""The viewer's spools: items back exactly as added, read in bounded pieces (issue 31)."""

from __future__ import annotations

import json

from sim.replay.viewer import spool
from sim.replay.viewer.spool import Spool, dumps


def test_items_come_back_as_json_dumps_writes_them() -> None:
    items = [{"a": 1, "b": [1.5, None, "é\n\u2028"]}, [], "x", 3, {"k": {"n": -0.0}}]
    s = Spool()
    for item in items:
        s.add(item)
    assert list(s.items()) == items
    assert "".join(s.chunks()) == json.dumps(
        items, separators=(",", ":"), ensure_ascii=False, allow_nan=False
    )
    assert [dumps(i) for i in items] == list(s.lines())


def test_many_items_cross_the_batch_and_keep_their_order() -> None:
    s = Spool()
    n = 3 * spool._BATCH // 10 + 7  # each item about 10 characters: several batches
    for i in range(n):
        s.add([i, i])
    assert s.count == n
    assert list(s.items()) == [[i, i] for i in range(n)]


def test_text_that_compresses_a_thousandfold_is_inflated_in_bounded_pieces() -> None:
    """A long battle's keyframes repeat: 64 KiB of them compressed is many MiB of text;
    reading inflates at most ``_READ`` bytes at a time."""
    s = Spool()
    row = {"rows": [{"pos": [3, 4], "str": 500, "status": ["steady"]}] * 50}
    for _ in range(20_000):
        s.add(row)
    pieces = list(s._text())
    assert max(len(p) for p in pieces) <= spool._READ
    total = sum(len(p) for p in pieces)
    assert total == 20_000 * (len(dumps(row)) + 1)
    assert total > 100 * s.size  # it did compress a hundredfold and more
