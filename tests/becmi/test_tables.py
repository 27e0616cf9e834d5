"""The rules tables: transcribed from the seed (checked against the file) and the standard ones."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from sim.rulesets.becmi.model.data import COVER, LONG_RANGE_MODIFIER, NORMAL_MAN_THAC0, THAC0_ROWS
from sim.rulesets.becmi.model.tohit import (
    ability_adjustment,
    character_thac0,
    death_ray_save,
    monster_thac0,
    parse_hd,
)

REPO = Path(__file__).resolve().parents[2]
SEED = REPO / "tests" / "data" / "seeds" / "001_4ea57de6ea391d56.txt"
"""Seed 001 as shipped, kept in the repository so the tests need nothing beside it."""


def _seed_rows() -> dict[int, list[str]]:
    """The seed's table rows by original line number, as stripped cells.

    The file breaks its LaTeX lines at token boundaries; joined without the
    breaks and with the ``\\hlx`` rules removed, rows end at ``\\\\``.
    """
    text = "".join(SEED.read_text(encoding="utf-8").splitlines())
    text = re.sub(r"\\hlx\*?\{[^}]*\}", "", text)
    rows: dict[int, list[str]] = {}
    for chunk in text.split("\\\\"):
        m = re.match(r"\s*(\d+)\s?(.*)$", chunk)
        if m:
            rows[int(m[1])] = [cell.strip() for cell in m[2].split("&")]
    return rows


def _levels(cell: str) -> tuple[int, int] | None:
    if not cell:
        return None
    low, _, high = cell.partition("--")
    return int(low), int(high or low)


def _hd(cell: str) -> tuple[int | None, int | None]:
    if m := re.fullmatch(r"Up to\s*(\d+)", cell):
        return None, int(m[1])
    if m := re.fullmatch(r"(\d+)\+\s*up", cell):
        return int(m[1]), None
    m = re.fullmatch(r"(\d+)\+\s*to\s*(\d+)", cell)
    assert m, cell
    return int(m[1]), int(m[2])


def test_thac0_table_matches_the_seed_file() -> None:
    """Every row of data.THAC0_ROWS is the seed's line 22–44, cell for cell."""
    rows = _seed_rows()
    parsed = tuple(
        (
            line,
            int(rows[line][5].replace(" ", "")),
            _levels(rows[line][0]),
            _levels(rows[line][1]),
            _levels(rows[line][2]),
            rows[line][3] or None,
            _hd(rows[line][4]),
        )
        for line in range(22, 45)
    )
    assert parsed == THAC0_ROWS


def test_normal_man_and_headers_match_the_seed_file() -> None:
    """Line 21 gives the normal man THAC0 20; line 20 names the columns in our order."""
    rows = _seed_rows()
    assert "Normal man" in rows[21][0]
    assert int(rows[21][-1]) == NORMAL_MAN_THAC0 == 20
    assert [re.sub(r"\\th\{(.*)\}", r"\1", c) for c in rows[20]] == [
        "M-U",
        "C/T",
        "F",
        "D-H",
        "HD",
        "THAC0",
    ]


def test_cover_and_long_range_match_the_seed_file() -> None:
    """Cover lines 81–85 and long range line 75 are the data's values."""
    rows = _seed_rows()
    seeded = {
        rows[line][0].lower().replace("-", "_"): (
            int(rows[line][1].replace(" ", "")),
            None if "---" in rows[line][2] else int(rows[line][2].replace(" ", "")),
        )
        for line in range(81, 86)
    }
    assert seeded == COVER
    assert rows[75] == ["Long", "-1"]
    assert LONG_RANGE_MODIFIER == -1


@pytest.mark.parametrize(
    ("cls", "level", "rank", "thac0"),
    [
        ("normal_man", 0, None, 20),
        ("fighter", 1, None, 19),
        ("fighter", 4, None, 17),
        ("fighter", 36, None, -3),
        ("cleric", 36, None, 3),
        ("thief", 3, None, 19),
        ("magic_user", 5, None, 19),
        ("magic_user", 6, None, 17),
        ("magic_user", 36, None, 5),
        ("dwarf", 12, None, 13),
        ("dwarf", 12, "C", 13),
        ("halfling", 8, "M", 3),
        ("elf", 10, "A", 15),
    ],
)
def test_character_thac0_by_class_level_and_rank(
    cls: str, level: int, rank: str | None, thac0: int
) -> None:
    """Characters read their column by level; demi-humans with a rank read the D-H column."""
    assert character_thac0(cls, level, rank) == thac0


@pytest.mark.parametrize(
    ("hd", "thac0"),
    [
        ("1/2", 19),
        ("1-1", 19),
        ("1", 19),
        ("1+1", 18),
        ("2", 18),
        ("2+1", 17),
        ("9", 11),
        ("9+2", 10),
        ("11", 10),
        ("35", -2),
        ("35+1", -3),
        ("60", -3),
    ],
)
def test_monster_thac0_by_hit_dice(hd: str, thac0: int) -> None:
    """ "n+ to m" rows take n plus something up to exactly m; "up to 1" takes ½, 1−1 and 1."""
    assert monster_thac0(parse_hd(hd)) == thac0


def test_hit_dice_forms() -> None:
    """1/2, n, n+k and n−k are read; 2 × HD ignores the plus; other text is refused."""
    assert [(h.dice, h.plus, h.twice) for h in map(parse_hd, ("1/2", "3", "4+2", "1-1"))] == [
        (0, 0, 1),
        (3, 0, 6),
        (4, 2, 8),
        (1, -1, 2),
    ]
    for bad in ("0", "x", "1+", "+1", "2d8", "٣"):  # "٣": a digit, not an ASCII one
        with pytest.raises(ValueError, match="Hit Dice"):
            parse_hd(bad)
    # bounded, so every figure a battle derives stays a 64-bit integer, as replays hold
    assert (parse_hd("100+100").dice, parse_hd("0003").dice) == (100, 3)
    for big in ("101", "1+101", "100-101", "9999999999999999999", "1" * 5000):
        with pytest.raises(ValueError, match="at most 100 dice and a plus or minus of at most"):
            parse_hd(big)


def test_ability_adjustment_table() -> None:
    """Scores 3–18 adjust −3, −2 ×2, −1 ×3, 0 ×4, +1 ×3, +2 ×2, +3 (rules-notes §3)."""
    got = [ability_adjustment(s) for s in range(3, 19)]
    assert got == [-3, -2, -2, -1, -1, -1, 0, 0, 0, 0, 1, 1, 1, 2, 2, 3]
    with pytest.raises(ValueError, match="outside 3-18"):
        ability_adjustment(19)


def test_death_ray_saves() -> None:
    """Death Ray numbers from the Rules Cyclopedia tables, by class and level."""
    got = [
        death_ray_save(cls, level)
        for cls, level in [
            ("normal_man", 0),
            ("fighter", 1),
            ("fighter", 4),
            ("fighter", 36),
            ("cleric", 1),
            ("thief", 3),
            ("magic_user", 3),
            ("dwarf", 1),
            ("elf", 10),
            ("halfling", 8),
        ]
    ]
    assert got == [14, 12, 10, 2, 11, 13, 13, 8, 6, 4]
