"""One suite holds every tool to the ruleset contract, for every ruleset and the toy plugin.

Parametrized over :data:`tests.contract.cases.CASES`; a new ruleset (an entry
point in ``battlesim.rulesets``) passes or fails it without a new test.
The ``why`` case belongs here too (see the end of the module).
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from engine import log
from engine.canonical import canonical_json, digest
from engine.events import TurnEnded
from engine.log import MemorySink
from engine.projection import PathError, set_path
from sim import api, runner
from sim.cli import cli
from sim.cli.table import render_units
from sim.replay import analysis
from sim.rulesets.trusted import typed
from tests.contract.cases import CASES, Case
from tests.viewer.pagecheck import NETWORK, embedded, well_formed


def _cli(*args: str | Path) -> Result:
    return CliRunner().invoke(cli, [str(a) for a in args])


@pytest.fixture(scope="module", params=CASES, ids=[c.id for c in CASES])
def fought(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Any:
    """The case's scenario fought once with ``battlesim run``: (case, replay path, loaded)."""
    case: Case = request.param
    assert case.scenario.is_file(), f"ruleset {case.ruleset!r} ships no scenario"
    out = tmp_path_factory.mktemp(case.id) / f"{case.scenario.stem}.jsonl"
    result = _cli("run", case.scenario, "--out", out)
    assert result.exit_code == 0, result.output
    loaded = api.load_replay(out)
    assert loaded.ruleset.name == case.ruleset
    return case, out, loaded


def test_run_prints_the_headline_and_verify_accepts_it(fought: Any) -> None:
    """run's first line is the headline in the ruleset's words; verify re-simulates it exactly."""
    case, out, loaded = fought
    rs, sc = loaded.ruleset, loaded.scenario
    outcome = rs.outcome(sc, loaded.state_at())
    again = _cli("run", case.scenario, "--out", out.with_name("again.jsonl"))
    lines = again.output.splitlines()
    n, word = outcome.turns, rs.turn_name
    who = f"{outcome.winner_name} wins" if outcome.winner else "Draw"
    assert lines[0].startswith(f"{case.scenario.name} (seed {loaded.replay.header.seed}): {who}")
    assert f" after {n} {word}{'' if n == 1 else 's'} — " in lines[0]
    assert lines[1:-1] == [f"  {s}" for s in rs.summary(outcome)]
    assert out.read_bytes() == out.with_name("again.jsonl").read_bytes()
    verify = _cli("verify", out)
    assert (verify.exit_code, verify.output.split(":")[0]) == (0, "OK")


