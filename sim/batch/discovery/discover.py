"""Scenario discovery: in which region of the factors does an outcome hold?

``battlesim discover DIR --measure "winner == 'usa'"`` reads a finished (or
stopped) study's done runs, counts per design point the runs where the
condition (:mod:`sim.batch.discovery.condition`) holds, and finds boxes with PRIM
(:mod:`sim.batch.methods.prim`). Each box is said as plain conditions on the
factors with its density, coverage and counts::

    Union wins in 61.0 % of runs when map.terrain.0.cover ≥ -30 and options.fire_hcv ≤ 15

and the result is plain data for ``--json`` and the plot
(:mod:`sim.batch.charts.discover`). It works for any study of any ruleset:
the sides and number columns come from the study's own tables.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sim.batch.discovery.condition import Condition, parse_condition
from sim.batch.methods.prim import ALPHA, MIN_COVERAGE, MIN_MASS, Box, Data, Limit, find_boxes
from sim.batch.planning.stopping import summarised
from sim.batch.storage.opening import DB_NAME
from sim.batch.storage.sql import table_columns
from sim.batch.storage.store import Store
from sim.contract import get_ruleset
from sim.text.grammar import count, plural

__all__ = ["DiscoverError", "discover", "discover_lines", "number_columns", "study_data"]

_NUMBER_TYPES = ("BIGINT", "INTEGER", "DOUBLE", "HUGEINT", "SMALLINT", "FLOAT")
_NOT_MEASURES = ("run_id", "point", "replication", "seed")


class DiscoverError(ValueError):
    """Discovery that cannot start: no study, no factors, no done run."""


def number_columns(store: Store) -> list[str]:
    """The runs table's number columns a condition may name (turns, losses, draws…)."""
    rows = table_columns(store.con, "runs")
    return [n for n, t in rows if t in _NUMBER_TYPES and n not in _NOT_MEASURES]


def _data(store: Store, condition: Condition, meta: dict[str, Any], points: list[Any]) -> Data:
    """Per point, its summarised runs and those where ``condition`` holds.

    The runs are the summary's: done, and with ``--until-ci`` the confirmatory
    runs only (the pilot sized the sample; it is kept apart, as the summary keeps it).
    """
    factors = [str(f["path"]) for f in meta["factors"]]
    counts = {
        int(p): (int(n), int(k))
        for p, n, k in store.con.execute(
            f"SELECT point, count(*), count(*) FILTER (WHERE {condition.sql}) "
            f"FROM runs WHERE status = 'done' AND {summarised(meta['plan'])} "
            "GROUP BY point ORDER BY point"
        ).fetchall()
    }
    return Data(
        factors=factors,
        values=[[pt.get(f) for f in factors] for pt in points],
        runs=[counts.get(i, (0, 0))[0] for i in range(len(points))],
        holds=[counts.get(i, (0, 0))[1] for i in range(len(points))],
    )


def _shown(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:.4g}"
    if isinstance(value, str):
        return value
    return str(value).lower() if isinstance(value, bool) else str(value)


def _limit_json(factor: str, lim: Limit) -> dict[str, Any]:
    if lim.levels is not None:
        return {"factor": factor, "levels": list(lim.levels)}
    return {"factor": factor, "low": lim.low, "high": lim.high}


def _limit_text(factor: str, lim: Limit, whole: Limit) -> str:
    if lim.levels is not None:
        levels = [_shown(v) for v in lim.levels]
        return (
            f"{factor} = {levels[0]}"
            if len(levels) == 1
            else f"{factor} in {{{', '.join(levels)}}}"
        )
    if lim.low == lim.high:
        return f"{factor} = {_shown(lim.low)}"
    assert lim.low is not None and lim.high is not None
    above = whole.low is None or lim.low > whole.low
    below = whole.high is None or lim.high < whole.high
    if above and not below:
        return f"{factor} ≥ {_shown(lim.low)}"
    if below and not above:
        return f"{factor} ≤ {_shown(lim.high)}"
    return f"{_shown(lim.low)} ≤ {factor} ≤ {_shown(lim.high)}"


