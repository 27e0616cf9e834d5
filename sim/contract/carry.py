"""What every ``carry_over`` does alike: its settings, the next battle's sides, reinforcements.

A ruleset's ``carry_over(scenario, final_state, next_data, settings)``
(docs/rulesets.md, "Campaigns") writes only what is its own — how one unit
comes out of a battle — on these::

    class Settings(CarrySettings):
        rest: int = Field(0, ge=0)

    def carry(sc, final, battle: NextBattle, s: Settings) -> None:
        battle.reinforce(s.reinforcements, "fighters")
        gone = battle.carry("fighters", final.fighters, lambda spec, f: ...)

    carry_over = CarryOver(Settings, carry)      # Ruleset(..., carry_over=carry_over)

:class:`CarryOver` reads the settings (a ``ValidationError`` the campaign
reports at ``carry_over.<field>``), copies the next battle's data
(``next_data`` is never changed in place) and returns the edited copy; a
reinforcement for a side the next battle does not have is a
:class:`ValueError` with one line, which the campaign reports at the
battle's ``reinforcements``. A unit of the next battle's data that did not
fight the battle just fought and that the result leaves out without ``carry``
saying so (:meth:`NextBattle.carry`'s None, :meth:`NextBattle.leave_out`) is
:class:`LeftOut`: such a unit joins the next battle fresh, never lost in the copy.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from pydantic import BaseModel, ConfigDict, Field

from sim.contract.bases import validate_plain
from sim.contract.ruleset import HookError

__all__ = ["CarryOver", "CarrySettings", "LeftOut", "NextBattle", "Spec", "ids_in"]

Spec = dict[str, Any]
"""A unit's plain scenario data, as its YAML file gives it."""

T = TypeVar("T")
Sc = TypeVar("Sc")
St = TypeVar("St")


