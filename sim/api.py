"""battlesim's Python API: run, read, fold and verify battles (the CLI wraps it).

>>> from sim import api
>>> result = api.run("scenarios/stone_wall.yaml", seed=7, out="/tmp/sw.jsonl")  # doctest: +SKIP
>>> api.state_at("/tmp/sw.jsonl", turn=3)  # doctest: +SKIP
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ValidationError

from engine.canonical import digest
from engine.events import Event, EventRegistry
from engine.formats import resimulation_format
from engine.log import FileSink, Header, MemorySink, Sink
from engine.projection import Projection
from engine.reader import ReplayError, read_replay
from engine.replay import Mismatch, VerifyResult, verify
from engine.version import ENGINE_VERSION, FORMAT_VERSION
from sim.loaded import LoadedReplay
from sim.loader import ScenarioError, load_scenario
from sim.outputs import OutputError, check_output
from sim.ruleset import AnyRuleset, Outcome, get_ruleset, headline

if TYPE_CHECKING:
    from sim.replayfile import ReplayFile

__all__ = [
    "LoadedReplay",
    "RunResult",
    "ScenarioError",
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

    def as_json(self) -> dict[str, Any]:
        """The ``run --json`` object."""
        return {
            "scenario": self.scenario,
            "seed": self.seed,
            "replay": self.replay,
            "events": self.events,
            **self.outcome.as_json(),
            "losses": self.outcome.losses(),
        }


def make_header(
    ruleset: AnyRuleset,
    scenario: BaseModel,
    seed: int,
    source: str | None = None,
    format_version: int = FORMAT_VERSION,
) -> Header:
    """The replay header for a scenario and seed (canonical scenario, digests).

    ``format_version`` is today's for a new battle; a battle fought again
    (verify, fork, a resumed study) keeps the dice of the format it began in
    (:func:`engine.formats.resimulation_format`).
    """
    canonical = scenario.model_dump(mode="json")
    return Header(
        format_version=format_version,
        engine_version=ENGINE_VERSION,
        ruleset=ruleset.name,
        ruleset_version=ruleset.version,
        seed=seed,
        scenario=canonical,
        scenario_digest=digest(canonical),
        rules_digest=digest(ruleset.rules_data()),
        source=source,
    )


def default_replay_path(scenario_path: str | Path, seed: int) -> Path:
    """``<scenario stem>-s<seed>.jsonl`` in the current directory."""
    return Path(f"{Path(scenario_path).stem}-s{seed}.jsonl")


def _seed_of(scenario: BaseModel, seed: int | None) -> int:
    if seed is not None:
        return seed
    found = getattr(scenario, "seed", 0)
    return int(found)


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
        force: overwrite an existing file even if it is not a replay of this scenario.

    Raises:
        ScenarioError: the scenario is invalid (nothing is written).
        OutputError: ``out`` cannot be written, or holds another file (see ``force``).
        OSError: the replay cannot be written (what was at ``out`` is kept);
            its ``filename`` is the replay's path when the OS named no file.

    The replay is written to ``<out>.partial`` and renamed when complete; a
    run killed before the end leaves its readable prefix there.
    """
    ruleset, scenario = load_scenario(scenario_path)
    s = _seed_of(scenario, seed)
    path = Path(out) if out is not None else default_replay_path(scenario_path, s)
    if path.resolve() == Path(scenario_path).resolve():
        raise OutputError(f"--out {out}: that is the scenario file itself")
    header = make_header(ruleset, scenario, s, source=Path(scenario_path).name)
    check_output(path, force=force, scenario_digest=header.scenario_digest)
    sink = FileSink(path)
    try:
        state = ruleset.simulate(scenario, header, sink)
    except Exception as exc:
        sink.abandon()  # nothing half-written is left; an old replay at ``path`` is untouched
        if isinstance(exc, OSError) and exc.filename is None:
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
    )


def _header_scenario(header: Header, path: str) -> tuple[AnyRuleset, Any]:
    """The header's ruleset and scenario, validated as a scenario file would be.

    Raises:
        ReplayError: at line 1, when the header's scenario does not validate.
    """
    try:
        ruleset = get_ruleset(header.ruleset)
        scenario = ruleset.scenario_model.model_validate(header.scenario)
    except LookupError as exc:
        raise ReplayError(path, 1, str(exc)) from None
    except ValidationError as exc:
        err = exc.errors()[0]
        where = ".".join(str(p) for p in err["loc"])
        raise ReplayError(path, 1, f"header scenario is invalid: {where}: {err['msg']}") from None
    problems = ruleset.cross_check(scenario)
    if problems:
        field, message = problems[0]
        where = ".".join(str(p) for p in field)
        raise ReplayError(path, 1, f"header scenario is invalid: {where}: {message}")
    return ruleset, scenario


