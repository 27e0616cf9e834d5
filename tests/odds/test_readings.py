"""Readings marked [ours]: each option's two settings against exact odds derived by hand.

Where the seed is cut or ambiguous the project chose a reading and made it a
named option.  For each, the expected odds of both settings are worked out
here from the rule's arithmetic (Fractions), then the live code is held to
them: by enumerating every face of a scripted d20, or, for the musket's
continuous draws, by a chi-square or binomial test at fixed seeds.
"""

from __future__ import annotations

import json
from collections import Counter
from fractions import Fraction as F  # noqa: N817 (the tables read better)
from typing import Any

import pytest
from scipy.stats import binomtest, chisquare

from engine.events import Draw
from engine.log import MemorySink
from engine.rng import Stream
from sim import api
from sim.contract import Rolls
from sim.rulesets.becmi.model.options import BecmiOptions
from sim.rulesets.becmi.model.tohit import monster_thac0, needed, parse_hd, plateau
from sim.rulesets.becmi.reading.odds import to_hit_odds
from sim.rulesets.becmi.rules.dice import roll_to_hit
from sim.rulesets.becmi.rules.striking import decide_strike
from sim.rulesets.becmi.rules.wrestling import decide_wrestle
from sim.rulesets.musket import RULESET as MUSKET
from sim.rulesets.musket.model.options import MusketOptions
from sim.rulesets.musket.model.state import UnitState
from sim.rulesets.musket.rules.results import casualty_roll, finish
from sim.scenario.load import validate_data
from tests.becmi.helpers import FIGHTER, ORC, battle, scenario

SIGNIFICANCE = 0.001
"""Monte Carlo tests fail below this p-value; fixed seeds fix each outcome."""


def _chi_square(counts: Counter[int], exact: dict[int, F], n: int) -> float:
    assert set(counts) <= set(exact)
    keys = sorted(exact)
    return float(chisquare([counts[k] for k in keys], [float(exact[k]) * n for k in keys]).pvalue)


def _unit(kind: str, strength: int) -> UnitState:
    return UnitState(
        id="t",
        side="b",
        name="T",
        kind=kind,
        quality="C",
        weapon="napoleon_12pdr" if kind == "artillery" else "rifle_musket",
        formation="line",
        leader=False,
        ammo="full",
        initial=strength,
        strength=strength,
        hex=(0, 0),
    )


def _finish(
    stream: Stream, x: float, target: UnitState, o: MusketOptions, source: str | None
) -> Any:
    """One result whose casualty value is exactly ``x`` (LCV = HCV, E = 1000)."""
    return finish(casualty_roll(stream, 1000.0, {}, x, x, False), target, o, source=source)


# --- musket: fatigue from the rounded or the unrounded casualties ---------------

FATIGUE_ROUNDED = {0: F(3, 5), 1: F(1, 10), 2: F(1, 5), 3: F(1, 10)}
"""x = 2/5: c = 1 with p 2/5 (else 0, no fatigue); Uniform(1, 3) randomly rounded
gives 1, 2, 3 with p 1/4, 1/2, 1/4 (the tent of each integer over [1, 3])."""

FATIGUE_UNROUNDED = {0: F(9, 40), 1: F(3, 4), 2: F(1, 40)}
"""x = 2/5: Uniform(2/5, 6/5) randomly rounded.  P(0) = ∫(1−f)df over [2/5, 1]
/ (4/5) = (9/50)/(4/5); P(2) = ∫(f−1)df over [1, 6/5] / (4/5) = (1/50)/(4/5)."""


