"""A replay read from its file as a stream: the replay tools' way in.

:class:`ReplayFile` never holds the battle's events: each pass opens the
file again and folds it line by line (:class:`engine.replayfile.reader.ReplayStream`),
so memory is the state plus one line, whatever the battle's length.  A
*scan* (one pass that checks every line's chain link but parses only the
lines it must) finds the event count, the last turn and where each
``engine.snapshot`` is; a fold to a turn or an event then starts from the
nearest snapshot before it and parses only what follows.

It has the same reading methods as :class:`sim.api.LoadedReplay` (the
whole-list form for small uses and tests); the tools take either
(:class:`ReplayLike`).

>>> from sim.replay.file import ReplayFile
>>> r = ReplayFile("replays/stone_wall-s1862.jsonl")
>>> r.count, r.last_turn
(48, 2)
"""

from __future__ import annotations

from array import array
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from engine.events import Event, Snapshot, TurnEnded
from engine.log import Header
from engine.replayfile.reader import Mark, ReplayError, ReplayStream
from sim.contract import AnyRuleset
from sim.replay.follow import fold_events, restored
from sim.replay.header import header_scenario, registry_for
from sim.replay.memory import walk_causes
from sim.scenario.values import check_seq, check_turn, turn_number

__all__ = ["ReplayFile", "ReplayLike", "Scan"]


class ReplayLike(Protocol):
    """What the replay tools read a battle through (a :class:`ReplayFile` or a LoadedReplay)."""

    @property
    def ruleset(self) -> AnyRuleset: ...
    @property
    def scenario(self) -> Any: ...
    @property
    def header(self) -> Header: ...
    @property
    def path(self) -> str: ...
    @property
    def count(self) -> int: ...
    @property
    def last_turn(self) -> int: ...
    def iter_events(self) -> Iterator[Event]: ...
    def event(self, seq: int) -> Event: ...
    def fold(self, *, state: Any = None) -> Iterator[tuple[Event, Any]]: ...
    def fold_near(self, seq: int) -> Iterator[tuple[Event, Any]]: ...
    def fold_before_turn(self, turn: int) -> Iterator[tuple[Event, Any]]: ...
    def state_at(self, turn: int | None = None) -> Any: ...
    def after(self, seq: int) -> Any: ...
    def turn_ends(self) -> Iterator[tuple[int, Any]]: ...
    def cause_chain(self, seq: int) -> list[int]: ...


@dataclass
class Scan:
    """What one pass over every line found, without parsing most of them."""

    count: int = 0
    """Events in the file."""
    last_turn: int = 0
    """The last event's turn (0 for a file without events)."""
    snapshots: list[Mark] = field(default_factory=list)
    """Each ``engine.snapshot`` line, in order (its ``turn`` is the snapshot's)."""


