"""``battlesim check-ruleset``: the toy passes, a broken copy fails one requirement, bad input is 2.

The requirements themselves run over every case in test_contract.py; here
only the command around them, on the toy (a few runs of a tiny battle).
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner, Result

from engine.events import Snapshot
from sim import api
from sim.cli.main import cli
from sim.conformance import REQUIREMENTS
from sim.contract import get_ruleset, registry, ruleset_names
from tests.contract import broken, rowless
from tests.contract.conftest import install_plugin
from tests.contract.toy import SCENARIOS as TOY_SCENARIOS

ROOT = Path(__file__).resolve().parents[2]
BAD = ROOT / "tests" / "data" / "bad_scenarios"
"""Scenario files each broken one way (tests/data/bad_scenarios/EXPECTED.txt)."""
IDS = [r.id for r in REQUIREMENTS]
RESTORE = next(r for r in REQUIREMENTS if r.id == "restore-inverts-snapshot")


def _check(*args: str | Path) -> Result:
    return CliRunner().invoke(cli, ["check-ruleset", *(str(a) for a in args)])


@pytest.fixture(scope="module")
def broken_plugin(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """``pips_broken`` installed as a plugin; its scenario: the toy's duel under its name."""
    where = str(install_plugin(tmp_path_factory.mktemp("site"), "pips-broken", broken.ENTRY_POINTS))
    sys.path.insert(0, where)
    data = yaml.safe_load(TOY_SCENARIOS[0].read_text(encoding="utf-8"))
    data["ruleset"] = broken.NAME
    scenario = tmp_path_factory.mktemp("broken") / "broken_duel.yaml"
    scenario.write_text(yaml.safe_dump(data), encoding="utf-8")
    yield scenario
    sys.path.remove(where)
    registry._loaded.pop(broken.NAME, None)


def _verdicts(output: str) -> dict[str, str]:
    """``id -> status word`` of each requirement line."""
    found = re.findall(r"^(met|FAILED|not checked) +([a-z0-9-]+): ", output, re.MULTILINE)
    return {rid: status for status, rid in found}


def test_the_toy_meets_every_requirement() -> None:
    """check-ruleset pips: every requirement met, in order, the summary line last, exit 0."""
    result = _check("pips")
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert list(_verdicts(result.stdout).items()) == [(i, "met") for i in IDS]
    assert lines[-1] == f"{len(IDS)} passed, 0 failed"
    assert len(lines) == len(IDS) + 1
    assert f"check-ruleset pips: fighting {TOY_SCENARIOS[0].name}" in result.stderr.splitlines()


def _first_turn_forgotten(scenario: Path, tmp_path: Path) -> int:
    """The first turn whose end state the broken restore gets wrong: the first that changed.

    No engine.snapshot of the battle holds a state the broken restore gets wrong (the
    battle has not ended at one), so only restore-inverts-snapshot meets the fault.
    """
    out = tmp_path / "broken.jsonl"
    api.run(scenario, out=out)
    loaded = api.load_replay(out)
    snapshots = [e.state for e in loaded.events if isinstance(e, Snapshot)]
    assert all(broken.forgotten(loaded.scenario, s) is None for s in snapshots)
    toy = get_ruleset("pips")
    return next(
        turn
        for turn, state in loaded.turn_ends()
        if broken.forgotten(loaded.scenario, toy.snapshot(state)) is not None
    )


def test_a_broken_restore_fails_that_requirement_alone(broken_plugin: Path, tmp_path: Path) -> None:
    """A restore that forgets a field fails restore-inverts-snapshot only: where, hint, exit 1.
    (The copy keeps the toy's event types, ``pips.*``, under its own name, which
    events-are-registered fails as well.)"""
    result = _check(broken.NAME, "--scenario", broken_plugin)
    assert result.exit_code == 1, result.output
    verdicts = _verdicts(result.stdout)
    failing = (RESTORE.id, "events-are-registered")
    assert verdicts == {i: "FAILED" if i in failing else "met" for i in IDS}
    [line] = [x for x in result.stdout.splitlines() if x.startswith(f"FAILED       {RESTORE.id}")]
    turn = _first_turn_forgotten(broken_plugin, tmp_path)
    where = f"FAILED       {RESTORE.id}: {broken_plugin.name}, turn {turn}, field "
    assert line.startswith(where)
    assert line.endswith(f" — how to meet it: {RESTORE.hint}")
    assert result.stdout.splitlines()[-1] == f"{len(IDS) - 2} passed, 2 failed"


