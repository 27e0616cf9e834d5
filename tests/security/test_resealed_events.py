"""Resealed replays with one event the battle cannot follow: each tool's one line, in words.

A forger who recomputes the hash chain (:mod:`tests.forge`) can give an event a unit the
battle does not have, drop a field, give one another type or a number no table reaches.
Past the chain and the event's shape, only the ruleset's hooks meet such a line, and they
raise on it.  Every replay tool says so in one line naming the file, the line and the
event's seq, in words (never Python's: ``KeyError('ghost')``, "audit raised ...",
"narrate raised ..."), with the exit codes of docs/replay-tools.md: ``verify`` 1 (damaged,
broken or different), the others 2 (a replay that cannot be read).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from engine.replayfile.reader import ReplayError
from sim import api
from sim.contract import get_ruleset
from tests.forge import ROOT, bodies, invoke, reseal

REPLAYS = ROOT / "replays"
DATA = ROOT / "tests" / "data" / "replays"


def _forged(
    tmp_path: Path, source: Path, kind: str, field: str, value: Any, name: str = "f"
) -> tuple[Path, int]:
    """``source`` with the first ``kind`` event's ``field`` (a dotted path) set to ``value``
    (removed for ``...``), resealed; the file and that event's seq."""
    texts = bodies(source)
    at = next(i for i, t in enumerate(texts) if t.startswith(f'{{"type":"{kind}",'))
    record = json.loads(texts[at])
    _change(record, field, value)
    texts[at] = json.dumps(record, separators=(",", ":"), ensure_ascii=False)
    path = tmp_path / f"{name}.jsonl"
    path.write_text(reseal(texts), encoding="utf-8")
    return path, at - 1


def _change(record: dict[str, Any], field: str, value: Any) -> None:
    *parents, last = field.split(".")
    holder: Any = record
    for part in parents:
        holder = holder[int(part)] if isinstance(holder, list) else holder[part]
    key: Any = int(last) if isinstance(holder, list) else last
    if value is ...:
        del holder[key]
    else:
        holder[key] = value


# verify: an audit that raises on a forged event (the first defect)

VERIFY_CASES = [
    # musket's audit looked the unit up: `cannot follow from the battle so far (ruleset
    # 'musket': audit raised KeyError: 'ghost' at seq 5 (at audit.py:471))`
    ("stone_wall-s1862.jsonl", "musket.fired", "unit", "ghost", "unit: unknown unit 'ghost'"),
    ("stone_wall-s1862.jsonl", "musket.fired", "target", "ghost", "target: unknown unit 'ghost'"),
    ("coral_sea-s1942.jsonl", "flattop.air_combat", "strike", "ghost",
     "strike: unknown unit 'ghost'"),
    # `audit raised IndexError: list index out of range at seq 14 (at state.py:155)`
    ("carrier_duel-s688.jsonl", "flattop.attacked", "attack", 10**9,
     "a number in it is beyond what the battle or the rules' tables hold"),
    # `audit raised ValueError: an attack needs at least 1 factor, not -1 at seq 10 (at …)`
    ("carrier_duel-s688.jsonl", "flattop.air_combat", "result.factors", -1,
     "a value in it is outside what the rules take"),
]  # fmt: skip


@pytest.mark.parametrize(("source", "kind", "field", "value", "said"), VERIFY_CASES)
def test_verify_says_in_words_why_an_event_its_audit_raised_on_cannot_follow(
    tmp_path: Path, source: str, kind: str, field: str, value: Any, said: str
) -> None:
    path, seq = _forged(tmp_path, REPLAYS / source, kind, field, value)
    result = invoke("verify", str(path))
    assert (result.exit_code, result.stderr) == (1, "")
    assert result.stdout == (
        f"INVARIANT broken at seq {seq} (line {seq + 2}): cannot follow from the battle so "
        f"far: {said}\n"
    )
    data = json.loads(invoke("verify", str(path), "--json").stdout)
    assert (data["status"], data["seq"], data["message"]) == (
        "invariant",
        seq,
        f"cannot follow from the battle so far: {said}",
    )


# the Python API's replay held in memory (the second defect)


