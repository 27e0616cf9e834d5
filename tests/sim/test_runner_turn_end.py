"""The runner's turn end: a rule generator gets each event back as logged, with its seq."""

from __future__ import annotations

import json
from collections.abc import Generator
from dataclasses import dataclass
from typing import Any, Literal

import simpy

from engine.events import Event
from engine.log import Header, MemorySink
from engine.recorder import Recorder
from sim.runner import BattleView, Plan, fight


class Noted(Event):
    """A turn-end event of this test."""

    type: Literal["t.noted"] = "t.noted"
    what: str


@dataclass
class State:
    """Counts what was applied."""

    ended: bool = False
    applied: int = 0


def _apply(state: State, event: Event) -> None:
    state.applied += 1
    state.ended = state.ended or (isinstance(event, Noted) and event.what == "end")


def _turn_end(b: BattleView[Any, State], turn: int, last: bool) -> Generator[Event, Event, None]:
    first = yield Noted(turn=turn, time=b.now, what="break")
    assert first.seq >= 0 and b.state.applied == first.seq + 1  # applied before the next ask
    yield Noted(turn=turn, time=b.now, cause=first.seq, what="end")


def _processes(
    b: BattleView[Any, State], rec: Recorder[State]
) -> list[simpy.events.ProcessGenerator]:
    return []


def _header() -> Header:
    return Header(
        engine_version="0",
        ruleset="t",
        ruleset_version="0",
        seed=1,
        scenario={},
        scenario_digest="sha256:0",
        rules_digest="sha256:0",
    )


def test_turn_end_generator_receives_each_logged_event_and_can_cite_it() -> None:
    """The second turn-end event names the first's seq, which the runner sent back."""
    plan: Plan[Any, State, BattleView[Any, State]] = Plan(
        ("only",), 1, 3, BattleView, _processes, _turn_end
    )
    header = _header()
    sink = MemorySink()
    state = fight(plan, None, header, sink, State(), _apply, lambda s: {"applied": s.applied})
    assert state.ended
    logged = [json.loads(line) for line in sink.lines[1:-1]]
    assert [(e["type"], e.get("what"), e["cause"]) for e in logged[:2]] == [
        ("t.noted", "break", None),
        ("t.noted", "end", 0),
    ]


def test_the_callers_heap_is_frozen_from_set_up_to_the_footer_and_thawed_after() -> None:
    """Everything that exists when fight() is called (the scenario, the state) is frozen
    for the cyclic GC while the battle is set up, fought and closed; nothing after."""
    import gc

    plan: Plan[Any, State, BattleView[Any, State]] = Plan(
        ("only",), 1, 2, BattleView, _processes, _turn_end
    )
    header = _header()
    assert gc.get_freeze_count() == 0
    caller = [object() for _ in range(1000)]  # a heap the caller made before the battle
    frozen: list[int] = []

    def snapshot(s: State) -> dict[str, Any]:  # taken for each turn's digest and the footer's
        frozen.append(gc.get_freeze_count())
        return {"applied": s.applied}

    def watch(started: Any) -> None:  # called after set-up, before the clock runs
        frozen.append(gc.get_freeze_count())

    fight(plan, None, header, MemorySink(), State(), _apply, snapshot, watch)
    # set-up, turn 1's digest (its end event stops the battle) and the footer's
    assert len(frozen) == 3 and min(frozen) >= len(caller)
    assert gc.get_freeze_count() == 0