class ReplayFile:
    """A replay file read as a stream, with its ruleset and scenario (see the module doc).

    Raises:
        ReplayError: (on opening) the file cannot be read, is not a replay,
            or its header is damaged, newer, unknown or its scenario invalid.
    """

    def __init__(self, path: str | Path, *, allow_truncated: bool = False) -> None:
        self.stream = ReplayStream(path, registry_for, allow_truncated=allow_truncated)
        self.ruleset, self.scenario = header_scenario(self.stream.header, self.stream.name)
        self._scan: Scan | None = None

    def __repr__(self) -> str:
        """One line for a notebook: the file and its rules (the file is not read for it)."""
        h = self.header
        return (
            f"<ReplayFile {self.path!r}: {h.ruleset} rules version {h.ruleset_version}, "
            f"seed {h.seed}>"
        )

    @property
    def header(self) -> Header:
        """The replay's header."""
        return self.stream.header

    @property
    def path(self) -> str:
        """The file's path as given."""
        return self.stream.name

    def scan(self) -> Scan:
        """One pass over the whole file: chain of every line, footer; cached.

        Raises:
            ReplayError: the first damaged line, or no footer.
        """
        if self._scan is None:
            found = Scan()
            for line in self.stream.lines():
                found.count += 1
                found.last_turn = line.turn
                if line.type == Snapshot.model_fields["type"].default or isinstance(
                    line.event, Snapshot
                ):
                    m = line.mark
                    found.snapshots.append(Mark(m.line, m.offset, m.previous, m.seq, line.turn))
            self._scan = found
        return self._scan

    @property
    def count(self) -> int:
        """Events in the file."""
        return self.scan().count

    @property
    def last_turn(self) -> int:
        """The last event's turn."""
        return self.scan().last_turn

    def iter_events(self) -> Iterator[Event]:
        """Every event in order, each parsed with every check."""
        return self.stream.events()

    def event(self, seq: int) -> Event:
        """The event ``seq`` (the lines before it are chain-checked, not parsed).

        Raises:
            ValueProblem: ``seq`` is not a whole number from 0.
            IndexError: no such event.
        """
        seq = check_seq(seq)
        for line in self.stream.lines(self._mark_before(seq)):
            if line.seq == seq:
                return self.stream.parse(line)
        raise IndexError(f"no event seq {seq}: the replay has seq 0..{self.count - 1}")

    def _mark_before(self, seq: int) -> Mark | None:
        marks = [m for m in self.scan().snapshots if m.seq <= seq]
        return marks[-1] if marks else None

    def _from(self, mark: Mark | None) -> tuple[Any, Iterator[Event], int]:
        """The state at ``mark``'s snapshot (or the start), the events after it, their first seq."""
        if mark is None:
            return self.ruleset.initial_state(self.scenario), self.stream.events(), 0
        events = self.stream.events(mark)
        snap = next(events, None)
        if not isinstance(snap, Snapshot):  # the file changed since it was scanned
            raise ReplayError(self.path, mark.line, "not the snapshot the scan found there")
        state = restored(self.ruleset, self.scenario, self.path, snap)
        return state, events, mark.seq + 1

    def _fold(self, state: Any, events: Iterator[Event], start: int) -> Iterator[tuple[Event, Any]]:
        """The file's one fold loop: each event (from seq ``start``) with the state *before* it.

        ``state`` is advanced in place; each event is applied when the loop resumes
        (:func:`sim.replay.follow.fold_events`: a line that cannot follow is a
        :class:`ReplayError` naming it).
        """
        return fold_events(self.ruleset, self.scenario, self.path, state, events, start)

    def _folding(self, mark: Mark | None) -> Iterator[tuple[Event, Any]]:
        return self._fold(*self._from(mark))

    def fold(self, *, state: Any = None) -> Iterator[tuple[Event, Any]]:
        """Yield each event with the state *before* it, from the first (see LoadedReplay.fold)."""
        if state is None:
            return self._folding(None)
        return self._fold(state, self.stream.events(), 0)

    def fold_near(self, seq: int) -> Iterator[tuple[Event, Any]]:
        """Fold from the last snapshot before event ``seq`` (or the start); events from there."""
        seq = check_seq(seq)
        return self._folding(self._mark_before(seq - 1) if seq > 0 else None)

    def fold_before_turn(self, turn: int) -> Iterator[tuple[Event, Any]]:
        """Fold from the last snapshot of a turn before ``turn`` (or the start)."""
        turn = turn_number(turn)
        marks = [m for m in self.scan().snapshots if m.turn < turn]
        return self._folding(marks[-1] if marks else None)

    def state_at(self, turn: int | None = None) -> Any:
        """State at the end of ``turn`` (default: the end), from the nearest snapshot before it.

        Raises:
            ValueProblem: ``turn`` is not None or a whole number from 0.
        """
        turn = check_turn(turn)
        marks = [m for m in self.scan().snapshots if turn is None or m.turn <= turn]
        state, events, start = self._from(marks[-1] if marks else None)
        for event, _ in self._fold(state, events, start):
            if turn is not None and event.turn > turn:
                break
        return state

    def after(self, seq: int) -> Any:
        """The state right after event ``seq`` is applied (from the nearest snapshot).

        Raises:
            ValueProblem: ``seq`` is not a whole number from 0.
            IndexError: no such event.
        """
        seq = check_seq(seq)
        if seq >= self.count:
            raise IndexError(f"no event seq {seq}: the replay has seq 0..{self.count - 1}")
        state, events, start = self._from(self._mark_before(seq))
        for event, _ in self._fold(state, events, start):
            if event.seq > seq:
                break
        return state

    def turn_ends(self) -> Iterator[tuple[int, Any]]:
        """``(0, start state)``, then ``(turn, state)`` at each turn's end (one shared state)."""
        state = self.ruleset.initial_state(self.scenario)
        yield 0, state
        for event, before in self.fold(state=state):
            if isinstance(event, TurnEnded):
                yield event.turn, before

    def cause_chain(self, seq: int) -> list[int]:
        """``[seq, its cause, that one's cause, ...]`` to a first cause (see :func:`walk_causes`).

        The causes come from each line's prefix (lines are chain-checked, not parsed).

        Raises:
            ValueProblem: ``seq`` is not a whole number from 0.
            IndexError: no event ``seq``, or a cause that is not an earlier event.
        """
        seq = check_seq(seq)
        if not 0 <= seq < self.count:
            raise IndexError(f"no event seq {seq}: the replay has seq 0..{self.count - 1}")
        found = array("q")
        for line in self.stream.lines():
            cause = line.cause
            found.append(-1 if cause is None else cause)
            if line.seq == seq:
                break
        return walk_causes(seq, lambda s: None if found[s] < 0 else found[s])
