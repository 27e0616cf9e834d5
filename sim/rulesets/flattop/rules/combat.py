"""A strike over its target: air-to-air, then anti-aircraft fire, then the attacks.

The order in the hex is rules-notes §2 [src].  Every resolution goes through
:func:`sim.rulesets.flattop.rules.resolve.resolve` on its own stream, named by the strike
and the actor (``<strike>/air_combat/escort``, ``<strike>/air_combat/cap/…``,
``<strike>/anti_aircraft/<task force>``, ``<strike>/attack/<index>``), so a
change to one strike or attack moves no other draw.
"""

from __future__ import annotations

from typing import Literal

from sim.contract.emit import stamp
from sim.rulesets.flattop.model.data import (
    ABOARD_LOSS_ORDERS,
    CARRIER_KINDS,
    LOSS_ORDER,
    SMALL_TARGETS,
    AircraftType,
)
from sim.rulesets.flattop.model.events import (
    AfterAttackKills,
    AirCombat,
    AntiAircraft,
    Attacked,
    CapRearming,
    Resolution,
    TargetSunk,
)
from sim.rulesets.flattop.model.options import FlattopOptions
from sim.rulesets.flattop.model.state import DeckState, ShipState
from sim.rulesets.flattop.rules.context import Battle
from sim.rulesets.flattop.rules.resolve import resolve

__all__ = [
    "Lost",
    "aa_split",
    "aboard_losses",
    "all_dive_bombers",
    "allocate",
    "cap_split",
    "decide_after_attack_kills",
    "decide_air_combat",
    "decide_anti_aircraft",
    "decide_attack",
    "default_target",
    "has_ready_box",
    "lost_aboard",
    "ship_aa",
    "ship_status",
    "task_force_aa",
]


def allocate(factors: list[int], hits: int) -> list[int]:
    """Spread hits over attacks, one at a time on the one with most factors left.

    Ties go to the attack declared first (option ``loss_allocation``
    ``largest_first`` [ours]).  Hits beyond the factors present are wasted.

    >>> allocate([8, 6], 4)
    [3, 1]
    """
    left, lost = list(factors), [0] * len(factors)
    for _ in range(min(hits, sum(factors))):
        i = max(range(len(left)), key=lambda k: (left[k], -k))
        left[i] -= 1
        lost[i] += 1
    return lost


def _combat(
    b: Battle,
    strike: str,
    cause: int,
    firer: Literal["cap", "escort"],
    target: Literal["cap", "escort", "bombers", "strike"],
    result: Resolution,
    *,
    cap_lost: int = 0,
    escort_lost: int = 0,
    attack_losses: list[int] | None = None,
    attack_losses_after: list[int] | None = None,
) -> AirCombat:
    s = b.state.strikes[strike]
    after = attack_losses_after or []
    return AirCombat(
        **stamp(b, cause),
        strike=strike,
        task_force=s.target,
        firer=firer,
        target=target,
        result=result,
        cap_lost=cap_lost,
        escort_lost=escort_lost,
        attack_losses=attack_losses if attack_losses is not None else [0] * len(s.attacks),
        attack_losses_after=after if any(after) else [],
    )


def cap_split(hits: int, after_per_kill: int) -> tuple[int, int]:
    """The CAP's hits on bombers as (shot down before the attack, after-attack kills): of each
    1 + N hits one shoots an air factor down before the attack and N after it.

    ``cap_kills_after_attack`` [ours]; N = 0 shoots every one down before the attack.

    >>> cap_split(3, 1), cap_split(4, 1), cap_split(1, 1), cap_split(5, 2), cap_split(3, 0)
    ((1, 2), (2, 2), (0, 1), (1, 4), (3, 0))
    """
    before = hits // (1 + after_per_kill)
    return before, hits - before


