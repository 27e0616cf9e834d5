"""Comparisons of every design point with a baseline point: paired with CRN, else unpaired.

For each point p other than the baseline b, each side s and each measure —
``win_rate`` (1 when s won the run, else 0), ``losses.<kind>`` (s's
losses of that kind), ``draws`` (the random draws s's units' events
recorded) and, for no side, ``turns`` — the difference ``mean(p) − mean(b)``
with a 95 % interval whose ``method`` is named in each comparison:

* a win rate (a proportion): ``newcombe-paired`` with CRN (over the
  replications done at both points, Newcombe's paired score interval) or
  ``newcombe`` without (independent samples), :mod:`sim.batch.methods.differences`;
* a loss, **paired** (``t``, the study ran with ``--crn``): over the
  replications r done at both points, ``d_r = x(p, r) − x(b, r)``; the
  interval is ``d̄ ± t(0.975, n − 1) · s_d / √n`` (Student's t);
* a loss, **unpaired** (``welch``): ``x̄_p − x̄_b ± t(0.975, ν) · √(s_p²/n_p + s_b²/n_b)``
  with Welch's ν;
* a loss that never varied (every d_r the same, or both samples constant):
  ``no-variation``, no interval (``ci_low``/``ci_high`` null): the text says
  "no variation observed" instead of a zero-width interval, or "the same in
  every pair" where the paired runs varied but every d_r is the same.

The variance reduction of pairing (reported with CRN) compares the paired
standard deviation ``s_d`` with ``√(s_p² + s_b²)``, the standard deviation a
difference of independent runs would have; their ratio ``s_d² / (s_p² + s_b²)``
is computed exactly from the sums and rounded once, so a ratio of exactly 1
is 1.0 and a ratio above 1 is really above 1. Sums are exact integers from
DuckDB, so the figures do not depend on the order runs were stored in. With
``--until-ci`` only the confirmatory runs count (:mod:`sim.batch.planning.stopping`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from sim.batch.methods.differences import (
    PAIRED_DEFAULT,
    Paired,
    Table2x2,
    newcombe,
    newcombe_paired,
)
from sim.batch.planning.stopping import summarised
from sim.batch.storage.store import Store, quote

__all__ = [
    "Moments",
    "compare",
    "measures",
    "paired_interval",
    "per_point",
    "summarised_runs",
    "welch_interval",
]

CONFIDENCE = 0.95


@dataclass(frozen=True)
class Moments:
    """Count, sum and sum of squares of a sample of integers (exact)."""

    n: int
    s: int
    s2: int

    @property
    def mean(self) -> float:
        return self.s / self.n

    @property
    def var(self) -> float:
        """Sample variance (n − 1 in the denominator); 0 for fewer than two values."""
        if self.n < 2:
            return 0.0
        return (self.n * self.s2 - self.s * self.s) / (self.n * (self.n - 1))

    @property
    def exact_var(self) -> Fraction:
        """:attr:`var` as an exact fraction of the integer sums."""
        if self.n < 2:
            return Fraction(0)
        return Fraction(self.n * self.s2 - self.s * self.s, self.n * (self.n - 1))


def _t(df: float) -> float:
    """The 97.5 % quantile of Student's t with ``df`` degrees of freedom.

    ``scipy.special.stdtrit`` is the function ``scipy.stats.t.ppf`` calls, the same
    value bit for bit, without importing ``scipy.stats`` (0.4 s of CPU a process).
    """
    from scipy.special import stdtrit  # type: ignore[import-untyped]  # noqa: PLC0415  # slow import

    return float(stdtrit(df, 0.5 + CONFIDENCE / 2))


Interval = tuple[float, float | None, float | None]
"""(difference, low, high); low and high are None when nothing varied."""


def paired_interval(d: Moments) -> Interval | None:
    """(mean, low, high) of paired differences, or None with fewer than two pairs."""
    if d.n < 2:
        return None
    if d.var == 0:
        return d.mean, None, None
    half = _t(d.n - 1) * math.sqrt(d.var / d.n)
    return d.mean, d.mean - half, d.mean + half


def welch_interval(a: Moments, b: Moments) -> Interval | None:
    """(mean a − mean b, low, high) by Welch's t, or None with fewer than two runs each."""
    if a.n < 2 or b.n < 2:
        return None
    va, vb = a.var / a.n, b.var / b.n
    diff = a.mean - b.mean
    se2 = va + vb
    if se2 == 0:
        return diff, None, None
    df = se2 * se2 / (va * va / (a.n - 1) + vb * vb / (b.n - 1))
    half = _t(df) * math.sqrt(se2)
    return diff, diff - half, diff + half


def measures(store: Store) -> list[tuple[str | None, str, str]]:
    """(side, measure, SQL expression over ``runs``) of every compared measure.

    Each side's ``win_rate``, its ``losses.<kind>`` and its ``draws`` (the
    random draws its units' events recorded; none in a study made before
    them), then ``turns`` (the battle's length, summed over a campaign's
    battles), which is no side's (side None).
    """
    sides = [s[0] for s in store.meta()["sides"]]
    won = "CAST(coalesce(winner, '') = '{}' AS INTEGER)"
    out: list[tuple[str | None, str, str]] = [
        (sid, "win_rate", won.format(_escape(sid))) for sid in sides
    ]
    out += [(sid, f"losses.{kind}", quote(col)) for sid, kind, col in store.losses]
    out += [(sid, "draws", quote(col)) for sid, col in store.draws]
    out.append((None, "turns", "turns"))
    return out


def _escape(text: str) -> str:
    return text.replace("'", "''")


def summarised_runs(store: Store) -> str:
    """A SQL condition on ``runs``: the runs summarised, done and (with ``--until-ci``) not
    the pilot's."""
    return f"status = 'done' AND {summarised(store.meta()['plan'])}"


