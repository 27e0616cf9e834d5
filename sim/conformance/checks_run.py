"""Requirements of fighting a scenario: it runs, reads as the ruleset says, and re-simulates."""

from __future__ import annotations

import itertools
import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engine.events import Event, TurnEnded
from engine.log import EventLog, MemorySink, line_body
from engine.recorder import UnregisteredEvent
from engine.version import FORMAT_VERSION
from sim.conformance.battle import Battle, Family, tool_problem
from sim.conformance.differ import first_difference
from sim.conformance.requirement import NotChecked, RequirementFailed, requirement
from sim.contract import StateBase, headline
from sim.contract.defaults import apply_by_state

__all__ = [
    "BATTLE_LASTS_TWO_TURNS",
    "EVENTS_ARE_REGISTERED",
    "EVENT_LINES_VALIDATE",
    "OUTCOME_NAMES_EVERY_SIDE",
    "RUN_IS_DETERMINISTIC",
    "RUN_PRINTS_HEADLINE",
    "SAME_BYTES_IN_OTHER_PROCESSES",
    "SCENARIO_RUNS",
    "SHIPS_A_SCENARIO",
    "VERIFY_ACCEPTS_REPLAY",
    "Live",
    "live",
]


@requirement(
    "The ruleset ships at least one scenario to fight.",
    "List your package's scenario files in Ruleset.examples (declared as package data), "
    "or name one with --scenario FILE",
    "The contract",
)
def SHIPS_A_SCENARIO(battle: Battle) -> None:  # noqa: N802  # a requirement, named as a constant
    if battle.scenario is None:
        raise battle.failed("no scenario: Ruleset.examples is empty")


@requirement(
    "`battlesim run` fights each scenario to a replay of this ruleset.",
    "Run `battlesim validate FILE`, then `battlesim run FILE`: the file's `ruleset:` key is "
    "the ruleset's name, its model and cross_check accept it, and the plan fights it to the "
    "end, recording events that read back (finite numbers, causes that are earlier seqs)",
    "Plugging in: the `battlesim.rulesets` entry-point group",
)
def SCENARIO_RUNS(battle: Battle) -> None:  # noqa: N802
    if battle.scenario is None:
        battle.loaded  # noqa: B018  # NotChecked, for the cause every requirement shares
    problem = battle.fight.problem
    if problem is not None:
        raise battle.failed(problem)


def _named(classes: list[type[Event]]) -> str:
    """``'duel.struck' (Struck), …`` for event classes."""
    return ", ".join(f"{c.model_fields['type'].default!r} ({c.__name__})" for c in classes)


@requirement(
    "The registry lists every event class the state's @applies methods apply and every event "
    "the battle records; each registered event has an @applies method when apply is the "
    "state's; each of the ruleset's own event types begins with its name and a dot "
    "('<name>.'), none with 'engine.'.",
    "List every event class in the Ruleset's EventRegistry (for a StateBase state, "
    "EventRegistry(State.applied_events()) lists exactly the ones it applies), and name each "
    "event type '<ruleset>.<event>'",
    "The state base",
)
def EVENTS_ARE_REGISTERED(battle: Battle) -> None:  # noqa: N802
    from sim.scenario.load import load_scenario  # noqa: PLC0415  # the scenario layer

    rs = battle.ruleset
    tags = [c.model_fields["type"].default for c in rs.registry.classes]
    registered = [t for t in tags if not t.startswith("engine.")]
    own = [c for c in rs.registry.classes if not c.__module__.startswith("engine.")]
    if strays := [c for c in own if c.model_fields["type"].default.startswith("engine.")]:
        raise battle.failed(
            f"the event types {_named(strays)} begin with 'engine.', which every tool reads as "
            f"the engine's own events (fork, why and the folds skip them): expected "
            f"'{rs.name}.<event>'"
        )
    if battle.scenario is None:
        battle.loaded  # noqa: B018  # NotChecked: nothing was fought
    try:
        _, sc = load_scenario(battle.scenario or "")
    except Exception:  # an invalid file is scenario-runs' finding: not checked, same cause
        battle.loaded  # noqa: B018
        raise
    state = rs.initial_state(sc)
    if isinstance(state, StateBase):
        applied = type(state).applied_events()
        if missing := [c for c in applied if not rs.registry.knows(c)]:
            raise battle.failed(
                f"{type(state).__name__} applies {_named(missing)} (@applies), which the "
                f"registry does not list: expected every applied event among the registered "
                f"{registered}"
            )
        unapplied = [
            c
            for c in rs.registry.classes
            if not c.model_fields["type"].default.startswith("engine.") and c not in applied
        ]
        if rs.apply is apply_by_state and unapplied:
            raise battle.failed(
                f"the registry lists {_named(unapplied)}, which no @applies method of "
                f"{type(state).__name__} applies: expected one for each registered event"
            )
    if foreign := [c for c in own if not c.model_fields["type"].default.startswith(f"{rs.name}.")]:
        raise battle.failed(
            f"the event types {_named(foreign)} do not begin with '{rs.name}.', the ruleset's "
            f"name: expected '{rs.name}.<event>', so that a replay's line says whose event it is"
        )
    if battle.fight.problem is None:
        return  # every event the battle recorded was registered (run refuses any other)
    try:
        rs.simulate(sc, _header(battle, sc), MemorySink())
    except UnregisteredEvent as exc:
        raise battle.failed(str(exc)) from None
    except Exception:  # another problem: scenario-runs says which
        return


