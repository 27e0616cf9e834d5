"""The to-hit arithmetic: H = THAC0 − AC, the plateaus, negative H (rules-notes §3)."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sim.rulesets.becmi.model.data import NORMAL_MAN_THAC0, THAC0_ROWS
from sim.rulesets.becmi.model.tohit import needed, parse_hd, plateau
from sim.scenario.load import ScenarioError, load_scenario

TABLE_THAC0S = sorted({NORMAL_MAN_THAC0, *(row[1] for row in THAC0_ROWS)})
HIGH_PLATEAUS = range(20, 200, 10)
LOW_PLATEAUS = (2, *range(-10, -200, -10))


def test_thac0_19_against_ac_9_to_minus_25_is_the_notes_test_vector() -> None:
    """THAC0 19 against AC 9 … −25 needs 10…19, 20×5, 21…29, 30×5, 31…36."""
    got = [needed(19, ac).needed for ac in range(9, -26, -1)]
    want = [*range(10, 20), *[20] * 5, *range(21, 30), *[30] * 5, *range(31, 37)]
    assert got == want


def test_low_end_plateaus_at_2_and_minus_10() -> None:
    """H from 2 down to −20 adjusts to 2×5, 1…−9, −10×5, −11, −12."""
    got = [plateau(h)[0] for h in range(2, -21, -1)]
    assert got == [*[2] * 5, *range(1, -10, -1), *[-10] * 5, -11, -12]


def test_plateau_steps_are_recorded_in_order() -> None:
    """H 44 passes the 20 and 30 thresholds: 44 → 40 → 36."""
    assert plateau(44) == (36, [(20, 44, 40), (30, 40, 36)])
    assert plateau(-19) == (-11, [(2, -19, -15), (-10, -15, -11)])
    assert plateau(11) == (11, [])


def test_negative_h_needs_2_and_adds_minus_h_to_damage() -> None:
    """H −7 → −3 needs 2 and adds 3 to damage; H −4 → 0 needs 0 and adds nothing."""
    n = needed(19, 26)
    assert (n.h, n.adjusted, n.needed, n.damage_bonus) == (-7, -3, 2, 3)
    assert (needed(19, 23).needed, needed(19, 23).damage_bonus) == (0, 0)


def _run_length(h: int) -> int:
    value = plateau(h)[0]
    return sum(1 for k in range(h - 8, h + 9) if plateau(k)[0] == value)


@given(thac0=st.sampled_from(TABLE_THAC0S), ac=st.integers(min_value=-150, max_value=150))
def test_plateaus_hold_for_every_thac0_of_the_table(thac0: int, ac: int) -> None:
    """Needed rises by 0 or 1 per AC step, 5 ACs share each plateau, every other value 1."""
    h = thac0 - ac
    value, _ = plateau(h)
    step = plateau(h + 1)[0] - value
    assert step in (0, 1)
    if step == 0:
        assert value in HIGH_PLATEAUS or value in LOW_PLATEAUS
    plateau_value = value in HIGH_PLATEAUS or value in LOW_PLATEAUS
    assert _run_length(h) == (5 if plateau_value else 1)
    if 2 <= h <= 20:
        assert value == h
    n = needed(thac0, ac)
    assert n.needed == (2 if value < 0 else value)
    assert n.damage_bonus == max(0, -value)


def test_a_characters_class_is_written_class_and_only_so(tmp_path: Path) -> None:
    """`class_` is the model's Python name for `class`, not a second spelling of the field: a
    file that writes it is refused as unknown (validate and run took it, and the schema
    `new` writes refused it)."""
    path = tmp_path / "k.yaml"
    path.write_text(
        "ruleset: becmi\nname: U\nsides:\n  - id: party\n    name: The party\n"
        "    characters:\n      - {id: hilda, name: Hilda, class_: fighter, level: 3, hp: 20,"
        " at: [0, 0], weapon: sword}\n  - id: goblins\n    name: The goblins\n    monsters:\n"
        '      - {id: g1, name: Goblin, hd: "1-1", ac: 6, hp: 4, at: [40, 0],'
        " weapon: short_sword}\n"
    )
    with pytest.raises(ScenarioError) as refused:
        load_scenario(path)
    assert [(p.line, p.field, p.message) for p in refused.value.problems] == [
        (7, "sides.0.characters.0.class_", "unknown field; did you mean 'class'?")
    ]
    path.write_text(path.read_text().replace("class_:", "class:"))
    load_scenario(path)


@given(st.text(alphabet="0123456789+-/d ", max_size=7))
def test_the_schemas_hit_dice_pattern_refuses_no_valid_form(text: str) -> None:
    """The pattern the schema gives an editor for `hd` accepts every form parse_hd reads,
    and refuses a form it does not (`1d8` passed the schema, which had no pattern): what it
    lets through beside them is a form out of range (0 dice, too many), which validate says."""
    import re

    from sim.rulesets.becmi.model.scenario import MonsterSpec

    pattern = MonsterSpec.model_json_schema()["properties"]["hd"]["pattern"]
    matched = re.search(pattern, text) is not None
    try:
        parse_hd(text)
    except ValueError as exc:
        assert not matched or "(n >= 1)" in str(exc) or "at most" in str(exc), text
    else:
        assert matched, text
