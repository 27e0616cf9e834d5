"""Reading a ``musket`` battle: outcome summary, state table and narrative."""

from __future__ import annotations

import re

from engine.events import Event, TurnEnded
from sim.contract import Outcome, SideResult, ending_line
from sim.rulesets.musket.model import events as ev
from sim.rulesets.musket.model.scenario import MusketScenario
from sim.rulesets.musket.model.state import BattleState
from sim.rulesets.musket.rules.morale import failure_state
from sim.rulesets.musket.rules.victory import disrupted_and_out, spent_and_out
from sim.rulesets.trusted import trusted_ending, trusted_measure, trusted_side
from sim.text.grammar import agree, count

__all__ = ["clock", "narrate", "outcome", "render_state", "summary"]


def clock(sc: MusketScenario, minutes: float) -> str:
    """Clock time ``HH:MM`` of a simulation time, from the scenario's start."""
    h, m = (int(x) for x in sc.turns.start.split(":"))
    total = h * 60 + m + int(minutes)
    return f"{total // 60 % 24:02d}:{total % 60:02d}"


def outcome(sc: MusketScenario, state: BattleState) -> Outcome:
    """Winner, reason, turns and each side's losses (men and guns).

    Built trusted (:func:`sim.rulesets.trusted.trusted_ending`): every value is an
    int, a bool or text of the state.
    """
    sides: dict[str, SideResult] = {}
    for side in sc.sides:
        units = [u for u in state.units.values() if u.side == side.id]
        men = sum(u.men_lost for u in units)
        guns = sum(u.guns_lost for u in units)
        sides[side.id] = trusted_side(
            side.name,
            [trusted_measure("men", men, "men"), trusted_measure("guns", guns, "guns")],
            {
                "broken": state.sides[side.id].broken,
                "men_lost": men,
                "guns_lost": guns,
                "units": len(units),
                "routed": sum(1 for u in units if u.morale == "routed"),
                "eliminated": sum(1 for u in units if u.morale == "eliminated"),
                "objective_points": state.objective_points.get(side.id, 0),
            },
        )
    return trusted_ending(state, sides)


def summary(outcome: Outcome) -> list[str]:
    """One line per side: losses, routed and eliminated units, broken; counts of a thousand
    or more with thousands separators (``Union: 1,237 men and 0 guns lost``), as a study's
    summary and the narrative's values have them."""
    lines = []
    for side in outcome.sides.values():
        s = side.details
        lines.append(
            f"{side.name}: {count(s['men_lost'], 'man', 'men', spec=',')} and "
            f"{count(s['guns_lost'], 'gun', spec=',')} lost; "
            f"{s['routed']:,} routed, {s['eliminated']:,} eliminated of "
            f"{count(s['units'], 'unit', spec=',')}"
            f"{' — broken' if s['broken'] else ''}"
        )
    return lines


def render_state(sc: MusketScenario, state: BattleState) -> str:
    """A fixed-width table of every unit's state."""
    rows = [f"{'unit':<28} {'side':<12} {'hex':>7} {'strength':>11} {'fatigue':>8} morale"]
    for u in state.units.values():
        hexs = f"{u.hex[0]},{u.hex[1]}" if u.hex else "-"
        unit = "guns" if u.kind == "artillery" else "men"
        strength = f"{u.strength}/{u.initial} {unit}"
        rows.append(
            f"{u.name[:28]:<28} {u.side[:12]:<12} {hexs:>7} {strength:>11} "
            f"{u.fatigue:>8} {u.morale}"
        )
    return "\n".join(rows)


def _men_or_guns(n: int, artillery: bool) -> str:
    """``n`` counted in guns for a battery, in men otherwise: "1 gun", "30 men"."""
    return count(n, "gun") if artillery else count(n, "man", "men")


def _name(state: BattleState, uid: str) -> str:
    return state.units[uid].name


def _mods(mods: dict[str, float] | dict[str, int]) -> str:
    return ", ".join(f"{k.replace('_', ' ')} {v:+g}" for k, v in mods.items()) or "none"


