"""The draws an event records, counted by the unit whose process emitted it."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from engine.events import Draw
from sim.runner import recorded_draws


class _Inner(BaseModel):
    draws: list[Draw]
    note: str = ""


class _Event(BaseModel):
    one: Draw
    many: list[Draw]
    maybe: Draw | None = None
    pair: tuple[Draw, ...] = ()
    inner: _Inner
    loose: dict[str, Any]
    count: int = 0


def _d(i: int) -> Draw:
    return Draw("1/fire/x", i, 0.5)


def test_every_draw_record_is_counted_however_nested() -> None:
    """1 + 3 + 0 (None) + 2 + 2 (a nested model) + 2 (in a mapping of lists) = 10."""
    event = _Event(
        one=_d(0),
        many=[_d(1), _d(2), _d(3)],
        pair=(_d(4), _d(5)),
        inner=_Inner(draws=[_d(6), _d(7)]),
        loose={"a": [_d(8)], "b": {"c": _d(9)}, "d": 3},
    )
    assert recorded_draws(event) == 10
    assert recorded_draws(event.model_copy(update={"maybe": _d(10)})) == 11


def test_a_model_with_no_field_that_can_hold_a_draw_counts_nothing() -> None:
    """Plain fields are never read (the class's plan skips them)."""

    class Plain(BaseModel):
        n: int
        name: str
        ids: list[str]

    assert recorded_draws(Plain(n=1, name="x", ids=["a"])) == 0