def decide_air_combat(b: Battle, strike: str, cause: int) -> list[AirCombat | CapRearming]:
    """Combat air patrol against the strike: both sides fire at once, on table 9.

    Escorts fire at the CAP.  The CAP's fire depends on ``interception``:
    ``screen`` [ours] — each escort factor ties down one CAP factor, which fires
    at the escorts; the rest fire at the bombers; ``escorts_first`` — all CAP
    factors fire at the strike and escorts take the hits before bombers.  All
    strengths are those before the combat (simultaneous fire).  The CAP's hits on bombers are
    split by ``cap_kills_after_attack`` [ours] (:func:`cap_split`): some shoot an AF down
    before the attack, the rest after it (:func:`decide_after_attack_kills`).

    With ``cap_engagement: once_per_turn`` [ours] a CAP that has fought a raid
    this turn meets no other raid until the next turn: one :class:`CapRearming`.
    """
    o, s = b.options, b.state.strikes[strike]
    tf = b.state.task_forces[s.target]
    cap, escort, attacks = tf.cap, s.escort, s.attacks
    bombers = sum(attacks)
    if not cap or not (escort or bombers):
        return []
    if o.cap_engagement == "once_per_turn" and tf.fought_turn == b.turn:
        return [
            CapRearming(
                **stamp(b, cause), strike=strike, task_force=s.target,
                cap=cap, fought=tf.fought_strike,
            )
        ]  # fmt: skip
    mods = b.weather(s.target) if o.weather_in_air_combat else {}
    table = o.table_fighter_air_to_air

    def roll(*key: str, factors: int) -> Resolution:
        return resolve(b.stream(strike, "air_combat", *key), table, mods, factors, o.below_star)

    events: list[AirCombat | CapRearming] = []
    if escort:
        r = roll("escort", factors=escort)
        events.append(_combat(b, strike, cause, "escort", "cap", r, cap_lost=min(r.hits, cap)))
    if o.interception == "escorts_first":
        r = roll("cap", "strike", factors=cap)
        events.append(_cap_on_bombers(b, strike, cause, r, escort_lost=min(r.hits, escort)))
        return events
    on_escort = min(cap, escort) if bombers else cap
    if on_escort:
        r = roll("cap", "escort", factors=on_escort)
        lost = min(r.hits, escort)
        events.append(_combat(b, strike, cause, "cap", "escort", r, escort_lost=lost))
    if cap - on_escort:
        r = roll("cap", "bombers", factors=cap - on_escort)
        events.append(_cap_on_bombers(b, strike, cause, r))
    return events


def _cap_on_bombers(
    b: Battle, strike: str, cause: int, r: Resolution, escort_lost: int | None = None
) -> AirCombat:
    """The CAP's fire at the bombers (``escort_lost`` given: at the whole strike, escorts
    first): its hits on them split by :func:`cap_split` and allocated, those shot down before
    the attack first, then the after-attack kills over what is left of each attack."""
    attacks = b.state.strikes[strike].attacks
    before, after = cap_split(r.hits - (escort_lost or 0), b.options.cap_kills_after_attack)
    lost = allocate(attacks, before)
    later = allocate([a - x for a, x in zip(attacks, lost, strict=True)], after)
    target: Literal["bombers", "strike"] = "bombers" if escort_lost is None else "strike"
    return _combat(
        b, strike, cause, "cap", target, r,
        escort_lost=escort_lost or 0, attack_losses=lost, attack_losses_after=later,
    )  # fmt: skip


def decide_after_attack_kills(b: Battle, strike: str) -> AfterAttackKills | None:
    """The CAP's after-attack kills (``cap_kills_after_attack`` [ours]), once the strike's
    attacks are made or its waves have turned home: each attack's at most what it has left.

    Its cause is the air combat that decided them.  None when the CAP decided none, or
    none is left to shoot down (the AA took them).
    """
    s = b.state.strikes[strike]
    if not s.after:
        return None
    lost = [min(x, a) for x, a in zip(s.after, s.attacks, strict=True)]
    if not any(lost):
        return None
    return AfterAttackKills(
        **stamp(b, s.after_cause), strike=strike, task_force=s.target, attack_losses=lost
    )


