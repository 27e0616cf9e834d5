"""Campaign carry-over for ``flattop``: one day of carrier strikes into the next [ours].

``carry_over(scenario, final_state, next_data, settings)`` returns the next
day's scenario data with this day's fleets carried into it by id:

* **ships**: a ship sunk is gone from the next day; a ship hit keeps its
  damage — its damage factor (hits to sink) becomes what it had left,
  ``damage − hits``, plus ``repair`` hits made good overnight (never above
  what it had this morning). Its hits start again at 0, so a ship crippled
  today is "afloat" tomorrow with fewer hits to sink;
* **aircraft**: a carrier or base keeps the air factors aboard at the end
  (hangar, rearming, Ready box); a strike still in the air at the end lands
  on its carrier or base overnight when that is still afloat (else it is
  lost); a carrier sunk takes its aircraft with it;
* **combat air patrol**: each task force keeps the CAP it had left;
* **strikes** planned for the next day are kept when their origin is still
  afloat and their target task force has a ship left; an attack by a type
  the origin no longer has is dropped (a strike with no attack left is
  dropped), an escort with no fighters aboard becomes 0, and an attack aimed
  at a ship that sank loses its target (it goes for the task force's first carrier,
  or as the option ``default_target`` reads);
* everything else — positions, clouds, clock, options — is the next day's.

A task force with no ship left is gone. ``settings["reinforcements"]``
(side id → task force specs) are appended to their side, as fresh forces.
"""

from __future__ import annotations

from typing import Any

from pydantic import Field

from sim.contract.carry import CarryOver, CarrySettings, NextBattle
from sim.rulesets.flattop.model.data import AIRCRAFT
from sim.rulesets.flattop.model.scenario import FlattopScenario
from sim.rulesets.flattop.model.state import BattleState, StrikeState

__all__ = ["CarryOverSettings", "carry_over"]


class CarryOverSettings(CarrySettings):
    """A campaign's ``carry_over:`` settings for flattop battles."""

    repair: int = Field(0, ge=0, le=100, description="Hits made good overnight on each ship.")
    reinforcements: dict[str, list[dict[str, Any]]] = Field(
        default_factory=dict, description="Side id → task force specs joining this battle."
    )


def _aircraft_at_end(sc: FlattopScenario, state: BattleState) -> dict[str, dict[str, int]]:
    """Air factors of each carrier or base afloat at the end, airborne strikes landed."""
    out: dict[str, dict[str, int]] = {}
    for deck_id, deck in state.decks.items():
        ship = state.ships.get(deck_id)
        if ship is not None and ship.status == "sunk":
            continue
        counts: dict[str, int] = {str(t): deck.hangar[t] + deck.rearming[t] for t in AIRCRAFT}
        for ready in deck.ready.values():
            for t, n in ready.items():
                counts[t] += n
        out[deck_id] = counts
    specs = {st.id: st for side in sc.sides for st in side.strikes}
    for strike in state.strikes.values():
        if strike.status == "airborne" and strike.origin in out:
            _land(out[strike.origin], strike, [a.aircraft for a in specs[strike.id].attacks])
    return out


def _land(counts: dict[str, int], strike: StrikeState, types: list[str]) -> None:
    counts["fighter"] += strike.escort
    for kind, n in zip(types, strike.attacks, strict=False):
        counts[kind] += n


def _ship(spec: dict[str, Any], state: BattleState, s: CarryOverSettings) -> dict[str, Any] | None:
    ship = state.ships.get(spec.get("id", ""))
    if ship is None:
        return spec
    if ship.status == "sunk":
        return None
    left = ship.damage - ship.hits
    return {**spec, "damage": max(1, min(ship.damage, left + s.repair))}


