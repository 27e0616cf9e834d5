"""Battle state of the ``musket`` ruleset, and the methods that change it.

:class:`BattleState` is a :class:`~sim.contract.StateBase` (with the battle's
end), written as a plugin's is: its :func:`~sim.contract.applies` methods are
the only writers of state (the live simulation calls them through the
engine's recorder for each event it logs, and replay folds the logged events
through them); snapshot and restore come from the base.  ``occupant`` (who
stands on each hex) and ``foes`` (each side's enemies by hex: the spatial
index targeting reads) are :func:`~sim.contract.parts.fixed`: derived from
the units' hexes, out of the snapshot, rebuilt whenever a state is made or
restored and kept up to date by apply.

:func:`snapshot_json` is musket's one speed device, the ``Ruleset`` hook any
plugin may give: the text each turn's digest hashes, written straight from
the units.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from json.encoder import encode_basestring
from operator import attrgetter
from typing import Annotated, Any, ClassVar, Self

from pydantic import Field, model_validator

from engine.canonical import canonical_json, members_json
from sim.contract import applies
from sim.contract.ending import EndingState
from sim.contract.parts import AtMost, ById, OutAt, fixed, row, trusted_part
from sim.rulesets.musket.model.data import Ammo, Formation, Kind, Quality
from sim.rulesets.musket.model.events import (
    BattleEnded,
    Casualties,
    Fired,
    LeftField,
    Meleed,
    MoraleState,
    MoraleTested,
    Moved,
    Rallied,
    Rested,
    SideBroken,
)
from sim.rulesets.musket.model.hexmap import cell
from sim.rulesets.musket.model.scenario import MusketScenario

__all__ = [
    "BattleState",
    "SideState",
    "UnitState",
    "initial_state",
    "snapshot_json",
]

Hex = tuple[int, int]


@row
class UnitState:
    """One unit's changing state (its fixed data stays in the scenario).

    A :func:`~sim.contract.parts.row`: the rules read its fields thousands of times a
    turn, at a plain object's speed."""

    id: str
    side: str
    name: str
    kind: Kind
    quality: Quality
    weapon: str
    formation: Formation
    leader: bool
    ammo: Ammo
    initial: int
    strength: Annotated[int, AtMost("initial"), OutAt(0, "morale", "eliminated")]
    """At 0 the unit is eliminated (``_take``, ``_pursued``: the apply that takes its last
    man or gun eliminates it and takes it off the map; a fork's ``state.…strength=0`` is
    refused unless its ``morale`` is set ``eliminated`` too)."""
    hex: Hex | None
    fatigue: int = 0
    morale: MoraleState = "good"
    men_lost: int = 0
    guns_lost: int = 0
    moved_turn: int = 0
    fired_turn: int = 0
    fought_turn: int = 0
    morale_cause: int | None = None
    """Seq of the event that last changed the unit's morale state."""

    @property
    def active(self) -> bool:
        """On the field and not eliminated."""
        return self.morale != "eliminated"


@row
class SideState:
    """One army's standing."""

    id: str
    name: str
    broken: bool = False


