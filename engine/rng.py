"""Named random streams derived from a seed by a version-stable derivation.

Two derivations exist (documented in docs/replay-format.md); a replay's
``format_version`` says which one its dice came from
(:func:`engine.replayfile.formats.derivation_of`):

* The *stream key* is a tuple of strings and integers, e.g.
  ``(3, "fire", "defensive_fire", "20me")``; its *name* is the parts joined
  by ``/`` (``"3/fire/defensive_fire/20me"``).  ``seed`` is written in decimal.
* **Derivation 2** (format 5 on): draws come in blocks of eight.  Block
  ``b`` is ``BLAKE2b-512("battlesim-rng/2" NUL seed NUL name || b as 8 bytes
  big-endian)``, 64 bytes read as eight big-endian 64-bit words; draw ``i``
  is word ``i mod 8`` of block ``i div 8``.
* **Derivation 1** (formats 1–4): the stream's 32-byte root is
  ``SHA-256("battlesim-rng/1" NUL seed NUL name)``; draw ``i`` is the first
  8 bytes, big-endian, of ``SHA-256(root || i as 8 bytes big-endian)``.
* In both, a 64-bit word shifted right by 11, times 2**-53, is the draw: a
  float uniform on [0, 1).

Each draw depends only on (seed, name, i), so a stream used by one unit in
one turn for one purpose is untouched by what any other unit does.  Nothing
here uses Python's ``random`` or ``hash()``; any language can reproduce it.
"""

from __future__ import annotations

import hashlib
import math
import struct
from collections.abc import Callable, Sequence
from typing import Any, ClassVar, Final

from engine.events import Draw

__all__ = [
    "DERIVATION",
    "DERIVATIONS",
    "DOMAIN",
    "DOMAIN_1",
    "Stream",
    "Stream1",
    "Streams",
    "stream_name",
]

DOMAIN: Final = b"battlesim-rng/2"
"""Derivation 2's domain: what each block's hash input begins with."""
DOMAIN_1: Final = b"battlesim-rng/1"
"""Derivation 1's domain: what each stream root's hash input begins with."""
DERIVATION: Final = 2
"""The derivation new battles use."""
DERIVATIONS: Final = (1, 2)
"""Every derivation this battlesim can draw from."""

_SCALE: Final = 2.0**-53
_new_tuple = tuple.__new__
_sha256 = hashlib.sha256
_blake2b = hashlib.blake2b  # 64-byte digest by default: BLAKE2b-512
_U64 = struct.Struct(">Q")  # 8 bytes big-endian: int.to_bytes / from_bytes, a third cheaper
_pack_index, _first_u64 = _U64.pack, _U64.unpack_from
_words = struct.Struct(">8Q").unpack  # a block's eight words at once


def _prefix(domain: bytes, seed: int) -> bytes:
    """What a stream's hash input holds before its name: the domain, the seed, NULs."""
    return domain + b"\0" + str(seed).encode() + b"\0"


StreamKey = Sequence[str | int]


def stream_name(key: StreamKey) -> str:
    """Join a stream key into its name: ``("fire", 3, "a")`` → ``"fire/3/a"``."""
    return "/".join(map(str, key))


class Stream:
    """One named stream of uniform draws (derivation 2); counts the draws it has given.

    The hash input up to the name is fed once per seed to a BLAKE2b hasher
    that each block copies (cheaper than hashing the prefix again; the bytes
    hashed are the documented ones).

    Args:
        seed: the scenario (or run) seed.
        name: the stream's name (see :func:`stream_name`).
    """

    __slots__ = ("_block", "_hasher", "_name", "_words", "count", "name")
    derivation: ClassVar[int] = 2

    def __init__(self, seed: int, name: str) -> None:
        self._open(_blake2b(_prefix(DOMAIN, seed)), name)

    def _open(self, hasher: Any, name: str) -> None:
        self.name = name
        self.count = 0
        self._hasher = hasher
        self._name = name.encode("utf-8")
        self._block = -1
        self._words: tuple[int, ...] = ()

    @classmethod
    def _opened(cls, hasher: Any, name: str) -> Stream:
        """``Stream(seed, name)`` from the seed's pre-fed hasher, kept by :class:`Streams`."""
        stream = cls.__new__(cls)
        stream._open(hasher, name)
        return stream

    def _next(self) -> tuple[int, float]:
        """The next draw's index and its uniform value on [0, 1), the stream advanced."""
        i = self.count
        self.count = i + 1
        block = i >> 3
        if block != self._block:
            h = self._hasher.copy()
            h.update(self._name + _pack_index(block))
            self._words = _words(h.digest())
            self._block = block
        return i, (self._words[i & 7] >> 11) * _SCALE

    def uniform(self) -> float:
        """Return the next float uniform on [0, 1)."""
        return self._next()[1]

    def __init_subclass__(cls, **kwargs: Any) -> None:
        """A subclass that overrides :meth:`uniform` (derivation 1, a test's scripted
        dice) and not :meth:`draw` draws through its own ``uniform``."""
        super().__init_subclass__(**kwargs)
        if "uniform" in cls.__dict__ and "draw" not in cls.__dict__:
            cls.draw = Stream._draw_via_uniform  # type: ignore[method-assign]

    def draw(self) -> Draw:
        """Return the next uniform as a :class:`Draw` record (name, index, value).

        The value is :meth:`uniform`'s (both take it from :meth:`_next`); a
        subclass that overrides ``uniform`` draws through it instead (see
        :meth:`__init_subclass__`), so scripted dice record their own values.
        """
        # _next in line (draws are the commonest call of a battle): the same index and value
        i = self.count
        self.count = i + 1
        block = i >> 3
        if block != self._block:
            h = self._hasher.copy()
            h.update(self._name + _pack_index(block))
            self._words = _words(h.digest())
            self._block = block
        # tuple.__new__: the named tuple's own __new__ is a Python function around it
        return _new_tuple(Draw, (self.name, i, (self._words[i & 7] >> 11) * _SCALE))

    def _draw_via_uniform(self) -> Draw:
        """:meth:`draw` of a stream whose :meth:`uniform` is its own."""
        u = self.uniform()
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


