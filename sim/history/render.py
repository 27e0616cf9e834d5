"""The suite's results as a text table (what ``battlesim history`` prints) and as JSON."""

from __future__ import annotations

import math
from typing import Any

from sim.history.run import CaseResult, MeasureResult

__all__ = ["as_json", "table"]

_HEAD = ("measure", "simulated", "95 % interval", "method", "history", "accepted", "result", "")


def _num(x: float) -> str:
    if math.isnan(x):
        return "n/a"
    return f"{x:.3g}"


def _row(m: MeasureResult, ref: int) -> tuple[str, ...]:
    e = m.estimate
    return (
        m.spec.label,
        _num(e.value),
        f"[{_num(e.low)}, {_num(e.high)}]",
        e.method.removesuffix(" 95 %"),
        _num(m.spec.historical),
        m.spec.accept.text(),
        "pass" if m.passed else "FAIL",
        f"[{ref}]",
    )


def _lines(rows: list[tuple[str, ...]]) -> list[str]:
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return [
        "  " + "  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip() for r in rows
    ]


def table(results: list[CaseResult]) -> list[str]:
    """The lines ``battlesim history`` prints: each case's measures, then the sources."""
    sources: list[str] = []
    out: list[str] = []
    for res in results:
        spec = res.case.spec
        out.append(f"{spec.id}: {spec.title}")
        what = f"{res.case.source_name}, {spec.runs} runs, seed {spec.seed}"
        out.append(f"  {spec.battle} — {what}" if spec.battle else f"  {what}")
        rows: list[tuple[str, ...]] = [_HEAD]
        for m in res.measures:
            text = " ".join(m.spec.source.split())
            if text not in sources:
                sources.append(text)
            rows.append(_row(m, sources.index(text) + 1))
        out.extend(_lines(rows))
        out.append("")
    passed = sum(r.passed for r in results)
    out.append("Sources:")
    out.extend(f"  [{i}] {s}" for i, s in enumerate(sources, 1))
    out.append("")
    out.append(f"{passed} of {len(results)} cases pass.")
    return out


def _finite(x: float) -> float | None:
    return None if math.isnan(x) else x


def as_json(results: list[CaseResult]) -> dict[str, Any]:
    """The results as plain JSON data (``battlesim history --json``)."""
    return {
        "passed": all(r.passed for r in results),
        "cases": [
            {
                "id": r.case.id,
                "title": r.case.spec.title,
                "battle": r.case.spec.battle,
                "file": r.case.source_name,
                "runs": r.case.spec.runs,
                "seed": r.case.spec.seed,
                "passed": r.passed,
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
                        "passed": m.passed,
                    }
                    for m in r.measures
                ],
            }
            for r in results
        ],
    }
