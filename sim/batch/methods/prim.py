"""PRIM, the patient rule induction method (Friedman and Fisher 1999), on a study's points.

Scenario discovery asks in which region of the factors an outcome holds.
PRIM answers with a *box* — a range of each numeric factor, a set of levels
of each other one — found as ema_workbench 2.5's ``Prim`` finds it. Starting
from every design point, each step *peels* one slice of the box: the runs
beyond the ``alpha`` quantile of its runs at the low or the high end of one
numeric factor (ema's ``get_quantile``, a value between two of the factor's
values), or one level of a categorical factor; the slice taken has the
largest gain in density per run removed (ema's default "lenient1"
objective; ties: fewer restricted factors, then the earlier candidate —
numbers before words, a factor's high end before its low). Peeling stops
when the best peel gains nothing or would leave less than ``min_mass`` of
all the runs. The last box is then *pasted*: a restricted number's bound
moved out to the ``paste_alpha`` quantile of the runs just beyond it, or a
level added back, by the same objective, while the density rises. Each box
on the way is one point of the *trajectory*, a trade-off:

* **coverage** — of all the runs where the outcome holds, the share inside
  the box;
* **density** — of the runs inside the box, the share where it holds;
* **mass** — of all the runs, the share inside the box.

The box reported is the densest one on the trajectory whose coverage is at
least ``min_coverage`` (ties: the larger coverage, then the earlier box),
its bounds moved in to the nearest values the study has (it admits the same
runs). Each restriction of a box gets a *quasi-p-value*
(:class:`Significance`), the one-sided binomial test ema_workbench's PRIM
reports. Further boxes cover what the first left: the runs in the boxes
found so far are set aside and PRIM runs again on the rest, while the new
box is denser than what remains.

Against ema_workbench 2.5.3's ``Prim`` on the same runs (each run a row, its
numbers as floats, the same ``peel_alpha``, ``paste_alpha``, ``mass_min``, the
box chosen by the same rule from its trajectory), the trajectories hold the
same runs step by step, the boxes restrict the same factors on the same
sides, each bound lies within one step of the factor's values (ema's bounds
are quantiles between two values: ``cover ≥ -35`` where this says
``cover ≥ -30``, the next value below being -40), and the quasi-p-values are
equal (tests/batch/test_prim_ema.py).

The data are the design points, each with its number of done runs and of
runs where the outcome holds (every run of a point has the point's factor
values), so the work grows with the points, not the runs. Nothing is random:
ties go to the earlier factor, and within it a peel takes the high end before
the low and a paste the low before the high, so the boxes are the same on
every machine.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Box", "Data", "Limit", "Significance", "Step", "find_boxes"]

ALPHA = 0.05
"""The share of a box's runs a peel removes (at least one value)."""
MIN_MASS = 0.05
"""Peeling stops before a box holds less than this share of all runs."""
MIN_COVERAGE = 0.5
"""The reported box is the densest with at least this coverage."""
PASTE_ALPHA = 0.05
"""The share of the runs just outside a bound a paste brings back in."""


@dataclass(frozen=True)
class Data:
    """The design points: each factor's values, runs done and runs where the outcome holds."""

    factors: list[str]
    values: list[list[Any]]
    """One list per point: its factor values, in factor order."""
    runs: list[int]
    holds: list[int]

    def numeric(self, j: int) -> bool:
        """Whether factor ``j`` is a number at every point (booleans are levels)."""
        return all(
            isinstance(v[j], int | float) and not isinstance(v[j], bool) for v in self.values
        )


@dataclass(frozen=True)
class Limit:
    """A factor's restriction: numbers in ``[low, high]``, or one of ``levels``."""

    low: float | None = None
    high: float | None = None
    levels: tuple[Any, ...] | None = None

    def admits(self, value: Any) -> bool:
        """Whether ``value`` is inside."""
        if self.levels is not None:
            return value in self.levels
        assert self.low is not None and self.high is not None
        return bool(self.low <= value <= self.high)


@dataclass(frozen=True)
class Step:
    """One box of a trajectory, by its counts."""

    runs: int
    holds: int
    limits: tuple[Limit, ...]


