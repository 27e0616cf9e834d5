"""Exact musket odds, and the live resolver checked against them (chi-square)."""

from __future__ import annotations

import json
from collections import Counter
from fractions import Fraction as F  # noqa: N817 (the tables read better)

import pytest
from click.testing import CliRunner
from scipy.stats import chisquare

from engine.rng import Stream
from sim.cli import cli
from sim.rulesets.musket.model.options import MusketOptions
from sim.rulesets.musket.reading.odds import casualty_odds, guns_lost_odds
from sim.rulesets.musket.rules.results import casualty_roll

SIGNIFICANCE = 0.001
"""Chi-square tests fail below this p-value; fixed seeds make each outcome fixed."""


def test_worked_example_is_exact() -> None:
    """400 / +25 % / 5 / 25: casualties 2..13, mean exactly 15/2, ends 1/80, middle 1/10."""
    o = casualty_odds(F(400), F(25), F(5), F(25))
    assert (o.effective, o.low, o.high, o.mean) == (500, F(5, 2), F(25, 2), F(15, 2))
    assert o.distribution == {
        2: F(1, 80),
        3: F(7, 80),
        **{k: F(1, 10) for k in range(4, 12)},
        12: F(7, 80),
        13: F(1, 80),
    }


def test_alternative_calculation_is_exact_and_peaked() -> None:
    """The triangular case sums to 1, keeps the mean 15/2 and puts more weight mid-range."""
    o = casualty_odds(F(400), F(25), F(5), F(25), alternative=True)
    assert sum(o.distribution.values()) == 1
    assert o.mean == F(15, 2)
    assert o.distribution[7] > F(1, 10) > o.distribution[4]
    # independent check: midpoint integration of triangle × tent on a fine grid
    n = 200_000
    lo, hi = 2.5, 12.5
    width = (hi - lo) / n
    numeric = 0.0
    for i in range(n):
        x = lo + (i + 0.5) * width
        tri = (x - lo) / 25 if x < 7.5 else (hi - x) / 25  # peak 2/(hi-lo) = 0.2
        numeric += tri * max(0.0, 1 - abs(x - 7)) * width
    assert float(o.distribution[7]) == pytest.approx(numeric, abs=1e-9)


def test_morale_check_and_guns_follow_from_the_distribution() -> None:
    """p(check) = Σ P(k)·k/(k+25); guns lost average E[c]/25 = 0.3 in the worked example."""
    o = casualty_odds(F(400), F(25), F(5), F(25))
    assert o.morale_check_p == sum(p * F(k, k + 25) for k, p in o.distribution.items())
    guns = guns_lost_odds(o.distribution)
    assert guns == {0: F(7, 10), 1: F(3, 10)}
    assert (o.fatigue_min, o.fatigue_max, o.fatigue_mean) == (2, 39, 15)


@pytest.mark.parametrize(
    ("v", "m", "alternative"),
    [
        (400, 25, False),
        (1800, -40, False),
        (1800, -40, True),
        (560, 0, True),
        (3120, 50, False),
        (90, -20, False),
    ],
)
def test_live_resolver_matches_exact_distribution(v: int, m: int, alternative: bool) -> None:
    """20,000 live resolutions pass a chi-square test against the exact pmf at 0.001."""
    n = 20_000
    rng = Stream(7, f"odds/{v}/{m}/{alternative}")
    counts = Counter(
        casualty_roll(rng, v, {"m": m}, 5, 25, alternative).casualties for _ in range(n)
    )
    dist = casualty_odds(F(v), F(m), F(5), F(25), alternative).distribution
    assert set(counts) <= set(dist)
    observed, expected = [], []
    pending_o, pending_e = 0, 0.0
    for k, p in dist.items():  # merge bins until each expects at least 5
        pending_o += counts[k]
        pending_e += float(p) * n
        if pending_e >= 5:
            observed.append(pending_o)
            expected.append(pending_e)
            pending_o, pending_e = 0, 0.0
    observed[-1] += pending_o
    expected[-1] += pending_e
    scale = sum(observed) / sum(expected)
    assert chisquare(observed, [e * scale for e in expected]).pvalue > SIGNIFICANCE


def test_odds_cli_json_shape() -> None:
    """odds musket-fire --json prints the distribution, its exact rationals and the mean."""
    result = CliRunner().invoke(
        cli,
        [
            "odds",
            "musket-fire",
            "--value",
            "400",
            "--modifier",
            "25",
            "--target-artillery",
            "--json",
        ],
    )
    assert result.exit_code == 0
    data = json.loads(result.stdout)
    assert data["mean"] == 7.5 and data["mean_exact"] == "15/2"
    assert list(data["distribution"]) == [str(k) for k in range(2, 14)]
    assert data["exact"]["2"] == "1/80"
    assert data["guns_lost"] == {"0": 0.7, "1": 0.3}


def test_odds_cli_refuses_a_bad_number() -> None:
    """A modifier that is not a number is a usage error: exit 2."""
    result = CliRunner().invoke(cli, ["odds", "musket-fire", "--value", "400", "--modifier", "x"])
    assert result.exit_code == 2
    assert "Invalid value for '--modifier': 'x' is not a number" in result.stderr
    result = CliRunner().invoke(
        cli, ["odds", "musket-fire", "--value", "400", "--modifier", "-40%"]
    )
    assert result.exit_code == 2
    assert (
        "Invalid value for '--modifier': '-40%' is not a number: write it without '%' (-40)"
        in result.stderr
    )


def test_odds_cli_reads_a_typeset_minus_as_a_minus() -> None:
    """docs/odds.md prints "−40" (U+2212, as typeset): copied into --modifier it is -40."""
    args = ["odds", "musket-fire", "--value", "1800", "--json", "--modifier"]
    typeset, plain = (CliRunner().invoke(cli, [*args, m]) for m in ("\u221240", "-40"))
    assert (typeset.exit_code, typeset.stdout) == (0, plain.stdout)
    for args in (  # every ruleset's odds: whole numbers too, and after "="
        ["odds", "becmi", "--thac0", "19", "--ac", "{}5"],
        ["odds", "flattop", "--hit-table", "7", "--factors", "12", "--modifier={}2"],
    ):
        typeset, plain = (
            CliRunner().invoke(cli, [a.format(m) for a in args]) for m in ("\u2212", "-")
        )
        assert (typeset.exit_code, typeset.stdout) == (0, plain.stdout)


def test_odds_cli_refuses_lcv_above_hcv() -> None:
    """LCV above HCV is a usage error with the reason, exit 2, no traceback."""
    result = CliRunner().invoke(
        cli, ["odds", "musket-fire", "--value", "100", "--lcv", "30", "--hcv", "5"]
    )
    assert result.exit_code == 2
    assert "need V >= 0 and 0 <= LCV <= HCV, not V 100, LCV 30, HCV 5" in result.stderr


def test_a_melee_winners_odds_say_the_default_rules_give_it_no_check() -> None:
    """The seed's check probability is printed for either side; under the rules' default
    (``melee_winner_tests`` false) only the loser takes it, and the winner's odds say so."""
    assert MusketOptions().melee_winner_tests is False
    winner = CliRunner().invoke(cli, ["odds", "musket-melee", "--value", "400", "--modifier", "25"])
    loser = CliRunner().invoke(
        cli, ["odds", "musket-melee", "--value", "400", "--modifier", "25", "--loser"]
    )
    assert (winner.exit_code, loser.exit_code) == (0, 0)
    said = "a melee's winner takes no morale check for these losses under the default rules"
    assert winner.stdout.splitlines()[-1].startswith(said)
    assert said not in loser.stdout
