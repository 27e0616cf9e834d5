"""`scenarios` lists a plugin's examples; `new` writes a schema that validates a plugin's file."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner, Result

from sim.cli import cli
from sim.scenario import catalog
from tests.contract.phalanx import SCENARIOS as PHALANX_SCENARIOS
from tests.contract.schema_check import schema_errors
from tests.contract.toy import SCENARIOS

REPO = Path(__file__).resolve().parents[2]
DOCS_SCHEMA = REPO / "docs" / "scenario.schema.json"
"""The committed schema: the built-in rulesets' only, as an older `new` wrote it."""


def _cli(*args: str | Path) -> Result:
    result = CliRunner().invoke(cli, [str(a) for a in args], prog_name="battlesim")
    assert "Traceback" not in result.output
    return result


def test_scenarios_lists_the_folder_then_the_plugins_examples() -> None:
    """--json lists every file of scenarios/ first, then each plugin's example by ruleset name,
    with the path the ruleset gives; the text heads the toy's line with its distribution."""
    folder = sorted(p.name for p in (REPO / "scenarios").glob("*.yaml"))
    listed = json.loads(_cli("scenarios", "--json").stdout)
    got = [(s["file"], s["source"]) for s in listed["scenarios"]]
    plugins = [("phalanx_clash.yaml", "ruleset phalanx"), ("pips_duel.yaml", "ruleset pips")]
    assert got == [(f, "scenarios folder") for f in folder] + plugins
    assert listed["scenarios"][-1] == {
        "file": "pips_duel.yaml",
        "kind": "pips",
        "name": "Duel on the line",
        "summary": "Duel on the line",
        "path": str(SCENARIOS[0]),
        "source": "ruleset pips",
    }
    lines = _cli("scenarios").stdout.splitlines()
    assert lines[-2] == "examples of ruleset pips (pips-toy 0.1):"
    # no description: the name once, not "Duel on the line: Duel on the line"
    assert lines[-1].split() == ["pips_duel.yaml", "pips", "Duel", "on", "the", "line"]


BUILT_IN = ("ruleset becmi", "ruleset flattop", "ruleset musket")
"""Their examples are listed too (the checkout's own files, which this folder does not hold)."""


def test_an_example_in_the_listed_folder_is_listed_once(tmp_path: Path) -> None:
    """A scenarios folder holding the toy's example (a link to the same file) lists it once,
    from the folder; with no folder at all, the examples alone are listed."""
    folder = tmp_path / "scenarios"
    folder.mkdir()
    (folder / "pips_duel.yaml").symlink_to(SCENARIOS[0])
    found = [s for s in catalog.listed_scenarios(folder) if s.source not in BUILT_IN]
    phalanx = ("phalanx_clash.yaml", "ruleset phalanx", str(PHALANX_SCENARIOS[0]))
    assert [(s.file, s.source) for s in found] == [
        ("pips_duel.yaml", "scenarios folder"),
        phalanx[:2],
    ]
    alone = [s for s in catalog.listed_scenarios(tmp_path / "nowhere") if s.source not in BUILT_IN]
    assert [(s.file, s.source, s.path) for s in alone] == [
        phalanx,
        ("pips_duel.yaml", "ruleset pips", str(SCENARIOS[0])),
    ]


def _new(tmp_path: Path, *extra: str) -> tuple[Result, dict[str, Any], dict[str, Any]]:
    """`new pips duel.yaml --json` in ``tmp_path``: the result, its JSON and the new file."""
    result = _cli("new", "pips", tmp_path / "duel.yaml", "--json", *extra)
    assert result.exit_code == 0, result.output
    data = yaml.safe_load((tmp_path / "duel.yaml").read_text(encoding="utf-8"))
    return result, json.loads(result.stdout), data


