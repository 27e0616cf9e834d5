"""What a musket battle reads of its scenario alone — terrain, sides, orders, options and
the kept neighbours, arcs and covers — is worked out once for every battle of one scenario
object (``context._ground``), with not a byte of any replay changed."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.replayfile.sinks import MemorySink
from sim.replay.header import make_header
from sim.rulesets.musket.model.hexmap import distance, neighbours
from sim.rulesets.musket.model.scenario import MusketScenario
from sim.rulesets.musket.rules import context, movement
from sim.rulesets.musket.rules.context import Hex
from sim.scenario.load import load_scenario

ROOT = Path(__file__).resolve().parents[2]
SCENARIOS = ("sunken_road", "stone_wall", "napoleonic_brigade")
"""A rout through friends, a wall's linear cover with enfilade, and cavalry."""


class _Counting(dict[int, tuple[MusketScenario, context._Ground]]):
    """``context._GROUNDS``, counting the grounds made (each is kept as it is made)."""

    made = 0

    def __setitem__(self, key: int, value: tuple[MusketScenario, context._Ground]) -> None:
        self.made += 1
        super().__setitem__(key, value)


def _lines(ruleset: Any, scenario: Any, seed: int) -> list[str]:
    sink = MemorySink()
    ruleset.simulate(scenario, make_header(ruleset, scenario, seed), sink)
    return sink.lines


def test_battles_of_one_scenario_share_its_ground_and_write_the_same_bytes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Battles of one scenario object, fought one after another and between battles of
    other scenarios, write exactly the lines of battles each fought with its ground made
    afresh; the ground is made once a scenario object."""
    grounds = _Counting()
    monkeypatch.setattr(context, "_GROUNDS", grounds)
    loaded = {name: load_scenario(ROOT / "scenarios" / f"{name}.yaml") for name in SCENARIOS}
    fights = [(name, seed) for seed in (1, 2, 3) for name in SCENARIOS]
    afresh = {}
    for name, seed in fights:
        grounds.clear()
        afresh[name, seed] = _lines(*loaded[name], seed)
    assert grounds.made == len(fights)
    grounds.clear()
    grounds.made = 0
    for name, seed in fights:
        assert _lines(*loaded[name], seed) == afresh[name, seed], (name, seed)
    assert grounds.made == len(SCENARIOS)


def test_the_ground_is_the_scenarios_and_kept_for_a_bounded_number_of_scenarios() -> None:
    """A scenario object's ground is its own (an equal copy gets another), and no more
    than ``_GROUNDS_KEPT`` scenarios' grounds are kept at once."""
    _ruleset, loaded = load_scenario(ROOT / "scenarios" / "stone_wall.yaml")
    assert isinstance(loaded, MusketScenario)
    scenario = loaded
    context._GROUNDS.clear()
    ground = context._ground(scenario)
    assert context._ground(scenario) is ground
    copy = scenario.model_copy(deep=True)
    assert context._ground(copy) is not ground
    assert context._ground(copy).terrain == ground.terrain
    for _ in range(3 * context._GROUNDS_KEPT):
        context._ground(scenario.model_copy(deep=True))
        assert len(context._GROUNDS) <= context._GROUNDS_KEPT


_HEX = st.tuples(st.integers(-3, 30), st.integers(-3, 30))


@settings(max_examples=400)
@given(
    here=_HEX,
    goal=_HEX,
    mp=st.integers(0, 4),
    costs=st.dictionaries(_HEX, st.integers(1, 3)),
    taken=st.sets(_HEX),
    width=st.integers(1, 30),
    height=st.integers(1, 30),
)
def test_a_step_toward_a_goal_is_the_step_nearer_by_distance(
    here: Hex, goal: Hex, mp: int, costs: dict[Hex, int], taken: set[Hex], width: int, height: int
) -> None:
    """``_step_toward`` (the distance written out) picks what ``_step`` with
    ``distance(h, goal)`` picks: the same hex or none, for any map, costs and occupants."""

    def steps(h: Hex) -> tuple[tuple[Hex, int], ...]:
        on = [n for n in neighbours(h) if 0 <= n[0] < width and 0 <= n[1] < height]
        return tuple((n, costs.get(n, 1)) for n in on)

    b = SimpleNamespace(steps=steps, state=SimpleNamespace(occupant=dict.fromkeys(taken, "u")))
    want = movement._step(b, here, mp, lambda h: distance(h, goal))  # type: ignore[arg-type]
    assert movement._step_toward(b, here, mp, goal) == want  # type: ignore[arg-type]


def test_a_grounds_pairs_are_emptied_when_full_with_no_byte_changed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The arcs and covers a ground keeps by pairs of hexes are bounded: a full set is
    emptied and filled again, and the battles write the same lines as with room to spare."""
    ruleset, scenario = load_scenario(ROOT / "scenarios" / "sunken_road.yaml")
    context._GROUNDS.clear()
    roomy = [_lines(ruleset, scenario, seed) for seed in (1, 2)]
    assert len(context._GROUNDS[id(scenario)][1].covers) > 3
    context._GROUNDS.clear()
    monkeypatch.setattr(context, "_PAIRS_KEPT", 3)
    sizes: list[int] = []
    cover_against = context.Battle.cover_against

    def watched(b: context.Battle, *args: Any) -> Any:
        found = cover_against(b, *args)
        sizes.append(len(b._covers))
        return found

    monkeypatch.setattr(context.Battle, "cover_against", watched)
    assert [_lines(ruleset, scenario, seed) for seed in (1, 2)] == roomy
    assert sizes and max(sizes) == 3
