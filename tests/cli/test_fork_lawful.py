"""A changed event no dice could make is refused: the ruleset's ``audit_change`` (the part
of its ``audit`` that holds whatever an event's dice) is run on it against the state before
it, by ``fork`` and by ``verify``. A Union regiment firing on a Union regiment, or a
verdict naming the army that broke, forked and verified as lawful before."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from sim.cli import cli
from sim.rulesets.flattop.model.data import LOSS_ORDER

ROOT = Path(__file__).resolve().parents[2]
STONE_WALL = ROOT / "replays" / "stone_wall-s1862.jsonl"


def _fork(
    tmp_path: Path, at: int, *changes: str, replay: Path = STONE_WALL
) -> tuple[int, str, Path]:
    out = tmp_path / "f.jsonl"
    args = ["fork", str(replay), "--at", str(at), "-o", str(out)]
    result = CliRunner().invoke(cli, [*args, *(a for c in changes for a in ("--set", c))])
    return result.exit_code, result.output, out


@pytest.mark.parametrize(
    ("at", "change", "said"),
    [
        (
            40,
            "unit=69ny",
            '--set unit="69ny": the rules could not make musket.fired (seq 40) so: 69ny '
            "fired on 116pa, a unit of its own side (usa)",
        ),
        (
            40,
            "target=18ga",
            '--set target="18ga": the rules could not make musket.fired (seq 40) so: 46nc '
            "fired on 18ga, a unit of its own side (csa)",
        ),
        (
            46,
            "winner=usa",
            '--set winner="usa": the rules could not make musket.battle_ended (seq 46) so: '
            "usa is named the winner, but its army broke",
        ),
        (
            46,
            "winner=null",
            "--set winner=null: the rules could not make musket.battle_ended (seq 46) so: "
            "a draw is named the winner, but the battle gives csa",
        ),
    ],
)
def test_an_event_no_dice_could_make_is_refused_in_one_line(
    tmp_path: Path, at: int, change: str, said: str
) -> None:
    code, output, out = _fork(tmp_path, at, change)
    assert code == 2
    assert output.splitlines() == [f"battlesim: error: {said}"]
    assert not out.exists()
    assert not list(tmp_path.iterdir())


def test_a_counterfactual_of_the_dice_still_forks_and_verifies(tmp_path: Path) -> None:
    """audit_change does not hold the dice: a failed check forked to a pass is lawful."""
    code, output, out = _fork(tmp_path, 19, "passed=true", "after=good")
    assert code == 0, output
    assert CliRunner().invoke(cli, ["verify", str(out)]).exit_code == 0


def test_verify_holds_a_forks_changed_event_to_audit_change(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A fork written without the check (an older battlesim's) is not lawful to verify."""
    from sim.replay import fork

    monkeypatch.setattr(fork, "_check_lawful", lambda loaded, at_seq, fields: None)
    code, output, out = _fork(tmp_path, 40, "unit=69ny")
    assert code == 0, output
    monkeypatch.undo()
    result = CliRunner().invoke(cli, ["verify", str(out)])
    assert result.exit_code == 1
    assert "69ny fired on 116pa, a unit of its own side (usa)" in result.output


CARRIER_DUEL = ROOT / "replays" / "carrier_duel-s688.jsonl"
HORNET_CRIPPLED = 18
"""Zuikaku's dawn dive bombers hit Hornet (damage 6) three times: crippled, not sunk."""


def _fork_duel(tmp_path: Path, *changes: str) -> tuple[int, str, Path]:
    return _fork(tmp_path, HORNET_CRIPPLED, *changes, replay=CARRIER_DUEL)