class BattleState(EndingState):
    """The whole battle: units in scenario order, sides, outcome."""

    snapshot_order: ClassVar[tuple[str, ...]] = EndingState.with_ending(
        ("units", "sides"), ("objective_points",)
    )
    """The order of its snapshots before it used the base (an ``engine.snapshot`` line's)."""

    units: ById[UnitState]
    sides: ById[SideState]
    objective_points: dict[str, int] = Field(default_factory=dict)
    """Each side's objective points at the end, by side id in sorted order."""
    occupant: dict[Hex, str] = fixed(default_factory=dict)
    """The unit on each hex: derived from the units' hexes (rebuilt when the state is
    made or restored, kept by apply), so out of the snapshot."""
    foes: dict[str, dict[int, UnitState]] = fixed(default_factory=dict)
    """The spatial index targeting reads (``targeting.py``): for each side, the units of
    every other side on the map by their hex's :func:`~sim.rulesets.musket.model.hexmap.cell`.
    Derived from the units' hexes as ``occupant`` is (rebuilt when the state is made or
    restored, kept by apply), so out of the snapshot, the digest and every event."""
    placements: int = fixed(0)
    """Count of changes to ``occupant``: rules cache what they derive from it
    (the nearest enemy) and trust the cache while this count stands."""

    @model_validator(mode="after")
    def _occupy(self) -> Self:
        """``occupant`` and ``foes`` from the units' hexes, whatever was given for them."""
        self.occupant = {u.hex: u.id for u in self.units.values() if u.hex is not None}
        self.foes = {side: {} for side in self.sides}
        for u in self.units.values():
            if u.hex is not None:
                for side, foes in self.foes.items():
                    if side != u.side:
                        foes[cell(u.hex)] = u
        return self

    def _place(self, unit: UnitState, to: Hex | None) -> None:
        here = unit.hex
        if here is not None and self.occupant.get(here) == unit.id:
            del self.occupant[here]
        unit.hex = to
        if to is not None:
            self.occupant[to] = unit.id
        for side, foes in self.foes.items():
            if side != unit.side:
                if here is not None and foes.get(cell(here)) is unit:
                    del foes[cell(here)]
                if to is not None:
                    foes[cell(to)] = unit
        self.placements += 1

    def _pursued(self, unit: UnitState, loss: int) -> None:
        """Men (guns, for a battery) a melee's loser lost to cavalry's pursuit
        (``cavalry_pursuit_share``), or a unit that routs lost as prisoners
        (``rout_prisoners_share``); strength 0 eliminates."""
        lost = min(loss, unit.strength)
        if unit.kind == "artillery":
            unit.guns_lost += lost
        else:
            unit.men_lost += lost
        unit.strength -= lost
        if unit.strength == 0:
            unit.morale = "eliminated"
            self._place(unit, None)

    @applies(Moved)
    def moved(self, event: Moved) -> None:
        unit = self.units[event.unit]
        self._place(unit, event.path[-1])
        if event.reason == "order":
            unit.moved_turn = event.turn

    @applies(LeftField)
    def left_field(self, event: LeftField) -> None:
        unit = self.units[event.unit]
        self._place(unit, None)
        unit.morale = "eliminated"

    @applies(Fired)
    def fired(self, event: Fired) -> None:
        data, units = event.__dict__, self.units  # the commonest event: its fields read once
        units[data["unit"]].fired_turn = data["turn"]
        _take(self, units[data["target"]], data["result"])

    @applies(Meleed)
    def meleed(self, event: Meleed) -> None:
        attacker, defender = self.units[event.unit], self.units[event.target]
        attacker.fought_turn = defender.fought_turn = event.turn
        stand = event.stand_test
        if stand is not None and not stand.passed:  # routed before the melee
            defender.morale, defender.morale_cause = "routed", event.seq
        _take(self, attacker, event.attacker_losses)
        _take(self, defender, event.defender_losses)
        loser = defender if event.winner == attacker.id else attacker
        winner = attacker if loser is defender else defender
        if event.pursuit_losses and loser.active:
            self._pursued(loser, event.pursuit_losses)
        if event.prisoners and loser.active:
            self._pursued(loser, event.prisoners)
        if loser.active:
            if event.loser_state != loser.morale:
                loser.morale_cause = event.seq
            loser.morale = event.loser_state
            if event.loser_state == "eliminated":
                if loser.kind == "artillery":  # captured: its guns are lost
                    loser.guns_lost += loser.strength
                    loser.strength = 0
                self._place(loser, None)
            elif event.loser_retreats_to is not None:
                self._place(loser, event.loser_retreats_to)
        if event.winner_advances_to is not None and winner.active:
            self._place(winner, event.winner_advances_to)

    @applies(MoraleTested, Rallied)
    def morale_changed(self, event: MoraleTested | Rallied) -> None:
        unit = self.units[event.unit]
        if event.after != unit.morale:
            unit.morale_cause = event.seq
        unit.morale = event.after
        if isinstance(event, MoraleTested) and event.prisoners and unit.active:
            self._pursued(unit, event.prisoners)  # taken as it routs (rout_prisoners_share)

    @applies(Rested)
    def rested(self, event: Rested) -> None:
        unit = self.units[event.unit]
        unit.fatigue = max(0, unit.fatigue - event.recovered)

    @applies(SideBroken)
    def side_broken(self, event: SideBroken) -> None:
        self.sides[event.side].broken = True

    @applies(BattleEnded)
    def battle_ended(self, event: BattleEnded) -> None:
        self.end(event)
        self.objective_points = dict(sorted(event.objective_points.items()))


