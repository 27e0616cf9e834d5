"""The report page reads at a glance: labels never overlap, details wrap, markers carry strength,
facing and the current event's fire or melee (headless Chromium, every golden replay).

Expectations come from the replays through the ruleset contract (units, engagements),
never from the page's own data.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from sim import api
from sim.contract import UnitRow
from sim.replay.viewer import diff_html, report_html
from tests.viewer.browser import open_page
from tests.viewer.conftest import GOLDENS, ROOT

STEMS = [p.stem for p in GOLDENS]

OVERLAPS = """() => {
  // step through every timeline point; at each, every pair of shown labels whose boxes meet
  const v = window.battleViewer;
  const found = [];
  let shown = 0;
  for (let i = v.min; i < v.points.length; i += 1) {
    v.go(i);
    const boxes = [...document.querySelectorAll(
      "svg.field text.ulabel, svg.field text.flabel, svg.field .aloft text, "
      + "svg.field text.shot-result")].filter((t) => t.getClientRects().length
        && getComputedStyle(t).display !== "none"
        && t.closest("g.unit")?.getAttribute("visibility") !== "hidden")
      .map((t) => [t.textContent, t.getBoundingClientRect()]);
    shown = Math.max(shown, boxes.length);
    for (let a = 0; a < boxes.length; a += 1) {
      for (let b = a + 1; b < boxes.length; b += 1) {
        const [p, q] = [boxes[a][1], boxes[b][1]];
        const w = Math.min(p.right, q.right) - Math.max(p.left, q.left);
        const h = Math.min(p.bottom, q.bottom) - Math.max(p.top, q.top);
        if (w > 0.5 && h > 0.5) found.push([i, boxes[a][0], boxes[b][0]]);
      }
    }
  }
  return { found: found.slice(0, 10), shown };
}"""


def _replay(stem: str) -> Path:
    return ROOT / "replays" / f"{stem}.jsonl"


@pytest.mark.parametrize("stem", STEMS)
def test_no_two_labels_overlap_at_any_step(browser: Any, pages: dict[str, Path], stem: str) -> None:
    """At every step of the battle, no two map labels' boxes intersect (and labels are shown)."""
    with open_page(browser, pages[stem]) as v:
        result = v.page.evaluate(OVERLAPS)
        assert result["found"] == []
        assert result["shown"] > 0
        assert v.errors == []


@pytest.mark.parametrize("width", [1000, 1400, 2600])
@pytest.mark.parametrize("stem", ["coral_sea-s1942", "carrier_duel-s688", "stone_wall-s1862"])
def test_details_wrap_inside_their_column(
    browser: Any, pages: dict[str, Path], stem: str, width: int
) -> None:
    """The unit table and an event's details fit their boxes: nothing runs off to the side."""
    with open_page(browser, pages[stem], width=width) as v:
        page = v.page
        page.keyboard.press("End")
        wrap = page.eval_on_selector(".table-wrap", "w => [w.scrollWidth, w.clientWidth]")
        assert wrap[0] <= wrap[1]
        page.click(".narrative li[data-i]")
        details = page.eval_on_selector(".details", "d => [d.scrollWidth, d.clientWidth]")
        assert details[0] <= details[1]
        assert v.errors == []


def _words(value: Any) -> str:
    """A detail as the page should print it (lists joined by commas, never brackets)."""
    if isinstance(value, list):
        return ", ".join(_words(v) for v in value) or "none"
    return str(value)


def test_lists_in_details_print_as_words(browser: Any, pages: dict[str, Path]) -> None:
    """A flattop task force's ships show as "ships lexington, …", not as a JSON array."""
    loaded = api.load_replay(_replay("coral_sea-s1942"))
    rows = loaded.ruleset.units(loaded.scenario, loaded.state_at())
    listed = [r for r in rows if any(isinstance(v, list) for v in r.details.values())]
    assert listed  # the task forces list their ships
    with open_page(browser, pages["coral_sea-s1942"]) as v:
        v.page.keyboard.press("End")
        for r in listed:
            cell = v.page.inner_text(f'.units-table tr[data-unit="{r.id}"] td.more')
            for key, value in r.details.items():
                if isinstance(value, list):
                    assert f"{key.replace('_', ' ')} {_words(value)}" in cell
            assert "[" not in cell and '"' not in cell


def _cell(row: UnitRow, shown_details: Any) -> str:
    """A row's details cell as the page should print it: the ruleset's shown details."""
    return "; ".join(f"{k.replace('_', ' ')} {_words(v)}" for k, v in shown_details(row).items())


