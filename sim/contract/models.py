"""The data a ruleset hands the generic tools: outcomes, unit rows, chart readings, the field.

A generic tool (show, diff, fork, report, batch, campaign) asks a ruleset
through its hooks and reads these models; it never reads a ruleset's state by key.

* :class:`Outcome` — who won, why, after how many turns, and each side's
  losses as named :class:`Measure` values with units.
* :class:`UnitRow` — one row of "who is on the field": id, name, side,
  kind, position in the battle's :class:`Space`, a strength measure and
  status words.
* :class:`Reading` — a measure worth charting per turn, of a side or a unit.
* :class:`Space` — the field the battle is fought on, for a viewer to draw.
"""

from __future__ import annotations

import marshal
import pickle
from collections.abc import Sequence
from operator import eq
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

__all__ = [
    "CheckedOnce",
    "Feature",
    "Measure",
    "Number",
    "Outcome",
    "Problem",
    "Reach",
    "Reading",
    "SideResult",
    "Space",
    "UnitRow",
    "same_typed",
    "typed",
]

Problem = tuple[tuple[str | int, ...], str]
"""A scenario problem: the field path and the message."""
Number = int | float


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Measure(_Frozen):
    """A named quantity with its unit: ``Measure(name="men", value=120, unit="men")``."""

    name: str
    value: Number
    unit: str


class SideResult(_Frozen):
    """One side's result of a battle.

    Attributes:
        name: the side's name.
        losses: what it lost, each a named measure (``men``, ``ships_sunk``, ``hp``).
        details: further plain data the ruleset reports (``run --json`` prints it).
    """

    name: str
    losses: list[Measure]
    details: dict[str, Any] = Field(default_factory=dict)

    def loss(self, name: str) -> Number:
        """The value of the loss called ``name``.

        Raises:
            KeyError: no such loss.
        """
        for m in self.losses:
            if m.name == name:
                return m.value
        raise KeyError(name)


class Outcome(_Frozen):
    """How a battle ended: winner (side id, None for a draw), reason, turns, sides."""

    winner: str | None
    winner_name: str | None
    reason: str
    turns: int
    sides: dict[str, SideResult]

    def losses(self) -> dict[str, dict[str, Number]]:
        """Side id → loss name → value."""
        return {sid: {m.name: m.value for m in s.losses} for sid, s in self.sides.items()}

    def as_json(self) -> dict[str, Any]:
        """Plain JSON data: ``winner``, ``winner_name``, ``reason``, ``turns`` and ``sides``.

        Each side is ``{"name", "losses": {name: value}, **details}`` — the
        keys ``run --json``, batch tables and campaigns have always used.
        """
        return {
            "winner": self.winner,
            "winner_name": self.winner_name,
            "reason": self.reason,
            "turns": self.turns,
            "sides": {
                sid: {
                    "name": s.name,
                    **s.details,
                    "losses": {m.name: m.value for m in s.losses},
                }
                for sid, s in self.sides.items()
            },
        }


class UnitRow(_Frozen):
    """One unit on the field, as every generic tool sees it.

    Attributes:
        id: the unit's id (``show --unit`` takes it).
        name, side, side_name, kind: who it is.
        position: coordinates in the battle's space (``Space.axes``), None when off the field.
        strength: what it fights with (``men``, ``hp``, ``hits`` left...).
        initial: its strength at the start, same measure.
        status: words describing its state (``disrupted``, ``routed``,
            ``knocked out``, ``crippled``, ``sunk``); empty when all is well.
        details: further plain data worth a column (fatigue, morale...).
        route: for a unit travelling between places rather than standing at
            one (a strike in flight), the places it travels between, from
            first to last; a viewer draws it along that line.  None otherwise.
        facing: for a ruleset whose units face a way, the way it faces, in
            degrees clockwise from the space's second axis decreasing ("up" on
            the map: 0 up, 90 towards the first axis increasing); the viewer
            draws a wedge that way.  None when the rules have no facing.
    """

    id: str
    name: str
    side: str
    side_name: str
    kind: str
    position: tuple[Number, ...] | None
    strength: Measure
    initial: Measure
    status: list[str] = Field(default_factory=list)
    details: dict[str, Any] = Field(default_factory=dict)
    route: list[tuple[Number, ...]] | None = None
    facing: float | None = Field(default=None, exclude_if=lambda v: v is None)
    """Left out of dumps when None, so rows of rulesets without facing read as before."""

    def flat(self, axes: Sequence[str] = ()) -> dict[str, Any]:
        """One flat dict (a table row): position split by ``axes``, strength as value + unit.

        Keys: ``id``, ``name``, ``side``, ``side_name``, ``kind``, ``strength``,
        ``strength_unit``, ``initial``, ``status`` (words joined by commas),
        the details, then one key per axis (None off the field).
        """
        out: dict[str, Any] = {
            "id": self.id,
            "name": self.name,
            "side": self.side,
            "side_name": self.side_name,
            "kind": self.kind,
            "strength": self.strength.value,
            "strength_unit": self.strength.unit,
            "initial": self.initial.value,
            "status": ", ".join(self.status),
            **self.details,
        }
        for k, axis in enumerate(axes):
            out[axis] = self.position[k] if self.position is not None else None
        return out


