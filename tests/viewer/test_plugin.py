"""A plugin ruleset gets a viewer without writing HTML: the toy ``relay`` on its one-axis track."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

import sim.ruleset
from sim import api
from sim.cli import cli
from tests.viewer.browser import open_page
from tests.viewer.expect import shown_rows, turns_of, unit_rows_at
from tests.viewer.test_page import NETWORK, well_formed
from tests.viewer.toy import SCENARIO


@pytest.fixture
def relay(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """The relay ruleset installed as a plugin would be; its race fought to a replay."""
    monkeypatch.setitem(sim.ruleset.BUILTIN, "relay", "tests.viewer.toy:RULESET")
    monkeypatch.setattr(sim.ruleset, "_loaded", dict(sim.ruleset._loaded))
    scenario = tmp_path / "relay.yaml"
    scenario.write_text(SCENARIO, encoding="utf-8")
    replay = tmp_path / "relay.jsonl"
    result = CliRunner().invoke(cli, ["run", str(scenario), "--out", str(replay)])
    assert result.exit_code == 0, result.output
    yield replay


def test_a_plugin_report_parses_has_charts_and_no_network(relay: Path) -> None:
    """report on the plugin's replay: a well-formed page, its two measures charted, no network."""
    out = relay.with_suffix(".html")
    assert CliRunner().invoke(cli, ["report", str(relay), "-o", str(out)]).exit_code == 0
    page = out.read_text(encoding="utf-8")
    assert well_formed(page) == [] and NETWORK.search(page) is None
    assert re.findall(r'data-measure="([^"]+)"', page) == ["distance", "stamina"]
    loaded = api.load_replay(relay)
    fallen = [r.name for r in loaded.ruleset.units(loaded.scenario, loaded.state_at()) if r.status]
    assert fallen and all(f"{name}: fallen" in page for name in fallen)


def test_a_plugin_page_shows_its_runners_where_the_fold_puts_them(
    relay: Path, browser: Any
) -> None:
    """On the unknown 'track' space each runner's mark sits where the fold says at every leg."""
    out = relay.with_suffix(".html")
    assert CliRunner().invoke(cli, ["report", str(relay), "-o", str(out)]).exit_code == 0
    loaded = api.load_replay(relay)
    with open_page(browser, out) as v:
        v.page.keyboard.press("Home")
        for turn in turns_of(loaded):
            v.page.keyboard.press("PageDown")
            assert shown_rows(v.page) == unit_rows_at(loaded, loaded.state_at(turn))
        assert v.page.get_attribute("svg.field", "data-kind") == "track"
        assert v.errors == []
