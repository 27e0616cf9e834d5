"""A fork of a fork: which of its parent's changes it keeps, and what they must still be.

A fork at seq N is its parent's battle up to N, then a new history. Its parent's
changes at or before N are in that shared battle and are kept; those after N were made
on events of the parent's battle, which the new one need not have at those seqs (an
override shifts every later seq by one; any change may alter what follows), so they are
left out (:meth:`engine.log.Fork.chain`), and ``fork`` says so in one line
(:func:`left_out_note`). A kept change is held to the ruleset's ``audit_change`` as the
fork's own change is (:func:`inherited_problem`).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from engine.events import Event, whole_dump
from engine.log import Fork, Header
from engine.projection import set_path

if TYPE_CHECKING:  # verify imports this module, and the replay file's fold verify
    from sim.replay.file import ReplayLike

__all__ = [
    "Tail",
    "audit_problem",
    "changes_text",
    "inherited_problem",
    "left_out",
    "left_out_note",
    "tail_of",
]


def left_out(loaded: ReplayLike, at_seq: int) -> dict[int, Fork]:
    """The parent's changes a fork of it at ``at_seq`` leaves out: those after it."""
    fork = loaded.header.fork
    chain = fork.chain() if fork is not None else {}
    return {at: f for at, f in sorted(chain.items()) if at > at_seq}


def changes_text(fork: Fork) -> str:
    """A fork's changes as ``--set`` named them: event fields, then ``state.`` paths, each
    sorted, values as JSON (``after="good", passed=true``)."""
    event = [f"{k}={json.dumps(v)}" for k, v in sorted(fork.event.items())]
    state = [f"state.{k}={json.dumps(v)}" for k, v in sorted(fork.state.items())]
    return ", ".join(event + state)


def left_out_note(left: Mapping[int, Fork], at_seq: int) -> str | None:
    """One line naming the parent's changes a fork at ``at_seq`` leaves out (None: none)."""
    if not left:
        return None
    named = " and ".join(f"seq {at} ({changes_text(f)})" for at, f in left.items())
    if len(left) == 1:
        (at,) = left
        return (
            f"the parent's change at {named} is left out: this fork changes the battle at "
            f"seq {at_seq}, before it, so seq {at} need not be the event that change was made on"
        )
    return (
        f"the parent's changes at {named} are left out: this fork changes the battle at seq "
        f"{at_seq}, before them, so those seqs need not be the events they were made on"
    )


def audit_problem(loaded: ReplayLike, changed: Event) -> str | None:
    """What the ruleset's ``audit_change`` names against ``changed``, checked against the
    state before it in ``loaded`` (None: nothing, or no such hook).

    A hook that raises is left to the fight and the read-back, which name the change."""
    check = loaded.ruleset.audit_change
    if check is None:
        return None
    seq = changed.seq
    before = loaded.after(seq - 1) if seq > 0 else loaded.ruleset.initial_state(loaded.scenario)
    try:
        return check(loaded.scenario, before, changed)
    except Exception:  # the fight and the read-back name it, with the change
        return None


def with_fields(event: Event, fields: Mapping[str, Any]) -> Event:
    """``event`` with ``fields`` (dotted paths) set, validated as a whole."""
    data = whole_dump(event)
    for path, value in fields.items():
        set_path(data, path, value, allow_none=True)
    return type(event).model_validate(data)


def inherited_problem(loaded: ReplayLike, at_seq: int, own_event: bool) -> str | None:
    """The first change of the parent a fork at ``at_seq`` keeps that the rules could not
    make, as one line's end (None: none).

    Kept are the parent's changes before ``at_seq``, and its change at ``at_seq`` when
    the fork sets no event field there (else it is checked merged with the fork's own).
    The parent's event, as recorded, carries the change: it is held to ``audit_change``
    against the state before it, as the fork's own change is.
    """
    fork = loaded.header.fork
    chain = fork.chain() if fork is not None else {}
    for at, change in sorted(chain.items()):
        if at > at_seq or (at == at_seq and own_event) or not change.event:
            continue
        event = loaded.event(at)
        problem = audit_problem(loaded, event)
        if problem is not None:
            return (
                f"its parent's change at seq {at} ({changes_text(change)}), which this fork "
                f"keeps: the rules could not make {event.type} (seq {at}) so: {problem}"
            )
    return None


class Tail:
    """A sink keeping only what a battle is after ``at_seq``: one digest of its lines after
    it (their text without the chain hash, which the header changes) and its footer's
    final state digest. Two battles with equal tails agree event for event from there."""

    def __init__(self, at_seq: int) -> None:
        self._at, self._lines = at_seq, 0
        self._hash = hashlib.sha256()
        self.final: Any = None

    def write(self, line: str) -> None:
        seq, self._lines = self._lines - 1, self._lines + 1  # line 0 is the header
        if seq > self._at:
            self.add(line)

    def add(self, line: str) -> None:
        """Take one line after ``at_seq`` (an event's, or the footer)."""
        if line.startswith('{"footer":'):
            self.final = json.loads(line).get("final_state_digest")
        else:
            self._hash.update(line[: line.rindex(',"h":')].encode() + b"\n")

    def flush(self) -> None:
        pass

    def close(self) -> None:
        pass

    @property
    def value(self) -> tuple[str, Any]:
        """The digest of the lines after ``at_seq`` and the final state digest."""
        return self._hash.hexdigest(), self.final


def tail_of(loaded: ReplayLike, header: Header, at_seq: int) -> tuple[str, Any]:
    """The :class:`Tail` of the battle ``header`` makes (the parent's ruleset and scenario)."""
    tail = Tail(at_seq)
    loaded.ruleset.simulate(loaded.scenario, header, tail)
    return tail.value