@dataclass(frozen=True)
class Significance:
    """The quasi-p-value of one restriction of a box (Bryant and Lempert 2010).

    With the restriction lifted (the bound moved back to the end of the
    factor's values, or every level admitted again) the box holds ``runs_j``
    runs, ``holds_j`` of them where the outcome holds; ``qp`` is the chance
    that ``runs`` runs drawn at that density would show ``holds`` or more
    (a one-sided binomial test, as ema_workbench's ``PrimBox.inspect`` computes
    it). A restriction with a large qp adds little to the box.
    """

    factor: int
    bound: str
    """``"low"``, ``"high"`` or ``"levels"``."""
    qp: float


@dataclass(frozen=True)
class Box:
    """A box found: its limits (None: the factor is not restricted) and its counts."""

    limits: tuple[Limit | None, ...]
    runs: int
    holds: int
    trajectory: list[Step] = field(default_factory=list)
    """The peeling trajectory it was chosen from."""
    significance: list[Significance] = field(default_factory=list)
    """One per restricted bound (or level set), in factor order, low before high."""


def _whole(data: Data, rows: list[int]) -> tuple[Limit, ...]:
    """The box holding ``rows``: each number's least and greatest value, every level."""
    limits = []
    for j in range(len(data.factors)):
        vals = [data.values[i][j] for i in rows]
        if data.numeric(j):
            limits.append(Limit(low=min(vals), high=max(vals)))
        else:
            limits.append(Limit(levels=tuple(_unique(vals))))
    return tuple(limits)


def _unique(values: list[Any]) -> list[Any]:
    out: list[Any] = []
    for v in values:
        if v not in out:
            out.append(v)
    return out


def _inside(data: Data, rows: list[int], limits: tuple[Limit, ...]) -> list[int]:
    return [i for i in rows if all(lim.admits(data.values[i][j]) for j, lim in enumerate(limits))]


def _counts(data: Data, rows: list[int]) -> tuple[int, int]:
    return sum(data.runs[i] for i in rows), sum(data.holds[i] for i in rows)


def _density(runs: int, holds: int) -> float:
    return holds / runs if runs else 0.0


def _with(limits: tuple[Limit, ...], j: int, new: Limit) -> tuple[Limit, ...]:
    return (*limits[:j], new, *limits[j + 1 :])


def _quantile(data: Data, rows: list[int], j: int, q: float) -> float:
    """ema_workbench's ``get_quantile`` of factor ``j`` over the runs of ``rows``.

    The runs sorted by value; ``(n - 1) q`` falls between two of them; if they
    share a value, the other end moves on to the next value (down for an upper
    quantile, up for a lower one); the answer is the mean of the two values,
    so it lies between two of the factor's values unless every run has one.
    """
    by_value: dict[Any, int] = {}
    for i in rows:
        by_value[data.values[i][j]] = by_value.get(data.values[i][j], 0) + data.runs[i]
    vals = sorted(by_value)
    position = (sum(by_value.values()) - 1) * q

    def which(k: int) -> int:  # the value the k-th run (from 0) has
        seen = 0
        for u, v in enumerate(vals):
            seen += by_value[v]
            if k < seen:
                return u
        return len(vals) - 1

    a, b = which(math.floor(position)), which(math.ceil(position))
    if a == b:
        if q > 0.5:
            a = max(a - 1, 0)
        else:
            b = min(b + 1, len(vals) - 1)
    return float((vals[a] + vals[b]) / 2)


def _objective(old: tuple[int, int], new: tuple[int, int]) -> float:
    """ema_workbench's default ("lenient1") objective: the gain in density per run moved."""
    mean_old = _density(*old)
    mean_new = _density(*new)
    if mean_old == mean_new or old[0] == new[0]:
        return 0.0
    return (mean_new - mean_old) / abs(old[0] - new[0])


def _restricted(limits: tuple[Limit, ...], init: tuple[Limit, ...]) -> list[int]:
    return [j for j, (lim, whole) in enumerate(zip(limits, init, strict=True)) if lim != whole]


