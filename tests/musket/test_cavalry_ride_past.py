"""Option ``cavalry_ride_past`` (ours): cavalry moving on its order is not held by the zone
of control of every enemy (docs/rules/musket.md, *Movement and zone of control*).

``"broken"``: an enemy that is routed or disrupted does not hold a cavalry unit. ``"all"``:
as ``"broken"``, and a cavalry unit on a ``charge`` order is held by no enemy but its
charge target (the default since musket rules version 7). Null: every enemy holds every
unit.

The ground of most tests: side a's cavalry ``c`` (retreating south) at (4,8), sent at
side b's ``t`` at (4,2); side b's ``x`` at (5,5), next to (4,6) and (4,5) but not to
(4,7) or (4,8). Walking north, ``c`` enters (4,7) and then (4,6), next to ``x``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from sim.rulesets.musket.model.hexmap import distance, neighbours
from sim.rulesets.musket.model.options import MusketOptions
from sim.rulesets.musket.rules.context import Battle
from sim.rulesets.musket.rules.movement import decide_move
from sim.scenario.load import ScenarioError, validate_data
from tests.batch.helpers import invoke
from tests.sim.test_rules import _fight, _inf, _scenario, battle_of

ROOT = Path(__file__).resolve().parents[2]

RIDES = (None, "broken", "all")


def _cav(uid: str, at: list[int], **kw: Any) -> dict[str, Any]:
    return {
        "id": uid,
        "name": uid.upper(),
        "kind": "cavalry",
        "strength": 300,
        "quality": "B",
        "weapon": "carbine",
        "at": at,
        **kw,
    }


def _data(ride: str | None, *, kind: str = "cavalry", order: str = "charge",
          c_at: list[int] | None = None, target: str = "t") -> dict[str, Any]:  # fmt: skip
    """``c`` (of ``kind``, on ``order`` at ``target``), ``t`` and ``x``."""
    make = _cav if kind == "cavalry" else _inf
    c = make("c", c_at or [4, 8], order={"kind": order, "target": target})
    units_b = [_inf("t", [4, 2], order={"kind": "hold"}),
               _inf("x", [5, 5], order={"kind": "hold"})]  # fmt: skip
    data = _scenario([c], units_b)
    data["options"] = {"cavalry_ride_past": ride}  # null written: the default is all (v7)
    return data


def _path(data: dict[str, Any], morale: str = "good") -> list[tuple[int, int]]:
    """Where ``c`` moves in the first turn's movement (its ``musket.moved``'s path), ``x``
    in the state of ``morale``."""
    b = battle_of(data)
    b.state.units["x"].morale = morale  # type: ignore[assignment]
    moves = decide_move(b, b.state.units["c"])
    return [(h[0], h[1]) for m in moves for h in getattr(m, "path", [])]


STOPPED = [(4, 7), (4, 6)]
"""The walk under the zone of control: it stops on entering (4,6), next to ``x``."""
RODE = [(4, 7), (4, 6), (4, 5), (4, 4), (4, 3)]
"""The walk ridden past ``x``: to (4,3), next to ``t``, where a charge stops."""


def test_the_ground_is_as_the_docstring_says() -> None:
    """(5,5) is next to (4,6) and (4,5), not to (4,7) or (4,8); (4,3) is next to (4,2)."""
    assert (5, 5) in neighbours((4, 6)) and (5, 5) in neighbours((4, 5))
    assert (5, 5) not in neighbours((4, 7)) and (5, 5) not in neighbours((4, 8))
    assert distance((4, 3), (4, 2)) == 1 and distance((4, 8), (4, 2)) == 6
    assert MusketOptions().cavalry_ride_past == "all"


@pytest.mark.parametrize(
    ("ride", "morale", "path"),
    [
        (None, "good", STOPPED),
        (None, "routed", STOPPED),  # null: even a routed enemy holds
        ("broken", "good", STOPPED),
        ("broken", "spent", STOPPED),  # spent is thrown back, not beaten: it holds
        ("broken", "disrupted", RODE),
        ("broken", "routed", RODE),
        ("all", "good", RODE),
        ("all", "spent", RODE),
        ("all", "routed", RODE),
    ],
)
def test_charging_cavalry_passes_an_enemy_the_option_says_does_not_hold_it(
    ride: str | None, morale: str, path: list[tuple[int, int]]
) -> None:
    """A charge at ``t`` past ``x`` in each morale state: held (stops at (4,6)) or ridden
    past to (4,3), next to the target, where it stops as any charge does."""
    assert _path(_data(ride), morale) == path


@pytest.mark.parametrize("ride", RIDES)
def test_infantry_is_held_by_every_enemy_at_every_value(ride: str | None) -> None:
    """The option is cavalry's alone: infantry charging past a routed ``x`` stops next to it
    (infantry moves 4, so it would have gone on to (4,5) had it not been held)."""
    assert _path(_data(ride, kind="infantry"), "routed") == STOPPED


@pytest.mark.parametrize(("ride", "path"), [(None, STOPPED), ("broken", STOPPED), ("all", STOPPED)])
def test_all_frees_only_a_charge_an_engage_order_is_held_by_a_formed_enemy(
    ride: str | None, path: list[tuple[int, int]]
) -> None:
    """On an ``engage`` order (stop two hexes off the target) ``"all"`` is ``"broken"``: a
    formed ``x`` holds the cavalry at (4,6) at every value."""
    assert _path(_data(ride, order="engage")) == path


@pytest.mark.parametrize(
    ("ride", "morale", "moves"),
    [
        (None, "routed", False),
        ("broken", "routed", True),
        ("broken", "disrupted", True),
        ("broken", "good", False),
        ("all", "good", True),
    ],
)
def test_cavalry_that_starts_next_to_an_enemy_moves_only_if_that_enemy_does_not_hold_it(
    ride: str | None, morale: str, moves: bool
) -> None:
    """``c`` starts at (4,6), next to ``x``: it stays (no move at all) when ``x`` holds it,
    and otherwise rides on to (4,3)."""
    path = _path(_data(ride, c_at=[4, 6]), morale)
    assert path == ([(4, 5), (4, 4), (4, 3)] if moves else [])


def test_all_is_held_by_the_charge_target_and_the_target_is_the_later_orders() -> None:
    """``held`` under ``"all"``: next to its charge target a charging cavalry unit is held,
    next to any other enemy it is not; the target is the one :meth:`Battle.charge_target`
    names (the order's while it is on the field)."""
    b: Battle = battle_of(_data("all"))
    c = b.state.units["c"]
    assert b.held(c, at=(4, 3)) is True  # next to t, its target
    assert b.held(c, at=(4, 6)) is False  # next to x only
    assert b.adjacent_enemy(c, at=(4, 6)) is True  # the zone of control's plain reading
    b = battle_of(_data("all", target="x"))
    c = b.state.units["c"]
    assert b.held(c, at=(4, 6)) is True
    assert b.held(c, at=(4, 3)) is False


def test_all_is_the_default_and_null_fights_another_battle() -> None:
    """``"all"`` is the default (rules version 7) and not written: a battle with the option
    left out and one with it set to ``"all"`` write the same bytes; set to null, the
    battle the option changes differs."""
    left_out, default, null = _data(None), _data("all"), _data(None)
    del left_out["options"]
    assert _fight(left_out) == _fight(default)
    assert _fight(null) != _fight(default)


def test_a_value_that_is_not_an_option_is_refused_naming_the_field() -> None:
    """A scenario with ``cavalry_ride_past: some`` is refused at the option."""
    with pytest.raises(ScenarioError) as err:
        validate_data(_data("some"), {}, "t.yaml")
    assert "cavalry_ride_past" in str(err.value)


@pytest.mark.parametrize(("ride", "written"), [("broken", '"broken"'), ("null", "null")])
def test_a_shipped_cavalry_battle_with_the_option_verifies(
    ride: str, written: str, tmp_path: Path
) -> None:
    """Salamanca at its case's seed with the option set away from its default: fought,
    written and verified by the same apply (the option is in the header, so verify re-fights
    under it)."""
    out = tmp_path / f"sal-{ride}.jsonl"
    made = invoke("run", ROOT / "scenarios" / "salamanca_le_marchant.yaml", "--seed", "722",
                  "--set", f"options.cavalry_ride_past={ride}", "-o", out)  # fmt: skip
    assert made.exit_code == 0, made.output
    assert f'"cavalry_ride_past":{written}' in out.read_text(encoding="utf-8").splitlines()[0]
    checked = invoke("verify", out)
    assert checked.exit_code == 0, checked.output
