"""How a case's runs are read: a lone battle's turn rows from the state being fought, and
only while a measure still reads them, give exactly what folding every turn again gives."""

from __future__ import annotations

import pickle
from dataclasses import replace
from typing import Any

import pytest

import engine.log
from engine.log import Sink
from sim.batch.execution.worker import fight, prepare
from sim.batch.inputs.seeds import run_seed
from sim.history import SUITE, load_suite
from sim.history.bands import band_measure
from sim.history.measures import BattleRecord, RunRecord, settled, value_of
from sim.history.run import _needs, _prepared, _record, _Task, _Watch, run_chunk
from tests.history.test_measures import RUN, TURNS, spec

RUNS = 4
"""Runs read both ways per case (each a whole battle of a shipped case)."""


def _task(case_id: str) -> _Task:
    (case,) = [c for c in load_suite(SUITE) if c.id == case_id]
    band = band_measure(case)
    measures = [*case.spec.measures, *([band] if band is not None else [])]
    return _Task(case.target, dict(case.spec.set), case.spec.seed, measures)


def _folded(task: _Task, r: int) -> RunRecord:
    """Run r read the old way: every line folded again from the header, rows every turn."""
    prepared = prepare(task.target, task.values)
    rows, events = _needs(task.measures)
    watches: list[_Watch] = []

    def sink_for(_k: int, _name: str) -> Sink:
        watches.append(_Watch(rows, events))
        return watches[-1]

    fought = fight(prepared, run_seed(task.seed, 0, r), sink_for)
    out = []
    for watch, (bid, ruleset, state, scenario) in zip(watches, fought.battles, strict=True):
        outcome = ruleset.outcome(scenario, state)
        losses = {s: {k: float(v) for k, v in ls.items()} for s, ls in outcome.losses().items()}
        final = ruleset.units(scenario, state)
        record = BattleRecord(bid, outcome.winner, final, watch.turns, watch.events, losses)
        out.append(replace(record, turns_played=outcome.turns))
    return RunRecord(out, fought.outcome.get("winner"))


@pytest.mark.parametrize("case_id", ["cold_harbor", "bussaco_light_division"])
def test_live_rows_read_what_folding_every_turn_reads(case_id: str) -> None:
    """cold_harbor (``reaches`` and ``after_contact``) and bussaco (``reaches``): each run's
    values are the fold's, its rows are the fold's first turns, and its events the fold's."""
    task = _task(case_id)
    blob = pickle.dumps(task, protocol=pickle.HIGHEST_PROTOCOL)
    _task_again, prepared, live = _prepared(blob)
    assert live is not None, "a lone scenario whose measures read turns is read live"
    shorter = 0
    for r in range(RUNS):
        old = _folded(task, r)
        new = _record(task, prepared, live, run_seed(task.seed, 0, r))
        (before,), (now,) = old.battles, new.battles
        assert now.turns == before.turns[: len(now.turns)], r
        assert now.events == before.events, r
        assert now.final == before.final, r
        assert [value_of(new, m) for m in task.measures] == [
            value_of(old, m) for m in task.measures
        ]
        shorter += len(now.turns) < len(before.turns)
    assert run_chunk(blob, 0, RUNS) == [
        [value_of(_folded(task, r), m) for m in task.measures] for r in range(RUNS)
    ]
    assert shorter > 0, "some run is settled before its last turn (the later ones unread)"


