"""`validate` warns of a unit that can never reach an enemy, through the `reach` hook."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from sim.cli import cli
from sim.contract import Reach
from sim.rulesets.musket import RULESET as MUSKET
from sim.rulesets.musket.data import WEAPONS
from sim.rulesets.musket.hexmap import distance
from sim.scenario import reach as reach_module
from sim.scenario.catalog import template_text
from sim.scenario.load import load_scenario

OLD_TEMPLATE_BATTERY = "at: [4, 9]"
"""Where the musket template put its battery before: 7 hexes from the one enemy, reach 3."""


def musket_reach(scenario: Any) -> list[Reach]:
    """A stand-in for musket's own hook (not yet in sim/rulesets/musket): a unit moves unless
    it holds; it reaches an enemy within as many hexes as its weapon has range values."""
    everyone = [(s, i, u) for s in scenario.sides for i, u in enumerate(s.units)]
    out = []
    for k, side in enumerate(scenario.sides):
        for i, u in enumerate(side.units):
            hexes = len(WEAPONS[u.weapon]["values"])  # type: ignore[arg-type]
            near = tuple(
                e.id
                for s, _, e in everyone
                if s.id != side.id and distance(tuple(u.at), tuple(e.at)) <= hexes
            )
            out.append(
                Reach(
                    unit=u.id,
                    side=side.id,
                    path=("sides", k, "units", i),
                    moves=u.order.kind != "hold",
                    in_reach=near,
                    why=f"{u.weapon} reaches {hexes} hexes",
                )
            )
    return out


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
    assert reach_module.never_in_reach(dataclasses.replace(MUSKET), scenario) == []


def _template(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "mine.yaml"
    path.write_text(text.replace("{name}", "Mine"), encoding="utf-8")
    return path


def test_validate_warns_of_the_old_templates_battery(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With musket's reach said, the template as it was (battery 7 hexes out, holding, the one
    enemy holding) is valid with one warning on stderr at the battery's line; exit 0."""
    text = template_text("musket")
    battery = next(line for line in text.splitlines() if "at: [4, 5]" in line)
    old = _template(tmp_path, text.replace(battery, f"        {OLD_TEMPLATE_BATTERY}"))
    monkeypatch.setattr(reach_module, "never_in_reach", _with_musket_reach)
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


_never_in_reach = reach_module.never_in_reach


def _with_musket_reach(ruleset: Any, scenario: Any) -> Any:
    return _never_in_reach(dataclasses.replace(ruleset, reach=musket_reach), scenario)