@pytest.mark.parametrize(
    ("change", "named", "said"),
    [
        # the strike is over Task Force 16: Shokaku sails with it, in Kido Butai
        ("ship=shokaku", 'ship="shokaku"', "zui_dawn is over tf16, but attacked shokaku of kido"),
        # sunk at the damage factor (6), crippled at half of it: 0 + 3 hits cripple
        (
            "status_after=sunk",
            'status_after="sunk"',
            "3/6 hits leave hornet crippled: status_after must be crippled, not sunk",
        ),
        (
            "status_after=afloat",
            'status_after="afloat"',
            "3/6 hits leave hornet crippled: status_after must be crippled, not afloat",
        ),
        (
            "hits_after=0",
            "hits_after=0",
            "hits_after must be 3 (hornet's 0 hits before + hits_taken 3), not 0",
        ),
    ],
)
def test_a_flattop_attack_no_dice_could_make_is_refused_in_one_line(
    tmp_path: Path, change: str, named: str, said: str
) -> None:
    """A strike bombing its own side's carrier, or a carrier sunk by fewer hits than her
    damage factor, forked and verified as lawful: flattop had no audit_change."""
    code, output, out = _fork_duel(tmp_path, change)
    assert code == 2
    assert output.splitlines() == [
        f"battlesim: error: --set {named}: the rules could not make flattop.attacked "
        f"(seq {HORNET_CRIPPLED}) so: {said}"
    ]
    assert not out.exists()


def test_a_flattop_attack_with_its_hits_overridden_forks_and_verifies(tmp_path: Path) -> None:
    """Pat's "what if Hornet had not been hit": no hits, so none taken, 0/6 and afloat."""
    code, output, out = _fork_duel(
        tmp_path, "result.hits=0", "hits_taken=0", "hits_after=0", "status_after=afloat"
    )
    assert code == 0, output
    assert CliRunner().invoke(cli, ["verify", str(out)]).exit_code == 0


DUNGEON = ROOT / "replays" / "dungeon_skirmish-s3.jsonl"
ALARIC_FALLS, GOBLINS_CHECK = 76, 77
"""Goblin archer 4 (g4) shoots Alaric down from 6 hp; the goblins, half out, check morale."""


def _goblins_check() -> dict[str, Any]:
    """The recorded check at GOBLINS_CHECK (its line: seq + 2, after the header)."""
    line = DUNGEON.read_text(encoding="utf-8").splitlines()[GOBLINS_CHECK + 1]
    event: dict[str, Any] = json.loads(line)
    assert (event["seq"], event["type"]) == (GOBLINS_CHECK, "becmi.morale_checked")
    return event


@pytest.mark.parametrize(
    ("at", "change", "named", "said"),
    [
        (
            ALARIC_FALLS,
            "target=g3",
            'target="g3"',
            "g4 attacks g3, a combatant of its own side (goblins)",
        ),
        # Goblin archer 1 fell to Pip's arrow at seq 74
        (ALARIC_FALLS, "attacker=g1", 'attacker="g1"', "g1 attacks, but is dead"),
        # Alaric's 20 hp less the 1, 5, 6 and 2 of the arrows at seq 45, 50, 67 and 69
        (ALARIC_FALLS, "hp_before=9", "hp_before=9", "alaric had 6 hp, not 9 as logged"),
        (
            GOBLINS_CHECK,
            "fled=[alaric]",
            'fled=["alaric"]',
            "alaric flees, but only {checked} of goblins checked",
        ),
        (
            GOBLINS_CHECK,
            "fled=[g1]",
            'fled=["g1"]',
            "g1 flees, but only {checked} of goblins checked",
        ),
        (GOBLINS_CHECK, "fled=[g2,g2]", 'fled=["g2", "g2"]', "g2 flees twice"),
        (
            GOBLINS_CHECK,
            "side=party",
            'side="party"',
            "{first} checks morale for party, but is not one of its combatants able to",
        ),
    ],
)
def test_a_becmi_blow_or_flight_no_dice_could_make_is_refused_in_one_line(
    tmp_path: Path, at: int, change: str, named: str, said: str
) -> None:
    """A goblin shooting a goblin, a dead goblin fleeing, a goblin fleeing twice forked and
    verified as lawful: becmi had no audit_change."""
    checked = list(_goblins_check()["morale"])
    out = tmp_path / "f.jsonl"
    args = ["fork", str(DUNGEON), "--at", str(at), "--set", change, "-o", str(out)]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 2
    kind = "becmi.morale_checked" if at == GOBLINS_CHECK else "becmi.attacked"
    said = said.format(checked=", ".join(checked), first=checked[0])
    assert result.output.splitlines() == [
        f"battlesim: error: --set {named}: the rules could not make {kind} (seq {at}) so: {said}"
    ]
    assert not out.exists()