def test_json_gives_each_requirement_with_its_status_and_hint(broken_plugin: Path) -> None:
    """--json --only: one entry per requirement asked for; -x stops at the first not met."""
    only = ["--only", RESTORE.id, "--only", "ships-a-scenario", "--only", "diff-with-itself"]
    result = _check(broken.NAME, "--scenario", broken_plugin, "--json", "-x", *only)
    assert result.exit_code == 1, result.output
    data = json.loads(result.stdout)
    assert [(e["id"], e["status"]) for e in data["requirements"]] == [
        ("ships-a-scenario", "met"),
        (RESTORE.id, "failed"),
    ]
    entry = data["requirements"][1]
    assert (entry["hint"], entry["statement"]) == (RESTORE.hint, RESTORE.statement)
    assert entry["scenario"] == broken_plugin.name
    assert entry["message"].startswith(f"{broken_plugin.name}, turn ")
    assert (data["passed"], data["failed"], data["scenarios"]) == (1, 1, [str(broken_plugin)])


def test_a_ruleset_without_a_scenario_fails_ships_a_scenario(broken_plugin: Path) -> None:
    """No examples and no --scenario: ships-a-scenario fails; odds-examples-run and
    registry-states-its-first-format, which fight no scenario, are met; the rest are not
    checked, one line for each cause (not one line each)."""
    del broken_plugin  # installed; its examples are empty
    result = _check(broken.NAME)
    assert result.exit_code == 1
    unfought = ("odds-examples-run", "registry-states-its-first-format")  # need no scenario
    assert _verdicts(result.stdout) == {
        "ships-a-scenario": "FAILED",
        **dict.fromkeys(unfought, "met"),
    }
    rest = [i for i in IDS[1:] if i not in unfought]
    assert result.stdout.splitlines()[3:] == [
        f"not checked  {len(rest)} requirements ({', '.join(rest)}): (no scenario): not fought "
        "(the ruleset ships no scenario to fight)",
        f"2 passed, 1 failed, {len(rest)} not checked",
    ]


@pytest.fixture
def rowless_plugin(tmp_path: Path) -> Iterator[Path]:
    """``pips_rowless`` installed as a plugin; its scenario: the toy's duel under its name."""
    where = str(install_plugin(tmp_path / "site", "pips-rowless", rowless.ENTRY_POINTS))
    sys.path.insert(0, where)
    data = yaml.safe_load(TOY_SCENARIOS[0].read_text(encoding="utf-8"))
    data["ruleset"] = rowless.NAME
    scenario = tmp_path / "rowless_duel.yaml"
    scenario.write_text(yaml.safe_dump(data), encoding="utf-8")
    yield scenario
    sys.path.remove(where)
    registry._loaded.pop(rowless.NAME, None)


