"""Invariants of a flattop log, checked event by event by ``battlesim verify``.

:func:`audit` receives each event with the state *before* it and returns a
message when the event could not have come from the rules in that state:
a resolution whose table, cell, rolls or hits do not follow from its own
fields and the seed's tables; losses larger than what was there; damage that
does not add up; aircraft lost aboard other than those the hits and status lose;
aircraft spotted or launched that were not aboard.
:func:`audit_change` is the part of it that holds whatever the dice: an attack on a
ship of the task force its strike is over, the damage its hits do and the aircraft
they cost her aboard, and a winner the points give; ``fork`` holds a changed event to it.
"""

from __future__ import annotations

import json

from engine.events import Event
from sim.rulesets.flattop.model import tables
from sim.rulesets.flattop.model.events import (
    AfterAttackKills,
    AirCombat,
    AntiAircraft,
    Attacked,
    BattleEnded,
    CapRearming,
    Launched,
    Rearmed,
    Resolution,
    Spotted,
    TargetSunk,
)
from sim.rulesets.flattop.model.scenario import FlattopScenario
from sim.rulesets.flattop.model.state import BattleState
from sim.rulesets.flattop.rules.combat import (
    Lost,
    aa_split,
    cap_split,
    has_ready_box,
    lost_aboard,
    ship_status,
)
from sim.rulesets.flattop.rules.resolve import modified_table
from sim.rulesets.flattop.rules.victory import points
from sim.text.grammar import agree, count

__all__ = ["audit", "audit_change", "audit_resolution"]


def audit_resolution(r: Resolution, below_star: str) -> str | None:
    """The resolution's table, column, cell, rolls and hits follow from its inputs (seed 000)."""
    row = modified_table(
        r.basic_table, r.modifiers, "star" if below_star == "star" else "no_attack"
    )
    if r.hit_table != (tables.ROWS[row] if row is not None else None):
        return f"hit table {r.hit_table} does not follow from {r.basic_table} and {r.modifiers}"
    col = tables.column_index(r.factors)
    if r.column != tables.COLUMN_LABELS[col]:
        return agree(count(r.factors, "factor"), f"is not column {r.column}")
    tenths = tables.MATRIX[row][col] if row is not None else None
    if r.cell != (tenths / 10 if tenths is not None else None):
        return f"cell {r.cell} is not the matrix's"
    rolls = [x for x in (r.fraction_roll, r.integer_roll) if x is not None]
    if rolls != [int(10 * d.u) for d in r.draws]:
        return f"rolls {rolls} do not come from the draws"
    if tenths is None:
        return None if r.hits == 0 and not rolls else "no attack, yet dice or hits"
    if (r.n, r.f) != tables.split(tenths) or (r.f > 0) != (r.fraction_roll is not None):
        return f"cell {r.cell} splits otherwise than n={r.n}, f={r.f}"
    if (r.n > 0) != (r.integer_roll is not None):
        return "the integer die is rolled exactly when n >= 1"
    hits = tables.crt_hits(r.n, r.f, r.fraction_roll, r.integer_roll)
    if hits != (r.fraction_hits, r.integer_hits) or r.hits != sum(hits):
        return f"hits {r.fraction_hits} + {r.integer_hits} = {r.hits} are not the CRT's {hits}"
    return None


def _within(lost: list[int], had: list[int], what: str) -> str | None:
    """What is wrong with ``lost`` as one loss per attack of ``had``, each 0 to its own:
    too few or too many, a loss below 0 (which exceeds nothing) or one above its attack's."""
    if len(lost) != len(had):
        return f"{what} losses {lost} are not one for each of the {count(len(had), 'attack')} {had}"
    if any(x < 0 for x in lost):
        return f"{what} losses {lost} have a loss below 0"
    if any(x > h for x, h in zip(lost, had, strict=True)):
        return f"{what} losses {lost} exceed {had}"
    return None


