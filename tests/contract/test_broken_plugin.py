"""One broken plugin does not take down the tools that read every installed ruleset."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from sim.cli.main import cli
from sim.contract import registry
from tests.contract.conftest import install_plugin

BOOM_LINE = 1 + Path(__file__).with_name("boom.py").read_text("utf-8").splitlines().index(
    'raise RuntimeError("plugin exploded at import")'
)
"""The line of boom.py whose raise fails its import (the module cannot be imported to ask)."""
LOAD_ERROR = (
    "ruleset 'boom' (entry point boom = tests.contract.boom:RULESET) cannot be loaded: "
    f"RuntimeError: plugin exploded at import (at boom.py:{BOOM_LINE}); fix or reinstall the "
    "plugin's package, or uninstall it"
)
"""What every tool says of the broken plugin: where its import failed, for its author."""
NOTE = f"battlesim: note: {LOAD_ERROR}"


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
    """check-ruleset of the broken ruleset: one error line naming the file and line of the
    plugin's where its import raised (it named neither), exit 2."""
    result = _cli("check-ruleset", "boom")
    boom = Path(__file__).with_name("boom.py")  # which cannot be imported to ask
    raised = 1 + boom.read_text("utf-8").splitlines().index(
        'raise RuntimeError("plugin exploded at import")'
    )
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == (
        "battlesim: error: ruleset 'boom' (entry point boom = tests.contract.boom:RULESET) "
        f"cannot be loaded: RuntimeError: plugin exploded at import (at boom.py:{raised}); fix "
        "or reinstall the plugin's package, or uninstall it\n"
    )


@pytest.mark.parametrize(
    ("files", "said"),
    [
        (  # a SyntaxError: its own file and line, not the "(rules.py, line 3)" of its words
            {"__init__.py": "from .rules import RULESET\n", "rules.py": "x = 1\n\ndef f(:\n"},
            "SyntaxError: invalid syntax (at rules.py:3)",
        ),
        (  # a dependency not installed: the plugin's line importing it
            {"__init__.py": '"""A plugin."""\n\nimport battlesim_no_such_dependency\n'},
            "ModuleNotFoundError: No module named 'battlesim_no_such_dependency' (at "
            "{package}/__init__.py:3)",
        ),
        (  # raised in battlesim's code the plugin called: the plugin's line calling it
            {
                "__init__.py": "from .rules import RULESET\n",
                "rules.py": "from engine.canonical import canonical_json\n\n"
                "def _data():\n    return canonical_json(object())\n\nRULESET = _data()\n",
            },
            "TypeError: Object of type object is not JSON serializable (at rules.py:4)",
        ),
    ],
    ids=["syntax-error", "missing-dependency", "raised-in-battlesim"],
)
def test_an_import_that_fails_is_named_at_the_plugins_file_and_line(
    tmp_path: Path, request: pytest.FixtureRequest, files: dict[str, str], said: str
) -> None:
    """A plugin package that does not import: check-ruleset names where, in one line, exit 2:
    a SyntaxError at its file and line, any other error at the last line of the plugin's own
    on its traceback (it named no file and no line)."""
    package = f"battlesim_unimportable_{request.node.callspec.id.replace('-', '_')}"
    (tmp_path / package).mkdir()
    for name, text in files.items():
        (tmp_path / package / name).write_text(text, encoding="utf-8")
    entry = f"[battlesim.rulesets]\nunimportable = {package}:RULESET\n"
    install_plugin(tmp_path, "unimportable", entry)
    sys.path.insert(0, str(tmp_path))
    try:
        result = _cli("check-ruleset", "unimportable")
    finally:
        sys.path.remove(str(tmp_path))
        for name in [m for m in sys.modules if m.startswith(package)]:
            del sys.modules[name]
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == (
        f"battlesim: error: ruleset 'unimportable' (entry point unimportable = {package}:RULESET) "
        f"cannot be loaded: {said.format(package=package)}; fix or reinstall the plugin's "
        "package, or uninstall it\n"
    )


def test_rulesets_lists_the_broken_plugin_with_its_error() -> None:
    """rulesets: the broken plugin is a BROKEN line with its import error, the others listed."""
    result = _cli("rulesets")
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    width = max(len(n) for n in registry.ruleset_names())
    assert f"{'boom':<{width}}  BROKEN       {LOAD_ERROR}" in lines
    assert any(line.startswith(f"{'musket':<{width}}  version ") for line in lines)
    data = json.loads(_cli("rulesets", "--json").stdout)["rulesets"]
    [boom] = [r for r in data if r["name"] == "boom"]
    assert boom == {
        "name": "boom",
        "version": None,
        "source": "boom-plugin 0.1",
        "target": "tests.contract.boom:RULESET",
        "error": LOAD_ERROR,
    }


def _forged_boom_replay(tmp_path: Path) -> Path:
    """The toy's replay with its header (and the scenario in it) naming ``boom``, sealed again."""
    from engine.log import GENESIS, seal
    from tests.contract.toy import SCENARIOS

    out = tmp_path / "pips.jsonl"
    assert _cli("run", str(SCENARIOS[0]), "--out", str(out)).exit_code == 0
    h, lines = GENESIS, []
    for i, line in enumerate(out.read_text(encoding="utf-8").splitlines()):
        body = line[: line.rindex(',"h":')] + "}"
        if i == 0:
            body = body.replace('"ruleset":"pips"', '"ruleset":"boom"')
        sealed, h = seal(h, body)
        lines.append(sealed)
    forged = tmp_path / "boom.jsonl"
    forged.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return forged


