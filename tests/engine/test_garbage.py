"""The process's paced full collections (engine/garbage.py) and frozen_heap's look at them."""

from __future__ import annotations

import gc

import pytest

from engine import garbage
from engine.kernel import frozen_heap


def test_a_collector_collects_at_a_bounded_share_of_the_cpu(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Ratio 100: the first check starts the count and the first collection comes after
    100 x the assumed 0.05 s; then 100 x the cheapest walk so far (0.01 s) apart."""
    ran: list[int] = []
    monkeypatch.setattr(garbage.gc, "collect", lambda: ran.append(1) or 0)
    monkeypatch.setattr(garbage.gc, "get_objects", lambda: [None] * 1000)
    ticks = iter([1.0, 5.0, 6.0, 6.01, 6.5, 7.05, 7.07, 7.5, 8.5, 8.51])
    collector = garbage.Collector(ratio=100, clock=lambda: next(ticks))
    collector.check()  # 1.0: the count starts
    collector.check()  # 5.0: 4 s since, under 5 s (100 x 0.05)
    collector.check()  # 6.0: 5 s since: collects, 6.0 -> 6.01 (cost 0.01)
    collector.check()  # 6.5: 0.49 since, under 1 s
    collector.check()  # 7.05: 1.04 since: collects, 7.05 -> 7.07 (cost 0.02; 0.01 stays)
    collector.check()  # 7.5: 0.43 since
    collector.check()  # 8.5: 1.43 since: collects (cost 0.01)
    assert collector.collections == len(ran) == 3


@pytest.mark.parametrize(
    ("found", "took", "walk"),
    [
        # a large heap (a pytest process, a notebook): 0.2 s and nothing freed, all walk
        (0, 0.2, 0.2),
        # 1 s that found 9 unreachable objects for each that stayed: a tenth is the walk
        # (freeing is paid however often it comes)
        (9000, 1.0, 0.1),
    ],
)
def test_the_next_collection_waits_100_times_the_walk(
    found: int, took: float, walk: float, monkeypatch: pytest.MonkeyPatch
) -> None:
    """After the first collection (at 5 s), the next comes 100 x its walk later: the
    collection's cost times the share of the 1,000 objects visited that stayed, with no
    cap at 0.05 s (which would bring it after 5 s)."""
    ran: list[int] = []
    monkeypatch.setattr(garbage.gc, "collect", lambda: ran.append(1) or found)
    monkeypatch.setattr(garbage.gc, "get_objects", lambda: [None] * 1000)
    done = 5.0 + took
    ticks = iter([0.0, 5.0, done, done + 100 * walk - 0.1, done + 100 * walk + 0.1, 99.0])
    collector = garbage.Collector(ratio=100, clock=lambda: next(ticks))
    collector.check()  # the count starts
    collector.check()  # 5 s since: collects
    collector.check()  # just under 100 x the walk since
    assert collector.collections == len(ran) == 1
    collector.check()  # just over it: collects
    assert collector.collections == len(ran) == 2


def test_the_end_of_a_frozen_heap_gives_the_collector_one_look(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Only the outermost frozen heap hands the setup back, so only it looks."""
    looks: list[int] = []
    monkeypatch.setattr(garbage.PACED, "check", lambda: looks.append(gc.get_freeze_count()))
    with frozen_heap():
        with frozen_heap():
            pass
        assert looks == []
    assert looks == [0]  # after the unfreeze: nothing is left frozen when it looks
