"""PRIM, the patient rule induction method (Friedman and Fisher 1999), on a study's points.

Scenario discovery asks in which region of the factors an outcome holds.
PRIM answers with a *box* — a range of each numeric factor, a set of levels
of each other one — found by peeling: starting from every design point,
it removes, one step at a time, the slice of the box (the lowest or highest
``alpha`` of its runs along one factor, at least one value; or one level of
a categorical factor) whose removal leaves the highest share of runs where
the outcome holds, until less than ``min_mass`` of the runs would be left.
Each step's box is one point of the *peeling trajectory*, a trade-off:

* **coverage** — of all the runs where the outcome holds, the share inside
  the box;
* **density** — of the runs inside the box, the share where it holds;
* **mass** — of all the runs, the share inside the box.

The box reported is the densest one on the trajectory whose coverage is at
least ``min_coverage`` (ties: the larger coverage, then the earlier box),
then *pasted*: a bound is moved back out one value, or a level added back,
while that raises the density. Each restriction of a box gets a
*quasi-p-value* (:class:`Significance`), the one-sided binomial test
ema_workbench's PRIM reports. Further boxes cover what the first left: the
runs in the boxes found so far are set aside and PRIM runs again on the
rest, while the new box is denser than what remains.

Against ema_workbench 2.5's ``Prim`` on the same runs (each run a row, the
same ``peel_alpha``, ``paste_alpha``, ``mass_min``, the box chosen by the
same rule from its trajectory), the boxes restrict the same factors on the
same sides, and each bound lies within one step of the factor's values:
ema's bounds are quantiles between two values (``cover ≥ -35`` where this
says ``cover ≥ -30``, the next value below being -40), this one's are
values the study has. The quasi-p-values are the same where both boxes
admit the same runs (tests/batch/test_prim_ema.py).

The data are the design points, each with its number of done runs and of
runs where the outcome holds (every run of a point has the point's factor
values), so the work grows with the points, not the runs. Nothing is random:
ties go to the earlier factor, low side before high, so the boxes are the
same on every machine.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

__all__ = ["Box", "Data", "Limit", "Significance", "Step", "find_boxes"]

ALPHA = 0.05
"""The share of a box's runs a peel removes (at least one value)."""
MIN_MASS = 0.05
"""Peeling stops before a box holds less than this share of all runs."""
MIN_COVERAGE = 0.5
"""The reported box is the densest with at least this coverage."""


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


def _full(data: Data, rows: list[int]) -> tuple[Limit, ...]:
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


def _peels(
    data: Data, inside: list[int], limits: tuple[Limit, ...], alpha: float
) -> list[tuple[Limit, ...]]:
    """Every box one peel smaller: per factor, its low then its high slice (or each level)."""
    mass = sum(data.runs[i] for i in inside)
    out: list[tuple[Limit, ...]] = []
    for j, lim in enumerate(limits):
        if lim.levels is not None:
            present = _unique([data.values[i][j] for i in inside])
            if len(present) > 1:
                for level in present:
                    kept = tuple(v for v in present if v != level)
                    out.append(_with(limits, j, Limit(levels=kept)))
            continue
        by_value: dict[float, int] = {}
        for i in inside:
            by_value[data.values[i][j]] = by_value.get(data.values[i][j], 0) + data.runs[i]
        ordered = sorted(by_value)
        if len(ordered) < 2:
            continue
        for side in ("low", "high"):
            seq = ordered if side == "low" else ordered[::-1]
            removed, cut = 0, 0
            while cut < len(seq) - 1 and (cut == 0 or removed + by_value[seq[cut]] <= alpha * mass):
                removed += by_value[seq[cut]]
                cut += 1
            rest = seq[cut:]
            new = Limit(low=min(rest), high=max(rest))
            out.append(_with(limits, j, new))
    return out


def _with(limits: tuple[Limit, ...], j: int, new: Limit) -> tuple[Limit, ...]:
    return (*limits[:j], new, *limits[j + 1 :])


def _peel(data: Data, rows: list[int], alpha: float, min_runs: float) -> list[Step]:
    """The peeling trajectory over ``rows``, from the box holding them all."""
    limits = _full(data, rows)
    inside = list(rows)
    trajectory = [Step(*_counts(data, inside), limits)]
    while True:
        best: tuple[float, int, tuple[Limit, ...], list[int]] | None = None
        for candidate in _peels(data, inside, limits, alpha):
            kept = _inside(data, inside, candidate)
            runs, holds = _counts(data, kept)
            if runs < min_runs or runs == 0:
                continue
            key = (_density(runs, holds), runs)
            if best is None or key > (best[0], best[1]):
                best = (key[0], runs, candidate, kept)
        if best is None:
            return trajectory
        limits, inside = best[2], best[3]
        trajectory.append(Step(*_counts(data, inside), limits))


