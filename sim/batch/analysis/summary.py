"""The summary of a study, per design point: win probabilities, losses, turns.

For each point, over its runs that completed (``status = 'done'``):

* each side's win probability ``wins / runs`` with its Wilson 95 % interval,
  and the draw rate likewise;
* mean, sample standard deviation, median, 5th and 95th percentile of each
  side's losses of each kind and of the turns fought (percentiles by
  linear interpolation, ``quantile_cont``).

Sums are exact integers from DuckDB and quantiles come from sorted values,
so the summary is the same whatever order the runs were stored in.
"""

from __future__ import annotations

import math
from typing import Any

from sim.batch.analysis.labels import loss_label, loss_words, measure_label
from sim.batch.methods.differences import PAIRED_DEFAULT, Paired
from sim.batch.methods.stats import proportion, wilson
from sim.batch.planning.stopping import PILOT, confirm_runs, rule_of, summarised
from sim.batch.storage.store import Store, in_factor_order, point_label, quote
from sim.contract import get_ruleset
from sim.text.grammar import agree, count, plural

__all__ = ["UNPAIRED", "format_summary", "percent", "said", "summarize", "turn_name"]


def _stats(n: int, s: int, s2: int, q: list[float] | None) -> dict[str, float | None]:
    if n == 0:
        return {"mean": None, "sd": None, "median": None, "p5": None, "p95": None}
    sd = math.sqrt((n * s2 - s * s) / (n * (n - 1))) if n > 1 else None
    assert q is not None
    return {"mean": s / n, "sd": sd, "median": q[1], "p5": q[0], "p95": q[2]}


def _column_stats(
    store: Store, columns: list[str], where: str
) -> dict[str, dict[int, dict[str, float | None]]]:
    """Each column's statistics by point over the summarised runs, in one query (one
    scan of ``runs`` for them all; each column's aggregates skip its own NULLs)."""
    if not columns:
        return {}
    parts = []
    for column in columns:
        c = quote(column)
        parts.append(
            f"count({c}), coalesce(sum({c}::HUGEINT), 0), coalesce(sum({c}::HUGEINT * {c}), 0), "
            f"quantile_cont({c}, [0.05, 0.5, 0.95])"
        )
    rows = store.con.execute(
        f"SELECT point, {', '.join(parts)} "
        f"FROM runs WHERE status = 'done' AND {where} GROUP BY point ORDER BY point"
    ).fetchall()
    out: dict[str, dict[int, dict[str, float | None]]] = {column: {} for column in columns}
    for row in rows:
        for k, column in enumerate(columns):
            n, total, squares, q = row[1 + 4 * k : 5 + 4 * k]
            out[column][row[0]] = _stats(int(n), int(total), int(squares), q)
    return out


def _counts(store: Store, where: str) -> dict[int, dict[str, int]]:
    rows = store.con.execute(
        "SELECT point, status, coalesce(winner, ''), count(*) FROM runs "
        f"WHERE {where} GROUP BY ALL ORDER BY ALL"
    ).fetchall()
    out: dict[int, dict[str, int]] = {}
    for point, status, winner, n in rows:
        key = f"win:{winner}" if status == "done" else "failed"
        out.setdefault(point, {})
        out[point][key] = out[point].get(key, 0) + n
    return out


def _errors(store: Store) -> dict[int, dict[str, int]]:
    rows = store.con.execute(
        "SELECT point, error, count(*) FROM runs WHERE status <> 'done' GROUP BY ALL ORDER BY ALL"
    ).fetchall()
    out: dict[int, dict[str, int]] = {}
    for point, error, n in rows:
        out.setdefault(point, {})[str(error)] = n
    return out


def _interval(k: int, n: int, method: str) -> dict[str, Any]:
    """A proportion with its 95 % interval; ``observed`` says when none or all of n occurred."""
    iv = proportion(k, n, method)
    p = None if n == 0 else iv.p
    out = {"count": k, "p": p, "low": iv.low, "high": iv.high, "method": method}
    if n and k in (0, n):
        out["observed"] = "none" if k == 0 else "all"
    return out