def test_a_hook_that_raises_is_reported_once_and_names_what_it_left_unchecked(
    rowless_plugin: Path,
) -> None:
    """pips_rowless's units raises: every requirement that reads the rows met the same
    error, and each printed it as a FAILED line of its own (16 times), hiding what else is
    wrong. Now the first reports it in full (the hook, the error, where it was raised); the
    others are not checked, named in one line; the copy's own other fault (its events are
    the toy's, pips.*) still shows; exit 1 as before."""
    raised = rowless._units.__code__.co_firstlineno + 1
    full = (
        f"ruleset 'pips_rowless': units raised KeyError: 'no rows today' (at rowless.py:{raised})"
    )
    unjudged = [
        "fold-equals-live",
        "one-process-per-unit",
        "restore-inverts-snapshot",
        "snapshot-start-equals-fold",
        "rows-are-validated",
        "rows-follow-the-state",
        "strength-follows-losses",
        "show-prints-state-table",
        "show-unit-every-kind",
        "show-events-every-kind",
        "diff-another-seed",
        "fork-changes-an-event",
        "batch-runs",
        "report-page",
        "report-charts-every-measure",
    ]
    result = _check(rowless.NAME, "--scenario", rowless_plugin)
    assert result.exit_code == 1, result.output
    failed = ("events-are-registered", "outcome-names-every-side")
    assert _verdicts(result.stdout) == {  # the 15 not checked are on one line, below
        i: "FAILED" if i in failed else "met" for i in IDS if i not in unjudged
    }
    lines = result.stdout.splitlines()
    hint = (
        "fix the ruleset's units first: it raised where the message says, and this "
        "requirement could not be judged past it"
    )
    assert [x for x in lines if not x.startswith(("met ", "FAILED       events-"))] == [
        f"FAILED       outcome-names-every-side: {rowless_plugin.name}: {full} — how to meet "
        f"it: {hint}",
        f"not checked  15 requirements ({', '.join(unjudged)}): ruleset 'pips_rowless': units "
        f"raised KeyError (at rowless.py:{raised}), as outcome-names-every-side says: fix that "
        "hook first",
        f"{len(IDS) - 17} passed, 2 failed, 15 not checked",
    ]
    assert result.stdout.count("no rows today") == 1
    as_json = json.loads(_check(rowless.NAME, "--scenario", rowless_plugin, "--json").stdout)
    entries = {e["id"]: e for e in as_json["requirements"]}
    assert (as_json["failed"], as_json["not_checked"], as_json["ok"]) == (2, 15, False)
    assert (entries["report-page"]["status"], entries["report-page"]["hint"]) == (
        "not checked",
        hint,
    )


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["nope"], "unknown ruleset 'nope'; installed: {installed}"),
        (["pips", "--scenario", "missing.yaml"], "--scenario missing.yaml: no such file"),
        (
            ["pips", "--scenario", str(ROOT / "docs")],
            "--scenario {root}/docs: a folder, not a scenario file",
        ),
        (
            ["pips", "--scenario", str(ROOT / "scenarios" / "fredericksburg_campaign.yaml")],
            "--scenario {root}/scenarios/fredericksburg_campaign.yaml: not a scenario: this is a "
            "campaign file: fight it with 'battlesim campaign FILE' (or batch)",
        ),
        (
            ["pips", "--scenario", str(ROOT / "scenarios" / "tavern_brawl.yaml")],
            "--scenario {root}/scenarios/tavern_brawl.yaml: a scenario of ruleset 'becmi', "
            "not 'pips'",
        ),
        (  # located as run locates it (it said "…: cannot read it as YAML (empty file)")
            ["pips", "--scenario", str(BAD / "empty.yaml")],
            "--scenario {root}/tests/data/bad_scenarios/empty.yaml:1: empty file",
        ),
        (
            ["pips", "--scenario", str(BAD / "invalid_syntax.yaml")],
            "--scenario {root}/tests/data/bad_scenarios/invalid_syntax.yaml:34: not valid YAML: "
            "while parsing a flow sequence (line 33), expected ',' or ']', but got ':'",
        ),
        (
            ["pips", "--only", "restore-invert"],
            "--only restore-invert: no such requirement; did you mean 'restore-inverts-snapshot'?",
        ),
        (["pips", "--only", "nope"], "--only nope: no such requirement; the requirements: {ids}"),
    ],
    ids=[
        "unknown-ruleset",
        "missing-scenario",
        "folder-as-scenario",
        "campaign-as-scenario",
        "another-rulesets-scenario",
        "empty-scenario",
        "scenario-not-yaml",
        "unknown-id",
        "unknown-id-far-from-any",
    ],
)
def test_bad_input_is_one_line_and_exit_2(args: list[str], message: str) -> None:
    """An unknown ruleset, a missing or foreign --scenario (a folder, a campaign file: it said
    "no such file" and "a scenario of ruleset None"), an unknown --only id (with the ids when
    none is close): exit 2."""
    result = _check(*args)
    installed = ", ".join(ruleset_names())
    ids = ", ".join(r.id for r in REQUIREMENTS)
    expected = "battlesim: error: " + message.format(installed=installed, root=ROOT, ids=ids)
    assert (result.exit_code, result.stdout, result.stderr) == (2, "", expected + "\n")


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_a_fifo_or_a_device_as_scenario_is_said_as_run_says_it(tmp_path: Path) -> None:
    """A --scenario that exists but is no regular file is named for what it is, as ``run``
    says it: it said "no such file" of a FIFO that was there, and of /dev/null."""
    fifo = tmp_path / "pipe.yaml"
    os.mkfifo(fifo)
    for given, what in ((fifo, "a FIFO (named pipe)"), (Path(os.devnull), "a device")):
        result = _check("pips", "--scenario", str(given))
        assert (result.exit_code, result.stdout, result.stderr) == (
            2,
            "",
            f"battlesim: error: --scenario {given}: {what}, not a regular file\n",
        )


