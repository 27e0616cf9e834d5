"""The SimPy turn kernel: a turn clock, phases and timed waits that processes wait on.

Time is in minutes (or any unit) from the start of the battle.  Turn ``t``
(1, 2, ...) starts at ``(t - 1) * turn_minutes``; its ``k``-th phase
(0-based) opens at ``turn start + k * turn_minutes / len(phases)``.

Same-time ordering (documented contract):

* When a phase opens, the processes waiting on it (:meth:`TurnKernel.phase`)
  resume one after another in ascending order of their ``order`` key; a
  process that waits again on a later phase is not resumed before every
  waiter of the current phase has run.
* A timed wait (:meth:`TurnKernel.at`) resumes its process at an exact time
  (continuous time; a battle may use it instead of, or beside, phases).
  Timed waiters due at the same time resume one at a time in ascending
  ``(order, registration)``; each runs — with everything it sets off at that
  moment, such as other processes it hands work to — before the next resumes,
  so a waiter registered during that moment with a lower order goes first.
  Timed waiters due at a phase's opening resume after that phase's waiters.
* At the end of each turn the kernel calls ``on_turn_end(turn)`` before any
  timed waiter due at that same time; a true result stops the battle.

SimPy breaks ties by (time, priority, insertion id); the kernel triggers
events itself in its sorted order, so the order never depends on dict, set
or hash order, and no SimPy internals are touched.  Each phase opening is
one SimPy event shared by all its waiters (one heap push and pop, not one
per waiter): its public ``callbacks`` list (each waiting process's resume)
is put in the waiters' order before it is triggered, so every waiter is
still a SimPy process resumed by SimPy.
"""

from __future__ import annotations

import gc
import heapq
import operator
import warnings
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import simpy

from engine import garbage

__all__ = ["TurnKernel", "frozen_heap"]

OrderKey = tuple[Any, ...]
Waiters = list[Any]
"""A phase's waiters in registration order, flat: order key, process, order key, process...
(two appends, no tuple per wait: nothing more for the cyclic GC to scan)."""


_depth = 0
"""How many :func:`frozen_heap` blocks are open (the runner's around the kernel's)."""


def _uncopyable(exc: BaseException) -> bool:
    """Whether SimPy's ``type(exc)(*exc.args)`` fails for ``exc`` (pydantic's
    ``ValidationError``): a process's error it re-raises so is lost in a ``TypeError``."""
    try:
        type(exc)(*exc.args)
    except Exception:  # any failure to make it again: SimPy's would fail alike
        return True
    return False


@contextmanager
def frozen_heap() -> Iterator[None]:
    """Leave every object that exists now out of the cyclic GC's scans until the end.

    A battle's setup (modules, scenario, state, one process per unit) lives
    as long as the battle; without this, each older-generation collection
    walks all of it again, a cost that grows with the size of the armies.
    Reference counting still frees what dies.  When the caller had frozen
    objects already, they stay frozen afterwards.  What is handed back at the
    end is not counted towards a full collection, so the end of each run
    gives :data:`engine.garbage.PACED` a look: it collects the process's
    cycles at a bounded share of its CPU.
    """
    global _depth  # noqa: PLW0603 - the process's one GC, like gc.freeze itself
    # gc.get_freeze_count() walks every frozen object: asked only outside our own freeze
    outer = _depth > 0 or gc.get_freeze_count() > 0
    gc.freeze()
    _depth += 1
    try:
        yield
    finally:
        _depth -= 1
        if not outer:
            gc.unfreeze()
            garbage.PACED.check()


_SELF = operator.attrgetter("__self__")


def _owner(callback: object) -> object:
    """The object a bound-method callback belongs to (a process, for ``_resume``), or None."""
    return getattr(callback, "__self__", None)


def _in_order(
    callbacks: list[Callable[[simpy.Event], None]], waiters: Waiters, ascending: list[OrderKey]
) -> None:
    """Put a phase event's callbacks in the waiters' ``(order, registration)`` order, in place.

    Each waiter process yielded the phase's one shared event, so SimPy
    holds its ``_resume`` in the event's public ``callbacks`` list in the
    order the processes waited, which is the order of ``waiters``.  When
    the two match one to one (one check), the callbacks are sorted stably
    by their waiters' order keys; there is nothing to do when the keys
    equal ``ascending`` (the last phase's keys, in order: one comparison of
    the same key objects) or rise.  Otherwise each callback is ranked by
    the waiter process that registered it; a callback no waiter process
    registered (an event yielded inside a condition, a callback added by
    hand) runs after the waiters, in the order it was added.
    """
    orders, procs = waiters[0::2], waiters[1::2]
    try:
        owners = list(map(_SELF, callbacks))
    except AttributeError:  # a plain function among them
        owners = []
    if owners == procs:  # identity first: a process equals only itself
        if orders != ascending and not all(map(operator.le, orders, orders[1:])):
            ranked = sorted(range(len(orders)), key=orders.__getitem__)
            callbacks[:] = [callbacks[i] for i in ranked]
            orders = [orders[i] for i in ranked]
        ascending[:] = orders
        return
    rank: dict[int, tuple[OrderKey, int]] = {}
    for n, (order, proc) in enumerate(zip(orders, procs, strict=True)):
        if proc is not None:
            rank.setdefault(id(proc), (order, n))
    known = [cb for cb in callbacks if id(_owner(cb)) in rank]
    known.sort(key=lambda cb: rank[id(_owner(cb))])
    rest = [cb for cb in callbacks if id(_owner(cb)) not in rank]
    callbacks[:] = known + rest