def _stopping(
    entry: dict[str, Any], plan: dict[str, Any], pilot: dict[str, int] | None
) -> dict[str, Any]:
    """Why a point stopped: ``ci`` (it ran what the target asked for) or ``runs`` (the cap).

    ``half_width`` is the widest side's Wilson 95 % half-width over the
    point's summarised runs; ``target_met`` whether it is at most the target.
    With the ``pilot`` rule the pilot's counts decide the stop (as the study
    did); a study of the old ``sequential`` rule stopped when the target was met.
    """
    until_ci = plan.get("until_ci")
    done = entry["done"]
    widths = [wilson(w["count"], done).half_width for w in entry["win"].values()]
    width = max(widths) if done and widths else None
    met = until_ci is not None and width is not None and width <= until_ci
    out: dict[str, Any] = {"stopped": "ci" if met else "runs", "half_width": width}
    if pilot is not None:
        wins = [pilot.get(f"win:{sid}", 0) for sid in entry["win"]]
        done_pilot = sum(n for k, n in pilot.items() if k.startswith("win:"))
        runs, chunk = plan["replications"], plan["chunk_size"]
        planned, capped = confirm_runs(wins, done_pilot, float(plan["until_ci"]), runs, chunk)
        out["stopped"] = "runs" if capped else "ci"
        out["confirm_planned"] = planned
    return {**out, "target_met": met}


def _pilot(store: Store, plan: dict[str, Any], sides: dict[str, Any]) -> dict[int, dict[str, Any]]:
    """Each point's pilot runs (``--until-ci``): counted apart, never summarised."""
    if rule_of(plan) != PILOT:
        return {}
    counts = _counts(store, f"NOT ({summarised(plan)})")
    out = {}
    for point, c in counts.items():
        done = sum(n for k, n in c.items() if k.startswith("win:"))
        out[point] = {
            "runs": done + c.get("failed", 0),
            "done": done,
            "wins": {sid: c.get(f"win:{sid}", 0) for sid in sides},
            "draws": c.get("win:", 0),
            "_counts": c,
        }
    return out


