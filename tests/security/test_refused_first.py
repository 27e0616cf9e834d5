"""Refused before writing, never written then refused (issue 25, items 4, 5 and 11).

The API validates what the CLI validates (one seed check, one turn check),
a study refuses impossible factor values before it starts, and a 5,000-digit
number is one short line wherever it is typed.
"""

from __future__ import annotations

import math
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import sim.cli.outcomes.batch  # noqa: F401  # registers batch, rerun, export
from sim import api
from sim.scenario.values import SEED_MAX, ValueProblem, check_seed, seed_from_text
from tests.forge import GOLDEN, invoke

ROOT = Path(__file__).resolve().parents[2]
BRAWL = ROOT / "scenarios" / "tavern_brawl.yaml"
LONG = "7" * 5000


@pytest.mark.parametrize("seed", [-1, 2**63, 2**64, True, False, "7", 7.0])
def test_the_api_refuses_a_seed_the_cli_refuses(tmp_path: Path, seed: object) -> None:
    """``api.run(S, seed=…)`` refuses what ``--seed`` refuses, before anything is written."""
    with pytest.raises(ValueProblem, match="is not a seed: use a whole number from 0 to"):
        api.run(BRAWL, seed=seed, out=tmp_path / "r.jsonl")  # type: ignore[arg-type]
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("seed", [-1, 2**63, 2**64])
def test_the_cli_and_the_api_say_the_same(tmp_path: Path, seed: int) -> None:
    """The message is the shared check's, word for word, in both."""
    result = invoke("run", str(BRAWL), "--seed", str(seed), "--out", str(tmp_path / "r.jsonl"))
    assert result.exit_code == 2
    with pytest.raises(ValueProblem) as caught:
        api.run(BRAWL, seed=seed, out=tmp_path / "r.jsonl")
    assert str(caught.value) in result.output


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, SEED_MAX))
def test_every_seed_in_range_is_accepted_as_text_and_number(seed: int) -> None:
    """Every whole number from 0 to 2⁶³ − 1 is a seed, typed or passed, with or without ``_``."""
    assert check_seed(seed) == seed == seed_from_text(f"{seed:_}") == seed_from_text(str(seed))


def test_the_edges_of_the_seed_range_run(tmp_path: Path) -> None:
    """0 and 2⁶³ − 1 run through the API and the replay verifies (no DAMAGED header)."""
    for seed in (0, SEED_MAX):
        out = tmp_path / f"s{seed}.jsonl"
        assert api.run(BRAWL, seed=seed, out=out).seed == seed
        assert api.verify_replay(out).ok


@pytest.mark.parametrize("turn", [-1, math.nan, math.inf, -math.inf, 1.0, True, "2"])
def test_state_at_refuses_a_turn_show_refuses(turn: object) -> None:
    """``state_at(turn=-1 | nan | inf)`` is refused, as ``show --turn`` refuses it."""
    with pytest.raises(ValueProblem, match="is not a turn: use a whole number from 0"):
        api.state_at(GOLDEN, turn)  # type: ignore[arg-type]


def test_state_at_takes_a_turn_in_range() -> None:
    """A whole turn still folds (turn 0 is the start: nobody has fallen)."""
    assert api.state_at(GOLDEN, 0) == api.open_replay(GOLDEN).state_at(0)


# studies (item 5)

HP = "sides.0.characters.0.hp"
"""A becmi character's hit points: a whole number from 1 to 1,000."""


def test_a_campaign_battles_own_seed_is_no_factor(tmp_path: Path) -> None:
    """A campaign's battles are fought with seeds derived from the run's: a battle's own
    ``seed`` changes no run (with --crn its points were identical, without it their noise was
    credited to the factor), so it is refused as the scenario's seed is."""
    out = tmp_path / "st"
    campaign = ROOT / "scenarios" / "delve_campaign.yaml"
    sweep = "battles.barricade.scenario.seed=1,2"
    result = invoke("batch", str(campaign), "--runs", "2", "--out", str(out), "--sweep", sweep)
    assert result.exit_code == 2, result.output
    assert result.stderr == (
        f"battlesim: error: {campaign}: --sweep battles.barricade.scenario.seed: a study fights "
        "each run "
        "with a seed of its own, derived from its own seed, so the scenario's seed changes no "
        "run: give more replications, or another seed\n"
    )
    assert not out.exists()


