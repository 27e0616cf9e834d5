"""becmi readings made options after version 1: each default fights as before, byte for byte.

Each option here (``model/options.py``, a :func:`~sim.contract.options.later_option`) names a
reading the code made as a fixed constant. Left out, or set to its default, a battle writes
the same replay, header included: the option is not in the header's scenario at its default.
Its other settings are held to values worked out from the rules in
``tests/odds/test_readings.py``.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from engine.log import MemorySink
from sim import api
from sim.rulesets.becmi import RULESET
from sim.scenario.load import validate_data
from tests.becmi.helpers import FIGHTER, ORC

UNSAVED_ORC = {k: v for k, v in {**ORC, "hp": 30}.items() if k != "save_as"}
"""An orc of 1 HD with no ``save_as`` and hp enough to be struck and stunned a few times."""


def side(sid: str, kind: str, *members: dict[str, Any]) -> dict[str, Any]:
    """A side of scenario data: ``members`` under ``kind`` (``characters``, ``monsters``)."""
    listed = [{k: v for k, v in m.items() if k != "kind"} for m in members]
    return {"id": sid, "name": sid.upper(), kind: listed}


BRAWL: dict[str, Any] = {
    "ruleset": "becmi",
    "name": "later options",
    "seed": 5,
    "rounds": {"limit": 12},
    "sides": [side("a", "characters", FIGHTER), side("b", "monsters", UNSAVED_ORC)],
}
"""A fighter striking an orc that saves by ``monster_save_as``."""

BUGBEAR = {
    **BRAWL,
    "sides": [BRAWL["sides"][0], side("b", "monsters", {**UNSAVED_ORC, "hd": "2-1"})],
}
"""The same fight against a 2−1 HD monster: THAC0 18 (its row "1+ to 2") by ``minus_hd_row``."""

TAVERN: dict[str, Any] = yaml.safe_load(
    (Path(__file__).resolve().parents[2] / "scenarios" / "tavern_brawl.yaml").read_text()
)
"""The golden tavern brawl (seed 377): Snaga is pinned in round 3 (won from takedown) and
held pinned in round 4, a failed save and 3 damage each time (1 + Thorgrim's Str +2)."""


def fought(data: dict[str, Any]) -> list[str]:
    """The replay's lines of the scenario ``data``, header included."""
    _, sc = validate_data(copy.deepcopy(data), {}, "t.yaml")
    sink = MemorySink()
    RULESET.simulate(sc, api.make_header(RULESET, sc, data["seed"]), sink)
    return sink.lines


def with_option(data: dict[str, Any], name: str, value: Any) -> dict[str, Any]:
    return {**data, "options": {**data.get("options", {}), name: value}}


def events(lines: list[str], kind: str) -> list[dict[str, Any]]:
    return [e for e in map(json.loads, lines[1:]) if e.get("type") == kind]


@pytest.mark.parametrize(
    ("data", "name", "default", "used"),
    [
        (BRAWL, "monster_save_as", "fighter", '"save_as":"F1"'),
        (TAVERN, "pin_damage_rounds", "won_or_held", '"hold_before":-2,"hold_after":-3'),
        (BUGBEAR, "minus_hd_row", "n", '"thac0":18'),
    ],
)
def test_a_later_option_at_its_default_changes_no_byte(
    data: dict[str, Any], name: str, default: Any, used: str
) -> None:
    """Left out or set to its default: the same replay, and no mention of it in the header."""
    left_out = fought(data)
    assert any(used in line for line in left_out[1:])  # the reading is exercised
    assert fought(with_option(data, name, default)) == left_out
    assert name not in left_out[0]


def test_monster_save_as_other_than_fighter_is_in_the_header_and_saves_so() -> None:
    lines = fought(with_option(BRAWL, "monster_save_as", "cleric"))
    assert '"monster_save_as":"cleric"' in lines[0]
    struck = events(lines, "becmi.struck")
    saves = [e["save"] for e in struck if e["target"] == "grub" and e["save"]]
    assert saves and {(s["save_as"], s["number"]) for s in saves} == {("C1", 11)}  # cleric 1-4
    assert lines != fought(BRAWL)


def test_pin_damage_only_on_held_pins_spares_the_round_the_pin_is_won() -> None:
    """Under ``held`` round 3's pin, won from takedown, rolls no save and does no damage
    (the bout's draws: the two d20s only); round 4's held pin still does 3 (its dice are
    its round's own), so Snaga ends round 4 with 3 hp more."""

    def pins(lines: list[str]) -> dict[int, dict[str, Any]]:
        return {e["turn"]: e for e in events(lines, "becmi.wrestled")}

    default = pins(fought(TAVERN))
    lines = fought(with_option(TAVERN, "pin_damage_rounds", "held"))
    assert '"pin_damage_rounds":"held"' in lines[0]
    held = pins(lines)
    assert (default[3]["hold_before"], default[3]["hold_after"]) == (-2, -3)
    assert [p["damage"] for p in default[3]["pins"]] == [3]
    assert (held[3]["hold_after"], held[3]["pins"], len(held[3]["draws"])) == (-3, [], 2)
    assert (held[4]["hold_before"], held[4]["hold_after"]) == (-3, -3)
    [was], [now] = default[4]["pins"], held[4]["pins"]
    assert (now["damage"], now["hp_after"]) == (3, was["hp_after"] + 3)


def test_a_2_1_hd_monster_reads_the_up_to_1_row_under_n_minus_1() -> None:
    lines = fought(with_option(BUGBEAR, "minus_hd_row", "n_minus_1"))
    assert '"minus_hd_row":"n_minus_1"' in lines[0]
    blows = [e for e in events(lines, "becmi.struck") if e["attacker"] == "grub" and e["to_hit"]]
    assert blows and {e["to_hit"]["thac0"] for e in blows} == {19}  # seed 001 L22
