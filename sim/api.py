"""battlesim's Python API: run, read, fold and verify battles (the CLI wraps it).

>>> from sim import api
>>> result = api.run("scenarios/stone_wall.yaml", seed=7, out="/tmp/sw.jsonl")  # doctest: +SKIP
>>> api.state_at("/tmp/sw.jsonl", turn=3)  # doctest: +SKIP
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from engine.log import FileSink
from engine.replayfile.reader import read_replay
from sim.batch.storage import StoreDamaged, StoreError
from sim.contract import Outcome, headline
from sim.outputs import OutputError, check_output, is_replay
from sim.replay.file import ReplayFile
from sim.replay.header import (
    header_scenario,
    make_header,
    registry_for,
    simulate_into,
    simulate_lines,
)
from sim.replay.memory import LoadedReplay
from sim.replay.verify import verify_replay
from sim.scenario.load import ScenarioError, load_scenario
from sim.scenario.values import check_seed, check_turn

__all__ = [
    "IncompleteStudyWarning",
    "LoadedReplay",
    "RunResult",
    "ScenarioError",
    "StoreDamaged",
    "StoreError",
    "default_replay_path",
    "load_replay",
    "load_study",
    "make_header",
    "open_replay",
    "run",
    "simulate_into",
    "simulate_lines",
    "state_at",
    "verify_replay",
]


_STUDY_LIBRARIES = frozenset({"numpy", "scipy", "duckdb", "pandas", "pyarrow"})
"""What :func:`load_study` reads a study with: the study and notebook extras'."""


@dataclass(frozen=True)
class RunResult:
    """What :func:`run` did: where the replay went and the outcome."""

    scenario: str
    seed: int
    replay: str | None
    events: int
    outcome: Outcome
    state: Any
    summary: list[str]
    """Readable outcome lines, one per side (the ruleset's words)."""
    headline: str
    """``Union wins after 4 turns — <reason>``."""
    ruleset: str = ""
    """The ruleset's name, as the replay's header has it."""
    ruleset_version: str = ""
    """The rules version the battle was fought under (the header's ``ruleset_version``)."""

    def as_json(self) -> dict[str, Any]:
        """The ``run --json`` object."""
        return {
            "scenario": self.scenario,
            "ruleset": self.ruleset,
            "ruleset_version": self.ruleset_version,
            "seed": self.seed,
            "replay": self.replay,
            "events": self.events,
            **self.outcome.as_json(),
            "losses": self.outcome.losses(),
        }


def default_replay_path(scenario_path: str | Path, seed: int) -> Path:
    """``<scenario stem>-s<seed>.jsonl`` in the current directory."""
    return Path(f"{Path(scenario_path).stem}-s{seed}.jsonl")


def _seed_of(scenario: BaseModel, seed: object) -> int:
    """The run's seed: ``seed`` checked as ``--seed`` is, else the scenario's own."""
    return check_seed(seed if seed is not None else getattr(scenario, "seed", 0))


def run(
    scenario_path: str | Path,
    seed: int | None = None,
    out: str | Path | None = None,
    *,
    force: bool = False,
) -> RunResult:
    """Validate a scenario, fight it and write its replay.

    Args:
        scenario_path: a scenario YAML file.
        seed: the seed; default the scenario's own ``seed``.
        out: the replay path; default :func:`default_replay_path`.
        force: overwrite an existing file even if it is not a battlesim replay
            (a replay at ``out``, of this scenario or another, is replaced anyway).

    Raises:
        ValueProblem: ``seed`` is not a whole number from 0 to 2⁶³ − 1 (a
            ``ValueError``; ``True``, ``"7"`` and ``-1`` are refused as ``--seed`` refuses them).
        ScenarioError: the scenario is invalid (nothing is written).
        OutputError: ``out`` cannot be written, or holds another file (see ``force``).
        OSError: the replay cannot be written (what was at ``out`` is kept);
            its ``filename`` is the replay's path when the OS named no file.

    The replay is written to ``<out>.partial`` and renamed when complete; a
    run killed before the end leaves its readable prefix there.
    """
    if seed is not None:
        check_seed(seed)  # before the scenario is read: the argument is wrong whatever it holds
    ruleset, scenario = load_scenario(scenario_path)
    s = _seed_of(scenario, seed)
    path = Path(out) if out is not None else default_replay_path(scenario_path, s)
    if path.resolve() == Path(scenario_path).resolve():
        raise OutputError(f"--out {out}: that is the scenario file itself")
    header = make_header(ruleset, scenario, s, source=Path(scenario_path).name)
    check_output(path, force=force, ours=is_replay, what="a replay")
    # On any exception, Ctrl-C included, nothing half-written is left (the
    # sink abandons its .partial); an old replay at ``path`` is untouched.
    with FileSink(path) as sink:
        try:
            state = ruleset.simulate(scenario, header, sink)
        except OSError as exc:
            if exc.filename is None:
                exc.filename = str(path)  # a refused write (disk full) names no file
            raise
    result = ruleset.outcome(scenario, state)
    return RunResult(
        str(scenario_path),
        s,
        str(path),
        sink.count - 2,
        result,
        state,
        ruleset.summary(result),
        headline(ruleset, result),
        header.ruleset,
        header.ruleset_version,
    )


