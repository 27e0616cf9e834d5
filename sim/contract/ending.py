"""End-of-battle bookkeeping every state keeps: when the battle ended, who won, and why."""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar, Protocol

from sim.contract.bases import BattleEndedBase
from sim.contract.state import StateBase
from sim.text.grammar import agree, one_point

__all__ = ["EndingState", "ending_line"]


class _Named(Protocol):
    @property
    def name(self) -> str: ...


def ending_line(event: BattleEndedBase, sides: Mapping[str, _Named]) -> str:
    """The narrative of a battle's end: ``<winner's name> wins: <reason>`` (the verb agreeing
    with the name, :func:`sim.text.grammar.agree`), or ``Draw: <reason>``; ``sides`` are the
    state's sides by id. The reason is the event's, its counts worded as shown
    (:func:`sim.text.grammar.one_point`: ``Allied 1 point``)."""
    who = agree(sides[event.winner].name, "wins") if event.winner else "Draw"
    return f"{who}: {one_point(event.reason)}"


class EndingState(StateBase):
    """A :class:`StateBase` with the battle's end: its turn, winner (None: a draw) and reason.

    Its ruleset's battle-ended event derives from
    :class:`~sim.contract.bases.BattleEndedBase`; the state applies it with
    :meth:`end` (and whatever more it records)::

        @applies(BattleEnded)
        def battle_ended(self, event: BattleEnded) -> None:
            self.end(event)
    """

    ENDING: ClassVar[tuple[str, ...]] = ("ended", "ended_turn", "winner", "reason")
    """The battle's end, in the order its fields stand."""

    ended_turn: int = 0
    """The turn the battle ended in (0 while it goes on): the outcome's ``turns``."""
    winner: str | None = None
    reason: str = ""

    def end(self, event: BattleEndedBase) -> None:
        """The battle is over at ``event``'s turn, with its winner and reason."""
        self.ended = True
        self.ended_turn = event.turn
        self.winner = event.winner
        self.reason = event.reason

    @classmethod
    def with_ending(cls, before: tuple[str, ...], after: tuple[str, ...] = ()) -> tuple[str, ...]:
        """A ``snapshot_order``: the state's fields ``before``, the battle's end, then ``after``.

        The order every built-in's snapshots had before it used the base
        (``snapshot_order = EndingState.with_ending(("units", "sides"), ("points",))``).
        """
        return (*before, *cls.ENDING, *after)