def summarize(
    store: Store,
    baseline: int = 0,
    interval: str = "wilson",
    paired_interval: Paired = PAIRED_DEFAULT,
) -> dict[str, Any]:
    """The study's summary: its settings, one entry per design point, the comparisons.

    Comparisons of each point with ``baseline`` (see :mod:`sim.batch.analysis.compare`)
    are made for grid and Latin-hypercube studies of two or more points; a
    Morris or Sobol study has its sensitivity indices instead
    (:mod:`sim.batch.analysis.sensitivity`). ``interval`` names the proportions'
    interval (:data:`sim.batch.methods.stats.METHODS`), ``paired_interval`` the
    paired win-rate differences' (:data:`sim.batch.methods.differences.PAIRED`;
    ``study.paired_interval`` in the summary when it is not the default). With ``--until-ci`` every
    figure is over each point's confirmatory runs; its pilot is counted in
    ``pilot`` (:mod:`sim.batch.planning.stopping`).
    """
    meta = store.meta()
    plan = meta["plan"]
    where = summarised(plan)
    sides = {sid: (name, kinds) for sid, name, kinds in meta["sides"]}
    counts = _counts(store, where)
    pilots = _pilot(store, plan, sides)
    errors = _errors(store)
    by_column = _column_stats(store, ["turns", *(col for _, _, col in store.losses)], where)
    turns = by_column["turns"]
    losses = {col: by_column[col] for _, _, col in store.losses}
    points = []
    paths = [f["path"] for f in meta["factors"]]
    for i, values in enumerate(store.points()):
        c = counts.get(i, {})
        done = sum(n for k, n in c.items() if k.startswith("win:"))
        entry: dict[str, Any] = {
            "point": i,
            "label": point_label(in_factor_order(values, paths)),
            "factors": values,
            "runs": done + c.get("failed", 0),
            "done": done,
            "failed": c.get("failed", 0),
            "errors": errors.get(i, {}),
            "win": {
                sid: {"name": side[0], **_interval(c.get(f"win:{sid}", 0), done, interval)}
                for sid, side in sides.items()
            },
            "draw": _interval(c.get("win:", 0), done, interval),
            "losses": {},
            "turns": turns.get(i, _stats(0, 0, 0, None)),
        }
        for sid, kind, col in store.losses:
            stats = losses[col].get(i, _stats(0, 0, 0, None))
            entry["losses"].setdefault(sid, {})[kind] = stats
        pilot = pilots.get(i)
        if rule_of(plan) == PILOT:
            pilot = pilot or {"runs": 0, "done": 0, "wins": {}, "draws": 0, "_counts": {}}
            entry["pilot"] = {k: v for k, v in pilot.items() if k != "_counts"}
        entry.update(_stopping(entry, plan, pilot["_counts"] if pilot else None))
        points.append(entry)
    summary = {
        "study": {
            "name": meta["name"],
            "kind": meta["kind"],
            "ruleset": meta.get("ruleset"),
            "source": meta["source"],
            "seed": meta["seed"],
            "crn": meta["crn"],
            "replications": meta["replications"],
            "design": meta["design"],
            "factors": meta["factors"],
            "until_ci": meta["until_ci"],
            "stopping": rule_of(plan),
            "confidence": 0.95,
            "interval": interval,
            **({"overrides": meta["plan"]["overrides"]} if "overrides" in meta["plan"] else {}),
            **({"paired_interval": paired_interval} if paired_interval != PAIRED_DEFAULT else {}),
        },
        "points": points,
        "unmet_targets": [
            p["point"] for p in points if meta["until_ci"] is not None and not p["target_met"]
        ],
    }
    analysis = _analysis(store, meta, baseline, len(points), interval, paired_interval)
    return {**summary, **analysis}


def _analysis(
    store: Store,
    meta: dict[str, Any],
    baseline: int,
    npoints: int,
    interval: str,
    paired: Paired = PAIRED_DEFAULT,
) -> dict[str, Any]:
    """The ``comparisons`` (and ``variance_reduction``) or the ``sensitivity`` block."""
    if meta["design"] in ("morris", "sobol"):
        from sim.batch.analysis.sensitivity import analyse  # noqa: PLC0415  # SALib only when needed

        return {"sensitivity": analyse(store, meta)}
    if npoints < 2:
        return {}
    from sim.batch.analysis.compare import compare  # noqa: PLC0415  # scipy only when needed

    comparisons, variance = compare(store, baseline, paired)
    out: dict[str, Any] = {"baseline": baseline, "comparisons": comparisons}
    if variance:
        out["variance_reduction"] = variance
    if len(meta["factors"]) > 1:
        out["pooled"] = _pooled(store, meta, interval)
    return out


def _pooled(store: Store, meta: dict[str, Any], interval: str) -> list[dict[str, Any]]:
    """Each side's win rate by each factor's value, pooled over the others (pooled.py)."""
    from sim.batch.analysis.pooled import pooled  # noqa: PLC0415

    sides = [s[0] for s in meta["sides"]]
    return [
        {
            "factor": f["path"],
            "value": r.value,
            "side": r.side,
            "wins": r.wins,
            "runs": r.runs,
            "replications": r.clusters,
            "p": r.p,
            "low": r.low,
            "high": r.high,
            "se": r.se,
            "method": r.method,
        }
        for f in meta["factors"]
        for r in pooled(store, f["path"], sides, bool(meta["crn"]), interval)
    ]


def percent(x: float) -> str:
    """A share as the summary and the outcomes plot write it: ``12.5%``, to a tenth of a
    percent (the plot's whole percents, rounded half to even, said ``12%`` of the 12.5 %
    the summary shows)."""
    return f"{100 * x:.1f}%"


