"""Exact flattop and becmi odds, and the live resolvers checked against them."""

from __future__ import annotations

import json
from collections import Counter
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from click.testing import CliRunner
from scipy.stats import binomtest, chisquare

from engine.rng import Stream
from sim.cli import cli
from sim.contract import Rolls
from sim.rulesets.becmi.model.events import ToHit
from sim.rulesets.becmi.model.options import BecmiOptions
from sim.rulesets.becmi.reading.odds import to_hit_odds
from sim.rulesets.becmi.reading.report import to_hit_text
from sim.rulesets.becmi.rules.dice import roll_to_hit
from sim.rulesets.flattop.model.options import FlattopOptions
from sim.rulesets.flattop.reading.odds import ATTACK, hit_odds, hit_table
from sim.rulesets.flattop.rules.resolve import resolve

SIGNIFICANCE = 0.001
GOLDEN_SKIRMISH = Path(__file__).resolve().parents[2] / "replays" / "dungeon_skirmish-s3.jsonl"
GOLDEN_DUEL = Path(__file__).resolve().parents[2] / "replays" / "carrier_duel-s688.jsonl"
"""Each Monte Carlo test fails below this p-value; fixed seeds fix each outcome."""


def test_flattop_worked_example_mean_is_the_cell() -> None:
    """Table 5 × 14 factors: cell 2.3 and an exact mean of 23/10."""
    o = hit_odds(5, 14)
    assert (o.hit_table, o.column, o.cell, o.mean) == (
        "5",
        "13-15",
        Fraction(23, 10),
        Fraction(23, 10),
    )
    assert o.distribution == {
        0: Fraction(7, 100),
        1: Fraction(17, 100),
        2: Fraction(34, 100),
        3: Fraction(26, 100),
        4: Fraction(13, 100),
        5: Fraction(3, 100),
    }


def test_flattop_every_cell_mean_equals_its_value() -> None:
    """For all 16 × 14 cells the exact expected hits equal the matrix value (or 0 for --)."""
    for row in range(16):
        for factors in (1, 3, 5, 7, 9, 11, 13, 16, 21, 26, 31, 36, 41, 60):
            o = hit_odds(row, factors)
            assert o.mean == (o.cell or 0), (row, factors)


def test_flattop_modifiers_clamp_to_the_matrix() -> None:
    """+4 on table 14 reads row 15; −4 on table 2 is below * and no attack."""
    assert hit_odds(14, 14, 4).hit_table == "15"
    assert (hit_odds(2, 14, -4).hit_table, hit_odds(2, 14, -4).mean) == (None, 0)


@pytest.mark.parametrize(("basic", "factors"), [(5, 14), (0, 60), (9, 60), (1, 3), (15, 45)])
def test_flattop_live_resolver_matches_exact(basic: int, factors: int) -> None:
    """5,000 live resolutions pass a chi-square test against the exact hits distribution."""
    n = 5_000
    stream = Stream(11, f"odds/flattop/{basic}/{factors}")
    counts = Counter(resolve(stream, basic, {}, factors).hits for _ in range(n))
    dist = hit_odds(basic, factors).distribution
    assert set(counts) <= set(dist)
    keys = [k for k in dist if float(dist[k]) * n >= 5]
    rest = [k for k in dist if k not in keys]
    observed = [counts[k] for k in keys] + ([sum(counts[k] for k in rest)] if rest else [])
    expected = [float(dist[k]) * n for k in keys] + (
        [sum(float(dist[k]) for k in rest) * n] if rest else []
    )
    if len(observed) > 1:
        assert chisquare(observed, expected).pvalue > SIGNIFICANCE
    else:
        assert observed == [n]


def test_flattop_modifier_help_lists_every_hit_table_modifier_of_the_rules() -> None:
    """docs/rules/flattop.md, *Modifiers to the hit table*: crippled +2, anchored +2, clouds
    -2, night -4 and (rules version 3) a cruiser or destroyer as the target -4, all the
    options' defaults; the help left the last out, which every attack on a cruiser has; and
    the AA table's ``modifier_aa_dive_bombers`` (default 0), which it left out too."""
    o = FlattopOptions()
    [modifier] = [p for p in ATTACK.params if p.name == "modifier"]
    listed = {
        "crippled": o.modifier_crippled,
        "anchored": o.modifier_anchored,
        "clouds": o.modifier_clouds,
        "night": o.modifier_night,
        "small target": o.modifier_small_target,
    }
    assert listed == {"crippled": 2, "anchored": 2, "clouds": -2, "night": -4, "small target": -4}
    assert o.modifier_aa_dive_bombers == 0  # the options table's, on the AA table only
    assert modifier.help == (
        "Hit-table modifier ("
        + ", ".join(f"{words} {value:+d}" for words, value in listed.items())
        + f"; the AA table's dive bombers {o.modifier_aa_dive_bombers:+d})."
    )


