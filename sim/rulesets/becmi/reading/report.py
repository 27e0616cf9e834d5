"""Reading a ``becmi`` fight: outcome summary, state table and narrative."""

from __future__ import annotations

from engine.events import Event, TurnEnded
from sim.contract import Outcome, SideResult, ending_line
from sim.rulesets.becmi.model.events import (
    Attacked,
    BattleEnded,
    Damage,
    Initiative,
    Joined,
    MoraleChecked,
    Moved,
    Recovered,
    Save,
    Struck,
    Team,
    ToHit,
    Wrestled,
)
from sim.rulesets.becmi.model.scenario import BecmiScenario
from sim.rulesets.becmi.model.state import BattleState, Bout, CombatantState
from sim.rulesets.trusted import trusted_ending, trusted_measure, trusted_side
from sim.text.grammar import agree, count, in_sentence

__all__ = ["narrate", "outcome", "render_state", "summary"]

HOLDS = {0: "free", 1: "grab", 2: "takedown", 3: "pin"}


def outcome(sc: BecmiScenario, state: BattleState) -> Outcome:
    """Winner, reason, rounds and each side's losses (dead, knocked out, fled, hit points).

    Built trusted (:func:`sim.rulesets.trusted.trusted_ending`): every value is an
    int or text of the state.
    """
    sides: dict[str, SideResult] = {}
    for side in sc.sides:
        members = [state.combatants[c.id] for c in side.combatants]
        losses = [
            trusted_measure("dead", sum(1 for c in members if c.status == "dead"), "combatants"),
            trusted_measure(
                "knocked_out", sum(1 for c in members if c.present and c.unconscious), "combatants"
            ),
            trusted_measure("fled", sum(1 for c in members if c.status == "fled"), "combatants"),
            trusted_measure("hp", sum(c.hp_max - max(c.hp, 0) for c in members), "hp"),
        ]
        sides[side.id] = trusted_side(
            side.name,
            losses,
            {
                "combatants": len(members),
                "standing": sum(1 for c in members if c.conscious),
            },
        )
    return trusted_ending(state, sides)


def summary(outcome: Outcome) -> list[str]:
    """One line per side: standing, dead, knocked out, fled, hit points lost."""
    lines = []
    for side in outcome.sides.values():
        s, lo = side.details, {m.name: m.value for m in side.losses}
        lines.append(
            f"{side.name}: {s['standing']} of {s['combatants']} standing; "
            f"{lo['dead']} dead, {lo['knocked_out']} knocked out, {lo['fled']} fled; "
            f"{lo['hp']} hp lost"
        )
    return lines


def _status(state: BattleState, c: CombatantState, round_: int) -> str:
    if c.status != "ok":
        return c.status
    if c.unconscious:
        return f"knocked out (comes to in round {c.wakes_round})"
    parts = []
    if c.stunned(round_):
        parts.append(f"stunned through round {c.stunned_through}")
    if c.bout is not None:
        parts.append(_hold_of(state, state.bouts[c.bout], c.id))
    return "; ".join(parts) or "ok"


def _hold_of(state: BattleState, bout: Bout, cid: str) -> str:
    if bout.hold == 0:
        return "wrestling"
    holders = bout.aggressors if bout.hold > 0 else bout.defenders
    hold = HOLDS[abs(bout.hold)]
    who = state.combatants[holders[0]].name
    return f"holding ({hold})" if cid in holders else f"held ({hold} by {who})"


def render_state(sc: BecmiScenario, state: BattleState) -> str:
    """A fixed-width table of every combatant's state."""
    round_ = state.round
    rows = [f"{'combatant':<24} {'side':<12} {'hp':>7} {'at (ft)':>11} {'cover':<14} status"]
    for c in state.combatants.values():
        cover = "-" if c.cover == "none" else f"{c.cover} {c.cover_kind}"
        rows.append(
            f"{c.name[:24]:<24} {c.side[:12]:<12} {f'{max(c.hp, 0)}/{c.hp_max}':>7} "
            f"{f'{c.at[0]},{c.at[1]}':>11} {cover:<14} {_status(state, c, round_)}"
        )
    return "\n".join(rows)


