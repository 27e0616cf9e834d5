"""Verdicts on intervals: pass, FAIL or inconclusive; re-fights of an inconclusive case that
continue its seeds; the exit codes; the expected failures by chance."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import pytest
from scipy.stats import binom  # type: ignore[import-untyped]

from sim.batch.methods.stats import wilson
from sim.history.case import Accept
from sim.history.render import by_chance
from tests.batch.helpers import SCENARIOS, invoke

CASE = """\
format: 1
id: {id}
title: A small case
scenario: {scenario}
seed: 7
runs: {runs}
measures:
  - id: holds
    label: P(the Confederates hold)
    kind: win
    side: csa
    historical: 1
    accept: {accept}
    source: A test.
"""


def suite(tmp_path: Path, accept: str, runs: int = 4, case_id: str = "small") -> Path:
    folder = tmp_path / f"suite_{case_id}_{runs}"
    folder.mkdir(exist_ok=True)
    text = CASE.format(id=case_id, scenario=SCENARIOS / "stone_wall.yaml", runs=runs, accept=accept)
    (folder / f"{case_id}.yaml").write_text(text)
    return folder


@pytest.mark.parametrize(
    ("accept", "interval", "verdict"),
    [
        ({"min": 0.5}, (0.5, 0.9), "pass"),  # the bounds are inside
        ({"min": 0.5}, (0.49, 0.9), "inconclusive"),
        ({"min": 0.5}, (0.1, 0.4999), "fail"),
        ({"max": 0.1}, (0.0, 0.1), "pass"),
        ({"max": 0.1}, (0.1, 0.2), "inconclusive"),  # touching is not wholly outside
        ({"max": 0.1}, (0.1001, 0.2), "fail"),
        ({"min": 3, "max": 7}, (2.5, 7.5), "inconclusive"),
        ({"min": 3, "max": 7}, (7.01, 8), "fail"),
        ({"min": 3, "max": 7}, (1, 2.99), "fail"),
        ({"min": 3, "max": 7}, (3, 7), "pass"),
        ({"min": 3, "max": 7}, (math.nan, math.nan), "inconclusive"),  # one run: no interval
    ],
)
def test_a_verdict_is_the_whole_interval_against_the_range(
    accept: dict[str, float], interval: tuple[float, float], verdict: str
) -> None:
    low, high = interval
    value = 5.0 if math.isnan(low) else (low + high) / 2
    assert Accept.model_validate(accept).verdict(value, low, high) == verdict


def test_no_estimate_at_all_fails() -> None:
    """A ratio over nothing (the other side lost nothing in any run) is no estimate."""
    assert Accept(min=3, max=7).verdict(math.nan, math.nan, math.nan) == "fail"


def test_an_inconclusive_case_is_fought_again_on_the_next_seeds(tmp_path: Path) -> None:
    """The Confederates hold in every run of these: 4 of 4 is Wilson [0.51, 1], inconclusive
    against ≥ 0.9; so is 8 of 8 ([0.68, 1]) and 16 of 16 ([0.81, 1]): the case is fought to
    the cap of 16 and stays inconclusive, exit 1 (0 with --allow-inconclusive). Its runs are
    replications 0-15, the same as a case that asks for 16 runs at once."""
    folder = suite(tmp_path, "{min: 0.9}")
    result = invoke("history", "--suite", folder, "--json", "--max-runs", "16")
    assert result.exit_code == 1, result.output
    data = json.loads(result.stdout)
    (case,) = data["cases"]
    (m,) = case["measures"]
    assert (case["runs"], case["runs_asked"], case["looks"]) == (16, 4, [4, 8, 16])
    assert (case["replications"], case["seed"], case["verdict"]) == ([0, 15], 7, "inconclusive")
    iv = wilson(16, 16)
    assert (m["value"], m["low"], m["high"], m["runs"]) == (1.0, iv.low, iv.high, 16)
    assert (m["verdict"], m["passed"]) == ("inconclusive", False)
    # the record (they hold: 1) ties every run: each tail (16 + 1)/(16 + 1), p = min(1, 2 · 1)
    assert m["record"] == {
        "runs": 16,
        "at_or_below": 16,
        "at_or_above": 16,
        "p": 1.0,
        "beyond": False,
    }
    assert data["verdicts"] == {"pass": 0, "fail": 0, "inconclusive": 1}
    assert data["max_runs"] == 16
    at_once = invoke(
        "history", "--suite", suite(tmp_path, "{min: 0.9}", runs=16), "--json", "--max-runs", "16"
    )
    (same,) = json.loads(at_once.stdout)["cases"]
    assert same["measures"][0] == m
    allowed = invoke("history", "--suite", folder, "--max-runs", "16", "--allow-inconclusive")
    assert allowed.exit_code == 0, allowed.output
    assert "runs 0–15 (4, 8: inconclusive, doubled)" in allowed.output
    # off a terminal each doubling is a line of its own: a log shows the runs really fought
    assert allowed.stderr.splitlines() == [
        "[1/1] small: 4 runs",
        "[1/1] small: 8 runs (inconclusive at 4)",
        "[1/1] small: 16 runs (inconclusive at 8)",
    ]
    assert re.search(r"inconclusive +1 +\[1\]", allowed.output), allowed.output


def test_a_conclusive_case_is_not_fought_again(tmp_path: Path) -> None:
    """4 of 4 against ≥ 0.5 passes at once; against ≤ 0.4 it fails at once (exit 1)."""
    passing = invoke("history", "--suite", suite(tmp_path, "{min: 0.5}"), "--json")
    assert passing.exit_code == 0, passing.output
    assert json.loads(passing.stdout)["cases"][0]["looks"] == [4]
    failing = invoke("history", "--suite", suite(tmp_path, "{max: 0.4}", case_id="f"), "--json")
    assert failing.exit_code == 1
    (case,) = json.loads(failing.stdout)["cases"]
    assert (case["looks"], case["verdict"], case["measures"][0]["verdict"]) == (
        [4],
        "fail",
        "fail",
    )
    text = invoke("history", "--suite", suite(tmp_path, "{max: 0.4}", case_id="f"))
    assert text.exit_code == 1
    assert re.search(r" FAIL +1 +\[1\]\n", text.output)  # every run holds, as the record
    assert text.output.splitlines()[-2] == (
        "fitting: 0 of 1 measure passes (1 FAIL, 0 inconclusive); 0 of 1 case passes."
    )


def test_the_expected_failures_by_chance(tmp_path: Path) -> None:
    """One look of one one-sided measure: 0.025 at an edge, 0.025 at most; three looks
    of a two-sided one: 0.075 at an edge, 0.15 at most (the union bound over looks)."""
    one = invoke("history", "--suite", suite(tmp_path, "{min: 0.5}"), "--json")
    assert json.loads(one.stdout)["by_chance"] == {
        "measures": 1,
        "looks": 1,
        "at_edge": 0.025,
        "at_most": 0.025,
    }
    three = invoke(
        "history",
        "--suite",
        suite(tmp_path, "{min: 0.9, max: 1}", case_id="t"),
        "--json",
        "--max-runs",
        "16",
    )
    chance = json.loads(three.stdout)["by_chance"]
    assert chance == {
        "measures": 1,
        "looks": 3,
        "at_edge": pytest.approx(0.075),
        "at_most": pytest.approx(0.15),
    }
    assert by_chance([]) == {"measures": 0, "looks": 0, "at_edge": 0.0, "at_most": 0.0}


@pytest.mark.parametrize("n", [200, 400, 800, 1600])
@pytest.mark.parametrize("p", [0.1, 0.3, 0.5, 0.7, 0.9])
def test_a_true_value_on_the_edge_fails_about_2_5_percent_of_looks(p: float, n: int) -> None:
    """The chance that a Wilson interval of n runs lies wholly above a true p = max, summed
    exactly over the binomial: nominally 2.5 %; Wilson's discreteness gives 1.6-3.2 % at
    these n and p (the tolerance), which is what the by-chance line relies on."""
    edge = Accept(max=p)
    fails = 0.0
    for k in range(n + 1):
        iv = wilson(k, n)
        if edge.verdict(iv.p, iv.low, iv.high) == "fail":
            fails += float(binom.pmf(k, n, p))
    assert 0.016 <= fails <= 0.032
