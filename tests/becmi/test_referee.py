"""Initiative, order of action, simultaneous ties, morale and the end of the fight."""

from __future__ import annotations

from sim.rulesets.becmi.model.events import Initiative
from sim.rulesets.becmi.rules.context import Battle
from sim.rulesets.becmi.rules.referee import decide_end, decide_initiative, decide_morale
from tests.becmi.helpers import FIGHTER, ORC, apply, battle, scenario

SNAGA = {**ORC, "id": "snaga", "name": "Snaga", "haymaker": True}


def _fight(script: dict[str, list[int]], **extra: object) -> Battle:
    return battle(scenario([FIGHTER], [ORC, SNAGA], **extra), script)


def test_initiative_d6_per_side_higher_first_ties_in_scenario_order() -> None:
    """Rolls 2 and 5 put side b first; 4 and 4 keep scenario order."""
    b = _fight({"1/initiative/a": [2], "1/initiative/b": [5]})
    e = decide_initiative(b)
    assert (e.rolls, e.order) == ({"a": 2, "b": 5}, ["b", "a"])
    assert [d.stream for d in e.draws] == ["1/initiative/a", "1/initiative/b"]
    b = _fight({"1/initiative/a": [4], "1/initiative/b": [4]})
    assert decide_initiative(b).order == ["a", "b"]


def test_order_keys_follow_initiative_and_haymakers_go_last() -> None:
    """Within a phase: initiative order, then scenario order; a haymaker after every blow."""
    b = _fight({})
    apply(b, Initiative(turn=1, time=0, rolls={"a": 1, "b": 6}, order=["b", "a"], draws=[], seq=0))
    keys = {c: b.order_key(c, "melee") for c in ("thorgrim", "grub", "snaga")}
    assert sorted(keys, key=keys.__getitem__) == ["grub", "thorgrim", "snaga"]
    keys = {c: b.order_key(c, "movement") for c in ("thorgrim", "grub", "snaga")}
    assert sorted(keys, key=keys.__getitem__) == ["grub", "snaga", "thorgrim"]


def test_simultaneous_ties_let_the_felled_act_in_the_same_phase() -> None:
    """Knocked out in melee by a tied side, Grub still strikes this phase; not next phase."""
    from sim.rulesets.becmi.rules.striking import decide_strike

    script = {"1/strike/thorgrim": [19, 15, 1]}
    for ties, acts in (("simultaneous", True), ("first_listed", False)):
        b = battle(scenario([FIGHTER], [ORC], options={"initiative_ties": ties}), script)
        apply(b, Initiative(turn=1, time=0, rolls={"a": 3, "b": 3}, order=["a", "b"], draws=[]))
        grub = b.state.combatants["grub"]
        struck = decide_strike(b, b.state.combatants["thorgrim"], grub)
        apply(b, struck.model_copy(update={"seq": 1}))
        assert (grub.unconscious, struck.knocked_out_rounds) == (True, 13)
        assert (b.may_act(grub, "melee"), b.may_act(grub, "morale")) == (acts, False)


def test_monster_morale_first_fallen_then_half_out() -> None:
    """2d6 above ML flees: 4+5 = 9 > 8 sends both orcs; a later check needs half out."""
    b = _fight({"1/morale/b": [4, 5]})
    assert decide_morale(b) == []
    b.state.combatants["thorgrim"].unconscious = True  # test set-up: side a has fallen
    assert decide_morale(b) == []  # characters do not check
    b.state.combatants["grub"].status = "dead"  # test set-up: side b has fallen
    [e] = decide_morale(b)
    assert (e.side, e.trigger, e.rolls, e.total, e.morale, e.fled) == (
        "b",
        "half_out",
        [4, 5],
        9,
        {"snaga": 8},
        ["snaga"],
    )
    apply(b, e.model_copy(update={"seq": 0}))
    side = b.state.sides["b"]
    assert (side.first_fallen_checked, side.half_out_checked) == (True, True)
    assert b.state.combatants["snaga"].status == "fled"
    assert decide_morale(b) == []


def test_morale_can_be_switched_off() -> None:
    """With monster_morale off no check is made."""
    b = _fight({}, options={"monster_morale": False})
    b.state.combatants["grub"].status = "dead"  # test set-up
    assert decide_morale(b) == []


def test_the_fight_ends_when_one_side_stands_or_at_the_limit() -> None:
    """One side standing wins; none is a draw; two standing at the limit draw."""
    b = _fight({})
    assert decide_end(b, last_round=False) is None
    e = decide_end(b, last_round=True)
    assert e is not None
    assert (e.winner, e.reason, e.standing) == (
        None,
        "round limit reached with 2 sides standing",
        ["a", "b"],
    )
    b.state.combatants["grub"].status = "fled"  # test set-up
    b.state.combatants["snaga"].unconscious = True
    e = decide_end(b, last_round=False)
    assert e is not None
    assert (e.winner, e.reason) == ("a", "A is the only side left standing")
    b.state.combatants["thorgrim"].status = "dead"
    e = decide_end(b, last_round=False)
    assert e is not None
    assert (e.winner, e.reason, e.standing) == (None, "no side is left standing", [])