class Engagement(_Frozen):
    """One unit firing on, charging or striking another in an event, and how it went.

    A viewer draws it from ``actor`` to ``target`` (unit ids of
    :meth:`Ruleset.units`) while the event is the current one.

    Attributes:
        kind: ``fire`` (at a distance), ``melee`` (hand to hand, a charge) or
            ``strike`` (aircraft attacking a ship).
        result: a few words of the outcome (``8 casualties``, ``hit for 5``,
            ``2 hits``).
    """

    kind: Literal["fire", "melee", "strike"]
    actor: str
    target: str
    result: str


class Reach(_Frozen):
    """Whether one unit can come to blows, as a scenario sets it up (``validate`` warns).

    ``validate`` warns of a unit that can never reach an enemy: it does not
    move, no enemy is in its reach where they start, and no enemy moves.

    Attributes:
        unit: the unit's id.
        side: its side's id (its enemies are the other sides' units).
        path: the unit's field path in the scenario file (``sides.0.units.2``),
            where the warning points.
        moves: its orders can take it toward an enemy.
        in_reach: ids of the enemies its weapons reach from where both start.
        why: a few words of what reach it has (``napoleon_12pdr reaches 3 hexes``).
    """

    unit: str
    side: str
    path: tuple[str | int, ...]
    moves: bool
    in_reach: tuple[str, ...]
    why: str = ""


class Reading(_Frozen):
    """One measure worth charting, of one side or one unit, at one moment."""

    scope: Literal["side", "unit"]
    subject: str
    """The side id or unit id."""
    name: str
    """The subject's display name."""
    measure: Measure


class Feature(_Frozen):
    """Something drawn on the field: terrain, an objective, a base."""

    kind: str
    """``terrain``, ``objective``, ``base``..."""
    name: str
    cells: list[tuple[Number, ...]]
    """Positions (cells of a grid, points of a plane) it covers."""
    details: dict[str, Any] = Field(default_factory=dict)


class Space(_Frozen):
    """The field a battle is fought on.

    Attributes:
        kind: ``hex`` (a hex grid of offset columns), ``plane`` (continuous
            coordinates) or another word a viewer may know.
        axes: the names of a position's coordinates (``col``, ``row``; ``x``, ``y``).
        unit: what one step along an axis is (``hex``, ``ft``, ``sea hex (20 nm)``).
        bounds: inclusive (low, high) per axis, None when the field is open.
        features: terrain, objectives and the like.
    """

    kind: str
    axes: tuple[str, ...]
    unit: str
    bounds: list[tuple[Number, Number]] | None = None
    features: list[Feature] = Field(default_factory=list)


def typed(value: Any) -> Any:
    """``value`` with the exact type of every part spelled out, for comparing two models.

    ``1 == 1.0 == True`` and ``(1, 2) != [1, 2]`` only by type: two values
    whose :func:`typed` forms are equal are the same data of the same types.
    """
    if isinstance(value, BaseModel):
        return (type(value), tuple((k, typed(v)) for k, v in value.__dict__.items()))
    if isinstance(value, dict):
        return (dict, tuple((typed(k), typed(v)) for k, v in value.items()))
    if isinstance(value, list | tuple):
        return (type(value), tuple(typed(v) for v in value))
    return (type(value), value)


_PLAIN = frozenset({str, int, float, bool, type(None), bytes})
"""Types whose values :func:`same_typed` compares with ``==`` once their types match."""


