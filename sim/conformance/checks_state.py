"""Requirements of the state: fold, snapshot, restore, digests and processes agree."""

from __future__ import annotations

import json
import re
from collections import Counter
from typing import Any

from engine.canonical import canonical_json, digest
from engine.events import TurnEnded
from engine.log import MemorySink
from sim import runner
from sim.conformance.battle import Battle
from sim.conformance.checks_run import live
from sim.conformance.differ import first_difference
from sim.conformance.requirement import requirement
from sim.text.grammar import count

__all__ = [
    "DIGEST_IS_SNAPSHOT_DIGEST",
    "FOLD_EQUALS_LIVE",
    "ONE_PROCESS_PER_UNIT",
    "RESTORE_INVERTS_SNAPSHOT",
    "SNAPSHOT_JSON_IS_CANONICAL",
    "SNAPSHOT_START_EQUALS_FOLD",
]


@requirement(
    "The state folded from the replay's events equals the live battle's final state, and "
    "shows the same unit rows.",
    "Change state only in apply, from the event alone (no draw, no clock, nothing the "
    "processes keep aside; a rule never writes the state, a fixed() field included); make the "
    "state comparable with == (a StateBase compares its fields)",
    "Decide, then apply",
)
def FOLD_EQUALS_LIVE(battle: Battle) -> None:  # noqa: N802
    loaded, fought = battle.loaded, live(battle, failing="fighting live failed")
    rs, folded = loaded.ruleset, loaded.state_at(use_snapshots=False)
    where = first_difference(rs.snapshot(folded), rs.snapshot(fought.state))
    where = where or first_difference(folded, fought.state)
    if where is not None:
        raise battle.failed(f"folded {where.left}, live {where.right}", field=where.path)
    _same_rows(
        battle,
        folded,
        fought.state,
        loaded.last_turn,
        "the state folded from the replay",
        "the live battle's final state",
        "a field a rule or process writes, not apply, which == and the snapshot leave out "
        "(a fixed() one): a study's unit_finals show it, show on the replay never does",
    )


@requirement(
    "Every engine.turn_ended digest is sha256 of canonical_json(snapshot(state)) at that turn's "
    "end.",
    "Change the state only in apply, from the event alone: the runner digests the live state "
    "at each turn's end, and the events folded to there must reach it (no process, rule or "
    "view may write the state)",
    "Decide, then apply",
)
def DIGEST_IS_SNAPSHOT_DIGEST(battle: Battle) -> None:  # noqa: N802
    loaded = battle.loaded
    rs = loaded.ruleset
    for event, before in loaded.fold(state=rs.initial_state(loaded.scenario)):
        if isinstance(event, TurnEnded) and event.state_digest != digest(rs.snapshot(before)):
            folded = rs.snapshot(before)
            live = _live_snapshots(battle).get(event.state_digest)
            where = first_difference(live, folded) if live is not None else None
            if where is None:
                raise battle.failed(
                    f"engine.turn_ended records digest {event.state_digest[:12]}… of the live "
                    f"state; the events folded to here digest to {digest(folded)[:12]}…",
                    turn=event.turn,
                    seq=event.seq,
                )
            raise battle.failed(
                f"the live state the runner digested holds {where.left}; the events folded to "
                f"here hold {where.right}",
                turn=event.turn,
                seq=event.seq,
                field=where.path,
            )


def _live_snapshots(battle: Battle) -> dict[str, Any]:
    """Every snapshot the runner took fighting the battle again, by its digest."""
    rs = battle.loaded.ruleset
    taken: dict[str, Any] = {}

    def snapshot(state: Any) -> dict[str, Any]:
        data = rs.snapshot(state)
        taken[digest(data)] = json.loads(json.dumps(data))
        return data

    battle.fight_again(snapshot)
    return taken


@requirement(
    "snapshot_json (if given) writes canonical_json(snapshot(s)) at every turn's end, and a "
    "battle fought without it writes the same bytes.",
    "Write snapshot_json from the same values as snapshot, with engine.canonical's "
    "members_json; or leave it None",
    "The contract",
)
def SNAPSHOT_JSON_IS_CANONICAL(battle: Battle) -> None:  # noqa: N802
    loaded = battle.loaded
    rs = loaded.ruleset
    if rs.snapshot_json is None:
        return  # digests are serialised from the snapshot
    for turn, state in loaded.turn_ends():
        text, canonical = rs.snapshot_json(state), canonical_json(rs.snapshot(state))
        if text != canonical:
            where = first_difference(json.loads(text), json.loads(canonical))
            raise battle.failed(f"snapshot_json differs from canonical_json: {where}", turn=turn)
    sink = MemorySink()
    battle.fight_again(sink=sink)  # no snapshot_json
    if "\n".join(sink.lines) + "\n" != battle.replay.read_text(encoding="utf-8"):
        raise battle.failed("fought without snapshot_json, the replay's bytes differ")


