"""The work of one run, and of one chunk of runs on a worker.

A worker receives a :class:`Chunk` — the target, one design point and some
of its replications — and returns one :class:`RunRecord` per run: the
outcome and each unit's final state, never the event log (except for the
runs whose replays the study keeps). A run that raises is recorded as
failed with its error; the others go on.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from pydantic import ValidationError

from engine.log import DiscardSink, MemorySink, Sink
from sim.api import make_header
from sim.batch.campaign import CampaignData, fight_campaign, validate_battle
from sim.batch.target import Target
from sim.loader import ScenarioError, validate_data
from sim.ruleset import AnyRuleset

__all__ = [
    "UNIT_COLUMNS",
    "Chunk",
    "Fought",
    "NullSink",
    "Prepared",
    "RunRecord",
    "RunSpec",
    "fight",
    "prepare",
    "run_chunk",
]

UNIT_COLUMNS = ("side", "initial", "strength", "fatigue", "morale", "men_lost", "guns_lost")
"""Columns of a unit row (:meth:`sim.contract.UnitRow.flat`) kept as per-unit finals (or None)."""

SinkFor = Callable[[int, str], Sink]


NullSink = DiscardSink
"""The sink of a run whose replay is not kept: no line is serialised or hashed."""


def _null(_k: int, _name: str) -> Sink:
    return NullSink()


@dataclass(frozen=True)
class RunSpec:
    """One run: its id, design point, replication and seed, and whether to keep its replay."""

    run_id: int
    point: int
    replication: int
    seed: int
    keep_replay: bool = False


@dataclass(frozen=True)
class Chunk:
    """Runs of one design point, sent to a worker together."""

    target: Target
    point: int
    values: dict[str, Any]
    runs: tuple[RunSpec, ...]


@dataclass(frozen=True)
class RunRecord:
    """What a worker returns for one run."""

    run: RunSpec
    status: str
    error: str | None
    outcome: dict[str, Any] | None
    units: list[tuple[Any, ...]] = field(default_factory=list)
    """Per-unit finals: (battle index, battle id, unit id, *UNIT_COLUMNS)."""
    replays: list[tuple[str, list[str]]] = field(default_factory=list)
    """(battle name, replay lines) of each battle, for runs whose replay is kept."""


@dataclass(frozen=True)
class Prepared:
    """A design point made ready to fight: its validated scenario or campaign."""

    target: Target
    scenario: tuple[AnyRuleset, Any] | None = None
    campaign: CampaignData | None = None


@dataclass(frozen=True)
class Fought:
    """One run fought: its outcome and the final state of each battle."""

    outcome: dict[str, Any]
    battles: list[tuple[str | None, AnyRuleset, Any, Any]]
    """(battle id or None for a lone scenario, ruleset, final state, scenario), in order."""


def prepare(target: Target, values: dict[str, Any]) -> Prepared:
    """Validate the target with a design point's values set.

    Raises:
        ScenarioError, ValidationError: the point's values make it invalid.
    """
    data = target.at(values)
    if target.kind == "scenario":
        return Prepared(target, scenario=validate_data(data, {}, target.source))
    campaign = CampaignData.model_validate(data)
    first = campaign.battles[0]
    validate_battle(first.scenario, first.source)  # later battles depend on the fighting
    return Prepared(target, campaign=campaign)


def fight(prepared: Prepared, seed: int, sink_for: SinkFor = _null) -> Fought:
    """Fight one run of a prepared point with ``seed``; battle k writes to ``sink_for(k, name)``."""
    if prepared.scenario is not None:
        ruleset, scenario = prepared.scenario
        header = make_header(ruleset, scenario, seed, source=prepared.target.source)
        state = ruleset.simulate(scenario, header, sink_for(0, prepared.target.stem))
        outcome = ruleset.outcome(scenario, state).as_json()
        return Fought(outcome, [(None, ruleset, state, scenario)])
    assert prepared.campaign is not None
    result = fight_campaign(prepared.campaign, seed, lambda k, e: sink_for(k, e.id))
    return Fought(result.outcome, [(b.id, b.ruleset, b.state, b.scenario) for b in result.battles])


def unit_finals(fought: Fought) -> list[tuple[Any, ...]]:
    """Each unit's final state in each battle, from the ruleset's unit rows."""
    rows: list[tuple[Any, ...]] = []
    for k, (battle, ruleset, state, scenario) in enumerate(fought.battles):
        for unit in ruleset.units(scenario, state):
            flat = unit.flat()
            rows.append((k, battle, unit.id, *(flat.get(c) for c in UNIT_COLUMNS)))
    return rows


def _failure(exc: BaseException) -> str:
    if isinstance(exc, ScenarioError):
        p = exc.problems[0]
        return f"invalid scenario: {p.field}: {p.message}" if p.field else str(p.message)
    if isinstance(exc, ValidationError):
        err = exc.errors()[0]
        return f"invalid campaign: {'.'.join(str(x) for x in err['loc'])}: {err['msg']}"
    return f"{type(exc).__name__}: {exc}"


def _one(prepared: Prepared, run: RunSpec) -> RunRecord:
    sinks: list[tuple[str, MemorySink]] = []

    def keep(_k: int, name: str) -> Sink:
        sink = MemorySink()
        sinks.append((name, sink))
        return sink

    try:
        fought = fight(prepared, run.seed, keep if run.keep_replay else _null)
    except Exception as exc:  # a failing run is data: record it, go on
        return RunRecord(run, "failed", _failure(exc), None)
    replays = [(name, sink.lines) for name, sink in sinks]
    return RunRecord(run, "done", None, fought.outcome, unit_finals(fought), replays)


def run_chunk(chunk: Chunk) -> list[RunRecord]:
    """Fight every run of a chunk; a point that does not validate fails each of its runs."""
    try:
        prepared = prepare(chunk.target, chunk.values)
    except (ScenarioError, ValidationError) as exc:
        error = _failure(exc)
        return [RunRecord(run, "failed", error, None) for run in chunk.runs]
    return [_one(prepared, run) for run in chunk.runs]
