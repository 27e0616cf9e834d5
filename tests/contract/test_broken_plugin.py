"""One broken plugin does not take down the tools that read every installed ruleset."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from sim.cli.main import cli
from sim.contract import registry
from tests.contract.conftest import install_plugin

NOTE = "battlesim: note: ruleset 'boom' cannot be loaded: RuntimeError: plugin exploded at import"


@pytest.fixture(autouse=True)
def boom(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """``boom`` installed as a plugin whose module raises at import, then removed."""
    entry = "[battlesim.rulesets]\nboom = tests.contract.boom:RULESET\n"
    where = str(install_plugin(tmp_path_factory.mktemp("site"), "boom-plugin", entry))
    sys.path.insert(0, where)
    yield
    sys.path.remove(where)
    registry._broken.pop("boom", None)
    sys.modules.pop("tests.contract.boom", None)


def _cli(*args: str) -> Result:
    return CliRunner().invoke(cli, list(args), prog_name="battlesim")


def test_scenarios_lists_the_others_and_notes_the_broken_one() -> None:
    """musket's examples are still listed; one note names the plugin and its error; exit 0."""
    result = _cli("scenarios", "--json")
    assert result.exit_code == 0, result.output
    files = {s["file"] for s in json.loads(result.stdout)["scenarios"]}
    assert {"stone_wall.yaml", "pips_duel.yaml"} <= files
    assert result.stderr.splitlines() == [NOTE]


def test_new_schema_and_odds_work_beside_a_broken_plugin(tmp_path: Path) -> None:
    """new writes its file and schema, schema prints, odds lists the others: each with the note."""
    made = _cli("new", "musket", str(tmp_path / "x.yaml"))
    assert made.exit_code == 0 and (tmp_path / "x.yaml").is_file(), made.output
    assert made.stderr.splitlines() == [NOTE]
    schema = _cli("schema")
    assert schema.exit_code == 0
    assert "boom" not in json.loads(schema.stdout)["discriminator"]["mapping"]
    odds = _cli("odds", "--help")
    assert odds.exit_code == 0 and "musket-fire" in odds.stdout
    assert odds.stderr.splitlines() == [NOTE]


def test_the_broken_plugin_itself_is_refused_in_one_line() -> None:
    """run on a scenario of the broken ruleset: one error line, exit 2."""
    result = _cli("check-ruleset", "boom")
    assert result.exit_code == 2
    assert "boom" in result.stderr and "Traceback" not in result.output
