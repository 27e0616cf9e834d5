"""Named random streams: the documented derivation, pinned."""

from __future__ import annotations

import hashlib

from engine.rng import DOMAIN, Stream, Streams, stream_name


def test_derivation_matches_documented_values() -> None:
    """The first draws of seed 1, stream "a/b" are pinned forever (format 1)."""
    s = Stream(1, "a/b")
    assert [s.uniform() for _ in range(3)] == [
        0.6660883012607902,
        0.7087162869144461,
        0.33104953252426406,
    ]


def test_derivation_is_reproducible_from_the_docstring() -> None:
    """Draw i is SHA-256(root || i) -> top 53 bits / 2**53, as documented."""
    root = hashlib.sha256(DOMAIN + b"\0" + b"42" + b"\0" + b"x/7").digest()
    block = hashlib.sha256(root + (5).to_bytes(8, "big")).digest()
    expected = (int.from_bytes(block[:8], "big") >> 11) * 2.0**-53
    s = Stream(42, "x/7")
    for _ in range(5):
        s.uniform()
    assert s.uniform() == expected


def test_a_factory_stream_is_the_documented_stream() -> None:
    """Streams(seed).stream(*key) (root from a kept seed prefix) draws what the docstring's
    SHA-256 derivation and Stream(seed, name) draw, at every index asked."""
    root = hashlib.sha256(DOMAIN + b"\0" + b"42" + b"\0" + b"x/7").digest()
    blocks = [hashlib.sha256(root + i.to_bytes(8, "big")).digest() for i in range(4)]
    expected = [(int.from_bytes(b[:8], "big") >> 11) * 2.0**-53 for b in blocks]
    made, direct = Streams(42).stream("x", 7), Stream(42, "x/7")
    assert [made.uniform() for _ in range(4)] == [direct.uniform() for _ in range(4)] == expected


def test_streams_are_independent_of_creation_order() -> None:
    """A stream's draws do not depend on which other streams were used before it."""
    a = Streams(9)
    a.stream("other", 1).uniform()
    first = [a.stream("fire", 3, "u1").uniform() for _ in range(4)]
    b = Streams(9)
    second = [b.stream("fire", 3, "u1").uniform() for _ in range(4)]
    assert first == second


def test_same_key_continues_the_same_stream() -> None:
    """Asking twice for a key gives the same stream, continuing its sequence."""
    s = Streams(3)
    s.stream("k").uniform()
    assert s.stream("k").count == 1
    assert s.counts() == {"k": 1}


def test_draw_records_name_index_and_value() -> None:
    """A Draw names its stream, its index and the value it gave."""
    s = Stream(1, "a/b")
    s.uniform()
    d = s.draw()
    assert (d.stream, d.i, d.u) == ("a/b", 1, 0.7087162869144461)


def test_die_faces_cover_one_to_sides() -> None:
    """A d6 from 6000 draws gives only faces 1..6, each near 1000 times (±150)."""
    s = Stream(5, "die")
    faces = [s.die(6)[0] for _ in range(6000)]
    assert set(faces) == {1, 2, 3, 4, 5, 6}
    assert all(850 <= faces.count(f) <= 1150 for f in range(1, 7))


def test_stream_name_joins_parts() -> None:
    """Keys join with '/' and integers print in decimal."""
    assert stream_name(("fire", 3, "20me")) == "fire/3/20me"


def test_forget_drops_a_family_of_streams() -> None:
    """forget(prefix) drops only the streams whose name starts with it."""
    s = Streams(1)
    s.stream(1, "fire")
    s.stream(2, "fire")
    s.forget("1/")
    assert list(s.counts()) == ["2/fire"]