def _mods(mods: dict[str, int]) -> str:
    return "".join(f" {v:+d} ({k.replace('_', ' ')})" for k, v in mods.items())


def _signed(v: int) -> str:
    """``+4``, ``-1``: signed with the hyphen-minus, as every other number of the narrative
    is (:func:`_mods`, a stun's ``t``) and musket's and flattop's are; the true minus sign
    (U+2212) is the subtraction's alone (``THAC0 17 − AC 6``, ``d20 6 − C 14``)."""
    return f"{v:+d}"


def to_hit_text(th: ToHit) -> str:
    """The to-hit arithmetic in words: ``THAC0 17 − AC 6 = H 11 → needs 11; …``.

    An adjusted AC is shown as the AC the subtraction uses, then where it
    came from: ``THAC0 19 − AC 8 (base 9, dexterity -1) = H 11``.
    """
    ac = f"AC {th.ac}"
    if th.ac_modifiers:
        parts = [f"{k.replace('_', ' ')} {_signed(v)}" for k, v in th.ac_modifiers.items()]
        ac += f" (base {th.ac_base}, {', '.join(parts)})"
    steps = "".join(f", past {s.threshold}: {s.before} → {s.after}" for s in th.steps)
    bonus = f" (+{th.damage_bonus} damage)" if th.damage_bonus else ""
    natural = f", natural {th.natural}" if th.natural else ""
    verdict = "hit" if th.hit else "miss"
    return (
        f"THAC0 {th.thac0} − {ac} = H {th.h}{steps} → needs {th.needed}{bonus}; "
        f"rolled {th.roll}{_mods(th.modifiers)} = {th.total}{natural}: {verdict}"
    )


def _damage(d: Damage) -> str:
    rolls = f" {'+'.join(str(r) for r in d.rolls)}" if d.dice not in ("1", "pulled") else ""
    return f"{d.total} damage ({d.dice}{rolls}{_mods(d.modifiers)})"


def _save(s: Save) -> str:
    verdict = "saves" if s.saved else "fails"
    return (
        f"save vs Death Ray as {s.save_as} needs {s.number}: "
        f"rolled {s.roll}{_mods(s.modifiers)} = {s.total}, {verdict}"
    )


def _name(state: BattleState, cid: str) -> str:
    return state.combatants[cid].name


def _hp(hp: int, killed: bool) -> str:
    return "killed" if killed else f"{hp} hp left"


def _attacked(state: BattleState, e: Attacked) -> str:
    a, t = _name(state, e.attacker), _name(state, e.target)
    where = ""
    if e.phase == "missile":
        cover = f", {e.cover} cover" if e.cover else ""
        where = f" at {e.distance} ft ({e.range_band} range{cover})"
    verb = "shoots at" if e.phase == "missile" else "attacks"
    text = f"{a} {verb} {t} with {e.weapon.replace('_', ' ')}{where}: {to_hit_text(e.to_hit)}"
    if e.damage is not None:
        text += f"; {_damage(e.damage)}, {_hp(e.hp_after, e.killed)}"
    return text


def _struck(state: BattleState, e: Struck) -> str:
    a, t = _name(state, e.attacker), _name(state, e.target)
    how = "throws a haymaker at" if e.haymaker else "strikes"
    if not e.size_ok:
        return f"{a} is too small to strike {t} (size {e.attacker_size} vs {e.target_size})"
    assert e.to_hit is not None
    text = f"{a} {how} {t}{' (pulled)' if e.pulled else ''}: {to_hit_text(e.to_hit)}"
    if e.damage is not None:
        text += f"; {_damage(e.damage)}, {_hp(e.hp_after, e.killed)}"
    if e.t is not None:
        stun = "stunned" if e.stunned else "not stunned"
        text += f"; stun d20 {e.stun_roll} − C {e.con} = t {e.t}: {stun}"
    if e.save is not None:
        text += f"; {_save(e.save)}"
        if e.knocked_out_rounds:
            text += f" — knocked out for {count(e.knocked_out_rounds, 'round')}"
    return text