class TurnKernel:
    """A turn clock with named phases and timed waits over a SimPy environment.

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
        self._waiters: dict[str, Waiters] = {p: [] for p in self.phases}
        self._ascending: list[OrderKey] = []  # the order keys of the last phase opened
        self._opening: dict[str, simpy.Event] = {p: env.event() for p in self.phases}
        self._timed: list[tuple[float, OrderKey, int, simpy.Event]] = []
        self._count = 0
        self._poke: simpy.Event | None = None
        self._sleeping_until = float("inf")
        self._bodies: list[simpy.events.ProcessGenerator] = []
        self._processes: list[simpy.Process] = []
        self._parents: dict[simpy.Process, simpy.Process | None] = {}
        """Each process started by :meth:`process` → the process running when it was started
        (None: started before the clock ran)."""

    def phase(
        self, name: str, order: OrderKey, process: simpy.Process | None = None
    ) -> simpy.Event:
        """Return an event that fires when phase ``name`` next opens.

        Args:
            name: one of the kernel's phases.
            order: sort key deciding this waiter's turn among the phase's waiters.
            process: the process that will yield the event, when the caller holds it (a
                process that waits every turn reads ``env.active_process``, a property,
                once); None: the active process.
        """
        waiters = self._waiters[name]
        waiters.append(order)
        waiters.append(self.env.active_process if process is None else process)
        return self._opening[name]

    def at(self, when: float, order: OrderKey) -> simpy.Event:
        """Return an event that fires at simulation time ``when`` (now, if it is past).

        Args:
            when: the time to resume at.
            order: sort key among the timed waiters due at the same time.
        """
        when = max(when, float(self.env.now))
        event = self.env.event()
        self._count += 1
        heapq.heappush(self._timed, (when, order, self._count, event))
        if when < self._sleeping_until and self._poke is not None and not self._poke.triggered:
            self._poke.succeed()  # the clock sleeps past it: wake it to re-plan
        return event

    def process(self, body: simpy.events.ProcessGenerator) -> simpy.Process:
        """Start ``body`` as a process of the battle, to be finished by :meth:`close`."""
        self._bodies.append(body)
        process = self.env.process(body)
        self._processes.append(process)
        self._parents[process] = self.env.active_process
        return process

    def failed(self, raised: BaseException) -> list[simpy.Process]:
        """The process whose failure ``raised`` is (SimPy re-raises a copy whose cause is the
        original), then the process that started it, and so on to one started before the
        clock ran; empty when no process of the battle failed with it."""
        ids: set[int] = set()  # SimPy's copies, each the next one's cause, and the original
        cause: BaseException | None = raised
        while cause is not None and id(cause) not in ids:
            ids.add(id(cause))
            cause = cause.__cause__
        found = next(  # the last started: a process waiting on one that failed fails too
            (
                p
                for p in reversed(self._processes)
                if p.triggered and not p.ok and id(p.value) in ids
            ),
            None,
        )
        line: list[simpy.Process] = []
        while found is not None and found not in line:
            line.append(found)
            found = self._parents.get(found)
        return line

    def close(self) -> None:
        """Finish every process started by :meth:`process` that still waits (the battle is over).

        At a battle's end its processes wait on events that will never come, each
        in a cycle (the process, its generator, the event's callbacks) whose
        generator frame holds what the process used.  Left to the cyclic GC, a
        whole run's objects waited for a full collection, which freed them at
        several times the cost of reference counting (a study's worker spent
        9 % of its CPU there, a carrier battle's 23 %).  Closing a generator is
        what the GC's finalizer would do later (``GeneratorExit`` at its
        ``yield``); done here, its frame is freed at once and the small cycles
        left are cheap to collect.  A finished process is not touched.  A process
        that will not close (it yields again, or its clean-up raises) cannot change
        the battle, whose log is closed: each is named in a ``RuntimeWarning``, as
        the GC would have reported it, and the others are closed all the same.  An
        error that says the battle was changed after its end (its ``after_the_end``
        is true: :class:`engine.recorder.LateEvent`, an event emitted by clean-up
        code) is raised once every process is closed.

        Raises:
            Exception: the first such error.
        """
        bodies, self._bodies = self._bodies, []
        self._processes = []
        self._parents = {}
        late: list[Exception] = []
        for body in bodies:
            try:
                body.close()
            except Exception as exc:  # reported, as the GC's finalizer did
                if getattr(exc, "after_the_end", False):
                    late.append(exc)
                    continue
                name = getattr(body, "__qualname__", type(body).__name__)
                warnings.warn(
                    f"process {name} did not close at the battle's end: {exc!r}",
                    RuntimeWarning,
                    stacklevel=2,
                )
        if late:
            raise late[0]

    def start(self, max_turns: int, on_turn_end: Callable[[int], bool]) -> simpy.Process:
        """Start the clock process for at most ``max_turns`` turns."""
        clock = self.env.process(self._clock(max_turns, on_turn_end))
        self._processes.append(clock)
        return clock

    def run(self, until: simpy.Event | None = None) -> None:
        """Run the environment (until ``until``, else to the end) with the setup frozen.

        Call it once every process is started: see :func:`frozen_heap`.
        """
        try:
            with frozen_heap():
                self.env.run(until=until)
        except Exception as raised:
            original = self._uncopied(raised)
            if original is None:
                raise
        else:
            return
        raise original  # outside the handler: no SimPy TypeError chained to it

    def _uncopied(self, raised: Exception) -> BaseException | None:
        """The exception a process raised, when SimPy could not copy it as it re-raises.

        SimPy re-raises a failed process's exception as ``type(exc)(*exc.args)``,
        its cause the original.  An exception that cannot be made again from its
        ``args`` (pydantic's ``ValidationError``: a plugin building an event with a
        wrongly typed field) made SimPy raise that construction's ``TypeError``
        instead, and the original — its message, its place — was lost; a copy of an
        ``OSError`` loses the file name set on it after it was made (a full disk's, named by
        the replay's sink), and the original is raised then too.  None when ``raised`` is
        SimPy's whole copy or no process failed.
        """
        cause = raised.__cause__
        if cause is not None and type(cause) is type(raised) and str(cause) != str(raised):
            return cause  # SimPy's copy of cause lost the file name set on the original
        if not isinstance(raised, TypeError):
            return None  # a whole copy, or an error not of SimPy's copying: as raised
        # a TypeError: SimPy's failed copy, raised at once or copied on from a process
        # that waited on the one that failed (a child), or a plugin's own TypeError
        failed = (p.value for p in self._processes if p.triggered and not p.ok)
        for value in failed:  # the error SimPy could not copy, whichever process it failed
            if isinstance(value, BaseException) and value is not raised and _uncopyable(value):
                return value
        return None

    def _settle(self) -> simpy.events.ProcessGenerator:
        """Wait until nothing more is scheduled at the current time."""
        while self.env.peek() == self.env.now:
            yield self.env.timeout(0)

    def _sleep(self, until: float) -> simpy.events.ProcessGenerator:
        """Sleep until ``until`` or until a timed waiter is registered before it."""
        self._poke = self.env.event()
        self._sleeping_until = until
        yield self.env.timeout(until - self.env.now) | self._poke
        self._poke, self._sleeping_until = None, float("inf")

    def _advance(self, to: float, *, inclusive: bool) -> simpy.events.ProcessGenerator:
        """Resume timed waiters due before ``to`` (at it, too, if ``inclusive``), then reach it."""
        while True:
            due = self._timed[0][0] if self._timed else float("inf")
            if due < to or (inclusive and due == to):
                if due > self.env.now:
                    yield from self._sleep(due)
                    continue
                event = heapq.heappop(self._timed)[3]
                event.succeed()
                yield event
                yield from self._settle()
            elif to > self.env.now:
                yield from self._sleep(to)
            else:
                return

    def _open(self, name: str) -> simpy.events.ProcessGenerator:
        self.phase_name = name
        event, waiters = self._opening[name], self._waiters[name]
        self._opening[name], self._waiters[name] = self.env.event(), []
        _in_order(event.callbacks, waiters, self._ascending)
        event.succeed()
        if self._timed:
            yield from self._settle()

    def _clock(
        self, max_turns: int, on_turn_end: Callable[[int], bool]
    ) -> simpy.events.ProcessGenerator:
        step = self.turn_minutes / len(self.phases)
        for turn in range(1, max_turns + 1):
            self.turn = turn
            for k, name in enumerate(self.phases):
                yield from self._advance((turn - 1) * self.turn_minutes + k * step, inclusive=False)
                yield from self._open(name)
                yield from self._advance(self.env.now, inclusive=True)
            yield from self._advance(turn * self.turn_minutes, inclusive=False)
            self.phase_name = ""
            if on_turn_end(turn):
                break
        self.finished = True
