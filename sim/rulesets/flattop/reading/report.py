"""Reading a ``flattop`` battle: outcome, summary, state table and narrative."""

from __future__ import annotations

from engine.events import Event, TurnEnded
from sim.contract import Outcome, SideResult, ending_line
from sim.rulesets.flattop.model import events as ev
from sim.rulesets.flattop.model import tables
from sim.rulesets.flattop.model.data import AIRCRAFT
from sim.rulesets.flattop.model.scenario import FlattopScenario
from sim.rulesets.flattop.model.state import BattleState
from sim.rulesets.flattop.rules.context import clock
from sim.rulesets.trusted import trusted_ending, trusted_measure, trusted_side
from sim.text.grammar import count

__all__ = ["LOSS_WORDS", "narrate", "outcome", "render_state", "summary"]

_ABBREV = {"fighter": "F", "dive_bomber": "DB", "torpedo_bomber": "TB", "level_bomber": "LB"}


LOSS_WORDS = (
    ("air_factors_air_combat", "air factors lost in air combat"),
    ("air_factors_anti_aircraft", "air factors lost to anti-aircraft fire"),
    ("air_factors_aboard", "air factors lost aboard"),
    ("air_factors_ditched", "air factors ditched"),
)
"""The words a study shows for the loss kinds of each cause (``Ruleset.loss_words``);
``ships_sunk``, ``ships_crippled`` and ``air_factors`` are said by their keys."""


def outcome(sc: FlattopScenario, state: BattleState) -> Outcome:
    """Winner, reason, turns and each side's losses (ships sunk and crippled, air factors).

    Built trusted (:func:`sim.rulesets.trusted.trusted_ending`): every value is an
    int, text, a list of text or a dict of ints of the state.
    """
    sides: dict[str, SideResult] = {}
    for side in sc.sides:
        ships = [s for s in state.ships.values() if s.side == side.id]
        sunk = [s.name for s in ships if s.status == "sunk"]
        crippled = [s.name for s in ships if s.status == "crippled"]
        lost = state.sides[side.id].air_lost
        sides[side.id] = trusted_side(
            side.name,
            [
                trusted_measure("ships_sunk", len(sunk), "ships"),
                trusted_measure("ships_crippled", len(crippled), "ships"),
                trusted_measure("air_factors", sum(lost.values()), "air factors"),
                *(
                    trusted_measure(f"air_factors_{cause}", n, "air factors")
                    for cause, n in lost.items()
                ),
            ],
            {
                "sunk": sunk,
                "crippled": crippled,
                "air_factors_lost": dict(lost),
                "ships": len(ships),
                "points": state.points.get(side.id, 0),
            },
        )
    return trusted_ending(state, sides)


def _ships(n: int | float) -> str:
    return count(n, "ship")


def summary(outcome: Outcome) -> list[str]:
    """One line per side: ships sunk and crippled (named), air factors lost, points."""
    lines = []
    for side in outcome.sides.values():
        s, loss = side.details, {m.name: m.value for m in side.losses}
        sunk = f" ({', '.join(s['sunk'])})" if s["sunk"] else ""
        crippled = f" ({', '.join(s['crippled'])})" if s["crippled"] else ""
        lines.append(
            f"{side.name}: {_ships(loss['ships_sunk'])} sunk{sunk}, "
            f"{loss['ships_crippled']} crippled{crippled}, "
            f"{count(loss['air_factors'], 'air factor')} lost; {count(s['points'], 'point')}"
        )
    return lines


def _af(counts: dict[str, int]) -> str:
    return " ".join(f"{_ABBREV[t]}{counts[t]}" for t in AIRCRAFT if counts.get(t)) or "-"