def _pastes(data: Data, rows: list[int], limits: tuple[Limit, ...]) -> list[tuple[Limit, ...]]:
    """Every box one paste larger: a bound moved out to the next value, a level added back."""
    out: list[tuple[Limit, ...]] = []
    for j, lim in enumerate(limits):
        if lim.levels is None:
            # rows the other limits admit, whatever this factor's value
            near = [data.values[i][j] for i in _inside_except(data, rows, limits, j)]
            below = [v for v in near if v < lim.low]
            above = [v for v in near if v > lim.high]
            if below:
                out.append(_with(limits, j, Limit(low=max(below), high=lim.high)))
            if above:
                out.append(_with(limits, j, Limit(low=lim.low, high=min(above))))
        else:
            near = _unique([data.values[i][j] for i in _inside_except(data, rows, limits, j)])
            for level in near:
                if level not in lim.levels:
                    out.append(_with(limits, j, Limit(levels=(*lim.levels, level))))
    return out


def _inside_except(data: Data, rows: list[int], limits: tuple[Limit, ...], j: int) -> list[int]:
    return [
        i
        for i in rows
        if all(lim.admits(data.values[i][k]) for k, lim in enumerate(limits) if k != j)
    ]


def _paste(data: Data, rows: list[int], limits: tuple[Limit, ...]) -> tuple[Limit, ...]:
    runs, holds = _counts(data, _inside(data, rows, limits))
    while True:
        best: tuple[float, int, tuple[Limit, ...]] | None = None
        for candidate in _pastes(data, rows, limits):
            r, h = _counts(data, _inside(data, rows, candidate))
            if _density(r, h) > _density(runs, holds) and (
                best is None or (_density(r, h), r) > (best[0], best[1])
            ):
                best = (_density(r, h), r, candidate)
        if best is None:
            return limits
        limits = best[2]
        runs, holds = _counts(data, _inside(data, rows, limits))


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


def _restrictions(
    data: Data, rows: list[int], limits: tuple[Limit, ...]
) -> tuple[Limit | None, ...]:
    """Each limit, or None where it admits every value ``rows`` have."""
    full = _full(data, rows)
    out: list[Limit | None] = []
    for lim, whole in zip(limits, full, strict=True):
        if lim.levels is not None and whole.levels is not None:
            out.append(None if set(map(repr, lim.levels)) >= set(map(repr, whole.levels)) else lim)
        else:
            assert lim.low is not None and lim.high is not None
            assert whole.low is not None and whole.high is not None
            out.append(None if lim.low <= whole.low and lim.high >= whole.high else lim)
    return tuple(out)


def _quasi_p(
    data: Data, rows: list[int], limits: tuple[Limit, ...], restricted: tuple[Limit | None, ...]
) -> list[Significance]:
    """Each restriction's quasi-p-value within ``rows`` (see :class:`Significance`)."""
    from scipy.stats import binomtest  # type: ignore[import-untyped]  # noqa: PLC0415  # no stubs

    runs, holds = _counts(data, _inside(data, rows, limits))
    full = _full(data, rows)
    out: list[Significance] = []
    for j, lim in enumerate(restricted):
        if lim is None:
            continue
        whole = full[j]
        lifted: list[tuple[str, Limit]] = []
        if lim.levels is not None:
            lifted.append(("levels", whole))
        else:
            assert lim.low is not None and lim.high is not None
            assert whole.low is not None and whole.high is not None
            if lim.low > whole.low:
                lifted.append(("low", Limit(low=whole.low, high=lim.high)))
            if lim.high < whole.high:
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
) -> list[Box]:
    """Up to ``boxes`` boxes where the outcome holds more often than around them.

    A box is kept only when it is denser than all the runs it was found in;
    the search stops at the first that is not, or when no run is left where
    the outcome holds.
    """
    rows = [i for i in range(len(data.runs)) if data.runs[i] > 0]
    total_runs = _counts(data, rows)[0]
    found: list[Box] = []
    while rows and len(found) < boxes:
        runs, holds = _counts(data, rows)
        if holds == 0:
            break
        trajectory = _peel(data, rows, alpha, min_mass * total_runs)
        chosen = _choose(trajectory, holds, min_coverage)
        limits = _paste(data, rows, chosen.limits)
        inside = _inside(data, rows, limits)
        r, h = _counts(data, inside)
        if _density(r, h) <= _density(runs, holds):
            break
        restricted = _restrictions(data, rows, limits)
        significance = _quasi_p(data, rows, limits, restricted)
        found.append(Box(restricted, r, h, trajectory, significance))
        rows = [i for i in rows if i not in set(inside)]
    return found
