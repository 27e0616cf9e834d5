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

from engine.safety.files import FileProblem, read_bounded

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
    older battlesim) or one battlesim did not write: not a regular file of at most
    :data:`_MAX_BYTES` (a link to ``/dev/zero``, a FIFO), not JSON, or counts that are not
    whole numbers of runs."""
    try:
        state = json.loads(read_bounded(folder / "progress.json", _MAX_BYTES))
    except (FileProblem, ValueError, RecursionError):  # RecursionError: nested 100,000 deep
        return None
    if not isinstance(state, dict):
        return None
    committed, planned = state.get("committed"), state.get("planned")
    if type(committed) is not int or type(planned) is not int or min(committed, planned) < 0:
        return None
    return StudyProgress(committed, planned, finished=state.get("finished") is True)