@pytest.mark.parametrize(
    ("source", "kind", "field", "said"),
    [
        ("stone_wall-s1862.jsonl", "musket.fired", "unit", "unit: unknown unit 'ghost'"),
        ("coral_sea-s1942.jsonl", "flattop.air_combat", "strike", "strike: unknown unit 'ghost'"),
        ("tavern_brawl-s377.jsonl", "becmi.struck", "target", "target: unknown unit 'ghost'"),
    ],
)
def test_a_loaded_replay_refuses_a_forged_event_at_its_line(
    tmp_path: Path, source: str, kind: str, field: str, said: str
) -> None:
    """``api.load_replay``'s fold (state_at, why, diff) raised ``KeyError: 'ghost'``; it
    raises the ReplayError the streamed replay does, naming the file, line and seq."""
    path, seq = _forged(tmp_path, REPLAYS / source, kind, field, "ghost")
    expected = f"{path}:{seq + 2} (seq {seq}): cannot follow from the battle so far: {said}"
    loaded = api.load_replay(path)
    for call in (
        lambda: api.state_at(loaded),
        lambda: api.why(loaded, loaded.count - 1),
        lambda: api.diff(REPLAYS / source, loaded),
        lambda: loaded.after(loaded.count - 1),
    ):
        with pytest.raises(ReplayError) as refused:
            call()
        assert str(refused.value) == expected


# narrate, units and outcome: the line they fail on is the file's, not the ruleset's bug

NAMED = [
    # `ruleset 'musket': narrate raised KeyError: 'ghost' at f.jsonl:48 (seq 46) (at ending.py:25)`
    ("stone_wall-s1862.jsonl", "musket.battle_ended", "winner", "ghost",
     "cannot follow from the battle so far: winner: unknown side 'ghost'"),
    # `ruleset 'becmi': narrate raised KeyError: 'orcs' at f.jsonl:2 (seq 0) (at report.py:226)`
    ("tavern_brawl-s377.jsonl", "becmi.initiative", "rolls.orcs", ...,
     "not the battle its rules make: event becmi.initiative differs from re-simulation in: "
     "rolls.orcs"),
    # `narrate raised KeyError: 1000000000 at f.jsonl:6 (seq 4) (at report.py:220)`
    ("tavern_brawl-s377.jsonl", "becmi.wrestled", "hold_after", 10**9,
     "cannot follow from the battle so far: hold_after: 1000000000 is not a value the rules "
     "know"),
    # `narrate raised IndexError: tuple index out of range at f.jsonl:12 (seq 10) (at …)`
    ("carrier_duel-s688.jsonl", "flattop.air_combat", "result.basic_table", 10**9,
     "cannot follow from the battle so far: flattop.air_combat: hit table 9 does not follow "
     "from 1000000000 and {}"),
]  # fmt: skip


@pytest.mark.parametrize(("source", "kind", "field", "value", "said"), NAMED)
def test_the_narrative_names_the_line_its_ruleset_cannot_tell(
    tmp_path: Path, source: str, kind: str, field: str, value: Any, said: str
) -> None:
    path, seq = _forged(tmp_path, REPLAYS / source, kind, field, value)
    page = str(tmp_path / "r.html")
    for args in (["show", str(path), "--events", "--json"], ["report", str(path), "-o", page]):
        result = invoke(*args)
        assert (result.exit_code, result.stdout) == (2, ""), args
        assert result.stderr == f"battlesim: error: {path}:{seq + 2} (seq {seq}): {said}\n"


@pytest.mark.parametrize(
    ("source", "kind", "field", "value", "args", "said"),
    [
        # `battlesim: error: ruleset 'musket': outcome raised KeyError: 'ghost' (at trusted.py:167)`
        ("stone_wall-s1862.jsonl", "musket.battle_ended", "winner", "ghost",
         ["diff", "{g}", "{f}"],
         "cannot follow from the battle so far: winner: unknown side 'ghost'"),
        ("carrier_duel-s688.jsonl", "flattop.battle_ended", "winner", "ghost",
         ["diff", "{g}", "{f}"],
         "cannot follow from the battle so far: winner: unknown side 'ghost'"),
        # `ruleset 'becmi': units raised KeyError: 1000000000 (at view.py:41)`
        ("tavern_brawl-s377.jsonl", "becmi.wrestled", "hold_after", 10**9,
         ["show", "{f}", "--unit", "thorgrim"],
         "cannot follow from the battle so far: hold_after: 1000000000 is not a value the "
         "rules know"),
    ],
)  # fmt: skip
def test_a_state_its_ruleset_cannot_read_names_the_line_that_made_it(
    tmp_path: Path, source: str, kind: str, field: str, value: Any, args: list[str], said: str
) -> None:
    path, seq = _forged(tmp_path, REPLAYS / source, kind, field, value)
    result = invoke(*(a.format(g=REPLAYS / source, f=path) for a in args))
    assert result.exit_code == 2  # (show --unit has printed its title: it reads as it goes)
    assert result.stderr == f"battlesim: error: {path}:{seq + 2} (seq {seq}): {said}\n"


# a snapshot a forger made


