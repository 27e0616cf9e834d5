"""A fought battle leaves no unit process waiting for the cyclic GC to finish it.

At a battle's end the units' processes still wait on phase events that will never
come. Each sits in a cycle (the process, its generator, the event's callbacks), and a
waiting generator's frame holds the unit's locals, so a whole run's objects stayed
until a full collection freed them, at several times the cost of reference counting.
The runner closes them when the battle ends, so what is left for the GC holds no frame.
"""

from __future__ import annotations

import gc
import inspect
from collections.abc import Iterator
from pathlib import Path

import pytest
import simpy

from engine.kernel import TurnKernel
from engine.replayfile.sinks import DiscardSink
from sim.replay.header import make_header
from sim.scenario.load import load_scenario

ROOT = Path(__file__).resolve().parents[2]


def _waiting() -> list[object]:
    """Every generator the GC tracks that waits at a ``yield`` (holds a live frame)."""
    return [
        o
        for o in gc.get_objects()
        if inspect.isgenerator(o) and inspect.getgeneratorstate(o) == "GEN_SUSPENDED"
    ]


@pytest.fixture
def no_collection() -> Iterator[None]:
    """No automatic collection inside the block: what a run leaves stays to be seen."""
    gc.collect()
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


@pytest.mark.parametrize("name", ["stone_wall", "carrier_duel", "dungeon_skirmish"])
@pytest.mark.usefixtures("no_collection")
def test_no_process_of_a_fought_battle_is_left_waiting(name: str) -> None:
    """After ``simulate`` returns, no generator it started still waits at a ``yield``."""
    ruleset, scenario = load_scenario(ROOT / "scenarios" / f"{name}.yaml")
    before = _waiting()
    for seed in (1, 2):
        ruleset.simulate(scenario, make_header(ruleset, scenario, seed, source=name), DiscardSink())
    left = [g.__qualname__ for g in _waiting() if not any(g is b for b in before)]  # type: ignore[attr-defined]
    assert left == []


def test_a_process_that_will_not_close_is_named_and_the_others_still_close() -> None:
    """``TurnKernel.close``: a process that yields again at ``GeneratorExit`` cannot change
    a battle that is over; it is named in a RuntimeWarning, and the next is closed anyway."""
    env = simpy.Environment()
    kernel = TurnKernel(env, ("a",), 1.0)

    def stubborn() -> simpy.events.ProcessGenerator:
        try:
            yield kernel.phase("a", (0,))
        except GeneratorExit:
            yield kernel.phase("a", (0,))  # yields again once: close() raises RuntimeError

    def plain() -> simpy.events.ProcessGenerator:
        yield kernel.phase("a", (1,))

    bodies = [stubborn(), plain()]
    for body in bodies:
        kernel.process(body)
    env.run()  # both wait on a phase that never opens
    with pytest.warns(RuntimeWarning, match=r"process .*stubborn did not close"):
        kernel.close()
    assert inspect.getgeneratorstate(bodies[1]) == "GEN_CLOSED"
    bodies[0].close()  # the second time it lets go (not left to the GC's finalizer)
