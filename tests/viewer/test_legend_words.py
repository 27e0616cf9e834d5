"""The map has a terrain legend, and no word of the unit table is cut between two lines
(headless Chromium, every golden replay; what to expect comes from the ruleset's `space`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from sim import api
from tests.viewer.browser import open_page
from tests.viewer.conftest import GOLDENS, ROOT

STEMS = [p.stem for p in GOLDENS]

CUT_WORDS = """() => {
  // every word of letters in the unit table whose text takes more than one line box
  const cut = [];
  const walker = document.createTreeWalker(
    document.querySelector(".units-table"), NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    for (const m of node.textContent.matchAll(/[A-Za-z]{2,}/g)) {
      const range = document.createRange();
      range.setStart(node, m.index);
      range.setEnd(node, m.index + m[0].length);
      const tops = new Set([...range.getClientRects()].map((r) => Math.round(r.top)));
      if (tops.size > 1) cut.push(m[0]);
    }
  }
  return cut;
}"""


def _terrain(stem: str) -> set[str]:
    loaded = api.load_replay(ROOT / "replays" / f"{stem}.jsonl")
    space = loaded.ruleset.space(loaded.scenario)
    return {f.name for f in space.features if f.kind == "terrain"}


@pytest.mark.parametrize("stem", STEMS)
def test_the_map_has_a_legend_of_its_terrain(
    browser: Any, pages: dict[str, Path], stem: str
) -> None:
    """One legend entry per kind of terrain the ruleset's space has, none when it has none."""
    with open_page(browser, pages[stem]) as v:
        names = v.page.eval_on_selector_all(
            ".map .terrain-legend li", "(items) => items.map((i) => i.dataset.name)"
        )
        assert sorted(names) == sorted(_terrain(stem))
        assert len(names) == len(set(names))
        assert v.errors == []


def test_the_stone_wall_legend_reads_as_words(browser: Any, pages: dict[str, Path]) -> None:
    """The stone wall's legend says its terrain in words, with its cover, beside a swatch."""
    with open_page(browser, pages["stone_wall-s1862"]) as v:
        texts = v.page.eval_on_selector_all(
            ".map .terrain-legend li", "(items) => items.map((i) => i.textContent)"
        )
        swatches = v.page.locator(".map .terrain-legend li .tint").count()
    assert swatches == len(texts) >= 1
    assert any(t.startswith("stone wall") for t in texts)
    assert all("_" not in t.split(" (")[0] for t in texts)


@pytest.mark.parametrize("width", [700, 1000, 1400])
@pytest.mark.parametrize("stem", STEMS)
def test_no_word_of_the_unit_table_is_cut(
    browser: Any, pages: dict[str, Path], stem: str, width: int
) -> None:
    """At the battle's end, at three window widths, every word of letters in the unit table
    sits on one line ("infantry", never "infan" over "try")."""
    with open_page(browser, pages[stem], width=width) as v:
        v.page.keyboard.press("End")
        assert v.page.evaluate(CUT_WORDS) == []


UNDER_MARKS = """() => {
  // step through every timeline point; at each, every objective's name that a shown unit's
  // mark (its body or strength bar) covers
  const v = window.battleViewer;
  const found = [];
  let named = 0;
  for (let i = v.min; i < v.points.length; i += 1) {
    v.go(i);
    const names = [...document.querySelectorAll("svg.field text.flabel")]
      .filter((t) => getComputedStyle(t).display !== "none")
      .map((t) => [t.textContent, t.getBoundingClientRect()]);
    named = Math.max(named, names.length);
    const marks = [...document.querySelectorAll(
      "svg.field g.unit .body, svg.field g.unit .bar-back")]
      .filter((m) => m.closest("g.unit").getAttribute("visibility") !== "hidden"
        && getComputedStyle(m).display !== "none")
      .map((m) => [m.closest("g.unit").dataset.unit, m.getBoundingClientRect()]);
    for (const [name, p] of names) {
      for (const [unit, q] of marks) {
        const w = Math.min(p.right, q.right) - Math.max(p.left, q.left);
        const h = Math.min(p.bottom, q.bottom) - Math.max(p.top, q.top);
        if (w > 0.5 && h > 0.5) found.push([i, name, unit]);
      }
    }
  }
  return { found: found.slice(0, 10), named };
}"""


@pytest.mark.parametrize("stem", STEMS)
def test_no_unit_covers_an_objectives_name(browser: Any, pages: dict[str, Path], stem: str) -> None:
    """At every step, no shown unit's mark or strength bar lies over an objective's name (the
    names' clash with the units' own labels is test_layout's)."""
    loaded = api.load_replay(ROOT / "replays" / f"{stem}.jsonl")
    named = [f for f in loaded.ruleset.space(loaded.scenario).features if f.kind != "terrain"]
    with open_page(browser, pages[stem]) as v:
        result = v.page.evaluate(UNDER_MARKS)
    assert result["found"] == []
    assert (result["named"] > 0) == bool(named)
