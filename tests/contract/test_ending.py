"""sim.contract.EndingState: the battle's end recorded from a BattleEndedBase event."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from sim.contract import BattleEndedBase, EndingState, applies, ending_line


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


@dataclass(frozen=True)
class Side:
    name: str


def test_ending_line_names_the_winner_with_an_agreeing_verb_or_says_draw() -> None:
    """The narrative of the end: the winner's name (looked up by id) and "wins", the verb
    in the plural after a plural name, then the reason; a draw (winner None) reads "Draw"."""
    sides = {"usa": Side("Union"), "gob": Side("The goblins")}

    def ended(winner: str | None) -> Ended:
        return Ended(turn=3, time=3.0, winner=winner, reason="the other side broke", points=0)

    assert ending_line(ended("usa"), sides) == "Union wins: the other side broke"
    assert ending_line(ended("gob"), sides) == "The goblins win: the other side broke"
    assert ending_line(ended(None), sides) == "Draw: the other side broke"