def render_state(sc: FlattopScenario, state: BattleState) -> str:
    """Fixed-width tables of ships (with aircraft aboard), task forces and strikes."""
    rows = [f"{'ship':<22} {'side':<10} {'class':<14} {'hits':>6} {'status':<9} aboard"]
    for s in state.ships.values():
        deck = state.decks.get(s.id)
        aboard = ""
        if deck is not None:
            ready: dict[str, int] = {t: sum(c[t] for c in deck.ready.values()) for t in AIRCRAFT}
            aboard = f"hangar {_af(deck.hangar)}; ready {_af(ready)}; rearming {_af(deck.rearming)}"
        rows.append(
            f"{s.name[:22]:<22} {s.side[:10]:<10} {s.kind[:14]:<14} "
            f"{f'{s.hits}/{s.damage}':>6} {s.status:<9} {aboard}".rstrip()
        )
    rows.append("")
    rows.append(f"{'task force / base':<32} {'side':<10} aircraft")
    for tf in state.task_forces.values():
        rows.append(f"{tf.name[:32]:<32} {tf.side[:10]:<10} CAP F{tf.cap}")
    for d in state.decks.values():
        if not d.carrier:
            rows.append(f"{d.name[:32]:<32} {d.side[:10]:<10} hangar {_af(d.hangar)}")
    rows.append("")
    rows.append(f"{'strike':<32} {'side':<10} {'status':<10} aloft")
    for st in state.strikes.values():
        aloft = f"escort F{st.escort}, attacks {st.attacks}" if st.status == "airborne" else ""
        rows.append(f"{st.name[:32]:<32} {st.side[:10]:<10} {st.status:<10} {aloft}".rstrip())
    return "\n".join(rows)


def _mods(mods: dict[str, int]) -> str:
    """``crippled +2 small target -4``: each modifier in words, not by its key."""
    return "".join(f" {k.replace('_', ' ')} {v:+d}" for k, v in mods.items())


def _resolution(r: ev.Resolution, air_factors: int | None = None, *, aa: bool = False) -> str:
    """``table 7 (clouds -2) → 5, 14 AF [13-15] → 2.3: .3 rolled 2 → 1, n>1 rolled 8 → 1 = 2``.

    ``air_factors``: an attack's air factors, when each counts for more than one
    attacking factor (``attack_factor_scale``): ``9 AF × 2 = 18 factors [16-20]``.
    ``aa``: the factors are a task force's AA factor, not air factors: ``AA factor 24 [21-25]``.
    """
    head = f"table {tables.ROWS[r.basic_table]}{_mods(r.modifiers)}"  # 0 is the * row
    if r.hit_table is None:
        return f"{head} → below *: no attack"
    if r.modifiers:
        head += f" → {r.hit_table}"
    if air_factors and air_factors != r.factors:
        scale = r.factors // air_factors
        head += f", {air_factors} AF × {scale} = {r.factors} factors [{r.column}]"
    elif aa:
        head += f", AA factor {r.factors} [{r.column}]"
    else:
        head += f", {r.factors} AF [{r.column}]"
    if r.cell is None:
        return f"{head} → --: no effect"
    parts = []
    if r.fraction_roll is not None:
        parts.append(f".{r.f} rolled {r.fraction_roll} → {r.fraction_hits}")
    if r.integer_roll is not None:
        column = "1" if r.n == 1 else "n>1"
        parts.append(f"{column} rolled {r.integer_roll} → {r.integer_hits}")
    return f"{head} → {r.cell:.1f}: {', '.join(parts)} = {count(r.hits, 'hit')}"


def _losses(losses: list[int]) -> str:
    """AF lost by each attack, in declared order: ``2+1``."""
    return "+".join(str(n) for n in losses)


def _air_combat(state: BattleState, e: ev.AirCombat) -> str:
    who = "Escort" if e.firer == "escort" else "CAP"
    after = ""
    if e.attack_losses_after:
        after = f" before their attack and {_losses(e.attack_losses_after)} after it"
    lost = {
        "cap": f"{e.cap_lost} CAP AF lost",
        "escort": f"{e.escort_lost} escort AF lost",
        "bombers": f"bombers lose {_losses(e.attack_losses)}{after}",
        "strike": f"escort loses {e.escort_lost}, bombers {_losses(e.attack_losses)}{after}",
    }[e.target]
    target = {"cap": "the CAP", "escort": "the escort"}.get(e.target, f"the {e.target}")
    return (
        f"{state.strikes[e.strike].name}: {who} fires at {target}: {_resolution(e.result)}; {lost}"
    )