def _number(x: float) -> str:
    """``x`` as the event holds it, to three decimals at most: 233.5 is "233.5", not a
    rounded "234" (a reader checking the line by hand needs the value the rules used)."""
    if float(x).is_integer():
        return f"{x:,.0f}"
    return f"{x:,.3f}".rstrip("0").rstrip(".")


def _value(e: ev.Fired) -> str:
    """The combat value V, with the factors that made it from the base value when any did
    (``value 397 × 0.5 disrupted × 0.5 column fire = 99.25``)."""
    if not e.factors:
        return f"value {_number(e.result.v)}"
    factors = " ".join(f"× {f:g} {name.replace('_', ' ')}" for name, f in e.factors.items())
    return f"value {_number(e.base_value)} {factors} = {_number(e.result.v)}"


def _result(e: ev.Fired, target_kind: str) -> str:
    c = e.result
    loss = count(c.casualties, "casualty")
    if target_kind == "artillery":
        loss += f" ({count(c.guns_lost, 'gun')} lost)"
    drew = f"drew {c.value:.2f}"
    return (
        f"{_value(e)}, modifier {c.modifier:+g}% ({_mods(c.modifiers)}) → "
        f"E {_number(c.effective)}, range {c.low:.2f}–{c.high:.2f}, {drew} → {loss}, "
        f"+{c.fatigue_added} fatigue; morale check p = {c.morale_check_p:.2f}: "
        f"{_required(c)}"
    )


_WITHOUT_THE_DRAW = {"max_fatigue": "at maximum fatigue", "heavy_losses": "heavy losses"}
_REASON_WORDS = {"max_fatigue": "maximum fatigue", "heavy_losses": "heavy losses"}
"""A morale check's reason in the narrative's words, as the fire line says it."""
"""Why a check is required when the loss draw did not require it (docs/rules/musket.md)."""


def _required(c: ev.Casualties) -> str:
    """Whether the loss requires a morale check, and why when the draw p is not the reason
    (the draw may have missed p: a reader checking by hand would say "not required")."""
    if not c.morale_check:
        return "not required"
    why = _WITHOUT_THE_DRAW.get(c.morale_check_reason or "")
    return f"required ({why})" if why else "required"


def _stand(defender: str, test: ev.StandTest | None) -> str:
    """The defender's stand test before a cavalry charge (option ``cavalry_stand_test``),
    when it took one: "; the 15th Line's nerve fails before the charge (rolled 6 against
    4): routed", or holds: "stands"."""
    if test is None:
        return ""
    whose = f"{defender}'" if defender.endswith("s") else f"{defender}'s"
    how = "holds before the charge" if test.passed else "fails before the charge"
    return (
        f"; {whose} nerve {how} (rolled {test.roll} against {test.morale_value}): "
        f"{'stands' if test.passed else 'routed'}"
    )


def _melee(sc: MusketScenario, state: BattleState, e: ev.Meleed) -> str:
    """A charge: both losses, the winner, where the loser retreats and the winner advances."""
    a, d = _name(state, e.unit), _name(state, e.target)
    loser_id = e.target if e.winner == e.unit else e.unit
    loser = d if e.winner == e.unit else a
    artillery = state.units[loser_id].kind == "artillery"
    if e.loser_state == "eliminated" and _captured(sc, e, artillery):
        fate = agree(loser, "is captured")
    elif e.loser_state == "eliminated":
        fate = agree(loser, "is eliminated")
    elif e.loser_retreats_to is not None:
        to = e.loser_retreats_to
        fate = agree(loser, f"is {e.loser_state}", f"retreats to {to[0]},{to[1]}", joiner=" and ")
    else:
        fate = agree(loser, f"is {e.loser_state} with nowhere to retreat")
    advance = (
        f"; {agree(_name(state, e.winner), 'advances')} to "
        f"{e.winner_advances_to[0]},{e.winner_advances_to[1]}"
        if e.winner_advances_to is not None
        else ""
    )
    if e.pursuit_losses:
        lost = _men_or_guns(e.pursuit_losses, artillery)
        fate = f"{fate}; the cavalry's pursuit cuts down or takes {lost} more"
    if e.prisoners:
        fate = f"{fate}; {_men_or_guns(e.prisoners, artillery)} taken prisoner"
    flank = f" in the {e.flank}" if e.flank not in (None, "front") else ""
    odds = (
        f" (odds {e.odds.ratio:.2f}, attacker's chance {e.odds.p_attacker:.2f})"
        if e.odds is not None
        else ""
    )
    return (
        f"{agree(a, 'charges')} {d}{flank}{_stand(d, e.stand_test)}"
        f"{': ' if e.stand_test is None else '; '}"
        f"attacker loses {_melee_loss(state, e.unit, e.attacker_losses)}, "
        f"defender loses {_melee_loss(state, e.target, e.defender_losses)}; "
        f"{agree(_name(state, e.winner), 'wins')}{odds}, {fate}{advance}"
    )