def _air(sc: FlattopScenario, state: BattleState, e: AirCombat | AntiAircraft) -> str | None:
    strike = state.strikes[e.strike]
    if strike.status != "airborne":
        return f"{e.strike} fights while {strike.status}"
    problem = _within(e.attack_losses, strike.attacks, "bomber")
    if problem:
        return problem
    if isinstance(e, AntiAircraft):
        if sum(e.aa.values()) != e.result.factors:
            return f"AA factors {e.aa} do not add up to {e.result.factors}"
        problem = _dive_bombers(sc, strike.attacks, e)
        if problem:
            return problem
        return _spoiled(sc, strike.attacks, e)
    if e.attack_losses and sum(e.attack_losses) > e.result.hits:
        return "more bombers lost than hits"
    problem = _after(sc, strike.attacks, e)
    if problem:
        return problem
    tf = state.task_forces[e.task_force]
    cap = tf.cap
    once = sc.options.cap_engagement == "once_per_turn"
    if once and tf.fought_turn == e.turn and tf.fought_strike != e.strike:
        return f"{tf.id}'s CAP fights {e.strike} after {tf.fought_strike} in turn {e.turn}"
    if not 0 <= e.cap_lost <= min(cap, e.result.hits):
        return f"{e.cap_lost} CAP lost of {cap} with {count(e.result.hits, 'hit')}"
    if not 0 <= e.escort_lost <= min(strike.escort, e.result.hits):
        return f"{count(e.escort_lost, 'escort')} lost of {strike.escort}"
    return None


def _dive_bombers(sc: FlattopScenario, attacks: list[int], e: AntiAircraft) -> str | None:
    """The AA's ``dive_bombers`` modifier is there exactly when ``modifier_aa_dive_bombers``
    is set and every bomber AF left is a dive bomber's, at that value."""
    value = sc.options.modifier_aa_dive_bombers
    specs = next(st for side in sc.sides for st in side.strikes if st.id == e.strike).attacks
    kinds = {spec.aircraft for spec, af in zip(specs, attacks, strict=True) if af}
    want = value if value and kinds == {"dive_bomber"} else None
    if e.result.modifiers.get("dive_bombers") != want:
        return f"AA modifiers {e.result.modifiers}: dive_bombers should be {want}"
    return None


def _spoiled(sc: FlattopScenario, attacks: list[int], e: AntiAircraft) -> str | None:
    """The hits split into kills and spoiled attacks as ``aa_spoiled_per_kill`` says."""
    kills, spoils = aa_split(e.result.hits, sc.options.aa_spoiled_per_kill)
    left = [a - x for a, x in zip(attacks, e.attack_losses, strict=True)]
    if sum(e.attack_losses) != min(kills, sum(attacks)):
        shot = count(sum(e.attack_losses), "bomber")
        return f"{shot} shot down, not the {kills} of {count(e.result.hits, 'hit')}"
    spoiled = e.attack_spoiled or [0] * len(attacks)
    problem = _within(spoiled, left, "spoiled")
    if problem or sum(spoiled) != min(spoils, sum(left)):
        hits = count(e.result.hits, "hit")
        return problem or f"{count(sum(spoiled), 'attack')} spoiled, not {spoils} of {hits}"
    return None


def _after(sc: FlattopScenario, attacks: list[int], e: AirCombat) -> str | None:
    """The CAP's hits on bombers split into kills before and after the attack as
    ``cap_kills_after_attack`` says (:func:`~sim.rulesets.flattop.rules.combat.cap_split`),
    as :func:`_spoiled` checks the AA's; only the CAP's fire at the bombers has any after."""
    if e.firer != "cap" or e.target not in ("bombers", "strike"):
        return "after-attack kills by a fire not at the bombers" if e.attack_losses_after else None
    share = e.result.hits - (e.escort_lost if e.target == "strike" else 0)
    before, after = cap_split(share, sc.options.cap_kills_after_attack)
    if sum(e.attack_losses) != min(before, sum(attacks)):
        shot = count(sum(e.attack_losses), "bomber")
        return f"{shot} shot down, not the {before} of {count(share, 'hit')}"
    left = [a - x for a, x in zip(attacks, e.attack_losses, strict=True)]
    later = e.attack_losses_after or [0] * len(attacks)
    problem = _within(later, left, "after-attack")
    if problem or sum(later) != min(after, sum(left)):
        kills = count(sum(later), "after-attack kill")
        return problem or f"{kills}, not the {after} of {count(share, 'hit')}"
    return None