@pytest.mark.parametrize(
    ("entry", "said"),
    [
        (
            "[battlesim.rulesets]\nancients = tests.sim.toy_ruleset:RULESET\n",
            "; the entry point ancients = tests.sim.toy_ruleset:RULESET holds the Ruleset named "
            "'toy': name the entry point toy",
        ),
        (
            "[battlesim.ruleset]\ntoy = tests.sim.toy_ruleset:RULESET\n",
            "; an installed package declares toy in the entry-point group 'battlesim.ruleset': "
            "the group is 'battlesim.rulesets'",
        ),
    ],
    ids=["another-entry-point-name", "misspelt-group"],
)
def test_an_unknown_ruleset_says_what_the_installed_package_meant(
    tmp_path: Path, entry: str, said: str
) -> None:
    """check-ruleset of a plugin whose entry point is misnamed, or declared in a misspelt group,
    says so and how to fix it, as `run` of its scenario does (it said only "installed: ...")."""
    where = str(install_plugin(tmp_path, "toy-misdeclared", entry))
    sys.path.insert(0, where)
    try:
        result = _check("toy")
        installed = ", ".join(ruleset_names())
    finally:
        sys.path.remove(where)
        registry._loaded.pop("ancients", None)
    assert (result.exit_code, result.stdout) == (2, "")
    unknown = f"battlesim: error: unknown ruleset 'toy'; installed: {installed}"
    assert result.stderr == f"{unknown}{said}\n"


def _validate_says(name: str) -> list[str]:
    """What ``battlesim validate`` prints for ``BAD/name``, in order (EXPECTED.txt)."""
    lines = (BAD / "EXPECTED.txt").read_text(encoding="utf-8").splitlines()
    return [f"{BAD}/{line}" for line in lines if line.startswith(f"{name}:")]


@pytest.mark.parametrize(
    "name", ["missing_field.yaml", "several_schema_errors.yaml", "several_cross_errors.yaml"]
)
def test_a_scenario_that_fails_validation_is_bad_input(name: str) -> None:
    """A --scenario of the ruleset that its model or cross-checks refuse is bad input, as a
    file that is not YAML is: its first problem located as validate locates it, with how many
    more, and exit 2 (it was fought, failed scenario-runs and exited 1)."""
    first, *rest = _validate_says(name)
    more = f" (and {len(rest)} more: 'battlesim validate {BAD / name}' lists them)" if rest else ""
    result = _check("musket", "--scenario", BAD / name, "--only", "scenario-runs")
    expected = f"battlesim: error: --scenario {first}{more}\n"
    assert (result.exit_code, result.stdout, result.stderr) == (2, "", expected)


def test_help_has_an_example() -> None:
    """check-ruleset --help ends with an example command."""
    result = CliRunner().invoke(cli, ["check-ruleset", "--help"])
    assert (
        "battlesim check-ruleset musket --scenario my_battle.yaml --only scenario-runs"
        in result.output
    )


