"""Seed 000's Hit Table Matrix and CRT: transcription, resolution, exact and live odds."""

from __future__ import annotations

import re
from collections import Counter
from fractions import Fraction
from pathlib import Path

import pytest
from scipy.stats import chi2, chisquare

from engine.rng import Stream
from sim.rulesets.flattop.model import tables
from sim.rulesets.flattop.rules.resolve import resolve
from tests.flattop.scripted import Scripted

ROOT = Path(__file__).resolve().parents[2]
SEED = ROOT / "tests" / "data" / "seeds" / "000_7264e14f1d4a7e12.txt"
"""Seed 000 as shipped, kept in the repository so the tests need nothing beside it."""


def _seed_text() -> str:
    return SEED.read_text(encoding="utf-8")


def _section(start: str, end: str) -> list[str]:
    text = _seed_text()
    return text[text.index(start) : text.index(end)].splitlines()


def _cells(line: str) -> list[str]:
    return [c.strip() for c in line.split("|")]


def _tenths(text: str) -> int | None:
    if text == "--":
        return None
    value = Fraction(text) * 10
    assert value.denominator == 1
    return int(value)


def test_matrix_rows_and_every_cell_match_the_seed() -> None:
    """All 16 rows × 14 columns of the matrix equal the seed's text, in tenths, '--' as None."""
    rows = [
        _cells(line)
        for line in _section("HIT TABLE MATRIX", "COMBAT RESULTS TABLE")
        if re.match(r"^\s*(\*|\d{1,2}) \|", line)
    ]
    assert [r[0] for r in rows] == list(tables.ROWS)
    parsed = tuple(tuple(_tenths(c) for c in r[1:15]) for r in rows)
    assert all(len(r) == 16 and r[15] == "" for r in rows)
    assert parsed == tables.MATRIX


def test_matrix_column_headers_match_the_seed() -> None:
    """The two header lines of the seed's matrix join into the fourteen column labels."""
    lines = _section("HIT TABLE MATRIX", "COMBAT RESULTS TABLE")
    top = next(x for x in lines if x.startswith(" Hit |"))
    bottom = next(x for x in lines if x.startswith("Table|"))
    labels = [
        (a + b).replace(" ", "")
        for a, b in zip(top.split("|")[1:15], bottom.split("|")[1:15], strict=True)
    ]
    assert labels == list(tables.COLUMN_LABELS)
    assert labels[0] == "1-2" and labels[-1] == "46-50+"


def test_every_factor_count_falls_in_the_column_whose_range_holds_it() -> None:
    """Factors 1..80 map to the column whose range contains them; 50+ takes any larger number."""
    for factors in range(1, 81):
        lo, hi = tables.COLUMNS[tables.column_index(factors)]
        assert lo <= factors and (hi is None or factors <= hi)
    assert [tables.column_index(n) for n in (1, 2, 3, 9, 10, 15, 16, 46, 50, 51, 500)] == [
        0, 0, 1, 4, 4, 6, 7, 13, 13, 13, 13,
    ]  # fmt: skip
    with pytest.raises(ValueError, match="at least 1 factor"):
        tables.column_index(0)


def test_crt_every_cell_matches_the_seed() -> None:
    """Each of the ten CRT rows: the nine fraction columns, column 1 and the n>1 formula."""
    lines = _section("COMBAT RESULTS TABLE", "HOW TO USE")
    header = _cells(next(x for x in lines if "| Roll |" in x))
    assert header[1:16] == ["Roll", ".1", ".2", ".3", ".4", ".5", ".6", ".7", ".8", ".9", "",
                            "1", "n>1", "Roll", ""]  # fmt: skip
    rows = [_cells(x) for x in lines if re.match(r"^\|\s+\d \|", x)]
    assert [int(r[1]) for r in rows] == list(range(10)) == [int(r[14]) for r in rows]
    for f in range(1, 10):
        assert tuple(int(r[1 + f]) for r in rows) == tables.CRT_FRACTION[f]
    assert tuple(int(r[12]) for r in rows) == tables.CRT_ONE
    offsets = tuple(int(r[13][1:]) if r[13] != "n" else 0 for r in rows)
    assert offsets == tables.CRT_N_OFFSET == (2, 1, 1, 0, 0, 0, 0, -1, -1, -2)


def _doc_tables() -> list[list[list[str]]]:
    """The Markdown tables of docs/rules/flattop.md whose header starts ``| table |`` or
    ``| d10 |``, each as rows of cells (the header row first, the rule left out)."""
    page = (ROOT / "docs" / "rules" / "flattop.md").read_text(encoding="utf-8")
    found: list[list[list[str]]] = []
    for block in re.split(r"\n\s*\n", page):
        rows = [line for line in block.splitlines() if line.startswith("|")]
        if rows and rows[0].startswith(("| table |", "| d10 |")):
            cells = [[c.strip() for c in r.strip("|").split("|")] for r in rows]
            found.append([cells[0], *cells[2:]])
    return found


