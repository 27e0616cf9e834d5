"""``check-ruleset`` fails each fault planted in a copy of ``phalanx`` by the requirement it
breaks, with a message saying what was expected and what was seen (tests/contract/faults.py)."""

from __future__ import annotations

import copy
import itertools
import json
import sys
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
import yaml
from click.testing import CliRunner, Result

from engine.events import TurnEnded
from engine.recorder import LateEvent
from engine.version import FORMAT_VERSION
from sim import api
from sim.cli.main import cli
from sim.conformance import REQUIREMENTS
from sim.contract import registry
from tests.contract import faults, phalanx
from tests.contract.conftest import install_plugin

HINTS = {r.id: r.hint for r in REQUIREMENTS}
ODDS = next(r for r in REQUIREMENTS if r.id == "odds-examples-run")
FORMAT = next(r for r in REQUIREMENTS if r.id == "registry-states-its-first-format")


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The faulty copies installed as plugins; a folder holding each one's scenario."""
    where = str(install_plugin(tmp_path_factory.mktemp("site"), "faults", faults.ENTRY_POINTS))
    sys.path.insert(0, where)
    scenarios = tmp_path_factory.mktemp("faults")
    for name in faults.FAULTS:
        faults.scenario_for(name, scenarios)
    yield scenarios
    sys.path.remove(where)
    for name in faults.FAULTS:
        registry._loaded.pop(name, None)


def _check(name: str, folder: Path, *only: str) -> Result:
    args = ["check-ruleset", name, "--scenario", str(folder / f"{name}.yaml")]
    args += [a for rid in only for a in ("--only", rid)]
    return CliRunner().invoke(cli, args, prog_name="battlesim")


def _failed(rid: str, message: str) -> str:
    return f"FAILED       {rid}: {message} — how to meet it: {HINTS[rid]}"


def _only_failure(name: str, folder: Path, rid: str) -> str:
    """check-ruleset NAME --only RID: it exits 1, and its one FAILED line."""
    result = _check(name, folder, rid)
    assert result.exit_code == 1
    [line] = [x for x in result.stdout.splitlines() if x.startswith("FAILED")]
    return line


def _unregistered_error(folder: Path) -> str:
    """What recording phalanx.broke says: the seq it would have had is phalanx's own."""
    out = folder / "phalanx.jsonl"
    api.run(phalanx.SCENARIOS[0], out=out)
    seq = next(e.seq for e in api.load_replay(out).events if isinstance(e, phalanx.Broke))
    return (
        f"ruleset 'phalanx_unregistered' records event 'phalanx.broke' at seq {seq} "
        "(tests.contract.phalanx.Broke), which its EventRegistry does not list: give its "
        "state an @applies(Broke) method when the registry is made from the state's applied "
        "events (EventRegistry(State.applied_events())), or else add Broke to the registry of "
        "its Ruleset (its replay could not be read back)"
    )


def test_an_unregistered_event_is_refused_when_recorded(folder: Path) -> None:
    """run: one error line naming the ruleset, the event class and the fix; exit 2, no file."""
    out = folder / "unregistered.jsonl"
    result = CliRunner().invoke(
        cli, ["run", str(folder / "phalanx_unregistered.yaml"), "--out", str(out)]
    )
    assert (result.exit_code, result.stdout) == (2, "")
    expected = f"battlesim: error: UnregisteredEvent: {_unregistered_error(folder)}\n"
    assert result.stderr == expected
    assert not out.exists() and not out.with_name(out.name + ".partial").exists()


def test_check_ruleset_fails_an_unregistered_event_and_collapses_the_rest(folder: Path) -> None:
    """scenario-runs and events-are-registered fail; odds-examples-run, which fights no
    scenario, is met; the others are one not-checked line."""
    name = "phalanx_unregistered"
    result = _check(name, folder)
    assert result.exit_code == 1
    run_error = (
        f"battlesim run {folder / (name + '.yaml')} failed: exit 2: battlesim: error: "
        f"UnregisteredEvent: {_unregistered_error(folder)}"
    )
    registered = "['phalanx.advanced', 'phalanx.fought']"
    rest = [r.id for r in REQUIREMENTS][3:]
    rest.remove(ODDS.id)  # these two fight no scenario: checked whatever the scenario does
    rest.remove(FORMAT.id)
    assert result.stdout.splitlines() == [
        f"met          ships-a-scenario: {REQUIREMENTS[0].statement}",
        _failed("scenario-runs", f"{name}.yaml: {run_error}"),
        _failed(
            "events-are-registered",
            f"{name}.yaml: State applies 'phalanx.broke' (Broke) (@applies), which the registry "
            f"does not list: expected every applied event among the registered {registered}",
        ),
        f"met          {ODDS.id}: {ODDS.statement}",
        f"met          {FORMAT.id}: {FORMAT.statement}",
        f"not checked  {len(rest)} requirements ({', '.join(rest)}): {name}.yaml: not fought "
        f"({run_error})",
        f"3 passed, 2 failed, {len(rest)} not checked",
    ]


def test_an_own_event_under_the_engines_prefix_fails(folder: Path) -> None:
    """phalanx_engine_typed: an event class of the plugin's own typed 'engine.cheered' fails
    events-are-registered, naming it (fork, why and the folds skip 'engine.' events)."""
    line = _only_failure("phalanx_engine_typed", folder, "events-are-registered")
    assert line == _failed(
        "events-are-registered",
        "phalanx_engine_typed.yaml: the event types 'engine.cheered' (Cheered) begin with "
        "'engine.', which every tool reads as the engine's own events (fork, why and the folds "
        "skip them): expected 'phalanx_engine_typed.<event>'",
    )


def test_event_types_that_do_not_begin_with_the_rulesets_name_fail(folder: Path) -> None:
    """phalanx_borrowed records phalanx's events (another ruleset's types, as `musket.fired`
    in a naval ruleset, or a bare `fired`): it passed every requirement, though a ruleset's
    name is the prefix of every event type; events-are-registered names them."""
    line = _only_failure("phalanx_borrowed", folder, "events-are-registered")
    assert line == _failed(
        "events-are-registered",
        "phalanx_borrowed.yaml: the event types 'phalanx.advanced' (Advanced), "
        "'phalanx.fought' (Fought), 'phalanx.broke' (Broke) do not begin with "
        "'phalanx_borrowed.', the ruleset's name: expected 'phalanx_borrowed.<event>', so that "
        "a replay's line says whose event it is",
    )


