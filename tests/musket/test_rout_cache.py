"""A routed unit's way out is kept while no unit is placed (``Battle.routs``,
``battle.KEEP_ROUTS``): searched once, not every turn, with not a byte of any replay
changed; never kept in a forked battle."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from sim import api
from sim.rulesets.musket import battle
from sim.rulesets.musket.rules import movement

ROOT = Path(__file__).resolve().parents[2]


def _lines(path: Path, per_side: int, turns: int) -> Path:
    """The peer benchmark's reference battle (benchmarks/lines.py): two lines holding and
    firing, whose routed units are boxed in by their own ranks."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        from lines import lines_scenario  # type: ignore[import-not-found]  # benchmarks/
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))
    data = lines_scenario(per_side, turns).model_dump(mode="json", exclude_unset=True)
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def _fight(
    monkeypatch: pytest.MonkeyPatch, scenario: Path, out: Path, seed: int, keep: bool
) -> tuple[bytes, dict[str, int]]:
    """The replay's bytes, and how many ways out were asked for and searched."""
    calls = {"asked": 0, "searched": 0}
    through, search = movement._rout_through, movement._rout_search

    def asked(b: Any, unit: Any) -> Any:
        calls["asked"] += 1
        return through(b, unit)

    def searched(b: Any, unit: Any, mp: int) -> Any:
        calls["searched"] += 1
        return search(b, unit, mp)

    with monkeypatch.context() as m:
        m.setattr(battle, "KEEP_ROUTS", keep)
        m.setattr(movement, "_rout_through", asked)
        m.setattr(movement, "_rout_search", searched)
        api.run(scenario, seed=seed, out=out)
    return out.read_bytes(), calls


def test_a_kept_way_out_changes_no_byte(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Routed units that cannot get out search once while nothing is placed: the same
    replay as searching every time, with fewer searches."""
    scenario = _lines(tmp_path / "lines.json", 40, 20)
    saved = 0
    for seed in (1, 2, 7):
        kept, fewer = _fight(monkeypatch, scenario, tmp_path / f"k{seed}.jsonl", seed, True)
        plain, every = _fight(monkeypatch, scenario, tmp_path / f"p{seed}.jsonl", seed, False)
        assert kept == plain
        assert fewer["asked"] == every["asked"] == every["searched"] >= fewer["searched"] > 0
        saved += every["searched"] - fewer["searched"]
    assert saved > 0


def test_scenarios_whose_routed_units_move_search_every_time(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """A rout that moves places a unit, so the next search is made afresh: the same bytes."""
    scenario = ROOT / "scenarios" / "sunken_road.yaml"
    kept, fewer = _fight(monkeypatch, scenario, tmp_path / "k.jsonl", 7, True)
    plain, every = _fight(monkeypatch, scenario, tmp_path / "p.jsonl", 7, False)
    assert kept == plain and fewer == every and every["searched"] > 0


def test_a_forked_battle_keeps_no_way_out(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """An override may change what a search reads without placing a unit: a forked battle
    searches every time."""
    from sim.replay.fork import fork

    scenario = _lines(tmp_path / "lines.json", 40, 20)
    parent, _ = _fight(monkeypatch, scenario, tmp_path / "parent.jsonl", 1, True)
    searches = []
    for keep in (True, False):
        calls = {"n": 0}
        search = movement._rout_search

        def searched(
            b: Any, unit: Any, mp: int, calls: dict[str, int] = calls, search: Any = search
        ) -> Any:
            calls["n"] += 1
            return search(b, unit, mp)

        with monkeypatch.context() as m:
            m.setattr(battle, "KEEP_ROUTS", keep)
            m.setattr(movement, "_rout_search", searched)
            out = fork(
                api.load_replay(tmp_path / "parent.jsonl"),
                3,
                [("state.units.n0.fatigue", 1)],
                tmp_path / f"fork-{keep}.jsonl",
            )
        searches.append((out.read_bytes(), calls["n"]))
    assert searches[0] == searches[1] and searches[0][1] > 0
    assert parent


def test_a_placement_makes_the_way_out_searched_again() -> None:
    """A routed unit boxed in by enemies has no way out; once one of them leaves the field
    (a placement), the kept answer is not used: the unit finds the gap, as a fresh search
    does."""
    from sim.rulesets.musket.model.events import LeftField
    from sim.rulesets.musket.model.hexmap import neighbours
    from tests.sim.test_rules import _inf, _scenario, battle_of

    ring = [list(h) for h in neighbours((5, 5))]
    b = battle_of(_scenario([_inf("a1", [5, 5])], [_inf(f"b{i}", h) for i, h in enumerate(ring)]))
    b.keep_routs = True
    unit = b.state.units["a1"]
    unit.morale = "routed"
    assert movement._rout_through(b, unit) == ([], False)
    assert movement._rout_through(b, unit) == ([], False)  # kept
    gap = next(u for u in b.state.units.values() if u.side == "b" and u.hex == (5, 6))
    b.state.apply(LeftField(turn=1, time=0.0, unit=gap.id, at=(5, 6)))
    found = movement._rout_through(b, unit)
    assert found == movement._rout_search(b, unit, movement.allowance(b, unit))
    assert found[0][:1] == [(5, 6)]
