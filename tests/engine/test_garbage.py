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
    100 x the assumed 0.05 s; then 100 x the cheapest collection so far (0.01 s) apart."""
    ran: list[int] = []
    monkeypatch.setattr(garbage.gc, "collect", lambda: ran.append(1) or 0)
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