def _own_failures(result: Result) -> list[str]:
    """The FAILED lines of a whole check of a copy of phalanx, but events-are-registered's:
    every copy keeps phalanx's event types under its own name (phalanx_borrowed)."""
    return [
        x
        for x in result.stdout.splitlines()
        if x.startswith("FAILED") and not x.startswith("FAILED       events-are-registered: ")
    ]


def test_a_registry_without_since_format_fails_with_the_docs_advice(folder: Path) -> None:
    """phalanx_formatless leaves since_format out: it read 1, so a replay of it claiming an
    older format than it was first written in was not refused as a downgrade, and nothing
    said so; the requirement fails, and its hint gives docs/rulesets.md's advice."""
    line = _only_failure("phalanx_formatless", folder, FORMAT.id)
    assert line == _failed(
        FORMAT.id,
        "phalanx_formatless.yaml: its EventRegistry leaves since_format out, so it reads 1: a "
        "replay of it claiming a format older than the first it was written in is not refused "
        "as a downgrade (a forgery); expected since_format=N, N that first format "
        f"({FORMAT_VERSION}, today's, for a new plugin)",
    )
    assert FORMAT.hint == (
        "Give EventRegistry(..., since_format=N) the first replay format the ruleset was "
        "written in: for a new plugin today's, written as the number engine.version."
        f"FORMAT_VERSION holds ({FORMAT_VERSION}), not that name, which moves with battlesim "
        "and would refuse the plugin's older replays once a later battlesim writes a newer "
        "format; a ruleset older than this requirement that leaves it out loads and fights as "
        "before, reading 1 (docs/rulesets.md, 'The contract')"
    )


def test_strength_that_never_follows_the_state_fails(folder: Path) -> None:
    """phalanx_stuck: every row at its initial strength; the Greeks' losses show nowhere."""
    out = folder / "stuck.jsonl"
    api.run(folder / "phalanx_stuck.yaml", out=out)
    loaded = api.load_replay(out)
    greeks = loaded.scenario.armies[0]
    lost = loaded.ruleset.outcome(loaded.scenario, loaded.state_at()).sides["greeks"].losses
    assert [m.value for m in lost] == [2]  # two of the six elements destroyed
    result = _check("phalanx_stuck", folder)
    held = ", ".join(f"{e.id} 1 elements" for e in greeks.elements[:4])
    assert result.exit_code == 1
    assert _own_failures(result) == [
        _failed(
            "strength-follows-losses",
            "phalanx_stuck.yaml: expected a unit of Greeks (the outcome counts its losses: "
            "elements 2) whose strength changes; seen every one of its 6 units at its start "
            f"strength at every bound's end ({held}, …)",
        )
    ]


def test_a_battle_that_differs_when_fought_again_names_the_field(folder: Path) -> None:
    """phalanx_unsteady: the seq, the field and both values, not two line prefixes."""
    result = _check("phalanx_unsteady", folder, "run-is-deterministic")
    out = folder / "unsteady.jsonl"
    api.run(folder / "phalanx_unsteady.yaml", out=out)  # a later battle of the process
    broke = next(e for e in api.load_replay(out).events if isinstance(e, phalanx.Broke))
    reason = broke.reason.rsplit(" (battle ", 1)[0]
    assert result.exit_code == 1
    [line] = [x for x in result.stdout.splitlines() if x.startswith("FAILED")]
    assert line.startswith(
        f"FAILED       run-is-deterministic: phalanx_unsteady.yaml, seq {broke.seq}, field "
        f"reason: fought again, event 'phalanx.broke' differs: the replay holds '{reason} "
        "(battle "
    )
    assert line.endswith(f"— how to meet it: {HINTS['run-is-deterministic']}")


def test_a_battle_that_follows_a_sets_order_fails_in_other_processes(folder: Path) -> None:
    """phalanx_hashed: the same bytes fought again in this process (run-is-deterministic is
    met), other bytes in a fresh one with another hash seed, the first field that differs
    named."""
    result = _check(
        "phalanx_hashed", folder, "run-is-deterministic", "same-bytes-in-other-processes"
    )
    assert result.exit_code == 1, result.output
    lines = result.stdout.splitlines()
    assert any(x.startswith("met          run-is-deterministic:") for x in lines), lines
    [line] = [x for x in lines if x.startswith("FAILED")]
    assert line.startswith(
        "FAILED       same-bytes-in-other-processes: phalanx_hashed.yaml, seq "
    ), line
    assert "fought under PYTHONHASHSEED=" in line and ": the replay holds " in line
    assert line.endswith(f"— how to meet it: {HINTS['same-bytes-in-other-processes']}")


def test_phalanx_fought_in_other_processes_is_the_same(folder: Path) -> None:
    """The fault's control: phalanx itself meets the requirement (its ranks in list order)."""
    result = CliRunner().invoke(
        cli, ["check-ruleset", "phalanx", "--only", "same-bytes-in-other-processes"]
    )
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[-1] == "1 passed, 0 failed"


def test_a_template_that_does_not_validate_fails_new_and_names_the_field(
    folder: Path, tmp_path: Path
) -> None:
    """phalanx_templated: its template.yaml misspells bounds; the ruleset's own scenario
    runs, but the one new writes from the template does not. The problem is named at the
    template's own file and line, as the loader names any scenario's: it was named at the
    scenario checked (phalanx_templated.yaml) and then at the file new wrote in the check's
    temporary folder, gone when it ends, two lines further down (new_battle.yaml:6)."""
    from tests.contract import templated

    site = install_plugin(
        tmp_path / "site", "templated", "[battlesim.rulesets]\n"
        "phalanx_templated = tests.contract.templated:RULESET\n"
    )  # fmt: skip
    sys.path.insert(0, str(site))
    try:
        scenario = faults.scenario_for("phalanx_templated", tmp_path)
        args = ["check-ruleset", "phalanx_templated", "--scenario", str(scenario),
                "--only", "new-writes-a-scenario-that-runs"]  # fmt: skip
        result = CliRunner().invoke(cli, args, prog_name="battlesim")
        as_json = CliRunner().invoke(cli, [*args, "--json"], prog_name="battlesim")
    finally:
        sys.path.remove(str(site))
        registry._loaded.pop("phalanx_templated", None)
    template = Path(templated.__file__).with_name("template.yaml")
    assert template.read_text(encoding="utf-8").splitlines()[3] == "boundz: 12"
    problem = (
        f"{template}:4: boundz: unknown field; did you mean 'bounds'? (battlesim new copies "
        "this file: the scenario it writes does not validate)"
    )
    assert result.exit_code == 1, result.output
    assert result.stdout.splitlines() == [
        _failed("new-writes-a-scenario-that-runs", problem),
        "0 passed, 1 failed",
    ]
    [entry] = json.loads(as_json.stdout)["requirements"]
    assert (entry["message"], entry["scenario"]) == (problem, str(template))


