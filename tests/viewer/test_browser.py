"""The viewer in headless Chromium: every golden replay's page shows what the fold says.

Expectations come from the replay (its fold through the ruleset contract and its
JSON lines), never from the page's own data.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from sim import api
from sim.cli import cli
from sim.replay import analysis
from sim.replay.viewer import diff_html, report_html
from sim.rulesets.musket.model.events import MoraleTested
from tests.viewer.browser import open_page
from tests.viewer.conftest import GOLDENS, ROOT
from tests.viewer.expect import draws_in, events_naming, shown_rows, turns_of, unit_rows_at

STEMS = [p.stem for p in GOLDENS]


def _replay(stem: str) -> Path:
    return ROOT / "replays" / f"{stem}.jsonl"


def _draw_values(path: Path, seq: int) -> list[float]:
    """The u of every draw the event at ``seq`` records, in its line's order."""
    line = json.loads(path.read_text(encoding="utf-8").splitlines()[seq + 1])
    found: list[float] = []

    def walk(v: Any) -> None:
        if isinstance(v, list) and len(v) == 3 and isinstance(v[0], str) and type(v[1]) is int:
            found.append(float(v[2]))
        elif isinstance(v, list):
            for x in v:
                walk(x)
        elif isinstance(v, dict):
            for x in v.values():
                walk(x)

    walk(line)
    return found


def _to_turn_end(page: Any, loaded: api.LoadedReplay, turn: int) -> None:
    page.keyboard.press("Home")
    for _ in range(turns_of(loaded).index(turn) + 1):
        page.keyboard.press("PageDown")


