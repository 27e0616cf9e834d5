"""A case's runs fought again outside ``battlesim history``, as docs/history.md says."""

from __future__ import annotations

import json
import re
from pathlib import Path

import yaml

from tests.batch.helpers import SCENARIOS, invoke, tables

ROOT = Path(__file__).resolve().parents[2]
RUNS = 4
LIMIT = 1
"""The case's ``set``: one turn, where stone_wall.yaml's own battles last two or more."""

CASE = f"""\
format: 1
id: one_turn
title: One turn at the wall
scenario: {SCENARIOS / "stone_wall.yaml"}
set:
  turns.limit: {LIMIT}
seed: 11
runs: {RUNS}
measures:
  - id: duration
    label: turns fought
    kind: duration
    historical: 1
    accept: {{max: 100}}
    source: A test.
"""


def _runs(folder: Path) -> list[tuple[int, int, int]]:
    """(replication, seed, turns) of each run of the study in ``folder``."""
    return [(row[2], row[3], row[9]) for row in tables(folder)["runs"]]


def test_a_case_with_set_values_is_fought_again_with_them(tmp_path: Path) -> None:
    """``battlesim batch SCENARIO --seed SEED --runs N --sweep PATH=V`` (V each ``set`` value)
    fights the case's first N runs — every one lasts the LIMIT turn the case sets, as its
    duration measure (the mean over the runs) says — and ``battlesim run`` on a copy with the
    value written in fights run r again from its stored seed; on the scenario as shipped the
    same seeds fight longer battles, another battle. docs/history.md said that any run is
    fought again with ``battlesim run SCENARIO --seed S``, the set values unsaid."""
    suite = tmp_path / "suite"
    suite.mkdir()
    (suite / "one_turn.yaml").write_text(CASE)
    history = invoke("history", "--suite", suite, "-q", "--json", "--max-runs", RUNS)
    [measure] = json.loads(history.stdout)["cases"][0]["measures"]
    assert (measure["value"], measure["runs"]) == (LIMIT, RUNS)

    scenario, sweep = SCENARIOS / "stone_wall.yaml", f"turns.limit={LIMIT}"
    common = ("--seed", "11", "--runs", RUNS, "--no-plots", "-q", "--jobs", "1")
    assert (
        invoke("batch", scenario, *common, "--sweep", sweep, "--out", tmp_path / "s").exit_code == 0
    )
    assert invoke("batch", scenario, *common, "--out", tmp_path / "plain").exit_code == 0
    swept, plain = _runs(tmp_path / "s"), _runs(tmp_path / "plain")
    assert [turns for _, _, turns in swept] == [LIMIT] * RUNS
    assert [seed for _, seed, _ in swept] == [seed for _, seed, _ in plain]
    assert all(turns > LIMIT for _, _, turns in plain)

    data = yaml.safe_load(scenario.read_text(encoding="utf-8"))
    data["turns"]["limit"] = LIMIT
    copy = tmp_path / "stone_wall.yaml"
    copy.write_text(yaml.safe_dump(data), encoding="utf-8")
    _, seed, _ = swept[0]
    again = invoke("run", copy, "--seed", seed, "--json", "-o", tmp_path / "r.jsonl")
    assert json.loads(again.stdout)["turns"] == LIMIT

    text = " ".join((ROOT / "docs" / "history.md").read_text(encoding="utf-8").split())
    assert "with `--sweep PATH=V` for each of its `set` values" in text
    assert "on a copy of the scenario with them written in" in text
    # the section it names for the seeds is one of docs/batch.md's
    named = re.search(r"of the case's `seed` \(docs/batch\.md, \*([^*]+)\*\)", text)
    assert named is not None
    headings = (ROOT / "docs" / "batch.md").read_text(encoding="utf-8").splitlines()
    assert f"## {named.group(1)}" in headings