def _whole(data: Data, j: int) -> Limit:
    vals = [v[j] for v, n in zip(data.values, data.runs, strict=True) if n > 0]
    if data.numeric(j):
        return Limit(low=min(vals), high=max(vals))
    return Limit(levels=tuple(vals))


SIGNIFICANT = 0.05
"""A restriction whose quasi-p-value is above this is said to add little to its box."""
SIGNIFICANCE_METHOD = "one-sided binomial test (quasi-p)"
"""How each restriction's qp is computed, as the text and ``--json`` name it."""


def _significance_json(data: Data, box: Box) -> list[dict[str, Any]]:
    out = []
    for sig in box.significance:
        lim = box.limits[sig.factor]
        assert lim is not None
        factor = data.factors[sig.factor]
        if sig.bound == "levels":
            shown = _limit_text(factor, lim, _whole(data, sig.factor))
        elif sig.bound == "low":
            shown = f"{factor} ≥ {_shown(lim.low)}"
        else:
            shown = f"{factor} ≤ {_shown(lim.high)}"
        out.append(
            {"factor": factor, "bound": sig.bound, "condition": shown, "qp": sig.qp,
             "significant": sig.qp <= SIGNIFICANT}
        )  # fmt: skip
    return out


def _pct(x: float) -> str:
    return f"{100 * x:.1f} %"


def _box_json(data: Data, box: Box, k: int, total: tuple[int, int], words: str) -> dict[str, Any]:
    runs, holds = total
    limits = [(data.factors[j], lim, j) for j, lim in enumerate(box.limits) if lim is not None]
    conditions = [_limit_text(f, lim, _whole(data, j)) for f, lim, j in limits]
    density = box.holds / box.runs
    where = " and ".join(conditions) if conditions else "anywhere"
    rest = "" if k == 1 else " (outside box 1)" if k == 2 else f" (outside boxes 1–{k - 1})"
    return {
        "box": k,
        "limits": [_limit_json(f, lim) for f, lim, _ in limits],
        "conditions": conditions,
        "runs": box.runs,
        "holds": box.holds,
        "density": density,
        "coverage": box.holds / holds if holds else None,
        "mass": box.runs / runs if runs else None,
        "text": f"{words} in {_pct(density)} of runs when {where}{rest}",
        "significance": _significance_json(data, box),
        "trajectory": [
            {
                "runs": s.runs,
                "holds": s.holds,
                "density": s.holds / s.runs,
                "coverage": s.holds / holds if holds else None,
            }
            for s in box.trajectory
        ],
    }


def study_data(study_dir: str | Path, measure: str) -> Data:
    """The study's design points with their summarised runs and those where ``measure`` holds.

    Raises: as :func:`discover`.
    """
    return _study(study_dir, measure)[0]


def _aliases(meta: dict[str, Any]) -> dict[str, str]:
    """The battle's length in its ruleset's own word ("rounds" in becmi), as the study's
    summary and charts say it, for the ``turns`` column; none for "turns" or an unknown one."""
    try:
        word = plural(get_ruleset(str(meta.get("ruleset"))).turn_name)
    except LookupError:
        return {}
    return {} if word == "turns" else {word: "turns"}