def _take(state: BattleState, unit: UnitState, c: Casualties) -> None:
    """A unit's losses and fatigue from a resolution (fire or melee): the
    result's fields read from its ``__dict__`` (a model's attribute reads pass through
    pydantic's ``__getattr__`` hook), strength 0 eliminates."""
    result = c.__dict__
    if unit.kind == "artillery":
        lost = min(result["guns_lost"], unit.strength)
        unit.guns_lost += lost
    else:
        lost = min(result["casualties"], unit.strength)
        unit.men_lost += lost
    unit.strength -= lost
    unit.fatigue += result["fatigue_added"]
    if unit.strength == 0:
        unit.morale = "eliminated"
        state._place(unit, None)


def initial_state(sc: MusketScenario) -> BattleState:
    """Build the state at the start of the battle from its scenario."""
    units = {
        u.id: trusted_part(
            UnitState,
            id=u.id,
            side=s.id,
            name=u.name,
            kind=u.kind,
            quality=u.quality,
            weapon=u.weapon,
            formation=u.formation,
            leader=u.leader,
            ammo=u.ammo,
            initial=u.strength,
            strength=u.strength,
            hex=(u.at[0], u.at[1]),
            fatigue=u.fatigue,
            morale=u.morale,
        )
        for s in sc.sides
        for u in s.units
    }
    sides = {s.id: trusted_part(SideState, id=s.id, name=s.name) for s in sc.sides}
    return BattleState(units=units, sides=sides)


def _rest(state: BattleState) -> dict[str, Any]:
    """The snapshot's members other than ``units``, in the snapshot's order."""
    return {
        "sides": [{"id": s.id, "name": s.name, "broken": s.broken} for s in state.sides.values()],
        "ended": state.ended,
        "ended_turn": state.ended_turn,
        "winner": state.winner,
        "reason": state.reason,
        "objective_points": dict(sorted(state.objective_points.items())),
    }


# One unit's row, keys sorted as canonical JSON sorts them.  %d takes the int
# fields as they are: their type is kept by apply (events are validated), by
# set_path (an override keeps a field's type) and by mypy; the two fields that
# may be None (and so take any value by an override) go through _optional, as
# the base's snapshot (pydantic's serialiser) writes them: any value as it is,
# but for a true or false in the int field morale_cause, which it writes as 1 or 0.
_ROW = (
    '{"ammo":%s,"fatigue":%d,"fired_turn":%d,"formation":%s,"fought_turn":%d,"guns_lost":%d,'
    '"hex":%s,"id":%s,"initial":%d,"kind":%s,"leader":%s,"men_lost":%d,"morale":%s,'
    '"morale_cause":%s,"moved_turn":%d,"name":%s,"quality":%s,"side":%s,"strength":%d,'
    '"weapon":%s}'
)


def _optional(value: object) -> str:
    """A hex or a seq, or None, as canonical JSON (anything else through the encoder)."""
    if value is None:
        return "null"
    if type(value) is int:
        return int.__repr__(value)
    if type(value) is tuple and len(value) == 2 and type(value[0]) is int is type(value[1]):
        return f"[{value[0]},{value[1]}]"
    return canonical_json(value)


def _seq(value: object) -> str:
    """``morale_cause`` (``int | None``) as canonical JSON of its snapshot value."""
    if type(value) is bool:
        return "1" if value else "0"
    return _optional(value)


def _unit_json(u: UnitState) -> str:
    """``canonical_json`` of the unit's snapshot row, written from its fields."""
    text = encode_basestring
    return _ROW % (
        text(u.ammo),
        u.fatigue,
        u.fired_turn,
        text(u.formation),
        u.fought_turn,
        u.guns_lost,
        _optional(u.hex),
        text(u.id),
        u.initial,
        text(u.kind),
        "true" if u.leader is True else "false" if u.leader is False else canonical_json(u.leader),
        u.men_lost,
        text(u.morale),
        _seq(u.morale_cause),
        u.moved_turn,
        text(u.name),
        text(u.quality),
        text(u.side),
        u.strength,
        text(u.weapon),
    )


