"""Named random streams: both documented derivations, pinned."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

import pytest

from engine.rng import DOMAIN, DOMAIN_1, Stream, Stream1, Streams, stream_name


def _documented_2(seed: int, name: str, i: int) -> float:
    """Derivation 2 as docs/replay-format.md states it, computed apart from engine.rng."""
    message = b"battlesim-rng/2\0" + str(seed).encode() + b"\0" + name.encode()
    block = hashlib.blake2b(message + (i // 8).to_bytes(8, "big"), digest_size=64).digest()
    word = int.from_bytes(block[8 * (i % 8) : 8 * (i % 8) + 8], "big")
    return (word >> 11) / 2**53


def _documented_1(seed: int, name: str, i: int) -> float:
    """Derivation 1 as docs/replay-format.md states it, computed apart from engine.rng."""
    root = hashlib.sha256(b"battlesim-rng/1\0" + str(seed).encode() + b"\0" + name.encode())
    block = hashlib.sha256(root.digest() + i.to_bytes(8, "big")).digest()
    return (int.from_bytes(block[:8], "big") >> 11) / 2**53


def test_the_domains_are_the_documented_ones() -> None:
    """Each derivation's hash input begins with its documented domain."""
    assert (DOMAIN, DOMAIN_1) == (b"battlesim-rng/2", b"battlesim-rng/1")


def test_derivation_2_matches_pinned_values() -> None:
    """The first draws of seed 1, stream "a/b" under derivation 2 (format 5) are pinned forever."""
    s = Stream(1, "a/b")
    assert [s.uniform() for _ in range(3)] == [
        0.732058234527687,
        0.2664678919150698,
        0.5719973788710274,
    ]


def test_derivation_1_matches_pinned_values() -> None:
    """The first draws of seed 1, stream "a/b" under derivation 1 (formats 1-4): pinned forever."""
    s = Stream1(1, "a/b")
    assert [s.uniform() for _ in range(3)] == [
        0.6660883012607902,
        0.7087162869144461,
        0.33104953252426406,
    ]


@pytest.mark.parametrize(
    ("seed", "name"), [(42, "x/7"), (-3, "3/fire/defensive_fire/20me"), (0, "é")]
)
def test_derivation_2_is_reproducible_from_the_docs(seed: int, name: str) -> None:
    """Draws 0..19 (three blocks, the last partly used) are the documented BLAKE2b-512 words."""
    s = Stream(seed, name)
    assert [s.uniform() for _ in range(20)] == [_documented_2(seed, name, i) for i in range(20)]


def test_derivation_1_is_reproducible_from_the_docs() -> None:
    """Draw i of derivation 1 is SHA-256(root || i) -> top 53 bits / 2**53, as documented."""
    s = Stream1(42, "x/7")
    assert [s.uniform() for _ in range(6)] == [_documented_1(42, "x/7", i) for i in range(6)]


@pytest.mark.parametrize(("derivation", "documented"), [(2, _documented_2), (1, _documented_1)])
def test_a_factory_stream_is_the_documented_stream(derivation: int, documented: object) -> None:
    """Streams(seed, derivation).stream(*key) (from a kept seed prefix or hasher) draws what
    the documented derivation and the stream class made alone draw, at every index asked."""
    assert callable(documented)
    made = Streams(42, derivation).stream("x", 7)
    direct = (Stream if derivation == 2 else Stream1)(42, "x/7")
    expected = [documented(42, "x/7", i) for i in range(10)]
    assert [made.uniform() for _ in range(10)] == [direct.uniform() for _ in range(10)] == expected
    assert type(made).derivation == derivation


def test_today_s_factory_uses_derivation_2() -> None:
    """Streams(seed) without a derivation draws today's dice."""
    assert Streams(7).stream("k").uniform() == _documented_2(7, "k", 0)


def test_an_unknown_derivation_is_refused() -> None:
    """A derivation this battlesim does not have is a ValueError, never a guess."""
    with pytest.raises(ValueError, match="random derivation 3"):
        Streams(1, 3)


