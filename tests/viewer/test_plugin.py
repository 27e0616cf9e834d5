"""A plugin ruleset gets a viewer without writing HTML: the contract suite's toy ``pips``.

``pips`` fights on a line of squares, a kind of space the viewer does not
know; it is installed through a dist-info entry point as the contract suite
installs it (``tests/contract/conftest.py``).
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from sim import api
from sim.cli import cli
from sim.contract import registry
from tests.contract.conftest import install_toy
from tests.contract.toy import SCENARIOS
from tests.viewer.browser import open_page
from tests.viewer.expect import shown_rows, turns_of, unit_rows_at
from tests.viewer.pagecheck import NETWORK, well_formed


@pytest.fixture(scope="module")
def pips(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, Path]]:
    """The toy plugin installed, its duel fought and reported: (replay, page)."""
    where = str(install_toy(tmp_path_factory.mktemp("site")))
    sys.path.insert(0, where)
    try:
        out = tmp_path_factory.mktemp("pips")
        replay, page = out / "duel.jsonl", out / "duel.html"
        run = CliRunner().invoke(cli, ["run", str(SCENARIOS[0]), "--out", str(replay)])
        assert run.exit_code == 0, run.output
        report = CliRunner().invoke(cli, ["report", str(replay), "-o", str(page)])
        assert report.exit_code == 0, report.output
        yield replay, page
    finally:
        sys.path.remove(where)
        registry._loaded.pop("pips", None)


def test_a_plugin_report_charts_its_measures_and_names_its_fallen(pips: tuple[Path, Path]) -> None:
    """The page parses, charts each (scope, measure) the toy reports, names its downed fighters."""
    replay, page_path = pips
    page = page_path.read_text(encoding="utf-8")
    assert well_formed(page) == [] and NETWORK.search(page) is None
    loaded = api.load_replay(replay)
    rs, sc = loaded.ruleset, loaded.scenario
    measures = {(r.scope, r.measure.name) for r in rs.measures(sc, loaded.state_at(0))}
    charted = re.findall(r'data-scope="([^"]+)" data-measure="([^"]+)"', page)
    assert sorted(charted) == sorted(measures)
    down = [r for r in rs.units(sc, loaded.state_at()) if r.status]
    assert down and all(f"{r.name}: {r.status[0]}" in page for r in down)


def test_a_plugin_page_shows_its_fighters_where_the_fold_puts_them(
    pips: tuple[Path, Path], browser: Any
) -> None:
    """On the unknown 'line' space each fighter's mark sits where the fold says at every turn."""
    replay, page = pips
    loaded = api.load_replay(replay)
    with open_page(browser, page) as v:
        v.page.keyboard.press("Home")
        for turn in turns_of(loaded):
            v.page.keyboard.press("PageDown")
            assert shown_rows(v.page) == unit_rows_at(loaded, loaded.state_at(turn))
        assert v.page.get_attribute("svg.field", "data-kind") == "line"
        assert v.errors == []
