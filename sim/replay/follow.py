"""Folding a replay's events into its battle, and finding whose fault a failure on it is.

The replay tools read only what a file holds: past its hash chain (which a forger can
recompute) and each line's shape, nothing says a line is one the rules make until the
battle is fought again.  A ruleset hook that raises on a file's battle (``apply`` as it is
folded, ``narrate``, ``units``, ``outcome``) is therefore judged here, in one place
(:func:`fault`): when the file is not the battle its rules make (the battle fought again
from its header, as ``verify`` fights it), its line, named by file, line and seq and said in
words (:mod:`sim.replay.forged`); else the ruleset's own failure.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Any

from engine.events import Event, Snapshot
from engine.projection import Projection
from engine.replayfile.reader import ReplayError
from sim.contract import AnyRuleset, HookError
from sim.replay.forged import CANNOT_FOLLOW, cannot_follow, unknown_named
from sim.replay.header import UNFOLDABLE

if TYPE_CHECKING:  # the replay file folds through this module
    from sim.replay.file import ReplayLike

__all__ = ["culprit", "fault", "fold_events", "refought", "restored"]


def fold_events(
    ruleset: AnyRuleset, scenario: Any, path: str, state: Any, events: Iterable[Event], start: int
) -> Iterator[tuple[Event, Any]]:
    """The replay tools' one fold loop: each event (from seq ``start``) with the state
    *before* it; ``state`` is advanced in place, each event applied when the loop resumes.

    Raises:
        ReplayError: an event of the file at ``path`` that cannot follow the battle so far
            (the earlier line :func:`fault` finds it comes from, else the event itself).
    """
    projection = Projection(state, ruleset.apply)
    projection.last_seq = start - 1
    for event in events:
        yield event, projection.state
        try:
            projection.apply(event)
        except UNFOLDABLE as exc:
            found = fault(ruleset, scenario, path, event, exc) or ReplayError(
                path, event.seq + 2, cannot_follow(ruleset, scenario, event, exc), event.seq
            )
            raise found from None


def restored(ruleset: AnyRuleset, scenario: Any, path: str, snapshot: Snapshot) -> Any:
    """The state ``snapshot`` holds, restored by the ruleset (the replay tools start a fold
    from the last snapshot before what they need).

    Raises:
        ReplayError: a snapshot whose state the ruleset cannot restore (one a forger made:
            a ship the battle lacks), named at its line as :func:`fault` finds it.
    """
    try:
        return ruleset.restore(scenario, snapshot.state)
    except UNFOLDABLE as exc:
        found = fault(ruleset, scenario, path, snapshot, exc) or ReplayError(
            path, snapshot.seq + 2, cannot_follow(ruleset, scenario, snapshot, exc), snapshot.seq
        )
        raise found from None


def fault(
    ruleset: AnyRuleset, scenario: Any, path: str, event: Event | None, exc: BaseException
) -> ReplayError | None:
    """The line of the replay at ``path`` that ``exc``, raised by a hook of its ruleset on its
    battle (on ``event``, when one is known), comes from; None when the file is the battle its
    rules make, so that the failure is the ruleset's.

    The battle is fought again from the header (:func:`refought`, ``verify``'s checks): a
    file that is what its rules make is not at fault, whatever its event holds.  One that is
    not is named at its first such line, or, when that is ``event`` or a later one, at
    ``event`` by the field that names what the battle lacks when one does
    (:func:`~sim.replay.forged.unknown_named`: ``unit: unknown unit 'ghost'``).  Only a
    failure is judged so: a replay read without one is never fought again.
    """
    found = refought(path)
    if found is None or event is None or found.seq is None or found.seq < event.seq:
        return found
    said = unknown_named(ruleset, scenario, event, exc)
    if said is None:
        return found
    return ReplayError(path, event.seq + 2, f"{CANNOT_FOLLOW}: {said}", event.seq)


def refought(path: str) -> ReplayError | None:
    """``verify``'s finding in the replay at ``path`` (damage, a broken invariant or the
    first difference from the battle fought again) as the line it names; None when the file
    verifies, or cannot be fought again (its ruleset raises doing so: nothing to judge by)."""
    from sim.replay.verify import verify_replay  # noqa: PLC0415 - only when a hook failed

    try:
        result = verify_replay(path)
    except ReplayError as exc:
        return exc
    except Exception:  # the rules cannot fight it again: their failure, or the header's
        return None
    if result.damage is not None:
        return result.damage
    found = result.violation or result.mismatch
    if found is None:
        return None
    if result.violation is not None:
        reason = found.reason
        said = reason if reason.startswith(CANNOT_FOLLOW) else f"{CANNOT_FOLLOW}: {reason}"
    else:
        said = f"not the battle its rules make: {found.reason}"
    return ReplayError(path, found.line, said, found.seq)


def culprit(replay: ReplayLike) -> ReplayError | None:
    """The line of ``replay`` after which its ruleset's state hooks (``units``, ``outcome``)
    raise, as :func:`fault` names it; None when they never do, or the file is the battle its
    rules make (the failure is the ruleset's).

    For a tool whose ``units`` or ``outcome`` raised on a state folded from the file (a
    battle-ended event naming a winner no side is; a snapshot the battle never had): the file
    is folded from its first event, each state read as the tools read it, and each snapshot's
    state as restored.  Only a failure is judged so.
    """
    rs, sc = replay.ruleset, replay.scenario
    last: Event | None = None
    try:
        state = rs.initial_state(sc)  # one state, advanced in place by the fold
        for event, _ in replay.fold(state=state):
            if last is not None:
                _read(rs, sc, state)  # the state after ``last``
            last = event
            if isinstance(event, Snapshot):
                _read(rs, sc, restored(rs, sc, replay.path, event))
        if last is not None:
            _read(rs, sc, state)
    except ReplayError as exc:
        return exc
    except HookError as exc:  # the state after ``last``: its line, or an earlier one
        return fault(rs, sc, replay.path, last, exc.__cause__ or exc) if last else None
    return None


def _read(ruleset: AnyRuleset, scenario: Any, state: Any) -> None:
    """Read ``state`` as the tools do (its units and its outcome); raises as they would."""
    ruleset.units(scenario, state)
    ruleset.outcome(scenario, state)
