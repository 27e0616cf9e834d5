"""What a study-like file names: the scenario or campaign it fights, and where it writes.

Study files (:mod:`sim.batch.planning.spec`), calibration files (:mod:`sim.calibrate.spec`)
and historical cases (:mod:`sim.history.case`) each name one ``scenario:`` or
``campaign:`` file relative to themselves, and the first two an
``outputs.dir``; all three read them here, so their errors are worded alike
and located as ``file:line: field: message``.
"""

from __future__ import annotations

from pathlib import Path

from sim.batch.inputs.files import located
from sim.batch.inputs.guard import FolderError, contained
from sim.batch.inputs.target import Target, load_target, not_a_file, other_kind
from sim.scenario.load import ScenarioError

__all__ = ["Lines", "named_target", "output_folder"]

Lines = dict[tuple[str | int, ...], int]
"""A file's field path → line map (:func:`sim.batch.inputs.files.read_yaml`)."""


def named_target(file: str, lines: Lines, scenario: str | None, campaign: str | None) -> Target:
    """The scenario (or, when ``scenario`` is None, the campaign) that ``file`` names.

    The caller has checked that exactly one of the two is given.

    Raises:
        ScenarioError: no such file, a problem in it, or a file of the other kind.
    """
    key = "scenario" if scenario is not None else "campaign"
    rel = scenario if scenario is not None else campaign
    assert rel is not None
    path = Path(file).parent / rel
    if not path.is_file():
        raise ScenarioError([located(file, lines, (key,), not_a_file(path, key))])
    other = other_kind(path, ("scenario", "campaign"))
    if other is not None:
        raise ScenarioError([located(file, lines, (key,), f"{rel!r} is {other}, not a {key}")])
    target = load_target(path)
    if target.kind != key:
        raise ScenarioError(
            [located(file, lines, (key,), f"{rel!r} is a {target.kind} file, not a {key}")]
        )
    return target


def output_folder(file: str, lines: Lines, folder: str | None, what: str = "study file") -> Path:
    """``outputs.dir`` inside ``file``'s folder, else ./<file stem> (``what``: the kind of
    file, as an error names it).

    Raises:
        ScenarioError: ``folder`` is absolute or leaves the file's folder.
    """
    if not folder:
        return Path(Path(file).stem)
    try:
        return contained(Path(file).parent, folder, what)
    except FolderError as exc:
        raise ScenarioError([located(file, lines, ("outputs", "dir"), str(exc))]) from None
