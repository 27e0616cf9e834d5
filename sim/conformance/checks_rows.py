"""Requirements of the unit rows and the outcome: validated data that follows the state."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from pydantic import BaseModel

from engine.projection import PathError, set_path
from sim.conformance.battle import Battle
from sim.conformance.differ import first_difference
from sim.conformance.requirement import requirement
from sim.contract.models import typed

__all__ = [
    "ROWS_ARE_VALIDATED",
    "ROWS_FOLLOW_THE_STATE",
    "STATUS_WORDS_ARE_DECLARED",
    "STRENGTH_FOLLOWS_LOSSES",
    "numbers",
]


def _check_validated(battle: Battle, state: Any, turn: int | None) -> None:
    """Each unit row and the outcome equal their validated copies, type for type."""
    loaded = battle.loaded
    rs, sc = loaded.ruleset, loaded.scenario
    models: list[BaseModel] = [*battle.rows(state), rs.outcome(sc, state)]
    for model in models:
        again = type(model).model_validate(model.model_dump())
        if typed(again) != typed(model):
            where = first_difference(typed(model), typed(again))
            name = getattr(model, "id", type(model).__name__)
            raise battle.failed(
                f"{name}: built {where.left if where else '?'}, validated "
                f"{where.right if where else '?'}",
                turn=turn,
            )


@requirement(
    "Each unit row and the outcome equal their validated copies, type for type, at the start "
    "and every turn's end.",
    "Build UnitRow, Measure and Outcome with their fields' types (an int where the model says "
    "int); rows built trusted must hold exactly what validation would make",
    "The models",
)
def ROWS_ARE_VALIDATED(battle: Battle) -> None:  # noqa: N802
    for turn, state in battle.loaded.turn_ends():
        _check_validated(battle, state, turn)


def numbers(value: Any, path: str = "") -> Iterator[tuple[str, int | float]]:
    """Every int or float leaf of snapshot data, with its dotted path (a list item
    with an ``id`` by its id, as a state keeps units by id; others by index)."""
    if isinstance(value, dict):
        for k, v in value.items():
            yield from numbers(v, f"{path}.{k}" if path else str(k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            step = v["id"] if isinstance(v, dict) and "id" in v else i
            yield from numbers(v, f"{path}.{step}")
    elif type(value) in (int, float):
        yield path, value


@requirement(
    "Raising every number of the final state (its snapshot's paths, derived fields aside) "
    "changes the unit rows, which still validate.",
    "Keep a unit's own measures (strength, hit points) in the state under the same path as in "
    "the snapshot (units by id), leave them out of derived_fields, and show them in units()",
    "The contract",
)
def ROWS_FOLLOW_THE_STATE(battle: Battle) -> None:  # noqa: N802
    loaded = battle.loaded
    rs = loaded.ruleset
    state = loaded.state_at()
    before = battle.rows(state)
    overridden = []
    for path, value in numbers(rs.snapshot(state)):
        if path.split(".")[-1] in rs.derived_fields:
            continue
        try:
            set_path(state, path, value + 1, counts=True)
        except PathError:  # a snapshot key that is not a state path (a derived total)
            continue
        overridden.append(path)
    if not overridden:
        raise battle.failed("no number of the snapshot is a state path outside derived_fields")
    if battle.rows(state) == before:
        raise battle.failed(f"the unit rows stay the same with {', '.join(overridden[:4])}… raised")
    _check_validated(battle, state, None)


@requirement(
    "Each side the outcome counts a loss for has a unit whose strength in the rows changes "
    "from the start at some turn's end.",
    "Build each row's strength from the state (what the unit has left now), never from the "
    "scenario alone; initial is the start value",
    "The models",
)
def STRENGTH_FOLLOWS_LOSSES(battle: Battle) -> None:  # noqa: N802
    loaded = battle.loaded
    rs, sc = loaded.ruleset, loaded.scenario
    start = {r.id: r for r in battle.rows(loaded.state_at(0))}
    changed: set[str] = set()
    for _, state in loaded.turn_ends():
        changed |= {
            r.side
            for r in battle.rows(state)
            if r.id in start and r.strength != start[r.id].strength
        }
    outcome = rs.outcome(sc, loaded.state_at())
    for sid, side in outcome.sides.items():
        lost = [m for m in side.losses if m.value]
        if not lost or sid in changed:
            continue
        mine = [r for r in start.values() if r.side == sid]
        held = ", ".join(f"{r.id} {r.strength.value} {r.strength.unit}" for r in mine[:4])
        raise battle.failed(
            f"expected a unit of {side.name} (the outcome counts its losses: "
            f"{', '.join(f'{m.name} {m.value}' for m in lost)}) whose strength changes; seen "
            f"every one of its {len(mine)} units at its start strength at every "
            f"{rs.turn_name}'s end ({held}{', …' if len(mine) > 4 else ''})"
        )


@requirement(
    "Every word a unit row's status holds, at the start and every turn's end, is one of the "
    "ruleset's status_words (when it declares them).",
    "List every status word your units() can give in status_words; history and calibrate "
    "refuse a word not listed, so a misspelt one is an error, not a silent 0",
    "The models",
)
def STATUS_WORDS_ARE_DECLARED(battle: Battle) -> None:  # noqa: N802
    declared = set(battle.loaded.ruleset.status_words)
    if not declared:
        return
    for turn, state in battle.loaded.turn_ends():
        for row in battle.rows(state):
            unknown = [w for w in row.status if w not in declared]
            if unknown:
                raise battle.failed(
                    f"{row.id}: status {unknown[0]!r} is not in status_words", turn=turn
                )