def test_the_docs_table_lists_exactly_the_shipped_requirements() -> None:
    """docs/rulesets.md's 'Checking a ruleset' table has one row per shipped id, in order,
    with its statement and how to meet it."""
    page = (ROOT / "docs" / "rulesets.md").read_text(encoding="utf-8")
    section = page.split("## Checking a ruleset", 1)[1].split("\n## ", 1)[0]
    rows = re.findall(r"^\| `([a-z0-9-]+)` \| (.*) \| (.*) \|$", section, re.MULTILINE)
    assert [r[0] for r in rows] == IDS
    for row, req in zip(rows, REQUIREMENTS, strict=True):
        how = f"{_cell(req.how)} (see *{req.section}*)"
        assert row == (req.id, _cell(req.statement), how)


def _cell(text: str) -> str:
    """Text as a markdown table cell holds it (a pipe escaped)."""
    return text.replace("|", "\\|")


def test_the_docs_count_of_requirements_a_scenario_that_did_not_run_leaves_is_true() -> None:
    """'not checked  N requirements (…)' for a scenario that did not run: all but the two
    that ask whether it ran (ships-a-scenario, scenario-runs)."""
    page = (ROOT / "docs" / "rulesets.md").read_text(encoding="utf-8")
    found = re.search(r"`not checked  (\d+) requirements \(([a-z-]+), ([a-z-]+),", page)
    assert found is not None
    assert (int(found[1]), found[2], found[3]) == (len(IDS) - 2, IDS[2], IDS[3])


def test_the_fresh_processes_run_no_code_from_the_working_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A folder the check is run in is data: a json.py there is never imported by the fresh
    processes of same-bytes-in-other-processes (-P, the working folder off PYTHONPATH)."""
    from click.testing import CliRunner

    from sim.cli import cli

    marker = tmp_path / "PWNED"
    (tmp_path / "json.py").write_text(
        f"open({str(marker)!r}, 'a').write('x')\nraise ImportError('planted')\n"
    )
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(
        cli, ["check-ruleset", "becmi", "--only", "same-bytes-in-other-processes"]
    )
    assert result.exit_code == 0, result.output
    assert not marker.exists()


def test_a_requirement_this_install_cannot_check_is_no_finding(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Without the study extra (a lean `make run`), batch-runs is not checked and says why;
    that is no finding against the ruleset: exit 0, and --json says which extra it needs."""
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util,
        "find_spec",
        lambda name, *a, **k: None if name == "duckdb" else real(name, *a, **k),
    )
    result = _check("pips", "--only", "batch-runs", "--only", "run-prints-headline")
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[-2:] == [
        "not checked  batch-runs: batch studies need the study extra: pip install "
        "'battlesim[study]'",
        "1 passed, 0 failed, 1 not checked",
    ]
    as_json = _check("pips", "--only", "batch-runs", "--json")
    assert as_json.exit_code == 0
    found = json.loads(as_json.stdout)
    assert (found["ok"], found["not_checked"]) == (True, 1)
    assert found["requirements"][0]["needs_extra"] == "study"


def test_a_requirement_not_checked_for_the_rulesets_sake_exits_1(broken_plugin: Path) -> None:
    """Not checked because the ruleset ships no scenario, and nothing failed: still exit 1."""
    del broken_plugin  # installed; its examples are empty
    result = _check(broken.NAME, "--only", "run-prints-headline")
    assert result.exit_code == 1
    assert result.stdout.splitlines()[-1] == "0 passed, 0 failed, 1 not checked"


def test_a_requirement_that_stands_on_one_failed_before_it_says_to_meet_that_first() -> None:
    """STANDS_ON: a failure that may be an earlier one's alone (a module-level random fails
    every comparison with a second fight) names that one first, then its own hint; the same
    failure with nothing failed before it keeps its own hint. Every requirement it names
    is a shipped one checked earlier."""
    from sim.conformance.suite import STANDS_ON, Verdict

    order = {r.id: k for k, r in enumerate(REQUIREMENTS)}
    for rid, under in STANDS_ON.items():
        assert all(order[u] < order[rid] for u in under), rid
    fold = next(r for r in REQUIREMENTS if r.id == "fold-equals-live")
    alone = Verdict(fold, "failed", "x.yaml: folded 1, live 2")
    assert alone.hint == fold.hint
    after = dataclasses.replace(alone, after="run-is-deterministic")
    assert after.hint == (
        "meet run-is-deterministic first, which failed: this requirement stands on it and may "
        f"have failed for that alone; then, if it still fails: {fold.hint}"
    )


