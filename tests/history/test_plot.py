"""The history figure's layout holds what a case file may say: the longest case id (40
characters, of letters or digits) is not cut at the left, and titles of capitals, digits,
unbroken words or 1,300 characters stay inside the figure and meet neither the figure's title
nor the row above (the layout is worked out in inches, not by constrained layout)."""

from __future__ import annotations

import math
from types import SimpleNamespace
from typing import Any

import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.text import Text

from sim.history.plot import _figure

LONG_ID = "a_rather_long_case_identifier_of_forty_c"
LONG_LABEL = " ".join(["the share of the brigade's men lost before the reserve came up"] * 3)


def _measure(label: str, verdict: str) -> Any:
    estimate = SimpleNamespace(value=0.4, low=0.3, high=0.5, method="Student t")
    accept = SimpleNamespace(min=0.2, max=0.6)
    spec = SimpleNamespace(label=label, accept=accept, historical=0.45)
    return SimpleNamespace(spec=spec, estimate=estimate, verdict=verdict, spread=None)


def _case(case_id: str, *measures: Any) -> Any:
    spec = SimpleNamespace(split="held_out")
    return SimpleNamespace(case=SimpleNamespace(id=case_id, spec=spec), measures=list(measures))


def _boxes(results: list[Any]) -> tuple[list[tuple[str, Any]], Any]:
    """Each row's drawn extent (its title, case id, axis and the tick labels drawn) and the
    figure's title's, with the figure's box, in pixels."""
    fig = _figure(results)
    canvas = FigureCanvasAgg(fig)
    canvas.draw()
    renderer = canvas.get_renderer()
    suptitle = fig.get_suptitle()
    title = next(t for t in fig.findobj(Text) if t.get_text() == suptitle)
    rows = [(ax.get_ylabel() + ": " + ax.get_title(loc="left"), ax.get_tightbbox(renderer))
            for ax in fig.axes]  # fmt: skip
    return [(suptitle, title.get_window_extent(renderer)), *rows], fig.bbox


LABELS = {
    "sentence": LONG_LABEL,
    "capitals": "P(THE UNION HOLDS MARYE'S HEIGHTS AND THE STONE WALL BELOW IT TO NIGHTFALL) " * 2,
    "one word": "ALPHABET" * 20,
    "digits": "0123456789" * 16,
    "very long": LONG_LABEL * 7,
}
"""Titles a case file may hold: words, capitals, an unbroken word, digits, 1,300 characters."""


@pytest.mark.parametrize("case_id", [LONG_ID, "0" * 40, "s"])
@pytest.mark.parametrize("kind", sorted(LABELS))
def test_long_ids_and_titles_of_many_lines_fit(case_id: str, kind: str) -> None:
    """Every row and the figure's title lie inside the figure, and no two of them meet: the
    titles of several lines first (under the figure's title) and between rows."""
    label = LABELS[kind]
    results = [
        _case(case_id, _measure(label, "fail"), _measure("P(held)", "pass")),
        _case("short", _measure(label, "inconclusive")),
    ]
    boxes, page = _boxes(results)
    assert [text.split(": ")[0] for text, _ in boxes[1:]] == [case_id, case_id, "short"]
    lines = [text.count("\n") + 1 for text, _ in boxes[1:]]
    assert lines[0] >= 3 and lines[1] == 1 and lines[2] >= 3, lines
    for text, box in boxes:
        assert box.x0 >= page.x0 and box.x1 <= page.x1, f"cut at the side: {text[:60]!r}"
        assert box.y0 >= page.y0 and box.y1 <= page.y1, f"cut at the top or bottom: {text!r}"
    met = [
        (a[:60], b[:60])
        for i, (a, p) in enumerate(boxes)
        for b, q in boxes[i + 1 :]
        if min(p.x1, q.x1) - max(p.x0, q.x0) > 0.5 and min(p.y1, q.y1) - max(p.y0, q.y0) > 0.5
    ]
    assert met == []


def test_the_runs_middle_90_percent_is_drawn_behind_the_estimate() -> None:
    """A measure with a spread gets a grey bar from its 5th to its 95th percentile, an
    infinite end drawn at the axis' edge; a probability (no spread) gets none."""
    with_runs = _measure("hits", "pass")
    with_runs.spread = (0.25, 0.55)
    beyond = _measure("ratio", "fail")
    beyond.spread = (0.1, math.inf)
    fig = _figure([_case("c", with_runs, beyond, _measure("P(held)", "pass"))])
    bars = [[ln for ln in ax.get_lines() if ln.get_color() == "#c4c4c4"] for ax in fig.axes]
    assert [len(b) for b in bars] == [1, 1, 0]
    assert list(bars[0][0].get_xdata()) == [0.25, 0.55]
    left, right = fig.axes[1].get_xlim()
    assert list(bars[1][0].get_xdata()) == [0.1, right] and left < 0.1