def _after_attack(state: BattleState, e: AfterAttackKills) -> str | None:
    """The after-attack kills are the air combat's, each at most what its attack has left."""
    strike = state.strikes[e.strike]
    if not strike.after:
        return f"after-attack kills of {e.strike}, whose bombers the CAP did not hit for any"
    if e.task_force != strike.target:
        return (
            f"after-attack kills of {e.strike} by {e.task_force}'s CAP, not by "
            f"{strike.target}'s, whose CAP hit it"
        )
    want = [min(x, a) for x, a in zip(strike.after, strike.attacks, strict=True)]
    if not any(want):
        return (
            f"after-attack kills {e.attack_losses} of {e.strike}, whose AF the CAP hit for after "
            f"the attack (after {strike.after}) the AA has shot down: none is left to shoot down"
        )
    if strike.status != "airborne" or e.attack_losses != want:
        return f"after-attack kills {e.attack_losses}, not {want} of {strike.attacks} left"
    if e.cause != strike.after_cause:
        return f"after-attack kills caused by {e.cause}, not the air combat {strike.after_cause}"
    return None


def _rearming(sc: FlattopScenario, state: BattleState, e: CapRearming) -> str | None:
    """A raid meets no CAP only when, once a turn, the CAP has fought another raid this turn."""
    tf = state.task_forces[e.task_force]
    once = sc.options.cap_engagement == "once_per_turn"
    if not once or tf.fought_turn != e.turn or tf.fought_strike != e.fought or tf.cap != e.cap:
        return f"{e.task_force}'s CAP did not fight {e.fought} this turn with {e.cap} AF"
    return None


def _attacked(sc: FlattopScenario, state: BattleState, e: Attacked) -> str | None:
    strike = state.strikes[e.strike]
    o = sc.options
    if (problem := _on_target(state, e)) is not None:
        return problem
    factors = strike.attacking(e.attack) * o.attack_factor_scale
    if e.result.factors != factors:
        has = count(factors, "attacking factor")
        return f"attack {e.attack} has {has}, not {e.result.factors}"
    ready = has_ready_box(state.decks.get(e.ship))
    doubled = 2 if ready and o.ready_box_doubling else 1
    if e.ready_box != ready or e.hits_taken != e.result.hits * doubled:
        return f"hits taken {e.hits_taken} do not follow from {e.result.hits} and the Ready box"
    return _damage(sc, state, e) or _aboard(sc, state, e)


def _on_target(state: BattleState, e: Attacked) -> str | None:
    """The ship attacked, and the one declared, are of the task force the strike is over,
    and the ship is as logged before the attack (and not yet sunk)."""
    ship, strike = state.ships[e.ship], state.strikes[e.strike]
    for role, sid in (("declared", e.declared), ("attacked", e.ship)):
        tf = state.ships[sid].task_force
        if tf != strike.target:
            return f"{e.strike} is over {strike.target}, but {role} {sid} of {tf}"
    if (e.hits_before, e.status_before) != (ship.hits, ship.status) or ship.status == "sunk":
        return f"{e.ship} was {ship.status} with {count(ship.hits, 'hit')}, not as logged"
    return None


def _damage(sc: FlattopScenario, state: BattleState, e: Attacked) -> str | None:
    """The hits after are the hits before and those taken; the status is what they make."""
    ship = state.ships[e.ship]
    if e.hits_after != ship.hits + e.hits_taken:
        return (
            f"hits_after must be {ship.hits + e.hits_taken} ({e.ship}'s {ship.hits} hits before "
            f"+ hits_taken {e.hits_taken}), not {e.hits_after}"
        )
    status = ship_status(e.hits_after, ship.damage, sc.options.cripple_fraction)
    if e.status_after != status:
        return (
            f"{e.hits_after}/{ship.damage} hits leave {e.ship} {status}: status_after must be "
            f"{status}, not {e.status_after}"
        )
    return None


