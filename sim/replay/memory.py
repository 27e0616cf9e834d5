"""A replay read whole into memory: every event in a list (small uses, tests, notebooks).

The replay tools read through :class:`sim.replay.file.ReplayFile` instead,
which never holds the events; both have the same reading methods.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from engine.events import Event, Snapshot, TurnEnded
from engine.log import Header
from engine.replayfile.reader import Replay
from sim.contract import AnyRuleset
from sim.replay.follow import fold_events, restored
from sim.scenario.values import check_seq, check_turn, turn_number

__all__ = ["LoadedReplay", "walk_causes"]


@dataclass(frozen=True, repr=False)
class LoadedReplay:
    """A replay with its ruleset and scenario, ready to fold."""

    ruleset: AnyRuleset
    scenario: Any
    replay: Replay

    def __repr__(self) -> str:
        """One line for a notebook: the file, its rules and its size (not every event)."""
        h = self.header
        return (
            f"<LoadedReplay {self.path!r}: {h.ruleset} rules version {h.ruleset_version}, "
            f"seed {h.seed}, {self.count} events>"
        )

    @property
    def events(self) -> list[Event]:
        """The replay's events in seq order."""
        return self.replay.events

    @property
    def header(self) -> Header:
        """The replay's header."""
        return self.replay.header

    @property
    def path(self) -> str:
        """The file's path as given."""
        return self.replay.path

    @property
    def count(self) -> int:
        """Events in the replay."""
        return len(self.replay.events)

    @property
    def last_turn(self) -> int:
        """The last event's turn (0 without events)."""
        return self.events[-1].turn if self.events else 0

    def iter_events(self) -> Iterator[Event]:
        """Every event in order."""
        return iter(self.events)

    def event(self, seq: int) -> Event:
        """The event ``seq``.

        Raises:
            ValueProblem: ``seq`` is not a whole number from 0.
            IndexError: no such event.
        """
        seq = check_seq(seq)
        if not 0 <= seq < len(self.events):
            raise IndexError(f"no event seq {seq}: the replay has seq 0..{len(self.events) - 1}")
        return self.events[seq]

    def fold_near(self, seq: int) -> Iterator[tuple[Event, Any]]:
        """Fold from the last snapshot before event ``seq`` (or the first event)."""
        seq = check_seq(seq)
        for event in reversed(self.events[:seq]):
            if isinstance(event, Snapshot):
                state = restored(self.ruleset, self.scenario, self.path, event)
                return self.fold(start=event.seq + 1, state=state)
        return self.fold()

    def fold_before_turn(self, turn: int) -> Iterator[tuple[Event, Any]]:
        """Fold from the last snapshot of a turn before ``turn`` (or the first event)."""
        turn = turn_number(turn)
        for event in reversed(self.events):
            if isinstance(event, Snapshot) and event.turn < turn:
                state = restored(self.ruleset, self.scenario, self.path, event)
                return self.fold(start=event.seq + 1, state=state)
        return self.fold()

    def cause_chain(self, seq: int) -> list[int]:
        """``[seq, its cause, that one's cause, ...]`` to a first cause.

        Raises:
            ValueProblem: ``seq`` is not a whole number from 0.
            IndexError: no event ``seq``, or a cause that is not an earlier event.
        """
        seq = self.event(seq).seq
        return walk_causes(seq, lambda s: self.events[s].cause)

    def state_at(self, turn: int | None = None, *, use_snapshots: bool = True) -> Any:
        """State at the end of ``turn`` (default: the end).

        Starts from the last ``engine.snapshot`` at or before ``turn`` (the
        ruleset's ``restore``), then folds the events after it; with
        ``use_snapshots=False`` folds from the first event.  Both give the
        same state.

        Raises:
            ValueProblem: ``turn`` is not None or a whole number from 0 (as
                :meth:`sim.replay.file.ReplayFile.state_at` refuses it).
        """
        turn = check_turn(turn)
        start, state = self._start(turn if use_snapshots else -1)
        for event, _ in self.fold(start=start, state=state):
            if turn is not None and event.turn > turn:
                break
        return state

    def _start(self, turn: int | None) -> tuple[int, Any]:
        """Index of the first event to fold, and the state to fold it into."""
        if turn is None or turn >= 0:
            for event in reversed(self.events):
                if isinstance(event, Snapshot) and (turn is None or event.turn <= turn):
                    state = restored(self.ruleset, self.scenario, self.path, event)
                    return event.seq + 1, state
        return 0, self.ruleset.initial_state(self.scenario)

    def fold(self, *, start: int = 0, state: Any = None) -> Iterator[tuple[Event, Any]]:
        """Yield each event with the state *before* it; it is applied when the loop resumes.

        The one fold helper: every tool that reads states from a replay
        (``state_at``, ``after``, ``turn_ends``, narrative, ``why``, audit,
        ``fork``, ``diff``, ``report``) walks the log through it.  One state
        object is shared and advanced in place; copy what must outlive a step.

        Args:
            start: seq of the first event to fold (after a snapshot).
            state: the state before event ``start`` (default: the initial state).

        Raises:
            ReplayError: an event that cannot follow the battle so far (a forged line the
                chain allows), named by file, line and seq as
                :meth:`sim.replay.file.ReplayFile.fold` names it
                (:func:`sim.replay.follow.fold_events`).
        """
        if state is None:
            state = self.ruleset.initial_state(self.scenario)
        yield from fold_events(
            self.ruleset, self.scenario, self.path, state, self.events[start:], start
        )

    def after(self, seq: int) -> Any:
        """The state right after event ``seq`` is applied.

        Raises:
            ValueProblem: ``seq`` is not a whole number from 0.
            IndexError: no such event.
        """
        seq = self.event(seq).seq
        for event, state in self.fold():
            if event.seq > seq:
                return state
        return state if self.events else self.ruleset.initial_state(self.scenario)

    def turn_ends(self) -> Iterator[tuple[int, Any]]:
        """``(0, start state)``, then ``(turn, state)`` at each turn's end.

        ``engine.turn_ended`` changes nothing, so the state before it is the
        state after it.
        """
        state = self.ruleset.initial_state(self.scenario)
        yield 0, state
        for event, before in self.fold(state=state):
            if isinstance(event, TurnEnded):
                yield event.turn, before


def walk_causes(seq: int, cause_of: Callable[[int], int | None]) -> list[int]:
    """The chain of causes from ``seq`` back to a first cause (an event with none).

    Every link must name an earlier event, so the walk ends after at most
    ``seq`` steps.

    Raises:
        IndexError: a cause that is not an earlier event (a damaged replay: it would never end).
    """
    chain = [seq]
    while (cause := cause_of(chain[-1])) is not None:
        if not 0 <= cause < chain[-1]:
            raise IndexError(
                f"event seq {chain[-1]} names cause {cause}, which is not an earlier event"
            )
        chain.append(cause)
    return chain