def test_the_goblins_held_forks_and_verifies(tmp_path: Path) -> None:
    """Pat's "what if they had held?": none flees, which any roll at or under every ML gives."""
    out = tmp_path / "f.jsonl"
    args = ["fork", str(DUNGEON), "--at", str(GOBLINS_CHECK), "--set", "fled=[]", "-o", str(out)]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 0, result.output
    assert CliRunner().invoke(cli, ["verify", str(out)]).exit_code == 0


DUEL_ENDS, DUNGEON_ENDS = 57, 78
"""Blue wins the duel on points (49 to 6); the party is the last side standing."""


@pytest.mark.parametrize(
    ("replay", "at", "change", "said"),
    [
        (
            CARRIER_DUEL,
            DUEL_ENDS,
            "winner=red",
            '--set winner="red": the rules could not make flattop.battle_ended (seq 57) so: '
            "red is named the winner, but the battle gives blue",
        ),
        (
            CARRIER_DUEL,
            DUEL_ENDS,
            "winner=null",
            "--set winner=null: the rules could not make flattop.battle_ended (seq 57) so: "
            "a draw is named the winner, but the battle gives blue",
        ),
        (
            CARRIER_DUEL,
            DUEL_ENDS,
            "points.red=60",
            "--set points.red=60: the rules could not make flattop.battle_ended (seq 57) so: "
            "the points are blue 49, red 6, not blue 49, red 60",
        ),
        (
            DUNGEON,
            DUNGEON_ENDS,
            "winner=goblins",
            '--set winner="goblins": the rules could not make becmi.battle_ended (seq 78) so: '
            "goblins is named the winner, but the battle gives party",
        ),
        (
            DUNGEON,
            DUNGEON_ENDS,
            "winner=zz",
            '--set winner="zz": the rules could not make becmi.battle_ended (seq 78) so: '
            "the winner zz is no side of the battle",
        ),
        (
            DUNGEON,
            DUNGEON_ENDS,
            "standing=[party,goblins]",
            '--set standing=["party", "goblins"]: the rules could not make becmi.battle_ended '
            "(seq 78) so: the sides standing are party, not party, goblins",
        ),
    ],
)
def test_a_verdict_the_battle_does_not_give_is_refused_in_one_line(
    tmp_path: Path, replay: Path, at: int, change: str, said: str
) -> None:
    """'Red wins after 13 turns — … Blue leads by 43' and 'The goblins win after 9 rounds —
    The party is the only side left standing' forked and verified: only musket held a
    changed battle_ended to the battle's verdict."""
    code, output, out = _fork(tmp_path, at, change, replay=replay)
    assert code == 2
    assert output.splitlines() == [f"battlesim: error: {said}"]
    assert not out.exists()


CORAL_SEA = ROOT / "replays" / "coral_sea-s1942.jsonl"
ESCORT_FIRES, CAP_FIRES = 6, 7
"""Over MO Main Force (a CAP of 2 AF) Lexington's escort (3 AF) and the CAP trade fire."""


@pytest.mark.parametrize(
    ("at", "change", "said"),
    [
        (
            ESCORT_FIRES,
            "cap_lost=5",
            "--set cap_lost=5: the rules could not make flattop.air_combat (seq 6) so: "
            "5 CAP air factors lost of the 2 mo_main had",
        ),
        (
            CAP_FIRES,
            "escort_lost=-1",
            "--set escort_lost=-1: the rules could not make flattop.air_combat (seq 7) so: "
            "-1 escort air factors lost of the 3 lex_strike had",
        ),
    ],
)
def test_flattop_air_losses_that_were_not_there_are_refused_in_one_line(
    tmp_path: Path, at: int, change: str, said: str
) -> None:
    """A CAP of 2 losing 5 ('MO Main Force -3/2 air factors' in show, Japanese 5 points
    more) and an escort losing -1 ('Lexington strike 17/16 air factors', the Japanese on -1
    points) forked, the second verified as lawful."""
    code, output, out = _fork(tmp_path, at, change, replay=CORAL_SEA)
    assert code == 2
    assert output.splitlines() == [f"battlesim: error: {said}"]
    assert not out.exists()