def _pct(x: float | None) -> str:
    return "   –  " if x is None else f"{percent(x):>6}"


def _num(x: float | None) -> str:
    return "–" if x is None else _fixed(x) if abs(x) < 1e6 else f"{x:.3g}"


def _fixed(x: float, places: int = 1, sign: str = "") -> str:
    """``x`` to ``places`` decimals, with thousands separators (``sign`` ``"+"``: signed).

    A value that is not zero but would round to zero there is shown to two significant
    figures instead, ``0.002``, ``0.045``, ``-0.0031`` (one gun lost in 500 runs read
    "mean 0.0  sd 0.0"; an interval that stops short of zero read ``-0.0``). Zero, or a
    float's rounding error about it (below :data:`ZERO`), is ``0.0``, never ``-0.0``.
    """
    if abs(x) < ZERO:
        x = 0.0
    text = f"{x:{sign},.{places}f}"
    if x == 0 or float(text.replace(",", "")) != 0:
        return text
    figures = 1 - math.floor(math.log10(abs(x)))  # decimals for two significant figures
    return f"{x:{sign}.{figures}f}".rstrip("0")


def _stats_line(label: str, s: dict[str, float | None], width: int = 28) -> str:
    if s["sd"] == 0 and s["mean"] is not None:
        return f"  {label:<{width}} {_num(s['mean'])} in every run (no variation observed)"
    return (
        f"  {label:<{width}} mean {_num(s['mean'])}  sd {_num(s['sd'])}  median {_num(s['median'])}"
        f"  p5 {_num(s['p5'])}  p95 {_num(s['p95'])}"
    )


def turn_name(summary: dict[str, Any]) -> str:
    """The study's ruleset's word for a turn ("round" in becmi); "turn" when it is unknown."""
    try:
        return get_ruleset(str(summary["study"].get("ruleset"))).turn_name
    except LookupError:
        return "turn"


SHOWN_POINTS = 20
"""A sensitivity study (morris, sobol) prints its points' statistics up to this many points."""


def format_summary(summary: dict[str, Any], *, study_file: bool = False) -> list[str]:
    """Readable lines: per point, win probabilities with intervals, losses and turns.

    A sensitivity study (morris, sobol) leads with its answer, the indices;
    its points' statistics follow when there are at most :data:`SHOWN_POINTS`
    of them, else one line says where they are (``summary.json``). ``study_file``: the
    study was read from a study file, whose ``until_ci`` and ``replications`` an unmet
    target names unless a flag overrode them (``batch``'s are its flags).
    """
    sensitivity = _sensitivity_lines(summary)
    points = summary["points"]
    if sensitivity and len(points) > SHOWN_POINTS:
        return [
            *sensitivity,
            f"Each of the {len(points):,} design points' win rates, losses and "
            f'{plural(turn_name(summary))}: summary.json ("points")',
            *_unmet_lines(summary, study_file),
        ]
    return [*sensitivity, *_point_lines(summary), *_unmet_lines(summary, study_file)]


def _unmet_lines(summary: dict[str, Any], study_file: bool) -> list[str]:
    """The points whose target was not met, the target and the runs named as the user gave
    them: a flag, or a study file's field (a flag given to ``study`` overrides it)."""
    if not summary.get("unmet_targets"):
        return []
    unmet = ", ".join(str(p) for p in summary["unmet_targets"])
    w = summary["study"]["until_ci"]
    flags = summary["study"].get("overrides", {}) if study_file else ("until_ci", "replications")
    target = f"--until-ci {w:g}" if "until_ci" in flags else f"until_ci {w:g} (the study file's)"
    runs = "--runs" if "replications" in flags else "the study file's replications"
    points = "point" if len(summary["unmet_targets"]) == 1 else "points"
    return [f"Target {target} not met at {points} {unmet}: raise {runs}"]


