"""The ``odds`` hook: a ruleset's resolutions become ``battlesim odds`` commands, a plugin's too.

The toy plugin ``pips`` (installed by this package's conftest) offers
``pips-rolls``; its expected odds are counted here over every face of every
die, independently of the toy's binomial formula.
"""

from __future__ import annotations

import dataclasses
import json
import sys
from collections.abc import Mapping
from fractions import Fraction
from itertools import product
from pathlib import Path
from typing import Any

import click
import pytest
from click.testing import CliRunner, Result

import sim.contract
from sim.cli import cli
from sim.cli.main import main
from sim.cli.rulesets.odds import command, command_names
from sim.contract import (
    BUILTIN,
    OddsInputError,
    OddsParam,
    OddsResolution,
    OddsResult,
    get_ruleset,
    read_exact,
    ruleset_names,
)
from tests.contract.toy import RULESET as TOY
from tests.contract.toy.odds import ROLLS

PAGE = Path(__file__).resolve().parents[2] / "docs" / "rulesets.md"


def _cli(*args: str) -> Result:
    return CliRunner().invoke(cli, list(args), prog_name="battlesim")


def _counted(rolls: int, hit_on: int = 5) -> dict[int, Fraction]:
    """P(k hits) counted over all 6**rolls equally likely throws of the dice."""
    counts = [0] * (rolls + 1)
    for faces in product(range(1, 7), repeat=rolls):
        counts[sum(face >= hit_on for face in faces)] += 1
    return {k: Fraction(c, 6**rolls) for k, c in enumerate(counts)}


def _console(*args: str, monkeypatch: pytest.MonkeyPatch, capsys: Any) -> tuple[int, str, str]:
    """Run ``battlesim`` as the console script does (its one-line errors): code, out, err."""
    monkeypatch.setattr(sys, "argv", ["battlesim", *args])
    with pytest.raises(SystemExit) as ended:
        main()
    out, err = capsys.readouterr()
    return int(ended.value.code or 0), out, err


# the toy plugin's command


@pytest.mark.parametrize(("rolls", "hit_on"), [(1, 5), (3, 5), (4, 5), (3, 2), (2, 6)])
def test_plugin_odds_json_are_the_counted_distribution(rolls: int, hit_on: int) -> None:
    """`odds pips-rolls --json` gives exactly the probabilities counted over every throw."""
    result = _cli("odds", "pips-rolls", "--rolls", str(rolls), "--hit-on", str(hit_on), "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    counted = _counted(rolls, hit_on)
    assert data["exact"] == {str(k): str(p) for k, p in counted.items()}
    assert data["distribution"] == {str(k): float(p) for k, p in counted.items()}
    mean = sum(k * p for k, p in counted.items())
    assert (data["mean_exact"], data["mean"]) == (str(mean), float(mean))
    assert (data["rolls"], data["hit_on"]) == (rolls, hit_on)


def test_plugin_odds_text_shows_the_binomial() -> None:
    """Three rolls hitting on 5+: 8/27, 12/27, 6/27, 1/27, their running sums and mean 1."""
    # P = C(3,k) (1/3)^k (2/3)^(3-k); bars are round(60 p): 17.8, 26.7, 13.3, 2.2 -> 18, 27, 13, 2
    assert _cli("odds", "pips-rolls", "--rolls", "3").stdout.splitlines() == [
        "      pips  probability  cumulative",
        "         0     0.296296    0.296296  " + "#" * 18,
        "         1     0.444444    0.740741  " + "#" * 27,
        "         2     0.222222    0.962963  " + "#" * 13,
        "         3     0.037037    1.000000  " + "#" * 2,
        "mean 1 (exactly 1)",
    ]


def test_plugin_odds_are_listed() -> None:
    """`battlesim odds --help` lists the plugin's command with its summary, beside the built-ins."""
    listing = _cli("odds", "--help").stdout.split("Commands:")[1]
    names = [line.split()[0] for line in listing.splitlines() if line.strip()]
    assert names == ["becmi", "flattop", "musket-fire", "musket-melee", "pips-rolls"]
    assert "pips-rolls    Exact pips taken by N rolls of a d6." in listing


def test_plugin_odds_help_shows_its_example_and_defaults() -> None:
    """`odds pips-rolls --help` has the example under the command's name and --hit-on's default."""
    text = " ".join(_cli("odds", "pips-rolls", "--help").stdout.split())
    assert "Example: battlesim odds pips-rolls --rolls 3 " in text
    assert "--hit-on N The face a roll hits on. [default: 5; 2<=x<=6]" in text


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--rolls", "0"], "Invalid value for '--rolls': 0 is not in the range 1<=x<=60."),
        (["--rolls", "3", "--hit-on", "7"], "Invalid value for '--hit-on': 7 is not in the range"),
        (["--rolls", "x"], "Invalid value for '--rolls': 'x' is not a whole number."),
        ([], "Missing option '--rolls'."),
    ],
)
def test_plugin_odds_bad_parameter_is_one_line_exit_2(
    args: list[str], message: str, monkeypatch: pytest.MonkeyPatch, capsys: Any
) -> None:
    """A bad or missing parameter of the plugin's command: one line naming it, exit 2."""
    code, out, err = _console("odds", "pips-rolls", *args, monkeypatch=monkeypatch, capsys=capsys)
    assert (code, out) == (2, "")
    assert err.startswith(f"battlesim odds pips-rolls: error: {message}")
    assert err.endswith(" (see 'battlesim odds pips-rolls --help')\n")
    assert err.count("\n") == 1


