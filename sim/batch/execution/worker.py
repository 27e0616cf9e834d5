"""The work of one run, and of one chunk of runs on a worker.

A worker receives a :class:`Chunk` — the study's :class:`Shared` part (the
target and the loss columns, pickled once by the study), one design point
and some of its replications — and returns the chunk's table rows
(:class:`sim.batch.execution.rows.ChunkRows`): each run's outcome row and its units'
final states, never the event log (except for the runs whose replays the
study keeps). A run that raises is recorded as failed with its error; the
others go on.

A worker keeps what it has unpickled and validated: the shared part by its
key, and a few prepared design points, so a point's scenario is validated
once per worker, not once per chunk or per run. Its cyclic garbage is
collected at a bounded share of its CPU by the engine, at the end of each
run (:mod:`engine.garbage`).
"""

from __future__ import annotations

import hashlib
import pickle
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from pydantic import ValidationError

from engine.canonical import canonical_json
from engine.log import DiscardSink, Header, MemorySink, Sink
from sim.batch.execution.columnar import pack
from sim.batch.execution.digests import DIGEST_COLUMNS, UNIT_TYPES, digest_runs, run_types
from sim.batch.execution.executors import forget_safe_path
from sim.batch.execution.rows import UNIT_COLUMNS, ChunkRows, Losses, outcome_json, run_row
from sim.batch.inputs.campaign import CampaignData, fight_campaign
from sim.batch.inputs.seeds import RunSpec
from sim.batch.inputs.target import Target, campaign_at
from sim.contract import AnyRuleset, UnitRow
from sim.contract.ruleset import built_in, place_name, raised_outside
from sim.replay.header import make_header
from sim.runner import DrawTally, raised_where
from sim.scenario.load import ScenarioError, validate_data

__all__ = [
    "UNIT_COLUMNS",
    "Chunk",
    "Fought",
    "NullSink",
    "Prepared",
    "RunSpec",
    "Shared",
    "failure",
    "fight",
    "prepare",
    "run_chunk",
    "run_rows",
    "side_draws",
    "study_chunk",
]

SinkFor = Callable[[int, str], Sink]


forget_safe_path()  # in a pool's forkserver or worker: it has started, with a safe path

NullSink = DiscardSink
"""The sink of a run whose replay is not kept: no line is serialised or hashed."""


def _null(_k: int, _name: str) -> Sink:
    return NullSink()


PREPARED_CACHE = 32
"""Design points a worker keeps prepared (a round of chunks visits every point in turn,
so a design of more points is prepared again each round, as it was for every chunk)."""

OPENED_CACHE = 4
"""Studies' shared parts a worker keeps (a Dask worker may serve several studies)."""

_OPENED: OrderedDict[str, tuple[Target, Losses, tuple[str, ...]]] = OrderedDict()
_PREPARED: OrderedDict[tuple[str, str], Prepared | str] = OrderedDict()


@dataclass(frozen=True)
class Shared:
    """What every chunk of a study shares, pickled once: the target, the loss columns, the sides.

    A chunk carries these bytes (copying them costs the study next to nothing)
    and a worker unpickles them once per ``key``.
    """

    key: str
    blob: bytes

    @classmethod
    def of(cls, target: Target, losses: Losses, sides: tuple[str, ...] = ()) -> Shared:
        """Pack ``target``, ``losses`` and the sides whose draws are counted (their
        ``<side>_draws`` columns, in order); the key is a digest of the packed bytes."""
        blob = pickle.dumps((target, losses, sides), protocol=pickle.HIGHEST_PROTOCOL)
        return cls(hashlib.sha256(blob).hexdigest(), blob)

    def opened(self) -> tuple[Target, Losses, tuple[str, ...]]:
        """The target, the loss columns and the sides, unpickled once per process."""
        found = _OPENED.get(self.key)
        if found is None:
            found = pickle.loads(self.blob)  # made by the study that sent it: trusted
            _OPENED[self.key] = found
            while len(_OPENED) > OPENED_CACHE:
                _OPENED.popitem(last=False)
        return found

    def open(self) -> tuple[Target, Losses]:
        """The target and the loss columns."""
        target, losses, _ = self.opened()
        return target, losses


@dataclass(frozen=True)
class Chunk:
    """Runs of one design point, sent to a worker together."""

    shared: Shared
    point: int
    values: dict[str, Any]
    runs: tuple[RunSpec, ...]


@dataclass(frozen=True)
class Prepared:
    """A design point made ready to fight: its validated scenario or campaign.

    A scenario's replay header is made once (``header``, for seed 0): each run's is
    a copy with its own seed, the same header :func:`~sim.replay.header.make_header`
    would make, without dumping and digesting the scenario again for every run.
    """

    target: Target
    scenario: tuple[AnyRuleset, Any] | None = None
    campaign: CampaignData | None = None
    header: Header | None = None
    stem: str = ""

    def header_for(self, seed: int) -> Header:
        """The header of this point's scenario fought with ``seed``."""
        assert self.header is not None and self.scenario is not None
        return self.header.model_copy(update={"seed": seed})