def test_blocks_are_shared_by_streams_of_one_seed_only_through_their_name() -> None:
    """Two streams of one factory hash their own names: interleaved draws do not mix blocks."""
    s = Streams(5)
    a, b = s.stream("a"), s.stream("b")
    drawn = [(a.uniform(), b.uniform()) for _ in range(9)]
    assert drawn == [(_documented_2(5, "a", i), _documented_2(5, "b", i)) for i in range(9)]


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


@pytest.mark.parametrize("derivation", [1, 2])
def test_a_joined_name_opens_the_stream_of_its_key(derivation: int) -> None:
    """``named`` of a key's joined name is that key's stream: the same object, continuing."""
    s = Streams(3, derivation)
    first = s.stream(4, "fire", "20me")
    first.uniform()
    assert s.named("4/fire/20me") is first
    assert s.named("4/fire/20me").draw().i == 1
    assert s.named("5/fire/20me") is s.stream(5, "fire", "20me")
    assert s.counts() == {"4/fire/20me": 2, "5/fire/20me": 0}


@pytest.mark.parametrize(("cls", "documented"), [(Stream, _documented_2), (Stream1, _documented_1)])
def test_draws_across_blocks_are_the_documented_ones(cls: type[Stream], documented: object) -> None:
    """Draws alone, then mixed with uniforms, over two blocks of eight: each the
    documented value of its index (a draw computes its word itself)."""
    assert callable(documented)
    s = cls(9, "3/fire/defensive_fire/20me")
    got = [s.draw() for _ in range(11)] + [s.uniform() for _ in range(2)] + [s.draw()]
    values = [d if isinstance(d, float) else d.u for d in got]
    assert values == [documented(9, "3/fire/defensive_fire/20me", i) for i in range(14)]
    assert [d.i for d in got if not isinstance(d, float)] == [*range(11), 13]


def test_a_factory_with_its_own_stream_is_asked_through_it_by_name() -> None:
    """A subclass that overrides ``stream`` (scripted dice) gets ``named`` through it."""
    asked: list[tuple[str | int, ...]] = []

    class Scripted(Streams):
        def stream(self, *key: str | int) -> Stream:
            asked.append(key)
            return super().stream(*key)

    s = Scripted(1)
    assert s.named("2/rally/a") is s.stream("2/rally/a")
    assert asked == [("2/rally/a",), ("2/rally/a",)]


def test_forget_keeps_the_other_streams_as_they_were() -> None:
    """forget makes a new mapping of the streams it keeps: the same objects, counts kept."""
    s = Streams(1)
    kept = s.stream(2, "fire")
    kept.uniform()
    s.stream(1, "fire")
    s.forget("1/")
    s.forget("9/")  # nothing of the kind: nothing changes
    assert s.stream(2, "fire") is kept
    assert s.counts() == {"2/fire": 1}


@pytest.mark.parametrize(("cls", "documented"), [(Stream, _documented_2), (Stream1, _documented_1)])
def test_draw_records_name_index_and_value(cls: type[Stream], documented: object) -> None:
    """A Draw names its stream, its index and the value it gave."""
    assert callable(documented)
    s = cls(1, "a/b")
    s.uniform()
    d = s.draw()
    assert (d.stream, d.i, d.u) == ("a/b", 1, documented(1, "a/b", 1))


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


def test_the_documented_code_draws_what_the_streams_draw() -> None:
    """docs/replay-format.md's Python for both derivations runs and draws what the streams draw."""
    page = (Path(__file__).resolve().parents[2] / "docs" / "replay-format.md").read_text("utf-8")
    start = page.index("import hashlib\n\ndef uniform(seed: int, name: str, i: int)")
    code: dict[str, Any] = {}
    exec(page[start : page.index("```", start)], code)  # its own asserts run too
    two, one = Stream(1862, "1/fire/x"), Stream1(1862, "1/fire/x")
    documented_2 = [code["uniform"](1862, "1/fire/x", i) for i in range(17)]
    documented_1 = [code["uniform_1"](1862, "1/fire/x", i) for i in range(5)]
    assert [two.uniform() for _ in range(17)] == documented_2
    assert [one.uniform() for _ in range(5)] == documented_1
