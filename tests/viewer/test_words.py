"""The page's static text reads right: key events, chart titles, axis ticks (no browser)."""

from __future__ import annotations

import re
from html import unescape
from itertools import pairwise
from pathlib import Path

import pytest

from sim.replay.viewer.charts import TICK_CHAR, chart_svgs, tick_step
from sim.replay.viewer.model import Series
from tests.viewer.conftest import GOLDENS, ROOT

STEMS = [p.stem for p in GOLDENS]


@pytest.mark.parametrize("stem", STEMS)
def test_key_events_name_the_turn_once(pages: dict[str, Path], stem: str) -> None:
    """A key event reads "[seq N] Turn 2, 12:24 — …", never "turn 2: Turn 2, 12:24"."""
    page = pages[stem].read_text(encoding="utf-8")
    keys = re.findall(r'<a href="#" data-event="\d+">(.*?)</a>', page)
    assert keys
    for key in map(unescape, keys):
        assert not re.match(r"\[seq \d+\] (turn|round) \d+: ", key), key


@pytest.mark.parametrize("stem", STEMS)
def test_no_chart_title_repeats_its_unit(pages: dict[str, Path], stem: str) -> None:
    """A chart is titled "Sides: hp by round", not "Sides: hp (hp) by round"."""
    page = pages[stem].read_text(encoding="utf-8")
    titles = [unescape(t) for t in re.findall(r'<text class="title"[^>]*>(.*?)</text>', page)]
    assert titles
    for title in titles:
        repeated = re.search(r": (\w[\w ]*) \((\w[\w ]*)\)", title)
        assert repeated is None or repeated.group(1) != repeated.group(2), title


@pytest.mark.parametrize("stem", STEMS)
def test_counts_are_labelled_in_whole_numbers(pages: dict[str, Path], stem: str) -> None:
    """The y axis of a chart of whole values (combatants standing, hits, men) is labelled in
    whole numbers: the brawl's "standing" read 0, 0.5, 1, 1.5, 2 combatants."""
    page = pages[stem].read_text(encoding="utf-8")
    labels = re.findall(r'<text class="tick" x="2" y="[\d.]+">([^<]+)</text>', page)
    assert labels
    assert [v for v in labels if not re.fullmatch(r"\d+k?", v)] == []


def test_a_chart_of_fractions_keeps_its_quarters() -> None:
    """Values under one (a share) are still labelled 0, 0.25 … 1."""
    series = Series()
    for t in range(3):
        series.add(t, [])
    series.values[("side", "share", "share")] = {"a": [0.5, 0.25, 0.0]}
    series.names[("side", "a")] = "A"
    (svg,) = chart_svgs(series, {"a": "#000"}, "turn")
    labels = re.findall(r'<text class="tick" x="2" y="[\d.]+">([^<]+)</text>', svg)
    assert labels == ["0", "0.25", "0.5", "0.75", "1"]


def test_short_battles_label_every_turn() -> None:
    """With room for every turn's label, every turn is labelled."""
    assert [tick_step(0, n, 462) for n in (4, 12, 40)] == [1, 1, 2]


