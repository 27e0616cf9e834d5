"""Names on the viewer page: hidden characters shown as ``\\uNNNN``, right-to-left names isolated.

U+202E in a unit's name reverses the narrative line that tells it, and a
zero-width space makes "69th New \\u200bYork" look like "69th New York"; the
page's data shows them escaped, as ``battlesim show`` prints them
(:func:`engine.safety.text.one_line`).  A legitimate Arabic name keeps the
number after it where the line puts it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from engine.events import Override
from sim import api
from sim.cli import cli
from sim.replay.viewer.model import _detail, battle_view
from tests.viewer.browser import open_page
from tests.viewer.conftest import ROOT

SCENARIO = (ROOT / "scenarios" / "stone_wall.yaml").read_text(encoding="utf-8")
HIDDEN = ("\u202e", "\u200b", "\u2066", "\ufeff")
"""A bidirectional override, a zero-width space, an isolate and a byte-order mark."""
ARABIC = "عربي"


def _battle(folder: Path, edits: dict[str, str]) -> Path:
    """The stone wall battle at seed 1862 with ``edits`` made to its scenario; the replay."""
    text = SCENARIO
    for old, new in edits.items():
        assert old in text, old
        text = text.replace(old, new, 1)
    scenario, replay = folder / "s.yaml", folder / "s.jsonl"
    scenario.write_text(text, encoding="utf-8")
    result = CliRunner().invoke(cli, ["run", str(scenario), "--seed", "1862", "--out", str(replay)])
    assert result.exit_code == 0, result.output
    return replay


@pytest.fixture(scope="module")
def hidden(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Names holding a bidirectional override, a zero-width space and more."""
    return _battle(
        tmp_path_factory.mktemp("hidden"),
        {
            "name: Stone wall at Marye's Heights": 'name: "Stone wall\\u2066 at Marye\'s Heights"',
            "name: 28th Massachusetts,": 'name: "28th Massachusetts\\u202E",',
            "name: 69th New York,": 'name: "69th New \\u200BYork",',
            "    name: Union\n": '    name: "Uni\\uFEFFon"\n',
        },
    )


def _strings(value: Any) -> list[str]:
    """Every string in plain JSON data, keys too."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for k, v in value.items() for s in (k, *_strings(v))]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


def test_no_hidden_character_reaches_the_page(hidden: Path) -> None:
    """The page holds none of the hidden characters, in its data or its HTML, and each name
    is there with them spelled out, where a reader sees it."""
    page = CliRunner().invoke(cli, ["report", str(hidden), "-o", str(hidden.with_suffix(".html"))])
    assert page.exit_code == 0, page.output
    html = hidden.with_suffix(".html").read_text(encoding="utf-8")
    assert [c for c in HIDDEN if c in html] == []
    view = battle_view(api.load_replay(hidden))
    data = json.loads(json.dumps(view.data))
    assert [s for s in _strings(data) if any(c in s for c in HIDDEN)] == []
    assert data["meta"]["title"] == "Stone wall\\u2066 at Marye's Heights"
    names = {u["id"]: u["name"] for u in data["units"]}
    assert (names["28ma"], names["69ny"]) == ("28th Massachusetts\\u202e", "69th New \\u200bYork")
    assert {u["side_name"] for u in data["units"]} == {"Uni\\ufeffon", "Confederate"}
    assert data["sides"][0]["name"] == "Uni\\ufeffon"
    assert view.series.names[("unit", "69ny")] == "69th New \\u200bYork"
    assert view.series.names[("side", "usa")] == "Uni\\ufeffon"
    told = [e["line"] for e in data["events"] if e["line"] and "28th Massachusetts" in e["line"]]
    assert told and all("28th Massachusetts\\u202e" in line for line in told)
    assert [r.name for r in view.first if r.id == "69ny"] == ["69th New \\u200bYork"]
    assert "<td><bdi>69th New \\u200bYork</bdi></td>" in html  # the casualties table


def test_a_value_a_fork_set_is_shown_escaped_in_the_details() -> None:
    """A counterfactual's value holding U+202E (the one string an event takes from the user)
    is escaped in the event's Details JSON; an event without one keeps its model's JSON."""
    forged = Override(seq=3, turn=1, time=0.0, path="units.69ny.name", value="x\u202ey")
    plain = Override(seq=3, turn=1, time=0.0, path="units.69ny.strength", value=6)
    assert json.loads(_detail(forged))["value"] == "x\\u202ey"
    assert _detail(plain) == plain.model_dump_json()


def test_an_arabic_name_keeps_the_number_after_it(browser: Any, tmp_path: Path) -> None:
    """The summary line "عربي: 42 men..." draws the name first and the number after it
    (not "42 :عربي"), in the static summary and in the table's side cells."""
    replay = _battle(tmp_path, {"    name: Confederate\n": f"    name: {ARABIC}\n"})
    page = tmp_path / "a.html"
    assert CliRunner().invoke(cli, ["report", str(replay), "-o", str(page)]).exit_code == 0
    with open_page(browser, page) as loaded:
        lefts = loaded.page.evaluate(
            """(name) => {
              const li = [...document.querySelectorAll('ul.summary li')]
                .find((l) => l.textContent.startsWith(name + ':'));
              const text = li.textContent;
              const at = (i, n) => {
                const r = document.createRange();
                let node = li, k = i;
                const walk = document.createTreeWalker(li, NodeFilter.SHOW_TEXT);
                while ((node = walk.nextNode())) {
                  if (k < node.length) break;
                  k -= node.length;
                }
                r.setStart(node, k);
                r.setEnd(node, k + n);
                return r.getBoundingClientRect().left;
              };
              const digit = text.search(/[0-9]/);
              return [at(0, 1), at(digit, 1)];
            }""",
            ARABIC,
        )
        assert loaded.errors == []
    name_left, number_left = lefts
    assert name_left < number_left