# every installed ruleset


def test_builtin_rulesets_offer_their_odds_through_the_hook() -> None:
    """musket, flattop and becmi offer exactly the four documented commands through `odds`."""
    offered = {n: [r.name for r in get_ruleset(n).odds] for n in BUILTIN}
    assert offered == {
        "musket": ["musket-fire", "musket-melee"],
        "becmi": ["becmi"],
        "flattop": ["flattop"],
    }


@pytest.mark.parametrize("name", sorted({*ruleset_names(), "pips"}))
def test_each_resolution_is_a_command_whose_help_runs(name: str) -> None:
    """Every resolution of every installed ruleset is an odds command whose --help exits 0."""
    for resolution in get_ruleset(name).odds:
        result = _cli("odds", resolution.name, "--help")
        assert result.exit_code == 0, result.output
        assert resolution.summary in result.stdout


# the naming rule


def test_a_later_ruleset_with_a_taken_name_is_prefixed() -> None:
    """A name already offered stays with the first ruleset; the later's is `<ruleset>.<name>`."""
    names = command_names([("musket", ["musket-fire"]), ("aaa", ["musket-fire", "dice"])])
    assert names == {
        "musket-fire": ("musket", "musket-fire"),
        "aaa.musket-fire": ("aaa", "musket-fire"),
        "dice": ("aaa", "dice"),
    }


def test_a_ruleset_offering_a_name_twice_is_refused() -> None:
    """One ruleset offering the same command twice is one clear error."""
    with pytest.raises(LookupError, match="ruleset 'aaa' offers the odds command 'dice' twice"):
        command_names([("aaa", ["dice", "dice"])])


