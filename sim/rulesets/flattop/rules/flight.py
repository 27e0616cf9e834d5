"""Flight operations: spotting, launch, recovery and rearming (rules-notes §2; gaps [ours]).

A strike's aircraft come up from the hangar to the Ready box ``spot_minutes``
before launch (:func:`decide_spot`), take off at the launch time
(:func:`decide_launch`), fly at the speed of their slowest type, and after
the attack fly the same time back and land (:func:`decide_recovery`) — on
their own deck, or on another carrier of the task force, or in the sea.
Landed aircraft are back in the hangar ``rearm_minutes`` later
(:func:`decide_rearm`).  Every function reads the battle and returns an event.
"""

from __future__ import annotations

import math

from sim.contract.emit import stamp
from sim.rulesets.flattop.model.data import AIRCRAFT, CARRIER_KINDS
from sim.rulesets.flattop.model.events import Launched, Rearmed, Recovered, Spotted, StrikeCancelled
from sim.rulesets.flattop.rules.context import Battle

__all__ = ["decide_launch", "decide_rearm", "decide_recovery", "decide_spot", "requested"]


def requested(b: Battle, strike: str) -> dict[str, int]:
    """Air factors a strike asks for, by type: its escort and its attacks."""
    st = b.strikes[strike]
    want: dict[str, int] = {t: 0 for t in AIRCRAFT}
    want["fighter"] += st.escort
    for a in st.attacks:
        want[a.aircraft] += a.factors
    return want


def _grounded(b: Battle, strike: str, returned: dict[str, int]) -> StrikeCancelled:
    """The strike cancelled because its carrier is crippled or sunk, ``returned`` to the
    hangar; its cause is the attack that crippled or sank the carrier."""
    carrier = b.state.ships[b.strikes[strike].origin]
    return StrikeCancelled(
        **stamp(b, carrier.status_cause),
        strike=strike,
        reason=f"{carrier.name} is {carrier.status}",
        returned=returned,
    )


def decide_spot(b: Battle, strike: str) -> Spotted | StrikeCancelled:
    """Bring the strike's aircraft up to the Ready box, as many as the hangar holds."""
    st = b.strikes[strike]
    if not b.can_operate(st.origin):
        return _grounded(b, strike, returned={})
    want = requested(b, strike)
    hangar = b.deck(st.origin).hangar
    take = {t: min(want[t], hangar[t]) for t in AIRCRAFT}
    if not sum(take.values()):
        return StrikeCancelled(
            **stamp(b), strike=strike, reason="no aircraft in the hangar", returned={}
        )
    return Spotted(
        **stamp(b),
        strike=strike,
        deck=st.origin,
        requested={t: n for t, n in want.items() if n},
        aircraft={t: n for t, n in take.items() if n},
    )


def decide_launch(b: Battle, strike: str, cause: int) -> Launched | StrikeCancelled:
    """Launch what is left in the Ready box: escort first, then attacks in declared order."""
    st = b.strikes[strike]
    ready = dict(b.deck(st.origin).ready.get(strike, {}))
    if not b.can_operate(st.origin):
        sunk = b.state.ships[st.origin].status == "sunk"
        return _grounded(b, strike, returned={} if sunk else {t: n for t, n in ready.items() if n})
    escort = min(st.escort, ready.get("fighter", 0))
    ready["fighter"] = ready.get("fighter", 0) - escort
    attacks = []
    for a in st.attacks:
        n = min(a.factors, ready.get(a.aircraft, 0))
        ready[a.aircraft] -= n
        attacks.append(n)
    if not escort and not sum(attacks):
        return StrikeCancelled(
            **stamp(b, cause),
            strike=strike,
            reason="every aircraft in the Ready box was lost",
            returned={},
        )
    types = (["fighter"] if escort else []) + [
        a.aircraft for a, n in zip(st.attacks, attacks, strict=True) if n
    ]
    speed = min(b.options.speed(t) for t in types)
    hexes = b.distance(strike)
    minutes = math.ceil(hexes * 60 / speed)
    return Launched(
        **stamp(b, cause),
        strike=strike,
        deck=st.origin,
        target=st.target,
        escort=escort,
        attacks=attacks,
        distance=hexes,
        speed=speed,
        flight_minutes=minutes,
        arrives=b.now + minutes,
    )


def _landing_deck(b: Battle, origin: str) -> tuple[str | None, bool]:
    """Where a returning strike lands: (deck or None to ditch, diverted)."""
    if b.can_operate(origin):
        return origin, False
    ship = b.state.ships[origin]
    if not b.options.divert:
        return None, False
    for other in b.ships_of(ship.task_force):
        if other.id != origin and other.kind in CARRIER_KINDS and b.can_operate(other.id):
            return other.id, True
    return None, False


def decide_recovery(b: Battle, strike: str, cause: int) -> Recovered:
    """Land the strike's survivors on its deck, a diverted deck, or in the sea."""
    s, st = b.state.strikes[strike], b.strikes[strike]
    aircraft: dict[str, int] = {t: 0 for t in AIRCRAFT}
    aircraft["fighter"] += s.escort
    for a, n in zip(st.attacks, s.attacks, strict=True):
        aircraft[a.aircraft] += n
    deck, diverted = _landing_deck(b, st.origin)
    return Recovered(
        **stamp(b, cause),
        strike=strike,
        deck=deck,
        diverted=diverted,
        aircraft={t: n for t, n in aircraft.items() if n},
    )


def decide_rearm(
    b: Battle, strike: str, deck: str, aircraft: dict[str, int], cause: int
) -> Rearmed | None:
    """Move a recovered strike's aircraft still aboard from rearming to the hangar."""
    ship = b.state.ships.get(deck)
    if ship is not None and ship.status == "sunk":
        return None  # its aircraft went down with it
    rearming = b.deck(deck).rearming
    moved = {t: min(n, rearming[t]) for t, n in aircraft.items()}
    moved = {t: n for t, n in moved.items() if n}
    if not moved:
        return None
    return Rearmed(**stamp(b, cause), strike=strike, deck=deck, aircraft=moved)
