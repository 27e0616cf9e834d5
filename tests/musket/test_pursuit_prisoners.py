"""Option ``cavalry_pursuit_prisoners`` (ours; 0 by default): of the men (guns) a cavalry
winner's pursuit takes (``cavalry_pursuit_share``), floor(share x them) are taken prisoner,
recorded in the ``meleed``'s ``prisoners``, and the rest cut down, in its
``pursuit_losses`` (docs/rules/musket.md, *Options*, and the option's protocol under
*Rules version 8*).

The melees are :mod:`tests.musket.test_cavalry`'s: 400 horse beat 400 routed foot whatever
the draw, so the foot takes no rout prisoners (it was routed already) and the pursuit is
the only way it gives men up; and :mod:`tests.musket.test_rout_prisoners`' 40 disrupted
foot, which the melee routs, so both kinds of prisoner come together.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest
import yaml

from sim import api
from sim.rulesets.musket.model.events import Meleed
from sim.rulesets.musket.model.options import MusketOptions
from sim.rulesets.musket.reading.report import narrate
from sim.rulesets.musket.rules.context import Battle
from sim.rulesets.musket.rules.melee import decide_melee, pursuit_prisoners
from sim.scenario.load import ScenarioError, validate_data
from tests.musket.test_cavalry import _routed_melee
from tests.musket.test_rout_prisoners import SURE_WIN
from tests.sim.test_rules import _fight, _inf, _scenario, battle_of

ROOT = Path(__file__).resolve().parents[2]


def test_the_default_is_0_and_is_written_nowhere() -> None:
    """0 by default; a battle with a pursuit and the option left out writes the same bytes as
    one with it set to 0."""
    assert MusketOptions().cavalry_pursuit_prisoners == 0.0
    cav = _inf("c", [4, 6], kind="cavalry", weapon="carbine",
               order={"kind": "charge", "target": "t"})  # fmt: skip
    pursuit = {"cavalry_pursuit_share": 0.5}
    base = _scenario([cav], [_inf("t", [4, 5], order={"kind": "hold"})], options=pursuit)
    set_ = _scenario([cav], [_inf("t", [4, 5], order={"kind": "hold"})],
                     options=pursuit | {"cavalry_pursuit_prisoners": 0})  # fmt: skip
    assert _fight(base) == _fight(set_)
    assert "cavalry_pursuit_prisoners" not in json.dumps(_fight(set_)[0])


@pytest.mark.parametrize(
    ("share", "pursuit", "taken"),
    [(0.5, 30, 15), (0.5, 31, 15), (1.0, 31, 31), (0.1, 30, 3), (0.29, 100, 29), (0.5, 0, 0)],
)
def test_the_prisoners_are_the_share_of_the_pursuit_rounded_down(
    share: float, pursuit: int, taken: int
) -> None:
    """floor(share x pursuit), exact at whole numbers: 0.29 x 100 is 28.999999999999996 in
    floating point, and 29 here; 0.1 x 30 is 3."""
    b = battle_of(_scenario([_inf("a", [4, 5])], [_inf("d", [4, 4])],
                            options={"cavalry_pursuit_prisoners": share}))  # fmt: skip
    assert pursuit_prisoners(b, pursuit) == taken


def test_at_0_the_share_takes_none() -> None:
    b = battle_of(_scenario([_inf("a", [4, 5])], [_inf("d", [4, 4])]))
    assert pursuit_prisoners(b, 120) == 0


def _split(options: dict[str, Any]) -> tuple[Battle, Meleed, int, int]:
    """The routed foot's melee; the pursuit's total and the casualties c of the melee."""
    b, event = _routed_melee(options)
    c = event.defender_losses.casualties
    total = math.floor(options.get("cavalry_pursuit_share", 0) * (400 - c))
    return b, event.model_copy(update={"seq": 1}), total, c


def test_the_pursuit_splits_into_men_cut_down_and_men_taken() -> None:
    """Share 0.5 of a pursuit of 0.5: the pursuit's total t = floor(0.5 x (400 - c)) is
    unchanged, floor(0.5 x t) of it are prisoners and the rest pursuit_losses; applied,
    the foot keeps 400 - c - t and counts c + t lost; the narrative tells both."""
    b, event, total, c = _split({"cavalry_pursuit_share": 0.5, "cavalry_pursuit_prisoners": 0.5})
    taken = math.floor(0.5 * total)
    assert total > 0 and taken > 0
    assert (event.pursuit_losses, event.prisoners) == (total - taken, taken)
    line = narrate(b.scenario, b.state, event)
    assert line is not None
    assert f"the cavalry's pursuit cuts down or takes {total - taken} men more" in line
    assert f"; {taken} men taken prisoner" in line
    b.state.meleed(event)
    dfn = b.state.units["def"]
    assert (dfn.strength, dfn.men_lost) == (400 - c - total, c + total)
    assert dfn.morale == "routed" and dfn.hex == event.loser_retreats_to


def test_at_1_every_man_of_the_pursuit_is_a_prisoner() -> None:
    """Share 1: pursuit_losses 0 (left out of the line) and every man of the pursuit in
    prisoners; the narrative says no pursuit cut anyone down."""
    b, event, total, c = _split({"cavalry_pursuit_share": 0.5, "cavalry_pursuit_prisoners": 1})
    assert (event.pursuit_losses, event.prisoners) == (0, total)
    line = json.loads(event.model_dump_json())
    assert "pursuit_losses" not in line and line["prisoners"] == total
    told = narrate(b.scenario, b.state, event)
    assert told is not None and "pursuit" not in told and f"; {total} men taken prisoner" in told
    b.state.meleed(event)
    assert b.state.units["def"].strength == 400 - c - total


def test_without_a_pursuit_the_option_does_nothing() -> None:
    """cavalry_pursuit_share 0: no pursuit, so no prisoners from it, and the line is the one
    the option left out writes."""
    _, with_, _, _ = _split({"cavalry_pursuit_prisoners": 1})
    _, without, _, _ = _split({})
    assert (with_.pursuit_losses, with_.prisoners) == (0, 0)
    assert with_.model_dump_json() == without.model_dump_json()


def test_a_pursuit_of_every_man_left_still_eliminates() -> None:
    """Pursuit share 1 and prisoners 0.5: the total is every man left, so the foot is
    eliminated whichever way they are recorded, and the cavalry advances."""
    b, event, total, c = _split({"cavalry_pursuit_share": 1.0, "cavalry_pursuit_prisoners": 0.5})
    assert total == 400 - c
    assert (event.pursuit_losses, event.prisoners) == (total - total // 2, total // 2)
    assert (event.loser_state, event.loser_retreats_to, event.winner_advances_to) == (
        "eliminated",
        None,
        (4, 4),
    )
    b.state.meleed(event)
    dfn = b.state.units["def"]
    assert (dfn.strength, dfn.men_lost, dfn.morale, dfn.hex) == (0, 400, "eliminated", None)


def test_the_pursuits_prisoners_add_to_a_routs() -> None:
    """Cavalry beating 40 disrupted foot, which routs: the pursuit p = floor(0.25 x (40 - c)),
    the rout's prisoners floor(0.5 x (40 - c - p)) as before, and floor(0.5 x p) of the
    pursuit's men taken too: prisoners the sum, pursuit_losses p less its prisoners."""
    cav = _inf("a1", [4, 5], kind="cavalry", weapon="carbine",
               order={"kind": "charge", "target": "b1"})  # fmt: skip
    options = {
        "rout_prisoners_share": 0.5,
        "cavalry_pursuit_share": 0.25,
        "cavalry_pursuit_prisoners": 0.5,
    }
    data = _scenario(
        [cav],
        [_inf("b1", [4, 4], order={"kind": "hold"}, strength=40, morale="disrupted")],
        limit=1,
        options=options | SURE_WIN,
    )
    b = battle_of(data)
    event = decide_melee(b, b.state.units["a1"])
    assert event is not None and event.winner == "a1" and event.loser_state == "routed"
    left = 40 - event.defender_losses.casualties
    p = math.floor(0.25 * left)
    assert p >= 2
    rout = math.floor(0.5 * (left - p))
    assert (event.pursuit_losses, event.prisoners) == (p - p // 2, rout + p // 2)


@pytest.mark.parametrize("value", [-0.1, 1.5])
def test_a_share_outside_0_to_1_is_refused(value: float) -> None:
    data = _scenario([_inf("a", [4, 5])], [_inf("d", [4, 4])],
                     options={"cavalry_pursuit_prisoners": value})  # fmt: skip
    with pytest.raises(ScenarioError, match="cavalry_pursuit_prisoners"):
        validate_data(data, {}, "t.yaml")


def test_a_shipped_charge_with_the_option_replays_and_verifies(tmp_path: Path) -> None:
    """Quatre Bras' cuirassiers with a pursuit of 0.5 and its men all taken (seed 3): a
    melee the cavalry wins writes prisoners and no pursuit_losses; the replay reads back to
    the same lines, and verify (the audit on every event, the battle fought again) passes."""
    path = ROOT / "scenarios" / "quatre_bras_69th.yaml"
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    data.setdefault("options", {}).update(
        {"cavalry_pursuit_share": 0.5, "cavalry_pursuit_prisoners": 1}
    )
    scenario = tmp_path / "qb.yaml"
    scenario.write_text(json.dumps(data), encoding="utf-8")
    result = api.run(scenario, seed=3, out=tmp_path / "r.jsonl")
    lines = [json.loads(x) for x in (tmp_path / "r.jsonl").read_text().splitlines()]
    won = [e for e in lines if e.get("type") == "musket.meleed" and e.get("prisoners")]
    assert won and all("pursuit_losses" not in e for e in won)
    assert result.replay is not None and api.verify_replay(result.replay).ok