def ship_aa(b: Battle, ship: str) -> int | None:
    """A ship's AA factor now; None when sunk (it is out of the battle).

    A crippled ship's per ``crippled_ship_aa`` [ours].
    """
    s = b.state.ships[ship]
    if s.status == "sunk":
        return None
    if s.status == "crippled":
        return {"full": s.aa, "half": s.aa // 2, "none": 0}[b.options.crippled_ship_aa]
    return s.aa


def task_force_aa(b: Battle, task_force: str) -> dict[str, int]:
    """AA factor of each ship afloat (:func:`ship_aa`), in scenario order."""
    factors = {s.id: ship_aa(b, s.id) for s in b.ships_of(task_force)}
    return {sid: f for sid, f in factors.items() if f is not None}


def decide_anti_aircraft(
    b: Battle, strike: str, cause: int, aa: dict[str, int] | None = None
) -> AntiAircraft | None:
    """The task force's total AA factor fires at the bombers on ``table_anti_aircraft``.

    Only bombers are hit (rules-notes §2 [src]); of the hits, ``aa_split`` shoot
    bombers down and the rest spoil attacks; a raid of dive bombers alone meets it at
    ``modifier_aa_dive_bombers`` [ours] (0 by default: no modifier).  None when no
    bombers are left or the task force has no AA factor.  ``aa``: each ship's factor, as the
    ships answered the raid (by default :func:`task_force_aa`).
    """
    o, s = b.options, b.state.strikes[strike]
    aa = task_force_aa(b, s.target) if aa is None else aa
    total = sum(aa.values())
    if not sum(s.attacks) or not total:
        return None
    mods = b.weather(s.target) if o.weather_in_anti_aircraft else {}
    if o.modifier_aa_dive_bombers and all_dive_bombers(b, strike):
        mods = {"dive_bombers": o.modifier_aa_dive_bombers, **mods}
    stream = b.stream(strike, "anti_aircraft", s.target)
    r = resolve(stream, o.table_anti_aircraft, mods, total, o.below_star)
    kills, spoils = aa_split(r.hits, o.aa_spoiled_per_kill)
    lost = allocate(s.attacks, kills)
    spoiled = allocate([a - x for a, x in zip(s.attacks, lost, strict=True)], spoils)
    return AntiAircraft(
        **stamp(b, cause),
        strike=strike,
        task_force=s.target,
        aa=aa,
        result=r,
        attack_losses=lost,
        attack_spoiled=spoiled if any(spoiled) else [],
    )


def all_dive_bombers(b: Battle, strike: str) -> bool:
    """True when every bomber AF the strike has left is a dive bomber's (and it has some).

    Such a raid meets the AA at ``modifier_aa_dive_bombers`` [ours].
    """
    left = b.state.strikes[strike].attacks
    specs = b.strikes[strike].attacks
    kinds = {spec.aircraft for spec, af in zip(specs, left, strict=True) if af}
    return kinds == {"dive_bomber"}


def aa_split(hits: int, spoiled_per_kill: int) -> tuple[int, int]:
    """AA hits as (air factors shot down, attacks spoiled): of each 1 + N hits one kills.

    ``aa_spoiled_per_kill`` [ours]; N = 0 shoots one down for every hit.

    >>> aa_split(3, 2), aa_split(2, 2), aa_split(5, 2), aa_split(4, 0)
    ((1, 2), (0, 2), (1, 4), (4, 0))
    """
    kills = hits // (1 + spoiled_per_kill)
    return kills, hits - kills


def ship_status(hits: int, damage: int, cripple_fraction: float) -> str:
    """Sunk at the damage factor, crippled at ``cripple_fraction`` of it ([fan])."""
    if hits >= damage:
        return "sunk"
    return "crippled" if hits >= cripple_fraction * damage else "afloat"


Lost = tuple[dict[str, dict[str, int]], dict[str, int], dict[str, int]]
"""Air factors lost aboard a carrier: (Ready box by strike, rearming, hangar), by type."""


def aboard_losses(
    deck: DeckState, n: int, everything: bool, order: tuple[AircraftType, ...] = LOSS_ORDER
) -> Lost:
    """Air factors lost aboard a hit carrier: (Ready box by strike, rearming, hangar).

    ``n`` factors are lost from the Ready box first (strikes in the order they
    were spotted), then those rearming, then the hangar; within each, types in
    ``order`` (``aboard_loss_order`` [ours]; by default ``LOSS_ORDER``).  ``everything``:
    the carrier sank with all aboard.
    """
    left = deck.aboard() if everything else n

    def take(counts: dict[str, int]) -> dict[str, int]:
        nonlocal left
        out: dict[str, int] = {}
        for t in order:
            k = min(left, counts.get(t, 0))
            if k:
                out[t] = k
                left -= k
        return out

    ready = {sid: took for sid, c in deck.ready.items() if (took := take(c))}
    return ready, take(deck.rearming), take(deck.hangar)


def has_ready_box(deck: DeckState | None) -> bool:
    """The ship is a carrier with aircraft in its Ready box (rules-notes §2 [src])."""
    return deck is not None and deck.carrier and deck.ready_total() > 0


def lost_aboard(
    o: FlattopOptions, deck: DeckState | None, hits: int, taken: int, sunk: bool
) -> Lost:
    """What an attack's hits cost the ship's deck (``deck`` as it was before them; None:
    a ship with no aircraft): everything aboard when she sinks; else, with aircraft in her
    Ready box, as many as the hits taken (``ready_box_losses: hits_taken`` [ours]) or as
    the ``hits`` rolled (``hits_rolled``), in ``aboard_loss_order`` [ours]; else nothing.

    No die decides it: the audit holds a logged (or forked) attack's losses to it.
    """
    if deck is None or not (sunk or has_ready_box(deck)):
        return {}, {}, {}
    n = taken if o.ready_box_losses == "hits_taken" else hits
    return aboard_losses(deck, n, everything=sunk, order=ABOARD_LOSS_ORDERS[o.aboard_loss_order])


def default_target(ships: list[ShipState], reading: str) -> ShipState:
    """The ship of ``ships`` (a task force's, in scenario order) an attack that declares
    none goes for, under ``default_target`` [ours]: ``first_carrier``, the first carrier,
    else the first ship; ``largest_carrier``, the carrier with the largest damage factor,
    else the ship with the largest, the first listed of equals.  Sunk or not."""
    carriers = [x for x in ships if x.kind in CARRIER_KINDS]
    pool = carriers or ships
    if reading == "first_carrier":
        return pool[0]
    return max(pool, key=lambda x: x.damage)  # max keeps the first of equals


def _target(b: Battle, strike: str, index: int) -> tuple[str, ShipState | None]:
    """(declared target, ship attacked): a sunk target gives way ([ours], ``retarget_sunk``)."""
    s = b.state.strikes[strike]
    spec = b.strikes[strike].attacks[index]
    ships = b.ships_of(s.target)
    declared = spec.target
    if declared is None:
        declared = default_target(ships, b.options.default_target).id
    ship = b.state.ships[declared]
    if ship.status != "sunk":
        return declared, ship
    if not b.options.retarget_sunk:
        return declared, None
    afloat = b.carriers_first(s.target)
    return declared, afloat[0] if afloat else None


def _modifiers(b: Battle, ship: ShipState) -> dict[str, int]:
    o = b.options
    mods: dict[str, int] = {}
    if ship.status == "crippled":
        mods["crippled"] = o.modifier_crippled
    if ship.anchored:
        mods["anchored"] = o.modifier_anchored
    if ship.kind in SMALL_TARGETS and o.modifier_small_target:
        mods["small_target"] = o.modifier_small_target
    return {**mods, **b.weather(ship.task_force)}


def decide_attack(b: Battle, strike: str, index: int, cause: int) -> Attacked | TargetSunk | None:
    """One declared attack on its ship: the hits, Ready-box doubling, damage, losses aboard.

    Its air factors count ``attack_factor_scale`` [ours] attacking factors each on the
    matrix.  None when the attack has no aircraft left; a :class:`TargetSunk` when it
    has no ship to attack (its target sunk and ``retarget_sunk`` off, or nothing afloat),
    None then too with ``log_target_sunk`` off (rules versions 1 and 2).
    """
    o, s = b.options, b.state.strikes[strike]
    factors = s.attacking(index)
    declared, ship = _target(b, strike, index)
    if not factors:
        return None
    if ship is None:
        if not o.log_target_sunk:
            return None
        spec = b.strikes[strike].attacks[index]
        return TargetSunk(
            **stamp(b, cause), strike=strike, attack=index,
            aircraft=spec.aircraft, factors=factors, declared=declared,
        )  # fmt: skip
    spec = b.strikes[strike].attacks[index]
    stream = b.stream(strike, "attack", index)
    basic = o.hit_table(spec.aircraft, spec.kind)
    scaled = factors * o.attack_factor_scale
    r = resolve(stream, basic, _modifiers(b, ship), scaled, o.below_star)
    deck = b.state.decks.get(ship.id)
    ready_box = has_ready_box(deck)
    taken = r.hits * 2 if ready_box and o.ready_box_doubling else r.hits
    after = ship.hits + taken
    status = ship_status(after, ship.damage, o.cripple_fraction)
    lost = lost_aboard(o, deck, r.hits, taken, sunk=status == "sunk")
    return Attacked(
        **stamp(b, cause),
        strike=strike,
        attack=index,
        aircraft=spec.aircraft,
        weapon=spec.kind,
        declared=declared,
        ship=ship.id,
        result=r,
        ready_box=ready_box,
        hits_taken=taken,
        hits_before=ship.hits,
        hits_after=after,
        status_before=ship.status,
        status_after=status,
        lost_ready=lost[0],
        lost_rearming=lost[1],
        lost_hangar=lost[2],
    )