def test_the_cap_shot_down_whole_forks_and_verifies(tmp_path: Path) -> None:
    """Losses within what was there are a counterfactual of the dice: lawful."""
    code, output, out = _fork(tmp_path, ESCORT_FIRES, "cap_lost=2", replay=CORAL_SEA)
    assert code == 0, output
    assert CliRunner().invoke(cli, ["verify", str(out)]).exit_code == 0


@pytest.mark.parametrize(
    ("losses", "said"),
    [
        ("[0,-1]", "bomber losses [0, -1] have a loss below 0"),
        ("[0]", "bomber losses [0] are not one for each of the 2 attacks [8, 3]"),
        ("[0,9]", "bomber losses [0, 9] exceed [8, 3]"),
    ],
)
def test_flattop_bomber_losses_are_refused_for_what_is_wrong_with_them(
    tmp_path: Path, losses: str, said: str
) -> None:
    """Coral Sea, seq 12, the AA against a raid of [8, 3] bomber AF: a loss of -1 was refused
    as ``exceed [8, 3]``, which it does not; and so was a list of one loss for two attacks."""
    replay = ROOT / "replays" / "coral_sea-s1942.jsonl"
    code, output, out = _fork(tmp_path, 12, f"attack_losses={losses}", replay=replay)
    assert code == 2
    shown = losses.replace(",", ", ")
    assert output.splitlines() == [
        f"battlesim: error: --set attack_losses={shown}: the rules could not make "
        f"flattop.anti_aircraft (seq 12) so: {said}"
    ]
    assert not out.exists()


HORNET_HIT_AGAIN = HORNET_CRIPPLED + 1
"""Zuikaku's torpedo bombers hit Hornet twice more: 5/6, still crippled, nothing lost aboard
(no aircraft in her Ready box, and she does not sink)."""


def _hornet_aboard() -> dict[str, int]:
    """Hornet's air factors aboard before the torpedoes hit her, by type: in her hangar
    alone (nothing spotted, nothing rearming), each type she has."""
    from sim import api

    deck = api.load_replay(CARRIER_DUEL).after(HORNET_CRIPPLED).decks["hornet"]
    assert not deck.ready and not any(deck.rearming.values())
    return {t: n for t, n in deck.hangar.items() if n}


def test_a_carrier_forked_sunk_with_her_aircraft_still_aboard_is_refused(tmp_path: Path) -> None:
    """Hornet forked sunk by the torpedoes (3 hits taken, 6/6) kept the losses of the attack
    as recorded, none: the fork was written and verified as lawful with a sunk Hornet
    holding 8 AF aboard, 'air factors lost aboard' 0 and Red 8 points short. A carrier
    that sinks loses everything aboard; the rules, sinking her from a forked state, do."""
    aboard = _hornet_aboard()
    code, output, out = _fork(
        tmp_path,
        HORNET_HIT_AGAIN,
        "hits_taken=3",
        "hits_after=6",
        "status_after=sunk",
        replay=CARRIER_DUEL,
    )
    lost = {t: aboard[t] for t in LOSS_ORDER if t in aboard}
    assert code == 2
    assert output.splitlines() == [
        'battlesim: error: --set hits_taken=3, hits_after=6, status_after="sunk": the rules '
        f"could not make flattop.attacked (seq {HORNET_HIT_AGAIN}) so: hornet sinks: every "
        f"one of the {sum(aboard.values())} AF aboard is lost (lost_hangar "
        f"{json.dumps(lost)}), not 0 (none)"
    ]
    assert not out.exists()
    # the same sinking made by the rules: Hornet at 4 hits before the torpedoes' 2
    code, output, out = _fork(
        tmp_path, HORNET_CRIPPLED, "state.ships.hornet.hits=4", replay=CARRIER_DUEL
    )
    assert code == 0, output
    from sim import api

    forked = api.load_replay(out)
    sinking = forked.event(HORNET_HIT_AGAIN + 1)  # after the override
    assert (sinking.ship, sinking.status_after) == ("hornet", "sunk")
    assert (sinking.lost_ready, sinking.lost_rearming, sinking.lost_hangar) == ({}, {}, lost)
    blue = forked.ruleset.outcome(forked.scenario, forked.state_at()).sides["blue"]
    assert {m.name: m.value for m in blue.losses}["air_factors_aboard"] == sum(aboard.values())