def simulate_into(header: Header, sink: Sink, path: str = "<header>") -> Any:
    """Re-simulate a replay's header into ``sink``; return the final state.

    Raises:
        ReplayError: the header's scenario does not validate, or its fork
            cannot be applied (a forged change: an unknown field, a negative count).
    """
    ruleset, scenario = _header_scenario(header, path)
    again = resimulation_format(header.format_version)  # its own dice
    fresh = make_header(ruleset, scenario, header.seed, header.source, again).model_copy(
        update={"fork": header.fork}
    )
    try:
        return ruleset.simulate(scenario, fresh, sink)
    except _UNFOLDABLE as exc:  # SimPy re-raises a process's error, sometimes as a TypeError
        raise ReplayError(path, 1, f"the header's fork cannot be re-simulated: {exc}") from None


def simulate_lines(header: Header, path: str = "<header>") -> list[str]:
    """Re-simulate a replay's header in memory; return the lines it writes (small battles).

    Raises:
        ReplayError: as :func:`simulate_into`.
    """
    sink = MemorySink()
    simulate_into(header, sink, path)
    return sink.lines


def _registry_for(header: Header) -> EventRegistry:
    return get_ruleset(header.ruleset).registry


def load_replay(path: str | Path, *, allow_truncated: bool = False) -> LoadedReplay:
    """Read a replay, every line validated and its chain checked.

    Raises:
        ReplayError: the file is damaged, from a newer format, or unknown.
    """
    replay = read_replay(path, _registry_for, allow_truncated=allow_truncated)
    ruleset, scenario = _header_scenario(replay.header, str(path))
    return LoadedReplay(ruleset, scenario, replay)


def open_replay(path: str | Path, *, allow_truncated: bool = False) -> ReplayFile:
    """Open a replay to read as a stream: the header is checked now, each line as it is read.

    What the replay tools use: memory holds the state and one line, never
    the battle's events (:class:`sim.replayfile.ReplayFile`).

    Raises:
        ReplayError: the file cannot be read, is not a replay, or its header
            is damaged, newer or unknown.
    """
    from sim.replayfile import ReplayFile  # noqa: PLC0415 - it imports this module

    return ReplayFile(path, allow_truncated=allow_truncated)


def state_at(path: str | Path, turn: int | None = None) -> Any:
    """Fold a replay to the state at the end of ``turn`` (default: the end), streaming it."""
    return open_replay(path).state_at(turn)


_UNFOLDABLE = (KeyError, IndexError, ValueError, TypeError, AttributeError, ArithmeticError)
"""What a ruleset's apply or audit raises on an event naming a unit, hex or index not there."""


class _Auditor:
    """Checks each recorded event against the ruleset's invariants, folding as it goes.

    In a forked battle the changed event is a counterfactual and is not
    checked; after a state override the rules' bookkeeping (losses that add
    up) no longer holds, so checking stops at the fork.
    """

    def __init__(self, header: Header, path: str) -> None:
        self.ruleset, self.scenario = _header_scenario(header, path)
        forks = header.fork.chain() if header.fork is not None else {}
        self.forks = forks
        self.first_state_fork = min((s for s, f in forks.items() if f.state), default=None)
        self.projection = Projection(self.ruleset.initial_state(self.scenario), self.ruleset.apply)
        self.done = self.ruleset.audit is None

    def __call__(self, event: Event) -> Mismatch | None:
        if self.done:
            return None
        audit = self.ruleset.audit
        assert audit is not None
        try:
            if self.first_state_fork is not None and event.seq > self.first_state_fork:
                self.done = True
                return None
            fork = self.forks.get(event.seq)
            problem = None
            if fork is None or not fork.event:
                problem = audit(self.scenario, self.projection.state, event)
            self.projection.apply(event)
        except _UNFOLDABLE as exc:  # only a forged log gets here: the reader checked types
            self.done = True
            return Mismatch(
                event.seq + 2, event.seq, f"cannot follow from the battle so far: {exc!r}"
            )
        if problem is not None:
            self.done = True
            return Mismatch(event.seq + 2, event.seq, f"{event.type}: {problem}")
        return None


def verify_replay(path: str | Path) -> VerifyResult:
    """Integrity and the ruleset's invariants, compared line by line while re-simulating.

    The file is streamed: memory holds the recorded fold's state, the
    re-simulation's, and one line of each.
    """
    name = str(path)
    return verify(
        path,
        _registry_for,
        lambda header, sink: simulate_into(header, sink, name),
        lambda header: _Auditor(header, name),
    )


def load_study(folder: str | Path) -> Any:
    """The runs of the batch study in ``folder`` as a pandas DataFrame, one row per run.

    The columns are those of the ``runs_wide`` view (docs/batch.md): run id,
    point, replication, seed, status, every factor by its path with its type,
    winner, reason, turns, battles and each side's losses. Needs the
    ``notebook`` extra (``pip install 'battlesim[notebook]'``: pandas, pyarrow).

    Raises:
        StoreError: no study in ``folder``.
        ImportError: pandas is not installed.
    """
    # DuckDB and pandas are heavy; only this call needs them.
    from sim.batch.store import Store  # noqa: PLC0415
    from sim.batch.wide import wide_select  # noqa: PLC0415

    store = Store.open(Path(folder) / "study.duckdb", read_only=True)
    try:
        return store.con.execute(f"{wide_select(store)} ORDER BY r.run_id").df()
    finally:
        store.close()
