"""A charge on a battery says the guns its loss cost, as a volley on one does.

Bussaco (seed 1810): Simon's left column charges Ross's troop of horse artillery and its
line said ``attacker loses 2, defender loses 66`` — 66 men-equivalents, which cost the
battery 3 guns (``guns_lost`` in the event), read as 66 of its guns. A volley on a battery
says ``15 casualties (1 gun lost)``; a melee now says ``defender loses 66 (3 guns lost)``.
The narrative is no part of a replay.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sim import api
from sim.replay import analysis
from sim.rulesets.musket.model.events import Meleed
from sim.text.grammar import count

ROOT = Path(__file__).resolve().parents[2]


def _lines(replay: Any) -> tuple[int, int]:
    """Check every charge's line of ``replay``; how many were on guns and on men."""
    kinds = {u.id: u.kind for side in replay.scenario.sides for u in side.units}
    on_guns = on_men = 0
    for event, line in analysis.narrative(replay, types=["meleed"]):
        assert isinstance(event, Meleed)
        d = event.defender_losses
        assert kinds[event.unit] != "artillery"  # artillery cannot charge
        lost = f"attacker loses {event.attacker_losses.casualties}, defender loses "
        if kinds[event.target] == "artillery":
            on_guns += 1
            assert f"{lost}{d.casualties} ({count(d.guns_lost, 'gun')} lost); " in line
        else:
            on_men += 1
            assert f"{lost}{d.casualties}; " in line
    return on_guns, on_men


def test_a_charge_on_a_battery_names_the_guns_lost(tmp_path: Path) -> None:
    out = tmp_path / "bussaco.jsonl"
    api.run(ROOT / "scenarios" / "bussaco.yaml", seed=1810, out=out)
    on_guns, _ = _lines(api.load_replay(out))
    assert on_guns >= 1  # the case this test is about


def test_a_charge_on_men_says_the_number_alone() -> None:
    _, on_men = _lines(api.load_replay(ROOT / "replays" / "chancellorsville-s1863.jsonl"))
    assert on_men >= 1


def test_a_battery_taken_in_a_melee_is_captured_not_eliminated() -> None:
    """Chancellorsville (seed 1863): Cobb's Legion overruns the 5th Maine Battery. With
    ``guns_captured`` a battery that loses a melee is taken, guns and all (docs/rules/musket.md:
    "eliminated (captured)"); its line said ``5th Maine Battery is eliminated``, the words of a
    regiment cut down to the last man."""
    replay = api.load_replay(ROOT / "replays" / "chancellorsville-s1863.jsonl")
    assert replay.scenario.options.guns_captured
    kinds = {u.id: u.kind for side in replay.scenario.sides for u in side.units}
    names = {u.id: u.name for side in replay.scenario.sides for u in side.units}
    taken = 0
    for event, line in analysis.narrative(replay, types=["meleed"]):
        assert isinstance(event, Meleed)
        loser = event.target if event.winner == event.unit else event.unit
        if kinds[loser] == "artillery" and event.loser_state == "eliminated":
            taken += 1
            assert f", {names[loser]} is captured" in line and "eliminated" not in line
    assert taken == 1  # the 5th Maine Battery