def _team(state: BattleState, team: Team) -> str:
    names = " + ".join(_name(state, w.id) for w in team.members)
    helpers = "".join(f" {v:+d} ({_name(state, k)})" for k, v in team.helpers.items())
    pinned = f" {team.pinned_penalty:+d} (pinned)" if team.pinned_penalty else ""
    wr = f"WR {team.wr}" + (
        f" = {team.wr - team.pinned_penalty - sum(team.helpers.values())}{helpers}{pinned}"
        if helpers or pinned
        else ""
    )
    return f"{names} ({wr}) d20 {team.roll} = {team.total}"


def _wrestled(state: BattleState, e: Wrestled) -> str:
    verb = "grapple" if e.started else "wrestle"
    start = verb + "s" if len(e.aggressors.members) == 1 else verb
    before, after = _hold_text(state, e, e.hold_before), _hold_text(state, e, e.hold_after)
    text = f"Bout {e.bout}: {_team(state, e.aggressors)} {start} vs {_team(state, e.defenders)}"
    text += f" → hold {before} → {after}" if before != after else f" → hold stays {after}"
    for pin in e.pins:
        hurt = f"takes {pin.damage}, {_hp(pin.hp_after, pin.killed)}" if pin.damage else "no harm"
        text += f"; {_name(state, pin.combatant)} pinned: {_save(pin.save)}, {hurt}"
    return text + ("; the bout ends" if e.ended else "")


def _hold_text(state: BattleState, e: Wrestled, hold: int) -> str:
    if hold == 0:
        return "free"
    team = e.aggressors if hold > 0 else e.defenders
    return f"{HOLDS[abs(hold)]} ({_name(state, team.leader)})"


def _first(sc: BecmiScenario, state: BattleState, e: Initiative) -> str:
    """Who acts first: the highest roll; sides tied on it act together under
    ``initiative_ties: simultaneous`` [src], else in scenario order."""
    top = [s for s in e.order if e.rolls[s] == e.rolls[e.order[0]]]
    names = [in_sentence(state.sides[s].name) for s in top]
    if len(top) == 1:
        return agree(names[0], "acts first")
    if sc.options.initiative_ties == "simultaneous":
        return f"a tie: {', '.join(names[:-1])} and {names[-1]} act together"
    return f"a tie: {agree(names[0], 'acts first')}, first listed"


def narrate(sc: BecmiScenario, state: BattleState, e: Event) -> str | None:
    """One line of narrative for an event, read against the state before it."""
    at = f"Round {e.turn} — "
    match e:
        case Initiative():
            rolls = ", ".join(f"{in_sentence(state.sides[s].name)} {r}" for s, r in e.rolls.items())
            return f"{at}initiative: {rolls}; {_first(sc, state, e)}"
        case Recovered():
            return f"{at}{_name(state, e.combatant)} comes to"
        case Moved():
            cover = ", leaving cover" if e.left_cover else ""
            return (
                f"{at}{_name(state, e.combatant)} moves {e.feet} ft toward "
                f"{_name(state, e.toward)} to {e.to[0]},{e.to[1]}{cover}"
            )
        case Attacked():
            return at + _attacked(state, e)
        case Struck():
            return at + _struck(state, e)
        case Wrestled():
            return at + _wrestled(state, e)
        case Joined():
            return f"{at}{_name(state, e.combatant)} joins bout {e.bout} with the {e.team}"
        case MoraleChecked():
            mls = ", ".join(f"{_name(state, c)} ML {ml}" for c, ml in e.morale.items())
            fled = ", ".join(_name(state, c) for c in e.fled) or "none"
            return (
                f"{at}{agree(state.sides[e.side].name, 'checks morale')} "
                f"({e.trigger.replace('_', ' ')}): "
                f"2d6 {e.rolls[0]}+{e.rolls[1]} = {e.total}, each flees above its ML ({mls}); "
                f"fled: {fled}"
            )
        case BattleEnded():
            return at + ending_line(e, state.sides)
        case TurnEnded():
            return None
    return None
