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


def test_a_slow_walk_spaces_the_collections_out(monkeypatch: pytest.MonkeyPatch) -> None:
    """A process with a large heap (a pytest process, a notebook): a collection that frees
    nothing and takes 0.2 s puts the next 100 x 0.2 = 20 s of CPU later, not 5."""
    ran: list[int] = []
    monkeypatch.setattr(garbage.gc, "collect", lambda: ran.append(1) or 0)
    monkeypatch.setattr(garbage.gc, "get_objects", lambda: [None] * 1000)
    ticks = iter([0.0, 5.0, 5.2, 24.0, 25.3, 25.5])
    collector = garbage.Collector(ratio=100, clock=lambda: next(ticks))
    collector.check()  # 0.0: the count starts
    collector.check()  # 5.0: collects, 5.0 -> 5.2: the walk took 0.2 s
    collector.check()  # 24.0: 18.8 s since, under 20 s
    collector.check()  # 25.3: 20.1 s since: collects
    assert collector.collections == len(ran) == 2


def test_what_a_collection_frees_is_not_counted_as_its_walk(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A collection of 1 s that found 9 unreachable objects for each one that stayed
    counts 0.1 s as the walk (freeing is paid however often it comes): the next comes
    100 x 0.1 = 10 s of CPU later."""
    ran: list[int] = []
    monkeypatch.setattr(garbage.gc, "collect", lambda: ran.append(1) or 9000)
    monkeypatch.setattr(garbage.gc, "get_objects", lambda: [None] * 1000)
    ticks = iter([0.0, 5.0, 6.0, 15.9, 16.1, 16.2])
    collector = garbage.Collector(ratio=100, clock=lambda: next(ticks))
    collector.check()  # 0.0: the count starts
    collector.check()  # 5.0: collects, 5.0 -> 6.0, a tenth of it the walk
    collector.check()  # 15.9: 9.9 s since, under 10 s
    collector.check()  # 16.1: 10.1 s since: collects
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