@requirement(
    "The plan starts one live SimPy process per unit row (Actor with the row's id), none for a "
    "stranger.",
    "Return from the plan's processes an Actor(unit_id, body) for every unit that units() "
    "lists, and plain generators for the battle's own clocks",
    "The battle runner",
)
def ONE_PROCESS_PER_UNIT(battle: Battle) -> None:  # noqa: N802
    rs, sc = battle.loaded.ruleset, battle.loaded.scenario
    rows = battle.rows(rs.initial_state(sc))
    seen: list[list[str]] = []
    bare: list[int] = []

    def watch(started: runner.Started) -> None:  # called before the clock starts
        seen.append([u for u, process in started if process.is_alive and u is not None])
        bare.append(sum(u is None for u, _ in started))

    battle.fight_again(watch=watch)
    kind = {r.id: r.kind for r in rows}
    units = seen[0]
    live, expected = Counter(kind.get(u, "?") for u in units), Counter(r.kind for r in rows)
    if live != expected:
        raise battle.failed(
            f"expected one live process per unit row, by kind {dict(sorted(expected.items()))}; "
            f"the plan started {dict(sorted(live.items())) or 'none'} ('?': an Actor whose id "
            f"no row has), and {count(bare[0], 'bare generator')}, which are no unit's"
        )
    if sorted(units) != sorted(kind):
        missing, strangers = sorted(set(kind) - set(units)), sorted(set(units) - set(kind))
        raise battle.failed(f"no process for {missing}; processes for no row: {strangers}")


@requirement(
    "restore(scenario, snapshot(s)) == s after a JSON round trip, and shows the same unit rows, "
    "at the start and every turn's end.",
    "Put in snapshot everything that changes, and rebuild every field of the state from it in "
    "restore (nothing left at its start value)",
    "The contract",
)
def RESTORE_INVERTS_SNAPSHOT(battle: Battle) -> None:  # noqa: N802
    loaded = battle.loaded
    rs, sc = loaded.ruleset, loaded.scenario
    for turn, state in loaded.turn_ends():
        data = json.loads(json.dumps(rs.snapshot(state)))
        restored = rs.restore(sc, data)
        if restored != state:
            where = first_difference(restored, state) or first_difference(
                rs.snapshot(restored), data
            )
            what = f"restore(snapshot(s)) differs from s: restored {where.left if where else '?'}, "
            raise battle.failed(
                f"{what}s holds {where.right if where else '?'}",
                turn=turn,
                field=where.path if where else None,
            )
        _same_rows(battle, restored, state, turn, "restore(snapshot(s))", "s")


_BACK_AT_START = (
    "a field events change but the snapshot leaves out, as fixed() does, is back at its start value"
)


def _same_rows(
    battle: Battle,
    got: Any,
    wanted: Any,
    turn: int,
    name: str,
    other: str,
    why: str = _BACK_AT_START,
) -> None:
    """The unit rows the tools show of ``got`` are those of ``wanted``: a field left out of
    the snapshot and ``==`` (a ``fixed()`` one) that events change would pass the states'
    comparison, and ``show`` would read it back at its start value."""
    rows = [r.model_dump(mode="json") for r in battle.rows(got)]
    where = first_difference(rows, [r.model_dump(mode="json") for r in battle.rows(wanted)])
    if where is not None:
        raise battle.failed(
            f"the unit rows of {name} differ from those of {other}: {where.left}, against "
            f"{where.right} ({why})",
            turn=turn,
            field="units()" + re.sub(r"^(\d+)", r"[\1]", where.path),
        )


@requirement(
    "state_at(turn) started from the nearest engine.snapshot equals the fold from the first "
    "event, and shows the same unit rows, at every turn.",
    "restore must rebuild the state a fold reaches (see restore-inverts-snapshot)",
    "The contract",
)
def SNAPSHOT_START_EQUALS_FOLD(battle: Battle) -> None:  # noqa: N802
    loaded = battle.loaded
    rs = loaded.ruleset
    for turn in range(loaded.last_turn + 1):
        started, folded = loaded.state_at(turn), loaded.state_at(turn, use_snapshots=False)
        where = first_difference(rs.snapshot(started), rs.snapshot(folded))
        if where is not None:
            raise battle.failed(
                f"from a snapshot {where.left}, folded {where.right}", turn=turn, field=where.path
            )
        _same_rows(battle, started, folded, turn, "the state from a snapshot", "the fold")