def _point_lines(summary: dict[str, Any]) -> list[str]:
    """Per point: win probabilities with intervals, losses and turns; then the comparisons."""
    turns = plural(turn_name(summary))
    words = loss_words(summary)
    lines = []
    method = summary["study"].get("interval", "wilson")
    lines.append(f"Win and draw rates with 95 % {INTERVAL_NAMES[method]} intervals")
    for pt in summary["points"]:
        failed = f", {pt['failed']:,} failed" if pt["failed"] else ""
        pilot = pt.get("pilot")
        extra = f" (after a pilot of {pilot['runs']:,}, not summarised)" if pilot else ""
        lines.append(f"Point {pt['point']} ({pt['label']}): {_runs(pt['done'])}{failed}{extra}")
        losses = [
            (f"{pt['win'][sid]['name']} {loss_label(kind, words)}", stats)
            for sid, kinds in pt["losses"].items()
            for kind, stats in kinds.items()
        ]
        wins = [(agree(w["name"], "wins"), w) for w in pt["win"].values()]
        labels = [label for label, _ in [*wins, *losses]]
        width = max(28, *(len(label) for label in [*labels, turns]))  # the longest keeps a column
        for label, w in wins:
            lines.append(_rate_line(label, w, pt["done"], width))
        lines.append(_rate_line("draw", pt["draw"], pt["done"], width))
        for label, stats in losses:
            lines.append(_stats_line(label, stats, width))
        lines.append(_stats_line(turns, pt["turns"], width))
        for error, n in list(pt["errors"].items())[:3]:
            lines.append(f"  failed ×{n}: {error}")
        lines.extend(_stop_lines(pt, summary["study"]["until_ci"]))
    lines.extend(_comparison_lines(summary))
    return lines


INTERVAL_NAMES = {"wilson": "Wilson score", "clopper-pearson": "Clopper–Pearson (exact)",
                  "jeffreys": "Jeffreys"}  # fmt: skip


def _rate_line(label: str, r: dict[str, Any], n: int, width: int = 28) -> str:
    text = f"  {label:<{width}} {_pct(r['p'])}  [{_pct(r['low'])}, {_pct(r['high'])}]"
    if r.get("observed") == "none":
        text += f"  never in {_runs(n)}"
    elif r.get("observed") == "all":
        text += f"  in all {_runs(n)}" if n != 1 else "  in its one run"
    return text


def _runs(n: int) -> str:
    """``1 run``, ``1,920 runs``: a count of runs as every study line words it."""
    return count(n, "run", spec=",")


def _stop_lines(pt: dict[str, Any], until_ci: float | None) -> list[str]:
    if until_ci is None or pt["half_width"] is None:
        return []
    hw = f"{100 * pt['half_width']:.1f} %"  # --until-ci's, whatever the summary's interval
    target = f"{100 * until_ci:g} %"
    if "pilot" not in pt:  # a study of the old sequential rule
        if pt["stopped"] == "ci":
            return [f"  stopped: ci — Wilson half-width {hw} ≤ {target} after {_runs(pt['done'])}"]
        return [
            f"  stopped: runs — cap of {_runs(pt['runs'])} reached, Wilson half-width {hw} > "
            f"{target}: TARGET NOT MET"
        ]
    pilot = pt["pilot"]["runs"]
    if pt["stopped"] == "runs":
        return [
            f"  stopped: runs — the pilot's {_runs(pilot)} asked for more than the cap "
            f"left; {agree(_runs(pt['runs']), 'gives')} Wilson half-width {hw}"
            + (f" ≤ {target}: target met" if pt["target_met"] else f" > {target}: TARGET NOT MET")
        ]
    met = "≤" if pt["target_met"] else ">"
    tail = "" if pt["target_met"] else ": TARGET NOT MET (the pilot's sizing missed)"
    return [
        f"  stopped: ci — the pilot's {_runs(pilot)} sized the sample at "
        f"{_runs(pt['runs'])}; "
        f"Wilson half-width {hw} {met} {target}{tail}"
    ]


