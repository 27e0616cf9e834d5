"""The log stamps ``seq`` on fresh events in place and copies events stamped before."""

from __future__ import annotations

import pytest

from engine.log import EventLog, MemorySink
from tests.engine.conftest import Ping, make_header


def test_fresh_event_is_stamped_in_place() -> None:
    """A fresh event gets the next seq without a copy, and it is in the dumped line."""
    log = EventLog(make_header(), MemorySink())
    event = Ping(turn=1, time=0.0, n=3)
    stamped = log.stamp(event)
    assert stamped is event
    assert stamped.seq == 0
    assert '"seq":0' in stamped.model_dump_json()
    assert "seq" in stamped.model_fields_set


def test_stamped_event_is_copied_and_left_unchanged() -> None:
    """An event that already has a seq is copied with the new one; the original keeps its own."""
    log = EventLog(make_header(), MemorySink())
    first = log.stamp(Ping(turn=1, time=0.0, n=3))
    log.write(first)
    again = log.stamp(first)
    assert again is not first
    assert (first.seq, again.seq) == (0, 1)


def test_stamping_twice_in_place_is_refused() -> None:
    """Event.stamped refuses an event that already has a seq (the one write happens once)."""
    event = Ping(turn=1, time=0.0, n=3).stamped(4)
    with pytest.raises(ValueError, match="already stamped with seq 4"):
        event.stamped(5)
