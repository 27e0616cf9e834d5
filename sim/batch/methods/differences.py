"""Intervals for a difference of two win rates: Newcombe's score intervals, paired or not.

A win rate is a proportion, so its difference between two points gets an
interval built from the two Wilson intervals (Newcombe 1998), never a t
interval (which at one discordant pair in 40 gives ±5 points):

* **paired** (CRN: replication r of both points) — Newcombe, *Improved
  confidence intervals for the difference between binomial proportions
  based on paired data*, Stat. Med. 17 (1998) 2635–2650, in two variants.
  With a = both won, b = only the point won, c = only the baseline won,
  d = neither, n = a + b + c + d: p₁ = (a + b)/n, p₂ = (a + c)/n, [l₁, u₁]
  and [l₂, u₂] their score intervals, and ::

      L = p₁ − p₂ − √((p₁ − l₁)² − 2φ(p₁ − l₁)(u₂ − p₂) + (u₂ − p₂)²)
      U = p₁ − p₂ + √((u₁ − p₁)² − 2φ(u₁ − p₁)(p₂ − l₂) + (p₂ − l₂)²)

  - ``newcombe-paired`` (method 10, **the default**): plain Wilson
    intervals and the uncorrected φ = (ad − bc)/√((a + b)(c + d)(a + c)(b + d))
    (0 when the root is 0);
  - ``newcombe-paired-cc`` (method 11): the score intervals with continuity
    correction (:func:`~sim.batch.methods.stats.wilson_cc`) and
    φ = max(ad − bc − n/2, 0)/√(…) when ad > bc, else (ad − bc)/√(…).

  The default is the variant whose simulated coverage is nearer 95 % at
  small n (issue 31's rule), over 180 true tables: n = 20–100 pairs, 5–30 %
  discordant pairs split 50:50 to 100:0, both won 10–70 % (seeded,
  tests/batch/test_newcombe.py): method 10 is 2.5 points from 95 % on
  average and the nearer at 144 of the 180; method 11 3.1 points (98 % on
  average, never below 91.8 %, where method 10 falls to 67.8 %). Choose
  method 11 (``--paired-interval newcombe-paired-cc``) where a level never
  much below 95 % matters more than width.

* **unpaired** (independent runs), ``newcombe`` — Newcombe, *Interval
  estimation for the difference between independent proportions*, Stat.
  Med. 17 (1998) 873–890, method 10 (the same with φ = 0 and each p from
  its own runs; statsmodels' ``confint_proportions_2indep(method="newcomb")``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Final, Literal

from sim.batch.methods.stats import Interval, wilson, wilson_cc

__all__ = ["PAIRED", "PAIRED_DEFAULT", "Paired", "Table2x2", "newcombe", "newcombe_paired"]

Paired = Literal["newcombe-paired", "newcombe-paired-cc"]
"""The paired interval's variants, by the method name a comparison records."""
PAIRED: Final[tuple[Paired, ...]] = ("newcombe-paired", "newcombe-paired-cc")
PAIRED_DEFAULT: Final[Paired] = "newcombe-paired"
"""Method 10: its coverage at n = 40 is nearer 95 % on average (see the module doc)."""


@dataclass(frozen=True)
class Table2x2:
    """Paired binary outcomes: a both, b the point only, c the baseline only, d neither."""

    a: int
    b: int
    c: int
    d: int

    @property
    def n(self) -> int:
        return self.a + self.b + self.c + self.d


def _combine(
    p1: float, p2: float, one: Interval, two: Interval, phi: float
) -> tuple[float, float, float]:
    dl1, du1, dl2, du2 = p1 - one.low, one.high - p1, p2 - two.low, two.high - p2
    delta = math.sqrt(max(0.0, dl1 * dl1 - 2 * phi * dl1 * du2 + du2 * du2))
    eps = math.sqrt(max(0.0, du1 * du1 - 2 * phi * du1 * dl2 + dl2 * dl2))
    diff = p1 - p2
    return diff, max(-1.0, diff - delta), min(1.0, diff + eps)


def newcombe_paired(t: Table2x2, variant: Paired = PAIRED_DEFAULT) -> tuple[float, float, float]:
    """(p₁ − p₂, low, high): Newcombe's paired score interval, method 11 or 10.

    Raises:
        ValueError: no pairs, or an unknown variant.
    """
    n = t.n
    if n == 0:
        raise ValueError("newcombe_paired: no pairs")
    if variant not in PAIRED:
        raise ValueError(f"newcombe_paired: no variant {variant!r} (variants: {', '.join(PAIRED)})")
    k1, k2 = t.a + t.b, t.a + t.c
    denom = (t.a + t.b) * (t.c + t.d) * (t.a + t.c) * (t.b + t.d)
    cross: float = t.a * t.d - t.b * t.c
    if variant == "newcombe-paired-cc":
        if cross > 0:
            cross = max(cross - n / 2, 0)
        score = wilson_cc
    else:
        score = wilson
    phi = 0.0 if denom == 0 else cross / math.sqrt(denom)
    return _combine(k1 / n, k2 / n, score(k1, n), score(k2, n), phi)


def newcombe(k1: int, n1: int, k2: int, n2: int) -> tuple[float, float, float]:
    """(k₁/n₁ − k₂/n₂, low, high): Newcombe's hybrid score interval for independent samples.

    Raises:
        ValueError: a sample is empty.
    """
    if n1 == 0 or n2 == 0:
        raise ValueError("newcombe: an empty sample")
    return _combine(k1 / n1, k2 / n2, wilson(k1, n1), wilson(k2, n2), 0.0)