def test_flattop_a_logged_resolution_goes_into_the_odds_by_its_factors_not_its_af() -> None:
    """The golden carrier duel's seq 19: Zuikaku's 5 AF of torpedo bombers on the crippled
    Hornet, table 6 + 2 = 8, 5 AF x 2 = 10 factors, column 9-10, cell 2.5 (the matrix's row 8).
    The command takes the event's ``factors``; the 5 AF would read column 5-6, cell 1.5, so
    ``--factors``' help says what the factors are (it said only "Attacking factors.")."""
    [line] = [x for x in GOLDEN_DUEL.read_text(encoding="utf-8").splitlines()
              if '"seq":19,' in x]  # fmt: skip
    event = json.loads(line)
    r = event["result"]
    assert (event["type"], event["aircraft"], event["ship"]) == (
        "flattop.attacked",
        "torpedo_bomber",
        "hornet",
    )
    assert (r["basic_table"], r["modifiers"], r["factors"]) == (6, {"crippled": 2}, 10)
    o = hit_odds(r["basic_table"], r["factors"], sum(r["modifiers"].values()))
    assert (o.hit_table, o.column, o.cell) == ("8", "9-10", Fraction(5, 2))
    assert (o.hit_table, o.column, o.cell) == (r["hit_table"], r["column"], Fraction(r["cell"]))
    assert (hit_odds(6, 5, 2).column, hit_odds(6, 5, 2).cell) == ("5-6", Fraction(3, 2))
    [factors] = [p for p in ATTACK.params if p.name == "factors"]
    assert factors.help == (
        "Attacking factors (an event's result.factors): an attack's AF x 2 "
        "(attack_factor_scale), the AF firing in air combat, or the AA factor."
    )
    assert FlattopOptions().attack_factor_scale == 2


def test_flattop_a_basic_table_off_the_matrix_is_refused_as_hit_table_refuses_it() -> None:
    """hit_odds(99, …) answered for table 15 and hit_odds(-3, …) 'no attack', where the
    command refuses both; a modifier still clamps (above)."""
    for basic in (16, 99, -1, 2.5, True):
        words = rf"^{basic!r} is not a hit table \(0 = \* or 1\.\.15\)$"
        with pytest.raises(ValueError, match=words):
            hit_odds(basic, 14)  # type: ignore[arg-type]
    assert hit_odds(0, 14).hit_table == "*" and hit_odds(15, 14).hit_table == "15"
    assert hit_odds(np.int64(5), 14) == hit_odds(5, 14)  # type: ignore[arg-type]


def test_becmi_thac0_19_against_ac_minus_5_needs_20() -> None:
    """THAC0 19 vs AC −5: H 24 plateaus to 20, hit on a 20 only (p = 1/20)."""
    o = to_hit_odds(19, -5)
    assert (o.h, o.needed, o.die_needed, o.damage_bonus, o.p_hit) == (
        24,
        20,
        20,
        0,
        Fraction(1, 20),
    )


def test_becmi_negative_h_gives_damage_bonus() -> None:
    """THAC0 −3 vs AC 9: H −12 rises to −8 at the 2 plateau; roll 2 needed, +8 damage."""
    o = to_hit_odds(-3, 9)
    assert (o.h, o.needed, o.damage_bonus) == (-12, 2, 8)
    assert o.p_hit == Fraction(19, 20)  # a natural 1 misses (default option)


def test_becmi_range_cover_and_naturals() -> None:
    """Long range −1 and half soft cover −2 move the face needed; full hard cover is impossible."""
    o = to_hit_odds(19, 9, "long", "half-soft")
    assert (o.needed, o.modifiers, o.die_needed, o.p_hit) == (
        10,
        {"range": -1, "cover": -2},
        13,
        Fraction(8, 20),
    )
    assert to_hit_odds(19, 9, cover="full-hard").p_hit == 0
    assert to_hit_odds(19, -25).p_hit == 0
    assert to_hit_odds(19, -25, options=BecmiOptions(natural_20_hits=True)).p_hit == Fraction(1, 20)


