"""Intervals for a difference of two win rates: Newcombe's score intervals, paired or not.

A win rate is a proportion, so its difference between two points gets an
interval built from the two Wilson intervals (Newcombe 1998), never a t
interval (which at one discordant pair in 40 gives ±5 points):

* **paired** (CRN: replication r of both points), ``newcombe-paired`` —
  Newcombe, *Improved confidence intervals for the difference between
  binomial proportions based on paired data*, Stat. Med. 17 (1998)
  2635–2650, method 10. With a = both won, b = only the point won, c = only
  the baseline won, d = neither, n = a + b + c + d: p₁ = (a + b)/n,
  p₂ = (a + c)/n, [l₁, u₁] and [l₂, u₂] their Wilson intervals,
  φ = (ad − bc)/√((a + b)(c + d)(a + c)(b + d)) (0 when that is 0), and ::

      L = p₁ − p₂ − √((p₁ − l₁)² − 2φ(p₁ − l₁)(u₂ − p₂) + (u₂ − p₂)²)
      U = p₁ − p₂ + √((u₁ − p₁)² − 2φ(u₁ − p₁)(p₂ − l₂) + (p₂ − l₂)²)

* **unpaired** (independent runs), ``newcombe`` — Newcombe, *Interval
  estimation for the difference between independent proportions*, Stat.
  Med. 17 (1998) 873–890, method 10 (the same with φ = 0 and each p from
  its own runs; statsmodels' ``confint_proportions_2indep(method="newcomb")``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from sim.batch.methods.stats import wilson

__all__ = ["Table2x2", "newcombe", "newcombe_paired"]


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
    p1: float, p2: float, k1: int, n1: int, k2: int, n2: int, phi: float
) -> tuple[float, float, float]:
    one, two = wilson(k1, n1), wilson(k2, n2)
    dl1, du1, dl2, du2 = p1 - one.low, one.high - p1, p2 - two.low, two.high - p2
    delta = math.sqrt(max(0.0, dl1 * dl1 - 2 * phi * dl1 * du2 + du2 * du2))
    eps = math.sqrt(max(0.0, du1 * du1 - 2 * phi * du1 * dl2 + dl2 * dl2))
    diff = p1 - p2
    return diff, max(-1.0, diff - delta), min(1.0, diff + eps)


def newcombe_paired(t: Table2x2) -> tuple[float, float, float]:
    """(p₁ − p₂, low, high): Newcombe's paired score interval (method 10).

    Raises:
        ValueError: no pairs.
    """
    n = t.n
    if n == 0:
        raise ValueError("newcombe_paired: no pairs")
    k1, k2 = t.a + t.b, t.a + t.c
    denom = (t.a + t.b) * (t.c + t.d) * (t.a + t.c) * (t.b + t.d)
    phi = 0.0 if denom == 0 else (t.a * t.d - t.b * t.c) / math.sqrt(denom)
    return _combine(k1 / n, k2 / n, k1, n, k2, n, phi)


def newcombe(k1: int, n1: int, k2: int, n2: int) -> tuple[float, float, float]:
    """(k₁/n₁ − k₂/n₂, low, high): Newcombe's hybrid score interval for independent samples.

    Raises:
        ValueError: a sample is empty.
    """
    if n1 == 0 or n2 == 0:
        raise ValueError("newcombe: an empty sample")
    return _combine(k1 / n1, k2 / n2, k1, n1, k2, n2, 0.0)