def same_typed(a: Any, b: Any) -> bool:
    """``typed(a) == typed(b)``, found by walking both at once without building either.

    The test suite's check of every trusted model (:data:`sim.rulesets.trusted.CHECK_TRUSTED`)
    asks this of every row and outcome a battle makes; the walk stops at the first difference.
    The commonest types are looked up first by exact type (a ``str`` subclass, a
    ``namedtuple`` or a ``dict`` subclass takes the general branches below, as in
    :func:`typed`), and each container's items are walked by ``map`` in C.
    """
    t = type(a)
    if t in _PLAIN:
        return t is type(b) and (a is b or a == b)
    if t is list or t is tuple:
        return t is type(b) and len(a) == len(b) and all(map(same_typed, a, b))
    if isinstance(a, BaseModel):
        if t is not type(b):
            return False
        da, db = a.__dict__, b.__dict__
        return (
            len(da) == len(db)
            and all(map(eq, da, db))
            and all(map(same_typed, da.values(), db.values()))
        )
    if isinstance(a, dict):  # item by item, as typed() reads them (a pair is a tuple)
        return (
            isinstance(b, dict) and len(a) == len(b) and all(map(same_typed, a.items(), b.items()))
        )
    if isinstance(a, list | tuple):
        return type(a) is type(b) and len(a) == len(b) and all(map(same_typed, a, b))
    return t is type(b) and (a is b or a == b)


class CheckedOnce:
    """The contents a check has passed, so that the same content is not checked twice.

    For the test suite's checks of trusted models (:data:`sim.rulesets.trusted.CHECK_TRUSTED`,
    :data:`sim.contract.parts.CHECK_TRUSTED`), which validate every model a battle builds
    again: a unit that did not change makes the same row at every turn's end and in every
    run, and the check, a pure function of the content, gives it the same verdict each
    time.  A content is kept as its class (the class object itself) and its values
    written in a form that spells out every part's exact type — ``1``, ``1.0`` and
    ``True``, a ``tuple`` and a ``list``, ``-0.0`` and ``0.0``, a ``str`` subclass and
    ``str`` come apart — so two contents with the same key are the same data of the same
    types (:func:`typed`; two NaNs, which ``typed`` calls unequal, may share a key, and
    validation keeps either as it is):

    * ``marshal`` (version 2, no back-references), which writes only the built-in types
      themselves and refuses any subclass.  In a ``dict`` of values, a field the class
      annotates as one model class (a row's ``strength``) that holds a model of exactly
      that class is written as that model's field names and values, and the key names
      those fields, so no plain value can stand for a model;
    * else ``pickle`` (protocol 5), about twice as slow on a row holding two models.

    A content that does neither has no key and is checked every time.  Only passed
    contents are kept (a failed check raises each time), at most ``limit`` of them: the
    set is emptied when full.
    """

    def __init__(self, limit: int = 50_000) -> None:
        self.limit = limit
        self._passed: set[tuple[type, Any, bytes]] = set()
        self._models: dict[type, tuple[tuple[str, type], ...]] = {}

    def _model_fields(self, cls: type) -> tuple[tuple[str, type], ...]:
        """The fields of ``cls`` annotated as one model class: (name, that class)."""
        fields = getattr(cls, "model_fields", None) or {}
        found = self._models[cls] = tuple(
            (name, info.annotation)
            for name, info in fields.items()
            if isinstance(info.annotation, type) and issubclass(info.annotation, BaseModel)
        )
        return found

    def key(self, cls: type, values: Any) -> tuple[type, Any, bytes] | None:
        """The key of ``cls`` holding ``values``, or None when they write neither way."""
        try:
            if type(values) is not dict:
                return cls, "value", marshal.dumps(values, 2)
            model_fields = self._models.get(cls)
            if model_fields is None:
                model_fields = self._model_fields(cls)
            if not model_fields:
                return cls, (), marshal.dumps(values, 2)
            flat = values
            models: tuple[str, ...] = ()
            for name, model in model_fields:
                value = flat.get(name)
                if type(value) is model:
                    if flat is values:
                        flat = dict(values)
                    fields = value.__dict__
                    flat[name] = (tuple(fields), tuple(fields.values()))
                    models += (name,)
            return cls, models, marshal.dumps(flat, 2)
        except ValueError:  # a type marshal does not write exactly (a subclass, a model)
            pass
        try:
            return cls, "pickle", pickle.dumps(values, 5)
        except Exception:  # any object that does not pickle is checked every time
            return None

    def __contains__(self, key: tuple[type, Any, bytes] | None) -> bool:
        return key is not None and key in self._passed

    def passed(self, key: tuple[type, Any, bytes] | None) -> None:
        """Keep ``key`` as passed (nothing for None)."""
        if key is None:
            return
        if len(self._passed) >= self.limit:
            self._passed.clear()
        self._passed.add(key)

    def __len__(self) -> int:
        return len(self._passed)