def test_becmi_a_range_or_cover_not_offered_is_refused_by_its_name() -> None:
    """From Python as ``--range``/``--cover`` refuse them: a ValueError, not a KeyError."""
    cases = [
        ({"range_band": "lng"}, r"^range_band 'lng' is not one of short, medium, long$"),
        ({"cover": "half"}, r"^cover 'half' is not one of quarter-soft, quarter-hard, half-soft"),
        ({"cover": "half-wet"}, r"^cover 'half-wet' is not one of"),  # was read as hard cover
    ]
    for arguments, words in cases:
        with pytest.raises(ValueError, match=words):
            to_hit_odds(19, 9, **arguments)  # type: ignore[arg-type]


def test_becmi_a_logged_attacks_other_modifiers_go_into_the_odds() -> None:
    """The golden dungeon_skirmish replay's seq 74: Pip (THAC0 19, Dex 17: +2) shoots at a
    goblin of AC 6 at long range (−1) behind half hard cover (−4). H 13 needs 13; the die
    must show 13 − (2 − 1 − 4) = 16, so 5 faces of 20 hit. Without ``--modifier`` the odds
    said 18 and 3/20, not the attack's."""
    [line] = [x for x in GOLDEN_SKIRMISH.read_text(encoding="utf-8").splitlines()
              if '"seq":74,' in x]  # fmt: skip
    to_hit = json.loads(line)["to_hit"]
    assert (to_hit["thac0"], to_hit["ac"], to_hit["needed"], to_hit["roll"]) == (19, 6, 13, 16)
    assert to_hit["modifiers"] == {"dexterity": 2, "range": -1, "cover": -4}
    o = to_hit_odds(19, 6, "long", "half-hard", other=2)
    assert (o.needed, o.modifiers, o.die_needed, o.p_hit) == (
        13,
        {"other": 2, "range": -1, "cover": -4},
        16,
        Fraction(1, 4),
    )
    shown = CliRunner().invoke(
        cli,
        ["odds", "becmi", "--thac0", "19", "--ac", "6", "--modifier", "2", "--range", "long",
         "--cover", "half-hard"],
    )  # fmt: skip
    assert (shown.exit_code, shown.stdout.splitlines()) == (
        0,
        [
            "THAC0 19 − AC 6 = H 13 → needs 13; modifiers: other +2, range -1, cover -4",
            "the d20 must show 16 or more (naturals as set); p(hit) = 0.2500 (exactly 1/4)",
        ],
    )


def test_becmi_odds_writes_the_arithmetic_as_the_narrative_does() -> None:
    """odds becmi's first line writes ``THAC0 − AC = H → needs`` as ``show --events`` writes
    the same logged attack (seq 74 of the golden skirmish): the minus sign for the
    subtraction and ``→``, as ``odds flattop`` writes its arrow (it wrote ``-`` and ``->``)."""
    [line] = [x for x in GOLDEN_SKIRMISH.read_text(encoding="utf-8").splitlines()
              if '"seq":74,' in x]  # fmt: skip
    narrated = to_hit_text(ToHit.model_validate(json.loads(line)["to_hit"]))
    arithmetic = narrated.split(";")[0]  # up to "needs 13"; the roll is no odds'
    shown = CliRunner().invoke(
        cli,
        ["odds", "becmi", "--thac0", "19", "--ac", "6", "--modifier", "2", "--range", "long",
         "--cover", "half-hard"],
    )  # fmt: skip
    first = shown.stdout.splitlines()[0]
    assert (shown.exit_code, first) == (0, f"{arithmetic}; modifiers: other +2, range -1, cover -4")


@pytest.mark.parametrize(
    ("thac0", "ac", "band", "cover"),
    [
        (19, 9, None, None),
        (17, 6, "short", None),
        (19, -5, None, None),
        (10, 2, "long", "half-hard"),
        (-3, 9, None, None),
    ],
)
def test_becmi_live_to_hit_matches_exact(
    thac0: int, ac: int, band: str | None, cover: str | None
) -> None:
    """4,000 live to-hit rolls hit at the exact rate (two-sided binomial test at 0.001)."""
    n = 4_000
    exact = to_hit_odds(thac0, ac, band, cover)
    stream = Stream(5, f"odds/becmi/{thac0}/{ac}/{band}/{cover}")
    options = BecmiOptions()
    hits = sum(
        roll_to_hit(Rolls(stream), thac0, ac, {}, exact.modifiers, options).hit for _ in range(n)
    )
    assert binomtest(hits, n, float(exact.p_hit)).pvalue > SIGNIFICANCE