@requirement(
    "The ruleset's EventRegistry states since_format, the first replay format it was written "
    "in (left out, it reads 1).",
    "Give EventRegistry(..., since_format=N) the first replay format the ruleset was written "
    "in: for a new plugin today's, written as the number engine.version.FORMAT_VERSION holds "
    f"({FORMAT_VERSION}), not that name, which moves with battlesim and would refuse the "
    "plugin's older replays once a later battlesim writes a newer format; a ruleset older "
    "than this requirement that leaves it out loads and fights as before, reading 1",
    "The contract",
)
def REGISTRY_STATES_ITS_FIRST_FORMAT(battle: Battle) -> None:  # noqa: N802
    if not battle.ruleset.registry.since_format_stated:
        raise battle.failed(
            "its EventRegistry leaves since_format out, so it reads 1: a replay of it claiming "
            "a format older than the first it was written in is not refused as a downgrade "
            f"(a forgery); expected since_format=N, N that first format ({FORMAT_VERSION}, "
            "today's, for a new plugin)"
        )


def _header(battle: Battle, sc: Any) -> Any:
    """A header for fighting ``sc`` again in this process (as ``run`` makes it)."""
    from sim.replay.header import make_header  # noqa: PLC0415

    return make_header(battle.ruleset, sc, getattr(sc, "seed", 1), source=battle.name)


@requirement(
    "`run` prints the headline in the ruleset's words, then one `summary` line per side.",
    "Give Outcome its winner, winner_name, reason and turns; summary(outcome) returns readable "
    "lines; turn_name is what one turn is called",
    "The models",
)
def RUN_PRINTS_HEADLINE(battle: Battle) -> None:  # noqa: N802
    loaded, result = battle.loaded, battle.fight.result
    assert result is not None  # fought
    rs, sc = loaded.ruleset, loaded.scenario
    outcome = rs.outcome(sc, loaded.state_at())
    lines = result.stdout.splitlines()
    expected = f"{battle.name} (seed {loaded.header.seed}): {headline(rs, outcome)}"
    if not lines or lines[0] != expected:
        first = lines[0] if lines else "nothing"
        raise battle.failed(f"run's first line is {first!r}, expected {expected!r}")
    summary = [f"  {s}" for s in rs.summary(outcome)]
    if lines[1:-1] != summary:
        raise battle.failed(f"run printed {lines[1:-1]!r} under the headline, summary {summary!r}")


@dataclass(frozen=True)
class Live:
    """The scenario fought again in this process, every event line checked as it is built."""

    state: Any
    text: str
    problem: str | None
    changed: RequirementFailed | None = None
    """The first event whose line was written and which then changed (apply kept and
    changed one of its lists or dicts), as the failure that says so."""