class CarrySettings(BaseModel):
    """A campaign's ``carry_over:`` settings: frozen, unknown fields refused, reinforcements.

    Derive a ruleset's settings from it and read them with
    :func:`~sim.contract.bases.validate_plain`.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    reinforcements: dict[str, list[Spec]] = Field(
        default_factory=dict, description="Side id → unit specs joining this battle."
    )


def _fell(spec: Any, fallen: frozenset[str]) -> bool:
    return isinstance(spec, dict) and isinstance(spec.get("id"), str) and spec["id"] in fallen


def _drop(value: Any, fallen: frozenset[str], found: dict[str, Spec]) -> None:
    """Take out of every list in ``value`` (a side's data, however nested) the specs of the
    units in ``fallen``, into ``found``."""
    if isinstance(value, dict):
        for key, inner in list(value.items()):
            kept = inner
            if isinstance(inner, list) and any(_fell(x, fallen) for x in inner):
                found.update({x["id"]: x for x in inner if _fell(x, fallen)})
                value[key] = kept = [x for x in inner if not _fell(x, fallen)]
            _drop(kept, fallen, found)
    elif isinstance(value, list):
        for item in value:
            _drop(item, fallen, found)


class NextBattle:
    """A copy of the next battle's scenario data, its sides by id: what ``carry_over`` edits.

    Args:
        next_data: the next scenario file's plain data (left as it is).
        battle: what the next battle is called in messages ("encounter").
        fallen: ids of units that fell in a battle before the one just fought: the next
            file's specs of them are left out at once, and :meth:`carry` counts them gone,
            so orders aimed at them are changed as for the units that fell just now.
        sides: the scenario's field that lists its sides (``armies``, ``champions``: a
            ruleset's own name for it).

    Raises:
        TypeError: ``next_data`` has no list at ``sides`` (a scenario model whose sides
            are under another name: pass it, or every unit would be carried fresh, the
            fallen with them).
    """

    def __init__(
        self,
        next_data: Mapping[str, Any],
        battle: str = "battle",
        fallen: frozenset[str] = frozenset(),
        sides: str = "sides",
    ) -> None:
        self.data: dict[str, Any] = copy.deepcopy(dict(next_data))
        self.battle = battle
        listed = self.data.get(sides)
        if not isinstance(listed, list):
            fields = ", ".join(sorted(str(k) for k in self.data)) or "none"
            raise TypeError(
                f"carry-over: the next {battle}'s data has no list of sides at {sides!r} "
                f"(its fields: {fields}): give CarryOver(..., sides=NAME) the scenario "
                "field that lists the sides"
            )
        self.listed: list[dict[str, Any]] = [side for side in listed if isinstance(side, dict)]
        """Every side in the file's order (two with one id included: validation refuses them)."""
        self.sides: dict[Any, dict[str, Any]] = {side.get("id"): side for side in self.listed}
        """The sides by id (of two with one id, the later)."""
        self.fallen: dict[str, Spec] = {}
        """The specs left out because their units fell before the battle just fought, by id
        (wherever a side holds them: a regiment in its ``units``, a ship in a task force's
        ``ships``, which then holds fewer, or none, as after a battle it lost them in)."""
        if fallen:
            for side in self.listed:
                _drop(side, fallen, self.fallen)
        self.gone: dict[str, Spec] = dict(self.fallen)
        """The specs left out on purpose, by id: the fallen, each spec ``carry``'s ``carried``
        made None, and each one :meth:`leave_out` was given. Any other spec of the next
        battle's data of a unit that did not fight must be in the result
        (:class:`LeftOut`)."""

    def reinforce(
        self, reinforcements: Mapping[str, list[Spec]], key: str | Callable[[Spec], str]
    ) -> None:
        """Append each side's reinforcements (copied) to its list ``key`` (or ``key(spec)``).

        Raises:
            ValueError: a reinforcement names a side the next battle does not have.
        """
        for side_id, specs in reinforcements.items():
            side = self.sides.get(side_id)
            if side is None:
                raise ValueError(f"reinforcements: the next {self.battle} has no side {side_id!r}")
            for spec in copy.deepcopy(specs):
                name = key if isinstance(key, str) else key(spec)
                side[name] = [*side.get(name, []), spec]

    def carry(
        self, key: str, survivors: Mapping[str, T], carried: Callable[[Spec, T], Spec | None]
    ) -> dict[str, Spec]:
        """Carry the units of every side's list ``key`` that fought (by id) into the next battle.

        A spec whose id is in ``survivors`` becomes ``carried(spec, unit)``, or
        is left out when that is None; a unit that did not fight is fresh.

        Returns:
            The specs left out, by id (for orders aimed at them).
        """
        gone: dict[str, Spec] = dict(self.fallen)
        if self.sides and not any(key in side for side in self.sides.values()):
            fields = sorted({str(k) for side in self.sides.values() for k in side})
            raise TypeError(
                f"carry-over: no side of the next {self.battle} has a list {key!r} to carry "
                f"(the sides' fields: {', '.join(fields)}): name the field that lists the units"
            )
        for side in self.sides.values():
            if key not in side:
                continue
            kept = []
            for spec in side[key]:
                unit = survivors.get(spec.get("id", ""))
                new = spec if unit is None else carried(spec, unit)
                if new is None:
                    gone[spec["id"]] = self.gone[spec["id"]] = spec
                else:
                    kept.append(new)
            side[key] = kept
        return gone

    def leave_out(self, spec: Spec) -> None:
        """Say that ``spec`` (and whatever it holds) is left out of the next battle by the
        ruleset's own rule, not lost: a flattop strike whose carrier sank, a task force with
        no ship left. Leaving out a spec without it is :class:`LeftOut`."""
        if isinstance(spec.get("id"), str):
            self.gone[spec["id"]] = spec

    def each(self, key: str, change: Callable[[Spec], Spec]) -> None:
        """Replace every spec of every side's list ``key`` with ``change(spec)``."""
        for side in self.sides.values():
            if key in side:
                side[key] = [change(spec) for spec in side[key]]


Cs = TypeVar("Cs", bound=CarrySettings)


@dataclass(frozen=True)
class CarryOver(Generic[Sc, St, Cs]):
    """A ruleset's ``carry_over`` hook: settings read, the next battle copied, ``carry`` run on it.

    Attributes:
        settings: the ruleset's :class:`CarrySettings` model.
        carry: ``carry(scenario, final_state, battle, settings)`` edits the
            :class:`NextBattle` in place: what is the ruleset's own.
        battle: what the next battle is called in messages ("encounter").
        sides: the scenario field that lists the sides (:class:`NextBattle`).
    """

    settings: type[Cs]
    carry: Callable[[Sc, St, NextBattle, Cs], None]
    battle: str = "battle"
    sides: str = "sides"

    def __call__(
        self,
        scenario: Sc,
        final_state: St,
        next_data: dict[str, Any],
        settings: dict[str, Any],
        fallen: frozenset[str] = frozenset(),
    ) -> dict[str, Any]:
        """The next battle's scenario data with this battle's survivors carried into it;
        ``fallen``: units that fell in earlier battles (:class:`NextBattle`).

        Raises:
            pydantic.ValidationError: ``settings`` are not valid carry-over settings.
            ValueError: a reinforcement names a side the next battle does not have.
        """
        read = validate_plain(self.settings, settings)
        battle = NextBattle(next_data, self.battle, fallen, self.sides)
        self.carry(scenario, final_state, battle, read)
        _check_reinforced(read.reinforcements, battle)
        _check_kept(next_data.get(self.sides), battle, _fought(scenario))
        return battle.data


def ids_in(value: Any) -> set[str]:
    """Every ``id`` of a mapping in ``value`` (a scenario's data, however nested): where a
    unit's spec is, if anywhere."""
    return _ids(value, set())


def _ids(value: Any, found: set[str]) -> set[str]:
    """Every ``id`` of a mapping in ``value`` (a scenario's data, however nested)."""
    if isinstance(value, dict):
        if isinstance(value.get("id"), str):
            found.add(value["id"])
        for inner in value.values():
            _ids(inner, found)
    elif isinstance(value, list):
        for item in value:
            _ids(item, found)
    return found


class LeftOut(Exception):
    """A carry that left units of the next battle's data that did not fight the battle just
    fought (newcomers: reinforcements written in its file) out of the result without saying
    so: lost in the copy, the battle would be fought without them, saying nothing.

    Attributes:
        ids: the units left out, in the file's order.
        battle: what the next battle is called (``encounter``).
    """

    def __init__(self, ids: list[str], battle: str) -> None:
        super().__init__(
            f"left {', '.join(map(repr, ids))} of the next {battle}'s data out of it without "
            "saying so"
        )
        self.ids = ids
        self.battle = battle

    def named(self, ruleset: str, battle: str) -> HookError:
        """The one line a campaign says: the ruleset, the hook, the battle and the units."""
        units = ", ".join(map(repr, self.ids))
        one = len(self.ids) == 1
        return HookError(
            f"ruleset {ruleset!r}: carry_over left {'unit' if one else 'units'} {units} out of "
            f"{self.battle} {battle!r}, whose file brings {'it' if one else 'them'}: a unit "
            "that did not fight the battle before joins fresh; its carry must keep "
            f"{'it' if one else 'them'}, or leave {'it' if one else 'them'} out by a rule of "
            "its own with battle.leave_out(spec) (docs/rulesets.md, 'Campaigns: what "
            "carry_over must do')"
        )


def _specs(value: Any, gone: Mapping[str, Spec], found: list[str]) -> list[str]:
    """The ids of the specs in ``value`` (a side's data, however nested, its own id not
    counted) in order, leaving out those in ``gone`` and whatever they hold."""
    if isinstance(value, dict):
        for inner in value.values():
            _specs(inner, gone, found)
    elif isinstance(value, list):
        for item in value:
            spec_id = item.get("id") if isinstance(item, dict) else None
            if isinstance(spec_id, str) and spec_id in gone:
                continue
            if isinstance(spec_id, str) and spec_id not in found:
                found.append(spec_id)
            _specs(item, gone, found)
    return found


def _fought(scenario: Any) -> set[str]:
    """Every id of the battle just fought's scenario (a model, or its plain data)."""
    dump = getattr(scenario, "model_dump", None)
    return _ids(dump(mode="json") if callable(dump) else scenario, set())


def _check_kept(sides: Any, battle: NextBattle, fought: set[str]) -> None:
    """Refuse a result that lost specs of the next battle's data (``sides``, as given) of
    units that did not fight the battle just fought (``fought``: its ids; who of those is
    gone is the carry's to say) and that ``carry`` did not leave out on purpose
    (:attr:`NextBattle.gone`).

    Raises:
        LeftOut: such specs, by id.
    """
    given = [_specs(side, battle.gone, []) for side in sides if isinstance(side, dict)] if (
        isinstance(sides, list)) else []  # fmt: skip
    there = _ids(battle.data, set())
    missing = [i for ids in given for i in ids if i not in there and i not in fought]
    if missing:
        raise LeftOut(list(dict.fromkeys(missing)), battle.battle)


def _check_reinforced(reinforcements: Mapping[str, list[Spec]], battle: NextBattle) -> None:
    """Refuse reinforcements that ``carry`` left out of the next battle (it never called
    :meth:`NextBattle.reinforce`): the campaign would fight without them, saying nothing.

    Raises:
        ValueError: a reinforcement's id is nowhere in the next battle's data.
    """
    given = [s["id"] for specs in reinforcements.values() for s in specs
             if isinstance(s, dict) and isinstance(s.get("id"), str)]  # fmt: skip
    if not given:
        return
    there = _ids(battle.data, set())
    missing = [i for i in given if i not in there]
    if missing:
        raise ValueError(
            f"reinforcements: the ruleset's carry-over left {', '.join(map(repr, missing))} "
            f"out of the next {battle.battle}: its carry must merge them "
            "(battle.reinforce(settings.reinforcements, KEY)) or refuse them with a ValueError"
        )