@pytest.mark.parametrize(
    ("setting", "exact"), [("rounded", FATIGUE_ROUNDED), ("unrounded", FATIGUE_UNROUNDED)]
)
def test_fatigue_from_rounded_or_unrounded_casualties(setting: str, exact: dict[int, F]) -> None:
    """Casualty value 2/5: fatigue added follows each setting's exact distribution (mean 4/5)."""
    assert sum(exact.values()) == 1
    assert sum(k * p for k, p in exact.items()) == F(4, 5)  # 2·E[x] either way
    o = MusketOptions(fatigue_from=setting)
    stream = Stream(7, f"readings/fatigue/{setting}")
    n = 20_000
    counts = Counter(
        _finish(stream, 0.4, _unit("infantry", 500), o, "infantry").fatigue_added for _ in range(n)
    )
    assert _chi_square(counts, exact, n) > SIGNIFICANCE


def test_a_loss_rounding_to_zero_adds_fatigue_only_unrounded() -> None:
    """A volley of value 2/5 that rounds to 0 men: no fatigue draws by default, two unrounded."""
    for setting, fatigue_draws in (("rounded", 0), ("unrounded", 2)):
        o = MusketOptions(fatigue_from=setting)
        stream = Stream(3, "readings/zero")
        r = next(
            r
            for r in (
                _finish(stream, 0.4, _unit("infantry", 500), o, "infantry") for _ in range(99)
            )
            if r.casualties == 0
        )
        assert len(r.draws) == 2 + fatigue_draws  # casualty value and rounding, then fatigue
        assert (r.fatigue_value > 0) == (setting == "unrounded")


# --- musket: gun losses from melee and cavalry fire ------------------------------


@pytest.mark.parametrize(
    ("any_loss", "source", "p_gun"),
    [
        (True, "infantry", F(1, 5)),
        (True, "artillery", F(1, 5)),
        (True, "cavalry", F(1, 5)),
        (True, None, F(1, 5)),
        (False, "infantry", F(1, 5)),
        (False, "artillery", F(1, 5)),
        (False, "cavalry", F(0)),
        (False, None, F(0)),
    ],
)
def test_gun_losses_by_source(any_loss: bool, source: str | None, p_gun: F) -> None:
    """A loss of 5 men costs a battery a gun with p 5/25, unless the seed-literal reading excludes
    its source (melee, None here, or cavalry fire)."""
    o = MusketOptions(guns_lost_to_any_loss=any_loss)
    stream = Stream(9, f"readings/guns/{any_loss}/{source}")
    n = 4_000
    guns = [_finish(stream, 5.0, _unit("artillery", 6), o, source).guns_lost for _ in range(n)]
    assert set(guns) <= {0, 1}
    if p_gun == 0:
        assert sum(guns) == 0
    else:
        assert binomtest(sum(guns), n, float(p_gun)).pvalue > SIGNIFICANCE


def test_a_melee_loss_of_thirty_men_costs_guns_only_under_any_loss() -> None:
    """30 men in melee: 1 gun + a second with p 5/25 (on); no gun at all (off)."""
    n = 4_000
    stream = Stream(4, "readings/melee30")
    on = Counter(
        _finish(stream, 30.0, _unit("artillery", 6), MusketOptions(), None).guns_lost
        for _ in range(n)
    )
    assert _chi_square(on, {1: F(4, 5), 2: F(1, 5)}, n) > SIGNIFICANCE
    off = MusketOptions(guns_lost_to_any_loss=False)
    assert {
        _finish(stream, 30.0, _unit("artillery", 6), off, None).guns_lost for _ in range(50)
    } == {0}