class _Keeping(MemorySink):
    """Lines, and each event beside its line: to read the event again once the battle is over."""

    takes_events = True

    def __init__(self) -> None:
        super().__init__()
        self.kept: list[tuple[int, Event]] = []

    def write_event(self, line: bytes, event: Event) -> None:
        self.kept.append((len(self.lines), event))
        self.write(line)


def _changed(battle: Battle, sink: _Keeping) -> RequirementFailed | None:
    """The first event that no longer writes its own line (``verify`` audits the
    re-simulation's own event objects: one changed after it was written misleads it)."""
    for at, event in sink.kept:
        body = line_body(event).decode()
        line = sink.lines[at]
        if line.startswith(body[:-1] + ',"h":'):
            continue
        left, right = json.loads(line), json.loads(body)
        left.pop("h", None)
        where = first_difference(left, right)
        seen = (
            f"the line holds {where.left}, the event now {where.right}"
            if where is not None
            else "the line and the event now differ"
        )
        return battle.failed(
            f"event {left.get('type', '?')!r} changed after its line was written: {seen} "
            "(expected every event to stay as recorded: an apply that keeps an event's list or "
            "dict must copy it)",
            seq=event.seq,
            field=where.path or None if where is not None else None,
        )
    return None


def live(battle: Battle, *, failing: str) -> Live:
    """The battle fought live with ``EventLog.check_lines`` on (once per battle).

    Raises:
        RequirementFailed: ``<failing>: <the problem>`` when it could not be fought live.
    """

    def fight() -> Live:
        loaded = battle.loaded
        sink, saved = _Keeping(), EventLog.check_lines
        EventLog.check_lines = True
        try:
            state = loaded.ruleset.simulate(loaded.scenario, loaded.header, sink)
        except Exception as exc:  # the rules' own error is the finding
            return Live(None, "", f"{type(exc).__name__}: {exc}")
        finally:
            EventLog.check_lines = saved
        return Live(state, "\n".join(sink.lines) + "\n", None, _changed(battle, sink))

    fought = battle.shared("live", fight)
    if fought.problem is not None:
        raise battle.failed(f"{failing}: {fought.problem}")
    return fought


@requirement(
    "Every event line is what validating the event again writes (trusted builds included), "
    "and each event still writes its line when the battle is over.",
    "Build events with their own field types (an int field gets an int, a Literal its text); "
    "events built with engine.events.trusted must hold exactly what validation would make; "
    "an apply copies any list or dict it keeps from an event",
    "Events",
)
def EVENT_LINES_VALIDATE(battle: Battle) -> None:  # noqa: N802
    fought = live(battle, failing="fought with every line checked")
    if fought.changed is not None:
        raise fought.changed


@requirement(
    "Fought again from the same scenario and seed, the battle writes the same replay bytes.",
    "Draw only from the runner's random streams; no module-level random, hash(), set "
    "iteration order, wall-clock time or uuid in anything that reaches an event",
    "Random streams",
)
def RUN_IS_DETERMINISTIC(battle: Battle) -> None:  # noqa: N802
    again = live(battle, failing="fighting again failed")
    first, second = battle.replay.read_text(encoding="utf-8").splitlines(), again.text.splitlines()
    for i, (a, b) in enumerate(zip(first, second, strict=False)):
        if a != b:
            raise _line_differs(battle, i, len(first), a, b)
    if len(first) != len(second):
        raise battle.failed(f"fought again: {len(second)} lines, not {len(first)}")


FRESH_TIMEOUT = 3600
"""Seconds one fresh process may fight every scenario of a ruleset (the fights in the checking
process have no limit; this one only stops a process that hangs)."""

HASH_SEEDS = ("1", "2")
"""The ``PYTHONHASHSEED`` of each fresh process :data:`SAME_BYTES_IN_OTHER_PROCESSES` fights
in when the battles name no two ids (:func:`_hash_seeds` chooses them otherwise)."""

CANDIDATE_SEEDS = tuple(str(n) for n in range(1, 9))
"""The hash seeds :func:`_hash_seeds` chooses two from."""