def _signed(x: float | None, measure: str, places: int = 1) -> str:
    """``+1.2`` (``+1.2 pts`` for a win rate), to ``places`` decimals. Zero, or a float's
    rounding error about it (a bound of ``-4e-17`` where the runs never varied), is
    ``+0.0``; a value that is not zero but rounds to it is shown to two significant
    figures (:func:`_fixed`), ``-0.0031``: the interval stops short of zero, and says by
    how much (it read ``-0.0``)."""
    if x is None:
        return "–"
    if measure == "win_rate":
        return f"{_fixed(100 * x, places, '+')} pts"
    return _fixed(x, places, "+")


def _places(*values: float | None) -> int:
    """Decimals enough for a difference and its bounds: 1, or 3 when one of them that is
    not zero rounds to zero at 1 (a -0.005 [-0.024, +0.012] said -0.0 [-0.0, +0.0], which
    read as no variation where the plot showed some; -0.1 [-0.2, -0.008] said its
    interval ended at -0.0). One still zero at 3 shows its own figures (:func:`_fixed`)."""
    return 3 if any(v is not None and ZERO <= abs(v) < 0.05 for v in values) else 1


UNPAIRED = "unpaired (no common random numbers: batch --crn, or crn: true in a study file)"
"""How a comparison without CRN is said, with both ways to ask for CRN (``study`` has no
--crn: its file's ``crn``)."""

ZERO = 1e-9
"""Below this a difference or a bound is zero, its sign a float's rounding error."""


_PAIRED_WORDS = {
    "newcombe-paired": "method 10, uncorrected",
    "newcombe-paired-cc": "method 11, continuity-corrected",
}


def _comparison_lines(summary: dict[str, Any]) -> list[str]:
    rows = summary.get("comparisons") or []
    if not rows:
        return []
    points = summary["points"]
    base = summary["baseline"]
    how = (
        "paired (CRN: the same replications); 95 % intervals: win rates Newcombe's paired "
        f"score ({_PAIRED_WORDS[summary['study'].get('paired_interval', PAIRED_DEFAULT)]}), "
        "losses Student's t"
        if rows[0]["paired"]
        else f"{UNPAIRED}; 95 % intervals: win rates Newcombe's score, losses Welch's t"
    )
    names = {sid: w["name"] for sid, w in points[0]["win"].items()}
    sd = {(v["point"], v["side"], v["measure"]): v for v in summary.get("variance_reduction", [])}
    lines = [f"Differences from point {base} ({points[base]['label']}) — {how}:"]
    said_as = {
        (c["side"], c["measure"]): said(summary, names, c["side"], c["measure"]) for c in rows
    }
    width = max(30, *(len(label) for label in said_as.values()))  # the longest keeps a column
    current = None
    for c in rows:
        if c["point"] != current:
            current = c["point"]
            lines.append(f"  Point {current} ({points[current]['label']}):")
        label = said_as[(c["side"], c["measure"])]
        scale = 100 if c["measure"] == "win_rate" else 1
        places = _places(*(None if x is None else scale * x for x in
                           (c["difference"], c.get("ci_low"), c.get("ci_high"))))  # fmt: skip
        if (few := _few_runs(summary, c)) is not None:  # a difference known, its interval not
            lines.append(f"    {label:<{width}} {few}")
            continue
        text = f"    {label:<{width}} {_signed(c['difference'], c['measure'], places):>11}  "
        v = sd.get((c["point"], c["side"], c["measure"]))
        if c.get("method") == "no-variation":  # paired runs that varied, by the same each pair
            varied = v is not None and bool(v["unpaired_sd"])
            lines.append(text + ("the same in every pair" if varied else "no variation observed"))
            continue
        low, high = (_signed(c[k], c["measure"], places) for k in ("ci_low", "ci_high"))
        text += f"[{low}, {high}]"
        if v is not None and v["paired_sd"] is not None and v["unpaired_sd"]:
            # in the difference's own unit: a win rate's in points, as the plot draws it
            unit = " pts" if c["measure"] == "win_rate" else ""
            paired, unpaired = (_fixed(scale * v[k]) + unit for k in ("paired_sd", "unpaired_sd"))
            text += f"  sd {paired} paired vs {unpaired} unpaired"
        lines.append(text)
    return lines