def test_a_becmi_combatant_without_cover_shows_no_cover_kind(
    browser: Any, pages: dict[str, Path]
) -> None:
    """The unit table printed a cover kind beside no cover ("cover none; cover kind soft"),
    as `show`'s table did: it shows the ruleset's shown_details ("cover kind -"), at the
    start (a keyframe), after each of the first events (their changes) and at the end."""
    loaded = api.load_replay(_replay("dungeon_skirmish-s3"))
    rs, sc = loaded.ruleset, loaded.scenario
    states = [rs.units(sc, before) for _, before in loaded.fold()][:16]
    with open_page(browser, pages["dungeon_skirmish-s3"]) as v:
        page = v.page

        def cells() -> dict[str, str]:
            return dict(
                page.eval_on_selector_all(
                    ".units-table tr[data-unit]",
                    "ts => ts.map(t => [t.dataset.unit, t.querySelector('td.more').innerText])",
                )
            )

        page.keyboard.press("Home")
        for k, rows in enumerate(states):
            assert cells() == {r.id: _cell(r, rs.shown_details) for r in rows}, f"event {k}"
            page.keyboard.press("ArrowRight")
        page.keyboard.press("End")
        end = cells()
        assert end["alaric"] == "cover none; cover kind -"
        assert end["pip"] == "cover quarter; cover kind hard"
        assert end == {r.id: _cell(r, rs.shown_details) for r in rs.units(sc, loaded.state_at())}
        assert v.errors == []


def _engagements(stem: str) -> list[tuple[int, list[tuple[str, str, str, str]]]]:
    """(index of event, [(kind, actor, target, result)]) of each event with engagements."""
    loaded = api.load_replay(_replay(stem))
    rs, sc = loaded.ruleset, loaded.scenario
    out = []
    for i, event in enumerate(loaded.events):
        found = [(e.kind, e.actor, e.target, e.result) for e in rs.engagements(sc, event)]
        if found:
            out.append((i, found))
    return out


@pytest.mark.parametrize("stem", ["stone_wall-s1862", "tavern_brawl-s377", "coral_sea-s1942"])
def test_the_current_fire_or_melee_is_drawn_from_actor_to_target(
    browser: Any, pages: dict[str, Path], stem: str
) -> None:
    """Stepping to an event that fires or charges draws its engagements, each with its result."""
    events = _engagements(stem)
    assert events
    with open_page(browser, pages[stem]) as v:
        page = v.page
        drawn_any = 0
        for i, found in events[:12]:
            page.evaluate(f"window.battleViewer.gotoEvent(window.battleViewer.panes[0], {i})")
            drawn = page.eval_on_selector_all(
                "svg.field g.shot-group",
                "gs => gs.map(g => [g.classList[1], g.dataset.actor, g.dataset.target,"
                " g.dataset.result])",
            )
            assert all(tuple(d) in found for d in drawn)
            drawn_any += len(drawn)
        page.keyboard.press("Home")
        assert page.locator("svg.field g.shot-group").count() == 0  # the start: nothing fired
        assert drawn_any > 0
        assert v.errors == []


def test_markers_carry_strength_as_a_bar(browser: Any, pages: dict[str, Path]) -> None:
    """Each shown unit's bar is its strength's fraction of the start (the contract's rows)."""
    loaded = api.load_replay(_replay("stone_wall-s1862"))
    rows = {r.id: r for r in loaded.ruleset.units(loaded.scenario, loaded.state_at())}
    with open_page(browser, pages["stone_wall-s1862"]) as v:
        v.page.keyboard.press("End")
        shown = v.page.eval_on_selector_all(
            "svg.field g.unit:not([visibility=hidden])",
            "gs => gs.map(g => [g.dataset.unit, Number(g.dataset.fraction),"
            " Number(g.querySelector('.bar').getAttribute('width')),"
            " Number(g.querySelector('.bar-back').getAttribute('width'))])",
        )
        assert shown
        for unit, fraction, bar, back in shown:
            r = rows[unit]
            assert fraction == pytest.approx(r.strength.value / r.initial.value, abs=5e-4)
            assert bar == pytest.approx(back * fraction, abs=0.11)


def test_a_unit_with_a_facing_gets_a_wedge_pointing_that_way(
    browser: Any, pages: dict[str, Path], tmp_path: Path
) -> None:
    """A ruleset whose rows give ``facing`` has a wedge drawn that way (musket's, away from
    each side's retreat edge); without it (becmi), none."""
    loaded = api.load_replay(_replay("stone_wall-s1862"))
    rs = loaded.ruleset
    units = rs.units

    def facing_units(sc: Any, state: Any) -> list[UnitRow]:
        return [r.model_copy(update={"facing": 90.0}) for r in units(sc, state)]

    facing = replace(loaded, ruleset=replace(rs, units=facing_units))  # through the contract
    path = tmp_path / "facing.html"
    path.write_text(report_html(facing), encoding="utf-8")
    with open_page(browser, path) as v:
        wedges = v.page.eval_on_selector_all(
            "svg.field g.unit:not([visibility=hidden])",
            "gs => gs.map(g => [g.dataset.facing, g.querySelector('.facing').getBBox().x])",
        )
        assert wedges and all(f == "90" for f, _ in wedges)
        assert all(x > 0 for _, x in wedges)  # 90 degrees: towards the first axis (right)
    with open_page(browser, pages["stone_wall-s1862"]) as v:  # musket v3: units face
        faces = v.page.eval_on_selector_all(
            "svg.field g.unit[data-facing]", "gs => gs.map(g => g.dataset.facing)"
        )
        assert set(faces) == {"0", "180"}  # away from the south and north retreat edges
    with open_page(browser, pages["tavern_brawl-s377"]) as v:  # becmi: no facing
        assert v.page.locator("svg.field g.unit[data-facing]").count() == 0
        assert v.page.locator("svg.field g.unit path.facing[d^=M]").count() == 0