_ORDERS = """
import itertools, json, sys
ids = json.loads(sys.argv[1])
print(json.dumps([next(iter({a, b})) == a for a, b in itertools.combinations(ids, 2)]))
"""
"""Which of each pair of ids a two-element set yields first, in this process's hash seed."""


def _first_of_pairs(ids: list[str]) -> list[bool]:
    return [next(iter({a, b})) == a for a, b in itertools.combinations(ids, 2)]


def _hash_seeds(family: Family) -> tuple[str, ...]:
    """Two hash seeds under which sets of the battles' ids iterate otherwise than here.

    A plugin that draws its order from a set (``next(iter({x.id for x in foes}))``) writes
    other bytes only in a process whose string hashes order that set otherwise, and two
    fixed seeds order a given pair alike half the time (seeds 1 and 2 order ``{'b1', 'b2'}``
    alike). So each of :data:`CANDIDATE_SEEDS` is asked, in a fresh interpreter (about
    30 ms each), how it orders every pair of the battles' unit and side ids (the first 100
    in sorted order); the seed that orders the most pairs otherwise than this process is
    taken, then the one that does so for most of the pairs the first left alike (then for
    most pairs). Two seeds do not reach every pair some candidate orders otherwise (for
    musket's shipped battles about 520 of 594 under one check's seed): the check is
    stronger than two fixed seeds, not a proof.
    """
    ids = sorted(_ids(family))[:100]  # 4,950 pairs at most
    if len(ids) < 2:
        return HASH_SEEDS
    mine = _first_of_pairs(ids)
    orders: dict[str, list[bool]] = {}
    for seed in CANDIDATE_SEEDS:
        env = {**os.environ, "PYTHONHASHSEED": seed}
        done = subprocess.run(
            [sys.executable, "-P", "-c", _ORDERS, json.dumps(ids)],
            capture_output=True, text=True, env=env, check=False, timeout=60,
        )  # fmt: skip
        if done.returncode == 0:
            orders[seed] = json.loads(done.stdout)
    if len(orders) < 2:
        return HASH_SEEDS
    differ = {s: {i for i, o in enumerate(order) if o != mine[i]} for s, order in orders.items()}
    first = max(orders, key=lambda s: (len(differ[s]), -int(s)))
    left = set(range(len(mine))) - differ[first]
    second = max(
        (s for s in orders if s != first),
        key=lambda s: (len(differ[s] & left), len(differ[s]), -int(s)),
    )
    return first, second


def _ids(family: Family) -> set[str]:
    """Every unit and side id of the family's scenarios (at their start), as far as they read."""
    from sim.scenario.load import load_scenario  # noqa: PLC0415  # the scenario layer

    found: set[str] = set()
    for path in family.scenarios:
        try:
            ruleset, scenario = load_scenario(path)
            rows = ruleset.units(scenario, ruleset.initial_state(scenario))
        except Exception:  # a scenario that does not load is scenario-runs'
            continue
        found.update(r.id for r in rows)
        found.update(r.side for r in rows)
    return found


_FAILED = "battlesim-check-failed "
"""The mark of a line the fresh process prints for a battle that raised (a plugin's own
output, which may start with anything, is not taken for one)."""

_FIGHT = f"""
import json, sys
from sim import api
for scenario, out in json.loads(sys.argv[1]):
    try:
        api.run(scenario, out=out, force=True)
    except Exception as exc:
        print({_FAILED!r} + json.dumps([scenario, f"{{type(exc).__name__}}: {{exc}}"]), flush=True)
"""
"""A fresh process's work: ``battlesim run SCENARIO --out OUT`` for each pair, through the
API (one start-up for all of them); a battle that raises is reported, the rest go on."""


