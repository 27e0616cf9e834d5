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

from sim.batch.labels import loss_label, measure_label
from sim.batch.stats import wilson
from sim.batch.store import Store, point_label, quote

__all__ = ["format_summary", "summarize"]


def _stats(n: int, s: int, s2: int, q: list[float] | None) -> dict[str, float | None]:
    if n == 0:
        return {"mean": None, "sd": None, "median": None, "p5": None, "p95": None}
    sd = math.sqrt((n * s2 - s * s) / (n * (n - 1))) if n > 1 else None
    assert q is not None
    return {"mean": s / n, "sd": sd, "median": q[1], "p5": q[0], "p95": q[2]}


def _column_stats(store: Store, column: str) -> dict[int, dict[str, float | None]]:
    c = quote(column)
    rows = store.con.execute(
        f"SELECT point, count({c}), coalesce(sum({c}::HUGEINT), 0), "
        f"coalesce(sum({c}::HUGEINT * {c}), 0), quantile_cont({c}, [0.05, 0.5, 0.95]) "
        f"FROM runs WHERE status = 'done' GROUP BY point ORDER BY point"
    ).fetchall()
    return {p: _stats(int(n), int(s), int(s2), q) for p, n, s, s2, q in rows}


def _counts(store: Store) -> dict[int, dict[str, int]]:
    rows = store.con.execute(
        "SELECT point, status, coalesce(winner, ''), count(*) FROM runs GROUP BY ALL ORDER BY ALL"
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


def _interval(k: int, n: int) -> dict[str, Any]:
    iv = wilson(k, n)
    p = None if n == 0 else iv.p
    return {"count": k, "p": p, "low": iv.low, "high": iv.high}


def _stopping(entry: dict[str, Any], until_ci: float | None) -> dict[str, Any]:
    """Why a point stopped: ``ci`` (every side's half-width at most the target) or ``runs``.

    ``half_width`` is the widest side's Wilson 95 % half-width over the
    point's done runs — what ``--until-ci`` compared with its target.
    """
    done = entry["done"]
    widths = [wilson(w["count"], done).half_width for w in entry["win"].values()]
    width = max(widths) if done and widths else None
    met = until_ci is not None and width is not None and width <= until_ci
    return {"stopped": "ci" if met else "runs", "half_width": width, "target_met": met}


def summarize(store: Store, baseline: int = 0) -> dict[str, Any]:
    """The study's summary: its settings, one entry per design point, the comparisons.

    Comparisons of each point with ``baseline`` (see :mod:`sim.batch.compare`)
    are made for grid and Latin-hypercube studies of two or more points; a
    Morris or Sobol study has its sensitivity indices instead
    (:mod:`sim.batch.sensitivity`).
    """
    meta = store.meta()
    sides = {sid: (name, kinds) for sid, name, kinds in meta["sides"]}
    counts = _counts(store)
    errors = _errors(store)
    turns = _column_stats(store, "turns")
    losses = {col: _column_stats(store, col) for _, _, col in store.losses}
    points = []
    for i, values in enumerate(store.points()):
        c = counts.get(i, {})
        done = sum(n for k, n in c.items() if k.startswith("win:"))
        entry: dict[str, Any] = {
            "point": i,
            "label": point_label(values),
            "factors": values,
            "runs": done + c.get("failed", 0),
            "done": done,
            "failed": c.get("failed", 0),
            "errors": errors.get(i, {}),
            "win": {
                sid: {"name": side[0], **_interval(c.get(f"win:{sid}", 0), done)}
                for sid, side in sides.items()
            },
            "draw": _interval(c.get("win:", 0), done),
            "losses": {},
            "turns": turns.get(i, _stats(0, 0, 0, None)),
        }
        for sid, kind, col in store.losses:
            stats = losses[col].get(i, _stats(0, 0, 0, None))
            entry["losses"].setdefault(sid, {})[kind] = stats
        entry.update(_stopping(entry, meta["until_ci"]))
        points.append(entry)
    summary = {
        "study": {
            "name": meta["name"],
            "kind": meta["kind"],
            "source": meta["source"],
            "seed": meta["seed"],
            "crn": meta["crn"],
            "replications": meta["replications"],
            "design": meta["design"],
            "factors": meta["factors"],
            "until_ci": meta["until_ci"],
            "confidence": 0.95,
            "interval": "wilson",
            **({"overrides": meta["plan"]["overrides"]} if "overrides" in meta["plan"] else {}),
        },
        "points": points,
        "unmet_targets": [
            p["point"] for p in points if meta["until_ci"] is not None and not p["target_met"]
        ],
    }
    return {**summary, **_analysis(store, meta, baseline, len(points))}


def _analysis(store: Store, meta: dict[str, Any], baseline: int, npoints: int) -> dict[str, Any]:
    """The ``comparisons`` (and ``variance_reduction``) or the ``sensitivity`` block."""
    if meta["design"] in ("morris", "sobol"):
        from sim.batch.sensitivity import analyse  # noqa: PLC0415  # SALib only when needed

        return {"sensitivity": analyse(store, meta)}
    if npoints < 2:
        return {}
    from sim.batch.compare import compare  # noqa: PLC0415  # scipy only when needed

    comparisons, variance = compare(store, baseline)
    out: dict[str, Any] = {"baseline": baseline, "comparisons": comparisons}
    if variance:
        out["variance_reduction"] = variance
    return out


def _pct(x: float | None) -> str:
    return "   –  " if x is None else f"{100 * x:5.1f}%"


def _num(x: float | None) -> str:
    return "–" if x is None else f"{x:,.1f}" if abs(x) < 1e6 else f"{x:.3g}"


def _stats_line(label: str, s: dict[str, float | None]) -> str:
    return (
        f"  {label:<28} mean {_num(s['mean'])}  sd {_num(s['sd'])}  median {_num(s['median'])}"
        f"  p5 {_num(s['p5'])}  p95 {_num(s['p95'])}"
    )


def format_summary(summary: dict[str, Any]) -> list[str]:
    """Readable lines: per point, win probabilities with intervals, losses and turns."""
    lines = []
    for pt in summary["points"]:
        failed = f", {pt['failed']} failed" if pt["failed"] else ""
        lines.append(f"Point {pt['point']} ({pt['label']}): {pt['done']} runs{failed}")
        for w in pt["win"].values():
            label = f"{w['name']} wins"
            lines.append(f"  {label:<28} {_pct(w['p'])}  [{_pct(w['low'])}, {_pct(w['high'])}]")
        d = pt["draw"]
        lines.append(f"  {'draw':<28} {_pct(d['p'])}  [{_pct(d['low'])}, {_pct(d['high'])}]")
        for sid, kinds in pt["losses"].items():
            name = pt["win"][sid]["name"]
            for kind, stats in kinds.items():
                lines.append(_stats_line(f"{name} {loss_label(kind)}", stats))
        lines.append(_stats_line("turns", pt["turns"]))
        for error, n in list(pt["errors"].items())[:3]:
            lines.append(f"  failed ×{n}: {error}")
        lines.extend(_stop_lines(pt, summary["study"]["until_ci"]))
    lines.extend(_comparison_lines(summary))
    lines.extend(_sensitivity_lines(summary))
    if summary.get("unmet_targets"):
        unmet = ", ".join(str(p) for p in summary["unmet_targets"])
        w = summary["study"]["until_ci"]
        lines.append(f"Target --until-ci {w:g} not met at point(s) {unmet}: raise --runs")
    return lines


def _stop_lines(pt: dict[str, Any], until_ci: float | None) -> list[str]:
    if until_ci is None or pt["half_width"] is None:
        return []
    hw = f"{100 * pt['half_width']:.1f} %"
    if pt["stopped"] == "ci":
        return [f"  stopped: ci — half-width {hw} ≤ {100 * until_ci:g} % after {pt['done']} runs"]
    return [
        f"  stopped: runs — cap of {pt['runs']} runs reached, half-width {hw} > "
        f"{100 * until_ci:g} %: TARGET NOT MET"
    ]


def _signed(x: float | None, measure: str) -> str:
    if x is None:
        return "–"
    if measure == "win_rate":
        return f"{100 * x:+.1f} pts"
    return f"{x:+,.1f}"


def _comparison_lines(summary: dict[str, Any]) -> list[str]:
    rows = summary.get("comparisons") or []
    if not rows:
        return []
    points = summary["points"]
    base = summary["baseline"]
    how = (
        "paired (CRN: the same replications), 95 % t interval"
        if rows[0]["paired"]
        else "unpaired (no --crn), 95 % Welch interval"
    )
    names = {sid: w["name"] for sid, w in points[0]["win"].items()}
    sd = {(v["point"], v["side"], v["measure"]): v for v in summary.get("variance_reduction", [])}
    lines = [f"Differences from point {base} ({points[base]['label']}) — {how}:"]
    current = None
    for c in rows:
        if c["point"] != current:
            current = c["point"]
            lines.append(f"  Point {current} ({points[current]['label']}):")
        label = measure_label(names.get(c["side"], c["side"]), c["measure"])
        text = (
            f"    {label:<30} {_signed(c['difference'], c['measure']):>11}  "
            f"[{_signed(c['ci_low'], c['measure'])}, {_signed(c['ci_high'], c['measure'])}]"
        )
        v = sd.get((c["point"], c["side"], c["measure"]))
        if v is not None and v["paired_sd"] is not None and v["unpaired_sd"]:
            f = "{:.3f}" if c["measure"] == "win_rate" else "{:,.1f}"
            text += (
                f"  sd {f.format(v['paired_sd'])} paired vs {f.format(v['unpaired_sd'])} unpaired"
            )
        lines.append(text)
    return lines


def _index_text(method: str, ix: dict[str, Any]) -> str:
    def f(x: float | None) -> str:
        return "    –" if x is None else f"{x:6.3f}"

    if method == "sobol":
        return f"S1 {f(ix['S1'])} ± {f(ix['S1_conf'])}   ST {f(ix['ST'])} ± {f(ix['ST_conf'])}"
    return f"μ* {f(ix['mu_star'])} ± {f(ix['mu_star_conf'])}   σ {f(ix['sigma'])}   μ {f(ix['mu'])}"


def _sensitivity_lines(summary: dict[str, Any]) -> list[str]:
    sens = summary.get("sensitivity")
    if not sens:
        return []
    names = {sid: w["name"] for sid, w in summary["points"][0]["win"].items()}
    if sens["method"] == "sobol":
        head = f"Sobol' indices ({sens['base_samples']} base samples, "
    else:
        head = f"Morris elementary effects ({sens['base_samples']} trajectories, "
    lines = [head + f"{sens['design_points']} points; ± is the 95 % bootstrap half-width):"]
    width = max((len(ix["factor"]) for m in sens["measures"] for ix in m["indices"]), default=10)
    for m in sens["measures"]:
        label = measure_label(names.get(m["side"], m["side"]), m["measure"])
        if m.get("error"):
            lines.append(f"  {label}: {m['error']}")
            continue
        lines.append(f"  {label}:")
        for ix in m["indices"]:
            lines.append(f"    {ix['factor']:<{width}}  {_index_text(sens['method'], ix)}")
    return lines