@pytest.mark.parametrize("stem", STEMS)
def test_stepping_to_a_turn_shows_every_unit_where_the_fold_puts_it(
    browser: Any, pages: dict[str, Path], stem: str
) -> None:
    """PgDn to the middle turn's end: each unit's mark has the fold's position, strength, status."""
    loaded = api.load_replay(_replay(stem))
    turns = turns_of(loaded)
    turn = turns[len(turns) // 2]
    with open_page(browser, pages[stem]) as v:
        _to_turn_end(v.page, loaded, turn)
        assert v.page.get_attribute("body", "data-turn") == str(turn)
        assert shown_rows(v.page) == unit_rows_at(loaded, loaded.state_at(turn))
        rows = v.page.eval_on_selector_all(
            ".units-table tbody tr", "rs => rs.map(r => [r.dataset.unit, r.dataset.pos])"
        )
        expected = unit_rows_at(loaded, loaded.state_at(turn))
        assert dict(rows) == {u: row[0] for u, row in expected.items()}
        # hovering a mark (the group's own title, not its label's) names the unit and its state
        titles = dict(
            v.page.eval_on_selector_all(
                ".unit[data-unit]",
                "gs => gs.map(g => [g.dataset.unit, g.querySelector(':scope > title')"
                ".textContent])",
            )
        )
        state = loaded.state_at(turn)
        for row in loaded.ruleset.units(loaded.scenario, state):
            if row.id in titles:
                assert titles[row.id].startswith(f"{row.name} ({row.side_name}, {row.kind}) at "), (
                    titles[row.id]
                )
        v.page.keyboard.press("End")
        assert shown_rows(v.page) == unit_rows_at(loaded, loaded.state_at())
        assert v.errors == []


def test_arrow_keys_step_one_event_at_a_time_through_the_fold(
    browser: Any, pages: dict[str, Path]
) -> None:
    """→ from the start shows, after k presses, the state after the first k events."""
    loaded = api.load_replay(_replay("stone_wall-s1862"))
    with open_page(browser, pages["stone_wall-s1862"]) as v:
        v.page.keyboard.press("Home")
        for k, (_event, state) in enumerate(loaded.fold()):
            assert shown_rows(v.page) == unit_rows_at(loaded, state), f"after {k} events"
            if k == 40:
                break
            v.page.keyboard.press("ArrowRight")
        v.page.keyboard.press("ArrowLeft")
        assert v.page.get_attribute("body", "data-position") == "39"
        assert v.errors == []


@pytest.mark.parametrize("stem", STEMS)
def test_clicking_a_unit_shows_its_history_and_an_event_its_causes_and_draws(
    browser: Any, pages: dict[str, Path], stem: str, tmp_path: Path
) -> None:
    """A unit's history lists the events naming it; an event shows its why chain and draws."""
    path = _replay(stem)
    loaded = api.load_replay(path)
    rows = loaded.ruleset.units(loaded.scenario, loaded.state_at(0))
    busiest = max(rows, key=lambda r: len(events_naming(path, r.id)))
    chains = [analysis.why(loaded, e.seq) for e in loaded.events]
    deepest = max(chains, key=len)[-1][0]
    with open_page(browser, pages[stem]) as v:
        page = v.page
        page.click(f'.units-table tr[data-unit="{busiest.id}"]')
        assert page.inner_text(".pane .details h3").startswith(busiest.name)
        naming = events_naming(path, busiest.id)
        assert page.locator(".details ol.history li").count() == min(len(naming), 400) + (
            len(naming) > 400
        )
        # stepped to the end with the unit's details open, they say where it is then
        page.keyboard.press("End")
        [last] = [r for r in loaded.ruleset.units(loaded.scenario, loaded.state_at())
                  if r.id == busiest.id]  # fmt: skip
        now = page.inner_text(".details p.now")
        assert f" {last.strength.name} {last.strength.value:g} of " in now.replace(",", ""), now
        page.keyboard.press("Home")
        _to_turn_end(page, loaded, deepest.turn)
        page.click(f'.narrative li[data-seq="{deepest.seq}"]')
        assert f"Event seq {deepest.seq} — {deepest.type}" in page.inner_text(".details h3")
        chain = analysis.why(loaded, deepest.seq)
        why = page.eval_on_selector_all(
            ".details ol.why li[data-i]", "ls => ls.map(l => l.dataset.i)"
        )
        assert why == [str(e.seq) for e, _ in chain]
        assert f"Draws ({draws_in(path, deepest.seq)})" in page.inner_text(".details")
        # each draw's u as the replay holds it, never rounded: a player checks the dice by hand
        shown = page.eval_on_selector_all(
            ".details table.draws td:nth-child(4)", "ts => ts.map(t => t.textContent)"
        )
        assert [float(u) for u in shown] == _draw_values(path, deepest.seq)
        assert f"(seq {deepest.seq})" in page.inner_text(".pane-pos")
        mark = page.locator(f'svg.field g.unit[data-unit="{rows[0].id}"]')
        if mark.get_attribute("visibility") != "hidden":
            body = mark.locator("circle.body")
            body.evaluate("c => c.scrollIntoView({block: 'center'})")  # clear of the sticky bar
            body.click(force=True)
            assert page.inner_text(".pane .details h3").startswith(rows[0].name)
        shot = tmp_path / f"{stem}.png"
        page.screenshot(path=str(shot))
        assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        assert v.errors == []


def test_a_large_battle_page_holds_one_turn_of_narrative_and_keyframes_only(
    browser: Any, tmp_path: Path
) -> None:
    """Above the row budget the page is built per turn, gzip+base64, and renders one turn lazily."""
    loaded = api.load_replay(_replay("napoleonic_brigade-s1815"))
    page_path = tmp_path / "big.html"
    page_path.write_text(report_html(loaded, row_budget=0, gzip_above=0), encoding="utf-8")
    assert 'data-encoding="gzip+base64"' in page_path.read_text(encoding="utf-8")
    turns = turns_of(loaded)
    turn = turns[-2]
    with open_page(browser, page_path) as v:
        _to_turn_end(v.page, loaded, turn)
        assert shown_rows(v.page) == unit_rows_at(loaded, loaded.state_at(turn))
        in_turn = sum(1 for e in loaded.events if e.turn == turn)
        assert v.page.locator(".narrative li").count() == in_turn
        v.page.keyboard.press("ArrowRight")  # one event into the next turn: the map waits
        assert shown_rows(v.page) == unit_rows_at(loaded, loaded.state_at(turn))
        assert v.errors == []


RULES1 = ROOT / "tests" / "data" / "replays" / "stone_wall-s1862-musket-rules1.jsonl"
"""The stone wall golden as musket rules version 1 wrote it: the fork and diff pages below
are pinned to its battle (the 69th New York's failed check and the turns after it)."""


def _first_failed_check() -> MoraleTested:
    """The version-1 stone wall golden's first failed morale check of the 69th New York."""
    events = api.load_replay(RULES1).events
    return next(
        e for e in events if isinstance(e, MoraleTested) and e.unit == "69ny" and not e.passed
    )


CHECK = _first_failed_check()


@pytest.fixture(scope="module")
def forked(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The stone wall battle forked where the 69th New York failed its morale check: it holds."""
    out = tmp_path_factory.mktemp("fork") / "held.jsonl"
    args = ["fork", str(RULES1), "--at", str(CHECK.seq)]
    args += ["--set", "passed=true", "--set", f"after={CHECK.before}", "--out", str(out)]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 0, result.output
    return out


def test_a_fork_page_has_a_what_if_banner_naming_the_changed_event(
    browser: Any, forked: Path, tmp_path: Path
) -> None:
    """report on a fork: a "What if" banner with the changed event's seq, type and fields."""
    out = tmp_path / "held.html"
    assert CliRunner().invoke(cli, ["report", str(forked), "-o", str(out)]).exit_code == 0
    with open_page(browser, out) as v:
        banner = v.page.inner_text(".banner.whatif")
        assert "What if" in banner.replace("WHAT IF", "What if")
        assert f"{CHECK.type} (seq {CHECK.seq}, turn {CHECK.turn})" in banner
        assert "passed = true" in banner and f"after = {CHECK.before}" in banner
        # the parent (tests/data) is not beside the fork: its outcome is said not shown
        assert f"parent: not shown — {RULES1.name} is not beside this replay" in banner
        assert "this fork: " in banner
        assert v.errors == []


def test_diff_html_shows_both_battles_on_one_timeline_from_the_divergence(
    browser: Any, forked: Path, tmp_path: Path
) -> None:
    """diff --html: two panes start just before the check and each shows its own fold per turn."""
    parent = RULES1
    out = tmp_path / "diff.html"
    result = CliRunner().invoke(cli, ["diff", str(parent), str(forked), "--html", str(out)])
    assert result.exit_code == 1  # they differ
    a, b = api.load_replay(parent), api.load_replay(forked)
    with open_page(browser, out) as v:
        page = v.page
        assert page.locator(".pane").count() == 2
        positions = page.eval_on_selector_all(".pane-pos", "ps => ps.map(p => p.textContent)")
        s = CHECK.seq
        assert all(f"after event {s} of" in p and f"(seq {s - 1})" in p for p in positions)
        assert f"seq {s}" in page.inner_text(".banner.diff")
        page.keyboard.press("Home")  # Home is the divergence, not the start
        assert (
            page.eval_on_selector_all(".pane-pos", "ps => ps.map(p => p.textContent)") == positions
        )
        # an event of this turn before the divergence: its details say the map stays at the
        # timeline's start (they showed it as if the map were there too)
        earlier = [e.seq for e in a.events if e.turn == CHECK.turn and e.seq < s - 1]
        assert earlier
        page.click(f'.pane[data-pane="0"] .narrative li[data-seq="{earlier[0]}"]')
        assert "Before the timeline" in page.inner_text('.pane[data-pane="0"] .details')
        assert (
            page.eval_on_selector_all(".pane-pos", "ps => ps.map(p => p.textContent)") == positions
        )
        page.click(f'.pane[data-pane="0"] .narrative li[data-seq="{s}"]')
        assert "Before the timeline" not in page.inner_text('.pane[data-pane="0"] .details')
        turn = CHECK.turn + 2
        page.keyboard.press("PageDown")
        page.keyboard.press("PageDown")
        page.keyboard.press("PageDown")
        assert page.get_attribute("body", "data-turn") == str(turn)
        rows = [unit_rows_at(loaded, loaded.state_at(turn)) for loaded in (a, b)]
        for k in (0, 1):
            assert shown_rows(page, f'.pane[data-pane="{k}"] ') == rows[k]
            marked = page.eval_on_selector_all(
                f'.pane[data-pane="{k}"] .units-table tr.differs',
                "rs => rs.map(r => r.dataset.unit)",
            )
            assert sorted(marked) == sorted(u for u in rows[0] if rows[0][u] != rows[1][u])
        assert marked  # the fork has changed something by then
        assert v.errors == []


def _rows_at_turn_ends(loaded: api.LoadedReplay) -> dict[int, dict[str, tuple[str, float, str]]]:
    """turn → the fold's rows once that turn's events and every earlier one are applied
    (turn 0: the start)."""
    start = loaded.ruleset.initial_state(loaded.scenario)
    ends = {0: unit_rows_at(loaded, start)}
    ends.update({t: unit_rows_at(loaded, loaded.state_at(t)) for t in turns_of(loaded)})
    return ends


def test_a_large_battles_diff_page_compares_the_panes_at_the_same_moment(
    browser: Any, forked: Path, tmp_path: Path
) -> None:
    """Above the row budget a pane's map changes at turn ends only: mid-turn both panes show
    the turn's start and at the timeline's end of the turn both show its end, even where one
    battle's turn had fewer events (its own end came earlier on the shared timeline); a unit
    is marked as differing exactly when the two shown rows differ."""
    a, b = api.load_replay(RULES1), api.load_replay(forked)
    out = tmp_path / "diff-large.html"
    out.write_text(diff_html(a, b, row_budget=0), encoding="utf-8")
    ends = [_rows_at_turn_ends(x) for x in (a, b)]
    counts = [{t: sum(1 for e in x.events if e.turn == t) for t in turns_of(x)} for x in (a, b)]
    assert any(counts[0].get(t) != counts[1].get(t) for t in counts[0])  # what the test needs
    with open_page(browser, out) as v:
        page = v.page
        assert "change at each turn's end" in page.inner_text("p.meta")
        steps = 0
        while True:
            turn = int(page.get_attribute("body", "data-turn") or 0)
            end = "(end)" in page.inner_text("#where")
            expected = []
            for k in (0, 1):
                done = [t for t in ends[k] if t < turn or (end and t == turn)]
                expected.append(ends[k][max(done)])
            for k in (0, 1):
                assert shown_rows(page, f'.pane[data-pane="{k}"] ') == expected[k], (turn, end, k)
                marked = page.eval_on_selector_all(
                    f'.pane[data-pane="{k}"] .units-table tr.differs',
                    "rs => rs.map(r => r.dataset.unit)",
                )
                want = [u for u in expected[0] if expected[0][u] != expected[1].get(u)]
                assert sorted(marked) == sorted(want), (turn, end, k)
            before = page.get_attribute("body", "data-position")
            page.keyboard.press("ArrowRight")
            steps += 1
            if page.get_attribute("body", "data-position") == before:
                break
        assert steps > 10 and v.errors == []


def test_strikes_in_flight_are_drawn_along_their_route(
    browser: Any, pages: dict[str, Path]
) -> None:
    """On the sea map a strike whose row has a route is drawn as a line and a plane, only then."""
    loaded = api.load_replay(_replay("coral_sea-s1942"))
    rs, sc = loaded.ruleset, loaded.scenario
    with open_page(browser, pages["coral_sea-s1942"]) as v:
        v.page.keyboard.press("Home")
        seen, clicked = 0, False
        for _event, state in loaded.fold():
            flying = sorted(r.id for r in rs.units(sc, state) if r.route)
            seen += len(flying)
            drawn = v.page.eval_on_selector_all(
                "svg.field .routes g.aloft", "gs => gs.map(g => g.dataset.unit)"
            )
            assert sorted(drawn) == flying
            assert v.page.locator("svg.field .routes polyline").count() == len(flying)
            if flying and not clicked:  # its plane, clicked, opens the strike's details
                strike = next(r for r in rs.units(sc, state) if r.id == flying[0])
                v.page.click(f'svg.field .routes g.aloft[data-unit="{strike.id}"] polygon')
                assert v.page.inner_text(".details h3").startswith(strike.name)
                clicked = True
            v.page.keyboard.press("ArrowRight")
        assert seen > 0 and clicked and v.errors == []


def test_the_keys_step_the_timeline_right_after_play_by_turn_is_chosen(
    browser: Any, pages: dict[str, Path]
) -> None:
    """Choosing "play by turn" leaves the keys to the timeline: PgDn goes to the first turn's
    end, → one event on, and Space plays a turn a step (the select kept them before)."""
    loaded = api.load_replay(_replay("tavern_brawl-s377"))
    first, second = turns_of(loaded)[:2]
    with open_page(browser, pages["tavern_brawl-s377"]) as v:
        page = v.page
        page.click("#speed")  # as a reader chooses: the list opened, the next option taken
        page.keyboard.press("ArrowDown")
        page.keyboard.press("Enter")
        assert page.eval_on_selector("#speed", "s => s.value") == "turn"
        assert page.evaluate("document.activeElement.id") != "speed"
        page.keyboard.press("PageDown")
        assert page.get_attribute("body", "data-turn") == str(first)
        at = int(page.get_attribute("body", "data-position"))
        page.keyboard.press("ArrowRight")
        assert page.get_attribute("body", "data-position") == str(at + 1)
        page.keyboard.press(" ")
        page.wait_for_function(f"document.body.dataset.turn === '{second}'")
        page.keyboard.press(" ")
        assert page.inner_text("#play") == "▶ play"
        assert v.errors == []


def test_space_plays_and_pauses_and_the_buttons_step(browser: Any, pages: dict[str, Path]) -> None:
    """Space plays until paused again; the ▶ and turn ▶▶ buttons step like → and PgDn."""
    loaded = api.load_replay(_replay("tavern_brawl-s377"))
    with open_page(browser, pages["tavern_brawl-s377"]) as v:
        page = v.page
        page.keyboard.press("Home")
        page.keyboard.press(" ")
        assert page.inner_text("#play") == "❚❚ pause"
        page.wait_for_function("Number(document.body.dataset.position) >= 3")
        page.keyboard.press(" ")
        assert page.inner_text("#play") == "▶ play"
        page.keyboard.press("Home")
        page.click('[data-act="next"]')
        assert page.get_attribute("body", "data-position") == "1"
        page.click('[data-act="nextturn"]')
        first = turns_of(loaded)[0]
        assert page.get_attribute("body", "data-turn") == str(first)
        assert shown_rows(page) == unit_rows_at(loaded, loaded.state_at(first))
        page.keyboard.press("End")  # a key after a click still moves the timeline
        assert page.get_attribute("body", "data-position") == str(len(loaded.events))
        assert v.errors == []


def test_clicking_a_chart_goes_to_the_turn_under_the_pointer(
    browser: Any, pages: dict[str, Path]
) -> None:
    """A side chart's left end is turn 0, the start: a click there goes to the first position
    (it went to the end of turn 1); its right end goes to the last turn's end."""
    loaded = api.load_replay(_replay("stone_wall-s1862"))
    with open_page(browser, pages["stone_wall-s1862"]) as v:
        page = v.page
        page.keyboard.press("End")

        def click_at(key: str) -> None:
            x, y = page.eval_on_selector(
                'svg.chart[data-scope="side"]',
                f"""c => {{
                  const b = c.getBoundingClientRect(), vb = c.viewBox.baseVal;
                  return [b.left + Number(c.dataset.{key}) / vb.width * b.width,
                          b.top + b.height / 2];
                }}""",
            )
            page.mouse.click(x, y)

        page.locator('svg.chart[data-scope="side"]').first.scroll_into_view_if_needed()
        click_at("x0")
        assert page.get_attribute("body", "data-position") == "0"
        click_at("x1")
        assert page.get_attribute("body", "data-turn") == str(turns_of(loaded)[-1])
        assert v.errors == []


def test_units_and_events_open_from_the_keyboard(browser: Any, pages: dict[str, Path]) -> None:
    """A unit's row, its mark on the map and a narrative line are reached with Tab and
    opened with Enter, as a click opens them (none could be focused)."""
    loaded = api.load_replay(_replay("stone_wall-s1862"))
    first = loaded.ruleset.units(loaded.scenario, loaded.state_at(0))[0]
    with open_page(browser, pages["stone_wall-s1862"]) as v:
        page = v.page
        for selector in (
            f'.units-table tbody tr[data-unit="{first.id}"]',
            f'svg.field .unit[data-unit="{first.id}"]',
        ):
            assert page.get_attribute(selector, "tabindex") == "0"
            page.focus(selector)
            page.keyboard.press("Enter")
            assert page.inner_text(".details h3").startswith(first.name), selector
        page.keyboard.press("End")
        line = page.locator(".narrative li[data-seq]").first
        seq = line.get_attribute("data-seq")
        line.focus()
        page.keyboard.press("Enter")
        assert page.inner_text(".details h3").startswith(f"Event seq {seq} — ")
        assert v.errors == []


@pytest.mark.parametrize(
    ("stem", "unit", "said"),
    [
        ("napoleonic_brigade-s1815", "92hl", "1 event names it (click it to go there)."),
        ("coral_sea-s1942", "astoria", "no event names it."),
        ("tavern_brawl-s377", "thorgrim", "{n} events name it (click one to go there)."),
    ],
)
def test_a_units_history_counts_its_events_in_words(
    browser: Any, pages: dict[str, Path], stem: str, unit: str, said: str
) -> None:
    """The history's line agrees with its count: "1 event names it" (it said "1 events name
    it"), "no event names it" (it said "0 events name it (click one to go there)")."""
    path = _replay(stem)
    n = len(events_naming(path, unit))
    assert (n == 1) == ("1 event " in said) and (n == 0) == ("no event" in said)
    with open_page(browser, pages[stem]) as v:
        v.page.click(f'.units-table tr[data-unit="{unit}"]')
        assert v.page.inner_text(".details p.muted") == f"Its history: {said.format(n=n)}"
        assert v.errors == []
