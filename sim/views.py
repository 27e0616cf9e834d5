"""Plain-data views of command results: one source for the text and ``--json`` outputs."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict
from typing import Any

from engine.reader import ReplayError
from engine.replay import VerifyResult
from sim.analysis import units_of
from sim.api import LoadedReplay
from sim.loader import ScenarioError
from sim.suggest import did_you_mean, known

__all__ = [
    "problems_json",
    "replay_error_json",
    "state_rows",
    "table",
    "unit_history",
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
    out: dict[str, Any] = {"replay": result.path, "events": result.events, "upcast": result.upcast}
    if result.damage is not None:
        return {**out, "ok": False, "status": "damaged", **replay_error_json(result.damage)}
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
        at = f"seq {d.seq}" if d.seq is not None else f"line {d.line}"
        return [f"DAMAGED at {at}: {d}"]
    if result.violation is not None:
        v = result.violation
        return [f"INVARIANT broken at seq {v.seq} (line {v.line}): {v.reason}"]
    if result.mismatch is not None:
        m = result.mismatch
        at = f"seq {m.seq} (line {m.line})" if m.seq is not None else f"line {m.line}"
        return [f"MISMATCH at {at}: {m.reason}"]
    how = (
        "upcast from an older format, re-simulates to the same events"
        if result.upcast
        else "re-simulates byte for byte"
    )
    return [f"OK: {result.path}: {result.events} events, intact, lawful, {how}"]


def unknown_types(types: Sequence[str], registry_types: Sequence[str]) -> str | None:
    """The ``--type`` error for the first type no event of the ruleset has, else None."""
    short = {t.rsplit(".", 1)[-1] for t in registry_types}
    for t in types:
        if t not in registry_types and t not in short:
            hint = did_you_mean(t, short) or f"; known: {known(short, limit=40)}"
            return f"--type {t}: no event type {t!r} in this ruleset{hint}"
    return None


def state_rows(loaded: LoadedReplay, turn: int | None) -> list[dict[str, Any]]:
    """One plain row per unit at the end of ``turn`` (default: the end), from the fold."""
    rs = loaded.ruleset
    return units_of(rs.snapshot(loaded.state_at(turn)))


def unit_history(rows: list[dict[str, Any]], unit: str, turn: int | None) -> list[dict[str, Any]]:
    """The rows of one unit, turn by turn (turn 0 is the start), up to ``turn``."""
    return [r for r in rows if r.get("id") == unit and (turn is None or r["turn"] <= turn)]


def table(rows: list[dict[str, Any]]) -> list[str]:
    """A plain fixed-width table of rows (columns in first-seen order; text left, numbers right)."""
    columns: list[str] = []
    for row in rows:
        columns.extend(k for k in row if k not in columns)
    cells = [[_cell(row.get(c)) for c in columns] for row in rows]
    widths = [max([len(c), *(len(r[i]) for r in cells)]) for i, c in enumerate(columns)]
    numeric = [all(_is_number(row.get(c)) for row in rows) for c in columns]

    def fmt(values: list[str]) -> str:
        parts = [
            v.rjust(w) if n else v.ljust(w) for v, w, n in zip(values, widths, numeric, strict=True)
        ]
        return "  ".join(parts).rstrip()

    return [fmt(columns), *(fmt(r) for r in cells)]


def _is_number(value: Any) -> bool:
    return value is None or (isinstance(value, int | float) and not isinstance(value, bool))


def _cell(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, list | tuple):
        return ",".join(str(v) for v in value)
    return str(value)