def _study(study_dir: str | Path, measure: str) -> tuple[Data, str, int]:
    db = Path(study_dir) / DB_NAME
    if not db.is_file():
        raise DiscoverError(f"{str(study_dir)!r}: no study here (no {DB_NAME})")
    store = Store.open(db, read_only=True)
    try:
        meta = store.meta()  # StoreError naming the file when a JSON column is damaged
        points = store.points()
        if not isinstance(points, list) or not all(isinstance(p, dict) for p in points):
            raise DiscoverError(f"{db}: damaged: a design point is not a mapping of factors")
        sides = {str(sid): str(name) for sid, name, _ in meta["sides"]}
        condition = parse_condition(measure, sides, number_columns(store), _aliases(meta))
        data = _data(store, condition, meta, points)
        row = store.con.execute(  # the pilot's runs (--until-ci): done, not summarised
            f"SELECT count(*) FROM runs WHERE status = 'done' AND NOT ({summarised(meta['plan'])})"
        ).fetchone()
        pilot = int(row[0]) if row else 0
    finally:
        store.close()
    if not data.factors:
        raise DiscoverError(f"{str(study_dir)!r}: the study sweeps no factor: nothing to discover")
    runs = sum(data.runs)
    if runs == 0:
        raise DiscoverError(f"{str(study_dir)!r}: the study has no done run yet")
    return data, condition.words, pilot


def discover(
    study_dir: str | Path,
    measure: str,
    boxes: int = 3,
    min_coverage: float = MIN_COVERAGE,
    alpha: float = ALPHA,
    min_mass: float = MIN_MASS,
) -> dict[str, Any]:
    """The boxes where ``measure`` holds, as plain data.

    Raises:
        DiscoverError: no study in ``study_dir``, no factor swept, or no done run.
        ConditionError: ``measure`` cannot be read.
        StoreError: the database cannot be opened.
    """
    data, words, pilot = _study(study_dir, measure)
    runs, holds = sum(data.runs), sum(data.holds)
    found = find_boxes(data, boxes, alpha, min_mass, min_coverage)
    return {
        "study": str(study_dir),
        "measure": measure,
        "words": words,
        "method": "prim",
        "significance_method": SIGNIFICANCE_METHOD,
        "alpha": alpha,
        "min_mass": min_mass,
        "min_coverage": min_coverage,
        "factors": data.factors,
        "runs": runs,
        "pilot_runs": pilot,
        "holds": holds,
        "base_rate": holds / runs,
        "boxes": [
            _box_json(data, box, k, (runs, holds), words) for k, box in enumerate(found, start=1)
        ],
    }


def _runs(n: int) -> str:
    return count(n, "run", spec=",")


def discover_lines(result: dict[str, Any]) -> list[str]:
    """The result in words: the base rate, then each box with its counts."""
    pilot = int(result.get("pilot_runs", 0))
    held = _runs(result["holds"])
    if pilot:  # --until-ci: the study's own count holds the pilot's runs too
        held += f"; the {count(pilot, 'pilot run', spec=',')} that sized them are left out"
    kind = "confirmatory run" if pilot else "run"
    runs = (
        f"all {count(result['runs'], kind, spec=',')}" if result["runs"] != 1 else f"the one {kind}"
    )
    lines = [f"{result['words']} in {_pct(result['base_rate'])} of {runs} ({held})."]
    if not result["holds"]:
        lines.append("It holds in no run: there is no region to find.")
    elif not result["boxes"]:
        lines.append("No region of the factors where it holds more often than overall: no box.")
    for b in result["boxes"]:
        lines.append(f"Box {b['box']}: {b['text']}")
        lines.append(
            f"  {b['holds']:,} of {_runs(b['runs'])} in the box; coverage "
            f"{_pct(b['coverage'])} (of the {_runs(result['holds'])} where it holds), "
            f"density {_pct(b['density'])}, "
            f"mass {_pct(b['mass'])}"
        )
        if b["significance"]:
            said = "; ".join(f"{s['condition']} (qp {_qp(s['qp'])})" for s in b["significance"])
            lines.append(f"  quasi-p of each restriction (one-sided binomial test): {said}")
        weak = [s["condition"] for s in b["significance"] if not s["significant"]]
        if weak:
            lines.append(
                f"  not significant at {SIGNIFICANT:g} (adds little; the box without it is "
                f"nearly as dense): {', '.join(weak)}"
            )
    return lines


def _qp(qp: float) -> str:
    return f"= {qp:.2g}" if qp >= 0.001 else "< 0.001"