_done = summarised_runs


def per_point(store: Store, expr: str) -> dict[int, Moments]:
    rows = store.con.execute(
        f"SELECT point, count(x), coalesce(sum(x), 0), coalesce(sum(x * x), 0) "
        f"FROM (SELECT point, ({expr})::HUGEINT AS x FROM runs WHERE {_done(store)}) "
        "WHERE x IS NOT NULL GROUP BY point ORDER BY point"
    ).fetchall()
    return {int(p): Moments(int(n), int(s), int(s2)) for p, n, s, s2 in rows}


def _paired(store: Store, expr: str, baseline: int) -> dict[int, tuple[Moments, Table2x2]]:
    """Per point, over replications done at both: moments of x(p, r) − x(baseline, r), and
    the 2×2 table of (x(p, r), x(baseline, r)) counted as if x were 0/1 (for win rates)."""
    rows = store.con.execute(
        "WITH x AS (SELECT point, replication, "
        f"({expr})::HUGEINT AS v FROM runs WHERE {_done(store)}) "
        "SELECT p.point, count(*), sum(p.v - b.v), sum((p.v - b.v) * (p.v - b.v)), "
        "count(*) FILTER (p.v = 1 AND b.v = 1), count(*) FILTER (p.v = 1 AND b.v = 0), "
        "count(*) FILTER (p.v = 0 AND b.v = 1), count(*) FILTER (p.v = 0 AND b.v = 0) "
        "FROM x p JOIN x b ON p.replication = b.replication AND b.point = ? "
        "WHERE p.point <> ? AND p.v IS NOT NULL AND b.v IS NOT NULL "
        "GROUP BY p.point ORDER BY p.point",
        [baseline, baseline],
    ).fetchall()
    return {
        int(p): (Moments(int(n), int(s), int(s2)), Table2x2(int(a), int(b), int(c), int(d)))
        for p, n, s, s2, a, b, c, d in rows
    }


def _row(  # the fields of one comparison
    point: int, baseline: int, side: str | None, measure: str, iv: Interval | None, method: str
) -> dict[str, Any]:
    diff, low, high = iv if iv is not None else (None, None, None)
    if iv is not None and low is None:
        method = "no-variation"
    return {"point": point, "baseline": baseline, "side": side, "measure": measure,
            "difference": diff, "ci_low": low, "ci_high": high, "method": method}  # fmt: skip


def _interval(
    binary: bool,
    crn: bool,
    a: Moments,
    b: Moments,
    pair: tuple[Moments, Table2x2] | None,
    paired: Paired = PAIRED_DEFAULT,
) -> tuple[Interval | None, str]:
    """The interval of one comparison and its method's name."""
    if binary and crn:
        if pair is None or pair[1].n == 0:
            return None, paired
        return newcombe_paired(pair[1], paired), paired
    if binary:
        if a.n == 0 or b.n == 0:
            return None, "newcombe"
        return newcombe(a.s, a.n, b.s, b.n), "newcombe"
    if crn:
        return paired_interval(pair[0] if pair else Moments(0, 0, 0)), "t"
    return welch_interval(a, b), "welch"


def compare(
    store: Store, baseline: int, paired: Paired = PAIRED_DEFAULT
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The comparisons with ``baseline`` and (with CRN) the variance reduction of pairing.

    ``paired`` names the win rates' paired interval (:data:`~sim.batch.methods.differences.PAIRED`).

    Returns:
        ``comparisons``: one object per (point, side, measure) with exactly
        point, baseline, side, measure, difference, ci_low, ci_high, method, paired;
        ``variance``: with CRN, per (point, side, measure) the paired and the
        unpaired standard deviation of a difference and their variance ratio.
    """
    crn = bool(store.meta()["crn"])
    npoints = len(store.points())
    comparisons: list[dict[str, Any]] = []
    variance: list[dict[str, Any]] = []
    for side, measure, expr in measures(store):
        single = per_point(store, expr)
        pairs = _paired(store, expr, baseline) if crn else {}
        b = single.get(baseline, Moments(0, 0, 0))
        for p in range(npoints):
            if p == baseline:
                continue
            a = single.get(p, Moments(0, 0, 0))
            pair = pairs.get(p)
            if crn:
                d = pair[0] if pair else Moments(0, 0, 0)
                variance.append(_variance(p, baseline, side, measure, d, a, b))
            iv, method = _interval(measure.endswith("_rate"), crn, a, b, pair, paired)
            row = _row(p, baseline, side, measure, iv, method)
            comparisons.append({**row, "paired": crn})
    # by point, then in measure order (sorting is stable)
    return sorted(comparisons, key=lambda c: c["point"]), sorted(variance, key=lambda v: v["point"])


def _variance(
    point: int, baseline: int, side: str | None, measure: str, d: Moments, a: Moments, b: Moments
) -> dict[str, Any]:
    paired_sd = math.sqrt(d.var) if d.n > 1 else None
    unpaired = a.var + b.var if a.n > 1 and b.n > 1 else None
    ratio = None
    if paired_sd is not None and unpaired:
        # exact, then rounded once: a ratio of exactly 1 (a constant baseline) reads 1.0, not
        # 1.0000000000000002 — "above 1" (pairing cost precision) is then never float noise
        ratio = float(d.exact_var / (a.exact_var + b.exact_var))
    return {
        "point": point,
        "baseline": baseline,
        "side": side,
        "measure": measure,
        "pairs": d.n,
        "paired_sd": paired_sd,
        "unpaired_sd": math.sqrt(unpaired) if unpaired is not None else None,
        "variance_ratio": ratio,
    }
