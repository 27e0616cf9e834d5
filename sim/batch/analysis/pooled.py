"""Win rates pooled over the other factors by a factor's value; with CRN, clustered by replication.

Pooling the runs of every point where a factor takes a value treats them as
one sample. Under common random numbers replication r of every point is
fought with the same seed, so its runs are correlated (on the stone wall
0.5–0.8) and a binomial interval over the pooled runs is too narrow. With
CRN the interval is ``<interval>-clustered``: the pooled mean p̂ = K/N with the
standard error of a mean clustered by replication (CR1, what statsmodels'
``OLS(y, 1).fit(cov_type="cluster", cov_kwds={"groups": replication})``
gives) ::

    se² = G/(G − 1) · Σ_g (k_g − n_g p̂)² / N²

(g a replication, n_g its runs at that value, k_g its wins, G the
replications), and the study's proportion interval on the runs' effective
number with Student's t for G − 1 degrees of freedom (Korn & Graubard 1998:
:func:`sim.batch.methods.stats.clustered`; p̂ ± z·se, the Wald interval used
before, covered 77–84 % at small win rates: docs/batch.md, *Coverage*); when the side never or
always won (se = 0) each replication counts as one trial
(``<interval>-by-replication``), and when se is 0 otherwise (every
replication won the same share of its runs) the pooled counts get the
study's proportion interval, as without CRN. Without CRN, or when every value has one
point (nothing pooled), the runs are independent and the pooled counts get
the study's proportion interval (``wilson`` by default).
With ``--until-ci`` only confirmatory runs count.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from sim.batch.methods.stats import clustered, proportion
from sim.batch.planning.stopping import summarised
from sim.batch.storage.store import Store, quote

__all__ = ["Pooled", "cluster_mean", "pooled"]


@dataclass(frozen=True)
class Pooled:
    """One side's win rate at one value of a factor, pooled over the other factors."""

    value: Any
    side: str
    wins: int
    runs: int
    clusters: int
    p: float
    low: float
    high: float
    se: float | None
    method: str


def cluster_mean(groups: list[tuple[int, int]]) -> tuple[float, float]:
    """(mean, CR1 standard error) of 0/1 outcomes given (n_g, k_g) per cluster.

    Raises:
        ValueError: fewer than two clusters, or no runs.
    """
    n = sum(g[0] for g in groups)
    if len(groups) < 2 or n == 0:
        raise ValueError("a clustered standard error needs two clusters or more")
    p = sum(g[1] for g in groups) / n
    g = len(groups)
    ss = sum((k - m * p) ** 2 for m, k in groups)
    return p, math.sqrt(g / (g - 1) * ss) / n


def _rows(store: Store, path: str) -> list[tuple[Any, int, int, str, int]]:
    where = summarised(store.meta()["plan"])
    return [
        (v, int(first), int(rep), str(w), int(n))
        for v, first, rep, w, n in store.con.execute(
            f"SELECT p.{quote(path)} AS v, min(p.point), r.replication, coalesce(r.winner, ''), "
            "count(*) FROM runs r JOIN points p USING (point) "
            f"WHERE r.status = 'done' AND {where} GROUP BY v, r.replication, r.winner"
        ).fetchall()
    ]


def pooled(store: Store, path: str, sides: list[str], crn: bool, method: str) -> list[Pooled]:
    """Each side's pooled win rate at each value of factor ``path``.

    Values come in the order they first appear in the design (a values
    list's own order), numbers in ascending order.
    """
    by_value: dict[Any, dict[int, dict[str, int]]] = {}
    first: dict[Any, int] = {}
    for v, f, rep, winner, n in _rows(store, path):
        by_value.setdefault(v, {}).setdefault(rep, {})[winner] = n
        first[v] = min(f, first.get(v, f))
    numeric = all(isinstance(v, int | float) and not isinstance(v, bool) for v in by_value)
    order = sorted(by_value, key=lambda v: v if numeric else first[v])
    out = []
    for v in order:
        reps = by_value[v]
        total = sum(sum(c.values()) for c in reps.values())
        for side in sides:
            groups = [(sum(c.values()), c.get(side, 0)) for _, c in sorted(reps.items())]
            wins = sum(k for _, k in groups)
            out.append(_one(v, side, wins, total, groups, crn, method))
    return out


def _one(  # one pooled estimate's inputs
    v: Any, side: str, wins: int, total: int, groups: list[tuple[int, int]], crn: bool, method: str
) -> Pooled:
    if crn and len(groups) > 1 and any(m > 1 for m, _ in groups):
        p, se = cluster_mean(groups)
        if se > 0:
            iv = clustered(p, se, total, len(groups), method)
            name = f"{method}-clustered"
            return Pooled(v, side, wins, total, len(groups), p, iv.low, iv.high, se, name)
        if wins in (0, total):  # never (or always) won: each replication counts as one trial
            iv = proportion(len(groups) if wins else 0, len(groups), method)
            name = f"{method}-by-replication"
            return Pooled(v, side, wins, total, len(groups), p, iv.low, iv.high, 0.0, name)
        # every replication won the same share (its runs differ, the replications do not):
        # the pooled counts' own interval, which this within-replication balance makes wider
    iv = proportion(wins, total, method)
    return Pooled(v, side, wins, total, len(groups), iv.p, iv.low, iv.high, None, method)
