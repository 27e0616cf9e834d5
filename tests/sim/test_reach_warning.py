"""`validate` warns of a unit that can never reach an enemy, through the `reach` hook."""

from __future__ import annotations

import dataclasses
import json
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from sim.cli import cli
from sim.contract import Reach
from sim.contract.defaults import no_reach
from sim.rulesets.musket import RULESET as MUSKET
from sim.rulesets.musket.model.data import WEAPONS
from sim.rulesets.musket.model.hexmap import distance
from sim.rulesets.musket.model.scenario import MusketScenario
from sim.rulesets.musket.reading import reach as musket_reach
from sim.scenario import reach as reach_module
from sim.scenario.catalog import template_text
from sim.scenario.load import load_scenario

OLD_TEMPLATE_BATTERY = "at: [4, 9]"
"""Where the musket template put its battery before: 7 hexes from the one enemy, reach 3."""


def test_musket_reach_is_its_orders_and_its_weapons_range() -> None:
    """musket's own hook: a unit moves under advance, engage or charge; it reaches the
    enemies within its weapon's range (the farthest hex of a non-zero fire value)."""
    _, loaded = load_scenario(Path("scenarios/stone_wall.yaml").resolve())
    assert isinstance(loaded, MusketScenario)
    scenario = loaded
    reaches = MUSKET.reach(scenario)
    units = [(k, i, u) for k, s in enumerate(scenario.sides) for i, u in enumerate(s.units)]
    assert [r.unit for r in reaches] == [u.id for _, _, u in units]
    for r, (k, i, u) in zip(reaches, units, strict=True):
        values: tuple[int, ...] = WEAPONS[u.weapon]["values"]  # type: ignore[assignment]
        hexes = max(n + 1 for n, v in enumerate(values) if v > 0)
        enemies = [e for s in scenario.sides if s.id != r.side for e in s.units]
        near = tuple(e.id for e in enemies if distance(u.at, e.at) <= hexes)
        assert r.path == ("sides", k, "units", i)
        assert r.moves is (u.order.kind in ("advance", "engage", "charge", "retire"))
        assert (r.in_reach, r.why) == (near, f"{u.weapon} reaches {hexes} hexes")
    assert {r.moves for r in reaches} == {True, False}


def lines_scenario(per_side: int, turns: int) -> MusketScenario:
    """The benchmarks' two facing lines (benchmarks/lines.py)."""
    folder = str(Path(__file__).resolve().parents[2] / "benchmarks")
    sys.path.insert(0, folder)
    try:
        from lines import lines_scenario as made  # type: ignore[import-not-found]  # benchmarks/
    finally:
        sys.path.remove(folder)
    scenario: MusketScenario = made(per_side, turns)
    return scenario


def _brute_force(scenario: MusketScenario) -> list[tuple[str, ...]]:
    """Each unit's enemies within its weapon's range, measured to every enemy in turn."""
    out = []
    for side in scenario.sides:
        for u in side.units:
            values: tuple[int, ...] = WEAPONS[u.weapon]["values"]  # type: ignore[assignment]
            hexes = max((n + 1 for n, v in enumerate(values) if v > 0), default=0)
            enemies = [e for s in scenario.sides if s.id != side.id for e in s.units]
            out.append(tuple(e.id for e in enemies if distance(u.at, e.at) <= hexes))
    return out


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(st.integers(0, 11), st.integers(0, 11), st.sampled_from(sorted(WEAPONS))),
        min_size=2,
        max_size=120,
    ),
    st.integers(1, 119),
)
def test_musket_reach_by_hexes_lists_what_measuring_to_every_enemy_does(
    placed: list[tuple[int, int, str]], split: int
) -> None:
    """Whether a unit's enemies are found from the hexes in its range (fewer hexes than
    enemies) or by measuring to each enemy, they are the same, in scenario order; units
    crowded on a small map, several to a hex, every weapon."""
    split = max(1, min(split, len(placed) - 1))
    base = lines_scenario(2, 3)
    sides = []
    for k, chunk in enumerate((placed[:split], placed[split:])):
        template = base.sides[k].units[0]
        units = [
            template.model_copy(update={"id": f"u{k}_{i}", "at": (c, r), "weapon": w})
            for i, (c, r, w) in enumerate(chunk)
        ]
        sides.append(base.sides[k].model_copy(update={"units": units}))
    scenario = base.model_copy(update={"sides": sides})
    assert [r.in_reach for r in MUSKET.reach(scenario)] == _brute_force(scenario)


