"""sim.contract.emit: the stamp of every decided event, the cause-recording base, the end rule."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import pytest

from engine.events import Draw, Event, same_shape
from engine.replayfile.formats import schema_version_in
from engine.rng import Stream
from sim.contract import (
    BattleEndedBase,
    RecordsCause,
    Rolls,
    cause_upcasters,
    get_ruleset,
    stamp,
    turn_end_from,
)


@dataclass
class View:
    turn: int
    now: float


class Hit(Event):
    type: Literal["t.hit"] = "t.hit"
    target: str


class Fell(RecordsCause):
    type: Literal["t.fell"] = "t.fell"
    who: str


class Ended(RecordsCause, BattleEndedBase):
    type: Literal["t.battle_ended"] = "t.battle_ended"
    points: int


def test_stamp_is_the_views_turn_and_time_with_the_cause() -> None:
    """stamp(view, cause) is exactly turn, time and cause, in Event's declaration order."""
    assert stamp(View(3, 120.0), 17) == {"turn": 3, "time": 120.0, "cause": 17}
    assert list(stamp(View(1, 0.0))) == ["turn", "time", "cause"]
    assert stamp(View(1, 0.0))["cause"] is None


def test_a_stamped_event_writes_the_line_of_one_built_field_by_field() -> None:
    """An event built from a stamp is the event built with turn, time and cause given."""
    view = View(4, 45.0)
    by_stamp = Hit(**stamp(view, 9), target="x")
    by_hand = Hit(turn=4, time=45.0, cause=9, target="x")
    assert by_stamp.model_dump_json() == by_hand.model_dump_json()
    assert by_stamp.model_dump_json() == (
        '{"type":"t.hit","schema_version":1,"seq":-1,"turn":4,"time":45.0,"cause":9,"target":"x"}'
    )


def test_records_cause_raises_the_version_and_keeps_the_field_order() -> None:
    """A RecordsCause class is version 2 (version 1 in formats 1-2); fields keep Event's order."""
    assert (Fell.model_fields["schema_version"].default, Fell.older_formats) == (2, {2: 1})
    assert list(Fell.model_fields) == [*Event.model_fields, "who"]
    assert list(Ended.model_fields) == [*Event.model_fields, "winner", "reason", "points"]
    assert [schema_version_in(f, Fell) for f in (1, 2, 3)] == [1, 1, 2]


def test_cause_upcasters_key_each_tag_at_version_one_to_same_shape() -> None:
    """cause_upcasters gives (tag, 1) -> same_shape for each class, in the order given."""
    assert cause_upcasters([Fell, Ended]) == {
        ("t.fell", 1): same_shape,
        ("t.battle_ended", 1): same_shape,
    }


def test_cause_upcasters_refuse_a_class_without_a_tag() -> None:
    """A class whose type is no Literal tag has no key to give."""

    class Untagged(RecordsCause):
        pass

    with pytest.raises(ValueError, match="Untagged needs a type tag"):
        cause_upcasters([Untagged])


def test_the_built_ins_cause_recording_types_are_their_v2_upcasts() -> None:
    """Every built-in RecordsCause class is in its registry with a same_shape upcaster."""
    for name, count in (("musket", 2), ("flattop", 2), ("becmi", 4)):
        registry = get_ruleset(name).registry
        recording = [c for c in registry.classes if issubclass(c, RecordsCause)]
        assert len(recording) == count, name
        for cls in recording:
            tag = cls.model_fields["type"].default
            assert registry.upcast(tag, {"type": tag, "schema_version": 1}) == {
                "type": tag,
                "schema_version": 2,
            }


def test_turn_end_from_yields_the_end_once_decided_and_nothing_before() -> None:
    """turn_end_from(decide) asks decide(view, last) and hands back its event, if any."""
    asked: list[tuple[int, bool]] = []

    def decide(view: View, last: bool) -> Ended | None:
        asked.append((view.turn, last))
        if not last:
            return None
        return Ended(**stamp(view), winner=None, reason="time", points=0)

    turn_end = turn_end_from(decide)
    assert list(turn_end(View(1, 10.0), 1, False)) == []
    (ended,) = turn_end(View(2, 20.0), 2, True)
    assert isinstance(ended, Ended)
    assert (ended.turn, ended.time, ended.reason) == (2, 20.0, "time")
    assert asked == [(1, False), (2, True)]


def test_rolls_are_the_streams_rolls_with_their_draws_in_order() -> None:
    """Rolls.roll(n) is Stream.roll(n)'s value; its draw goes to draws, in the order rolled."""
    expected = Stream(7, "t/dice")
    rolls = Rolls(Stream(7, "t/dice"))
    want = [expected.roll(6), expected.roll(20), expected.roll(6)]
    got = [rolls.roll(6), rolls.roll(20), rolls.roll(6)]
    assert got == [value for value, _ in want]
    assert rolls.draws == [draw for _, draw in want]
    assert [(d.stream, d.i) for d in rolls.draws] == [("t/dice", 0), ("t/dice", 1), ("t/dice", 2)]
    assert [1 + int(d.u * s) for d, s in zip(rolls.draws, (6, 20, 6), strict=True)] == got


def test_rolls_on_two_streams_share_one_list() -> None:
    """Two Rolls given one list append to it in the order rolled, each from its own stream."""
    draws: list[Draw] = []
    Rolls(Stream(1, "t/a"), draws).roll(6)
    Rolls(Stream(1, "t/b"), draws).roll(6)
    assert [(d.stream, d.i) for d in draws] == [("t/a", 0), ("t/b", 0)]