SHOHO_SUNK = 9
"""Lexington's dive bombers hit Shoho (damage 5) five times: sunk, her 4 AF lost aboard."""


def test_a_carrier_forked_afloat_keeps_no_losses_aboard_of_her_sinking(tmp_path: Path) -> None:
    """Shoho forked crippled (3/5) kept the 4 AF the sinking had lost aboard: a crippled
    carrier with nothing in her Ready box loses none. Refused; with the losses forked to 0
    too, the fork's count aboard is the one its own events make: the torpedo bombers then
    sink her, and she loses her 4 AF with them."""
    from sim import api

    parent = api.load_replay(CORAL_SEA)
    recorded = parent.event(SHOHO_SUNK)
    assert recorded.status_after == "sunk"
    lost = recorded.lost_hangar
    crippled = ("hits_taken=3", "hits_after=3", "status_after=crippled")
    code, output, out = _fork(tmp_path, SHOHO_SUNK, *crippled, replay=CORAL_SEA)
    assert code == 2
    assert output.splitlines() == [
        'battlesim: error: --set hits_taken=3, hits_after=3, status_after="crippled": the '
        f"rules could not make flattop.attacked (seq {SHOHO_SUNK}) so: shoho is crippled with "
        f"nothing in her Ready box: no AF is lost aboard, not {sum(lost.values())} "
        f"(lost_hangar {json.dumps(lost)})"
    ]
    assert not out.exists()
    none_lost = [f"lost_hangar.{t}=0" for t in lost]
    code, output, out = _fork(tmp_path, SHOHO_SUNK, *crippled, *none_lost, replay=CORAL_SEA)
    assert code == 0, output
    assert CliRunner().invoke(cli, ["verify", str(out)]).exit_code == 0
    forked = api.load_replay(out)
    attacks = [e for e in forked.events if e.type == "flattop.attacked"]
    by_event = [
        sum(n for box in (*e.lost_ready.values(), e.lost_rearming, e.lost_hangar)
            for n in box.values())
        for e in attacks
    ]  # fmt: skip
    assert [(e.seq, e.status_after) for e in attacks] == [(9, "crippled"), (10, "sunk")]
    assert by_event == [0, parent.after(SHOHO_SUNK - 1).decks["shoho"].aboard()]
    japan = forked.ruleset.outcome(forked.scenario, forked.state_at()).sides["japan"]
    assert {m.name: m.value for m in japan.losses}["air_factors_aboard"] == sum(by_event)


def test_verify_holds_a_forks_losses_aboard_to_what_its_hits_make(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A fork written without the check (an older battlesim's) sinking Hornet with her
    aircraft aboard is not lawful to verify."""
    from sim.replay import fork

    monkeypatch.setattr(fork, "_check_lawful", lambda loaded, at_seq, fields: None)
    changes = ("hits_taken=3", "hits_after=6", "status_after=sunk")
    code, output, out = _fork(tmp_path, HORNET_HIT_AGAIN, *changes, replay=CARRIER_DUEL)
    assert code == 0, output
    monkeypatch.undo()
    result = CliRunner().invoke(cli, ["verify", str(out)])
    assert result.exit_code == 1
    aboard = sum(_hornet_aboard().values())
    assert f"hornet sinks: every one of the {aboard} AF aboard is lost" in result.output
