"""Schema of a ``flattop`` scenario file, and the checks across its fields.

Pydantic validates each field; :func:`cross_check` then checks what spans
fields (unique ids, strikes from the side's own decks at enemy task forces
within range) and returns every problem with its field path.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, StringConstraints

from sim.contract.bases import Hex, Ident, Name, ScenarioBase, SideBase
from sim.contract.bases import Model as _Model
from sim.contract.ids import UniqueIds
from sim.rulesets.flattop.model.data import (
    CARRIER_KINDS,
    DEFAULT_WEAPON,
    MINUTES_PER_TURN,
    WEAPONS,
    AircraftType,
    ShipKind,
    Weapon,
)
from sim.rulesets.flattop.model.grid import distance
from sim.rulesets.flattop.model.options import FlattopOptions
from sim.text.grammar import count
from sim.text.suggest import did_you_mean

__all__ = [
    "AttackSpec",
    "BaseSpec",
    "FlattopScenario",
    "ShipSpec",
    "SideSpec",
    "StrikeSpec",
    "TaskForceSpec",
    "clock_minutes",
    "cross_check",
    "file_check",
]

# A hex (sim.contract.Hex) of the strategic map is about 20 nautical miles.
Clock = Annotated[str, StringConstraints(pattern=r"^([01]\d|2[0-3]):[0-5]\d$")]
Factors = Annotated[int, Field(ge=0, le=500)]

Problem = tuple[tuple[str | int, ...], str]


class TurnSpec(_Model):
    """The clock: hour turns from a start time, and the hours of darkness."""

    limit: int = Field(ge=1, le=24, description="Turn limit: hours of battle (at most a day).")
    start: Clock = Field("06:00", description="Clock time when turn 1 begins, HH:MM.")
    dusk: Clock = Field("18:00", description="[ours] Night begins (hit tables -4), HH:MM.")
    dawn: Clock = Field("06:00", description="[ours] Night ends, HH:MM.")


class ShipSpec(_Model):
    """One ship; a carrier also holds its air factors."""

    id: Ident
    name: Name
    kind: ShipKind
    aa: int | None = Field(
        None, ge=0, le=50, description="AA factor (default: its class's, option aa_<class>)."
    )
    damage: int | None = Field(
        None, ge=1, le=100, description="Damage factor: hits to sink (default: by class)."
    )
    anchored: bool = Field(False, description="At anchor (hit tables +2 against it).")
    aircraft: dict[AircraftType, Factors] = Field(
        default_factory=dict, description="Air factors in the hangar at the start (carriers)."
    )

    def aa_factor(self, options: FlattopOptions) -> int:
        """The AA factor: the ship's own, or its class's under ``options`` (``aa_<class>``,
        by default ``data.SHIP_CLASSES``' AA column)."""
        return self.aa if self.aa is not None else options.aa(self.kind)

    def damage_factor(self, options: FlattopOptions) -> int:
        """The damage factor: the ship's own, or its class's under ``options``
        (``damage_<class>``; version 1 and 2's are ``data.SHIP_CLASSES``')."""
        return self.damage if self.damage is not None else options.damage(self.kind)


class TaskForceSpec(_Model):
    """Ships steaming together in one hex, under one combat air patrol."""

    id: Ident
    name: Name
    at: Hex
    clouds: bool = Field(False, description="The task force is under clouds (hit tables -2).")
    cap: Factors = Field(0, description="Fighter air factors on combat air patrol overhead.")
    ships: list[ShipSpec] = Field(min_length=1, max_length=100)


class BaseSpec(_Model):
    """A land airfield: launches and recovers strikes; cannot be attacked [ours]."""

    id: Ident
    name: Name
    at: Hex
    aircraft: dict[AircraftType, Factors] = Field(min_length=1)


class AttackSpec(_Model):
    """One attack of a strike: bombers of one type against a declared target."""

    aircraft: Literal["dive_bomber", "torpedo_bomber", "level_bomber"]
    factors: int = Field(ge=1, le=500, description="Air factors asked for.")
    weapon: Weapon | None = Field(None, description="Attack kind (default by aircraft type).")
    target: Ident | None = Field(
        None,
        description="Ship of the target task force (default: option default_target, its "
        "first carrier).",
    )

    @property
    def kind(self) -> Weapon:
        """The attack kind: the declared one or the aircraft type's default."""
        return self.weapon if self.weapon is not None else DEFAULT_WEAPON[self.aircraft]


class StrikeSpec(_Model):
    """A strike launched from a carrier or base at an enemy task force."""

    id: Ident
    name: Name
    origin: Ident = Field(description="Carrier or base of the side that launches it.")
    launch: Clock = Field(description="Clock time of launch, HH:MM.")
    target: Ident = Field(description="Enemy task force attacked.")
    escort: Factors = Field(0, description="Fighter air factors escorting the bombers.")
    attacks: list[AttackSpec] = Field(min_length=1, max_length=20)


class SideSpec(SideBase):
    """One side: its task forces, airfields and planned strikes."""

    task_forces: list[TaskForceSpec] = Field(default_factory=list, max_length=50)
    bases: list[BaseSpec] = Field(default_factory=list, max_length=50)
    strikes: list[StrikeSpec] = Field(default_factory=list, max_length=200)


class FlattopScenario(ScenarioBase):
    """A ``flattop`` scenario file."""

    ruleset: Literal["flattop"]
    turns: TurnSpec
    options: FlattopOptions = Field(default_factory=FlattopOptions)
    sides: list[SideSpec] = Field(min_length=2, max_length=2)


def clock_minutes(start: str, at: str) -> int:
    """Minutes from ``start`` to the next ``at`` (same day or after midnight)."""
    h0, m0 = (int(x) for x in start.split(":"))
    h1, m1 = (int(x) for x in at.split(":"))
    return ((h1 * 60 + m1) - (h0 * 60 + m0)) % 1440


def cross_check(sc: FlattopScenario) -> list[Problem]:
    """Return every problem that spans fields, each with its field path."""
    problems: list[Problem] = []
    ids = UniqueIds(problems)
    for i, side in enumerate(sc.sides):
        ids.add(side.id, ("sides", i, "id"), "side")
        for j, tf in enumerate(side.task_forces):
            ids.add(tf.id, ("sides", i, "task_forces", j, "id"), "task force")
            for k, ship in enumerate(tf.ships):
                path: tuple[str | int, ...] = ("sides", i, "task_forces", j, "ships", k)
                ids.add(ship.id, (*path, "id"), "ship")
                if ship.aircraft and ship.kind not in CARRIER_KINDS:
                    problems.append(((*path, "aircraft"), f"a {ship.kind} carries no aircraft"))
        for j, base in enumerate(side.bases):
            ids.add(base.id, ("sides", i, "bases", j, "id"), "base")
        for j, strike in enumerate(side.strikes):
            ids.add(strike.id, ("sides", i, "strikes", j, "id"), "strike")
    for i, side in enumerate(sc.sides):
        for j, strike in enumerate(side.strikes):
            problems.extend(_check_strike(sc, i, strike, ("sides", i, "strikes", j)))
    return problems


def file_check(sc: FlattopScenario) -> list[Problem]:
    """What a scenario file is refused for that a battle already fought is not (its replay
    still reads: the checks came after battles were fought with them): a side with nothing
    on the sea, and strikes launched together asking more than their deck holds."""
    problems: list[Problem] = []
    for i, side in enumerate(sc.sides):
        if not side.task_forces and not side.bases:
            problems.append((("sides", i), "a side needs at least one task force or base"))
        problems.extend(_launched_together(side, i))
    return problems


def _launched_together(side: SideSpec, i: int) -> list[Problem]:
    """Strikes of one carrier or base launched at the same time that together ask more air
    factors of a type than it holds at the start (each alone is checked by
    :func:`_over_committed`): the later would fly with fewer, or not at all ("no aircraft
    in the hangar"), so the file would not say what is fought. Named at the strike that
    goes past it."""
    have = {s.id: s.aircraft for tf in side.task_forces for s in tf.ships}
    have.update({b.id: b.aircraft for b in side.bases})
    problems: list[Problem] = []
    asked: dict[tuple[str, str], dict[str, int]] = {}
    names: dict[tuple[str, str], list[str]] = {}
    for j, st in enumerate(side.strikes):
        key = (st.origin, st.launch)
        held = {str(t): n for t, n in have.get(st.origin, {}).items()}
        before = asked.setdefault(key, {})
        names.setdefault(key, []).append(st.id)
        for t, n in _asked(st).items():
            total = before.get(t, 0) + n
            if len(names[key]) > 1 and n <= held.get(t, 0) < total:
                together = ", ".join(names[key])
                problems.append(
                    (
                        ("sides", i, "strikes", j),
                        f"{total} {t} air factors asked of {st.origin} by the strikes "
                        f"launched at {st.launch} ({together}), which holds {held.get(t, 0)} "
                        "at the start",
                    )
                )
            before[t] = total
    return problems


def _asked(st: StrikeSpec) -> dict[str, int]:
    """Air factors a strike asks of its origin, by type: its escort's fighters, its attacks'."""
    asked: dict[str, int] = {"fighter": st.escort} if st.escort else {}
    for attack in st.attacks:
        asked[attack.aircraft] = asked.get(attack.aircraft, 0) + attack.factors
    return asked


def _over_committed(
    st: StrikeSpec, have: dict[str, int], path: tuple[str | int, ...]
) -> list[Problem]:
    """A strike asking more air factors of a type than its origin holds at the start.

    The strike would fly with fewer than written (launch takes what is
    ready), so the file would not say what is fought.
    """
    problems: list[Problem] = []
    for t, n in _asked(st).items():
        held = have.get(t, 0)
        if held and n > held:
            where: tuple[str | int, ...] = (*path, "escort") if t == "fighter" else path
            if t != "fighter":
                first = next(i for i, a in enumerate(st.attacks) if a.aircraft == t)
                where = (*path, "attacks", first, "factors")
            problems.append(
                (
                    where,
                    f"{n} {t} air factors asked of {st.origin}, which holds {held} at the start",
                )
            )
    return problems


def _check_strike(
    sc: FlattopScenario, side_index: int, st: StrikeSpec, path: tuple[str | int, ...]
) -> list[Problem]:
    problems: list[Problem] = []
    side, enemy = sc.sides[side_index], sc.sides[1 - side_index]
    decks = {
        s.id: (s.aircraft, tf.at)
        for tf in side.task_forces
        for s in tf.ships
        if s.kind in CARRIER_KINDS
    }
    decks.update({b.id: (b.aircraft, b.at) for b in side.bases})
    origin = decks.get(st.origin)
    if origin is None:
        hint = did_you_mean(st.origin, decks)
        problems.append(
            ((*path, "origin"), f"{st.origin!r} is not a carrier or base of {side.id}{hint}")
        )
    targets = {tf.id: tf for tf in enemy.task_forces}
    target = targets.get(st.target)
    if target is None:
        hint = did_you_mean(st.target, targets)
        problems.append(
            ((*path, "target"), f"{st.target!r} is not a task force of {enemy.id}{hint}")
        )
    if clock_minutes(sc.turns.start, st.launch) >= sc.turns.limit * MINUTES_PER_TURN:
        hours = sc.turns.limit * MINUTES_PER_TURN // 60
        problems.append(
            (
                (*path, "launch"),
                f"{st.launch} is not within the battle, which starts at {sc.turns.start} and "
                f"lasts {count(hours, 'hour')} ({count(sc.turns.limit, 'turn')})",
            )
        )
    types: list[str] = (["fighter"] if st.escort else []) + [a.aircraft for a in st.attacks]
    for a_index, attack in enumerate(st.attacks):
        apath = (*path, "attacks", a_index)
        if attack.kind not in WEAPONS[attack.aircraft]:
            problems.append(
                ((*apath, "weapon"), f"a {attack.aircraft} cannot attack with {attack.kind}")
            )
        ships = [s.id for s in target.ships] if target is not None else []
        if target is not None and attack.target is not None and attack.target not in ships:
            hint = did_you_mean(attack.target, ships)
            problems.append(((*apath, "target"), f"no ship {attack.target!r} in {target.id}{hint}"))
    if origin is None or target is None:
        return problems
    aircraft, at = origin
    have = {str(t): n for t, n in aircraft.items()}
    for t in dict.fromkeys(types):
        if not have.get(t):
            problems.append(((*path, "origin"), f"{st.origin} has no {t} air factors"))
    problems.extend(_over_committed(st, have, path))
    hexes = distance(at, target.at)
    for t in dict.fromkeys(types):
        if hexes > sc.options.radius(t):
            problems.append(
                (
                    (*path, "target"),
                    f"{target.id} is {count(hexes, 'hex')} away, beyond the {t} radius "
                    f"of {sc.options.radius(t)}",
                )
            )
    return problems
