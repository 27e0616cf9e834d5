"""Requirements of fighting a scenario: it runs, reads as the ruleset says, and re-simulates."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engine.events import TurnEnded
from engine.log import EventLog, MemorySink
from sim.conformance.battle import Battle, tool_problem
from sim.conformance.requirement import NotChecked, requirement
from sim.contract import headline

__all__ = [
    "BATTLE_LASTS_TWO_TURNS",
    "EVENT_LINES_VALIDATE",
    "OUTCOME_NAMES_EVERY_SIDE",
    "RUN_IS_DETERMINISTIC",
    "RUN_PRINTS_HEADLINE",
    "SCENARIO_RUNS",
    "SHIPS_A_SCENARIO",
    "VERIFY_ACCEPTS_REPLAY",
    "Live",
    "live",
]


@requirement(
    "ships-a-scenario",
    "The ruleset ships at least one scenario to fight.",
    "List your package's scenario files in Ruleset.examples (declared as package data), "
    "or name one with --scenario FILE",
    "The contract",
)
def SHIPS_A_SCENARIO(battle: Battle) -> None:  # noqa: N802  # a requirement, named as a constant
    if battle.scenario is None:
        raise battle.failed("no scenario: Ruleset.examples is empty")


@requirement(
    "scenario-runs",
    "`battlesim run` fights each scenario to a replay of this ruleset.",
    "Run `battlesim validate FILE`, then `battlesim run FILE`: the file's `ruleset:` key is "
    "the ruleset's name, its model and cross_check accept it, and the plan fights it to the end",
    "Plugging in: the `battlesim.rulesets` entry-point group",
)
def SCENARIO_RUNS(battle: Battle) -> None:  # noqa: N802
    if battle.scenario is None:
        raise NotChecked(f"{battle.name}: nothing to run (see ships-a-scenario)")
    problem = battle.fight.problem
    if problem is not None:
        raise battle.failed(problem)


@requirement(
    "run-prints-headline",
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


def live(battle: Battle) -> Live:
    """The battle fought live with ``EventLog.check_lines`` on (once per battle)."""

    def fight() -> Live:
        loaded = battle.loaded
        sink, saved = MemorySink(), EventLog.check_lines
        EventLog.check_lines = True
        try:
            state = loaded.ruleset.simulate(loaded.scenario, loaded.header, sink)
        except Exception as exc:  # the rules' own error is the finding
            return Live(None, "", f"{type(exc).__name__}: {exc}")
        finally:
            EventLog.check_lines = saved
        return Live(state, "\n".join(sink.lines) + "\n", None)

    return battle.shared("live", fight)


@requirement(
    "event-lines-validate",
    "Every event line is what validating the event again writes (trusted builds included).",
    "Build events with their own field types (an int field gets an int, a Literal its text); "
    "events built with engine.events.trusted must hold exactly what validation would make",
    "Events",
)
def EVENT_LINES_VALIDATE(battle: Battle) -> None:  # noqa: N802
    problem = live(battle).problem
    if problem is not None:
        raise battle.failed(f"fought with every line checked: {problem}")


@requirement(
    "run-is-deterministic",
    "Fought again from the same scenario and seed, the battle writes the same replay bytes.",
    "Draw only from the runner's random streams; no module-level random, hash(), set "
    "iteration order, wall-clock time or uuid in anything that reaches an event",
    "Random streams",
)
def RUN_IS_DETERMINISTIC(battle: Battle) -> None:  # noqa: N802
    again = live(battle)
    if again.problem is not None:
        raise battle.failed(f"fighting again failed: {again.problem}")
    first, second = battle.replay.read_text(encoding="utf-8").splitlines(), again.text.splitlines()
    for i, (a, b) in enumerate(zip(first, second, strict=False)):
        if a != b:
            seq = i - 1 if 0 < i < len(first) - 1 else None
            raise battle.failed(f"fought again, a line differs: {a[:80]!r} / {b[:80]!r}", seq=seq)
    if len(first) != len(second):
        raise battle.failed(f"fought again: {len(second)} lines, not {len(first)}")


@requirement(
    "verify-accepts-replay",
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
    "battle-lasts-two-turns",
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
    "outcome-names-every-side",
    "The Outcome names every side of the unit rows (two at least), losses as measures with "
    "names and units, its JSON as `run --json` prints it.",
    "outcome returns a SideResult for each side id of the rows, each loss a Measure with its "
    "name and unit",
    "The models",
)
def OUTCOME_NAMES_EVERY_SIDE(battle: Battle) -> None:  # noqa: N802
    loaded = battle.loaded
    rs, sc, state = loaded.ruleset, loaded.scenario, loaded.state_at()
    o = rs.outcome(sc, state)
    sides = {r.side for r in rs.units(sc, state)}
    if not sides <= set(o.sides) or len(o.sides) < 2:
        raise battle.failed(f"outcome sides {sorted(o.sides)}, unit rows' sides {sorted(sides)}")
    for sid, side in o.sides.items():
        for m in side.losses:
            if not (m.unit and m.name):
                raise battle.failed(f"a loss without name or unit: {m!r}", field=f"sides.{sid}")
    as_json = o.as_json()
    if as_json["sides"].keys() != o.sides.keys():
        raise battle.failed("Outcome.as_json() sides differ from the outcome's")
    if {sid: s["losses"] for sid, s in as_json["sides"].items()} != o.losses():
        raise battle.failed("Outcome.as_json() losses differ from outcome.losses()")