@pytest.mark.parametrize(
    ("kind", "weapon", "any_loss", "gun_draw"),
    [
        ("cavalry", "carbine", True, 1),
        ("cavalry", "carbine", False, 0),
        ("infantry", "rifle_musket", True, 1),
        ("infantry", "rifle_musket", False, 1),
    ],
)
def test_fire_at_a_battery_in_battle_draws_for_guns_by_firer_and_option(
    kind: str, weapon: str, any_loss: bool, gun_draw: int
) -> None:
    """In a fought battle, fire at a battery draws for guns unless the firer is cavalry and
    the seed-literal reading is chosen."""
    battery = {
        "id": "gun",
        "name": "GUN",
        "kind": "artillery",
        "strength": 6,
        "quality": "C",
        "weapon": "napoleon_12pdr",
        "at": [4, 4],
    }
    firer = {
        "id": "f",
        "name": "F",
        "kind": kind,
        "strength": 600,
        "quality": "C",
        "weapon": weapon,
        "at": [4, 5],
        "order": {"kind": "hold"},
    }
    data = {
        "ruleset": "musket",
        "name": "t",
        "map": {"width": 10, "height": 10},
        "turns": {"limit": 2},
        "options": {"guns_lost_to_any_loss": any_loss},
        "sides": [
            {"id": "a", "name": "A", "retreat": "south", "units": [firer]},
            {"id": "b", "name": "B", "retreat": "north", "units": [battery]},
        ],
    }
    _, sc = validate_data(data, {}, "t.yaml")
    sink = MemorySink()
    MUSKET.simulate(sc, api.make_header(MUSKET, sc, 1), sink)
    volleys = [
        e["result"]
        for e in map(json.loads, sink.lines[1:-1])
        if e.get("type") == "musket.fired" and e["unit"] == "f" and e["result"]["casualties"]
    ]
    assert volleys
    for r in volleys:
        # value, rounding, [gun], fatigue ×2, morale-check draw
        assert len(r["draws"]) == 5 + gun_draw
        assert gun_draw or r["guns_lost"] == 0


# --- becmi: C' in the stun roll ---------------------------------------------------

BRUISER = {**FIGHTER, "id": "bob", "name": "Bob", "hp": 40, "at": [5, 0]}
"""A character target, Constitution 14 (adjustment +1)."""


def _strike_faces(
    attacker: dict[str, Any], target: dict[str, Any], options: dict[str, Any], faces: Any
) -> list[Any]:
    """One blow per scripted roll list (to-hit, stun, save); the events."""
    out = []
    for script in faces:
        sc = scenario([attacker], [target], options=options)
        b = battle(sc, {f"1/strike/{attacker['id']}": list(script)})
        out.append(
            decide_strike(b, b.state.combatants[attacker["id"]], b.state.combatants[target["id"]])
        )
    return out


@pytest.mark.parametrize(
    ("setting", "c", "p_stun"),
    [("constitution", 14, F(6, 20)), ("constitution_adjustment", 1, F(19, 20))],
)
def test_stun_roll_uses_constitution_or_its_adjustment(setting: str, c: int, p_stun: F) -> None:
    """t = d20 − C' > 0 over the 20 faces: Con 14 stuns on 15–20; its adjustment +1 on 2–20."""
    events = _strike_faces(
        FIGHTER, BRUISER, {"stun_c": setting}, ([20, f, 20] for f in range(1, 21))
    )
    assert {e.con for e in events} == {c}
    assert F(sum(e.stunned for e in events), 20) == p_stun


# --- becmi: the haymaker's −4 -----------------------------------------------------


@pytest.mark.parametrize(
    ("setting", "haymaker", "p_saved"),
    [
        ("replaces", True, F(3, 20)),
        ("adds", True, F(7, 20)),
        ("replaces", False, F(11, 20)),
        ("adds", False, F(11, 20)),
    ],
)
def test_haymaker_save_replaces_or_adds_to_the_plus_4(
    setting: str, haymaker: bool, p_saved: F
) -> None:
    """Orc saving as F1 (12) against Str +2: d20 −4 −2 ≥ 12 (3/20) if −4 replaces +4,
    d20 +4 −4 −2 ≥ 12 (7/20) if it adds; an ordinary blow d20 +4 −2 ≥ 12 (11/20)."""
    attacker = {**FIGHTER, "haymaker": haymaker}
    events = _strike_faces(
        attacker, ORC, {"haymaker_save": setting}, ([20, 20, f] for f in range(1, 21))
    )
    assert all(e.stunned and e.save is not None for e in events)
    assert F(sum(e.save.saved for e in events), 20) == p_saved