@pytest.mark.parametrize(
    ("sweep", "message"),
    [
        (
            f"{HP}={2**63}",
            f"design point 0 ({HP}={2**63}): out of range (a study stores whole numbers from "
            f"{-(2**63)} to {2**63 - 1})",
        ),
        (f"{HP}=-5", f"--sweep {HP}: design point 0 ({HP}=-5): -5 is less than 1"),
        (f"{HP}=1,-5", f"--sweep {HP}: design point 1 ({HP}=-5): -5 is less"),
        # no run reads the scenario's seed: each has its own, from the study's
        ("seed=1,-5", "--sweep seed: a study fights each run with a seed of its own"),
    ],
)
def test_an_impossible_factor_value_is_refused_before_the_study_starts(
    tmp_path: Path, sweep: str, message: str
) -> None:
    """Exit 2, one line, and no folder: never a stub study.duckdb that resume, export
    and rerun cannot open, never every run "failed: invalid scenario" and exit 0."""
    out = tmp_path / "st"
    result = invoke("batch", str(BRAWL), "--runs", "2", "--out", str(out), "--sweep", sweep)
    assert result.exit_code == 2, result.output
    assert result.stderr.count("\n") == 1 and message in result.stderr, result.stderr
    assert not out.exists()


# 5,000 digits (item 11)


@pytest.mark.parametrize(
    ("args", "line"),
    [
        (
            ["run", str(BRAWL), "--seed", LONG],
            "battlesim run: error: Invalid value for '--seed': a 5000-digit number is not "
            "a seed: use a whole number from 0 to 9223372036854775807 "
            "(see 'battlesim run --help')",
        ),
        (
            ["show", str(GOLDEN), "--turn", LONG],
            "battlesim show: error: Invalid value for '--turn': a 5000-digit number is out "
            "of range (see 'battlesim show --help')",
        ),
        (
            ["fork", str(GOLDEN), "--at", LONG, "--set", "passed=true"],
            "battlesim fork: error: Invalid value for '--at': a 5000-digit number is out "
            "of range (see 'battlesim fork --help')",
        ),
    ],
)
def test_a_5000_digit_number_is_one_short_line(args: list[str], line: str) -> None:
    """Named by its length: not echoed whole, never Python's int-conversion limit message."""
    done = subprocess.run(
        [sys.executable, "-c", "from sim.cli import main; main()", *args],
        capture_output=True,
        text=True,
        check=False,
    )
    assert (done.returncode, done.stdout, done.stderr) == (2, "", line + "\n")


def test_a_5000_digit_number_in_a_scenario_is_one_short_line(tmp_path: Path) -> None:
    """In a YAML file it is a located problem, named by its length."""
    text = BRAWL.read_text(encoding="utf-8").replace("seed: 377", f"seed: {LONG}")
    bad = tmp_path / "big.yaml"
    bad.write_text(text, encoding="utf-8")
    line = next(i for i, t in enumerate(text.splitlines(), 1) if t.startswith("seed:"))
    result = invoke("validate", str(bad))
    assert result.exit_code == 2
    assert f"{bad}:{line}: seed: a 5000-digit number is out of range" in result.output


@pytest.mark.parametrize(
    ("change", "reason"),
    [
        ({"seed": 2**64}, "integer 18446744073709551616 is out of range"),
        ({"source": "a\x01.yaml"}, "source: control characters are not allowed"),
        ({"source": "../a.yaml"}, "source '../a.yaml' is not a scenario file name"),
    ],
)
def test_no_battle_starts_with_a_header_its_reader_refuses(
    change: dict[str, object], reason: str
) -> None:
    """The backstop behind every check: the runner reads the header back as ``verify``
    will (``engine.replayfile.checks.check_written_header``) and refuses before a line is
    written."""
    from engine.log import MemorySink
    from sim.replay.header import make_header
    from sim.scenario.load import load_scenario

    ruleset, scenario = load_scenario(BRAWL)
    header = make_header(ruleset, scenario, 377).model_copy(update=change)
    sink = MemorySink()
    with pytest.raises(ValueError, match="a replay with this header would not read back: ") as e:
        ruleset.simulate(scenario, header, sink)
    assert reason in str(e.value)
    assert sink.lines == []
