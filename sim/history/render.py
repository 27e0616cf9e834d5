"""The suite's results as a text table (what ``battlesim history`` prints) and as JSON.

The fitting cases and the held-out cases are shown apart, each set with its
own summary line; then the sources, how the verdicts are taken, and how many
failures chance alone would give (docs/history.md, *Verdicts*).
"""

from __future__ import annotations

import math
from typing import Any

from engine.safety.text import one_line
from sim.history.bands import attribution, band_of, case_band, figure, placement
from sim.history.case import Split
from sim.history.predictive import ALPHA, METHOD, Predictive
from sim.history.run import CaseResult, MeasureResult
from sim.text.grammar import agree, count

__all__ = ["SETS", "as_json", "beyond_summary", "by_chance", "set_summary", "table"]

_HEAD = (
    "measure",
    "simulated",
    "95 % interval",
    "method",
    "history",
    "accepted",
    "result",
    "record's p",
    "",
)

SETS: dict[Split, tuple[str, str]] = {
    "fitting": ("fitting", "Fitting set: the cases rule defaults may be chosen on"),
    "held_out": (
        "held out",
        "Held-out set: cases no default was chosen on (the model's score)",
    ),
}
"""Each set's name in its summary line, and its section's heading."""

_WORD = {"pass": "pass", "fail": "FAIL", "inconclusive": "inconclusive"}
EDGE = 0.025
"""The chance that a 95 % interval lies wholly beyond a true value on one given side."""


def _num(x: float) -> str:
    """Three significant figures (``0.0617``, ``10.5``); from a thousand up, the whole
    number with thousands separators (``1,126``), never ``1.13e+03``."""
    if math.isnan(x):
        return "n/a"
    text = f"{x:.3g}"
    return f"{x:,.0f}" if "e+" in text and math.isfinite(x) else text


def _record(r: Predictive | None) -> str:
    """The record's two-sided predictive p, ``beyond`` when it is below ``ALPHA``."""
    if r is None:
        return "n/a"
    # three figures: at two, a p just under the cutoff (2 · 10/201 = 0.0995) reads 0.1
    return f"{r.p:.3g} beyond" if r.beyond else f"{r.p:.3g}"


def _row(m: MeasureResult, ref: int) -> tuple[str, ...]:
    e = m.estimate
    return (
        one_line(m.spec.label),
        _num(e.value),
        f"[{_num(e.low)}, {_num(e.high)}]",
        e.method.replace(" 95 %", ""),
        _num(m.spec.historical),
        m.spec.accept.text(),
        _WORD[m.verdict],
        _record(m.record),
        f"[{ref}]",
    )


def _lines(rows: list[tuple[str, ...]]) -> list[str]:
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return [
        "  " + "  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip() for r in rows
    ]


def runs_text(res: CaseResult) -> str:
    """Which runs were fought: ``seed 1862, runs 0–199``, and the doublings if any (counts of
    a thousand or more with thousands separators: ``runs 0–1,599 (200, 400, 800: …)``)."""
    spec = res.case.spec
    text = f"seed {spec.seed}, runs 0–{res.runs - 1:,}"
    if len(res.looks) > 1:
        before = ", ".join(f"{n:,}" for n in res.looks[:-1])
        steps = zip(res.looks, res.looks[1:], strict=False)
        if all(after == 2 * n for n, after in steps):
            text += f" ({before}: inconclusive, doubled)"
        else:  # the last step stopped at --max-runs
            text += f" ({before}: inconclusive, more runs to the cap of {res.looks[-1]:,})"
    return text


def _case(res: CaseResult, sources: list[str]) -> list[str]:
    spec = res.case.spec
    out = [f"{spec.id}: {one_line(spec.title)}"]
    what = f"{one_line(res.case.source_name)}, {runs_text(res)}"
    out.append(f"  {one_line(spec.battle)} — {what}" if spec.battle else f"  {what}")
    rows: list[tuple[str, ...]] = [_HEAD]
    for m in res.measures:
        text = one_line(" ".join(m.spec.source.split()))
        if text not in sources:
            sources.append(text)
        rows.append(_row(m, sources.index(text) + 1))
    out.extend(_lines(rows))
    out.append("")
    return out


def _band_rows(results: list[CaseResult]) -> list[tuple[str, ...]]:
    rows: list[tuple[str, ...]] = [
        (
            "case",
            "attacker ÷ defender",
            "95 % interval",
            "CDB90 band (battles)",
            "p10",
            "p25",
            "p50",
            "p75",
            "p90",
            "where",
            "",
        )
    ]
    for r in results:
        if r.ruleset != "musket":
            continue
        if r.band is None:
            rows.append((r.case.id, "—", "", "no band assigned", *[""] * 6, ""))
            continue
        found = case_band(r.case)
        assert found is not None  # r.band is its measure
        band, e = band_of(found.band), r.band.estimate
        where = placement(e.value, band)
        note = ""
        if where == "above p90":
            note = (
                f"reason: {one_line(found.reason)}"
                if found.reason
                else "ABOVE p90: needs a sourced reason"
            )
        rows.append(
            (
                r.case.id,
                _num(e.value),
                f"[{_num(e.low)}, {_num(e.high)}]",
                f"{band.label} ({band.battles})",
                *(figure(q) for q in band.quantiles.values()),
                where,
                note,
            )
        )
    return rows


