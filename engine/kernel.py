"""The SimPy turn kernel: a turn clock and phases that processes wait on.

Time is in minutes from the start of the battle.  Turn ``t`` (1, 2, ...)
starts at ``(t - 1) * turn_minutes``; its ``k``-th phase (0-based) opens at
``turn start + k * turn_minutes / len(phases)``.

Same-time ordering (documented contract): when a phase opens, the processes
waiting on it resume one after another in ascending order of the ``order``
key they passed to :meth:`TurnKernel.phase`; a process that waits again on a
later phase is not resumed before every waiter of the current phase has run.
SimPy breaks ties by (time, priority, insertion id) and the kernel triggers
the waiters' events in that sorted order, so the order never depends on
dict, set or hash order.  At the end of each turn the kernel calls
``on_turn_end(turn)``; a true result stops the battle.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import simpy

__all__ = ["TurnKernel"]

OrderKey = tuple[Any, ...]


class TurnKernel:
    """A turn clock with named phases over a SimPy environment.

    Args:
        env: the environment the battle's processes run in.
        phases: phase names in the order they happen each turn.
        turn_minutes: length of one turn in simulation minutes.
    """

    def __init__(self, env: simpy.Environment, phases: Sequence[str], turn_minutes: float) -> None:
        if not phases:
            raise ValueError("a turn needs at least one phase")
        self.env = env
        self.phases = tuple(phases)
        self.turn_minutes = turn_minutes
        self.turn = 0
        self.phase_name = ""
        self.finished = False
        self._waiters: dict[str, list[tuple[OrderKey, int, simpy.Event]]] = {
            p: [] for p in self.phases
        }
        self._count = 0

    def phase(self, name: str, order: OrderKey) -> simpy.Event:
        """Return an event that fires when phase ``name`` next opens.

        Args:
            name: one of the kernel's phases.
            order: sort key deciding this waiter's turn among the phase's waiters.
        """
        event = self.env.event()
        self._count += 1
        self._waiters[name].append((order, self._count, event))
        return event

    def start(self, max_turns: int, on_turn_end: Callable[[int], bool]) -> simpy.Process:
        """Start the clock process for at most ``max_turns`` turns."""
        return self.env.process(self._clock(max_turns, on_turn_end))

    def _clock(
        self, max_turns: int, on_turn_end: Callable[[int], bool]
    ) -> simpy.events.ProcessGenerator:
        step = self.turn_minutes / len(self.phases)
        for turn in range(1, max_turns + 1):
            self.turn = turn
            for k, name in enumerate(self.phases):
                at = (turn - 1) * self.turn_minutes + k * step
                if at > self.env.now:
                    yield self.env.timeout(at - self.env.now)
                self.phase_name = name
                waiters = sorted(self._waiters[name], key=lambda w: (w[0], w[1]))
                self._waiters[name] = []
                for _order, _n, event in waiters:
                    event.succeed()
            yield self.env.timeout(turn * self.turn_minutes - self.env.now)
            self.phase_name = ""
            if on_turn_end(turn):
                break
        self.finished = True