def test_a_hook_failure_is_the_same_fault_wherever_a_requirement_met_it() -> None:
    """The same fault is one key whatever the words around it (the tool that met it, the
    replay line it was called for, the raise's own words); another place or hook is another."""
    from sim.conformance.suite import _hook_failure

    raised = _hook_failure(
        "a.yaml: battlesim report: exit 2: battlesim: error: ruleset 'duel': narrate raised "
        "KeyError: 'hector' at battle.jsonl:16 (seq 14) (at __init__.py:170)"
    )
    again = _hook_failure(
        "b.yaml: ruleset 'duel': narrate raised KeyError: 'ajax' at other.jsonl:9 (seq 7) "
        "(at __init__.py:170)"
    )
    assert raised is not None and again is not None
    assert raised.key == again.key
    assert raised.short == "ruleset 'duel': narrate raised KeyError (at __init__.py:170)"
    elsewhere = _hook_failure("ruleset 'duel': narrate raised KeyError: 'a' (at __init__.py:9)")
    assert elsewhere is not None and elsewhere.key != raised.key
    defined = _hook_failure(
        "ruleset 'duel': units raised TypeError: units() takes 1 positional argument but 2 "
        "were given (the hook is units(state), at __init__.py:120: give it the parameters the "
        "contract calls it with, docs/rulesets.md 'The contract')"
    )
    assert defined is not None
    assert defined.short == "ruleset 'duel': units raised TypeError (at __init__.py:120)"
    returned = _hook_failure(
        "x.yaml: battlesim report: exit 2: battlesim: error: ruleset 'duel': narrate returned "
        "int at battle.jsonl:7 (seq 5), not a line of text or None"
    )
    other_line = _hook_failure(
        "ruleset 'duel': narrate returned int at r.jsonl:9 (seq 7), not a line of text or None"
    )
    assert returned is not None and other_line is not None
    assert returned.key == other_line.key
    assert returned.short == "ruleset 'duel': narrate returned int"
    assert _hook_failure("x.yaml: folded 1, live 2") is None


def test_the_requirements_a_hook_failure_left_unchecked_share_one_line() -> None:
    """run_suite: after the first requirement reporting a hook's failure, each later one
    meeting the same fault (other words, another exception at the same line) is not checked,
    with the first one's line, so the command prints them as one; another fault still fails."""
    from sim.conformance import Requirement, RequirementFailed, run_suite

    def failing(rid: str, said: str) -> Requirement:
        def check(battle: object) -> None:
            raise RequirementFailed(said, scenario="x.yaml")

        return Requirement(rid, "", "", "", check)

    raised = "ruleset 'pips': units raised {} (at x.py:3)"
    verdicts = run_suite(
        get_ruleset("pips"),
        [],
        [
            failing("first", raised.format("KeyError: 'a'")),
            failing("second", f"battlesim show: exit 2: {raised.format('KeyError: 1')}"),
            failing("third", raised.format("IndexError: 2")),
            failing("fourth", "ruleset 'pips': units raised KeyError: 'a' (at x.py:4)"),
        ],
    )
    line = "ruleset 'pips': units raised KeyError (at x.py:3), as first says: fix that hook first"
    assert [(v.requirement.id, v.status, v.message) for v in verdicts] == [
        ("first", "failed", "x.yaml: ruleset 'pips': units raised KeyError: 'a' (at x.py:3)"),
        ("second", "not checked", line),
        ("third", "not checked", line),
        ("fourth", "failed", "x.yaml: ruleset 'pips': units raised KeyError: 'a' (at x.py:4)"),
    ]
