"""End-of-battle bookkeeping every state keeps: when the battle ended, who won, and why."""

from __future__ import annotations

from typing import ClassVar

from sim.contract.bases import BattleEndedBase
from sim.contract.state import StateBase

__all__ = ["EndingState"]


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