def test_odds_cli_json_shapes() -> None:
    """odds flattop and odds becmi print the documented JSON keys."""
    runner = CliRunner()
    f = json.loads(
        runner.invoke(
            cli, ["odds", "flattop", "--hit-table", "5", "--factors", "14", "--json"]
        ).stdout
    )
    assert (f["mean"], f["cell"], f["distribution"]["2"]) == (2.3, 2.3, 0.34)
    b = json.loads(
        runner.invoke(cli, ["odds", "becmi", "--thac0", "19", "--ac", "-5", "--json"]).stdout
    )
    assert (b["needed"], b["damage_bonus"], b["p_hit"]) == (20, 0, 0.05)
    assert b["distribution"] == {"hit": 0.05, "miss": 0.95}
    bad = runner.invoke(cli, ["odds", "flattop", "--hit-table", "16", "--factors", "3"])
    assert bad.exit_code == 2
    assert "'16' is not a hit table (* or 1..15)" in bad.stderr


def test_a_modified_hit_table_is_read_from_the_table_given_to_the_row_read() -> None:
    """`--hit-table 7 --modifier -2` read row 5 and said only `hit table 5`, as if 5 had been
    given; it says `hit table 7 -2 → 5`, as the narrative reads a modified table."""

    def first(*args: str) -> str:
        result = CliRunner().invoke(cli, ["odds", "flattop", *args], prog_name="battlesim")
        assert result.exit_code == 0, result.output
        return result.stdout.splitlines()[0]

    assert first("--hit-table", "7", "--factors", "12", "--modifier", "-2") == (
        "hit table 7 -2 → 5, 12 factors (column 11-12): cell 1.9"
    )
    assert first("--hit-table", "15", "--factors", "3", "--modifier", "5").startswith(
        "hit table 15 +5 → 15, "
    )
    assert first("--hit-table", "1", "--factors", "3", "--modifier", "-5") == (
        "hit table 1 -5: below the * row: no attack"
    )
    assert first("--hit-table", "5", "--factors", "14") == (
        "hit table 5, 14 factors (column 13-15): cell 2.3"
    )


def test_every_odds_command_with_a_mean_gives_it_exact_too() -> None:
    """`odds becmi --json` gave `mean` (p_hit) without the `mean_exact` that `musket-fire`,
    `musket-melee` and `flattop` give beside it: a script reading it failed on becmi alone."""
    runner = CliRunner()
    for args in (
        ["musket-fire", "--value", "1800"],
        ["musket-melee", "--value", "450"],
        ["flattop", "--hit-table", "5", "--factors", "14"],
        ["becmi", "--thac0", "19", "--ac", "9", "--range", "long", "--cover", "half-soft"],
    ):
        data = json.loads(runner.invoke(cli, ["odds", *args, "--json"]).stdout)
        assert {"mean", "mean_exact"} <= set(data), args
    becmi = json.loads(
        runner.invoke(
            cli,
            [
                "odds",
                "becmi",
                "--thac0",
                "19",
                "--ac",
                "9",
                "--range",
                "long",
                "--cover",
                "half-soft",
                "--json",
            ],
        ).stdout
    )
    assert (becmi["mean"], becmi["mean_exact"]) == (0.4, "2/5")


def test_flattop_hit_table_takes_a_logged_basic_table_of_0_as_the_star_row() -> None:
    """docs/odds.md: a logged resolution goes into the command, ``--hit-table`` its
    ``basic_table`` (0 is ``*``); ``--hit-table 0`` was refused ('0' is not a hit table),
    though an event on the ``*`` row logs ``basic_table`` 0. It reads row ``*``."""
    runner = CliRunner()

    def out(table: str) -> Any:
        result = runner.invoke(cli, ["odds", "flattop", "--hit-table", table, "--factors", "7"])
        assert result.exit_code == 0, result.output
        return result.stdout

    assert out("0") == out("*")
    assert out("0").splitlines()[0] == "hit table *, 7 factors (column 7-8): cell 0.1"
    assert hit_table("0") == hit_table("*") == 0
    assert (hit_table(" 7"), hit_table("* "), out(" 7")) == (7, 0, out("7"))  # spaces, as ints
    for bad in ("-1", "16", "x", "", " "):
        with pytest.raises(ValueError, match=r"is not a hit table \(\* or 1\.\.15\)$"):
            hit_table(bad)
    [param] = [p for p in ATTACK.params if p.name == "hit_table"]
    assert param.help == (
        "The attacker's basic hit table: * (or 0, as an event's basic_table) or 1..15."
    )
