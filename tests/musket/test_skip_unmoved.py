"""A musket unit that has not moved by order this turn does not wait for offensive fire
(``battle.SKIP_UNMOVED``): a resume saved, not a byte of any replay changed."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from engine.kernel import TurnKernel
from sim import api
from sim.rulesets.musket import battle

ROOT = Path(__file__).resolve().parents[2]


def _counting(m: pytest.MonkeyPatch, skip: bool) -> Counter[str]:
    """The skip on or off, and a count of each phase's waits from now on."""
    waits: Counter[str] = Counter()
    phase = TurnKernel.phase

    def counted(self: TurnKernel, which: str, order: Any, process: Any = None) -> Any:
        waits[which] += 1
        return phase(self, which, order, process)

    m.setattr(battle, "SKIP_UNMOVED", skip)
    m.setattr(TurnKernel, "phase", counted)
    return waits


def _fight(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, name: str, seed: int, skip: bool
) -> tuple[bytes, Counter[str]]:
    """The replay's bytes and how many waits each phase had."""
    with monkeypatch.context() as m:
        waits = _counting(m, skip)
        out = tmp_path / f"{name}-{seed}-{skip}.jsonl"
        api.run(ROOT / "scenarios" / f"{name}.yaml", seed=seed, out=out)
    return out.read_bytes(), waits


@pytest.mark.parametrize("name", ["chancellorsville", "napoleonic_brigade"])
def test_skipping_offensive_fire_for_units_that_did_not_move_changes_no_byte(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, name: str
) -> None:
    """Battles with offensive fire in them (some unit moved and fired): the same replay with
    and without the skip, with fewer offensive-fire waits and the same waits of every other
    phase."""
    offensive = 0
    for seed in (1, 2, 7):
        skipped, fewer = _fight(monkeypatch, tmp_path, name, seed, skip=True)
        waited, every = _fight(monkeypatch, tmp_path, name, seed, skip=False)
        assert skipped == waited
        assert fewer["offensive_fire"] < every["offensive_fire"]
        assert {p: n for p, n in fewer.items() if p != "offensive_fire"} == {
            p: n for p, n in every.items() if p != "offensive_fire"
        }
        offensive += skipped.count(b'"phase":"offensive_fire"')
    assert offensive > 0


def test_a_forked_battle_waits_for_every_phase(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """An override may set moved_turn (and fired_turn) at any event, so in a forked battle
    every unit waits for offensive fire as before: the same waits and bytes either way."""
    from sim.replay.fork import fork

    parent = ROOT / "replays" / "chancellorsville-s1863.jsonl"
    results = []
    for skip in (True, False):
        with monkeypatch.context() as m:
            waits = _counting(m, skip)
            out = fork(
                api.load_replay(parent),
                5,
                [("state.units.116pa.fatigue", 1)],
                tmp_path / f"f{skip}.jsonl",
            )
        results.append((out.read_bytes(), waits))
    (forked, with_skip), (plain, without) = results
    assert forked == plain and with_skip == without and with_skip["offensive_fire"] > 0