def _few_runs(summary: dict[str, Any], c: dict[str, Any]) -> str | None:
    """A loss's difference where a point has fewer than two runs, which no interval has (Welch's
    and Student's t need two): ``-12.0  [no interval: one run a point]`` from the points'
    own means, or ``+0.0  no variation observed`` when it is the same and never varied;
    None where the runs are enough or the comparison is a win rate's."""
    if c["difference"] is not None or c["measure"] == "win_rate":
        return None
    ends = [summary["points"][k] for k in (c["baseline"], c["point"])]
    done = [pt["done"] for pt in ends]
    if min(done) >= 2:
        return None
    if done == [1, 1]:
        why = "one run a point"
    else:
        k, n = min(((pt["point"], n) for pt, n in zip(ends, done, strict=True)), key=lambda x: x[1])
        why = f"no run done at point {k}" if n == 0 else f"one run at point {k}"
    stats = [_measure_stats(pt, c["side"], c["measure"]) for pt in ends]
    if any(st.get("mean") is None for st in stats):  # draws: not in a point's block
        return f"{'–':>11}  [no interval: {why}]"
    mean_b, mean_p = (st["mean"] for st in stats)
    varied = any(st.get("sd") for st in stats)
    if abs(mean_p - mean_b) < ZERO and not varied:
        return f"{_signed(0.0, c['measure']):>11}  no variation observed"
    return f"{_signed(mean_p - mean_b, c['measure']):>11}  [no interval: {why}]"


def _measure_stats(pt: dict[str, Any], side: str | None, measure: str) -> dict[str, Any]:
    """A point's statistics of a compared measure (its losses of a kind, its turns); empty
    for a measure its block does not hold (a side's random draws)."""
    stats: dict[str, Any] | None = None
    if measure == "turns":
        stats = pt.get("turns")
    elif measure.startswith("losses.") and side is not None:
        stats = pt.get("losses", {}).get(side, {}).get(measure.removeprefix("losses."))
    return stats or {}


def _f(x: float | None, width: int = 6) -> str:
    """An index to three decimals; one that rounds to zero from below is ``0.000``, never
    ``-0.000`` (format's ``z``)."""
    return "    –" if x is None else f"{x:z{width}.3f}"


def _flag_text(ix: dict[str, Any]) -> str:
    words = [f["flag"] + ("!" if f["beyond_interval"] else "") for f in ix.get("flags", [])]
    return ("   flags: " + " ".join(words)) if words else ""


def _denoised_text(ix: dict[str, Any], why: str) -> str:
    """``   ST without noise  0.110``, or ``–`` and ``why`` there is none, or ``–`` and why
    when it is below zero (summary.json keeps the number): the factor's differences are
    no larger than their noise, and a share of variance is not negative (it read
    ``-0.001``, or ``-0.000`` for a float's rounding error about zero, which is 0)."""
    if "ST_noise_corrected" not in ix:  # a summary made before it
        return ""
    corrected = ix["ST_noise_corrected"]
    if corrected is None:
        return f"   ST without noise {_f(corrected)} ({why})"
    if corrected <= -ZERO:
        return f"   ST without noise {_f(None)} ({_BELOW_NOISE})"
    return f"   ST without noise {_f(corrected if corrected > 0 else 0.0)}"


_BELOW_NOISE = "below 0: the factor's differences are no larger than their noise"
"""Why a noise-corrected total index below zero is printed ``–``: its numerator, the mean
squared difference the factor makes less the noise of those differences, is negative."""