def _attacked(state: BattleState, e: ev.Attacked) -> str:
    ship = state.ships
    target = ship[e.ship].name
    if e.ship != e.declared:
        target += f" (instead of {ship[e.declared].name}, sunk)"
    doubled = ", doubled: Ready box full" if e.ready_box and e.hits_taken else ""
    aboard = sum(sum(c.values()) for c in e.lost_ready.values())
    aboard += sum(e.lost_rearming.values()) + sum(e.lost_hangar.values())
    lost = f"; {aboard} AF lost aboard" if aboard else ""
    return (
        f"{state.strikes[e.strike].name}: {e.aircraft.replace('_', ' ')}s "
        f"({e.weapon.replace('_', ' ')}) attack {target}: "
        f"{_resolution(e.result, state.strikes[e.strike].attacking(e.attack))}"
        f"{doubled} → {e.hits_after}/{ship[e.ship].damage} hits, {e.status_after}{lost}"
    )


def _recovered(state: BattleState, e: ev.Recovered) -> str:
    name = state.strikes[e.strike].name
    if not e.aircraft:
        return f"{name}: nothing comes back"
    if e.deck is None:
        return f"{name} finds no deck and ditches: {_af(e.aircraft)} lost"
    via = " (diverted)" if e.diverted else ""
    return f"{name} lands on {state.decks[e.deck].name}{via}: {_af(e.aircraft)}"


def _line(sc: FlattopScenario, state: BattleState, e: Event) -> str | None:
    match e:
        case ev.Spotted():
            name = state.strikes[e.strike].name
            return f"{name}: {_af(e.aircraft)} up to {state.decks[e.deck].name}'s Ready box"
        case ev.StrikeCancelled():
            return f"{state.strikes[e.strike].name} cancelled: {e.reason}"
        case ev.Launched():
            return (
                f"{state.strikes[e.strike].name} launches from {state.decks[e.deck].name}: "
                f"{f'escort F{e.escort}, ' if e.escort else ''}"
                f"attacks {'+'.join(map(str, e.attacks))} AF; "
                f"{count(e.distance, 'hex')} at {e.speed} an hour, over "
                f"{state.task_forces[e.target].name} at {clock(sc, e.arrives)}"
            )
        case ev.AirCombat():
            return _air_combat(state, e)
        case ev.CapRearming():
            return (
                f"{state.strikes[e.strike].name} meets no fighters: "
                f"{state.task_forces[e.task_force].name}'s CAP ({e.cap} AF) fought "
                f"{state.strikes[e.fought].name} this hour and is rearming"
            )
        case ev.AntiAircraft():
            spoiled = f", {_losses(e.attack_spoiled)} turn away" if e.attack_spoiled else ""
            return (
                f"{state.strikes[e.strike].name}: AA of "
                f"{state.task_forces[e.task_force].name}: {_resolution(e.result, aa=True)}; "
                f"bombers lose {_losses(e.attack_losses)}{spoiled}"
            )
        case ev.Attacked():
            return _attacked(state, e)
        case ev.TargetSunk():
            return (
                f"{state.strikes[e.strike].name}: {e.factors} AF of "
                f"{e.aircraft.replace('_', ' ')}s find {state.ships[e.declared].name} sunk "
                "and make no attack"
            )
        case ev.AfterAttackKills():
            return (
                f"{state.strikes[e.strike].name}: {state.task_forces[e.task_force].name}'s CAP "
                f"shoots down {_losses(e.attack_losses)} AF of bombers after their attack"
            )
        case ev.Recovered():
            return _recovered(state, e)
        case ev.Rearmed():
            return f"{state.decks[e.deck].name} rearms {_af(e.aircraft)}"
        case ev.BattleEnded():
            return ending_line(e, state.sides)
    return None


def narrate(sc: FlattopScenario, state: BattleState, e: Event) -> str | None:
    """One line of narrative for an event, read against the state before it."""
    if isinstance(e, TurnEnded):
        return None
    line = _line(sc, state, e)
    return f"Turn {e.turn}, {clock(sc, e.time)} — {line}" if line is not None else None