def test_the_docs_tables_are_the_codes_cell_by_cell() -> None:
    """docs/rules/flattop.md prints the Hit Table Matrix and the CRT, so a narrative's
    `table 4, AA factor 5 [5-6] → 0.7: .7 rolled 0 → 2` can be checked by hand: every cell is the
    code's (the matrix in tenths, `--` for None; the CRT's `n>1` as n with its offset)."""
    matrix, crt = _doc_tables()
    assert matrix[0] == ["table", *tables.COLUMN_LABELS]
    for label, row, cells in zip(tables.ROWS, tables.MATRIX, matrix[1:], strict=True):
        want = ["--" if v is None else str(Fraction(v, 10).limit_denominator()) for v in row]
        got = [c if c == "--" else str(Fraction(c)) for c in cells[1:]]
        assert (cells[0], got) == (label, want)
    assert crt[0] == ["d10", *(f".{f}" for f in range(1, 10)), "1", "n>1"]
    for roll, cells in enumerate(crt[1:]):
        offset = tables.CRT_N_OFFSET[roll]
        n = "n" if offset == 0 else f"n+{offset}" if offset > 0 else f"n−{-offset}"
        fractions = [str(tables.CRT_FRACTION[f][roll]) for f in range(1, 10)]
        assert cells == [str(roll), *fractions, str(tables.CRT_ONE[roll]), n]
    assert len(crt) == 11


def test_every_crt_column_expects_its_label_and_n_above_1_has_variance_1_2() -> None:
    """Each column's mean over the ten rolls is its label; n>1 has variance exactly 6/5."""
    for f, column in tables.CRT_FRACTION.items():
        assert Fraction(sum(column), 10) == Fraction(f, 10)
    assert Fraction(sum(tables.CRT_ONE), 10) == 1
    assert Fraction(sum(tables.CRT_N_OFFSET), 10) == 0
    assert Fraction(sum(d * d for d in tables.CRT_N_OFFSET), 10) == Fraction(6, 5)


def test_worked_example_14_factors_table_5() -> None:
    """Seed 000's example: 14 factors on table 5 → 2.3; .3 rolls 2 → 1, n>1 rolls 8 → 1; 2 hits."""
    r = resolve(Scripted(2, 8), 5, {}, 14)
    assert (r.hit_table, r.column, r.cell, r.n, r.f) == ("5", "13-15", 2.3, 2, 3)
    assert (r.fraction_roll, r.fraction_hits, r.integer_roll, r.integer_hits) == (2, 1, 8, 1)
    assert r.hits == 2
    assert [d.i for d in r.draws] == [0, 1]


def _pmf(row: int, factors: int) -> dict[int, Fraction]:
    """Exact distribution of hits, by enumerating both d10s through the live resolution."""
    pmf: Counter[int] = Counter()
    for frac in range(10):
        for whole in range(10):
            pmf[resolve(Scripted(frac, whole), row, {}, factors).hits] += 1
    return {k: Fraction(v, 100) for k, v in sorted(pmf.items())}


def test_every_cell_expects_exactly_its_value() -> None:
    """For all 16 × 14 cells, exact expected hits equal the cell ('--' expects 0 hits)."""
    checked = 0
    for row in range(16):
        for col, (lo, _hi) in enumerate(tables.COLUMNS):
            tenths = tables.MATRIX[row][col]
            pmf = _pmf(row, lo)
            mean = sum(k * p for k, p in pmf.items())
            assert mean == Fraction(tenths or 0, 10), (tables.ROWS[row], lo)
            checked += 1
    assert checked == 224


def test_cell_distribution_example_2_3() -> None:
    """2.3's exact distribution: 0..5 hits with probabilities .07, .17, .34, .26, .13, .03."""
    pmf = _pmf(5, 14)
    assert pmf == {
        0: Fraction(7, 100),
        1: Fraction(17, 100),
        2: Fraction(34, 100),
        3: Fraction(26, 100),
        4: Fraction(13, 100),
        5: Fraction(3, 100),
    }


LIVE_N = 1000


def test_live_draws_match_the_exact_distribution_of_every_cell_value() -> None:
    """1,000 live resolutions of each distinct cell value at a fixed seed pass chi-square.

    Per value: Pearson's chi-square over outcomes (those with expected count
    under 5 pooled into their neighbour), p > 0.0001; pooled over all values:
    the sum of the statistics against chi-square with the summed degrees of
    freedom, p > 0.01.
    """
    examples: dict[int, tuple[int, int]] = {}
    for row in range(16):
        for col, (lo, _hi) in enumerate(tables.COLUMNS):
            tenths = tables.MATRIX[row][col]
            if tenths is not None:
                examples.setdefault(tenths, (row, lo))
    total_stat, total_df, worst = 0.0, 0, 1.0
    for tenths, (row, factors) in sorted(examples.items()):
        stream = Stream(2026, f"test/live/{tenths}")
        seen = Counter(resolve(stream, row, {}, factors).hits for _ in range(LIVE_N))
        pmf = _pmf(row, factors)
        assert set(seen) <= set(pmf)
        observed, expected = _pooled(
            [seen[k] for k in pmf], [float(p) * LIVE_N for p in pmf.values()]
        )
        if len(observed) < 2:
            continue
        stat, p = chisquare(observed, expected)
        total_stat += float(stat)
        total_df += len(observed) - 1
        worst = min(worst, float(p))
    assert len(examples) == 105
    assert worst > 1e-4
    assert chi2.sf(total_stat, total_df) > 0.01


def _pooled(observed: list[int], expected: list[float]) -> tuple[list[int], list[float]]:
    """Merge outcome bins from the ends inward until every expected count is at least 5."""
    obs, exp = list(observed), list(expected)
    while len(exp) > 1 and min(exp) < 5:
        i = exp.index(min(exp))
        j = i + 1 if i == 0 or (i < len(exp) - 1 and exp[i + 1] < exp[i - 1]) else i - 1
        obs[j] += obs.pop(i)
        exp[j] += exp.pop(i)
    return obs, exp