def test_builtins_keep_their_names_before_a_plugin_sorted_first(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A plugin 'aaa' also offering `becmi` gets `aaa.becmi`: built-in rulesets come first."""
    clash = dataclasses.replace(TOY, name="aaa", odds=(dataclasses.replace(ROLLS, name="becmi"),))
    real = sim.contract.get_ruleset
    monkeypatch.setattr(
        sim.contract, "loaded_rulesets", lambda: [clash, *(real(n) for n in BUILTIN)]
    )
    listing = _cli("odds", "--help").stdout.split("Commands:")[1]
    assert "aaa.becmi     Exact pips taken by N rolls of a d6." in listing
    assert "becmi         Roll needed, damage bonus and chance to hit of one attack." in listing
    data = json.loads(_cli("odds", "aaa.becmi", "--rolls", "1", "--json").stdout)
    assert data["exact"] == {"0": "2/3", "1": "1/3"}


# the types


def _echo(values: Mapping[str, Any]) -> OddsResult:
    """Print the values as given to compute (for the tests of parameter kinds)."""
    shown = {k: str(v) if isinstance(v, Fraction) else v for k, v in values.items()}
    if values.get("share") == Fraction(1, 7):
        raise OddsInputError("a seventh is refused by these rules")
    return OddsResult(tuple(f"{k}={v}" for k, v in shown.items()), shown)


ECHO = OddsResolution(
    name="echo",
    summary="Echo the values.",
    params=(
        OddsParam("share", "exact", "A share.", low=0, high=1),
        OddsParam("word", "text", "A word.", parse=str.upper),
        OddsParam("colour", "choice", "A colour.", choices=("red", "blue"), default="red"),
    ),
    compute=_echo,
    examples=("--share 1/3",),
)


def _echo_cli(*args: str) -> Result:
    return CliRunner().invoke(command(ECHO, "echo"), list(args))


def test_a_parameter_names_its_value_in_help_as_its_metavar_says() -> None:
    """A parameter's ``metavar`` is the word ``--help`` shows after its option; without one
    each kind shows what it always has (a text TEXT, an exact NUMBER, an integer N)."""
    named = OddsResolution(
        name="named",
        summary="Named values.",
        params=(
            OddsParam("table", "text", "A table.", metavar="TABLE"),
            OddsParam("share", "exact", "A share.", metavar="P"),
            OddsParam("shots", "integer", "Shots.", metavar="SHOTS"),
            OddsParam("word", "text", "A word."),
            OddsParam("value", "exact", "A value."),
            OddsParam("count", "integer", "A count."),
        ),
        compute=_echo,
        examples=("--table 7",),
    )
    ctx = click.Context(command(named, "named"), info_name="named")
    shown = {
        record[0].split()[0]: record[0].split()[1]
        for p in ctx.command.get_params(ctx)
        if isinstance(p, click.Option)
        and not p.is_flag
        and (record := p.get_help_record(ctx)) is not None
    }
    assert shown == {
        "--table": "TABLE",
        "--share": "P",
        "--shots": "SHOTS",
        "--word": "TEXT",
        "--value": "NUMBER",
        "--count": "N",
    }


def test_values_reach_compute_by_name_and_kind() -> None:
    """An exact number arrives a Fraction, a text word parsed, an absent option None."""
    assert _echo_cli("--share", "0.25", "--word", "hi", "--json").stdout == (
        '{"share": "1/4", "word": "HI", "colour": "red"}\n'
    )
    assert _echo_cli().stdout == "share=None\nword=None\ncolour=red\n"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--share", "3/2"], "Invalid value for '--share': '3/2' is not in the range 0<=x<=1"),
        (["--share", "x"], "Invalid value for '--share': 'x' is not a number"),
        (["--share", "1/7"], "a seventh is refused by these rules"),
    ],
)
def test_bad_values_are_usage_errors(args: list[str], message: str) -> None:
    """Out of bounds, not a number, or refused by compute: a usage error, exit 2."""
    result = _echo_cli(*args)
    assert result.exit_code == 2
    assert message in result.stderr


def test_exact_numbers_are_read_exactly_and_bounded() -> None:
    """`read_exact` keeps 0.1 as 1/10 and refuses 1e308 and a denominator above 10**9."""
    assert read_exact("0.1") == Fraction(1, 10)
    assert read_exact("-1/3") == Fraction(-1, 3)
    for text in ("1e308", "1/1000000001"):
        with pytest.raises(OddsInputError, match="out of range"):
            read_exact(text)


@pytest.mark.parametrize(
    ("make", "problem"),
    [
        (lambda: OddsParam("json", "flag", "x"), "snake_case word, not help or json"),
        (lambda: OddsParam("Bad", "flag", "x"), "snake_case word"),
        (lambda: OddsParam("on", "flag", "x", default=True), "must be negatable"),
        (lambda: OddsParam("n", "integer", "x", default=9, high=6), "out of its bounds"),
        (lambda: OddsParam("n", "integer", "x", default="9"), "not a value of kind integer"),
        (lambda: OddsParam("c", "choice", "x", choices=("a",), default="b"), "not one of"),
        (lambda: OddsParam("c", "choice", "x"), "has choices"),
        (lambda: OddsParam("v", "exact", "x", required=True, default=1), "has no default"),
        (lambda: OddsParam("n", "integer", "x", low=Fraction(1, 2)), "whole numbers"),
        (lambda: OddsParam("v", "exact", "x", low=1, high=0), "low 1 is above high 0"),
        (lambda: OddsParam("on", "flag", "x", metavar="ON"), "a flag takes no value"),
        (
            lambda: OddsParam("c", "choice", "x", choices=("a",), metavar="C"),
            "a choice shows its choices",
        ),
        (lambda: OddsParam("t", "text", "x", metavar="the table"), "an upper-case word"),
    ],
)
def test_a_parameter_no_command_could_offer_is_refused(make: Any, problem: str) -> None:
    """An impossible parameter fails where the plugin defines it, with the reason."""
    with pytest.raises(ValueError, match=problem):
        make()


def test_a_resolution_needs_a_command_name_and_an_example() -> None:
    """A resolution's name is lowercase words joined by '-', and --help needs an example."""
    with pytest.raises(ValueError, match="lowercase words"):
        dataclasses.replace(ECHO, name="Echo it")
    with pytest.raises(ValueError, match="at least one example"):
        dataclasses.replace(ECHO, examples=())
    with pytest.raises(ValueError, match="same name"):
        dataclasses.replace(ECHO, params=ECHO.params[:1] * 2)


def test_the_odds_group_is_a_click_group_of_commands() -> None:
    """The odds group hands back click commands for listed names, None for others."""
    odds = cli.get_command(click.Context(cli), "odds")
    assert isinstance(odds, click.Group)
    ctx = click.Context(odds, info_name="odds")
    assert isinstance(odds.get_command(ctx, "pips-rolls"), click.Command)
    assert odds.get_command(ctx, "nosuch") is None


def _fenced(lang: str, starts: str) -> list[str]:
    """The lines of docs/rulesets.md's ``lang`` block whose first line starts with ``starts``."""
    text = PAGE.read_text(encoding="utf-8")
    head = f"```{lang}\n{starts}"
    assert head in text, f"docs/rulesets.md has no {lang} block starting {starts!r}"
    return (starts + text.split(head, 1)[1].split("\n```\n", 1)[0]).split("\n")


def test_the_guide_example_prints_what_the_guide_shows() -> None:
    """docs/rulesets.md's odds example, run as a command, prints the page's output."""
    code = _fenced("python", "# exact odds")
    command_line, *shown = _fenced("console", "$ battlesim odds duel-volley")
    namespace: dict[str, Any] = {}
    exec(compile("\n".join(code), str(PAGE), "exec"), namespace)
    volley = namespace["VOLLEY"]
    assert isinstance(volley, OddsResolution)
    assert command_line.startswith("$ battlesim odds duel-volley ")
    args = command_line.split()[4:]
    printed = CliRunner().invoke(command(volley, "duel-volley"), args).stdout.splitlines()
    assert printed == shown
    # 2 shots at 1/3: (2/3)^2 = 4/9, 2 (1/3)(2/3) = 4/9, (1/3)^2 = 1/9
    data = json.loads(CliRunner().invoke(command(volley, "x"), [*args, "--json"]).stdout)
    assert data["exact"] == {"0": "4/9", "1": "4/9", "2": "1/9"}


def _broken(values: Mapping[str, Any]) -> OddsResult:
    if values["share"] == Fraction(1, 3):
        return {"lines": []}  # type: ignore[return-value]  # a plugin's wrong type
    return OddsResult(("1",), {"x": values["nope"]})  # KeyError: a plugin's bug


BROKEN = dataclasses.replace(ECHO, name="broken", compute=_broken, examples=("--share 1/3",))


def test_a_compute_that_raises_or_returns_the_wrong_type_is_one_line_naming_the_ruleset() -> None:
    """compute is the plugin's code: its error (not an OddsInputError) or a result of the
    wrong type is a HookError naming the ruleset, the command and where (it said only
    "TypeError: can't multiply sequence by non-int of type 'Fraction'")."""
    run = command(BROKEN, "broken", "dba")
    raised = CliRunner().invoke(run, ["--share", "1/4"]).exception
    assert isinstance(raised, sim.contract.HookError)
    line = _broken.__code__.co_firstlineno + 3
    assert str(raised) == (
        f"ruleset 'dba': odds broken raised KeyError: 'nope' (at test_odds_hook.py:{line})"
    )
    returned = CliRunner().invoke(run, ["--share", "1/3", "--json"]).exception
    assert str(returned) == "ruleset 'dba': odds broken returned dict, not OddsResult"
    result = CliRunner().invoke(cli, ["odds", "pips-rolls", "--rolls", "2"])
    assert result.exit_code == 0  # a sound command is untouched


def test_check_ruleset_runs_every_odds_example_as_text_and_json() -> None:
    """odds-examples-run: every example of every command, text and --json; the first that
    does not run is named with the command line and what it said."""
    from sim.conformance.checks_tools import _odds_problem

    assert _odds_problem(TOY) == ""
    broken: Any = dataclasses.replace(TOY, name="pips_broken", odds=(ROLLS, BROKEN))
    assert _odds_problem(broken) == (
        "battlesim odds broken --share 1/3: ruleset 'pips_broken': odds broken returned "
        "dict, not OddsResult"
    )
    no_json = OddsResolution(
        name="nojson", summary="s.", params=(), examples=("",),
        compute=lambda values: OddsResult(("a line",), {"p": Fraction(1, 3)}),
    )  # fmt: skip
    assert _odds_problem(dataclasses.replace(TOY, odds=(no_json,))) == (
        "battlesim odds nojson --json: ruleset 'pips': odds nojson returned data that is "
        "not plain JSON (Object of type Fraction is not JSON serializable)"
    )


def test_distribution_json_of_outcomes_in_words_has_no_mean() -> None:
    """Categorical outcomes (a DBA-style recoil) render; only numbers have a mean."""
    words = {"stand": Fraction(1, 4), "recoil": Fraction(3, 4)}
    assert sim.contract.distribution_json(words) == {
        "distribution": {"stand": 0.25, "recoil": 0.75},
        "exact": {"stand": "1/4", "recoil": "3/4"},
    }
    assert sim.contract.distribution_json({0: Fraction(1, 4), 2: Fraction(3, 4)})["mean_exact"] == (
        "3/2"
    )
    assert sim.contract.distribution_table(words, "result")[1].split() == [
        "stand", "0.250000", "###############",
    ]  # fmt: skip


def test_a_table_of_outcomes_in_words_lines_up_and_accumulates_nothing() -> None:
    """Words longer than the 10-wide column (the guide's "attacker recoil") widen it, so the
    probabilities line up; words have no order, so there is no cumulative column."""
    words = {"attacker recoils": Fraction(1, 3), "defender destroyed": Fraction(1, 6),
             "stand": Fraction(1, 2)}  # fmt: skip
    assert sim.contract.distribution_table(words, "result") == (
        "            result  probability",
        "  attacker recoils     0.333333  ####################",
        "defender destroyed     0.166667  ##########",
        "             stand     0.500000  ##############################",
    )
    numbers = sim.contract.distribution_table({0: Fraction(1, 4), 2: Fraction(3, 4)}, "hits")
    assert numbers[0] == "      hits  probability  cumulative"


def test_a_broken_odds_example_fails_even_when_no_scenario_runs(tmp_path: Path) -> None:
    """odds-examples-run fights no scenario: a ruleset whose scenario does not run (here it
    ships none) still has its odds examples run and a broken one failed, not "not checked"
    until the battle is fixed."""
    from sim.conformance.battle import Battle
    from sim.conformance.checks_tools import ODDS_EXAMPLES_RUN
    from sim.conformance.requirement import NotChecked, RequirementFailed
    from sim.rulesets.musket import RULESET

    ruleset = dataclasses.replace(RULESET, odds=(BROKEN,))
    battle = Battle(ruleset, None, tmp_path)
    with pytest.raises(NotChecked):
        battle.loaded  # noqa: B018  # no scenario: no battle to read
    with pytest.raises(RequirementFailed) as failed:
        ODDS_EXAMPLES_RUN(battle)
    assert "battlesim odds broken --share 1/3: ruleset 'musket': odds broken returned dict" in (
        str(failed.value)
    )
