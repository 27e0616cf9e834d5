"""sim.contract.EndingState: the battle's end recorded from a BattleEndedBase event."""

from __future__ import annotations

from typing import Literal

from sim.contract import BattleEndedBase, EndingState, applies


class Ended(BattleEndedBase):
    type: Literal["t.battle_ended"] = "t.battle_ended"
    points: int


class State(EndingState):
    points: int = 0

    @applies(Ended)
    def ended_(self, event: Ended) -> None:
        self.end(event)
        self.points = event.points


def test_end_records_the_turn_winner_and_reason_and_the_runner_stops() -> None:
    """end(event) sets ended, ended_turn, winner and reason; the state keeps its own fields."""
    state = State()
    assert (state.ended, state.ended_turn, state.winner, state.reason) == (False, 0, None, "")
    state.apply(Ended(turn=7, time=7.0, winner=None, reason="a draw", points=3))
    assert (state.ended, state.ended_turn, state.winner, state.reason) == (True, 7, None, "a draw")
    assert state.points == 3
    assert State.applied_events() == (Ended,)
