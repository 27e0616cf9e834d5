"""Requirement: the draws the events record are the named streams' own, every one of them.

Invariant 2: all randomness comes from named streams derived from the seed, and each
event records its draws. A replay whose events record a draw the stream never gave (a
forged value, a wrong index), leave one out (a roll made and not recorded), or draw from
somewhere else (a private ``random.Random``) re-simulates byte for byte as long as the
rules do the same again, so ``verify`` passes it; only the streams can tell.
"""

from __future__ import annotations

import random
import sys
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from pydantic import BaseModel

from engine.events import Draw, Event
from engine.log import MemorySink
from engine.replayfile.formats import derivation_of
from engine.rng import Stream, Streams
from sim.conformance.battle import Battle
from sim.conformance.requirement import requirement
from sim.text.grammar import count

__all__ = ["DRAWS_ARE_THE_STREAMS"]


def _draws(value: Any) -> Iterator[Draw]:
    """Every :class:`Draw` ``value`` holds, however nested (a model's fields, lists, maps)."""
    if isinstance(value, Draw):
        yield value
    elif isinstance(value, BaseModel):
        for name in type(value).model_fields:
            yield from _draws(getattr(value, name))
    elif isinstance(value, list | tuple):
        for item in value:
            yield from _draws(item)
    elif isinstance(value, dict):
        for item in value.values():
            yield from _draws(item)


class _Opened(Streams):
    """The runner's streams, remembering every stream object opened (a forgotten one too),
    so the draws made can be counted by name when the battle is over."""

    opened: list[Stream]

    def stream(self, *key: str | int) -> Stream:
        found = super().stream(*key)
        self.opened.append(found)
        return found

    def named(self, name: str) -> Stream:
        found = super().named(name)
        self.opened.append(found)
        return found


class _Events(MemorySink):
    """Each event as the rules made it, beside its line (a Draw in a field typed ``Any`` is
    a ``Draw`` here; read back from its line it would be a plain list)."""

    takes_events = True

    def __init__(self) -> None:
        super().__init__()
        self.events: list[Event] = []

    def write_event(self, line: bytes, event: Event) -> None:
        self.events.append(event)
        self.write(line)


_RANDOM_FUNCTIONS = (
    "random", "uniform", "randint", "randrange", "choice", "choices", "shuffle", "sample",
    "gauss", "normalvariate", "lognormvariate", "expovariate", "vonmisesvariate",
    "gammavariate", "betavariate", "paretovariate", "weibullvariate", "triangular",
    "getrandbits", "randbytes", "seed", "binomialvariate",
)  # fmt: skip
"""The ``random`` module's functions (its hidden generator's bound methods)."""

_NUMPY_FUNCTIONS = (
    "default_rng", "RandomState", "Generator", "seed", "random", "rand", "randn", "randint",
    "choice", "shuffle", "permutation", "uniform", "normal", "binomial", "poisson",
)  # fmt: skip
"""numpy.random's constructors and legacy functions, when numpy is loaded."""


@contextmanager
def _other_generators() -> Iterator[Counter[str]]:
    """Count the calls made, while the block runs, to Python's ``random`` (its functions,
    and ``random.Random``'s and ``SystemRandom``'s methods, through which every draw of a
    generator of the plugin's own goes) and to numpy's random functions: a generator of the
    rules' own, seeded from the turn and a unit's id, fights the same battle every time, so
    no other requirement sees it. ``from random import randint`` at import is counted
    (through its generator's ``getrandbits``); ``from random import random``, a bound C
    method, is out of its reach."""
    calls: Counter[str] = Counter()
    patched: list[tuple[Any, str, Any]] = []

    def count(owner: Any, name: str, label: str) -> None:
        original = getattr(owner, name, None)
        if original is None:
            return

        def counted(*args: Any, **kwargs: Any) -> Any:
            calls[label] += 1
            return original(*args, **kwargs)

        patched.append((owner, name, original))
        setattr(owner, name, counted)

    for cls in (random.Random, random.SystemRandom):
        for method in ("random", "getrandbits", "seed"):
            count(cls, method, f"{cls.__module__}.{cls.__name__}.{method}")
    for name in _RANDOM_FUNCTIONS:
        count(random, name, f"random.{name}")
    numpy_random = sys.modules.get("numpy.random")
    if numpy_random is not None:
        for name in _NUMPY_FUNCTIONS:
            count(numpy_random, name, f"numpy.random.{name}")
    try:
        yield calls
    finally:
        for owner, name, original in reversed(patched):
            setattr(owner, name, original)