def _task_force(
    tf: dict[str, Any],
    state: BattleState,
    s: CarryOverSettings,
    air: dict[str, dict[str, int]],
    battle: NextBattle,
) -> dict[str, Any] | None:
    ships = []
    for spec in tf.get("ships", []):
        ship = _ship(spec, state, s)
        if ship is None:
            battle.leave_out(spec)  # sunk
        else:
            ships.append(ship)
    if not ships:
        battle.leave_out(tf)
        return None
    for i, sp in enumerate(ships):
        if sp.get("id") in air and sp.get("aircraft"):
            ships[i] = {**sp, "aircraft": {t: n for t, n in air[sp["id"]].items() if n}}
    fought = state.task_forces.get(tf.get("id", ""))
    cap = tf.get("cap", 0) if fought is None else fought.cap
    return {**tf, "ships": ships, "cap": cap}


def _strike(
    st: dict[str, Any], origin: dict[str, int] | None, ships: list[str] | None
) -> dict[str, Any] | None:
    """The strike as it can still fly, or None (origin gone, target gone, nothing to send).

    It asks no more of a type than its origin has left — escort first, then
    attacks in order, as the launch takes them — since a scenario asking more
    than a deck holds is refused; the launch would take no more anyway.
    """
    if origin is None or ships is None:
        return None
    left = dict(origin)
    escort = min(st.get("escort", 0), left.get("fighter", 0))
    left["fighter"] = left.get("fighter", 0) - escort
    attacks = []
    for a in st.get("attacks", []):
        kind = a.get("aircraft", "")
        n = min(a.get("factors", 0), left.get(kind, 0))
        if not n:
            continue
        left[kind] -= n
        gone = a.get("target") is not None and a["target"] not in ships
        kept = {k: v for k, v in a.items() if k != "target"} if gone else dict(a)
        attacks.append({**kept, "factors": n} if n != a.get("factors") else kept)
    if not attacks:
        return None
    return {**st, "attacks": attacks, "escort": escort}


def _decks(sides: list[dict[str, Any]]) -> dict[str, dict[str, int]]:
    """Aircraft of every carrier and base of the carried scenario, by id."""
    out: dict[str, dict[str, int]] = {}
    for side in sides:
        for tf in side.get("task_forces", []):
            for ship in tf.get("ships", []):
                out[ship["id"]] = dict(ship.get("aircraft", {}))
        for base in side.get("bases", []):
            out[base["id"]] = dict(base.get("aircraft", {}))
    return out


def _carry_side(
    side: dict[str, Any],
    state: BattleState,
    s: CarryOverSettings,
    air: dict[str, dict[str, int]],
    battle: NextBattle,
) -> None:
    tfs = [_task_force(tf, state, s, air, battle) for tf in side.get("task_forces", [])]
    side["task_forces"] = [tf for tf in tfs if tf is not None]
    for base in side.get("bases", []):
        if base.get("id") in air:
            base["aircraft"] = dict(air[base["id"]])


def _carry(
    scenario: FlattopScenario, final_state: BattleState, battle: NextBattle, s: CarryOverSettings
) -> None:
    """Fleets carried in, reinforcements appended, then the strikes that can still fly."""
    sides = battle.listed
    air = _aircraft_at_end(scenario, final_state)
    for side in sides:
        _carry_side(side, final_state, s, air, battle)
    battle.reinforce(s.reinforcements, "task_forces")
    decks = _decks(sides)
    fleets = {
        tf["id"]: [ship["id"] for ship in tf["ships"]]
        for side in sides
        for tf in side.get("task_forces", [])
    }
    for side in sides:
        kept = []
        for st in side.get("strikes", []):
            flies = _strike(st, decks.get(st.get("origin", "")), fleets.get(st.get("target", "")))
            if flies is None:
                battle.leave_out(st)  # it cannot fly: its carrier sank, its target is gone …
            else:
                kept.append(flies)
        side["strikes"] = kept


carry_over = CarryOver(CarryOverSettings, _carry)
"""The next day's scenario data with this day's fleets carried into it."""
