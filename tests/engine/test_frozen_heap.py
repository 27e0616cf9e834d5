"""A battle runs with its setup frozen for the cyclic GC, and leaves the GC as it found it."""

from __future__ import annotations

import gc

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