def _aboard(sc: FlattopScenario, state: BattleState, e: Attacked) -> str | None:
    """The aircraft lost aboard the ship attacked were aboard, and are those its hits and
    status lose (:func:`~sim.rulesets.flattop.rules.combat.lost_aboard`: no die decides
    them, so a fork that sinks a carrier, or saves one, loses what the rules would)."""
    sid = e.ship
    lost = [*e.lost_ready.values(), e.lost_rearming, e.lost_hangar]
    if any(n < 0 for box in lost for n in box.values()):
        return "negative losses aboard"
    deck = state.decks.get(sid)
    if deck is None:
        return None if not any(lost) else f"{sid} has no aircraft to lose"
    for strike, box in e.lost_ready.items():
        if any(n > deck.ready.get(strike, {}).get(t, 0) for t, n in box.items()):
            return f"more lost from {strike}'s Ready box than was there"
    if any(n > deck.rearming[t] for t, n in e.lost_rearming.items()) or any(
        n > deck.hangar[t] for t, n in e.lost_hangar.items()
    ):
        return "more lost aboard than was aboard"
    return _as_the_hits_make(sc, state, e)


def _nonzero(counts: dict[str, int]) -> dict[str, int]:
    return {t: n for t, n in counts.items() if n}


def _logged(e: Attacked) -> Lost:
    """The attack's losses aboard, without the types (and Ready-box strikes) losing none
    (a fork may set a loss to 0; the rules leave it out)."""
    ready = {sid: _nonzero(c) for sid, c in e.lost_ready.items()}
    ready = {sid: c for sid, c in ready.items() if c}
    return ready, _nonzero(e.lost_rearming), _nonzero(e.lost_hangar)


def _lost_text(lost: Lost) -> tuple[int, str]:
    """Air factors lost aboard, and the event's fields that hold them (``none``)."""
    ready, rearming, hangar = lost
    total = sum(n for box in (*ready.values(), rearming, hangar) for n in box.values())
    fields = {"lost_ready": ready, "lost_rearming": rearming, "lost_hangar": hangar}
    said = ", ".join(f"{name} {json.dumps(v)}" for name, v in fields.items() if v)
    return total, said or "none"


def _as_the_hits_make(sc: FlattopScenario, state: BattleState, e: Attacked) -> str | None:
    """The losses aboard are those the attack's hits and status make (zeros aside)."""
    deck, sunk = state.decks.get(e.ship), e.status_after == "sunk"
    want = lost_aboard(sc.options, deck, e.result.hits, e.hits_taken, sunk)
    given = _logged(e)
    if given == want:
        return None
    (w, want_said), (g, given_said) = _lost_text(want), _lost_text(given)
    not_given = f"not {g} ({given_said})"
    if deck is not None and sunk:
        return f"{e.ship} sinks: every one of the {w} AF aboard is lost ({want_said}), " + not_given
    if deck is not None and has_ready_box(deck):
        n, basis = (
            (e.hits_taken, "taken")
            if sc.options.ready_box_losses == "hits_taken"
            else (e.result.hits, "rolled")
        )
        lose = "loses" if n == 1 else "lose"
        return (
            f"{e.ship}'s Ready box is hit: {count(n, 'hit')} {basis} {lose} {w} of the "
            f"{deck.aboard()} AF aboard ({want_said}), {not_given}"
        )
    return (
        f"{e.ship} is {e.status_after} with nothing in her Ready box: no AF is lost aboard, "
        + not_given
    )


def audit_change(sc: FlattopScenario, state: BattleState, event: Event) -> str | None:
    """What ``event`` breaks whatever its dice, else None: an attack on a ship of another
    task force than its strike's target, or on one not as logged, damage that does not
    add up to the ship's hits and status, aircraft lost aboard other than those the hits
    and status lose (all aboard a carrier that sinks, none from one that does not with
    her Ready box empty); air factors lost in the air that were not there; points or a
    winner the battle does not give."""
    if isinstance(event, Attacked):
        return _on_target(state, event) or _damage(sc, state, event) or _aboard(sc, state, event)
    if isinstance(event, BattleEnded):
        return _verdict(sc, state, event)
    if isinstance(event, AirCombat | AntiAircraft):
        return _losses_there(state, event)
    return None