def test_run_show_and_verify_name_the_ruleset_and_its_entry_point(tmp_path: Path) -> None:
    """run of a boom scenario, show and verify of a boom replay: one line each, exit 2."""
    scenario = tmp_path / "boom.yaml"
    scenario.write_text("ruleset: boom\nname: Boom\n", encoding="utf-8")
    run = _cli("run", str(scenario))
    assert (run.exit_code, run.stderr) == (
        2,
        f"{scenario}:1: ruleset: {LOAD_ERROR}\n",
    )
    replay = _forged_boom_replay(tmp_path)
    for command in ("show", "verify"):
        result = _cli(command, str(replay))
        assert (result.exit_code, result.stderr) == (
            2,
            f"battlesim: error: {replay}:1: {LOAD_ERROR}\n",
        ), command


def test_a_scenario_model_whose_ruleset_is_not_its_literal_name_is_refused(
    tmp_path_factory: pytest.TempPathFactory, tmp_path: Path
) -> None:
    """``ruleset: str`` in a plugin's scenario model (the docs ask for ``Literal["<name>"]``)
    passed check-ruleset and then broke ``schema`` and ``new`` for every ruleset with a
    pydantic error naming no plugin: now the plugin is refused, in one line saying what
    to declare, and the others' tools go on with a note."""
    entry = "[battlesim.rulesets]\npips_loose = tests.contract.loose:RULESET\n"
    where = str(install_plugin(tmp_path_factory.mktemp("site"), "loose-plugin", entry))
    sys.path.insert(0, where)
    try:
        error = (
            "ruleset 'pips_loose' (entry point pips_loose = tests.contract.loose:RULESET): "
            "its scenario model's 'ruleset' field is str: declare it Literal[\"pips_loose\"], "
            "the ruleset's own name alone"
        )
        check = _cli("check-ruleset", "pips_loose")
        assert check.exit_code == 2
        assert error in check.output
        schema = _cli("schema")
        assert schema.exit_code == 0
        assert "pips_loose" not in json.loads(schema.stdout)["discriminator"]["mapping"]
        assert f"battlesim: note: {error}" in schema.stderr.splitlines()
        made = _cli("new", "musket", str(tmp_path / "x.yaml"))
        assert made.exit_code == 0 and (tmp_path / "x.yaml").is_file(), made.output
    finally:
        sys.path.remove(where)
        registry._broken.pop("pips_loose", None)


@pytest.mark.parametrize(
    ("change", "said"),
    [
        ({"version": 1}, 'its Ruleset.version is 1 (int): declare it as text, e.g. version="1"'),
        ({"version": " "}, 'its Ruleset.version is blank: declare it as text, e.g. version="1"'),
        ({"older_versions": (4,)}, "its Ruleset.older_versions (4,): declare each as text"),
        ({"older_versions": None}, "its Ruleset.older_versions None: declare each as text"),
        ({"older_versions": "12"}, "its Ruleset.older_versions '12': declare each as text"),
        (
            {"loss_words": {"men": "men lost"}},
            "its Ruleset.loss_words {'men': 'men lost'}: declare (kind, words) pairs of text",
        ),
        ({"loss_words": (("men", ""),)}, "its Ruleset.loss_words (('men', ''),): declare"),
        ({"units": None}, "its Ruleset.units is NoneType, not a function: give the hook"),
        ({"narrate": "plain"}, "its Ruleset.narrate is str, not a function: give the hook"),
    ],
)
def test_a_version_that_is_not_text_or_a_hook_that_is_not_a_function_is_refused_at_load(
    monkeypatch: pytest.MonkeyPatch, change: dict[str, Any], said: str
) -> None:
    """Refused when the plugin loads, in one line naming it and the field: an ``int``
    version loaded and listed, then failed every ``run`` with "ruleset_version: Input should
    be a valid string", naming no ruleset; ``units=None`` failed every tool with a
    TypeError "at ruleset.py"; a blank version was recorded in every replay."""
    import dataclasses
    import types

    module = types.ModuleType("battlesim_fields_plugin")
    module.RULESET = dataclasses.replace(registry.get_ruleset("musket"), **change)  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "battlesim_fields_plugin", module)
    with pytest.raises(registry.RulesetUnavailable) as refused:
        registry._load("musket", "battlesim_fields_plugin:RULESET")
    where = "ruleset 'musket' (entry point musket = battlesim_fields_plugin:RULESET): "
    assert str(refused.value).startswith(where + said)


def test_a_hook_that_is_a_callable_object_or_a_partial_loads() -> None:
    """A hook may be any callable: an object with ``__call__`` (an attribute of its own
    named ``fn`` included) or a ``functools.partial``; none is refused."""
    import dataclasses
    import functools

    musket: Any = registry.get_ruleset("musket")

    class Narrator:
        fn = "serif"

        def __call__(self, *args: Any) -> str | None:
            said: str | None = musket.narrate(*args)
            return said

    kept = dataclasses.replace(
        musket, narrate=Narrator(), summary=functools.partial(musket.summary)
    )
    assert registry._field_problem(kept) is None