def load_replay(path: str | Path, *, allow_truncated: bool = False) -> LoadedReplay:
    """Read a replay, every line validated and its chain checked.

    Raises:
        ReplayError: the file is damaged, from a newer format, or unknown.
    """
    replay = read_replay(path, registry_for, allow_truncated=allow_truncated)
    ruleset, scenario = header_scenario(replay.header, str(path))
    return LoadedReplay(ruleset, scenario, replay)


def open_replay(path: str | Path, *, allow_truncated: bool = False) -> ReplayFile:
    """Open a replay to read as a stream: the header is checked now, each line as it is read.

    What the replay tools use: memory holds the state and one line, never
    the battle's events (:class:`sim.replay.file.ReplayFile`).

    Raises:
        ReplayError: the file cannot be read, is not a replay, or its header
            is damaged, newer or unknown.
    """
    return ReplayFile(path, allow_truncated=allow_truncated)


def state_at(path: str | Path, turn: int | None = None) -> Any:
    """Fold a replay to the state at the end of ``turn`` (default: the end), streaming it.

    Raises:
        ValueProblem: ``turn`` is not a whole number from 0 (a ``ValueError``:
            ``-1``, ``nan``, ``inf`` are refused as ``show --turn`` refuses them).
        ReplayError: the file is damaged, from a newer format, or unknown.
    """
    check_turn(turn)
    return open_replay(path).state_at(turn)


class IncompleteStudyWarning(UserWarning):
    """:func:`load_study` read a study that stopped before its end: the DataFrame holds
    the runs committed so far. ``battlesim batch ... --resume`` completes the study;
    ``warnings.simplefilter("error", IncompleteStudyWarning)`` makes it an error."""


def load_study(folder: str | Path) -> Any:
    """The runs of the batch study in ``folder`` as a pandas DataFrame, one row per run.

    The columns are those of the ``runs_wide`` view (docs/batch.md): run id,
    point, replication, seed, status, every factor by its path with its type,
    winner, reason, turns, battles and each side's losses. Needs the
    ``notebook`` extra (``pip install 'battlesim[notebook]'``: pandas, pyarrow).

    A study that stopped before its end (its ``progress.json`` not finished: Ctrl-C,
    a lost worker) is read as far as it was committed, with an
    :class:`IncompleteStudyWarning` saying how many of its planned runs that is, as
    ``battlesim export`` notes it.

    Raises:
        StoreError: no study in ``folder``, or a database that is not a study
            (:class:`StoreDamaged`, a StoreError, when it is one cut short); both
            import from here, ``from sim.api import StoreError``, with no DuckDB.
        ImportError: pandas is not installed.
    """
    import warnings  # noqa: PLC0415

    # DuckDB and pandas are heavy; only this call needs them.
    try:
        import pandas  # type: ignore[import-untyped]  # noqa: F401, PLC0415  # .df() needs it

        from sim.batch.storage.progress import read_progress  # noqa: PLC0415
        from sim.batch.storage.store import Store  # noqa: PLC0415
        from sim.batch.storage.wide import wide_select  # noqa: PLC0415
    except ModuleNotFoundError as exc:
        if exc.name is None or exc.name.split(".")[0] not in _STUDY_LIBRARIES:
            raise
        raise ModuleNotFoundError(
            f"sim.api.load_study needs {exc.name}, which a lean install leaves out: "
            "pip install 'battlesim[study,notebook]' (or make dev)",
            name=exc.name,
        ) from None

    store = Store.open(Path(folder) / "study.duckdb", read_only=True)
    try:
        frame = store.con.execute(f"{wide_select(store)} ORDER BY r.run_id").df()
    finally:
        store.close()
    progress = read_progress(Path(folder))
    if progress is not None and not progress.finished:
        warnings.warn(
            f"{str(folder)!r} is incomplete ({len(frame):,} of {progress.planned:,} runs "
            "committed): the DataFrame holds those; complete the study with --resume on the "
            "command that made it (battlesim batch or study)",
            IncompleteStudyWarning,
            stacklevel=2,
        )
    return frame
