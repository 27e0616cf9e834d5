"""becmi in words: no stun before a blow, no hp below 0, an AC that reads right (issue 24)."""

from __future__ import annotations

import json
import re
from pathlib import Path

from click.testing import CliRunner

from sim import api
from sim.cli import cli
from sim.replay.diff import diff_replays, render
from sim.rulesets.becmi import RULESET
from sim.rulesets.becmi.model.events import ToHit, Wrestled
from sim.rulesets.becmi.model.state import CombatantState
from sim.rulesets.becmi.reading.report import to_hit_text

REPO = Path(__file__).resolve().parents[2]
BRAWL = REPO / "replays" / "tavern_brawl-s377.jsonl"


def _show(*args: str) -> list[str]:
    result = CliRunner().invoke(cli, ["show", str(BRAWL), *args], prog_name="battlesim")
    assert result.exit_code == 0, result.output
    return result.stdout.splitlines()


def _combatant(stunned_through: int) -> CombatantState:
    return CombatantState(
        id="g", side="s", name="G", kind="monster", hp_max=4, hp=4, at=(0, 0),
        cover="none", cover_kind="soft", stunned_through=stunned_through,
    )  # fmt: skip


def test_nobody_is_stunned_before_a_stun() -> None:
    """stunned_through 0 means never stunned: not at round 0; a stun through 2 lasts rounds ≤ 2."""
    assert not _combatant(0).stunned(0)
    assert not _combatant(0).stunned(1)
    assert [_combatant(2).stunned(r) for r in (1, 2, 3)] == [True, True, False]


def test_show_at_the_start_lists_no_one_stunned() -> None:
    """`show --turn 0` of the brawl: every combatant's status is '-', as no blow has landed."""
    rows = _show("--turn", "0")
    assert rows[0] == "Brawl at the Prancing Goat — end of round 0"
    assert [r.split()[-3] for r in rows[2:]] == ["-", "-", "-"]


DUNGEON = REPO / "replays" / "dungeon_skirmish-s3.jsonl"


def test_show_gives_no_cover_kind_without_cover() -> None:
    """`show --turn` and `show --unit` printed a cover kind beside no cover ("none   soft"):
    the kind is '-' there, and the row's details (a study's unit_finals) keep "soft"."""
    turn = CliRunner().invoke(cli, ["show", str(DUNGEON), "--turn", "2"])
    assert turn.exit_code == 0, turn.output
    assert turn.stdout.splitlines()[1:5] == [
        "unit               side         x,y     strength  status  cover    cover_kind",
        "Alaric             The party    40,15   20/20 hp  -       none     -",
        "Mirela             The party    60,18   2/14 hp   -       none     -",
        "Pip                The party    10,0    9/9 hp    -       quarter  hard",
    ]
    unit = CliRunner().invoke(cli, ["show", str(DUNGEON), "--unit", "alaric", "--turn", "1"])
    assert unit.exit_code == 0, unit.output
    assert unit.stdout.splitlines()[1:] == [
        "round  x,y    strength  status  cover  cover_kind",
        "    0  0,15   20/20 hp  -       none   -",
        "    1  20,15  20/20 hp  -       none   -",
    ]
    rows = json.loads(
        CliRunner().invoke(cli, ["show", str(DUNGEON), "--turn", "2", "--json"]).stdout
    )["units"]
    assert rows[0]["details"] == {"cover": "none", "cover_kind": "soft"}


def test_a_dead_combatant_has_0_hp_left_not_minus() -> None:
    """Snaga, cut to −1 hp, shows 0/5 hp dead at the end (never '-1/5 hp')."""
    snaga = next(r for r in _show() if r.startswith("Snaga"))
    assert snaga.split()[4:7] == ["0/5", "hp", "dead"]
    unit = _show("--unit", "snaga")
    assert not any("-1/5" in r for r in unit)


def test_an_adjusted_ac_reads_as_the_ac_used_then_its_parts() -> None:
    """THAC0 19 against AC 9 with Dex −1 is AC 8, H = 19 − 8 = 11; a stun adds +4: AC 12.
    A negative part is signed with the hyphen-minus, as every other modifier of the narrative
    (and musket's and flattop's) is; the subtraction keeps its minus sign."""
    th = ToHit(
        thac0=19, ac_base=9, ac_modifiers={"dexterity": -1}, ac=8, h=11, steps=[], needed=11,
        damage_bonus=0, modifiers={}, roll=9, total=9, natural=None, hit=False,
    )  # fmt: skip
    assert to_hit_text(th) == (
        "THAC0 19 − AC 8 (base 9, dexterity -1) = H 11 → needs 11; rolled 9 = 9: miss"
    )
    stunned = th.model_copy(update={"ac_modifiers": {"dexterity": -1, "stunned": 4}, "ac": 12})
    assert to_hit_text(stunned).startswith("THAC0 19 − AC 12 (base 9, dexterity -1, stunned +4)")
    plain = th.model_copy(update={"ac_modifiers": {}, "ac": 9})
    assert to_hit_text(plain).startswith("THAC0 19 − AC 9 = H 11")


def test_the_narrative_signs_a_negative_number_with_one_minus() -> None:
    """`show --events` of the brawl wrote "dexterity −1" (U+2212) in the line whose stun reads
    "t -8" and beside "8 -3 (pinned)": every negative number reads "-", as musket's "-40%" and
    flattop's modifiers do; "−" is left to the subtractions (THAC0 − AC, d20 − C)."""
    lines = _show("--events")
    assert lines[9] == (
        "Round 3 — Grub strikes Thorgrim: THAC0 19 − AC 12 (base 9, dexterity -1, stunned +4) "
        "= H 7 → needs 7; rolled 13 = 13: hit; 1 damage (1), 22 hp left; "
        "stun d20 6 − C 14 = t -8: not stunned"
    )
    dungeon = CliRunner().invoke(cli, ["show", str(DUNGEON), "--events"]).stdout.splitlines()
    assert sum("(base 5, shield -1) = H 15" in x for x in dungeon) == 10
    assert [x for x in lines + dungeon if re.search(r"−\d", x)] == []


