"""A fork's parent, for the report's What if banner: how the parent ended, when its file is at hand.

A fork's header names its parent by file name and by the SHA-256 of the parent's header
line, never by its outcome: how the parent ended is in the parent's file alone. So the
banner shows it only from that file — given (``report --parent FILE``, or the other
battle of ``diff --html``) or found beside the fork under the name its header gives —
once its header is the one the fork names; otherwise it says why it cannot.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

from engine.log import Fork, Header
from engine.replayfile.checks import ReplayError
from sim.contract import headline
from sim.replay.file import ReplayFile, ReplayLike

__all__ = ["NotTheParent", "ParentOutcome", "header_digest", "is_parent", "parent_outcome"]


class NotTheParent(ValueError):
    """A parent given for a replay that is not a fork, or whose header is not the one the
    fork names: one line, naming both files."""


@dataclass(frozen=True)
class ParentOutcome:
    """How a fork's parent ended (its headline and reason), or why that cannot be shown."""

    headline: str | None
    note: str | None = None


def header_digest(header: Header) -> str:
    """``sha256:`` of a replay's header line, as a fork's ``parent_digest`` holds its parent's."""
    return "sha256:" + hashlib.sha256(header.body().encode()).hexdigest()


def is_parent(fork: Fork, candidate: ReplayLike) -> bool:
    """True when ``candidate``'s header is the one ``fork`` names as its parent's."""
    return header_digest(candidate.header) == fork.parent_digest


def _ended(parent: ReplayLike) -> str:
    """The parent's headline with its reason: ``Confederate wins after 2 turns — …``."""
    rs = parent.ruleset
    return headline(rs, rs.outcome(parent.scenario, parent.state_at()))


def parent_outcome(loaded: ReplayLike, given: ReplayLike | None = None) -> ParentOutcome | None:
    """How the parent of the fork ``loaded`` ended; None when ``loaded`` is no fork.

    From ``given`` when it is the parent; else from the file beside ``loaded`` named as
    its header names the parent, when that file's header is the parent's.

    Raises:
        NotTheParent: ``given`` is not ``loaded``'s parent, or ``loaded`` is no fork.
        ReplayError: ``given`` is damaged where its final state is read.
    """
    fork = loaded.header.fork
    if given is not None:
        if fork is None:
            raise NotTheParent(
                f"--parent {given.path}: {loaded.path} is not a fork; it has no parent"
            )
        if not is_parent(fork, given):
            raise NotTheParent(
                f"--parent {given.path}: not the parent of {loaded.path}: its header is not "
                f"the one the fork's names ({fork.parent}'s)"
            )
        return ParentOutcome(_ended(given))
    if fork is None:
        return None
    return _beside(loaded, fork)


def _beside(loaded: ReplayLike, fork: Fork) -> ParentOutcome:
    """The parent's outcome from the file named ``fork.parent`` beside ``loaded``, or why not."""
    path = Path(str(loaded.path)).parent / fork.parent
    how = "give it with report --parent FILE"
    if not path.is_file():
        return ParentOutcome(None, f"{fork.parent} is not beside this replay ({how})")
    try:
        found = ReplayFile(path)
        if not is_parent(fork, found):
            return ParentOutcome(
                None, f"the {fork.parent} beside this replay is another battle ({how})"
            )
        found.scan()
        return ParentOutcome(_ended(found))
    except (ReplayError, OSError) as exc:
        said = exc.message if isinstance(exc, ReplayError) else (exc.strerror or str(exc))
        return ParentOutcome(None, f"the {fork.parent} beside this replay cannot be read: {said}")