def test_a_template_with_more_than_one_problem_is_named_at_its_first(tmp_path: Path) -> None:
    """A plugin package of its own (a folder on sys.path) whose template.yaml has two
    problems: the first is named at the template's file and its line, with how many more."""
    package = tmp_path / "site" / "battlesim_twice_wrong"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text(
        "from tests.contract.faults import _copy\n\nRULESET = _copy('phalanx_twice_wrong')\n",
        encoding="utf-8",
    )
    template = phalanx.SCENARIOS[0].read_text(encoding="utf-8")
    template = template.replace("ruleset: phalanx\n", "ruleset: phalanx_twice_wrong\nflank: 1\n")
    template = template.replace("seed:", "sede:")
    (package / "template.yaml").write_text(template, encoding="utf-8")
    line = template.splitlines().index("flank: 1") + 1
    install_plugin(
        tmp_path / "site", "twice-wrong",
        "[battlesim.rulesets]\nphalanx_twice_wrong = battlesim_twice_wrong:RULESET\n",
    )  # fmt: skip
    sys.path.insert(0, str(tmp_path / "site"))
    try:
        scenario = faults.scenario_for("phalanx_twice_wrong", tmp_path)
        result = CliRunner().invoke(
            cli,
            ["check-ruleset", "phalanx_twice_wrong", "--scenario", str(scenario),
             "--only", "new-writes-a-scenario-that-runs"],
            prog_name="battlesim",
        )  # fmt: skip
    finally:
        sys.path.remove(str(tmp_path / "site"))
        registry._loaded.pop("phalanx_twice_wrong", None)
        sys.modules.pop("battlesim_twice_wrong", None)
    assert result.exit_code == 1, result.output
    assert result.stdout.splitlines()[0] == _failed(
        "new-writes-a-scenario-that-runs",
        f"{package / 'template.yaml'}:{line}: flank: unknown field (battlesim new copies this "
        "file: the scenario it writes does not validate, with 1 more problem)",
    )


def test_no_actor_process_says_what_was_expected(folder: Path) -> None:
    """phalanx_anonymous: the rows' kinds expected, no Actor seen, 12 bare generators."""
    sc = api.load_replay(_fought(folder, "phalanx_anonymous")).scenario
    kinds = dict(sorted(Counter(e.kind for a in sc.armies for e in a.elements).items()))
    result = _check("phalanx_anonymous", folder, "one-process-per-unit")
    assert result.exit_code == 1
    assert result.stdout.splitlines()[0] == _failed(
        "one-process-per-unit",
        f"phalanx_anonymous.yaml: expected one live process per unit row, by kind {kinds}; "
        "the plan started none ('?': an Actor whose id no row has), and 12 bare generators, "
        "which are no unit's",
    )


def _fought(folder: Path, name: str) -> Path:
    out = folder / f"{name}.jsonl"
    api.run(folder / f"{name}.yaml", out=out)
    return out


def test_a_state_written_outside_apply_fails_the_digest_with_the_field(folder: Path) -> None:
    """phalanx_meddling: turn 1's digest names the field, the live and the folded value."""
    events = api.load_replay(_fought(folder, "phalanx_meddling")).events
    seq = next(e.seq for e in events if isinstance(e, TurnEnded) and e.turn == 1)
    result = _check("phalanx_meddling", folder, "digest-is-snapshot-digest")
    assert result.exit_code == 1
    assert result.stdout.splitlines()[0] == _failed(
        "digest-is-snapshot-digest",
        f"phalanx_meddling.yaml, turn 1, seq {seq}, field elements.g_psiloi.side: the live "
        "state the runner digested holds 'meddled'; the events folded to here hold 'greeks'",
    )


def test_a_scenario_its_model_refuses_is_bad_input(folder: Path) -> None:
    """A --scenario its model refuses is bad input, not a failure of the ruleset: one line
    located as run locates it, exit 2 (it was fought, failed scenario-runs and exited 1)."""
    good = folder / "phalanx_stuck.yaml"
    lines = good.read_text(encoding="utf-8").splitlines()
    at = next(n for n, line in enumerate(lines, 1) if line.startswith("bounds:"))
    bad = folder / "bad.yaml"
    bad.write_text(good.read_text(encoding="utf-8").replace("bounds: 12", "bounds: 0"))
    result = CliRunner().invoke(cli, ["check-ruleset", "phalanx_stuck", "--scenario", str(bad)])
    said = f"--scenario {bad}:{at}: bounds: 0 is less than 1, the least it may be"
    assert (result.exit_code, result.stdout, result.stderr) == (
        2,
        "",
        f"battlesim: error: {said}\n",
    )


def test_an_event_changed_after_its_line_fails_with_the_seq_and_field(folder: Path) -> None:
    """phalanx_keeping: the first fought event with draws (another follows it), its draws as
    written and as emptied by the next one's apply."""
    lines = _fought(folder, "phalanx_keeping").read_text(encoding="utf-8").splitlines()
    fought = (json.loads(line) for line in lines[1:-1])
    first = next(e for e in fought if e["type"] == "phalanx.fought" and e["draws"])
    written = first["draws"]
    result = _check("phalanx_keeping", folder, "event-lines-validate")
    assert result.exit_code == 1
    assert result.stdout.splitlines()[0] == _failed(
        "event-lines-validate",
        f"phalanx_keeping.yaml, seq {first['seq']}, field draws.0: event 'phalanx.fought' changed "
        f"after its line was written: the line holds {written[0]!r}, the event now missing "
        "(expected every event to stay as recorded: an apply that keeps an event's list or dict "
        "must copy it)",
    )