def test_every_event_line_is_what_validating_the_event_writes(
    fought: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Fought again with the line check on, every event line of the replay was checked.

    Rule code builds hot events without validation (``engine.events.trusted``);
    :func:`engine.log.check_line` validates each again from its line and
    requires the same line back, so the replay is what validation would write.
    The log writes each line from the serializer's bytes: the text is the
    event's ``model_dump_json``.
    """
    case, out, _ = fought
    checked: list[str] = []

    def counting(event: Any, body: str) -> None:
        checked.append(body)
        assert body == event.model_dump_json()
        real_check(event, body)

    real_check = log.check_line
    monkeypatch.setattr(log, "check_line", counting)
    monkeypatch.setattr(log.EventLog, "check_lines", True)
    again = tmp_path / "again.jsonl"
    assert _cli("run", case.scenario, "--out", again).exit_code == 0
    assert again.read_bytes() == out.read_bytes()
    events = again.read_text(encoding="utf-8").splitlines()[1:-1]
    assert checked == [line[: line.rindex(',"h":')] + "}" for line in events]


def test_outcome_names_every_side_and_measures_losses(fought: Any) -> None:
    """The Outcome has each scenario side, losses as measures with units, JSON as run --json."""
    _, _, loaded = fought
    o = loaded.ruleset.outcome(loaded.scenario, loaded.state_at())
    sides = {r.side for r in loaded.ruleset.units(loaded.scenario, loaded.state_at())}
    assert sides <= set(o.sides) and len(o.sides) >= 2
    assert all(m.unit and m.name for s in o.sides.values() for m in s.losses)
    as_json = o.as_json()
    assert as_json["sides"].keys() == o.sides.keys()
    assert {sid: s["losses"] for sid, s in as_json["sides"].items()} == o.losses()


def test_fold_equals_live(fought: Any) -> None:
    """The state folded from the replay equals the live simulation's final state."""
    _case, _, loaded = fought
    rs, sc = loaded.ruleset, loaded.scenario
    live = rs.simulate(sc, loaded.replay.header, MemorySink())
    assert rs.snapshot(loaded.state_at(use_snapshots=False)) == rs.snapshot(live)
    assert loaded.state_at(use_snapshots=False) == live


def test_each_turns_digest_is_the_digest_of_its_snapshot(fought: Any) -> None:
    """Every engine.turn_ended digest is sha256 of canonical_json(snapshot(state)) at that
    turn's end, however the ruleset's digest was written (snapshot_json or serialised)."""
    _, _, loaded = fought
    rs = loaded.ruleset
    turns = []
    for event, before in loaded.fold(state=rs.initial_state(loaded.scenario)):
        if isinstance(event, TurnEnded):
            assert event.state_digest == digest(rs.snapshot(before)), event.turn
            turns.append(event.turn)
    assert turns == list(range(1, loaded.events[-1].turn + 1))


def test_snapshot_json_writes_the_snapshots_canonical_text(fought: Any) -> None:
    """A ruleset's snapshot_json is canonical_json(snapshot(s)) at the start and every turn's
    end, and a battle fought without it writes the same bytes."""
    _, out, loaded = fought
    rs, sc = loaded.ruleset, loaded.scenario
    if rs.snapshot_json is None:
        pytest.skip(f"{rs.name} has no snapshot_json (its digests are serialised)")
    turns = 0
    for _turn, state in loaded.turn_ends():
        assert rs.snapshot_json(state) == canonical_json(rs.snapshot(state))
        turns += 1
    assert turns >= 2
    sink = MemorySink()
    state, plan, header = rs.initial_state(sc), rs.plan(sc), loaded.replay.header
    runner.fight(plan, sc, header, sink, state, rs.apply, rs.snapshot)  # no snapshot_json
    assert "\n".join(sink.lines) + "\n" == out.read_text(encoding="utf-8")


def test_every_unit_is_one_live_process_at_the_start(fought: Any) -> None:
    """The runner starts one live SimPy process per unit row, per kind, and none for a stranger."""
    _, _, loaded = fought
    rs, sc = loaded.ruleset, loaded.scenario
    rows = rs.units(sc, rs.initial_state(sc))
    seen: list[list[str | None]] = []

    def watch(started: runner.Started) -> None:  # called before the clock starts
        seen.append([unit for unit, process in started if process.is_alive])

    state, plan, header = rs.initial_state(sc), rs.plan(sc), loaded.replay.header
    runner.fight(plan, sc, header, MemorySink(), state, rs.apply, rs.snapshot, watch=watch)
    [live] = seen
    units = [unit for unit in live if unit is not None]
    kind = {r.id: r.kind for r in rows}
    assert Counter(kind.get(u, "?") for u in units) == Counter(r.kind for r in rows)
    assert sorted(units) == sorted(kind)  # each row's own process, none for a stranger


def test_restore_of_snapshot_is_the_state_at_every_turn(fought: Any) -> None:
    """restore(snapshot(s)) == s after a JSON round trip, at the start and every turn's end."""
    _, _, loaded = fought
    rs, sc = loaded.ruleset, loaded.scenario
    turns = 0
    for _turn, state in loaded.turn_ends():
        data = json.loads(json.dumps(rs.snapshot(state)))
        assert rs.restore(sc, data) == state
        turns += 1
    assert turns >= 2


def test_state_at_from_a_snapshot_equals_the_full_fold(fought: Any) -> None:
    """state_at(t) started from the nearest snapshot equals the fold from the first event."""
    _, _, loaded = fought
    rs = loaded.ruleset
    last = loaded.events[-1].turn
    for turn in range(last + 1):
        fast = rs.snapshot(loaded.state_at(turn))
        assert fast == rs.snapshot(loaded.state_at(turn, use_snapshots=False)), turn


def _table(loaded: api.LoadedReplay, state: Any) -> list[str]:
    """The generic table of the unit rows, which `show` prints for every ruleset."""
    rs, sc = loaded.ruleset, loaded.scenario
    return render_units(rs.units(sc, state), rs.space(sc)).splitlines()


def test_show_and_show_turn_print_the_state_table(fought: Any) -> None:
    """show prints the end of the battle, show --turn 1 the end of turn 1, in the ruleset's word."""
    _, out, loaded = fought
    rs, sc = loaded.ruleset, loaded.scenario
    last = loaded.events[-1].turn
    end = _cli("show", out)
    assert end.exit_code == 0
    assert end.output.splitlines() == [
        f"{sc.name} — end of battle ({rs.turn_name} {last})",
        *_table(loaded, loaded.state_at()),
    ]
    first = _cli("show", out, "--turn", "1")
    assert first.output.splitlines() == [
        f"{sc.name} — end of {rs.turn_name} 1",
        *_table(loaded, loaded.state_at(1)),
    ]


def test_show_unit_works_for_a_unit_of_every_kind(fought: Any) -> None:
    """For one unit of each kind: --unit gives its rows turn by turn, --events --unit its events."""
    _, out, loaded = fought
    rs, sc = loaded.ruleset, loaded.scenario
    rows = rs.units(sc, loaded.state_at())
    kinds = {r.kind: r for r in reversed(rows)}
    told = 0
    for kind, row in kinds.items():
        shown = _cli("show", out, "--unit", row.id, "--json")
        assert shown.exit_code == 0, (kind, shown.output)
        expected = [
            {rs.turn_name: t, **r.model_dump(mode="json")}
            for t, state in loaded.turn_ends()
            for r in rs.units(sc, state)
            if r.id == row.id
        ]
        assert json.loads(shown.output)["rows"] == expected
        events = _cli("show", out, "--events", "--unit", row.id, "--seqs")
        assert events.exit_code == 0, (kind, events.output)
        lines = events.output.splitlines()
        for line in lines:
            seq = int(line.split("]")[0].removeprefix("[seq "))
            assert analysis.involves(loaded.events[seq], row.id), (kind, line)
        told += len(lines)
    assert told > 0
    assert _cli("show", out, "--unit", "no-such-unit").exit_code == 2


def test_diff_of_a_replay_with_itself_and_with_another_seed(fought: Any) -> None:
    """diff: identical with itself (exit 0); another seed compares outcomes and unit rows."""
    case, out, loaded = fought
    same = _cli("diff", out, out)
    assert (same.exit_code, same.output) == (0, f"identical: {out} and {out}\n")
    other = out.with_name("other-seed.jsonl")
    seed = loaded.replay.header.seed + 1
    assert _cli("run", case.scenario, "--seed", str(seed), "--out", other).exit_code == 0
    result = _cli("diff", out, other, "--json")
    assert result.exit_code in (0, 1)
    data = json.loads(result.output)
    assert data["mode"] == "variants"
    assert data["inputs"][0] == {"path": "seed", "kind": "changed", "a": seed - 1, "b": seed}
    ids = [r.id for r in loaded.ruleset.units(loaded.scenario, loaded.state_at())]
    assert sorted(data["units"]) == sorted(ids)  # --json sorts keys
    assert all("strength" in fields for fields in data["units"].values())


def test_fork_flips_a_decision_and_the_fork_verifies(fought: Any) -> None:
    """Fork at the first ruleset event with a yes/no field, flipped; the fork verifies."""
    _, out, loaded = fought
    at, field, value = next(
        (e.seq, k, v)
        for e in loaded.events
        if not e.type.startswith("engine.")
        for k, v in e.model_dump().items()
        if isinstance(v, bool)
    )
    forked = out.with_name("forked.jsonl")
    setting = f"{field}={'false' if value else 'true'}"
    made = _cli("fork", out, "--at", str(at), "--set", setting, "--out", forked)
    assert made.exit_code == 0, made.output
    assert made.output.startswith(f"forked {out} at seq {at}: ")
    child = api.load_replay(forked)
    assert getattr(child.events[at], field) is (not value)
    verify = _cli("verify", forked)
    assert verify.exit_code == 0, verify.output


def test_fork_refuses_the_rulesets_derived_fields(fought: Any) -> None:
    """A state path ending in one of the ruleset's derived fields is refused (exit 2)."""
    _, out, loaded = fought
    for name in loaded.ruleset.derived_fields:
        refused = _cli("fork", out, "--at", "0", "--set", f"state.x.{name}=1")
        assert refused.exit_code == 2
        assert "positions cannot be forked" in refused.output


def test_batch_of_a_few_runs(fought: Any, tmp_path: Path) -> None:
    """batch: three runs are done and stored, one outcome row each."""
    case, _, _ = fought
    out = tmp_path / "study"
    result = _cli("batch", case.scenario, "--runs", "3", "--out", out, "--no-plots")
    assert result.exit_code == 0, result.output
    import duckdb

    with duckdb.connect(str(out / "study.duckdb"), read_only=True) as con:
        rows = con.execute("SELECT status, count(*) FROM runs GROUP BY status").fetchall()
        units = con.execute("SELECT count(DISTINCT unit) FROM unit_finals").fetchall()
    assert rows == [("done", 3)]
    assert units[0][0] == len(api.load_replay(fought[1]).ruleset.units(*_sc_state(fought)))


def _sc_state(fought: Any) -> tuple[Any, Any]:
    _, _, loaded = fought
    return loaded.scenario, loaded.state_at()


def test_why_on_every_consequence_prints_its_chain_to_a_first_cause(fought: Any) -> None:
    """The battle records a consequence; for each, why prints root → … → it, link by cause."""
    _, out, loaded = fought
    events = loaded.events
    consequences = [e for e in events if e.cause is not None]
    assert consequences, "no event records a cause: why has nothing to explain"
    for event in consequences:
        expected = [event.seq]
        while (cause := events[expected[0]].cause) is not None:
            assert 0 <= cause < expected[0], f"seq {expected[0]} names cause {cause}"
            expected.insert(0, cause)
        assert [e.seq for e, _ in analysis.why(loaded, event.seq)] == expected
    deepest = max(consequences, key=lambda e: len(analysis.why(loaded, e.seq)))
    result = _cli("why", out, deepest.seq)
    assert result.exit_code == 0, result.output
    lines = [line for line in result.stdout.splitlines() if "[seq " in line]
    chain = [e.seq for e, _ in analysis.why(loaded, deepest.seq)]
    assert len(chain) >= 2 and events[chain[0]].cause is None
    for depth, (line, seq) in enumerate(zip(lines, chain, strict=True)):
        assert line.startswith("  " * depth + ("→ " if depth else "") + f"[seq {seq}] ")


def test_report_parses_has_two_charts_and_no_network(fought: Any, tmp_path: Path) -> None:
    """report: one well-formed page, >= 2 SVG charts, nothing fetched, every unit in its data."""
    _, out, loaded = fought
    page_path = tmp_path / "report.html"
    result = _cli("report", out, "-o", page_path)
    assert (result.exit_code, result.output) == (0, f"wrote {page_path}\n")
    page = page_path.read_text(encoding="utf-8")
    assert well_formed(page) == []
    assert len(re.findall(r'<svg class="chart"', page)) >= 2
    assert NETWORK.search(page) is None
    [data] = embedded(page)
    rows = loaded.ruleset.units(loaded.scenario, loaded.state_at(0))
    assert [u["id"] for u in data["units"]] == [r.id for r in rows]
    assert [e["seq"] for e in data["events"]] == [e.seq for e in loaded.events]


def _validated_again(rows: list[Any]) -> list[Any]:
    """Each model as validation makes it from its own data (dumped, then validated)."""
    return [type(r).model_validate(r.model_dump()) for r in rows]


def _numbers(value: Any, path: str = "") -> Iterator[tuple[str, int | float]]:
    """Every int or float leaf of snapshot data, with its dotted path (a list item
    with an ``id`` by its id, as a state keeps units by id; others by index)."""
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _numbers(v, f"{path}.{k}" if path else str(k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            step = v["id"] if isinstance(v, dict) and "id" in v else i
            yield from _numbers(v, f"{path}.{step}")
    elif type(value) in (int, float):
        yield path, value


def test_unit_rows_are_what_validation_makes_of_them(fought: Any) -> None:
    """At the start and every turn's end, and after overriding every number of the state,
    each unit row and the outcome equal their validated copies type for type (a ruleset
    may build them trusted)."""
    _, _, loaded = fought
    rs, sc = loaded.ruleset, loaded.scenario
    turns = 0
    for _turn, state in loaded.turn_ends():
        rows = rs.units(sc, state)
        assert typed(rows) == typed(_validated_again(rows))
        outcome = rs.outcome(sc, state)
        assert typed(outcome) == typed(_validated_again([outcome])[0])
        turns += 1
    assert turns >= 2
    state = loaded.state_at()
    before = rs.units(sc, state)
    overridden = 0
    for path, value in _numbers(rs.snapshot(state)):
        if path.split(".")[-1] in rs.derived_fields:
            continue
        try:
            set_path(state, path, value + 1, counts=True)
        except PathError:  # a snapshot key that is not a state path (a derived total)
            continue
        overridden += 1
    rows = rs.units(sc, state)
    assert overridden > 0 and rows != before
    assert typed(rows) == typed(_validated_again(rows))
    outcome = rs.outcome(sc, state)
    assert typed(outcome) == typed(_validated_again([outcome])[0])