def bands_section(results: list[CaseResult]) -> list[str]:
    """Each musket case's attacker ÷ defender loss ratio beside its CDB90 band."""
    rows = _band_rows(results)
    if len(rows) == 1:
        return []
    return [
        "Loss ratios against CDB90: the attacker's loss over the defender's, in men (delta "
        "method 95 %), beside the ratios of the real battles of its era and posture",
        *_lines(rows),
        f"  {attribution()}",
        "",
    ]


def _counts(results: list[CaseResult]) -> dict[str, int]:
    measures = [m for r in results for m in r.measures]
    return {
        "cases": len(results),
        "cases_passed": sum(r.passed for r in results),
        "measures": len(measures),
        "pass": sum(m.verdict == "pass" for m in measures),
        "fail": sum(m.verdict == "fail" for m in measures),
        "inconclusive": sum(m.verdict == "inconclusive" for m in measures),
    }


def set_summary(split: Split, results: list[CaseResult]) -> str:
    """``held out: 9 of 11 measures pass (1 FAIL, 1 inconclusive); 3 of 5 cases pass.``"""
    name = SETS[split][0]
    mine = [r for r in results if r.case.spec.split == split]
    if not mine:
        return f"{name}: no cases."
    c = _counts(mine)
    measures = agree(f"{c['pass']} of {count(c['measures'], 'measure')}", "passes")
    cases = agree(f"{c['cases_passed']} of {count(c['cases'], 'case')}", "passes")
    return f"{name}: {measures} ({c['fail']} FAIL, {c['inconclusive']} inconclusive); {cases}."


def _beyond(results: list[CaseResult]) -> tuple[int, int]:
    """(records beyond the runs' spread, measures with a record's p) over ``results``."""
    found = [m.record for r in results for m in r.measures if m.record is not None]
    return sum(x.beyond for x in found), len(found)


def beyond_summary(results: list[CaseResult], split: Split | None = None) -> str:
    """``Records beyond the runs' spread (...): fitting 9 of 64 measures, held out 13 of 44;
    were each record one more run of the model, at most 6.4 and 4.4 would be expected.``"""
    counts = []
    for s in SETS:
        mine = [r for r in results if r.case.spec.split == s]
        if mine and (split is None or s == split):
            counts.append((SETS[s][0], *_beyond(mine)))
    if not counts:
        return "Records beyond the runs' spread: no measures."
    found = ", ".join(f"{name} {k} of {count(n, 'measure')}" for name, k, n in counts)
    bound = " and ".join(f"{ALPHA * n:.1f}" for _, _, n in counts)
    return (
        f"Records beyond the runs' spread (record's p < {ALPHA:g}: two-sided, (k + 1)/(n + 1) "
        f"a tail): {found}; were each record one more run of the model, at most {bound} "
        "would be expected."
    )


def by_chance(results: list[CaseResult]) -> dict[str, float | int]:
    """How many measures would fail by chance alone, if every true value met its range.

    A measure fails when its 95 % interval lies wholly outside the range; if
    the true value is inside the range, that needs the interval to lie wholly
    beyond the true value on one side, which a 95 % interval does with
    probability 2.5 % on each side. So at each look (a verdict taken: the
    first runs and each doubling) a measure whose true value sits on an edge
    of its range fails with probability 2.5 % (``at_edge``), and one whose
    true value is anywhere in the range with at most 2.5 % for a one-sided
    range, 5 % for a two-sided one (``at_most``), at each look. Both are
    summed over looks and measures: a union bound over the looks (the doubling
    fails a true edge value in 7.65 % of four looks, not 10 %,
    tests/history/test_coverage.py), and nominal, since each figure is as good
    as its interval's coverage: at 200 runs a Wilson interval lies wholly on one
    side of a true share near 0 or 1 in up to 9 % (p = 0.0025; 6 % at 0.01), a
    mean of nearly constant whole numbers in about 12 % (tests/history/test_coverage.py).
    """
    looks = at_most = 0.0
    measures = 0
    for r in results:
        for m in r.measures:
            measures += 1
            looks += len(r.looks)
            at_most += len(r.looks) * EDGE * m.spec.accept.sides
    return {
        "measures": measures,
        "looks": int(looks),
        "at_edge": EDGE * looks,
        "at_most": at_most,
    }


