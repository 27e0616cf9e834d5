"""A study's ``progress.json`` read back: runs committed and planned, and whether it finished.

The coordinator writes the file after every commit point (``sim.batch.study``) and marks
it ``finished`` at the end; a study stopped before then (Ctrl-C, a lost worker, a killed
machine) has the file without the mark. The readers of a study's results (``export``,
``discover``, ``sim.api.load_study``) use it to say that what they read is incomplete.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

__all__ = ["StudyProgress", "read_progress"]

_MAX_BYTES = 4096
"""Read no more of the file than this: battlesim's own is under 100 bytes a point."""


@dataclass(frozen=True)
class StudyProgress:
    """What ``progress.json`` says: runs ``committed`` (as of the last commit point),
    runs ``planned`` and whether the study ``finished``."""

    committed: int
    planned: int
    finished: bool


def read_progress(folder: Path) -> StudyProgress | None:
    """``folder``'s progress, or None when it has no ``progress.json`` (a study of an
    older battlesim) or one battlesim did not write."""
    try:
        state = json.loads((folder / "progress.json").read_bytes()[:_MAX_BYTES])
        return StudyProgress(
            committed=int(state["committed"]),
            planned=int(state["planned"]),
            finished=state.get("finished") is True,
        )
    except (OSError, ValueError, TypeError, KeyError, AttributeError):
        return None
