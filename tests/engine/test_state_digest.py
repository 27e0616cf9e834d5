"""The turn-end digest: one definition (sha256 of the snapshot's canonical JSON), two ways to
write its text, and the projection's routing of the engine's own events."""

from __future__ import annotations

import json
from typing import Any, Literal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.canonical import NotCanonical, canonical_json, digest, members_json, text_digest
from engine.events import Event, Override, Snapshot, TurnEnded
from engine.log import EventLog, MemorySink
from engine.projection import Projection
from engine.recorder import Recorder
from tests.engine.conftest import Ping, make_header

_KEYS = st.text(max_size=4)
_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(), inner, max_size=3),
    max_leaves=6,
)


@given(st.dictionaries(_KEYS, _VALUES, max_size=6), st.data())
def test_members_json_is_the_canonical_text_of_the_whole_mapping(
    value: dict[str, Any], data: st.DataObject
) -> None:
    """Any members given as canonical text instead of values: canonical_json of the mapping."""
    written_keys = data.draw(st.sets(st.sampled_from(sorted(value))) if value else st.just(set()))
    members = {k: v for k, v in value.items() if k not in written_keys}
    written = {k: canonical_json(value[k]) for k in sorted(written_keys)}
    assert members_json(members, written) == canonical_json(value)


def test_members_json_refuses_a_member_given_twice() -> None:
    """A key among both the values and the written texts is an error, not a guess."""
    with pytest.raises(ValueError, match=r"given twice: \['a'\]"):
        members_json({"a": 1, "b": 2}, {"a": "1"})


@given(_VALUES)
def test_text_digest_of_the_canonical_text_is_the_digest(value: Any) -> None:
    """text_digest(canonical_json(v)) == digest(v): the digest is of the UTF-8 text."""
    assert text_digest(canonical_json(value)) == digest(value)


def _snapshot(state: list[int]) -> dict[str, Any]:
    return {"pings": [{"n": n, "odd": n % 2 == 1} for n in state], "count": len(state)}


def _good(state: list[int]) -> str:
    return canonical_json(_snapshot(state))


def _append(state: list[int], event: Event) -> None:
    assert isinstance(event, Ping)
    state.append(event.n)


def _recorder(snapshot_json: Any, calls: list[str]) -> tuple[Recorder[list[int]], MemorySink]:
    def snapshot(state: list[int]) -> dict[str, Any]:
        calls.append("snapshot")
        return _snapshot(state)

    sink = MemorySink()
    rec: Recorder[list[int]] = Recorder(
        EventLog(make_header(), sink),
        Projection([], _append),
        snapshot,
        snapshot_json,
    )
    return rec, sink


def _battle(snapshot_json: Any, calls: list[str]) -> list[str]:
    rec, sink = _recorder(snapshot_json, calls)
    for turn in (1, 2, 3):
        rec.emit(Ping(turn=turn, time=float(turn), n=turn * 7))
        rec.end_turn(turn, float(turn))
    rec.close(3)
    return sink.lines


def test_a_snapshot_json_gives_the_same_replay_as_the_serialised_snapshot(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """With the line check off, snapshot_json alone writes the text (no snapshot built) and
    each turn_ended digest and the footer's are those of the serialised snapshot."""
    monkeypatch.setattr(EventLog, "check_lines", False)
    generic: list[str] = []
    fast: list[str] = []
    lines = _battle(None, generic)
    assert _battle(_good, fast) == lines
    assert (generic, fast) == (["snapshot"] * 4, [])  # 3 turn ends and the footer
    ended = [json.loads(line) for line in lines if '"engine.turn_ended"' in line]
    states = [[7], [7, 14], [7, 14, 21]]
    assert [e["state_digest"] for e in ended] == [digest(_snapshot(s)) for s in states]


def test_with_the_line_check_on_a_wrong_snapshot_json_is_refused(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A writer that writes 1 for true is caught at the first turn's end, which names the
    offset where the two texts part."""
    monkeypatch.setattr(EventLog, "check_lines", True)
    calls: list[str] = []

    def wrong(state: list[int]) -> str:
        return _good(state).replace("true", "1")

    rec, _ = _recorder(wrong, calls)
    rec.emit(Ping(turn=1, time=1.0, n=7))
    at = len('{"count":1,"pings":[{"n":7,"odd":')
    with pytest.raises(NotCanonical, match=f"at {at}, where the snapshot's canonical JSON is"):
        rec.end_turn(1, 1.0)
    assert _battle(_good, calls)  # the right text passes the same check

    def wrong_late(state: list[int]) -> str:  # right for two turns, wrong at the third
        return _good(state) if len(state) < 3 else _good(state).replace("true", "1")

    rec, _ = _recorder(wrong_late, calls)
    for turn in (1, 2):
        rec.emit(Ping(turn=turn, time=float(turn), n=turn * 7))
        rec.end_turn(turn, float(turn))
    rec.emit(Ping(turn=3, time=3.0, n=21))
    with pytest.raises(NotCanonical):  # every turn's end is checked, not only the first
        rec.end_turn(3, 3.0)


class LateTurnEnded(TurnEnded):
    """A subclass of an engine event: still the engine's to apply (as isinstance says)."""

    type: Literal["test.late_turn_ended"] = "test.late_turn_ended"  # type: ignore[assignment]


def test_the_engines_events_never_reach_the_rulesets_apply() -> None:
    """turn_ended, snapshot (and a subclass) change nothing; an override sets its path;
    everything else goes to the ruleset's apply, in order."""
    state: dict[str, Any] = {"seen": [], "x": 1}
    p = Projection(state, lambda s, e: s["seen"].append(e.seq))
    events = [
        Ping(seq=0, turn=1, time=0, n=0),
        TurnEnded(seq=1, turn=1, time=0, state_digest=""),
        Snapshot(seq=2, turn=1, time=0, state={}),
        LateTurnEnded(seq=3, turn=1, time=0, state_digest=""),
        Override(seq=4, turn=1, time=0, path="x", value=5),
        Ping(seq=5, turn=2, time=1, n=1),
    ]
    for event in events:
        p.apply(event)
    assert (state, p.last_seq) == ({"seen": [0, 5], "x": 5}, 5)