def _captured(sc: MusketScenario, e: ev.Meleed, artillery: bool) -> bool:
    """Whether the melee's eliminated loser was a battery taken, guns and all: with option
    ``guns_captured`` a battery that loses a melee is overrun, and no pursuit or prisoners
    follow (``rules/melee.py:decide_melee``); without it, a battery eliminated in a melee lost
    its last guns to a pursuit or as prisoners, which its line says."""
    return artillery and sc.options.guns_captured and not e.pursuit_losses and not e.prisoners


def _melee_loss(state: BattleState, uid: str, c: ev.Casualties) -> str:
    """A side's loss in a melee: its casualties, and for a battery the guns they cost, as a
    volley's line says them (``66 (3 guns lost)``): a battery counts in guns, and "loses 66"
    alone read as 66 of its 6 guns."""
    if state.units[uid].kind != "artillery":
        return f"{c.casualties}"
    return f"{c.casualties} ({count(c.guns_lost, 'gun')} lost)"


_UNITS_OUT = re.compile(r"of its units routed or eliminated( \(breaks at [^)]*\))?")
"""The break's units share in its recorded words (rules/victory.py:decide_breaks)."""


def _broke(sc: MusketScenario, state: BattleState, e: ev.SideBroken) -> str:
    """The break's reason as shown: the recorded words, except that when spent units counted
    out too (option ``spent_counts_out``; disrupted ones with ``disrupted_counts_out``) the
    units share, which every replay's bytes word "routed or eliminated" for all of them, is
    said as what was counted: "50% of its units out (breaks at 50%) — of 8 units, 0 routed,
    1 eliminated and 3 spent with 20% or more of their strength lost"."""
    units = [u for u in state.units.values() if u.side == e.side]
    spent = sum(1 for u in units if spent_and_out(sc.options, u))
    shaken = sum(1 for u in units if disrupted_and_out(sc.options, u))  # disrupted_counts_out
    share = _UNITS_OUT.search(e.reason)
    if not (spent or shaken) or share is None:
        return e.reason
    routed = sum(1 for u in units if u.morale == "routed")
    gone = sum(1 for u in units if u.morale == "eliminated")
    limit = sc.options.spent_out_loss
    limit = sc.options.rout_loss if limit is None else limit
    short = f"{spent} spent" if not shaken else f"{spent} spent and {shaken} disrupted"
    last = f"{gone} eliminated and" if not shaken else f"{gone} eliminated,"
    counted = (
        f"of its units out{share.group(1) or ''} — of {count(len(units), 'unit')}, "
        f"{routed} routed, {last} {short} with {limit:.0%} or more of "
        f"{'its' if spent + shaken == 1 else 'their'} strength lost"
    )
    return e.reason[: share.start()] + counted + e.reason[share.end() :]


def _heavy_rout(sc: MusketScenario, state: BattleState, e: ev.MoraleTested) -> str:
    """Why a failed check routed a unit that the phase's rule would only have disrupted
    (a failure in defensive fire): it had lost ``rout_loss`` of its strength (rules version
    3, ours; ``rules/morale.py:failure_state``). Empty when the phase's rule routs it."""
    limit = sc.options.rout_loss
    if e.passed or e.reason == "charge" or e.after != "routed" or e.before == "routed":
        return ""
    if limit is None or failure_state(e.before, e.phase) == "routed":
        return ""
    unit = state.units[e.unit]
    lost = unit.initial - unit.strength
    what = "guns" if unit.kind == "artillery" else "men"
    share = lost / unit.initial if unit.initial > 0 else 0.0
    return (
        f" (it has lost {lost:,} of its {unit.initial:,} {what}, {share:.0%}: "
        f"from {limit:.0%} a failed check routs in any phase, not only disrupts)"
    )