CHART_OVERLAPS = """() => {
  // every pair of legend texts (names and "+N more") in each chart whose boxes meet
  const found = [];
  let legends = 0;
  for (const svg of document.querySelectorAll("svg.chart")) {
    const boxes = [...svg.querySelectorAll("text.legend")]
      .map((t) => [t.textContent, t.getBoundingClientRect()]);
    legends += boxes.length;
    for (let a = 0; a < boxes.length; a += 1) {
      for (let b = a + 1; b < boxes.length; b += 1) {
        const [p, q] = [boxes[a][1], boxes[b][1]];
        const w = Math.min(p.right, q.right) - Math.max(p.left, q.left);
        const h = Math.min(p.bottom, q.bottom) - Math.max(p.top, q.top);
        if (w > 0.5 && h > 0.5) found.push([boxes[a][0], boxes[b][0]]);
      }
    }
  }
  return { found: found.slice(0, 10), legends };
}"""


@pytest.mark.parametrize("stem", STEMS)
def test_no_two_chart_legend_labels_overlap(
    browser: Any, pages: dict[str, Path], stem: str
) -> None:
    """A chart's legend names and its "+N more" never lie over each other (the stone wall's
    unit charts have thirteen units: twelve places, the last saying "+2 more")."""
    with open_page(browser, pages[stem]) as v:
        v.page.keyboard.press("End")
        result = v.page.evaluate(CHART_OVERLAPS)
        assert result["found"] == []
        assert result["legends"] > 0
        assert v.errors == []


@pytest.mark.parametrize("width", [400, 800])
def test_the_casualties_table_scrolls_inside_its_pane(
    browser: Any, pages: dict[str, Path], width: int
) -> None:
    """At a narrow window the casualties table scrolls inside its pane: the page itself does
    not scroll sideways (at 400 px it was 486 px wide)."""
    with open_page(browser, pages["stone_wall-s1862"], width=width) as v:
        page = v.page
        wide = page.evaluate("() => document.scrollingElement.scrollWidth")
        assert wide <= width, wide
        table = page.eval_on_selector("table.casualties", "t => t.getBoundingClientRect().right")
        assert table <= width
        assert v.errors == []


PHONE = {"width": 375, "height": 667}
"""A phone's viewport (CSS pixels)."""

PANES = """() => [...document.querySelectorAll(".pane")].map((p) => {
  const r = p.getBoundingClientRect();
  return [r.left, r.top, r.width, r.bottom];
})"""
COVERED = """() => {
  // the height of the screen the timeline's bar covers, scrolled 300 px into the first pane
  const pane = document.querySelector(".pane").getBoundingClientRect();
  window.scrollTo(0, pane.top + window.scrollY + 300);
  const r = document.querySelector(".controls").getBoundingClientRect();
  return Math.max(0, Math.min(r.bottom, innerHeight) - Math.max(r.top, 0));
}"""


def _diff_page(tmp_path: Path) -> Path:
    """The diff page of two golden battles."""
    a, b = (api.load_replay(_replay(s)) for s in ("stone_wall-s1862", "chancellorsville-s1863"))
    page = tmp_path / "diff.html"
    page.write_text(diff_html(a, b), encoding="utf-8")
    return page


def test_a_diff_page_on_a_phone_shows_one_pane_a_row_and_the_controls_scroll_away(
    browser: Any, tmp_path: Path
) -> None:
    """At 375 x 667 the two panes stack, each as wide as the page less its margins (side by
    side they were 160 px, their chart text 3 px high); scrolled down, the timeline's bar
    covers none of the screen, and the key help (no keyboard) is not shown."""
    with open_page(browser, _diff_page(tmp_path), **PHONE) as v:
        page = v.page
        (left_a, _, width_a, bottom_a), (left_b, top_b, width_b, _) = page.evaluate(PANES)
        assert left_a == left_b and top_b >= bottom_a
        assert min(width_a, width_b) >= PHONE["width"] - 30
        tick = page.evaluate(
            "document.querySelector('svg.chart text.tick').getBoundingClientRect().height"
        )
        assert tick > 5  # 9 px of a 520-wide chart in a pane of about 340 px
        assert page.evaluate(COVERED) == 0
        assert page.is_hidden(".controls .keys")
        assert page.evaluate("document.documentElement.scrollWidth") == PHONE["width"]
        assert v.errors == []


def test_a_wide_screen_keeps_two_panes_side_by_side_and_the_controls_sticky(
    browser: Any, tmp_path: Path
) -> None:
    """At 1400 px the phone's rule does not apply: the panes share a row, the bar stays on top."""
    with open_page(browser, _diff_page(tmp_path)) as v:
        (_, top_a, _, _), (_, top_b, _, _) = v.page.evaluate(PANES)
        assert top_a == top_b
        assert v.page.evaluate(COVERED) > 0
        assert v.page.is_visible(".controls .keys")