def _order(data: Data) -> list[int]:
    """The factors in the order ema_workbench takes them: the numbers, then the others."""
    numbers = [j for j in range(len(data.factors)) if data.numeric(j)]
    return numbers + [j for j in range(len(data.factors)) if not data.numeric(j)]


def _peels(
    data: Data, inside: list[int], limits: tuple[Limit, ...], alpha: float
) -> list[tuple[Limit, ...]]:
    """Every box one peel smaller: per number its top, then its bottom; each level of words."""
    out: list[tuple[Limit, ...]] = []
    for j in _order(data):
        lim = limits[j]
        if lim.levels is not None:
            if len(lim.levels) > 1:
                for level in lim.levels:
                    kept = tuple(v for v in lim.levels if v != level)
                    out.append(_with(limits, j, Limit(levels=kept)))
            continue
        top = _quantile(data, inside, j, 1 - alpha)
        bottom = _quantile(data, inside, j, alpha)
        out.append(_with(limits, j, Limit(low=lim.low, high=top)))
        out.append(_with(limits, j, Limit(low=bottom, high=lim.high)))
    return out


def _best(
    data: Data,
    rows: list[int],
    inside: list[int],
    candidates: list[tuple[Limit, ...]],
    init: tuple[Limit, ...],
) -> tuple[float, tuple[Limit, ...], list[int]] | None:
    """The candidate with the best objective (ties: fewer restricted factors, then the first)."""
    old = _counts(data, inside)
    best: tuple[float, int, tuple[Limit, ...], list[int]] | None = None
    for candidate in candidates:
        kept = _inside(data, rows, candidate)
        key = (_objective(old, _counts(data, kept)), -len(_restricted(candidate, init)))
        if best is None or key > (best[0], best[1]):
            best = (key[0], key[1], candidate, kept)
    return None if best is None else (best[0], best[2], best[3])


def _pastes(
    data: Data, rows: list[int], limits: tuple[Limit, ...], init: tuple[Limit, ...], alpha: float
) -> list[tuple[Limit, ...]]:
    """Every box one paste larger, as ema_workbench 2.5 makes them.

    Per restricted number, its bottom then its top moved out to the ``1 - alpha``
    (``alpha``) quantile of the runs just outside; per restricted level set, each
    level added back. Like ema, no paste at all when no number is restricted.
    """
    restricted = _restricted(limits, init)
    out: list[tuple[Limit, ...]] = []
    numbers = [j for j in _order(data) if j in restricted and limits[j].levels is None]
    if not numbers:
        return out
    for j in numbers:
        lim, whole = limits[j], init[j]
        below = _inside(data, rows, _with(limits, j, Limit(low=whole.low, high=lim.low)))
        low = _quantile(data, below, j, 1 - alpha) if below else whole.low
        out.append(_with(limits, j, Limit(low=low, high=lim.high)))
        above = _inside(data, rows, _with(limits, j, Limit(low=lim.high, high=whole.high)))
        high = _quantile(data, above, j, alpha) if above else whole.high
        out.append(_with(limits, j, Limit(low=lim.low, high=high)))
    for j in _order(data):
        lim, whole = limits[j], init[j]
        if j in restricted and lim.levels is not None and whole.levels is not None:
            for level in whole.levels:
                if level not in lim.levels:
                    out.append(_with(limits, j, Limit(levels=(*lim.levels, level))))
    return out


def _trajectory(
    data: Data,
    rows: list[int],
    init: tuple[Limit, ...],
    alpha: float,
    paste_alpha: float,
    min_mass: float,
    total_runs: int,
) -> list[Step]:
    """Peel from the box of ``rows`` while it pays, then paste: every box on the way."""
    limits = init
    inside = _inside(data, rows, limits)
    trajectory = [Step(*_counts(data, inside), limits)]
    while True:  # peeling: the best peel, while it leaves enough runs and gains
        best = _best(data, rows, inside, _peels(data, inside, limits, alpha), init)
        if best is None:
            break
        obj, candidate, kept = best
        runs = _counts(data, kept)[0]
        mass = runs / total_runs
        if not (mass >= min_mass and runs < trajectory[-1].runs and obj > 0):
            break
        limits, inside = candidate, kept
        trajectory.append(Step(*_counts(data, inside), limits))
    while True:  # pasting from the last box, while it gains
        best = _best(data, rows, inside, _pastes(data, rows, limits, init, paste_alpha), init)
        if best is None:
            break
        obj, candidate, kept = best
        runs, holds = _counts(data, kept)
        last = trajectory[-1]
        if not (
            runs / total_runs >= min_mass
            and runs > last.runs
            and obj > 0
            and _density(runs, holds) > _density(last.runs, last.holds)
        ):
            break
        limits, inside = candidate, kept
        trajectory.append(Step(runs, holds, limits))
    return trajectory