def _other_processes(battle: Battle) -> dict[str, Path]:
    """This battle's replay as a fresh Python fought it under each of :data:`HASH_SEEDS`.

    One process a seed fights every scenario of the battle's family (the run's battles of
    this ruleset), with this process's ``sys.path`` (a plugin found here is found there).

    Raises:
        RequirementFailed: the process failed, or the battle raised in it.
        NotChecked: no such battle fought there.
    """
    family = battle.in_family()
    seeds: tuple[str, ...] = family.memo.get("hash-seed-choice") or _hash_seeds(family)
    family.memo["hash-seed-choice"] = seeds
    fought: dict[str, dict[Path, Path | str]] = family.memo.setdefault("hash-seeds", {})
    for seed in seeds:
        if seed not in fought:
            fought[seed] = _fight_elsewhere(family, seed)
    found: dict[str, Path] = {}
    assert battle.scenario is not None  # battle.replay was read first
    for seed in seeds:
        got = fought[seed].get(battle.scenario)
        if got is None:
            raise NotChecked(f"{battle.name}: not fought in a fresh process")
        if isinstance(got, str):
            raise battle.failed(f"fought under PYTHONHASHSEED={seed} in a fresh process: {got}")
        found[seed] = got
    return found


def _fight_elsewhere(family: Family, seed: str) -> dict[Path, Path | str]:
    """Every scenario of ``family`` fought in one fresh Python under hash seed ``seed``: its
    replay's path, or what went wrong (the process's last words, or the battle's error)."""
    folder = family.workdir / f"hash-seed-{seed}"
    folder.mkdir(parents=True, exist_ok=True)
    pairs = [(str(s), str(folder / f"{k}.jsonl")) for k, s in enumerate(family.scenarios)]
    # this process's path, less the working folder ("" or "."): a folder the check is run in
    # is data, never code (-P keeps it off the fresh process's own path too)
    path = [p for p in sys.path if p not in ("", ".")]
    env = {**os.environ, "PYTHONHASHSEED": seed, "PYTHONPATH": os.pathsep.join(path)}
    env.pop("BATTLESIM_CHECK_LINES", None)  # the bytes as an installed battlesim writes them
    try:
        done = subprocess.run(
            [sys.executable, "-P", "-c", _FIGHT, json.dumps(pairs)],
            capture_output=True, text=True, env=env, check=False, timeout=FRESH_TIMEOUT,
        )  # fmt: skip
    except subprocess.TimeoutExpired:
        said = f"the fresh process fought for more than {FRESH_TIMEOUT} s and was stopped"
        return dict.fromkeys(family.scenarios, said)
    if done.returncode != 0:
        said = (done.stderr.strip().splitlines() or ["nothing said"])[-1]
        return {s: f"the process exited {done.returncode}: {said}" for s in family.scenarios}
    failed = dict(
        json.loads(line.removeprefix(_FAILED))
        for line in done.stdout.splitlines()
        if line.startswith(_FAILED)
    )
    return {Path(s): failed[s] if s in failed else Path(out) for s, out in pairs}


@requirement(
    "Fought in fresh processes under two other hash seeds (chosen to order sets of the "
    "battles' ids otherwise), the battle writes the same replay bytes.",
    "Nothing that reaches an event may follow hash() or the iteration order of a set or "
    "frozenset (string hashes differ from process to process): iterate in a stated order "
    "(sorted, a list, a dict's insertion order)",
    "Random streams",
)
def SAME_BYTES_IN_OTHER_PROCESSES(battle: Battle) -> None:  # noqa: N802
    first = battle.replay.read_text(encoding="utf-8").splitlines()
    for seed, path in _other_processes(battle).items():
        other = path.read_text(encoding="utf-8").splitlines()
        for i, (a, b) in enumerate(zip(first, other, strict=False)):
            if a != b:
                raise _line_differs(battle, i, len(first), a, b, f"PYTHONHASHSEED={seed}")
        if len(first) != len(other):
            raise battle.failed(
                f"fought under PYTHONHASHSEED={seed}: {len(other)} lines, not {len(first)}"
            )