def test_a_battle_that_cannot_be_fought_live_fails_each_check_that_fights_it(
    folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """phalanx_once: ``run`` fights its one battle; the live fight that three requirements
    share raises, and each says so in its own words, the error after them."""
    monkeypatch.setattr(faults, "_ONCE", itertools.count(1))
    only = ("event-lines-validate", "run-is-deterministic", "fold-equals-live")
    result = _check("phalanx_once", folder, *only)
    error = "RuntimeError: phalanx_once fights one battle a process"
    assert result.exit_code == 1
    assert result.stdout.splitlines() == [
        _failed(
            "event-lines-validate",
            f"phalanx_once.yaml: fought with every line checked: {error}",
        ),
        _failed("run-is-deterministic", f"phalanx_once.yaml: fighting again failed: {error}"),
        # fold-equals-live stands on run-is-deterministic (suite.STANDS_ON): its hint says so
        f"FAILED       fold-equals-live: phalanx_once.yaml: fighting live failed: {error} — how "
        "to meet it: meet run-is-deterministic first, which failed: this requirement stands "
        "on it and may have failed for that alone; then, if it still fails: "
        + HINTS["fold-equals-live"],
        "0 passed, 3 failed",
    ]


def test_a_report_that_cannot_be_written_fails_the_first_report_check(folder: Path) -> None:
    """phalanx_tongue_tied: ``report`` stops at the first fought event it cannot narrate (as
    the CLI reports a plugin's hook raising: exit 2, one line naming the ruleset, the hook,
    the seq and the line that raised); the first report check says so, in full, and the
    second, which met the same error, is not checked for it (both said it in full)."""
    events = api.load_replay(_fought(folder, "phalanx_tongue_tied")).events
    seq = next(e.seq for e in events if isinstance(e, phalanx.Fought))
    result = _check("phalanx_tongue_tied", folder, "report-page", "report-charts-every-measure")
    raised = 1 + next(
        i
        for i, line in enumerate(Path(faults.__file__).read_text("utf-8").splitlines())
        if "no words for seq" in line
    )
    problem = (
        "phalanx_tongue_tied.yaml: battlesim report: exit 2: battlesim: error: ruleset "
        f"'phalanx_tongue_tied': narrate raised RuntimeError: no words for seq {seq} at "
        f"battle.jsonl:{seq + 2} (seq {seq}) (at faults.py:{raised})"
    )
    hint = (
        "fix the ruleset's narrate first: it raised where the message says, and this "
        "requirement could not be judged past it"
    )  # not the requirement's own hint: the hook is the cause
    assert result.exit_code == 1
    assert result.stdout.splitlines() == [
        f"FAILED       report-page: {problem} — how to meet it: {hint}",
        "not checked  report-charts-every-measure: ruleset 'phalanx_tongue_tied': narrate "
        f"raised RuntimeError (at faults.py:{raised}), as report-page says: fix that hook first",
        "0 passed, 1 failed, 1 not checked",
    ]


def test_a_status_word_the_ruleset_does_not_declare_fails(folder: Path) -> None:
    """phalanx_wordless declares only 'routed'; its rows say 'destroyed' once an element is:
    the check names the turn, the unit and the word."""
    out = folder / "wordless.jsonl"
    api.run(folder / "phalanx_wordless.yaml", out=out)
    loaded = api.load_replay(out)
    first = next(
        (turn, row.id)
        for turn, state in loaded.turn_ends()
        for row in loaded.ruleset.units(loaded.scenario, state)
        if "destroyed" in row.status
    )
    result = _check("phalanx_wordless", folder, "status-words-are-declared")
    assert result.exit_code == 1
    failed = [line for line in result.stdout.splitlines() if line.startswith("FAILED")]
    assert failed == [
        _failed(
            "status-words-are-declared",
            f"phalanx_wordless.yaml, turn {first[0]}: {first[1]}: status 'destroyed' is not "
            "in status_words",
        )
    ]


def test_a_narrate_that_raises_or_returns_no_text_is_named_in_one_line(folder: Path) -> None:
    """``show --events`` on a plugin whose narrate raises, or returns a number: one line
    naming the ruleset, the hook and the seq (it said ``KeyError: 'hector'``, or printed
    the number), exit 2; check-ruleset's report checks fail on the number too."""
    tied = _fought(folder, "phalanx_tongue_tied")
    seq = next(e.seq for e in api.load_replay(tied).events if isinstance(e, phalanx.Fought))
    result = CliRunner().invoke(cli, ["show", str(tied), "--events"], prog_name="battlesim")
    assert result.exit_code == 2  # the lines before it told, then the one line
    assert result.stderr.startswith(
        f"battlesim: error: ruleset 'phalanx_tongue_tied': narrate raised RuntimeError: no "
        f"words for seq {seq} at phalanx_tongue_tied.jsonl:{seq + 2} (seq {seq}) (at faults.py:"
    )
    numeric = _fought(folder, "phalanx_numeric")
    seq = next(e.seq for e in api.load_replay(numeric).events if isinstance(e, phalanx.Fought))
    said = (
        f"battlesim: error: ruleset 'phalanx_numeric': narrate returned int at "
        f"phalanx_numeric.jsonl:{seq + 2} (seq {seq}), not a line of text or None"
    )
    result = CliRunner().invoke(cli, ["show", str(numeric), "--events"], prog_name="battlesim")
    assert (result.exit_code, result.stderr) == (2, said + "\n")
    check = _check("phalanx_numeric", folder, "report-page")
    assert check.exit_code == 1
    assert said.replace("phalanx_numeric.jsonl", "battle.jsonl") in check.stdout  # its replay


def test_a_field_events_change_but_the_snapshot_leaves_out_fails_by_its_rows(folder: Path) -> None:
    """phalanx_forgetful: the fights are counted in a fixed() field, shown in every row.
    The states restored from a snapshot compare equal (== leaves the field out), so only
    the rows tell: restore-inverts-snapshot fails at the first bound with a fight, naming
    the rows' field and both values (it passed, and `show` read the count back as 0)."""
    out = folder / "forgetful.jsonl"
    api.run(folder / "phalanx_forgetful.yaml", out=out)
    loaded = api.load_replay(out)
    first = next(e for e in loaded.events if isinstance(e, phalanx.Fought))
    fights = sum(isinstance(e, phalanx.Fought) and e.turn <= first.turn for e in loaded.events)
    line = _only_failure("phalanx_forgetful", folder, "restore-inverts-snapshot")
    assert line == _failed(
        "restore-inverts-snapshot",
        f"phalanx_forgetful.yaml, turn {first.turn}, field units()[0].details.fights: the "
        f"unit rows of restore(snapshot(s)) differ from those of s: 0, against {fights} (a "
        "field events change but the snapshot leaves out, as fixed() does, is back at its "
        "start value)",
    )


def test_a_field_a_process_writes_fails_by_the_rows_of_fold_and_live(folder: Path) -> None:
    """phalanx_scribbling: a referee writes the fixed() count (5) without an event. The live
    state and the fold compare equal (== and the snapshot leave the field out), so only the
    rows tell: fold-equals-live fails, naming the rows' field and both values (it passed)."""
    line = _only_failure("phalanx_scribbling", folder, "fold-equals-live")
    last = api.load_replay(_fought(folder, "phalanx_scribbling")).last_turn
    assert line == _failed(
        "fold-equals-live",
        f"phalanx_scribbling.yaml, turn {last}, field units()[0].details.fights: the unit "
        "rows of the state folded from the replay differ from those of the live battle's final "
        "state: 0, against 5 (a field a rule or process writes, not apply, which == and the "
        "snapshot leave out (a fixed() one): a study's unit_finals show it, show on the replay "
        "never does)",
    )


def test_an_outcome_that_miscounts_the_turns_fails(folder: Path) -> None:
    """phalanx_miscounting: `run` would print one turn more than the replay played; the
    outcome requirement names both counts (it checked the sides and losses only)."""
    played = api.load_replay(_fought(folder, "phalanx_miscounting")).last_turn
    line = _only_failure("phalanx_miscounting", folder, "outcome-names-every-side")
    assert line == _failed(
        "outcome-names-every-side",
        f"phalanx_miscounting.yaml, field turns: the outcome says {played + 1} turns; the "
        f"replay played {played} (its engine.turn_ended events)",
    )


def test_an_outcome_whose_winner_is_no_side_is_refused_by_every_command(
    folder: Path, tmp_path: Path
) -> None:
    """phalanx_misnamed gives its winner by the army's name: `run` printed an empty name
    (`:  wins after N bounds`), `batch` counted no win, exit 0, and `campaign` raised
    `KeyError: 'Greeks'`. The outcome is checked where it comes out of the ruleset: one
    line naming the ruleset, the hook, the winner and the sides, exit 2, for each."""
    scenario = folder / "phalanx_misnamed.yaml"
    fought = api.run(phalanx.SCENARIOS[0], out=tmp_path / "good.jsonl")
    assert fought.outcome.winner is not None  # the fault shows only in a battle someone wins
    ids = ", ".join(fought.outcome.sides)
    said = {  # each battle's seed decides who wins: either army's name is refused alike
        side.name: f"ruleset 'phalanx_misnamed': outcome returned winner {side.name!r}, none "
        f"of its sides ({ids})"
        for side in fought.outcome.sides.values()
    }
    winner = fought.outcome.sides[fought.outcome.winner].name
    ran = CliRunner().invoke(cli, ["run", str(scenario), "--out", str(tmp_path / "r.jsonl")])
    assert (ran.exit_code, ran.stdout, ran.stderr) == (
        2,
        "",
        f"battlesim: error: {said[winner]}\n",
    )
    args = ["batch", str(scenario), "--runs", "2", "--jobs", "1", "--no-plots"]
    studied = CliRunner().invoke(cli, [*args, "--out", str(tmp_path / "st")])
    assert studied.exit_code == 2
    [failed] = [x for x in studied.stdout.splitlines() if x.startswith("  failed ×2: ")]
    assert failed in {f"  failed ×2: HookError: {line}" for line in said.values()}
    plan = tmp_path / "two.yaml"
    plan.write_text(
        "campaign: two\nseed: 3\nbattles:\n"
        f"  - {{id: first, scenario: {scenario}}}\n  - {{id: second, scenario: {scenario}}}\n",
        encoding="utf-8",
    )
    campaign = CliRunner().invoke(cli, ["campaign", str(plan), "--out", str(tmp_path / "c")])
    assert campaign.exit_code == 2
    assert campaign.stderr in {f"battlesim: error: {line}\n" for line in said.values()}


def test_rules_data_that_is_not_plain_json_is_named_by_every_command(
    folder: Path, tmp_path: Path
) -> None:
    """phalanx_undigested's rules_data holds a set: run, batch and check-ruleset said
    `TypeError: Object of type set is not JSON serializable (at encoder.py:180)`, naming
    neither the ruleset nor the hook, and check-ruleset's hint was scenario-runs' own. The
    hook is checked where it is called: one line, exit 2, and the hint names rules_data."""
    said = "ruleset 'phalanx_undigested': rules_data returned a set at 'dice', not plain JSON data"
    scenario = str(folder / "phalanx_undigested.yaml")
    ran = CliRunner().invoke(cli, ["run", scenario, "--out", str(tmp_path / "r.jsonl")])
    assert (ran.exit_code, ran.stdout, ran.stderr) == (2, "", f"battlesim: error: {said}\n")
    args = ["batch", scenario, "--runs", "2", "--jobs", "1", "--no-plots"]
    studied = CliRunner().invoke(cli, [*args, "--out", str(tmp_path / "st")])
    assert (studied.exit_code, studied.stderr) == (2, f"battlesim: error: {said}\n")
    line = _only_failure("phalanx_undigested", folder, "scenario-runs")
    assert line.endswith(
        f"failed: exit 2: battlesim: error: {said} — how to meet it: fix the ruleset's "
        "rules_data first: it returned where the message says, and this requirement could "
        "not be judged past it"
    )


def test_a_draw_no_event_records_fails(folder: Path) -> None:
    """phalanx_unrecorded: a referee rolls once from '1/weather' and records nothing. The
    replay re-simulates byte for byte (verify passes it); draws-are-the-streams counts the
    draws the rules make against those the events record, by stream."""
    line = _only_failure("phalanx_unrecorded", folder, "draws-are-the-streams")
    assert line == _failed(
        "draws-are-the-streams",
        "phalanx_unrecorded.yaml: the rules drew 1 time from stream '1/weather' and the "
        "events record 0: every draw made is recorded in the event it decided",
    )


def test_a_stray_draw_at_the_end_of_an_events_stream_is_caught_by_the_draws_requirement(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One roll more after each fought event's two, on the event's own stream, recorded
    nowhere: no later draw moves, so the battle writes the same bytes (a golden replay
    cannot show it) and verify passes it; draws-are-the-streams counts 3 draws made on the
    stream against 2 recorded, and docs/rulesets.md (*Checking a ruleset*) says so."""
    clean = tmp_path / "clean.jsonl"
    api.run(phalanx.SCENARIOS[0], out=clean)
    fought = [e for e in api.load_replay(clean).events if isinstance(e, phalanx.Fought)]
    assert fought and all(len({d.stream for d in e.draws}) == 1 for e in fought)
    first = min(e.draws[0].stream for e in fought)  # the requirement reads streams by name
    decide = phalanx.decide_combat

    def stray(b: phalanx.Battlefield, eid: str) -> phalanx.Fought | None:
        event = decide(b, eid)
        if event is not None:  # the planted fault
            b.streams.stream(b.turn, "combat", b.spec(eid)[1].file).roll(6)
        return event

    monkeypatch.setattr(phalanx, "decide_combat", stray)
    planted = tmp_path / "planted.jsonl"
    api.run(phalanx.SCENARIOS[0], out=planted)
    assert planted.read_bytes() == clean.read_bytes()
    assert CliRunner().invoke(cli, ["verify", str(planted)]).exit_code == 0
    args = ["check-ruleset", "phalanx", "--only", "draws-are-the-streams"]
    result = CliRunner().invoke(cli, args, prog_name="battlesim")
    assert result.exit_code == 1
    [line] = [x for x in result.stdout.splitlines() if x.startswith("FAILED")]
    assert line == _failed(
        "draws-are-the-streams",
        f"phalanx_clash.yaml: the rules drew 3 times from stream {first!r} and the events "
        "record 2: every draw made is recorded in the event it decided",
    )
    page = (Path(__file__).parents[2] / "docs" / "rulesets.md").read_text(encoding="utf-8")
    section = page[page.index("## Checking a ruleset") :]
    said = " ".join(section.split())
    assert "stray draw at the end of an event's stream" in said
    assert "changes no golden replay" in said
    assert "`draws-are-the-streams` catches it" in said


def test_a_generator_of_the_rules_own_fails(folder: Path) -> None:
    """phalanx_private: a referee rolls from random.Random seeded from the turn: the battle
    is the same every time (run-is-deterministic passes it) and records nothing, so only
    the calls made to the generator while the battle is fought can tell."""
    line = _only_failure("phalanx_private", folder, "draws-are-the-streams")
    assert line == _failed(
        "draws-are-the-streams",
        "phalanx_private.yaml: the rules drew from another generator while the battle was "
        "fought: random.Random.getrandbits (1 call), random.Random.seed (1 call); its numbers "
        "are the same in every battle it is seeded alike, whatever the battle's seed, and no "
        "event records them",
    )


def test_a_draw_recorded_with_a_value_or_index_of_its_own_fails(
    folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A fought event's first draw recorded with another value, then with an index the
    stream never gave (past the draws made, and negative): each is named by its stream and
    index, and an index is refused before any value is made for it (an index near 10**9
    would have made that many)."""
    from sim.conformance import checks_draws
    from sim.conformance.requirement import RequirementFailed

    out = folder / "phalanx-draws.jsonl"
    api.run(phalanx.SCENARIOS[0], out=out)
    loaded = api.load_replay(out)
    made, events, _ = checks_draws._fought(SimpleNamespace(loaded=loaded))  # type: ignore[arg-type]
    fought = next(e for e in events if isinstance(e, phalanx.Fought) and e.draws)
    first = fought.draws[0]

    def said(draw: Any) -> str:
        edited = [
            e.model_copy(update={"draws": [draw, *e.draws[1:]]}) if e is fought else e
            for e in events
        ]
        monkeypatch.setattr(checks_draws, "_fought", lambda _b: (made, edited, {}))

        def failed(what: str, **where: Any) -> RequirementFailed:
            return RequirementFailed(what, scenario="phalanx.yaml", **where)

        battle = SimpleNamespace(loaded=loaded, failed=failed)
        with pytest.raises(RequirementFailed) as caught:
            checks_draws.DRAWS_ARE_THE_STREAMS.check(battle)  # type: ignore[arg-type]
        return str(caught.value)

    n = made[first.stream]
    assert (
        f"stream {first.stream!r} draw {first.i} is recorded as 0.5; the stream's draw "
        f"{first.i} is {first.u!r}"
    ) in said(first._replace(u=0.5))
    for i in (10**9, -5):
        assert (
            f"stream {first.stream!r} draw {i} is recorded; the rules drew {n} from it "
            f"(draws 0 to {n - 1})"
        ) in said(first._replace(i=i))


CARRIED = "carry_over(scenario, final state, the scenario's own data, {'reinforcements': {}})"
RAISING_LINE = next(
    k
    for k, line in enumerate(Path(faults.__file__).read_text(encoding="utf-8").splitlines(), 1)
    if 'if s["rest"] < 0:' in line
)


@pytest.mark.parametrize(
    ("name", "said"),
    [
        ("phalanx_carry_raising", f"raised KeyError: 'rest' (at faults.py:{RAISING_LINE})"),
        ("phalanx_carry_in_place", "changed the next_data it was given: return a new dict"),
        (
            "phalanx_carry_restless",
            "returned other data the second time: it must be a pure function",
        ),
    ],
)
def test_a_carry_over_that_raises_edits_what_it_was_given_or_varies_fails(
    folder: Path, name: str, said: str
) -> None:
    """carry-over-fights-on calls the hook twice on the battle's end, the scenario's own data
    as the next battle's: a hook that raises for a setting a campaign need not give, writes
    into the next battle's data, or answers otherwise the second time fails, by what it did."""
    line = _only_failure(name, folder, "carry-over-fights-on")
    assert line == _failed("carry-over-fights-on", f"{name}.yaml: {CARRIED} {said}")


def test_a_carry_over_whose_data_the_model_refuses_fails_by_the_campaigns_line(
    folder: Path,
) -> None:
    """phalanx_carry_garbled moves every element to file 99: the hook itself is pure, and the
    campaign check-ruleset writes (the scenario fought twice) is refused with the campaign
    command's own line (exit 2), which the failure quotes."""
    line = _only_failure("phalanx_carry_garbled", folder, "carry-over-fights-on")
    head, _, rest = line.partition(" exit 2: ")
    assert head == (
        "FAILED       carry-over-fights-on: phalanx_carry_garbled.yaml: battlesim campaign of "
        "the scenario fought twice:"
    )
    where, _, problem = rest.partition(": ")
    assert where.endswith("/campaign/campaign.yaml:1")
    assert problem == (
        "battles.1: after carry-over: armies.0.elements.0.file: 99 is more than 23, the most it "
        "may be — how to meet it: " + HINTS["carry-over-fights-on"]
    )


def _line_of(text: str) -> int:
    """The line of faults.py that holds ``text``."""
    lines = Path(faults.__file__).read_text(encoding="utf-8").splitlines()
    return next(k for k, line in enumerate(lines, 1) if text in line)


REARM = 'raise ValueError("rearming broke")'
CRASHES = {
    "phalanx_crashing": (
        "ruleset 'phalanx_crashing', the process of unit 'g_spear2', bound 3: ZeroDivisionError: "
        f"float division by zero (at faults.py:{_line_of('raise ZeroDivisionError(')})"
    ),
    "phalanx_crashing_end": (
        "ruleset 'phalanx_crashing_end', the turn-end rules (the plan's turn_end), bound 2: "
        f"KeyError: 'morale' (at faults.py:{_line_of('raise KeyError(')})"
    ),
    "phalanx_recursing": (
        "ruleset 'phalanx_recursing', the process of unit 'g_spear2', bound 2: RecursionError: "
        f"maximum recursion depth exceeded (at faults.py:{_line_of('raise RecursionError(')})"
    ),
    "phalanx_misplanned": (
        "ruleset 'phalanx_misplanned', the plan's processes (Plan.processes), before bound 1: "
        "TypeError: _misplanned_plan.<locals>.processes() takes 1 positional argument but 2 "
        "were given"
    ),
    "phalanx_detached": (
        "ruleset 'phalanx_detached', a process started by the process of unit 'g_spear2', "
        f"bound 2: ValueError: rearming broke (at faults.py:{_line_of(REARM)})"
    ),
}


@pytest.mark.parametrize("name", sorted(CRASHES))
def test_a_rule_that_raises_in_a_battle_is_named_by_ruleset_process_and_turn(
    folder: Path, tmp_path: Path, name: str
) -> None:
    """A unit's process, a process it started, the plan's turn-end rules, or its processes
    hook called with the wrong parameters (it said a bare `TypeError`), raising while
    the battle is fought: `run` says which ruleset, which process and which turn (in the
    ruleset's word: phalanx's bound), before the error and where it was raised (it said only
    `ZeroDivisionError: float division by zero (at faults.py:N)`), exit 2, and writes no
    replay; a study's failed runs hold the same words."""
    out = tmp_path / "crashed.jsonl"
    ran = CliRunner().invoke(cli, ["run", str(folder / f"{name}.yaml"), "--out", str(out)])
    assert (ran.exit_code, ran.stdout, ran.stderr) == (
        2,
        "",
        f"battlesim: error: {CRASHES[name]}\n",
    )
    assert list(tmp_path.iterdir()) == []
    study = tmp_path / "study"
    args = ["batch", str(folder / f"{name}.yaml"), "--runs", "2", "--jobs", "1", "--no-plots"]
    studied = CliRunner().invoke(cli, [*args, "--out", str(study)])
    assert studied.exit_code == 2
    assert f"  failed ×2: {CRASHES[name]}\n" in studied.stdout
    assert studied.stderr.startswith(
        f"battlesim: error: every run of the study failed, 2 of 2 ({CRASHES[name]}, at point 0)"
    )


def test_the_error_a_process_raises_keeps_its_type_and_carries_a_note(folder: Path) -> None:
    """For a notebook: api.run raises the process's own error (its type kept), with a PEP 678
    note naming the ruleset, the process and the turn, which its traceback prints."""
    with pytest.raises(ZeroDivisionError) as raised:
        api.run(folder / "phalanx_crashing.yaml")
    assert raised.value.__notes__ == [
        "ruleset 'phalanx_crashing', the process of unit 'g_spear2', bound 3"
    ]


def test_a_cause_the_recorder_refuses_is_named_once(folder: Path, tmp_path: Path) -> None:
    """The turn-end rules recording the end with cause 99999: the recorder's refusal names
    the ruleset and the event itself, so no ruleset-process-turn prefix repeats it."""
    out = tmp_path / "x.jsonl"
    ran = CliRunner().invoke(
        cli, ["run", str(folder / "phalanx_miscaused.yaml"), "--out", str(out)]
    )
    assert ran.exit_code == 2
    assert ran.stderr.startswith(
        "battlesim: error: UnlawfulCause: ruleset 'phalanx_miscaused' records event "
        "'phalanx.broke' at seq "
    )
    assert ran.stderr.count("phalanx_miscaused") == 1


def test_an_event_recorded_in_clean_up_code_is_refused_and_the_battle_stands(
    folder: Path, tmp_path: Path
) -> None:
    """phalanx_late's processes record an event in a ``finally`` run as the battle's
    processes are closed: `run` printed an outcome and an event count its replay did not
    hold (the late events changed the live state; the file's sink dropped them), exit 0.
    The recorder refuses such an event before applying it: one line, exit 2, and the
    replay written before it reads back whole (verify, fighting it again, says the same)."""
    out = tmp_path / "late.jsonl"
    ran = CliRunner().invoke(cli, ["run", str(folder / "phalanx_late.yaml"), "--out", str(out)])
    assert (ran.exit_code, ran.stdout) == (2, "")
    assert ran.stderr == (
        "battlesim: error: LateEvent: ruleset 'phalanx_late' records event 'phalanx.advanced' "
        "after the battle ended, in a process's clean-up code (a finally, or a with around a "
        "yield, run as the battle's processes are closed): the replay is written, so record "
        "nothing once the battle is over (docs/rulesets.md, 'The battle runner')\n"
    )
    footer = json.loads(out.read_text(encoding="utf-8").splitlines()[-1])
    assert api.load_replay(out).count == footer["events"] > 0  # whole: each event the battle's
    with pytest.raises(LateEvent):
        api.run(folder / "phalanx_late.yaml", out=tmp_path / "again.jsonl")


def test_a_carry_over_that_raises_is_named_by_campaign_and_batch(
    folder: Path, tmp_path: Path
) -> None:
    """A campaign of phalanx_carry_raising, whose carry_over reads a setting the file need
    not give: `campaign` and `batch` said only `KeyError: 'rest' (at faults.py:N)`; they name
    the ruleset, the hook and the battle carried into, as every hook's error is named."""
    scenario = folder / "phalanx_carry_raising.yaml"
    plan = tmp_path / "two.yaml"
    plan.write_text(
        "campaign: two\nseed: 3\nbattles:\n"
        f"  - {{id: first, scenario: {scenario}}}\n  - {{id: second, scenario: {scenario}}}\n",
        encoding="utf-8",
    )
    said = (
        "battlesim: error: ruleset 'phalanx_carry_raising': carry_over raised KeyError: 'rest' "
        f"at the carry into battle 'second' (at faults.py:{RAISING_LINE})\n"
    )
    fought = CliRunner().invoke(cli, ["campaign", str(plan), "--out", str(tmp_path / "out")])
    assert (fought.exit_code, fought.stderr) == (2, said)
    args = ["batch", str(plan), "--runs", "2", "--jobs", "1", "--no-plots"]
    studied = CliRunner().invoke(cli, [*args, "--out", str(tmp_path / "st")])
    assert (studied.exit_code, studied.stderr) == (2, said)


@pytest.mark.parametrize("name", ["phalanx_carry_forgetful", "phalanx_carry_forgetful_plain"])
def test_a_carry_over_that_loses_a_newcomer_is_refused_naming_it(
    folder: Path, tmp_path: Path, name: str
) -> None:
    """A campaign whose second battle's file brings an element the first lacks (g_reserve),
    of a carry_over that rebuilds each army from the elements that fought: the second battle
    was fought without it, saying nothing, exit 0. The campaign is refused before anything is
    fought, in one line naming the ruleset, the hook, the battle and the element, exit 2 (a
    CarryOver's result, and a plain hook's in the dry run); check-ruleset's
    carry-over-fights-on fails it, by the element its scenario without it did not get."""
    first = yaml.safe_load((folder / f"{name}.yaml").read_text(encoding="utf-8"))
    second = copy.deepcopy(first)
    reserve = {"id": "g_reserve", "name": "Reserve", "kind": "spear", "file": 6}
    second["armies"][0]["elements"].append(reserve)
    (tmp_path / "first.yaml").write_text(yaml.safe_dump(first), encoding="utf-8")
    (tmp_path / "second.yaml").write_text(yaml.safe_dump(second), encoding="utf-8")
    plan = tmp_path / "two.yaml"
    plan.write_text(
        "campaign: two\nseed: 3\nbattles:\n"
        "  - {id: first, scenario: first.yaml}\n  - {id: second, scenario: second.yaml}\n",
        encoding="utf-8",
    )
    fought = CliRunner().invoke(cli, ["campaign", str(plan), "--out", str(tmp_path / "out")])
    assert (fought.exit_code, fought.stdout, fought.stderr) == (
        2,
        "",
        f"battlesim: error: ruleset {name!r}: carry_over left unit 'g_reserve' out of battle "
        "'second', whose file brings it: a unit that did not fight the battle before joins "
        "fresh; its carry must keep it, or leave it out by a rule of its own with "
        "battle.leave_out(spec) (docs/rulesets.md, 'Campaigns: what carry_over must do')\n",
    )
    assert not (tmp_path / "out").exists()
    line = _only_failure(name, folder, "carry-over-fights-on")
    assert line == _failed(
        "carry-over-fights-on",
        f"{name}.yaml: carry_over(the scenario without 'g_psiloi', at its start; the "
        "scenario's own data; {'reinforcements': {}}) left out 'g_psiloi', which did not "
        "fight: a unit the next battle brings joins it fresh",
    )


def test_a_default_outside_its_own_bounds_is_named_as_the_cause(folder: Path) -> None:
    """phalanx_misdefaulted's ``reserve`` defaults to 0 but must be at least 1: the file,
    which leaves it out, validates and fights, and its replay's header (every default filled
    in) does not read back. The failure says so; it blamed an event the readers refuse."""
    line = _only_failure("phalanx_misdefaulted", folder, "scenario-runs")
    assert "header scenario is invalid: reserve: Input should be greater than or equal to 1" in (
        line
    )
    assert "a field's default outside the field's own bounds or choices" in line
    assert "recorded an event its readers refuse" not in line


def test_what_fails_after_an_event_changed_after_its_line_says_to_meet_that_first(
    folder: Path,
) -> None:
    """phalanx_keeping: every other requirement that fails reads the events back (draws,
    the fold, the digests) or folds them, and says to meet event-lines-validate first; their
    own hints blamed a value of the ruleset's own for a draw, or a rule that wrote the state."""
    result = _check("phalanx_keeping", folder)
    failed = _own_failures(result)
    assert failed[0].startswith("FAILED       event-lines-validate: ")
    assert len(failed) > 1, failed
    for line in failed[1:]:
        assert "— how to meet it: meet event-lines-validate first, which failed" in line or (
            "— how to meet it: meet fold-equals-live first" in line
            or "— how to meet it: meet digest-is-snapshot-digest first" in line
        ), line