def test_new_writes_a_schema_beside_the_file_that_validates_a_plugins_scenario(
    tmp_path: Path,
) -> None:
    """`new pips` writes scenario.schema.json beside the file, the line points at it, it
    validates the file, and it refuses the file with a fighter of 0 pips."""
    result, made, data = _new(tmp_path)
    text = (tmp_path / "duel.yaml").read_text(encoding="utf-8")
    assert text.splitlines()[0] == "# yaml-language-server: $schema=scenario.schema.json"
    assert (made["schema"], made["schema_state"], made["note"]) == (
        str(tmp_path / "scenario.schema.json"), "written", None,
    )  # fmt: skip
    assert result.stderr == ""
    schema = json.loads((tmp_path / "scenario.schema.json").read_text(encoding="utf-8"))
    assert sorted(schema["discriminator"]["mapping"]) == [
        "becmi",
        "flattop",
        "musket",
        "phalanx",
        "pips",
    ]
    assert data["name"] == "Duel" and schema_errors(schema, data) == []
    data["sides"][0]["fighters"][0]["pips"] = 0
    assert schema_errors(schema, data) == ["$.sides[0].fighters[0].pips: 0 out of bounds"]


def test_new_refreshes_its_own_older_schema(tmp_path: Path) -> None:
    """A schema battlesim wrote before pips was installed (the committed one) is rewritten to
    one that knows pips; the older one refuses the new file."""
    older = json.loads(DOCS_SCHEMA.read_text(encoding="utf-8"))
    (tmp_path / "scenario.schema.json").write_text(DOCS_SCHEMA.read_text(encoding="utf-8"))
    _, made, data = _new(tmp_path)
    assert made["schema_state"] == "written"
    assert schema_errors(older, data) == [
        "$: ruleset 'pips' is not one of ['becmi', 'flattop', 'musket']"
    ]
    schema = json.loads((tmp_path / "scenario.schema.json").read_text(encoding="utf-8"))
    assert schema_errors(schema, data) == []
    _, again, _ = _new(tmp_path, "--force")
    assert again["schema_state"] == "unchanged"


def test_new_never_overwrites_a_schema_file_it_did_not_write(tmp_path: Path) -> None:
    """A scenario.schema.json of the user's own is left byte for byte; the scenario is still
    written and stderr has one note naming the file."""
    mine = tmp_path / "scenario.schema.json"
    mine.write_text('{"title": "my own schema"}\n')
    result, made, data = _new(tmp_path)
    assert mine.read_text() == '{"title": "my own schema"}\n'
    assert (made["schema_state"], data["ruleset"]) == ("left", "pips")
    assert result.stderr == f"battlesim: note: {made['note']}\n"
    assert made["note"].startswith(f"{mine} was not written by battlesim: left as it is")
    assert len(result.stderr.splitlines()) == 1


def test_new_words_the_ruleset_with_its_article(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`new`'s line says "a pips scenario", and "an archery scenario" for a plugin named with
    a vowel first (it said "a archery scenario"); `new_scenario` is stood in for, as no
    installed ruleset's name starts with one."""
    monkeypatch.chdir(tmp_path)
    result = _cli("new", "pips", "duel.yaml")
    assert result.stdout == "Wrote duel.yaml: a pips scenario; next: battlesim validate duel.yaml\n"
    monkeypatch.setattr(catalog, "new_scenario", lambda ruleset, name, force: {"note": None})
    result = _cli("new", "archery", "bows.yaml")
    assert result.stdout == (
        "Wrote bows.yaml: an archery scenario; next: battlesim validate bows.yaml\n"
    )


def test_new_for_a_plugin_that_is_one_top_level_module_starts_from_its_example(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A ruleset whose entry point names a top-level module (``solo_pips:RULESET``, no
    package) has no package to hold a template.yaml: `new` starts from its example, as for
    a package without one (it raised ``ValueError: Empty module name`` from
    ``importlib.resources.files("")``)."""
    site = tmp_path / "site"
    site.mkdir()
    (site / "solo_pips.py").write_text("from tests.contract.toy import RULESET\n")
    monkeypatch.syspath_prepend(str(site))
    monkeypatch.setattr(catalog, "_target_and_source", lambda name: ("solo_pips:RULESET", "x"))
    file, text = catalog._template("pips")
    assert (file, text) == (str(SCENARIOS[0]), SCENARIOS[0].read_text(encoding="utf-8"))
    made = _cli("new", "pips", tmp_path / "duel.yaml")
    assert made.exit_code == 0, made.output