def test_musket_reach_of_a_large_battle_measures_no_pair_of_units(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """At 400 regiments a side (rifles reach fewer hexes than there are enemies) each unit's
    enemies come from the hexes in its range: ``distance`` is never called, which at 3,200 a
    side would be 10 million calls (``validate`` took 21 s there; issue 32)."""
    scenario = lines_scenario(400, 3)
    expected = _brute_force(scenario)
    calls = [0]

    def counted(a: tuple[int, int], b: tuple[int, int]) -> int:
        calls[0] += 1
        return distance(a, b)

    monkeypatch.setattr(musket_reach, "distance", counted)
    assert [r.in_reach for r in MUSKET.reach(scenario)] == expected
    assert calls[0] == 0
    assert sum(map(len, expected)) > 400  # the lines are in each other's reach


def _reach(unit: str, side: str, moves: bool, in_reach: tuple[str, ...] = ()) -> Reach:
    return Reach(unit=unit, side=side, path=("u", unit), moves=moves, in_reach=in_reach)


class _Stub:
    def __init__(self, reaches: list[Reach]) -> None:
        self.reaches = reaches

    def reach(self, scenario: Any) -> list[Reach]:
        del scenario
        return self.reaches


@pytest.mark.parametrize(
    ("reaches", "warned"),
    [
        ([_reach("a", "x", False), _reach("b", "y", False)], ["a", "b"]),
        # b may come to a; c waits for a, which waits
        ([_reach("a", "x", False), _reach("b", "y", True), _reach("c", "y", False)], ["c"]),
        ([_reach("a", "x", True), _reach("b", "y", False)], []),  # a comes into b's reach
        ([_reach("a", "x", False, ("b",)), _reach("b", "y", False, ("a",))], []),
        ([_reach("a", "x", False)], []),  # no enemy at all: nothing to reach, nothing said
    ],
)
def test_a_unit_is_idle_when_neither_it_nor_an_enemy_moves_and_none_is_in_reach(
    reaches: list[Reach], warned: list[str]
) -> None:
    """A holding unit with no enemy in reach is warned of only when no enemy moves."""
    found = reach_module.never_in_reach(_Stub(reaches), None)  # type: ignore[arg-type]
    assert [path[1] for path, _ in found] == warned
    assert all(m.startswith("warning: unit ") for _, m in found)


def test_no_reach_hook_no_warning() -> None:
    """A ruleset that leaves `reach` out (the default) gets no warning."""
    _, scenario = load_scenario(Path("scenarios/stone_wall.yaml").resolve())
    silent = dataclasses.replace(MUSKET, reach=no_reach)
    assert reach_module.never_in_reach(silent, scenario) == []


def _template(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "mine.yaml"
    path.write_text(text.replace("{name}", "Mine"), encoding="utf-8")
    return path


def test_validate_warns_of_the_old_templates_battery(tmp_path: Path) -> None:
    """With musket's reach hook, the template as it was (battery 7 hexes out, holding, the one
    enemy holding) is valid with one warning on stderr at the battery's line; exit 0."""
    text = template_text("musket")
    battery = next(line for line in text.splitlines() if "at: [4, 5]" in line)
    old = _template(tmp_path, text.replace(battery, f"        {OLD_TEMPLATE_BATTERY}"))
    result = CliRunner().invoke(cli, ["validate", str(old)])
    assert result.exit_code == 0
    line = 1 + next(
        i for i, t in enumerate(old.read_text(encoding="utf-8").splitlines()) if "id: bart" in t
    )
    assert result.stderr.splitlines() == [
        f"{old}:{line}: sides.0.units.2: warning: unit 'bart' can never reach an enemy: it does "
        "not move, no enemy is in its reach (napoleon_12pdr reaches 3 hexes) and none moves"
    ]
    data = json.loads(CliRunner().invoke(cli, ["validate", str(old), "--json"]).stdout)
    assert (data["ok"], [w["field"] for w in data["warnings"]]) == (True, ["sides.0.units.2"])
    fixed = CliRunner().invoke(cli, ["validate", str(_template(tmp_path, text))])
    assert (fixed.exit_code, fixed.stderr) == (0, "")


def test_a_unit_retiring_toward_the_enemy_moves(tmp_path: Path) -> None:
    """A retire order goes to its `to` hex, here toward the one enemy: validate warns of
    neither unit (it warned of both, which then exchanged six volleys in the run)."""
    path = tmp_path / "retire.yaml"
    path.write_text(
        "ruleset: musket\nname: Retire toward the enemy\nturns: {limit: 6}\n"
        "map: {width: 20, height: 20}\nsides:\n"
        "  - id: blue\n    name: Blue\n    retreat: south\n    units:\n"
        "      - {id: b1, name: 1st Blue, kind: infantry, strength: 450, quality: C,"
        " weapon: rifle_musket, at: [4, 18], order: {kind: retire, to: [4, 3]}}\n"
        "  - id: red\n    name: Red\n    retreat: north\n    units:\n"
        "      - {id: r1, name: 1st Red, kind: infantry, strength: 400, quality: C,"
        " weapon: rifle_musket, at: [4, 1]}\n"
    )
    result = CliRunner().invoke(cli, ["validate", str(path)])
    assert (result.exit_code, result.stderr) == (0, "")