@dataclass(frozen=True)
class Fought:
    """One run fought: its outcome, the final state of each battle, the draws of its units."""

    outcome: dict[str, Any]
    battles: list[tuple[str | None, AnyRuleset, Any, Any]]
    """(battle id or None for a lone scenario, ruleset, final state, scenario), in order."""
    draws: list[dict[str | None, int]] = field(default_factory=list)
    """Per battle: the random draws its events recorded, by the unit that emitted them (none
    for a lone battle fought with ``draws=False``)."""


def prepare(target: Target, values: dict[str, Any]) -> Prepared:
    """Validate the target with a design point's values set.

    Raises:
        ScenarioError, ValidationError: the point's values make it invalid.
    """
    if target.kind == "scenario":
        ruleset, scenario = validate_data(target.at(values), {}, target.source)
        header = make_header(ruleset, scenario, 0, source=target.source)
        return Prepared(target, (ruleset, scenario), header=header, stem=target.stem)
    campaign = campaign_at(target, values)
    return Prepared(target, campaign=campaign, stem=target.stem)


def fight(
    prepared: Prepared, seed: int, sink_for: SinkFor = _null, *, draws: bool = True
) -> Fought:
    """Fight one run of a prepared point with ``seed``; battle k writes to ``sink_for(k, name)``.

    ``draws=False``: a lone battle's draws are not counted (its :attr:`Fought.draws` is
    empty), for a caller that reads none (``battlesim history``)."""
    if prepared.scenario is not None:
        ruleset, scenario = prepared.scenario
        header = prepared.header_for(seed)
        tally = DrawTally() if draws else None
        state = ruleset.simulate(scenario, header, sink_for(0, prepared.stem), tally)
        outcome = ruleset.outcome(scenario, state).as_json()
        counted = [tally.by_unit] if tally is not None else []
        return Fought(outcome, [(None, ruleset, state, scenario)], counted)
    assert prepared.campaign is not None
    result = fight_campaign(prepared.campaign, seed, lambda k, e: sink_for(k, e.id))
    battles: list[tuple[str | None, AnyRuleset, Any, Any]] = [
        (b.id, b.ruleset, b.state, b.scenario) for b in result.battles
    ]
    return Fought(result.outcome, battles, [b.draws for b in result.battles])


def final_values(unit: UnitRow) -> tuple[Any, ...]:
    """A unit row's values for :data:`~sim.batch.execution.rows.UNIT_COLUMNS`.

    Side, kind, initial and final strength (values) and the strength's unit,
    the status words joined by ``", "`` (``""`` when all is well) and the
    details as canonical JSON (:func:`~sim.batch.execution.rows.outcome_json`; ``{}``
    when there are none).
    """
    strength, details = unit.strength, unit.details
    return (
        unit.side,
        unit.kind,
        unit.initial.value,
        strength.value,
        strength.unit,
        ", ".join(unit.status),
        outcome_json(details) if details else "{}",
    )


def unit_finals(fought: Fought) -> list[tuple[Any, ...]]:
    """Each unit's final row in each battle: (battle index, battle id, unit id, *values).

    The values are :func:`final_values` of the ruleset's unit rows of the final state.
    """
    return [
        (k, battle, unit.id, *final_values(unit))
        for k, (battle, ruleset, state, scenario) in enumerate(fought.battles)
        for unit in ruleset.units(scenario, state)
    ]


def failure(exc: BaseException) -> str:
    """Why a run (or a design point) failed, in one line: what its ``error`` column holds."""
    if isinstance(exc, ScenarioError):
        p = exc.problems[0]
        return f"invalid scenario: {p.field}: {p.message}" if p.field else str(p.message)
    if isinstance(exc, ValidationError):
        err = exc.errors()[0]
        where = ".".join(str(x) for x in err["loc"])
        if exc.title in _CAMPAIGN_MODELS:
            return f"invalid campaign: {where}: {err['msg']}"
        # a model the rules built with a wrong value (a plugin's event): the model and line
        place = built_in(exc)
        at = f", at {place_name(place[0])}:{place[1]}" if place is not None else ""
        return _in_battle(exc, f"ValidationError: {where}: {err['msg']} (building {exc.title}{at})")
    return _in_battle(exc, f"{type(exc).__name__}: {exc}{raised_outside(exc)}")


def _in_battle(exc: BaseException, said: str) -> str:
    """``said``, after the ruleset, process and turn that raised ``exc`` in a battle, if one
    did (:func:`sim.runner.raised_where`)."""
    where = raised_where(exc)
    return said if where is None else f"{where}: {said}"


_CAMPAIGN_MODELS = frozenset({"CampaignData", "BattleEntry", "Victory"})
"""The campaign file's models: their errors are the design point's campaign's."""


