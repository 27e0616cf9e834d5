"""Option ``assault_over_ends``: the battle ends at a turn's end once its whole attack has
been thrown back (docs/rules/musket.md, *Victory* and *Options*).

Side a retreats south and attacks; side b holds. An attacker is still in the attack while
it is on the field, in good order and has not broken off (``break_off_loss``, 0.4: 160 of
400 men lost).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from sim import api
from sim.rulesets.musket.model.options import MusketOptions
from sim.rulesets.musket.rules.context import Battle
from sim.rulesets.musket.rules.victory import assault_over, decide_end
from tests.sim.test_rules import _inf, _scenario, battle_of

ROOT = Path(__file__).resolve().parents[2]
ON = {"assault_over_ends": True}


def _battle(options: dict[str, Any], *attackers: dict[str, Any], **extra: Any) -> Battle:
    data = _scenario(list(attackers), [_inf("b1", [4, 2], order={"kind": "hold"})], **extra)
    if options:
        data["options"] = options
    return battle_of(data)


def _charge(uid: str, at: list[int]) -> dict[str, Any]:
    return _inf(uid, at, order={"kind": "charge", "target": "b1"})


def test_off_by_default_the_battle_goes_on_with_every_attacker_thrown_back() -> None:
    assert MusketOptions().assault_over_ends is False
    assert "assault_over_ends" not in MusketOptions().model_dump()  # not in old headers
    b = _battle({}, _charge("a1", [4, 5]))
    b.state.units["a1"].morale = "spent"
    assert assault_over(b)  # the attack is over, but the rule is off
    assert decide_end(b, last_turn=False) is None


@pytest.mark.parametrize("morale", ["disrupted", "spent", "routed", "eliminated"])
def test_an_attacker_out_of_good_order_is_out_of_the_attack(morale: str) -> None:
    b = _battle(ON, _charge("a1", [4, 5]))
    assert not assault_over(b)
    b.state.units["a1"].morale = morale
    assert assault_over(b)


def test_gone_or_broken_off_is_out_of_the_attack_in_good_order() -> None:
    b = _battle(ON, _charge("a1", [4, 5]))
    b.state.units["a1"].hex = None  # left the field
    assert assault_over(b)
    b = _battle(ON, _charge("a1", [4, 5]))
    b.state.units["a1"].strength = 241  # 159 of 400 lost: still in it
    assert not assault_over(b)
    b.state.units["a1"].strength = 240  # 160 lost: 0.4, broken off
    assert assault_over(b)


def test_one_attacker_in_good_order_keeps_the_attack_going_engage_counts() -> None:
    engage = _inf("a2", [6, 6], order={"kind": "engage", "target": "b1"})
    b = _battle(ON, _charge("a1", [4, 5]), engage)
    b.state.units["a1"].morale = "spent"
    assert not assault_over(b)  # a2 is still engaging
    b.state.units["a2"].morale = "disrupted"
    assert assault_over(b)


def test_attackers_that_all_start_out_of_good_order_made_no_attack_to_end() -> None:
    """A campaign carries a routed unit into its next battle disrupted: with every attacker
    out of good order from the start, the rule does not apply; with one that started in
    good order, it does once both are out of the attack."""
    b = _battle(ON, _charge("a1", [4, 5]) | {"morale": "disrupted"})
    assert not assault_over(b)
    assert decide_end(b, last_turn=False) is None
    b = _battle(ON, _charge("a1", [4, 5]) | {"morale": "disrupted"}, _charge("a2", [5, 5]))
    assert not assault_over(b)  # a2 is in the attack
    b.state.units["a2"].morale = "spent"
    assert assault_over(b)


def test_a_battle_with_no_attack_order_is_never_over_by_this_rule() -> None:
    b = _battle(ON, _inf("a1", [4, 8], order={"kind": "hold"}))
    assert not assault_over(b)
    assert decide_end(b, last_turn=False) is None


def test_the_end_is_decided_on_objective_points_as_at_the_turn_limit() -> None:
    """b holds the objective it stands on: it wins; with none, a draw. At the last turn the
    turn limit is the reason. The end names no cause, as the turn limit's does."""
    objective = {"objectives": [{"name": "ridge", "hex": [4, 2], "points": 1}]}
    b = _battle(ON, _charge("a1", [4, 5]), victory=objective)
    assert decide_end(b, last_turn=False) is None
    b.state.units["a1"].morale = "spent"
    ended = decide_end(b, last_turn=False)
    assert ended is not None
    assert (ended.winner, ended.cause, ended.objective_points) == ("b", None, {"a": 0, "b": 1})
    assert ended.reason == "the attack is over: B holds the most objective points (1)"
    last = decide_end(b, last_turn=True)
    assert last is not None and last.reason.startswith("turn limit: ")
    b = _battle(ON, _charge("a1", [4, 5]))
    b.state.units["a1"].morale = "disrupted"
    ended = decide_end(b, last_turn=False)
    assert ended is not None and ended.winner is None
    assert ended.reason == "the attack is over: no army broke and objectives are even"


def test_a_fought_battle_ends_at_the_first_turn_its_attack_is_over(tmp_path: Path) -> None:
    """Maida at seed 5: with the option the battle ends at the first turn's end whose state
    has no attacker left in the attack (the third), and its events before the end are
    those of the battle without the option, which goes on."""
    data = yaml.safe_load((ROOT / "scenarios" / "maida.yaml").read_text())
    paths = {}
    for name, options in (("off", {}), ("on", ON)):
        data["options"] = options
        path = tmp_path / f"{name}.yaml"
        path.write_text(yaml.safe_dump(data))
        paths[name] = tmp_path / f"{name}.jsonl"
        api.run(path, 5, paths[name])
    on, off = (api.load_replay(paths[k]).events for k in ("on", "off"))
    at = next(i for i, e in enumerate(on) if e.type == "musket.battle_ended")
    ended: Any = on[at]
    assert ended.reason == "the attack is over: British holds the most objective points (1)"
    assert [e.model_dump() for e in on[:at]] == [e.model_dump() for e in off[:at]]
    assert off[at].type != "musket.battle_ended"  # without the option the battle goes on
    scenario = api.load_replay(paths["on"]).scenario.model_dump(mode="json", exclude_none=True)
    for turn in range(1, ended.turn + 1):
        b = battle_of(scenario, turn)
        b.state = api.state_at(paths["on"], turn)
        assert assault_over(b) is (turn == ended.turn == 3)