@pytest.mark.parametrize(
    ("source", "field", "value", "said"),
    [
        # `f.jsonl:51 (seq 49): cannot follow from the battle so far: ValueError('zip()
        # argument 2 is longer than argument 1')`, two lines after the snapshot
        (REPLAYS / "carrier_duel-s688.jsonl", "state.strikes", ..., "state.strikes"),
        # a ship the battle lacks: its restore raised, `battlesim: error: ships.ghost.side:
        # Field required`, naming no file
        (REPLAYS / "carrier_duel-s688.jsonl", "state.ships.0.id", "ghost", "state.ships.0.id"),
        # `f.jsonl:113 (seq 111): cannot follow from the battle so far: KeyError('116pa')`
        (DATA / "stone_wall-s1862.format3.jsonl", "state.units.2.id", "ghost",
         "state.units.2.id"),
    ],
)  # fmt: skip
def test_a_forged_snapshot_is_named_not_the_event_after_it(
    tmp_path: Path, source: Path, field: str, value: Any, said: str
) -> None:
    path, seq = _forged(tmp_path, source, "engine.snapshot", field, value)
    for args in (["show", str(path)], ["diff", str(source), str(path)]):
        result = invoke(*args)
        assert (result.exit_code, result.stdout) == (2, ""), args
        assert result.stderr == (
            f"battlesim: error: {path}:{seq + 2} (seq {seq}): not the battle its rules make: "
            f"event engine.snapshot differs from re-simulation in: {said}\n"
        )


# an older record without what its upcaster reads


def test_an_older_record_missing_what_its_upcaster_reads_is_named(tmp_path: Path) -> None:
    """A format-1 musket.fired without its result: `… is wrong: it raised KeyError:
    'result'`, Python's words for what the record lacks."""
    path, seq = _forged(tmp_path, DATA / "stone_wall-s1862.format1.jsonl", "musket.fired",
                        "result", ...)  # fmt: skip
    said = (
        f"{path}:{seq + 2} (seq {seq}): 'musket.fired' is not a schema-1 record, or its "
        "upcaster ('musket.fired', 1) is wrong: the record has no 'result', which the upcaster "
        "reads"
    )
    result = invoke("verify", str(path))
    assert (result.exit_code, result.stdout) == (1, f"DAMAGED at seq {seq}: {said}\n")
    result = invoke("show", str(path))
    assert (result.exit_code, result.stderr) == (2, f"battlesim: error: {said}\n")


# the ruleset's own failure stays the ruleset's


@pytest.fixture
def outcome_raising() -> Iterator[None]:
    """musket's outcome raising KeyError('boom') on every state (as the ruleset's own code)."""
    hooked = get_ruleset("musket").outcome
    outcome = hooked.fn

    def broken(scenario: Any, state: Any) -> Any:
        raise KeyError("boom")

    object.__setattr__(hooked, "fn", broken)
    try:
        yield
    finally:
        object.__setattr__(hooked, "fn", outcome)


def test_a_ruleset_hook_failing_on_a_replay_its_rules_make_is_the_rulesets(
    outcome_raising: None, tmp_path: Path
) -> None:
    """The golden re-fights to itself: its file is not blamed for the hook's failure, which
    is named as the ruleset's, where it raised."""
    golden = str(REPLAYS / "stone_wall-s1862.jsonl")
    result = invoke("report", golden, "-o", str(tmp_path / "r.html"))
    assert (result.exit_code, result.stdout) == (2, "")
    assert re.fullmatch(
        r"battlesim: error: ruleset 'musket': outcome raised KeyError: 'boom' "
        r"\(at test_resealed_events\.py:\d+\)\n",
        result.stderr,
    )


# a bounded family: every event type of each ruleset's goldens, one forgery each, every tool

FAMILY_SOURCES = {
    "stone_wall-s1862.jsonl": (45, "state.units.116pa.fatigue=1"),
    "chancellorsville-s1863.jsonl": (95, "state.units.69ny.fatigue=1"),
    "coral_sea-s1942.jsonl": (18, "state.task_forces.mo_main.cap=0"),
    "carrier_duel-s688.jsonl": (56, "state.task_forces.tf16.cap=0"),
    "tavern_brawl-s377.jsonl": (17, "state.combatants.grub.hp=1"),
    "dungeon_skirmish-s3.jsonl": (75, "state.combatants.g1.hp=1"),
}
"""The goldens whose event types the family covers, each with a fork its golden takes
(``--at``, ``--set``): a state override late in the battle, so that the fork folds the
forged event before it."""
KINDS = ("ghost", "removed", "retyped", "out of range")
RAW = re.compile(
    r"KeyError|IndexError|TypeError|ValueError|AttributeError|ZeroDivision|OverflowError"
    r"|Traceback| raised |\(at [\w./-]+\.py:\d+\)"
)
"""Python's words, or a hook's failure told as the ruleset's: none for a forged line."""