def _no_denoised(summary: dict[str, Any]) -> str:
    """Why a noise-corrected total index is None, in words (the same for every index of a
    measure): a pair of points without two shared runs to estimate its noise from, or a
    variance between the points no larger than that noise (sim/batch/methods/indices.py)."""
    done = [pt["done"] for pt in summary["points"]]
    if max(done) < 2:
        return "one run a point: no noise estimate"
    if min(done) < 2:
        return "a point of one run: no noise estimate"
    if any(pt["failed"] for pt in summary["points"]):  # the pairs' shared runs are not said
        return f"too few runs shared by a pair of points, or {_NO_VARIANCE}"
    return _NO_VARIANCE


_NO_VARIANCE = "no variance left once noise is taken out"
"""The corrected variance is not positive: the points differ by no more than their noise."""


def _index_text(method: str, ix: dict[str, Any], why: str = "") -> str:
    if method == "sobol":
        return (
            f"S1 {_f(ix['S1'])} [{_f(ix['S1_low'])}, {_f(ix['S1_high'])}]   "
            f"ST {_f(ix['ST'])} [{_f(ix['ST_low'])}, {_f(ix['ST_high'])}]"
            f"{_denoised_text(ix, why)}{_flag_text(ix)}"
        )
    return (
        f"μ* {_f(ix['mu_star'])} [{_f(ix['mu_star_low'])}, {_f(ix['mu_star_high'])}]   "
        f"σ {_f(ix['sigma'])}   μ {_f(ix['mu'])}"
    )


def _noise_text(m: dict[str, Any]) -> str:
    share = m.get("noise_share")
    if share is None:
        return ""
    warn = ": the points differ mostly by noise" if share > 1 else ""
    return f" (replication noise {100 * share:,.0f} % of the variance between points{warn})"


def said(summary: dict[str, Any], names: dict[str, str], side: str | None, measure: str) -> str:
    """A compared measure in words, the battle's length in the ruleset's own word ("rounds"
    for becmi), as each point's block says it (the text and the charts alike)."""
    if side is None and measure == "turns":
        return plural(turn_name(summary))
    side_name = names.get(side, side) if side is not None else None
    return measure_label(side_name, measure, loss_words(summary))


def _sensitivity_lines(summary: dict[str, Any]) -> list[str]:
    sens = summary.get("sensitivity")
    if not sens:
        return []
    names = {sid: w["name"] for sid, w in summary["points"][0]["win"].items()}
    if sens["method"] == "sobol":
        head = f"Sobol' indices ({sens['base_samples']} base samples, "
    else:
        head = f"Morris elementary effects ({sens['base_samples']} trajectories, "
    # the method and its resamples, as the JSON names them (a summary before them: the method)
    resamples = f", {sens['resamples']:,} resamples" if sens.get("resamples") else ""
    method = f"95 % percentile bootstrap interval{resamples}"
    lines = [head + f"{sens['design_points']} points; [{method}]):"]
    width = max((len(ix["factor"]) for m in sens["measures"] for ix in m["indices"]), default=10)
    why = _no_denoised(summary)
    flagged = False
    for m in sens["measures"]:
        label = said(summary, names, m["side"], m["measure"])
        if m.get("error"):
            lines.append(f"  {label}: {m['error']}")
            continue
        lines.append(f"  {label}:{_noise_text(m)}")
        for ix in m["indices"]:
            flagged = flagged or bool(ix.get("flags"))
            lines.append(f"    {ix['factor']:<{width}}  {_index_text(sens['method'], ix, why)}")
    if flagged:
        from sim.batch.methods.indices import WIDE  # noqa: PLC0415  # numpy only for sensitivity studies

        lines.append(
            "  flags: S1<0, S1>1 outside [0, 1]; S1>ST first order above total; "
            f"ST>1 total above 1; wide: an interval wider than {WIDE}; "
            "! beyond its interval (not noise)"
        )
    return lines
