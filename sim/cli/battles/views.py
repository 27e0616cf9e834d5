"""Plain-data views of command results: one source for the text and ``--json`` outputs."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import asdict
from typing import Any

from engine.comparison.replay import VerifyResult
from engine.replayfile.reader import ReplayError
from sim.cli.common import fail
from sim.contract import HookError, UnitRow
from sim.replay.file import ReplayFile, ReplayLike
from sim.scenario.load import KINDS, ScenarioError, yaml_kind
from sim.text.suggest import did_you_mean, known

NOT_A_REPLAY = ("not_replay", "unsupported", "unreadable")
"""Damage kinds that mean "no replay to check" (bad input, exit 2), not "damaged" (exit 1)."""


def replay_problem(error: ReplayError) -> str:
    """The error's line; a scenario, campaign or study file given as a replay says what to do.

    ``stone_wall.yaml:1: not a battlesim replay; this is a scenario: fight it with …``
    """
    text = str(error)
    if error.kind != "not_replay":
        return text
    kind = yaml_kind(error.path)
    if kind is None:
        return text
    what, todo = KINDS[kind]
    return f"{text}; this is {what}: {todo}"


@contextmanager
def reading(*replays: ReplayLike | None) -> Iterator[None]:
    """A damaged replay found while reading it is one line naming file:line, exit 2.

    A hook of the ruleset that raises on the battle of one of ``replays`` (``units`` or
    ``outcome`` of a state a forged line made: a winner no side is) names that line instead
    (:func:`sim.replay.follow.culprit`); else the ruleset's failure stands.
    """
    try:
        yield
    except ReplayError as exc:
        fail(replay_problem(exc))
    except HookError:
        from sim.replay.follow import culprit  # noqa: PLC0415 - only when a hook failed

        for replay in replays:
            found = culprit(replay) if replay is not None else None
            if found is not None:
                fail(replay_problem(found))
        raise


def load_replay(path: str) -> ReplayFile:
    """The replay, streamed; every line's chain and the footer checked before it is used."""
    from sim import api  # noqa: PLC0415

    with reading():
        loaded = api.open_replay(path)
        loaded.scan()
        return loaded


__all__ = [
    "NOT_A_REPLAY",
    "iter_unit_history",
    "load_replay",
    "problems_json",
    "reading",
    "replay_error_json",
    "replay_problem",
    "state_rows",
    "unit_history",
    "unit_json",
    "unknown_types",
    "verify_json",
    "verify_lines",
]


def replay_error_json(error: ReplayError) -> dict[str, Any]:
    """A damaged or unreadable replay as ``{file, line, seq, message}``."""
    return {"file": error.path, "line": error.line, "seq": error.seq, "message": error.message}


def problems_json(error: ScenarioError) -> list[dict[str, Any]]:
    """Every problem of a scenario as ``{file, line, field, message}``."""
    return [asdict(p) for p in error.problems]


def verify_json(result: VerifyResult) -> dict[str, Any]:
    """The ``verify --json`` object: ``status`` is ok, damaged, invariant or mismatch."""
    out: dict[str, Any] = {
        "replay": result.path,
        "events": result.events,
        "upcast": result.upcast,
        "older_rules": result.older_rules,
    }
    if result.damage is not None:
        status = "incomplete" if result.damage.kind == "incomplete" else "damaged"
        return {**out, "ok": False, "status": status, **replay_error_json(result.damage)}
    found = result.violation or result.mismatch
    if found is None:
        return {**out, "ok": True, "status": "ok"}
    status = "invariant" if result.violation is not None else "mismatch"
    return {
        **out,
        "ok": False,
        "status": status,
        "line": found.line,
        "seq": found.seq,
        "message": found.reason,
    }


def verify_lines(result: VerifyResult) -> list[str]:
    """The ``verify`` text: one line, OK or the first damaged, unlawful or differing seq."""
    d = result.damage
    if d is not None:
        at = f" at seq {d.seq}" if d.seq is not None else f" at line {d.line}" if d.line else ""
        word = "INCOMPLETE" if d.kind == "incomplete" else "DAMAGED"
        return [f"{word}{at}: {d}"]
    if result.violation is not None:
        v = result.violation
        return [f"INVARIANT broken at seq {v.seq} (line {v.line}): {v.reason}"]
    if result.mismatch is not None:
        m = result.mismatch
        at = f"seq {m.seq} (line {m.line})" if m.seq is not None else f"line {m.line}"
        return [f"MISMATCH at {at}: {m.reason}"]
    how = "re-simulates byte for byte"
    if result.older_rules:
        how = "in its rules version's event shapes, re-simulates to the same events"
    elif result.upcast:
        how = "upcast from an older format, re-simulates to the same events"
    return [f"OK: {result.path}: {result.events} events, intact, lawful, {how}"]


def unknown_types(types: Sequence[str], registry_types: Sequence[str]) -> str | None:
    """The ``--type`` error for the first type no event of the ruleset has, else None."""
    from sim.replay.analysis import UNTOLD, untold  # noqa: PLC0415 - only for --type

    short = {t.rsplit(".", 1)[-1] for t in registry_types if t not in UNTOLD}
    for t in types:
        if (why := untold(t, registry_types)) is not None:
            return f"--type {t}: {why}"
        if t not in registry_types and t not in short:
            hint = did_you_mean(t, short) or f"; known: {known(short, limit=40)}"
            return f"--type {t}: no event type {t!r} in this ruleset{hint}"
    return None


def unit_json(row: UnitRow) -> dict[str, Any]:
    """One unit as plain JSON data (the contract's row)."""
    return row.model_dump(mode="json")


def state_rows(loaded: ReplayLike, turn: int | None) -> list[UnitRow]:
    """Every unit at the end of ``turn`` (default: the end), through the ruleset contract."""
    return loaded.ruleset.units(loaded.scenario, loaded.state_at(turn))


def unit_history(loaded: ReplayLike, unit: str, turn: int | None) -> list[tuple[int, UnitRow]]:
    """One unit at the start (turn 0) and at the end of every turn up to ``turn``."""
    return list(iter_unit_history(loaded, unit, turn))


def iter_unit_history(
    loaded: ReplayLike, unit: str, turn: int | None
) -> Iterator[tuple[int, UnitRow]]:
    """:func:`unit_history` one turn at a time, as the replay is read (memory flat in turns)."""
    rs, sc = loaded.ruleset, loaded.scenario
    for t, state in loaded.turn_ends():
        if turn is not None and t > turn:
            break
        yield from ((t, r) for r in rs.units(sc, state) if r.id == unit)
