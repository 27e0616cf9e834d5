"""The revised Flattop Hit Table Matrix and Combat Results Table (seed 000), as data.

Transcribed from ``shared/seeds/000_7264e14f1d4a7e12.txt``; a test compares
every cell with the seed file's text.  Cells are kept in **tenths** (2.3 is
``23``) so that the arithmetic on them is exact; ``None`` is the seed's ``--``
(no effect).  Rows are indexed 0..15, row 0 being the seed's ``*`` row.

Symbols are the seed's: a cell's integer part *n* and fraction *f* select
the CRT columns; one d10 numbered 0..9 is rolled on each (seed, "HOW TO USE").
"""

from __future__ import annotations

from typing import Final

__all__ = [
    "COLUMNS",
    "COLUMN_LABELS",
    "CRT_FRACTION",
    "CRT_N_OFFSET",
    "CRT_ONE",
    "MATRIX",
    "ROWS",
    "cell",
    "column_index",
    "crt_hits",
    "split",
]

ROWS: Final = ("*", *(str(k) for k in range(1, 16)))
"""Row labels: the hit tables ``*``, 1..15 (row index 0 is ``*``)."""

COLUMNS: Final[tuple[tuple[int, int | None], ...]] = (
    (1, 2),
    (3, 4),
    (5, 6),
    (7, 8),
    (9, 10),
    (11, 12),
    (13, 15),
    (16, 20),
    (21, 25),
    (26, 30),
    (31, 35),
    (36, 40),
    (41, 45),
    (46, None),
)
"""Attacking-factor ranges of the fourteen columns; the last is 46-50+ (any larger number)."""

COLUMN_LABELS: Final = tuple(f"{lo}-{hi}" if hi is not None else f"{lo}-50+" for lo, hi in COLUMNS)

NA: Final = None
"""The seed's ``--``: no effect."""

# fmt: off
MATRIX: Final[tuple[tuple[int | None, ...], ...]] = (
    # 1-2 3-4 5-6 7-8 9-10 11-12 13-15 16-20 21-25 26-30 31-35 36-40 41-45 46-50+
    (NA, NA,  1,  1,  1,   2,    2,    3,    4,    4,    5,    6,    7,    8),    # *
    (NA, 1,   2,  2,  3,   4,    5,    6,    8,    9,   11,   13,   14,   16),    # 1
    (1,  2,   4,  5,  6,   8,    9,   12,   15,   18,   22,   25,   28,   32),    # 2
    (1,  3,   5,  7,  9,  11,   14,   18,   23,   28,   33,   38,   43,   48),    # 3
    (2,  5,   7, 10, 13,  15,   18,   24,   30,   37,   44,   50,   57,   63),    # 4
    (2,  6,   9, 12, 16,  19,   23,   30,   38,   46,   54,   63,   71,   79),    # 5
    (3,  7,  11, 15, 19,  23,   28,   36,   46,   55,   65,   75,   85,   95),    # 6
    (3,  8,  13, 17, 22,  27,   32,   42,   53,   65,   76,   88,   99,  111),    # 7
    (4,  9,  15, 20, 25,  30,   37,   48,   61,   74,   87,  100,  114,  127),    # 8
    (4, 10,  16, 22, 28,  34,   42,   53,   68,   83,   98,  113,  128,  143),    # 9
    (5, 12,  18, 25, 31,  38,   46,   59,   76,   92,  109,  125,  142,  158),    # 10
    (5, 13,  20, 27, 34,  42,   51,   65,   83,  102,  120,  138,  156,  174),    # 11
    (6, 14,  22, 30, 38,  46,   55,   71,   91,  111,  131,  150,  170,  190),    # 12
    (6, 15,  24, 32, 41,  49,   60,   77,   99,  120,  142,  163,  184,  206),    # 13
    (7, 16,  25, 35, 44,  53,   65,   83,  106,  129,  152,  176,  199,  222),    # 14
    (7, 17,  27, 37, 47,  57,   69,   89,  114,  139,  163,  188,  213,  238),    # 15
)
"""Hit Table Matrix: expected hits in tenths, ``MATRIX[row][column]``."""

CRT_FRACTION: Final[dict[int, tuple[int, ...]]] = {
    # f: hits for d10 rolls 0 1 2 3 4 5 6 7 8 9
    1: (1, 0, 0, 0, 0, 0, 0, 0, 0, 0),
    2: (1, 1, 0, 0, 0, 0, 0, 0, 0, 0),
    3: (1, 1, 1, 0, 0, 0, 0, 0, 0, 0),
    4: (2, 1, 1, 0, 0, 0, 0, 0, 0, 0),
    5: (2, 1, 1, 1, 0, 0, 0, 0, 0, 0),
    6: (2, 1, 1, 1, 1, 0, 0, 0, 0, 0),
    7: (2, 2, 1, 1, 1, 0, 0, 0, 0, 0),
    8: (2, 2, 1, 1, 1, 1, 0, 0, 0, 0),
    9: (2, 2, 2, 1, 1, 1, 0, 0, 0, 0),
}
"""CRT fraction columns ``.1`` .. ``.9``, keyed by f in tenths."""

CRT_ONE: Final = (2, 2, 2, 1, 1, 1, 1, 0, 0, 0)
"""CRT column ``1`` (n = 1), by d10 roll 0..9."""

CRT_N_OFFSET: Final = (2, 1, 1, 0, 0, 0, 0, -1, -1, -2)
"""CRT column ``n>1`` as offsets to n: n+2, n+1, n+1, n, n, n, n, n-1, n-1, n-2."""
# fmt: on


def column_index(factors: int) -> int:
    """Index of the matrix column for ``factors`` attacking factors (1 or more).

    Raises:
        ValueError: ``factors`` is below 1 (nothing attacks).
    """
    if factors < 1:
        raise ValueError(f"an attack needs at least 1 factor, not {factors}")
    for i, (_lo, hi) in enumerate(COLUMNS):
        if hi is None or factors <= hi:
            return i
    raise AssertionError("unreachable: the last column is open-ended")


def cell(row: int, factors: int) -> int | None:
    """The matrix cell in tenths for hit-table row ``row`` (0 = ``*``), or None for ``--``."""
    return MATRIX[row][column_index(factors)]


def split(tenths: int) -> tuple[int, int]:
    """Split a cell into its integer part n and fraction f (tenths): 23 → (2, 3)."""
    return divmod(tenths, 10)


def crt_hits(
    n: int, f: int, fraction_roll: int | None, integer_roll: int | None
) -> tuple[int, int]:
    """Hits on the CRT: (from the fraction column, from the ``1``/``n>1`` column).

    The fraction die is read on column ``.f`` when f > 0; the integer die on
    column ``1`` when n = 1 and ``n>1`` when n ≥ 2 (seed, "HOW TO USE").

    >>> crt_hits(2, 3, 2, 8)  # the seed's worked example: 2.3, rolls 2 and 8
    (1, 1)
    """
    frac = CRT_FRACTION[f][_need(fraction_roll)] if f else 0
    if n == 0:
        return frac, 0
    roll = _need(integer_roll)
    return frac, (CRT_ONE[roll] if n == 1 else n + CRT_N_OFFSET[roll])


def _need(roll: int | None) -> int:
    if roll is None or not 0 <= roll <= 9:
        raise ValueError(f"a d10 roll 0..9 is needed, not {roll}")
    return roll