def _leaves(value: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[tuple[Any, ...], Any]]:
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _leaves(item, (*path, key))
    elif isinstance(value, list) and path[-1:] != ("draws",):
        for i, item in enumerate(value):
            yield from _leaves(item, (*path, i))
    elif path and path[0] not in ("type", "schema_version", "seq"):
        yield path, value


def _mutation(record: dict[str, Any], ids: set[str], kind: str) -> tuple[str, Any] | None:
    """The first change of ``kind`` ``record`` takes (a dotted field and its value)."""
    if kind == "removed":  # its last field: what the event is about, not its place
        return list(record)[-1], ...
    for path, value in _leaves(record):
        field = ".".join(map(str, path))
        number = isinstance(value, int | float) and not isinstance(value, bool)
        if kind == "ghost" and isinstance(value, str) and value in ids:
            return field, "ghost"
        if kind == "retyped" and (number or isinstance(value, str)) and len(path) > 1:
            return field, "x" if number else 7
        if kind == "out of range" and number and path[0] not in ("turn", "time", "cause"):
            return field, 10**9
    return None


def _family() -> list[tuple[str, str, str, Any]]:
    """(source, event type, field, value): each event type's first event of each source,
    changed by the next kind in turn that it takes (deterministic: no randomness)."""
    cases: list[tuple[str, str, str, Any]] = []
    for source in FAMILY_SOURCES:
        loaded = api.open_replay(REPLAYS / source)
        rows = loaded.ruleset.units(loaded.scenario, loaded.ruleset.initial_state(loaded.scenario))
        ids = {r.id for r in rows} | {r.side for r in rows}
        seen: set[str] = {c[1] for c in cases}
        for text in bodies(REPLAYS / source)[1:-1]:
            record = json.loads(text)
            if record["type"] in seen:
                continue
            seen.add(record["type"])
            for step in range(len(KINDS)):
                change = _mutation(record, ids, KINDS[(len(cases) + step) % len(KINDS)])
                if change is not None:
                    cases.append((source, record["type"], *change))
                    break
    return cases


FAMILY = _family()


def test_the_family_covers_every_event_type_and_every_kind_of_change() -> None:
    """One case an event type, 28 in all: musket's, flattop's and becmi's each, and the
    engine's own (a turn's end, a snapshot); each kind of change several times."""
    types = [t for _, t, _, _ in FAMILY]
    assert len(types) == len(set(types)) == 28
    assert {t.split(".")[0] for t in types} == {"musket", "flattop", "becmi", "engine"}
    assert {"engine.turn_ended", "engine.snapshot"} <= set(types)
    values = [v for _, _, _, v in FAMILY]
    assert values.count("ghost") >= 5 and values.count(...) >= 5
    assert values.count(10**9) >= 5 and sum(v in ("x", 7) for v in values) >= 5


@pytest.mark.parametrize(("source", "kind", "field", "value"), FAMILY)
def test_a_resealed_forged_event_is_one_line_in_every_tool(
    tmp_path: Path, source: str, kind: str, field: str, value: Any
) -> None:
    """verify exits 1 naming the event's seq (never 0: the forgery never verifies); show, why,
    report, diff and fork exit 0 (the tool needs nothing the change broke: diff 1, it
    differs) or 2 with one line naming the file (fork: or its refusal of the change, which
    the forged battle may not take); nobody says it in Python's words."""
    golden = REPLAYS / source
    path, seq = _forged(tmp_path, golden, kind, field, value)
    result = invoke("verify", str(path))
    assert (result.exit_code, result.stderr) == (1, ""), result.output
    assert result.stdout.count("\n") == 1 and not RAW.search(result.stdout), result.stdout
    assert re.match(rf"(DAMAGED|INVARIANT broken|MISMATCH) at seq {seq}\b", result.stdout)
    last = api.open_replay(golden).count - 1
    at, change = FAMILY_SOURCES[source]
    fork = ["fork", str(path), "--at", str(at), "--set", change, "-o", str(tmp_path / "k.jsonl")]
    for args, fine in (
        (["show", str(path)], 0),
        (["show", str(path), "--events", "--json"], 0),
        (["why", str(path), str(last)], 0),
        (["report", str(path), "-o", str(tmp_path / "r.html")], 0),
        (["diff", str(golden), str(path)], 1),
        (fork, 0),
    ):
        result = invoke(*args)
        assert result.exception is None or isinstance(result.exception, SystemExit), args
        assert result.exit_code in (fine, 2), (args, result.output)
        if result.exit_code == 2:
            assert result.stderr.count("\n") == 1 and not RAW.search(result.stderr), args
            assert result.stderr.startswith("battlesim: error: "), args
            if args[0] != "fork":
                assert f"{path}:" in result.stderr, (args, result.stderr)