@pytest.mark.parametrize("case_id", ["albuera_fusiliers", "midway_hiryu_strikes", "cold_harbor"])
def test_a_lone_battle_is_read_from_its_events_without_a_line(
    case_id: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A lone battle's events (``musket.fired``, ``flattop.attacked``, ``musket.meleed``) are
    handed to the watch without any line built or hashed, and each is kept as its line's
    JSON object without ``h``, the one the fold from the lines keeps."""
    task = _task(case_id)
    blob = pickle.dumps(task, protocol=pickle.HIGHEST_PROTOCOL)
    _again, prepared, live = _prepared(blob)
    old = [_folded(task, r) for r in range(RUNS)]
    assert any(b.events for run in old for b in run.battles), "the fold keeps some event"

    def no_line(*_args: Any) -> Any:
        raise AssertionError("a line was sealed for a battle nobody reads the lines of")

    monkeypatch.setattr(engine.log, "seal_bytes", no_line)
    for r in range(RUNS):
        new = _record(task, prepared, live, run_seed(task.seed, 0, r))
        (before,), (now,) = old[r].battles, new.battles
        assert [list(e) for e in now.events] == [list(e) for e in before.events], r  # key order
        assert now.events == before.events, r
        assert [value_of(new, m) for m in task.measures] == [
            value_of(old[r], m) for m in task.measures
        ]


def _upto(n: int) -> RunRecord:
    (battle,) = RUN.battles
    return RunRecord([replace(battle, turns=TURNS[:n])], RUN.winner)


@pytest.mark.parametrize(
    ("fields", "first"),
    [
        ({"kind": "reaches", "side": "usa", "hexes": [[5, 3]]}, 4),  # reached at turn 4
        ({"kind": "reaches", "side": "usa", "hexes": [[5, 5], [9, 9]]}, 2),
        ({"kind": "reaches", "side": "usa", "hexes": [[6, 3]]}, None),  # never reached
        ({"kind": "loss", "side": "usa", "unit": "men", "after_contact": 1}, 3),  # 1st loss: 2
        ({"kind": "loss", "side": "usa", "unit": "men", "after_contact": 0}, 2),
        ({"kind": "loss", "side": "usa", "unit": "men", "after_contact": 9}, None),
        ({"kind": "unit_loss_max", "side": "usa", "unit": "men", "after_contact": 1}, 3),
        ({"kind": "loss", "side": "usa", "unit": "men"}, 0),  # reads the final rows only
        ({"kind": "win", "side": "csa"}, 0),
    ],
)
def test_settled_after_the_last_turn_a_measure_reads(fields: dict[str, Any], first: int) -> None:
    """``settled`` turns true at the first turn count after which no later turn is read,
    and the value read from that many turns is the value read from all four."""
    m = spec(**fields)
    flags = [settled(m, TURNS[:n]) for n in range(len(TURNS) + 1)]
    want = [first is not None and n >= first for n in range(len(TURNS) + 1)]
    assert flags == want
    for n in range(len(TURNS) + 1):
        if flags[n]:
            assert value_of(_upto(n), m) == value_of(RUN, m), n


def test_a_battle_fought_without_counting_draws_is_the_same_battle() -> None:
    """``fight(..., draws=False)`` (what history fights with) leaves the draws uncounted and
    changes nothing else: the same outcome and final rows as a counted run's."""
    task = _task("sunken_road")
    prepared = prepare(task.target, task.values)
    for r in range(2):
        seed = run_seed(task.seed, 0, r)
        counted, uncounted = fight(prepared, seed), fight(prepared, seed, draws=False)
        assert uncounted.draws == [] and sum(counted.draws[0].values()) > 0
        assert uncounted.outcome == counted.outcome
        (_, ruleset, state, scenario), (_, _, state2, _) = counted.battles[0], uncounted.battles[0]
        assert ruleset.units(scenario, state2) == ruleset.units(scenario, state)


@pytest.mark.parametrize("case_id", ["sunken_road", "albuera_fusiliers"])
def test_a_measure_of_the_engines_own_events_counts_them(case_id: str) -> None:
    """A case file may count ``engine.turn_ended`` (a free event type): a lone battle is then
    read from its lines, which hold every turn's end with its digest, so the count is the
    turns the battle played, with rows read (sunken_road) or not (albuera_fusiliers)."""
    task = _task(case_id)
    turns = spec(id="turns_ended", kind="events", event="engine.turn_ended", accept={"min": 0})
    task = replace(task, measures=[*task.measures, turns])
    blob = pickle.dumps(task, protocol=pickle.HIGHEST_PROTOCOL)
    _again, prepared, live = _prepared(blob)
    for r in range(2):
        run = _record(task, prepared, live, run_seed(task.seed, 0, r))
        (battle,) = run.battles
        assert value_of(run, turns) == battle.turns_played > 0
        assert all(e["state_digest"] for e in battle.events if e["type"] == "engine.turn_ended")