def _fought(battle: Battle) -> tuple[dict[str, int], list[Event], Counter[str]]:
    """The battle fought again: the draws the rules make on each stream, and its events."""
    from sim import runner  # noqa: PLC0415 - the name the runner opens its streams by

    loaded = battle.loaded
    opened: list[Stream] = []

    class Counting(_Opened):
        def __init__(self, seed: int, derivation: int = 2) -> None:
            super().__init__(seed, derivation)
            self.opened = opened

    names = vars(runner)  # the module's own names: Streams is what fight() opens
    saved = names["Streams"]
    names["Streams"] = Counting
    sink = _Events()
    try:
        with _other_generators() as other:
            loaded.ruleset.simulate(loaded.scenario, loaded.header, sink)
    finally:
        names["Streams"] = saved
    made: dict[str, int] = {}
    for stream in {id(s): s for s in opened}.values():
        made[stream.name] = made.get(stream.name, 0) + stream.count
    return {name: n for name, n in made.items() if n}, sink.events, other


@requirement(
    "Every draw an event records is its stream's value at that index; each stream's draws "
    "are recorded once each, from 0 on; and every draw the rules make is recorded.",
    "Draw only from the battle's named streams (b.streams), never random or another "
    "generator; record in the event the Draw each roll came from (stream.roll, stream.draw) "
    "and every one of them, not a value or index of your own",
    "Random streams",
)
def DRAWS_ARE_THE_STREAMS(battle: Battle) -> None:  # noqa: N802  # a requirement, named as a constant
    header = battle.loaded.header
    made, events, other = _fought(battle)
    if other:
        used = ", ".join(f"{name} ({n} call{'s' * (n != 1)})" for name, n in sorted(other.items()))
        raise battle.failed(
            f"the rules drew from another generator while the battle was fought: {used}; "
            "its numbers are the same in every battle it is seeded alike, whatever the "
            "battle's seed, and no event records them"
        )
    recorded: dict[str, dict[int, tuple[float, int]]] = {}
    for event in events:
        for d in _draws(event):
            n = made.get(d.stream, 0)
            if not 0 <= d.i < n:
                raise battle.failed(
                    f"stream {d.stream!r} draw {d.i} is recorded; the rules drew {n} from it"
                    + (f" (draws 0 to {n - 1})" if n else ""),
                    seq=event.seq,
                )
            seen = recorded.setdefault(d.stream, {})
            if d.i in seen:
                raise battle.failed(
                    f"draw {d.i} of stream {d.stream!r} is recorded twice (seq "
                    f"{seen[d.i][1]} and seq {event.seq}): each draw is made once",
                    seq=event.seq,
                )
            seen[d.i] = (d.u, event.seq)
    streams = Streams(header.seed, derivation_of(header.format_version))
    for name in sorted(recorded):
        seen = recorded[name]
        stream = streams.named(name)
        values = [stream.draw().u for _ in range(max(seen) + 1)]  # ≤ the draws the rules made
        for i in sorted(seen):
            u, seq = seen[i]
            if values[i] != u:
                raise battle.failed(
                    f"stream {name!r} draw {i} is recorded as {u!r}; the stream's draw {i} "
                    f"is {values[i]!r}",
                    seq=seq,
                )
    counted = {name: len(seen) for name, seen in recorded.items()}
    for name in sorted(made.keys() | counted.keys()):
        if made.get(name, 0) != counted.get(name, 0):
            raise battle.failed(
                f"the rules drew {count(made.get(name, 0), 'time')} from stream {name!r} and the "
                f"events record {counted.get(name, 0)}: every draw made is recorded in the "
                "event it decided",
            )
