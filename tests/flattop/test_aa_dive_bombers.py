"""``modifier_aa_dive_bombers`` [ours]: a raid of dive bombers alone meets the AA at a modifier.

The test task force answers with AA 3 + 2 + 1 = 6 (carrier, heavy cruiser, destroyer):
column 5-6.  On table 4 that is 0.7; at −2, table 2: 0.4; at −4, the ``*`` row: 0.1; at −5,
below ``*``: no fire.  The option is 0 by default, and then nothing changes (rules version 3).
"""

from __future__ import annotations

import pytest

from sim.rulesets.flattop.model.events import AntiAircraft
from sim.rulesets.flattop.model.options import FlattopOptions
from sim.rulesets.flattop.model.tables import MATRIX, column_index
from sim.rulesets.flattop.reading.audit import audit
from sim.rulesets.flattop.rules.context import Battle
from tests.flattop.builders import battle, scenario_data
from tests.flattop.scripted import scripted_aa


def _fire(option: int, attacks: list[int], *rolls: int, clouds: bool = False) -> AntiAircraft:
    """The test task force's AA at strike s1 (8 AF of dive bombers, 6 of torpedo bombers
    declared) with ``attacks`` AF left, every die scripted to ``rolls``."""
    data = scenario_data(options={"modifier_aa_dive_bombers": option} if option else {})
    data["sides"][1]["task_forces"][0]["clouds"] = clouds
    b = battle(data)
    s = b.state.strikes["s1"]
    s.status, s.escort, s.attacks = "airborne", 4, attacks

    return scripted_aa(b, *rolls)


def test_the_default_is_zero_and_left_out_of_the_header() -> None:
    """0 by default: not in the options' dump (so no replay header changes), in it when set."""
    assert FlattopOptions().modifier_aa_dive_bombers == 0
    assert "modifier_aa_dive_bombers" not in FlattopOptions().model_dump()
    assert (
        FlattopOptions(modifier_aa_dive_bombers=-3).model_dump()["modifier_aa_dive_bombers"] == -3
    )


@pytest.mark.parametrize("bad", [1, -16])
def test_the_modifier_is_from_minus_15_to_0(bad: int) -> None:
    with pytest.raises(ValueError, match="modifier_aa_dive_bombers"):
        FlattopOptions(modifier_aa_dive_bombers=bad)


def test_at_zero_a_raid_of_dive_bombers_meets_the_whole_table() -> None:
    """Default: dive bombers alone, AA 6 on table 4 [5-6] = 0.7; the ``.7`` column's roll 1
    → 2 hits, 2 AF spoiled."""
    assert MATRIX[4][column_index(6)] == 7
    aa = _fire(0, [8, 0], 1)
    assert (aa.result.modifiers, aa.result.hit_table, aa.result.cell) == ({}, "4", 0.7)
    assert (aa.result.hits, aa.attack_losses, aa.attack_spoiled) == (2, [0, 0], [2, 0])


@pytest.mark.parametrize(
    ("option", "table", "tenths"),
    [(-1, "3", MATRIX[3][2]), (-2, "2", MATRIX[2][2]), (-4, "*", MATRIX[0][2])],
)
def test_a_raid_of_dive_bombers_alone_meets_the_aa_at_the_modifier(
    option: int, table: str, tenths: int
) -> None:
    """Table 4 + the option, column 5-6: −1 → table 3 (0.5), −2 → 2 (0.4), −4 → * (0.1)."""
    aa = _fire(option, [8, 0], 9)
    assert (aa.result.modifiers, aa.result.hit_table) == ({"dive_bombers": option}, table)
    assert aa.result.cell == tenths / 10
    assert (tenths, aa.result.hits) == ({-1: 5, -2: 4, -4: 1}[option], 0)  # roll 9 misses .f


def test_the_fraction_die_reads_the_seeds_column_at_the_modifier() -> None:
    """At −2 the cell is 0.4, the CRT's ``.4`` column: roll 0 → 2 hits, 2 → 1, 3 → 0; each
    hit spoils an AF of the dive bombers (a kill needs 3 hits, ``aa_spoiled_per_kill`` 2)."""
    for roll, hits, spoiled in ((0, 2, [2, 0]), (2, 1, [1, 0]), (3, 0, [])):
        aa = _fire(-2, [8, 0], roll)
        assert (aa.result.hits, aa.attack_losses, aa.attack_spoiled) == (hits, [0, 0], spoiled)


def test_a_raid_with_torpedo_bombers_left_meets_the_aa_unmodified() -> None:
    """Mixed raid (8 + 6, or 1 + 1 AF left): no modifier, table 4, 0.7."""
    for attacks in ([8, 6], [1, 1]):
        aa = _fire(-4, attacks, 1)
        assert (aa.result.modifiers, aa.result.hit_table, aa.result.cell) == ({}, "4", 0.7)


def test_torpedo_bombers_shot_away_leave_dive_bombers_alone() -> None:
    """A raid whose torpedo bombers the CAP has all shot down meets the modifier."""
    aa = _fire(-2, [5, 0], 9)
    assert aa.result.modifiers == {"dive_bombers": -2}


def test_it_stacks_with_clouds_and_below_star_is_no_fire() -> None:
    """−2 and clouds −2 on table 4: the * row (0.1); −5 alone: below *, no dice, no hits."""
    aa = _fire(-2, [8, 0], 0, clouds=True)
    assert (aa.result.modifiers, aa.result.hit_table, aa.result.cell, aa.result.hits) == (
        {"dive_bombers": -2, "clouds": -2}, "*", 0.1, 1,
    )  # fmt: skip
    aa = _fire(-5, [8, 0], 0)
    assert (aa.result.hit_table, aa.result.cell, aa.result.hits, aa.result.draws) == (
        None, None, 0, [],
    )  # fmt: skip
    assert (aa.attack_losses, aa.attack_spoiled) == ([0, 0], [])


def test_the_audit_wants_the_modifier_exactly_when_the_rule_gives_it() -> None:
    """An AA event whose dive_bombers modifier is dropped, added or wrong fails the audit."""
    data = scenario_data(options={"modifier_aa_dive_bombers": -2})
    b: Battle = battle(data)
    s = b.state.strikes["s1"]
    s.status, s.escort, s.attacks = "airborne", 4, [8, 0]
    aa = _fire(-2, [8, 0], 9)
    dropped = _fire(0, [8, 0], 9)  # fought without the option: table 4, no modifier
    assert "dive_bombers should be -2" in (audit(b.scenario, b.state, dropped) or "")
    s.attacks = [8, 6]
    assert "dive_bombers should be None" in (audit(b.scenario, b.state, aa) or "")