def test_a_combatants_events_include_its_bouts_and_its_flight() -> None:
    """`show --events --unit` names a unit within an event too: Snaga's four wrestling bouts
    (the wrestlers are in `aggressors`/`defenders`) and Grub's flight (the morale check's
    `fled`); it listed only Snaga's move, and Grub's blows without his fleeing."""
    snaga = _show("--events", "--unit", "snaga", "--seqs")
    assert [line.split("]")[0] for line in snaga] == [
        "[seq 2", "[seq 4", "[seq 8", "[seq 12", "[seq 16",
    ]  # fmt: skip
    assert sum("Bout snaga-1: Snaga" in line for line in snaga) == 4
    assert snaga[-1].endswith("takes 3, killed")
    grub = _show("--events", "--unit", "grub")
    assert grub[-1] == (
        "Round 4 — Orc band checks morale (half out): 2d6 5+5 = 10, each flees above its ML "
        "(Grub ML 8); fled: Grub"
    )
    assert not any("Snaga" in line for line in grub)


def test_a_combatants_rows_in_json_are_keyed_by_turn_as_every_rulesets_are() -> None:
    """`show --unit --json` keys each row's round `turn`, as docs/replay-tools.md gives it
    and as `show --json` (`turn`, `last_turn`) and `--events --json` key it in becmi too; it
    keyed it `round`, so a script reading `turn` failed on becmi alone."""
    rows = json.loads("\n".join(_show("--unit", "snaga", "--json")))["rows"]
    assert [r["turn"] for r in rows] == [0, 1, 2, 3, 4]
    assert not any("round" in r for r in rows)
    state = json.loads("\n".join(_show("--json")))
    assert (state["turn"], state["last_turn"]) == (4, 4)


def test_diff_names_the_side_of_a_morale_check(tmp_path: Path) -> None:
    """`diff` named a musket morale test's unit (`unit 63ny`) but not the side of a becmi
    morale check: its first line gave only who fled (`fled.0 grub`), and a context line of
    one nothing at all. It names the side by its id in the scenario, `side orcs`, and who
    fled in becmi's words (its `subjects` hook), `fled grub`, not by a field path (`fled.0`)."""
    runner = CliRunner()

    def run(*args: str) -> list[str]:
        result = runner.invoke(cli, list(args))
        assert result.exit_code in (0, 1), result.output
        return result.stdout.splitlines()

    held = str(tmp_path / "held.jsonl")
    run("fork", str(BRAWL), "--at", "17", "--set", "fled=[]", "-o", held)
    assert run("diff", str(BRAWL), held)[0] == (
        "same scenario and seed; first divergent event at seq 17, round 4, phase morale, "
        "side orcs, fled grub"
    )
    later = str(tmp_path / "later.jsonl")
    run("fork", held, "--at", "20", "--set", "stunned=false", "-o", later)
    lines = run("diff", held, later)
    assert lines[0] == (
        "same scenario and seed; first divergent event at seq 20, round 5, phase melee, "
        "attacker thorgrim, target grub"
    )
    assert lines[4] == "  seq    17 round   4 becmi.morale_checked     orcs"
    data = json.loads(runner.invoke(cli, ["diff", "--json", str(BRAWL), held]).stdout)
    assert (data["side"], data["units"]) == ("orcs", {"fled.0": "grub"})
    assert data["subjects"] == {"fled": ["grub"]}
    data = json.loads(runner.invoke(cli, ["diff", "--json", held, later]).stdout)
    assert data["side"] is None
    assert data["context_before"][0] == {
        "seq": 17, "turn": 4, "type": "becmi.morale_checked", "phase": "morale", "side": "orcs"
    }  # fmt: skip


def test_diff_says_a_bouts_teams_of_more_than_one_in_the_plural(tmp_path: Path) -> None:
    """A bout's team of two is said in the plural, its wrestlers joined with "and"
    (`aggressors snaga and grub`), a team of one in the singular (`defender thorgrim`), as
    becmi's `subjects` hook words them from the event's own members."""
    bout = next(e for e in api.load_replay(BRAWL).events if isinstance(e, Wrestled))
    team = bout.aggressors
    two = team.model_copy(update={"members": [*team.members, team.members[0].model_copy(
        update={"id": "grub"})]})  # fmt: skip
    event = bout.model_copy(update={"aggressors": two})
    said = RULESET.subjects
    assert said is not None
    assert said(api.load_replay(BRAWL).scenario, event) == {
        "aggressors": ["snaga", "grub"],
        "defender": ["thorgrim"],
    }
    held = tmp_path / "held.jsonl"
    fork = ["fork", str(BRAWL), "--at", "4", "--set", "hold_after=0", "-o", str(held)]
    assert CliRunner().invoke(cli, fork).exit_code == 0
    d = diff_replays(api.open_replay(BRAWL), api.open_replay(held))
    d["subjects"] = said(api.load_replay(BRAWL).scenario, event)
    assert render(d, turn="round")[0] == (
        "same scenario and seed; first divergent event at seq 4, round 1, phase melee, "
        "aggressors snaga and grub, defender thorgrim"
    )