# --- becmi: plateaus below −10 -----------------------------------------------------


def test_low_plateaus_continue_in_steps_of_ten_or_stop_at_minus_10() -> None:
    """H −50: 2, −10, −20, −30 steps give −34 (+34 damage); the seed's two give −42 (+42)."""
    assert plateau(-50, True) == (
        -34,
        [(2, -50, -46), (-10, -46, -42), (-20, -42, -38), (-30, -38, -34)],
    )
    assert plateau(-50, False) == (-42, [(2, -50, -46), (-10, -46, -42)])
    # down to −10 both readings agree: H −12 → −8 at the 2 plateau
    assert plateau(-12, True) == plateau(-12, False) == (-8, [(2, -12, -8)])


@pytest.mark.parametrize(("setting", "bonus"), [("every_10", 20), ("two_and_minus_10", 22)])
def test_low_plateau_reading_changes_damage_not_the_odds(setting: str, bonus: int) -> None:
    """THAC0 −3 vs AC 27 (H −30): roll 2 needed and p 19/20 either way; +20 or +22 damage."""
    o = BecmiOptions(low_plateaus=setting)
    odds = to_hit_odds(-3, 27, options=o)
    assert (odds.h, odds.needed, odds.damage_bonus, odds.p_hit) == (-30, 2, bonus, F(19, 20))
    assert needed(-3, 27, setting == "every_10").damage_bonus == bonus
    stream = Stream(1, "readings/plateau")
    assert roll_to_hit(Rolls(stream), -3, 27, {}, {}, o).damage_bonus == bonus


# --- becmi: natural 1 misses ---------------------------------------------------------


@pytest.mark.parametrize(
    ("h", "need", "on", "off"),
    [
        (-2, 2, F(19, 20), F(19, 20)),  # a 1 misses anyway: 1 < 2
        (-3, 1, F(19, 20), F(1)),  # needed 1: only the option makes the 1 miss
        (-4, 0, F(19, 20), F(1)),  # needed 0: likewise
        (2, 2, F(19, 20), F(19, 20)),
    ],
)
def test_natural_1_misses_only_matters_when_the_roll_needed_is_0_or_1(
    h: int, need: int, on: F, off: F
) -> None:
    """THAC0 0 vs AC −h: p(hit) over the 20 faces with the option on (default) and off."""
    for setting, p in ((True, on), (False, off)):
        o = BecmiOptions(natural_1_misses=setting)
        odds = to_hit_odds(0, -h, options=o)
        assert (odds.needed, odds.p_hit) == (need, p)
        rolls = ScriptedD20()
        live = [roll_to_hit(Rolls(rolls), 0, -h, {}, {}, o).hit for _ in range(20)]
        assert F(sum(live), 20) == p


class ScriptedD20(Stream):
    """A d20 that shows 1, 2, …, 20 in turn."""

    def __init__(self) -> None:
        super().__init__(0, "faces")
        self.face = 0

    def roll(self, sides: int) -> tuple[int, Draw]:
        assert sides == 20
        self.face += 1
        u = (self.face - 0.5) / sides
        self.count += 1
        return self.face, Draw(stream=self.name, i=self.count - 1, u=u)


# --- becmi: a monster without save_as ------------------------------------------------