@pytest.mark.parametrize(("t0", "t1"), [(0, 12), (0, 40), (0, 100), (0, 1440), (1, 9999)])
def test_tick_labels_never_touch(t0: int, t1: int) -> None:
    """Neighbouring x-axis tick labels are at least their width plus a gap apart."""
    series = Series()
    for t in range(t0, t1 + 1, max(1, (t1 - t0) // 50)):
        series.add(t, [])
    series.turns[-1] = t1
    series.values[("side", "men", "men")] = {"a": [1.0] * len(series.turns)}
    series.names[("side", "a")] = "A"
    (svg,) = chart_svgs(series, {"a": "#000"}, "turn")
    ticks = re.findall(r'<text class="tick" x="([\d.]+)" y="(\d+)">(\d+)</text>', svg)
    xs = [(float(x), label) for x, y, label in ticks if y == ticks[0][1]]
    assert len(xs) >= 2
    width = (len(str(t1)) + 2) * TICK_CHAR
    assert all(b[0] - a[0] >= width - 0.1 for a, b in pairwise(xs))


def test_a_variants_banner_says_each_changed_input_as_diff_prints_it() -> None:
    """The stone wall against Chancellorsville: the banner's changed name reads as `battlesim
    diff` prints it, in words (it showed YAML: 'Stone wall at Marye''s Heights', quoted,
    the apostrophe doubled), and a long description is cut as there."""
    from sim import api
    from sim.replay.diff import _value, diff_replays
    from sim.replay.viewer import diff_html

    a = api.load_replay(ROOT / "replays" / "stone_wall-s1862.jsonl")
    b = api.load_replay(ROOT / "replays" / "chancellorsville-s1863.jsonl")
    page = diff_html(a, b)
    found = re.search(r'<div class="banner diff">(.*?)</div>', page, re.S)
    assert found is not None
    banner = unescape(found.group(1))
    changes = {c["path"]: c for c in diff_replays(a, b, 5)["inputs"]}
    name = changes["name"]
    assert f"changed name: {_value(name['a'])} → {_value(name['b'])}" in banner
    assert "changed name: Stone wall at Marye's Heights → " in banner
    assert "''" not in banner


def test_a_large_battles_key_statuses_say_they_were_found_at_a_turns_end() -> None:
    """Above the row budget the rows are read at turn ends only: a unit's first time in a
    status is found at the end of its turn, and its key event says "by the end of turn N"
    (it read as the turn end's own doing, [seq 544] engine.turn_ended, where the rout was
    seq 437's). Below the budget each key event is the event itself, with no such words."""
    from sim import api
    from sim.replay.viewer.model import battle_view

    loaded = api.load_replay(ROOT / "replays" / "stone_wall-s1862.jsonl")
    per_event = [r["key"] for _i, r in battle_view(loaded).keys]
    by_turn = battle_view(loaded, row_budget=1).keys
    assert not any("by the end of" in k for k in per_event)
    statuses = [(r["turn"], r["key"]) for _i, r in by_turn if ": " in r["key"]]
    assert statuses
    for turn, key in statuses:
        assert key.startswith(f"by the end of turn {turn}: "), key


@pytest.mark.parametrize(
    ("stem", "word"), [("dungeon_skirmish-s3", "round"), ("stone_wall-s1862", "turn")]
)
def test_the_timeline_steps_by_the_rulesets_own_turn(
    pages: dict[str, Path], stem: str, word: str
) -> None:
    """A becmi page's buttons said "◀◀ turn", "play by turn" and "PgUp/PgDn one turn": its
    turns are rounds, as its narrative says."""
    page = pages[stem].read_text(encoding="utf-8")
    controls = page[page.index('<nav class="controls"') : page.index("</nav>")]
    assert f"◀◀ {word}</button>" in controls and f"{word} ▶▶</button>" in controls
    assert f'<option value="turn">{word}</option>' in controls
    assert f"PgUp/PgDn one {word}," in controls
    other = {"turn": "round", "round": "turn"}[word]
    assert f" {other}" not in controls.replace('value="turn"', "")


def test_a_side_chart_says_it_counts_what_is_on_the_field() -> None:
    """The musket side charts count the men and guns of the units on the field (a unit that
    left it with men left drops out), unlike the run's men lost: "Sides: men on the field by
    turn", its unit said once; the unit is said where the name does not start with it."""
    from sim import api
    from sim.replay.viewer.charts import chart_title

    loaded = api.load_replay(ROOT / "replays" / "stone_wall-s1862.jsonl")
    rs, sc = loaded.ruleset, loaded.scenario
    titles = {
        chart_title(r.scope, r.measure.name, r.measure.unit, rs.turn_name)
        for r in rs.measures(sc, loaded.state_at(0))
        if r.scope == "side"
    }
    assert titles == {"Sides: men on the field by turn", "Sides: guns on the field by turn"}
    assert chart_title("unit", "strength", "men", "turn") == "Units: strength (men) by turn"
    assert chart_title("side", "hp", "hp", "round") == "Sides: hp by round"
