"""Requirements of reading a replay: ``show``, ``show --unit``, ``show --events``, ``why``."""

from __future__ import annotations

import json
from typing import Any

from sim.conformance.battle import Battle
from sim.conformance.requirement import requirement
from sim.contract import UnitRow
from sim.replay import analysis

__all__ = [
    "EVENTS_RECORD_CAUSES",
    "SHOW_EVENTS_EVERY_KIND",
    "SHOW_PRINTS_STATE_TABLE",
    "SHOW_UNIT_EVERY_KIND",
    "WHY_WALKS_TO_FIRST_CAUSE",
]


def _table(battle: Battle, state: Any) -> list[str]:
    """The generic table of the unit rows, which ``show`` prints for every ruleset."""
    from sim.cli.battles.table import render_units  # noqa: PLC0415  # the CLI's own table

    rs, sc = battle.loaded.ruleset, battle.loaded.scenario
    return render_units(battle.rows(state), rs.space(sc), rs.shown_details).splitlines()


@requirement(
    "`show` prints the end of the battle and `show --turn 1` the end of turn 1: the unit rows.",
    "units(scenario, state) gives every unit's row at any state; space(scenario) its axes",
    "The models",
)
def SHOW_PRINTS_STATE_TABLE(battle: Battle) -> None:  # noqa: N802
    loaded = battle.loaded
    rs, sc = loaded.ruleset, loaded.scenario
    for args, title, state in (
        ((), f"end of battle ({rs.turn_name} {loaded.last_turn})", loaded.state_at()),
        (("--turn", "1"), f"end of {rs.turn_name} 1", loaded.state_at(1)),
    ):
        expected = [f"{sc.name} — {title}", *_table(battle, state)]
        shown = battle.succeeded(f"battlesim show {' '.join(args)}", "show", battle.replay, *args)
        lines = shown.stdout.splitlines()
        if lines != expected:
            # the first line that differs, both ways (the title is often the same)
            k = next(
                (i for i, (a, b) in enumerate(zip(lines, expected, strict=False)) if a != b),
                min(len(lines), len(expected)),
            )
            got = lines[k] if k < len(lines) else "(no more lines)"
            wanted = expected[k] if k < len(expected) else "(no more lines)"
            raise battle.failed(
                f"battlesim show {' '.join(args)} printed, at line {k + 1}, {got!r}; the "
                f"unit rows of the state folded from the replay give {wanted!r}"
            )


def _one_of_each_kind(battle: Battle) -> dict[str, UnitRow]:
    """The first unit row of each kind, at the end of the battle."""
    loaded = battle.loaded
    rows = battle.rows(loaded.state_at())
    return {r.kind: r for r in reversed(rows)}


@requirement(
    "`show --unit ID --json` gives a unit's rows turn by turn, for a unit of every kind; an "
    "unknown id is refused.",
    "units() lists every unit at every state, under the same id, in scenario order",
    "The models",
)
def SHOW_UNIT_EVERY_KIND(battle: Battle) -> None:  # noqa: N802
    loaded = battle.loaded
    for kind, row in _one_of_each_kind(battle).items():
        what = f"show --unit {row.id} ({kind})"
        shown = battle.succeeded(what, "show", battle.replay, "--unit", row.id, "--json")
        expected = [
            {"turn": t, **r.model_dump(mode="json")}
            for t, state in loaded.turn_ends()
            for r in battle.rows(state)
            if r.id == row.id
        ]
        rows = json.loads(shown.stdout)["rows"]
        for got, want in zip(rows, expected, strict=False):
            if got != want:
                raise battle.failed(f"show --unit {row.id}: {got} for {want}", turn=want["turn"])
        if len(rows) != len(expected):
            raise battle.failed(f"show --unit {row.id}: {len(rows)} rows, not {len(expected)}")
    if battle.cli("show", battle.replay, "--unit", "no-such-unit").exit_code != 2:
        raise battle.failed("show --unit no-such-unit is not refused (exit 2)")


@requirement(
    "`show --events --unit ID` lists events that involve the unit, for a unit of every kind, "
    "and some unit has events.",
    "Name the units an event is about in its text fields (unit, target, or within one), by "
    "the ids units() gives",
    "Events",
)
def SHOW_EVENTS_EVERY_KIND(battle: Battle) -> None:  # noqa: N802
    loaded = battle.loaded
    told = 0
    for kind, row in _one_of_each_kind(battle).items():
        args = ("show", battle.replay, "--events", "--unit", row.id, "--seqs")
        events = battle.succeeded(f"show --events --unit {row.id} ({kind})", *args)
        lines = events.stdout.splitlines()
        for line in lines:
            seq = int(line.split("]")[0].removeprefix("[seq "))
            if not analysis.involves(loaded.events[seq], row.id):
                raise battle.failed(f"show --events --unit {row.id} lists {line!r}", seq=seq)
        told += len(lines)
    if told == 0:
        raise battle.failed("no event involves any unit shown (one unit of each kind)")


@requirement(
    "The battle records a consequence: some event names the earlier event that caused it.",
    "Set cause=<seq of the triggering event> on events that follow from another (a casualty "
    "from a hit, a rout from a loss)",
    "Events",
)
def EVENTS_RECORD_CAUSES(battle: Battle) -> None:  # noqa: N802
    events = battle.loaded.events
    if not any(e.cause is not None for e in events):
        raise battle.failed(
            f"none of {len(events)} events names a cause: why has nothing to explain"
        )


@requirement(
    "For every consequence, `why` prints its chain of causes, root first, each link an earlier "
    "event.",
    "A cause is always the seq of an earlier event of the same battle",
    "Events",
)
def WHY_WALKS_TO_FIRST_CAUSE(battle: Battle) -> None:  # noqa: N802
    loaded = battle.loaded
    events = loaded.events
    consequences = [e for e in events if e.cause is not None]
    for event in consequences:
        expected = [event.seq]
        while (cause := events[expected[0]].cause) is not None:
            if not 0 <= cause < expected[0]:
                raise battle.failed(f"names cause {cause}, not an earlier event", seq=expected[0])
            expected.insert(0, cause)
        if [e.seq for e, _ in analysis.why(loaded, event.seq)] != expected:
            raise battle.failed(f"why gives another chain than {expected}", seq=event.seq)
    if not consequences:
        return  # events-record-causes says so
    deepest = max(consequences, key=lambda e: len(analysis.why(loaded, e.seq)))
    result = battle.succeeded("battlesim why", "why", battle.replay, deepest.seq, seq=deepest.seq)
    lines = [line for line in result.stdout.splitlines() if "[seq " in line]
    chain = [e.seq for e, _ in analysis.why(loaded, deepest.seq)]
    starts = ["  " * d + ("→ " if d else "") + f"[seq {s}] " for d, s in enumerate(chain)]
    if len(lines) != len(chain) or not all(map(str.startswith, lines, starts)):
        raise battle.failed(f"battlesim why prints {lines}, not the chain {chain}", seq=deepest.seq)
