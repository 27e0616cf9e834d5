"""A battle runs with its setup frozen for the cyclic GC, and leaves the GC as it found it."""

from __future__ import annotations

import gc

import pytest
import simpy

from engine.kernel import TurnKernel, frozen_heap


def test_setup_is_frozen_while_the_battle_runs_and_thawed_after() -> None:
    """Objects made before run() are frozen during it; none stay frozen afterwards."""
    assert gc.get_freeze_count() == 0
    env = simpy.Environment()
    kernel = TurnKernel(env, ("a",), 1.0)
    seen: list[int] = []

    def on_end(turn: int) -> bool:
        seen.append(gc.get_freeze_count())
        return False

    kernel.start(2, on_end)
    kernel.run()
    assert len(seen) == 2 and min(seen) > 0
    assert gc.get_freeze_count() == 0


def test_a_callers_frozen_objects_stay_frozen() -> None:
    """Inside an outer freeze, leaving frozen_heap does not thaw the caller's objects."""
    gc.freeze()
    try:
        before = gc.get_freeze_count()
        with frozen_heap():
            pass
        assert gc.get_freeze_count() >= before > 0
    finally:
        gc.unfreeze()


def test_a_nested_block_keeps_the_freeze_and_asks_for_no_count(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Inside the runner's freeze the kernel's block freezes again but thaws nothing, and
    does not ask for the frozen count (a walk of every frozen object); the outer thaws."""
    asked: list[int] = []
    count = gc.get_freeze_count
    monkeypatch.setattr(gc, "get_freeze_count", lambda: asked.append(1) or count())
    with frozen_heap():
        with frozen_heap():
            inner = [object()]
        assert count() > 0 and inner
    assert count() == 0
    assert len(asked) == 1
