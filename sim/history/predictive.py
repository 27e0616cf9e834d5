"""Where the record falls among a case's runs: a two-sided Monte Carlo predictive p.

A verdict asks whether the model's *mean* lies within a range around the
record (docs/history.md, *Verdicts*). This asks the other question a
historian asks of one battle: could the model have produced what happened?
For each measure the runs' values are the model's predictive distribution of
that quantity, and the record's value ``h`` is compared with them:

* ``at_or_below`` runs have a value ≤ ``h``, ``at_or_above`` a value ≥ ``h``
  (a tie counts on both sides);
* each tail's Monte Carlo p is ``(k + 1) / (n + 1)`` (Davison & Hinkley 1997,
  §4.2.1; North, Curtis & Sham 2002), ``n`` the runs with a value;
* the two-sided p is ``min(1, 2 · min(p_below, p_above))``.

If the record were one more draw of the model's (the runs and the record
exchangeable, their number fixed), ``P(p ≤ α) ≤ α`` for every ``α``, whatever
the distribution and its ties: a tail's ``(k + 1)/(n + 1)`` is a valid p (ties
are counted on the record's side, which can only raise it), and doubling the
smaller of two valid ps is the Bonferroni bound. So a model that generated the
record puts each measure's record **beyond the runs' spread** (``p < 0.1``)
with probability at most 0.1, less where values tie (a probability measure's
0s and 1s): with a continuous quantity and 200 runs 0.0995 (20 of the 201
ranks the record may take), a Poisson count of mean 2.4 0.0327, an event of
probability 0.05 0.0227 (``tests/history/test_predictive.py`` checks these
through :func:`predictive`). A case fought again while a verdict is
inconclusive has its number of runs chosen by its runs, so there the bound
holds only nearly. It is a check of the model against one realisation, not a
verdict: it says nothing of the mean, and a measure can pass its range with
the record beyond the spread (a one-sided range that asks less than the record),
or fail it with the record inside (a wide spread around a mean off the range).

A ratio measure (``loss_ratio``, ``loss_from``) is compared run by run: each
run's ``X / Y``; a run with ``Y = 0`` counts as ``+∞`` when ``X > 0`` (``−∞``
when ``X < 0``) and has no value when both are 0. A value that is not a number
has none either, so ``runs`` counts the runs with a value, which may be fewer
than the measure's.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from sim.history.measures import Value

__all__ = ["ALPHA", "METHOD", "SPREAD", "Predictive", "predictive", "spread"]

ALPHA = 0.1
"""A record with a two-sided p below this lies beyond the runs' spread."""

METHOD = "two-sided Monte Carlo p, (k + 1)/(n + 1) a tail, ties on both sides"
"""The method, as the JSON names it."""

SPREAD = (0.05, 0.95)
"""The runs' spread a figure draws: their 5th and 95th percentiles, the middle 90 %."""


@dataclass(frozen=True)
class Predictive:
    """The record's place among ``runs`` runs' values (module docstring)."""

    runs: int
    at_or_below: int
    at_or_above: int

    @property
    def p(self) -> float:
        """``min(1, 2 · min((at_or_below + 1), (at_or_above + 1)) / (runs + 1))``."""
        tail = min(self.at_or_below, self.at_or_above) + 1
        return min(1.0, 2 * tail / (self.runs + 1))

    @property
    def beyond(self) -> bool:
        """True when ``p < ALPHA``: the record lies beyond the runs' spread."""
        return self.p < ALPHA


def _numbers(statistic: str, values: Sequence[Value]) -> list[float]:
    if statistic != "ratio":
        numbers = [float(v) for v in values if not isinstance(v, tuple)]
        return [v for v in numbers if not math.isnan(v)]
    out = []
    for v in values:
        if not isinstance(v, tuple) or math.isnan(v[0]) or math.isnan(v[1]):
            continue
        x, y = v
        if y:
            out.append(x / y)
        elif x:
            out.append(math.copysign(math.inf, x))
    return out


def predictive(statistic: str, values: Sequence[Value], historical: float) -> Predictive | None:
    """The record ``historical`` among the runs' ``values`` of a measure of ``statistic``
    (probability, mean or ratio); None when no run has a value."""
    numbers = _numbers(statistic, values)
    if not numbers:
        return None
    below = sum(1 for v in numbers if v <= historical)
    above = sum(1 for v in numbers if v >= historical)
    return Predictive(len(numbers), below, above)


def _quantile(ordered: list[float], q: float) -> float:
    """The q-quantile of sorted values, interpolated linearly between the two nearest
    (numpy's default, ``statistics.quantiles(method="inclusive")``'s); an infinite
    neighbour gives itself."""
    at = q * (len(ordered) - 1)
    lo = math.floor(at)
    hi = min(lo + 1, len(ordered) - 1)
    a, b = ordered[lo], ordered[hi]
    if a == b or math.isinf(a) or math.isinf(b):
        return a if at == lo or math.isinf(a) else b
    return a + (b - a) * (at - lo)


def spread(statistic: str, values: Sequence[Value]) -> tuple[float, float] | None:
    """The runs' middle 90 %: the 5th and 95th percentiles of their values (a ratio's run
    by run, as :func:`predictive` reads them); None for a probability (its runs are 0 or
    1) or when no run has a value."""
    if statistic == "probability":
        return None
    numbers = sorted(_numbers(statistic, values))
    if not numbers:
        return None
    return _quantile(numbers, SPREAD[0]), _quantile(numbers, SPREAD[1])
