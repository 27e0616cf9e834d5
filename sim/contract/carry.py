"""What every ``carry_over`` does alike: its settings, the next battle's sides, reinforcements.

A ruleset's ``carry_over(scenario, final_state, next_data, settings)``
(docs/rulesets.md, "Campaigns") writes only what is its own — how one unit
comes out of a battle — on these::

    class Settings(CarrySettings):
        rest: int = Field(0, ge=0)

    def carry_over(sc, final, next_data, settings):
        s = validate_plain(Settings, settings)
        battle = NextBattle(next_data)
        battle.reinforce(s.reinforcements, "fighters")
        gone = battle.carry("fighters", final.fighters, lambda spec, f: ...)
        return battle.data

The next battle's data is copied first (``next_data`` is never changed in
place); a reinforcement for a side the next battle does not have is a
:class:`ValueError` with one line, which the campaign reports at the
battle's ``reinforcements``.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["CarrySettings", "NextBattle", "Spec"]

Spec = dict[str, Any]
"""A unit's plain scenario data, as its YAML file gives it."""

T = TypeVar("T")


class CarrySettings(BaseModel):
    """A campaign's ``carry_over:`` settings: frozen, unknown fields refused, reinforcements.

    Derive a ruleset's settings from it and read them with
    :func:`~sim.contract.bases.validate_plain`.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    reinforcements: dict[str, list[Spec]] = Field(
        default_factory=dict, description="Side id → unit specs joining this battle."
    )


class NextBattle:
    """A copy of the next battle's scenario data, its sides by id: what ``carry_over`` edits.

    Args:
        next_data: the next scenario file's plain data (left as it is).
        battle: what the next battle is called in messages ("encounter").
    """

    def __init__(self, next_data: Mapping[str, Any], battle: str = "battle") -> None:
        self.data: dict[str, Any] = copy.deepcopy(dict(next_data))
        self.battle = battle
        self.listed: list[dict[str, Any]] = [
            side for side in self.data.get("sides", []) if isinstance(side, dict)
        ]
        """Every side in the file's order (two with one id included: validation refuses them)."""
        self.sides: dict[Any, dict[str, Any]] = {side.get("id"): side for side in self.listed}
        """The sides by id (of two with one id, the later)."""

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
        gone: dict[str, Spec] = {}
        for side in self.sides.values():
            if key not in side:
                continue
            kept = []
            for spec in side[key]:
                unit = survivors.get(spec.get("id", ""))
                new = spec if unit is None else carried(spec, unit)
                if new is None:
                    gone[spec["id"]] = spec
                else:
                    kept.append(new)
            side[key] = kept
        return gone

    def each(self, key: str, change: Callable[[Spec], Spec]) -> None:
        """Replace every spec of every side's list ``key`` with ``change(spec)``."""
        for side in self.sides.values():
            if key in side:
                side[key] = [change(spec) for spec in side[key]]