def _against(roll: int, value: int, verb: str, verbs: str) -> str:
    """A d6 roll against the morale value it passes at or under (docs/rules/musket.md, *Morale
    checks*): "rolled 5, passes at or under 4"; below 1 no roll passes ("rolled 5; cannot pass
    (needs 0 or less)"), at 6 or more every roll does ("rolled 6; always passes (at or under
    7)"). ``verb`` and ``verbs`` are "pass" and "passes", or "rally" and "rallies"."""
    if value < 1:
        return f"rolled {roll}; cannot {verb} (needs {value} or less)"
    if value >= 6:  # a d6's highest roll
        return f"rolled {roll}; always {verbs} (at or under {value})"
    return f"rolled {roll}, {verbs} at or under {value}"


def _verdict(sc: MusketScenario, state: BattleState, e: ev.MoraleTested) -> str:
    """What a morale check did, in words."""
    verdict: str = "passes" if e.passed else e.after + _heavy_rout(sc, state, e)
    if e.passed and e.after == "routed":  # a pass does not rally a routed unit
        verdict = "passes, still routed"
    if e.reason == "charge" and not e.passed:
        verdict = "will not close" if e.after == e.before else f"is thrown back, {e.after}"
    if e.prisoners:
        guns = state.units[e.unit].kind == "artillery"
        verdict = f"{verdict}, {_men_or_guns(e.prisoners, guns)} taken prisoner"
    return verdict


def narrate(sc: MusketScenario, state: BattleState, e: Event) -> str | None:
    """One line of narrative for an event, read against the state before it."""
    at = f"Turn {e.turn}, {clock(sc, e.time)} — "
    match e:
        case ev.Moved():
            how = {
                "rout": ("routs",),
                "break_off": ("breaks off", "falls back"),
                "fall_back": ("falls back disrupted",),
                "withdraw": ("withdraws, spent,",),
            }.get(e.reason, ("moves",))
            end = e.path[-1]
            hexes = count(len(e.path), "hex")
            return f"{at}{agree(_name(state, e.unit), *how)} to {end[0]},{end[1]} ({hexes})"
        case ev.LeftField():
            return f"{at}{agree(_name(state, e.unit), 'flees the field')}"
        case ev.Fired():
            kind = state.units[e.target].kind
            return (
                f"{at}{agree(_name(state, e.unit), 'fires')} on {_name(state, e.target)} at "
                f"{count(e.range, 'hex')}: {_result(e, kind)}"
            )
        case ev.Meleed():
            return at + _melee(sc, state, e)
        case ev.MoraleTested():
            verdict = _verdict(sc, state, e)
            why = _REASON_WORDS.get(e.reason, e.reason)
            if e.friend is not None:
                why = f"{_name(state, e.friend)} routed nearby"
            return (
                f"{at}{agree(_name(state, e.unit), 'checks')} morale "
                f"({why}, "
                f"quality {e.quality} = {e.base}, {_mods(e.modifiers)}; "
                f"{_against(e.roll, e.morale_value, 'pass', 'passes')}): {verdict}"
            )
        case ev.Rallied():
            verdict = f"rallies to {e.after}" if e.success else "fails to rally"
            return (
                f"{at}{agree(_name(state, e.unit), verdict)} "
                f"({_against(e.roll, e.morale_value, 'rally', 'rallies')})"
            )
        case ev.Rested():
            return (
                f"{at}{agree(_name(state, e.unit), 'rests')}: "
                f"{'recovers ' + str(e.recovered) + ' fatigue' if e.recovered else 'no recovery'}"
            )
        case ev.SideBroken():
            return f"{at}{agree(state.sides[e.side].name, 'breaks')}: {_broke(sc, state, e)}"
        case ev.BattleEnded():
            return at + ending_line(e, state.sides)
        case TurnEnded():
            return None
    return None
