"""What a calibration target measures: one number per run, from a study chunk's rows.

A measure is named by a dotted text and read from the rows the batch
engine's workers return (:class:`sim.batch.execution.rows.ChunkRows`), so every
ruleset's runs are measured the same way, through its outcome and unit rows:

============================  =======  ==============================================
measure                       kind     per run
============================  =======  ==============================================
``win.<side>``                rate     1 when the side won, else 0
``draw``                      rate     1 when nobody won
``losses.<side>.<kind>``      mean     the side's loss of that kind (the study's
                                       ``<side>_<kind>_lost`` column)
``turns``                     mean     turns fought
``unit.<unit>.<status>``      rate     1 when the unit ends with that status word
                                       (``sunk``, ``routed``, ``dead``…)
``unit.<unit>.strength``      mean     the unit's final strength (men, hits left, hp…)
``unit.<unit>.lost``          mean     its initial strength less its final strength
============================  =======  ==============================================

A *rate* is estimated with the Wilson score 95 % interval, a *mean* with the
Student t 95 % interval (n − 1 degrees of freedom), cut at 0 for a loss or the turns,
which no run puts below 0 (the method then says ``cut at 0``). Unit measures read a
scenario's units; a campaign's are refused (a unit may fight several battles).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Literal

from sim.batch.execution.rows import UNIT_COLUMNS, UNIT_KEYS, ChunkRows
from sim.batch.methods.stats import Estimate, wilson
from sim.text.suggest import did_you_mean

__all__ = ["Estimate", "Measure", "MeasureError", "estimate", "parse_measure", "values"]

Kind = Literal["rate", "mean"]

_RUN_STATUS, _RUN_WINNER, _RUN_TURNS, _RUN_LOSSES = 4, 6, 9, 11
"""Columns of the runs table (execution/rows.py's run_row): status, winner, turns, first loss."""

_UNIT = {name: i for i, name in enumerate((*UNIT_KEYS, *UNIT_COLUMNS))}


class MeasureError(ValueError):
    """A measure that names nothing in the study's target."""


@dataclass(frozen=True)
class Measure:
    """A parsed measure: its name, whether it is a rate or a mean, and what it reads."""

    name: str
    kind: Kind
    what: str
    """``win``, ``draw``, ``loss``, ``turns``, ``unit-status``, ``unit-strength``, ``unit-lost``."""
    key: tuple[str, ...] = ()

    @property
    def floor(self) -> float | None:
        """0 for a mean no run can put below 0 (a loss, the turns), else None: its interval
        is cut there (:func:`estimate`). A unit's strength is not cut: flattop's hits left
        go below 0 for a ship sunk with hits to spare."""
        return 0.0 if self.what in ("loss", "turns") else None


def parse_measure(
    name: str,
    sides: dict[str, list[str]],
    units: list[str] | None,
    words: tuple[str, ...] = (),
) -> Measure:
    """Parse ``name`` against the target's sides (id → loss kinds), unit ids and the
    ruleset's status words (``Ruleset.status_words``; none declared: any word).

    ``units`` is None for a campaign (unit measures are refused there).

    Raises:
        MeasureError: the name is malformed or names no side, loss kind or unit.
    """
    parts = name.split(".")
    head = parts[0]
    if name == "draw":
        return Measure(name, "rate", "draw")
    if name == "turns":
        return Measure(name, "mean", "turns")
    if head == "win" and len(parts) == 2:
        _side(parts[1], sides)
        return Measure(name, "rate", "win", (parts[1],))
    if head == "losses" and len(parts) == 3:
        kinds = _side(parts[1], sides)
        if parts[2] not in kinds:
            raise MeasureError(
                f"{name!r}: side {parts[1]!r} has no loss {parts[2]!r} (it has "
                f"{', '.join(kinds)}){did_you_mean(parts[2], kinds)}"
            )
        return Measure(name, "mean", "loss", (parts[1], parts[2]))
    if head == "unit" and len(parts) == 3:
        if units is None:
            raise MeasureError(f"{name!r}: unit measures apply to a scenario, not a campaign")
        if parts[1] not in units:
            raise MeasureError(
                f"{name!r}: no unit {parts[1]!r} in the scenario{did_you_mean(parts[1], units)}"
            )
        if parts[2] in ("strength", "lost"):
            return Measure(name, "mean", f"unit-{parts[2]}", (parts[1],))
        if words and parts[2] not in words:
            raise MeasureError(
                f"{name!r}: no status {parts[2]!r} (the ruleset's: {', '.join(words)}; or "
                f"strength, lost){did_you_mean(parts[2], words)}"
            )
        return Measure(name, "rate", "unit-status", (parts[1], parts[2]))
    raise MeasureError(
        f"{name!r} is not a measure: write win.<side>, draw, losses.<side>.<kind>, turns, "
        "unit.<unit>.<status word>, unit.<unit>.strength or unit.<unit>.lost"
    )


def _side(sid: str, sides: dict[str, list[str]]) -> list[str]:
    if sid not in sides:
        raise MeasureError(
            f"no side {sid!r} (the sides are {', '.join(sides)}){did_you_mean(sid, sides)}"
        )
    return sides[sid]


def values(measure: Measure, rows: ChunkRows, losses: tuple[tuple[str, str], ...]) -> list[float]:
    """The measure's value in each done run of ``rows``, in row order."""
    runs = rows.runs
    done = [i for i, status in enumerate(runs[_RUN_STATUS]) if status == "done"]
    if measure.what == "win":
        return [float(runs[_RUN_WINNER][i] == measure.key[0]) for i in done]
    if measure.what == "draw":
        return [float(runs[_RUN_WINNER][i] is None) for i in done]
    if measure.what == "turns":
        return [float(runs[_RUN_TURNS][i]) for i in done]
    if measure.what == "loss":
        column = runs[_RUN_LOSSES + losses.index((measure.key[0], measure.key[1]))]
        return [float(column[i] or 0) for i in done]
    return _unit_values(measure, rows, [runs[0][i] for i in done])


def _unit_values(measure: Measure, rows: ChunkRows, run_ids: list[int]) -> list[float]:
    """A unit measure in each of ``run_ids`` (a unit missing from a run's rows reads 0)."""
    units = rows.units
    found: dict[int, float] = {}
    for i, unit in enumerate(units[_UNIT["unit"]]):
        if unit != measure.key[0]:
            continue
        if measure.what == "unit-status":
            words = str(units[_UNIT["status"]][i]).split(", ")
            value = float(measure.key[1] in words)
        elif measure.what == "unit-strength":
            value = float(units[_UNIT["strength"]][i])
        else:
            value = float(units[_UNIT["initial"]][i]) - float(units[_UNIT["strength"]][i])
        found[units[_UNIT["run_id"]][i]] = value
    return [found.get(r, 0.0) for r in run_ids]


def estimate(kind: Kind, xs: list[float], floor: float | None = None) -> Estimate:
    """The estimate of a rate (Wilson 95 %) or a mean (Student t 95 %) from per-run values.

    ``floor``: the least value a run can give (0 for a count). A mean's t interval reaching
    below it is cut there, and its method says so (``Student t 95 %, cut at 0``): the true
    mean is never below the floor, so the cut interval holds it whenever the whole one does
    (the same coverage), and a target whose range starts at the floor is not failed by an
    interval that reaches where no mean can be.
    """
    n = len(xs)
    if kind == "rate":
        w = wilson(round(sum(xs)), n)
        return Estimate(w.p, w.low, w.high, n, "Wilson 95 %")
    if n == 0:
        return Estimate(math.nan, math.nan, math.nan, 0, "Student t 95 %")
    mean = math.fsum(xs) / n
    if n == 1:
        return Estimate(mean, math.nan, math.nan, 1, "Student t 95 %")
    # scipy.stats.t.ppf's own function, without importing scipy.stats (0.4 s of CPU)
    from scipy.special import stdtrit  # type: ignore[import-untyped]  # noqa: PLC0415  # no stubs; heavy

    sd = math.sqrt(math.fsum((x - mean) ** 2 for x in xs) / (n - 1))
    half = float(stdtrit(n - 1, 0.975)) * sd / math.sqrt(n)
    low = mean - half
    if floor is not None and low < floor <= min(xs):
        return Estimate(mean, floor, mean + half, n, f"Student t 95 %, cut at {floor:g}")
    return Estimate(mean, low, mean + half, n, "Student t 95 %")


def describe(measure: Measure) -> dict[str, Any]:
    """Plain data naming a measure (for the JSON output)."""
    return {"measure": measure.name, "kind": measure.kind}
