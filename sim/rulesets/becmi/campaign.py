"""Campaign carry-over for ``becmi``: a party's delve, one encounter after another [ours].

``carry_over(scenario, final_state, next_data, settings)`` returns the next
encounter's scenario data with every combatant of this one carried over by id:

* **dead** combatants are gone from the next encounter;
* **hit points**: a survivor enters with the hit points it had left plus
  ``healing`` (a rest, a potion, a cure spell between rooms), never more
  than the ``hp`` the next encounter gives it (its maximum); a combatant
  knocked out at 0 or fewer hit points comes round with 1 before healing;
* **fled**: a combatant that fled rejoins when ``fled_return`` is true
  (the default), else it is left out;
* a ``target`` aimed at a combatant that is gone is dropped;
* everything else — position, cover, weapons, tactics — is the next
  encounter's. Monsters of the next room are fresh.

``settings["reinforcements"]`` (side id → combatant specs; one with a
``class`` is a character, else a monster) join their side, fresh.
"""

from __future__ import annotations

from pydantic import Field

from sim.contract.carry import CarryOver, CarrySettings, NextBattle, Spec
from sim.rulesets.becmi.model.scenario import BecmiScenario
from sim.rulesets.becmi.model.state import BattleState, CombatantState

__all__ = ["CarryOverSettings", "carry_over"]

_KINDS = ("characters", "monsters")


class CarryOverSettings(CarrySettings):
    """A campaign's ``carry_over:`` settings for becmi encounters."""

    healing: int = Field(
        0, ge=0, le=1000, description="Hit points regained by each survivor between encounters."
    )
    fled_return: bool = Field(True, description="Combatants that fled rejoin the next encounter.")
    reinforcements: dict[str, list[Spec]] = Field(
        default_factory=dict, description="Side id → combatant specs joining this encounter."
    )


def _carried(spec: Spec, who: CombatantState, s: CarryOverSettings) -> Spec | None:
    """The next encounter's spec with ``who``'s hit points, or None when it is gone."""
    if who.status == "dead" or (who.status == "fled" and not s.fled_return):
        return None
    most = int(spec.get("hp", who.hp_max))
    return {**spec, "hp": max(1, min(most, max(who.hp, 1) + s.healing))}


def _carry(
    scenario: BecmiScenario, final: BattleState, encounter: NextBattle, s: CarryOverSettings
) -> None:
    """Reinforcements join; survivors carry their hit points; a target that is gone is dropped."""
    encounter.reinforce(s.reinforcements, lambda spec: _KINDS[0] if "class" in spec else _KINDS[1])
    gone: dict[str, Spec] = {}
    for kind in _KINDS:
        gone |= encounter.carry(kind, final.combatants, lambda spec, who: _carried(spec, who, s))
    for kind in _KINDS:
        encounter.each(
            kind, lambda spec: {k: v for k, v in spec.items() if k != "target" or v not in gone}
        )


carry_over = CarryOver(CarryOverSettings, _carry, battle="encounter")
"""The next encounter's scenario data with this one's survivors carried into it."""