class Stream1(Stream):
    """A stream of derivation 1 (replay formats 1–4): one SHA-256 root, one SHA-256 a draw.

    Args:
        seed: the scenario (or run) seed.
        name: the stream's name (see :func:`stream_name`).
    """

    __slots__ = ("_root",)
    derivation: ClassVar[int] = 1

    def __init__(self, seed: int, name: str) -> None:
        self._rooted(_prefix(DOMAIN_1, seed), name)

    def _rooted(self, prefix: bytes, name: str) -> None:
        self._open(None, name)
        self._root = _sha256(prefix + self._name).digest()

    @classmethod
    def _from_prefix(cls, prefix: bytes, name: str) -> Stream1:
        stream = cls.__new__(cls)
        stream._rooted(prefix, name)
        return stream

    def uniform(self) -> float:
        """Return the next float uniform on [0, 1)."""
        i = self.count
        self.count = i + 1
        top: int = _first_u64(_sha256(self._root + _pack_index(i)).digest())[0]
        return (top >> 11) * _SCALE


def _opener(seed: int, derivation: int) -> Callable[[str], Stream]:
    """How a factory of ``derivation`` opens the stream of a name, for ``seed``."""
    if derivation == 2:
        hasher = _blake2b(_prefix(DOMAIN, seed))
        new = Stream.__new__

        def opened(name: str) -> Stream:  # Stream._opened in line: a stream is opened per use
            stream = new(Stream)
            stream.name = name
            stream.count = 0
            stream._hasher = hasher
            stream._name = name.encode("utf-8")
            stream._block = -1
            stream._words = ()
            return stream

        return opened
    if derivation == 1:
        prefix = _prefix(DOMAIN_1, seed)
        return lambda name: Stream1._from_prefix(prefix, name)
    raise ValueError(f"random derivation {derivation!r}: this battlesim has {DERIVATIONS}")


class Streams:
    """Factory of named streams for one seed; every stream starts at draw 0.

    The same key asked twice gives the *same* stream object, so draws made
    through it continue its sequence.  Streams live as long as the factory;
    call :meth:`forget` when a whole family of keys (e.g. a past turn) is done.

    Args:
        seed: the scenario (or run) seed.
        derivation: 2 (today's) or 1 (the dice of replay formats 1–4).
    """

    __slots__ = ("_open", "_streams", "derivation", "seed")

    def __init__(self, seed: int, derivation: int = DERIVATION) -> None:
        self.seed = seed
        self.derivation = derivation
        self._open = _opener(seed, derivation)
        self._streams: dict[str, Stream] = {}

    def stream(self, *key: str | int) -> Stream:
        """Return the stream named by ``key``, creating it at draw 0.

        A one-part key of text is its own name (nothing to join: rule code
        that builds the name in one piece passes it so).
        """
        name = key[0] if len(key) == 1 and type(key[0]) is str else stream_name(key)
        found = self._streams.get(name)
        if found is None:
            found = self._streams[name] = self._open(name)
        return found

    def named(self, name: str) -> Stream:
        """Return the stream of the name ``name`` (a key already joined), creating it at draw 0.

        The same stream as :meth:`stream` of a key whose name is ``name``, for rule
        code that builds the name in one piece: nothing to look at in the key.  A
        subclass that overrides :meth:`stream` and not this (a test's scripted dice)
        is asked through its own ``stream`` (see :meth:`__init_subclass__`).
        """
        found = self._streams.get(name)
        if found is None:
            found = self._streams[name] = self._open(name)
        return found

    def _named_via_stream(self, name: str) -> Stream:
        """:meth:`named` of a factory whose :meth:`stream` is its own."""
        return self.stream(name)

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "stream" in cls.__dict__ and "named" not in cls.__dict__:
            cls.named = Streams._named_via_stream  # type: ignore[method-assign]

    def counts(self) -> dict[str, int]:
        """Return the number of draws made so far, by stream name (sorted)."""
        return {name: self._streams[name].count for name in sorted(self._streams)}

    def forget(self, prefix: str) -> None:
        """Drop streams whose name starts with ``prefix`` (bounds memory)."""
        streams = self._streams
        if any(n.startswith(prefix) for n in streams):  # one dict made, not a deletion a name
            self._streams = {n: s for n, s in streams.items() if not n.startswith(prefix)}