def _line_differs(
    battle: Battle, i: int, lines: int, a: str, b: str, where: str = ""
) -> RequirementFailed:
    """Line ``i`` of the replay is ``a``, fought again ``b`` (``where``: under what): the
    first field that differs."""
    again = f"fought under {where}" if where else "fought again"
    what = "the header" if i == 0 else "the footer" if i == lines - 1 else None
    seq = None if what else i - 1
    try:
        left, right = json.loads(a), json.loads(b)
    except ValueError:
        return battle.failed(f"{again}, line {i + 1} differs: {a[:80]!r} / {b[:80]!r}")
    left.pop("h", None), right.pop("h", None)
    diff = first_difference(left, right)
    if diff is None:  # only the chain hash: an earlier line differs in bytes alone
        return battle.failed(f"{again}, line {i + 1}'s chain hash differs", seq=seq)
    what = what or f"event {left.get('type', '?')!r}"
    return battle.failed(
        f"{again}, {what} differs: the replay holds {diff.left}, {again} {diff.right}",
        seq=seq,
        field=diff.path or None,
    )


@requirement(
    "`battlesim verify` accepts the replay: intact, lawful under audit, re-simulated byte for "
    "byte.",
    "Keep audit(scenario, state, event) true to the rules apply follows, and fight only from "
    "the scenario, the header's seed and the rules",
    "The contract",
)
def VERIFY_ACCEPTS_REPLAY(battle: Battle) -> None:  # noqa: N802
    verify = battle.cli("verify", battle.replay)
    if verify.exit_code != 0 or not verify.output.startswith("OK"):
        raise battle.failed(f"battlesim verify: {tool_problem(verify)}")


@requirement(
    "Each scenario's battle lasts two turns or more, one engine.turn_ended a turn.",
    "Ship examples whose battle goes past its first turn (more strength, a later end), so "
    "states are compared after they change",
    "Checking a ruleset",
)
def BATTLE_LASTS_TWO_TURNS(battle: Battle) -> None:  # noqa: N802
    loaded = battle.loaded
    turns = [e.turn for e in loaded.events if isinstance(e, TurnEnded)]
    if turns != list(range(1, loaded.last_turn + 1)):
        raise battle.failed(f"engine.turn_ended of turns {turns}, not 1..{loaded.last_turn}")
    if len(turns) < 2:
        raise battle.failed(f"the battle ends after {len(turns)} turn(s)")


@requirement(
    "The Outcome names every side of the unit rows (two at least), losses as measures with "
    "names and units, its JSON as `run --json` prints it; its winner is one of its sides, "
    "named by that side's name, and its turns are the turns the replay played.",
    "outcome returns a SideResult for each side id of the rows, each loss a Measure with its "
    "name and unit, the winner read from the state the events made (None for a draw), and "
    "turns the last turn played",
    "The models",
)
def OUTCOME_NAMES_EVERY_SIDE(battle: Battle) -> None:  # noqa: N802
    loaded = battle.loaded
    rs, sc, state = loaded.ruleset, loaded.scenario, loaded.state_at()
    o = rs.outcome(sc, state)
    sides = {r.side for r in battle.rows(state)}
    if not sides <= set(o.sides) or len(o.sides) < 2:
        raise battle.failed(f"outcome sides {sorted(o.sides)}, unit rows' sides {sorted(sides)}")
    # a winner that is none of its sides is refused as outcome returns it (HookError)
    named = None if o.winner is None else o.sides[o.winner].name
    if o.winner_name != named:
        raise battle.failed(
            f"winner_name {o.winner_name!r}, the winning side's name {named!r}", field="winner"
        )
    played = sum(isinstance(e, TurnEnded) for e in loaded.events)
    if o.turns != played:
        raise battle.failed(
            f"the outcome says {o.turns} turns; the replay played {played} "
            "(its engine.turn_ended events)",
            field="turns",
        )
    for sid, side in o.sides.items():
        for m in side.losses:
            if not (m.unit and m.name):
                raise battle.failed(f"a loss without name or unit: {m!r}", field=f"sides.{sid}")
    as_json = o.as_json()
    if as_json["sides"].keys() != o.sides.keys():
        raise battle.failed("Outcome.as_json() sides differ from the outcome's")
    if {sid: s["losses"] for sid, s in as_json["sides"].items()} != o.losses():
        raise battle.failed("Outcome.as_json() losses differ from outcome.losses()")