def _choose(trajectory: list[Step], total_holds: int, min_coverage: float) -> Step:
    """The densest step with at least ``min_coverage`` (ties: larger coverage, earlier)."""
    best = trajectory[0]
    for step in trajectory[1:]:
        if total_holds and step.holds / total_holds < min_coverage:
            continue
        if (_density(step.runs, step.holds), step.holds) > (
            _density(best.runs, best.holds),
            best.holds,
        ):
            best = step
    return best


def _snapped(data: Data, rows: list[int], j: int, lim: Limit) -> Limit:
    """A number's limits moved in to the factor's own values (the runs admitted are the same)."""
    assert lim.low is not None and lim.high is not None
    vals = [data.values[i][j] for i in rows]
    low = min(v for v in vals if v >= lim.low)
    high = max(v for v in vals if v <= lim.high)
    return Limit(low=low, high=high)


def _quasi_p(
    data: Data, rows: list[int], limits: tuple[Limit, ...], init: tuple[Limit, ...]
) -> list[Significance]:
    """Each restriction's quasi-p-value within ``rows`` (see :class:`Significance`)."""
    from scipy.stats import binomtest  # type: ignore[import-untyped]  # noqa: PLC0415  # no stubs

    runs, holds = _counts(data, _inside(data, rows, limits))
    out: list[Significance] = []
    for j in _restricted(limits, init):
        lim, whole = limits[j], init[j]
        lifted: list[tuple[str, Limit]] = []
        if lim.levels is not None:
            lifted.append(("levels", whole))
        else:
            if lim.low != whole.low:
                lifted.append(("low", Limit(low=whole.low, high=lim.high)))
            if lim.high != whole.high:
                lifted.append(("high", Limit(low=lim.low, high=whole.high)))
        for bound, wider in lifted:
            r, h = _counts(data, _inside(data, rows, _with(limits, j, wider)))
            qp = float(binomtest(holds, runs, h / r, alternative="greater").pvalue)
            out.append(Significance(j, bound, qp))
    return out


def find_boxes(
    data: Data,
    boxes: int = 1,
    alpha: float = ALPHA,
    min_mass: float = MIN_MASS,
    min_coverage: float = MIN_COVERAGE,
    paste_alpha: float = PASTE_ALPHA,
) -> list[Box]:
    """Up to ``boxes`` boxes where the outcome holds more often than around them.

    A box is kept only when it is denser than all the runs it was found in;
    the search stops at the first that is not, or when no run is left where
    the outcome holds.
    """
    rows = [i for i in range(len(data.runs)) if data.runs[i] > 0]
    if not rows:
        return []
    init = _whole(data, rows)
    total_runs = _counts(data, rows)[0]
    found: list[Box] = []
    while rows and len(found) < boxes:
        runs, holds = _counts(data, rows)
        if holds == 0:
            break
        trajectory = _trajectory(data, rows, init, alpha, paste_alpha, min_mass, total_runs)
        chosen = _choose(trajectory, holds, min_coverage)
        inside = _inside(data, rows, chosen.limits)
        if _density(chosen.runs, chosen.holds) <= _density(runs, holds):
            break
        restricted = set(_restricted(chosen.limits, init))
        limits = tuple(
            None
            if j not in restricted
            else lim
            if lim.levels is not None
            else _snapped(data, rows, j, lim)
            for j, lim in enumerate(chosen.limits)
        )
        significance = _quasi_p(data, rows, chosen.limits, init)
        found.append(Box(limits, chosen.runs, chosen.holds, trajectory, significance))
        kept = set(inside)
        rows = [i for i in rows if i not in kept]
    return found