Kept = list[tuple[str, list[str]]]
"""(battle name, replay lines) of each battle of a run whose replay is kept."""


def side_draws(
    fought: Fought, finals: list[tuple[Any, ...]], sides: tuple[str, ...]
) -> tuple[int, ...]:
    """Each side's random draws: those of its units' events, over every battle.

    A unit's side is its final unit row's (``finals``: :func:`unit_finals`);
    draws of events no unit emitted (a turn's end, a referee) are no side's.
    """
    side_of = {(k, unit): side for k, _battle, unit, side, *_rest in finals}
    total = dict.fromkeys(sides, 0)
    for k, by_unit in enumerate(fought.draws):
        for unit, n in by_unit.items():
            side = side_of.get((k, unit)) if unit is not None else None
            if side in total:
                total[side] += n
    return tuple(total[s] for s in sides)


def run_rows(
    prepared: Prepared, run: RunSpec, losses: Losses, sides: tuple[str, ...] = ()
) -> tuple[tuple[Any, ...], list[tuple[Any, ...]], Kept]:
    """A run's row, its units' rows and (if kept) its replays' lines (``verify`` re-fights by it).

    The row ends with each of ``sides``' draws (None for a failed run).
    """
    sinks: list[tuple[str, MemorySink]] = []

    def keep(_k: int, name: str) -> Sink:
        sink = MemorySink()
        sinks.append((name, sink))
        return sink

    ids = (run.run_id, run.point, run.replication, run.seed)
    try:
        fought = fight(prepared, run.seed, keep if run.keep_replay else _null)
        finals = unit_finals(fought)  # the ruleset's units hook: its error is the run's too
    except Exception as exc:  # a failing run is data: record it, go on
        return run_row(ids, "failed", failure(exc), None, losses, (None,) * len(sides)), [], []
    units = [(run.run_id, *u) for u in finals]
    kept = [(name, sink.lines) for name, sink in sinks]
    draws = side_draws(fought, finals, sides)
    return run_row(ids, "done", None, fought.outcome, losses, draws), units, kept


def _prepared(chunk: Chunk, target: Target) -> Prepared | str:
    """The chunk's design point prepared (cached per worker), or why it does not validate."""
    key = (chunk.shared.key, canonical_json(chunk.values))
    found = _PREPARED.get(key)
    if found is not None:
        _PREPARED.move_to_end(key)
        return found
    try:
        found = prepare(target, chunk.values)
    except (ScenarioError, ValidationError) as exc:
        found = failure(exc)
    _PREPARED[key] = found
    while len(_PREPARED) > PREPARED_CACHE:
        _PREPARED.popitem(last=False)
    return found


UNIT_TYPES_LIST = list(UNIT_TYPES.values())


def run_chunk(chunk: Chunk) -> ChunkRows:
    """Fight every run of a chunk; a point that does not validate fails each of its runs.

    The rows carry the CPU seconds the chunk cost this process (the study paces
    its commit points by it); a clock reading decides nothing in the rows.
    """
    start = time.process_time()
    rows = _rows(chunk)
    _, losses, sides = chunk.shared.opened()
    types = run_types(len(losses), len(sides))
    rows.digests = digest_runs(rows.runs, types, rows.units, UNIT_TYPES_LIST, rows.replays)
    rows.cpu = time.process_time() - start
    return rows


DIGEST_TYPES = list(DIGEST_COLUMNS.values())


def study_chunk(chunk: Chunk) -> ChunkRows:
    """:func:`run_chunk` for a study: the rows packed in Arrow's column layout, one byte
    string a table (:func:`sim.batch.execution.columnar.pack`), which the store wraps as
    record batches and appends as they are."""
    rows = run_chunk(chunk)
    start = time.process_time()
    _, losses, sides = chunk.shared.opened()
    rows = pack(rows, run_types(len(losses), len(sides)), UNIT_TYPES_LIST, DIGEST_TYPES)
    rows.cpu += time.process_time() - start
    return rows


def _rows(chunk: Chunk) -> ChunkRows:
    """The rows of every run of a chunk."""
    target, losses, sides = chunk.shared.opened()
    prepared = _prepared(chunk, target)
    if isinstance(prepared, str):
        ids = [(r.run_id, r.point, r.replication, r.seed) for r in chunk.runs]
        none = (None,) * len(sides)
        rows = [run_row(i, "failed", prepared, None, losses, none) for i in ids]
        return ChunkRows.of(rows, [], losses, draws=len(sides))
    runs: list[tuple[Any, ...]] = []
    units: list[tuple[Any, ...]] = []
    replays: list[tuple[int, Kept]] = []
    for run in chunk.runs:
        row, finals, kept = run_rows(prepared, run, losses, sides)
        runs.append(row)
        units.extend(finals)
        if kept:
            replays.append((run.run_id, kept))
    return ChunkRows.of(runs, units, losses, replays, draws=len(sides))