@pytest.mark.parametrize(
    ("setting", "hd", "label", "number"),
    [
        ("fighter", "1", "F1", 12),  # fighter 1-3: 12
        ("cleric", "1", "C1", 11),  # cleric 1-4: 11
        ("thief", "1", "T1", 13),  # thief 1-4: 13
        ("magic_user", "1", "M1", 13),  # magic-user 1-5: 13
        ("normal_man", "1", "NM", 14),
        ("fighter", "4+1", "F4", 10),  # the plus adds no level; fighter 4-6: 10
        ("cleric", "4+1", "C4", 11),
        ("thief", "4+1", "T4", 13),
        ("magic_user", "4+1", "M4", 13),
        ("normal_man", "4+1", "NM", 14),
        ("cleric", "1/2", "NM", 14),  # 1/2 HD: a normal man under every setting
    ],
)
def test_monster_save_as_class_of_its_hit_dice(
    setting: str, hd: str, label: str, number: int
) -> None:
    """An orc with no save_as, struck by Str +2: saves on d20 + 4 − 2 ≥ number, so
    (21 − (number − 2)) / 20 of the faces save."""
    orc = {k: v for k, v in {**ORC, "hd": hd}.items() if k != "save_as"}
    events = _strike_faces(
        FIGHTER, orc, {"monster_save_as": setting}, ([20, 20, f] for f in range(1, 21))
    )
    assert all(e.stunned and e.save is not None for e in events)
    assert {(e.save.save_as, e.save.number) for e in events} == {(label, number)}
    assert F(sum(e.save.saved for e in events), 20) == F(21 - (number - 2), 20)


# --- becmi: pin damage the round a pin is won ----------------------------------------


@pytest.mark.parametrize(
    ("setting", "hold", "pinned"),
    [("won_or_held", 2, True), ("won_or_held", 3, True), ("held", 2, False), ("held", 3, True)],
)
def test_pin_damage_rounds_won_or_only_held(setting: str, hold: int, pinned: bool) -> None:
    """Thorgrim (WR 14) rolls 20, the orc (WR 8, −3 if already pinned) 1: the hold ends at 3.
    Its save, a 1 against F1's 12, fails: 1 + Str 2 = 3 damage, the orc's 6 hp to 3, in a
    round that begins in the pin under either reading, and one that wins it only by default."""
    sc = scenario([FIGHTER], [{**ORC, "attack": "wrestle"}], options={"pin_damage_rounds": setting})
    b = battle(sc, {"1/wrestle/thorgrim-1": [20, 1, 1]})
    e = decide_wrestle(b, "thorgrim-1", ["thorgrim"], ["grub"], hold, started=True)
    assert e.hold_after == 3
    if pinned:
        [pin] = e.pins
        assert (pin.save.number, pin.save.saved, pin.damage, pin.hp_after) == (12, False, 3, 3)
        assert len(e.draws) == 3
    else:
        assert (e.pins, len(e.draws)) == ([], 2)


# --- becmi: the THAC0 row of an n−k monster ------------------------------------------


@pytest.mark.parametrize(
    ("hd", "n", "n_minus_1"),
    [
        ("1-1", 19, 19),  # "up to 1" either way
        ("2-1", 18, 19),  # "1+ to 2" (L23) or "up to 1" (L22)
        ("3-2", 17, 18),  # "2+ to 3" (L24) or "1+ to 2"
        ("10-1", 10, 11),  # "9+ to 11" (L31) or "8+ to 9" (L30)
        ("11-1", 10, 10),  # 10 is on the "9+ to 11" row too
        ("4", 16, 16),  # no minus: "3+ to 4" (L25) either way
        ("4+1", 15, 15),  # "4+ to 5" (L26)
    ],
)
def test_minus_hd_row_reads_n_or_n_minus_1(hd: str, n: int, n_minus_1: int) -> None:
    """The seed's HD rows name n and n+ only: an n−k on n's row, or on n−1's."""
    assert monster_thac0(parse_hd(hd)) == monster_thac0(parse_hd(hd), "n") == n
    assert monster_thac0(parse_hd(hd), "n_minus_1") == n_minus_1
    for setting, thac0 in (("n", n), ("n_minus_1", n_minus_1)):
        [e] = _strike_faces({**ORC, "hd": hd}, FIGHTER, {"minus_hd_row": setting}, [[20, 20, 20]])
        assert e.to_hit is not None and e.to_hit.thac0 == thac0
