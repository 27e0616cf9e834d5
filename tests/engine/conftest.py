"""A toy ruleset-free event family for engine tests."""

from __future__ import annotations

from typing import Literal

import pytest

from engine.events import Event, EventRegistry
from engine.log import EventLog, Header, MemorySink


class Ping(Event):
    """A test event carrying one number."""

    type: Literal["test.ping"] = "test.ping"
    n: int


REGISTRY = EventRegistry([Ping])


def make_header() -> Header:
    """A header for a toy log."""
    return Header(
        ruleset="test",
        ruleset_version="1",
        seed=7,
        scenario={"k": 1},
        scenario_digest="sha256:x",
        rules_digest="sha256:y",
    )


def write_log(n: int) -> list[str]:
    """Lines of a complete toy log with ``n`` Ping events."""
    sink = MemorySink()
    log = EventLog(make_header(), sink)
    for i in range(n):
        log.write(log.stamp(Ping(turn=1 + i // 2, time=float(i), n=i * 10)))
    log.close(final_turn=(n + 1) // 2, final_state_digest="sha256:" + "0" * 64)
    return sink.lines


@pytest.fixture
def lines() -> list[str]:
    """A complete toy log of five events."""
    return write_log(5)