# A unit's row with its ten static fields (those no event changes: only an override may)
# written in, as the eleven pieces of text between its ten changing ones, in the row's key
# order: fatigue, fired_turn, fought_turn, guns_lost, hex, men_lost, morale, morale_cause,
# moved_turn, strength.  Joined with those, the same text as _unit_json: the static fields
# written once, and no format string parsed per row (a row is joined, not %-formatted).
_STATIC = attrgetter(
    "ammo", "formation", "id", "initial", "kind", "leader", "name", "quality", "side", "weapon"
)
_PARTS = _ROW.split("%")
"""_ROW's literal text around its twenty fields (it holds no other ``%``): each part after
the first starts with its field's ``d`` or ``s``."""
_CHANGING = frozenset((1, 2, 4, 5, 6, 11, 12, 13, 14, 18))
"""The changing fields' places among _ROW's twenty, in its key order."""
Template = tuple[str, str, str, str, str, str, str, str, str, str, str]
_TEMPLATES: dict[tuple[object, ...], Template] = {}
"""A row's pieces by its unit's static fields (a pure function of them, so any state and any
battle may share them); emptied when it holds more than :data:`_TEMPLATES_MAX`."""
_TEMPLATES_MAX = 1 << 14


def _template(
    ammo: str,
    formation: str,
    uid: str,
    initial: int,
    kind: str,
    leader: bool,
    name: str,
    quality: str,
    side: str,
    weapon: str,
) -> Template:
    """The row of a unit with these static fields, as the text between its changing ones."""
    text = encode_basestring
    static = iter(
        (
            text(ammo),
            text(formation),
            text(uid),
            "%d" % initial,  # noqa: UP031 - written as _unit_json writes it (%d)
            text(kind),
            "true" if leader else "false",
            text(name),
            text(quality),
            text(side),
            text(weapon),
        )
    )
    pieces, current = [], _PARTS[0]
    for k, part in enumerate(_PARTS[1:]):
        if k in _CHANGING:
            pieces.append(current)
            current = part[1:]
        else:
            current += next(static) + part[1:]
    pieces.append(current)
    p0, p1, p2, p3, p4, p5, p6, p7, p8, p9, p10 = pieces
    return p0, p1, p2, p3, p4, p5, p6, p7, p8, p9, p10


def _rows(units: Iterable[UnitState]) -> Iterator[str]:
    """Each unit's :func:`_unit_json`, from its row's pieces (made once per set of static
    fields) joined with its ten changing fields: an int as ``%d`` writes it (``str``: the
    int fields keep their type, see _ROW), the rest as _unit_json writes them."""
    templates, static, text = _TEMPLATES, _STATIC, encode_basestring
    for u in units:
        leader = u.leader
        if type(leader) is not bool:  # only an override could: True == 1 as a key
            yield _unit_json(u)
            continue
        key = static(u)
        template = templates.get(key)
        if template is None:
            if len(templates) >= _TEMPLATES_MAX:
                templates.clear()
            template = templates[key] = _template(*key)
        p0, p1, p2, p3, p4, p5, p6, p7, p8, p9, p10 = template
        h = u.hex
        seq = u.morale_cause
        yield "".join(
            (
                p0,
                str(u.fatigue),
                p1,
                str(u.fired_turn),
                p2,
                str(u.fought_turn),
                p3,
                str(u.guns_lost),
                p4,
                f"[{h[0]},{h[1]}]"
                if type(h) is tuple and len(h) == 2 and type(h[0]) is int is type(h[1])
                else _optional(h),
                p5,
                str(u.men_lost),
                p6,
                text(u.morale),
                p7,
                "null" if seq is None else int.__repr__(seq) if type(seq) is int else _seq(seq),
                p8,
                str(u.moved_turn),
                p9,
                str(u.strength),
                p10,
            )
        )


def snapshot_json(state: BattleState) -> str:
    """``canonical_json(state.snapshot())``, with the unit rows written straight from
    the units: about half the cost of building their dicts for ``RowDigest`` to
    serialise, a fifth of the stdlib encoder's.  Each row fills its unit's template
    (:func:`_rows`: the static fields written once, not every turn)."""
    units = "[" + ",".join(_rows(state.units.values())) + "]"
    return members_json(_rest(state), {"units": units})