def table(
    results: list[CaseResult], max_runs: int | None = None, split: Split | None = None
) -> list[str]:
    """The lines ``battlesim history`` prints: each set's cases, the sources, the summaries
    (of both sets — ``held out: no cases.`` when there are none — or of ``split`` alone)."""
    sources: list[str] = []
    out: list[str] = []
    present = [s for s in SETS if any(r.case.spec.split == s for r in results)]
    for shown in present:
        out.append(SETS[shown][1])
        out.append("")
        for res in results:
            if res.case.spec.split == shown:
                out.extend(_case(res, sources))
    out.extend(bands_section(results))
    out.append("Sources:")
    out.extend(f"  [{i}] {s}" for i, s in enumerate(sources, 1))
    out.append("")
    cap = f", up to {count(max_runs, 'run', spec=',')}" if max_runs is not None else ""
    if max_runs is not None and any(r.case.spec.runs > max_runs for r in results):
        cap += " (a case whose own runs are more is fought once, at its own)"
    out.append(
        "Verdicts: pass when the whole 95 % interval lies within the accepted range, FAIL when "
        "it lies wholly outside it, inconclusive otherwise; a case with an inconclusive "
        f"measure is fought again with twice the runs{cap}."
    )
    chance = by_chance(results)
    out.append(
        f"By chance alone, if every true value met its range: nominally {chance['at_edge']:.2f} "
        f"of the {count(chance['measures'], 'measure')} would FAIL with each true value on an "
        f"edge of its range, {chance['at_most']:.2f} with it anywhere within (2.5 % a look on "
        f"each side, summed over {count(chance['looks'], 'look')}: a union bound at the "
        "intervals' nominal "
        "level; an interval that covers less than it says, a Wilson interval near 0 or 1 or "
        "a mean of nearly constant runs, fails more often)."
    )
    out.append(beyond_summary(results, split))
    out.extend(set_summary(s, results) for s in SETS if split is None or s == split)
    return out


def _finite(x: float) -> float | None:
    return None if math.isnan(x) else x


def _case_json(r: CaseResult) -> dict[str, Any]:
    spec = r.case.spec
    return {
        "id": r.case.id,
        "title": spec.title,
        "battle": spec.battle,
        "file": r.case.source_name,
        "split": spec.split,
        "seed": spec.seed,
        "runs": r.runs,
        "runs_asked": spec.runs,
        "replications": [0, r.runs - 1],
        "looks": list(r.looks),
        "verdict": r.verdict,
        "passed": r.passed,
        "loss_band": _band_json(r),
        "measures": [
            {
                "id": m.spec.id,
                "label": m.spec.label,
                "kind": m.spec.kind,
                "statistic": m.spec.statistic,
                "value": _finite(m.estimate.value),
                "low": _finite(m.estimate.low),
                "high": _finite(m.estimate.high),
                "method": m.estimate.method,
                "runs": m.estimate.n,
                "historical": m.spec.historical,
                "accept": {"min": m.spec.accept.min, "max": m.spec.accept.max},
                "source": " ".join(m.spec.source.split()),
                "verdict": m.verdict,
                "passed": m.passed,
                "record": _record_json(m.record),
                "spread": _spread_json(m.spread),
            }
            for m in r.measures
        ],
    }


def _spread_json(runs: tuple[float, float] | None) -> list[float | None] | None:
    """The runs' 5th and 95th percentiles; an infinite one (a ratio over 0) as null."""
    return None if runs is None else [x if math.isfinite(x) else None for x in runs]


def _record_json(r: Predictive | None) -> dict[str, Any] | None:
    if r is None:
        return None
    return {
        "runs": r.runs,
        "at_or_below": r.at_or_below,
        "at_or_above": r.at_or_above,
        "p": r.p,
        "beyond": r.beyond,
    }


def _band_json(r: CaseResult) -> dict[str, Any] | None:
    if r.band is None:
        return None
    found = case_band(r.case)
    assert found is not None  # r.band is its measure
    band, e = band_of(found.band), r.band.estimate
    where = placement(e.value, band)
    return {
        "band": band.id,
        "label": band.label,
        "battles": band.battles,
        "quantiles": band.quantiles,
        "attacker": found.attacker,
        "defender": found.defender,
        "battle": found.battle,
        "value": _finite(e.value),
        "low": _finite(e.low),
        "high": _finite(e.high),
        "method": e.method,
        "runs": e.n,
        "placement": where,
        "above_p90": where == "above p90",
        "reason": found.reason,
        "flagged": where == "above p90" and found.reason is None,
    }


def as_json(results: list[CaseResult], max_runs: int | None = None) -> dict[str, Any]:
    """The results as plain JSON data (``battlesim history --json``; docs/history.md)."""
    sets = {}
    for split in SETS:
        mine = [r for r in results if r.case.spec.split == split]
        beyond, checked = _beyond(mine)
        sets[split] = {
            **_counts(mine),
            "beyond": beyond,
            "record_checked": checked,
            "summary": set_summary(split, results),
        }
    return {
        "passed": all(r.passed for r in results),
        "verdicts": {k: _counts(results)[k] for k in ("pass", "fail", "inconclusive")},
        "max_runs": max_runs,
        "by_chance": by_chance(results),
        "record_check": {"alpha": ALPHA, "method": METHOD},
        "cdb90": attribution(),
        "sets": sets,
        "cases": [_case_json(r) for r in results],
    }