def _losses_there(state: BattleState, e: AirCombat | AntiAircraft) -> str | None:
    """No air factor lost that was not there, and none lost below zero (a CAP of 2 losing 5,
    an escort losing -1), whatever the hits."""
    strike = state.strikes[e.strike]
    if (problem := _within(e.attack_losses, strike.attacks, "bomber")) is not None:
        return problem
    if isinstance(e, AirCombat):
        cap = state.task_forces[e.task_force].cap
        if not 0 <= e.cap_lost <= cap:
            return f"{e.cap_lost} CAP air factors lost of the {cap} {e.task_force} had"
        if not 0 <= e.escort_lost <= strike.escort:
            return f"{e.escort_lost} escort air factors lost of the {strike.escort} {e.strike} had"
    return None


def _tally(score: dict[str, int]) -> str:
    return ", ".join(f"{side} {n}" for side, n in score.items())


def _verdict(sc: FlattopScenario, state: BattleState, e: BattleEnded) -> str | None:
    """The points are the battle's, and the winner the side ahead of the other by at least
    ``victory_margin`` (none, a draw, when neither is)."""
    if e.winner is not None and e.winner not in state.sides:
        return f"the winner {e.winner} is no side of the battle"
    score = points(state, sc.options.points_per_air_factor)
    if e.points != score:
        return f"the points are {_tally(score)}, not {_tally(e.points)}"
    (a, pa), (c, pc) = score.items()
    margin = sc.options.victory_margin
    expected = a if pa - pc >= margin else c if pc - pa >= margin else None
    if e.winner != expected:
        named, given = e.winner or "a draw", expected or "a draw"
        return f"{named} is named the winner, but the battle gives {given}"
    return None


def _target_sunk(sc: FlattopScenario, state: BattleState, e: TargetSunk) -> str | None:
    """The declared target is sunk, the attack had its factors, and none other was taken."""
    strike = state.strikes[e.strike]
    if not sc.options.log_target_sunk:
        return "flattop.target_sunk is logged only with log_target_sunk"
    if state.ships[e.declared].status != "sunk":
        return f"{e.declared} is {state.ships[e.declared].status}, not sunk"
    factors = strike.attacking(e.attack)
    if strike.status != "airborne" or e.factors != factors or not e.factors:
        return f"attack {e.attack} has {count(factors, 'air factor')} attacking, not {e.factors}"
    tf = state.ships[e.declared].task_force
    afloat = [s.id for s in state.ships.values() if s.task_force == tf and s.status != "sunk"]
    if sc.options.retarget_sunk and afloat:
        return f"with retarget_sunk, attack {e.attack} goes for {afloat[0]}"
    return None


def _deck(state: BattleState, e: Spotted | Launched | Rearmed) -> str | None:
    """Aircraft spotted, launched or rearmed were where they are taken from."""
    match e:
        case Spotted():
            hangar = state.decks[e.deck].hangar
            if any(n < 0 or n > hangar[t] for t, n in e.aircraft.items()):
                return f"spotted {e.aircraft} from a hangar of {hangar}"
        case Launched():
            ready = state.decks[e.deck].ready.get(e.strike)
            if ready is None:
                return f"{e.strike} launches without being spotted"
            if e.escort > ready["fighter"] or sum(e.attacks) + e.escort > sum(ready.values()):
                return f"{e.strike} launches more than its Ready box holds"
        case Rearmed():
            rearming = state.decks[e.deck].rearming
            if any(n > rearming[t] for t, n in e.aircraft.items()):
                return f"rearmed {e.aircraft} of {rearming}"
    return None


def audit(sc: FlattopScenario, state: BattleState, e: Event) -> str | None:
    """A message when ``e`` breaks an invariant against the ``state`` before it, else None."""
    result = getattr(e, "result", None)
    if isinstance(result, Resolution):
        problem = audit_resolution(result, sc.options.below_star)
        if problem:
            return problem
    match e:
        case Spotted() | Launched() | Rearmed():
            return _deck(state, e)
        case AirCombat() | AntiAircraft():
            return _air(sc, state, e)
        case CapRearming():
            return _rearming(sc, state, e)
        case Attacked():
            return _attacked(sc, state, e)
        case TargetSunk():
            return _target_sunk(sc, state, e)
        case AfterAttackKills():
            return _after_attack(state, e)
        case BattleEnded():
            return _verdict(sc, state, e)
    return None
