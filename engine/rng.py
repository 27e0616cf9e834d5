"""Named random streams derived from a seed by a version-stable derivation.

Derivation (format version 1, documented in docs/replay-format.md):

* The *stream key* is a tuple of strings and integers, e.g.
  ``(3, "fire", "defensive_fire", "20me")``; its *name* is the parts joined
  by ``/`` (``"3/fire/defensive_fire/20me"``).
* The stream's 32-byte root is ``SHA-256("battlesim-rng/1" NUL seed NUL name)``
  with ``seed`` written in decimal.
* Draw ``i`` (0, 1, 2, ...) is ``SHA-256(root || i as 8 bytes big-endian)``;
  its first 8 bytes as a big-endian integer, shifted right by 11, times
  2**-53, is a float uniform on [0, 1).

Each draw depends only on (seed, name, i), so a stream used by one unit in
one turn for one purpose is untouched by what any other unit does.  Nothing
here uses Python's ``random`` or ``hash()``; any language can reproduce it.
"""

from __future__ import annotations

import hashlib
import math
import struct
from collections.abc import Sequence
from typing import Final

from engine.events import Draw

__all__ = ["DOMAIN", "Stream", "Streams", "stream_name"]

DOMAIN: Final = b"battlesim-rng/1"
_SCALE: Final = 2.0**-53
_new_tuple = tuple.__new__
_sha256 = hashlib.sha256
_U64 = struct.Struct(">Q")  # 8 bytes big-endian: int.to_bytes / from_bytes, a third cheaper
_pack_index, _first_u64 = _U64.pack, _U64.unpack_from


def _prefix(seed: int) -> bytes:
    """What a stream's root hashes before its name: the domain, the seed, NULs."""
    return DOMAIN + b"\0" + str(seed).encode() + b"\0"


StreamKey = Sequence[str | int]


def stream_name(key: StreamKey) -> str:
    """Join a stream key into its name: ``("fire", 3, "a")`` → ``"fire/3/a"``."""
    return "/".join(map(str, key))


class Stream:
    """One named stream of uniform draws; counts the draws it has given.

    Args:
        seed: the scenario (or run) seed.
        name: the stream's name (see :func:`stream_name`).
    """

    __slots__ = ("_root", "count", "name")

    def __init__(self, seed: int, name: str) -> None:
        self.name = name
        self._root = _sha256(_prefix(seed) + name.encode("utf-8")).digest()
        self.count = 0

    @classmethod
    def _rooted(cls, prefix: bytes, name: str) -> Stream:
        """``Stream(seed, name)`` from the seed's :func:`_prefix`, kept by :class:`Streams`."""
        stream = cls.__new__(cls)
        stream.name = name
        stream._root = _sha256(prefix + name.encode("utf-8")).digest()
        stream.count = 0
        return stream

    def uniform(self) -> float:
        """Return the next float uniform on [0, 1)."""
        i = self.count
        self.count = i + 1
        block = _sha256(self._root + _pack_index(i)).digest()
        top: int = _first_u64(block)[0]
        return (top >> 11) * _SCALE

    def draw(self) -> Draw:
        """Return the next uniform as a :class:`Draw` record (name, index, value).

        Built on :meth:`uniform`, so a stream that overrides it (a test's
        scripted dice) records its own values.
        """
        u = self.uniform()
        # tuple.__new__: the named tuple's own __new__ is a Python function around it
        return _new_tuple(Draw, (self.name, self.count - 1, u))

    def die(self, sides: int) -> tuple[int, float]:
        """Roll a die numbered 1..sides as ``1 + floor(u * sides)``.

        Returns:
            (roll, u): the roll and the uniform it came from.
        """
        roll, draw = self.roll(sides)
        return roll, draw.u

    def roll(self, sides: int) -> tuple[int, Draw]:
        """Roll a die numbered 1..sides; return the roll and its :class:`Draw`."""
        draw = self.draw()
        return 1 + math.floor(draw.u * sides), draw


class Streams:
    """Factory of named streams for one seed; every stream starts at draw 0.

    The same key asked twice gives the *same* stream object, so draws made
    through it continue its sequence.  Streams live as long as the factory;
    call :meth:`forget` when a whole family of keys (e.g. a past turn) is done.
    """

    __slots__ = ("_prefix", "_streams", "seed")

    def __init__(self, seed: int) -> None:
        self.seed = seed
        self._prefix = _prefix(seed)
        self._streams: dict[str, Stream] = {}

    def stream(self, *key: str | int) -> Stream:
        """Return the stream named by ``key``, creating it at draw 0."""
        name = stream_name(key)
        found = self._streams.get(name)
        if found is None:
            found = self._streams[name] = Stream._rooted(self._prefix, name)
        return found

    def counts(self) -> dict[str, int]:
        """Return the number of draws made so far, by stream name (sorted)."""
        return {name: self._streams[name].count for name in sorted(self._streams)}

    def forget(self, prefix: str) -> None:
        """Drop streams whose name starts with ``prefix`` (bounds memory)."""
        for name in [n for n in self._streams if n.startswith(prefix)]:
            del self._streams[name]
