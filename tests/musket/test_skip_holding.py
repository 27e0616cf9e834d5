"""A musket unit under a hold order that is not routed does not wait for the movement phase
(``battle.SKIP_HOLDING``): a resume saved, not a byte of any replay changed."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from engine.kernel import TurnKernel
from sim import api
from sim.rulesets.musket import battle
from sim.rulesets.musket.model.scenario import MusketScenario
from sim.scenario.load import load_scenario

ROOT = Path(__file__).resolve().parents[2]


def _counting(m: pytest.MonkeyPatch, skip: bool) -> tuple[Counter[str], Counter[str]]:
    """The skip on or off; counts of each phase's waits and of its steps (a unit's rule
    asked to decide, after the wait resumed it) from now on."""
    waits: Counter[str] = Counter()
    steps: Counter[str] = Counter()
    phase = TurnKernel.phase

    def counted(self: TurnKernel, which: str, order: Any, process: Any = None) -> Any:
        waits[which] += 1
        return phase(self, which, order, process)

    def stepping(which: str, act: Any) -> Any:
        def step(*args: Any) -> None:
            steps[which] += 1
            act(*args)

        return step

    m.setattr(battle, "SKIP_HOLDING", skip)
    m.setattr(TurnKernel, "phase", counted)
    for which, act in list(battle.ACTIONS.items()):
        m.setitem(battle.ACTIONS, which, stepping(which, act))
    return waits, steps


def _fight(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, name: str, seed: int, skip: bool
) -> tuple[bytes, Counter[str], Counter[str]]:
    """The replay's bytes, how many waits each phase had and how many steps."""
    with monkeypatch.context() as m:
        waits, steps = _counting(m, skip)
        out = tmp_path / f"{name}-{seed}-{skip}.jsonl"
        api.run(ROOT / "scenarios" / f"{name}.yaml", seed=seed, out=out)
    return out.read_bytes(), waits, steps


@pytest.mark.parametrize(
    ("name", "seeds"),
    [("sunken_road", (1, 2, 7)), ("maida", (1, 2, 11)), ("bussaco", (1, 2, 7))],
)
def test_skipping_movement_for_holding_units_changes_no_byte(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, name: str, seeds: tuple[int, ...]
) -> None:
    """Battles with holding units that rout and flee, and units that move: the same replay
    with and without the skip, fewer waits, fewer movement steps and the same steps of every
    other phase.  (A wait is counted when it is registered: at the battle's end a holding
    unit's last wait is for defensive fire instead of movement, and is never resumed.
    Maida's seeds include one in which a British holder routs and flees: under musket rules
    v5 the columns seldom close, and at seeds 1 to 10 none does.)"""
    _, scenario = load_scenario(ROOT / "scenarios" / f"{name}.yaml")
    assert isinstance(scenario, MusketScenario)
    holding = [u.id for side in scenario.sides for u in side.units if u.order.kind == "hold"]
    fled = 0
    for seed in seeds:
        skipped, fewer, stepped = _fight(monkeypatch, tmp_path, name, seed, skip=True)
        waited, every, each = _fight(monkeypatch, tmp_path, name, seed, skip=False)
        assert skipped == waited
        assert fewer["movement"] < every["movement"]
        assert sum(fewer.values()) < sum(every.values())
        assert stepped["movement"] < each["movement"]
        assert {p: n for p, n in stepped.items() if p != "movement"} == {
            p: n for p, n in each.items() if p != "movement"
        }
        moves = [json.loads(line) for line in skipped.splitlines() if b'"musket.moved"' in line]
        fled += sum(move["unit"] in holding for move in moves)
    assert fled > 0  # a routed holder waited, and moved


def test_a_forked_battle_waits_for_every_movement(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """An override may rout a unit at any event, so in a forked battle every unit waits for
    movement as before: the same waits and bytes either way."""
    from sim.replay.fork import fork

    parent = ROOT / "replays" / "chancellorsville-s1863.jsonl"
    results = []
    for skip in (True, False):
        with monkeypatch.context() as m:
            waits, steps = _counting(m, skip)
            out = fork(
                api.load_replay(parent),
                5,
                [("state.units.116pa.morale", "routed")],
                tmp_path / f"f{skip}.jsonl",
            )
        results.append((out.read_bytes(), waits, steps))
    (forked, with_skip, stepped), (plain, without, each) = results
    assert forked == plain and with_skip == without and stepped == each
    assert with_skip["movement"] > 0
