"""The shipped historical suite passes, and docs/history.md shows exactly what it prints.

One run of ``battlesim history`` (every case, its fixed seeds and run counts, two
workers — the result is the same for any number) serves both checks. It is
deterministic: the same seeds give the same table on every machine.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from sim.history import SUITE, load_suite
from sim.history.bands import RATIO_ID, case_band
from tests.batch.helpers import invoke
from tests.readme_examples import console_examples, fenced_blocks

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "history.md"
COMMAND = "battlesim history --jobs 2"


@pytest.fixture(scope="module")
def printed(tmp_path_factory: pytest.TempPathFactory) -> tuple[int, list[str], dict[str, Any]]:
    """The shipped suite, fought once: exit code, the lines it printed, its JSON."""
    out = tmp_path_factory.mktemp("history") / "out"
    result = invoke("history", "--jobs", "2", "-q", "-o", out)
    data = json.loads((out / "history.json").read_text(encoding="utf-8"))
    return result.exit_code, result.stdout.splitlines(), data


def _doc_example() -> list[str]:
    for lang, start, body in fenced_blocks(DOC.read_text(encoding="utf-8")):
        if lang == "text":  # a console example not run by the docs' runner: it is run here
            for example in console_examples(start, body):
                if example.command == COMMAND:
                    assert example.expected is not None
                    return example.expected
    raise AssertionError(f"docs/history.md shows no `$ {COMMAND}`")


def _known_gaps() -> str:
    text = DOC.read_text(encoding="utf-8")
    start = text.index("\n## Known gaps")
    end = text.find("\n## ", start + 1)
    return text[start : end if end >= 0 else None]


def test_every_measure_that_does_not_pass_is_a_known_gap(
    printed: tuple[int, list[str], dict[str, Any]],
) -> None:
    """Every measure of either set that does not pass (its interval not wholly within its
    range) is named in docs/history.md's *Known gaps* as `case.measure`, and the held-out
    score that section opens with is the command's. The exit code is 0 exactly when every
    measure passes. (Issue 30 asks for 80 % of held-out measures to pass; that is a goal
    the docs report against, not an invariant this test can hold the suite to.)"""
    code, _lines, data = printed
    assert len(data["cases"]) == len(load_suite(SUITE))
    every = [(c["id"], m["id"], c["split"], m["verdict"]) for c in data["cases"]
             for m in c["measures"]]  # fmt: skip
    held = [v for _c, _m, split, v in every if split == "held_out"]
    passed = sum(v == "pass" for v in held)
    assert f"{passed} of {len(held)}" in _known_gaps(), "Known gaps states the held-out score"
    gaps = _known_gaps()
    missing = [f"{c}.{m}" for c, m, _s, v in every if v != "pass" and f"`{c}.{m}`" not in gaps]
    assert missing == [], "measures that do not pass and are not in Known gaps"
    assert code == (0 if {v for *_k, v in every} == {"pass"} else 1)
    sets = data["sets"]
    held_beyond = f"{sets['held_out']['beyond']} of the {sets['held_out']['record_checked']}"
    fit_beyond = f"{sets['fitting']['beyond']} of the {sets['fitting']['record_checked']}"
    assert f"{held_beyond} held-out records are beyond the spread and {fit_beyond} fitting" in (
        " ".join(gaps.split())
    ), "Known gaps states how many records lie beyond the runs' spread, as the command does"


RECORD_RATIOS = {"fort_wagner": (6.7, 8.7)}
"""For each case with a sourced reason, the record's own attacker ÷ defender ratios for its
episode, as its reason gives them (docs/history.md, *When a ratio above p90 gets a reason*)."""


def test_a_ratio_above_p90_has_a_reason_by_the_rule_or_is_a_known_gap(
    printed: tuple[int, list[str], dict[str, Any]],
) -> None:
    """docs/history.md's rule, on the command's own figures: a case with a reason has every
    record figure in its reason's text and above its band's p90, and a simulated ratio at most
    1.5 times the largest, and is not flagged; a case above p90 without one is flagged and
    named in *Known gaps* as `case.cdb90_loss_ratio` — and no case that is not flagged is."""
    _code, _lines, data = printed
    gaps = _known_gaps()
    reasons = {c.id for c in load_suite(SUITE) if (b := case_band(c)) is not None and b.reason}
    assert reasons == set(RECORD_RATIOS)
    flagged = set()
    for case in data["cases"]:
        band = case["loss_band"]
        if band is None:
            continue
        figures = RECORD_RATIOS.get(case["id"])
        if figures is not None:
            assert all(f > band["quantiles"]["p90"] and str(f) in band["reason"] for f in figures)
            assert band["value"] <= 1.5 * max(figures), case["id"]
            assert band["flagged"] is False, case["id"]
        else:
            assert band["flagged"] is band["above_p90"], case["id"]
        if band["flagged"]:
            flagged.add(case["id"])
    named = set(re.findall(rf"`(\w+)\.{RATIO_ID}`", gaps))
    assert named == flagged, "Known gaps names exactly the flagged cases"


def test_the_doc_shows_what_the_command_prints(
    printed: tuple[int, list[str], dict[str, Any]],
) -> None:
    """docs/history.md's table, with every source, is the command's output, line for line."""
    assert [line.rstrip() for line in _doc_example()] == [line.rstrip() for line in printed[1]]


def test_every_measure_names_a_source() -> None:
    """Each measure of each shipped case says where its historical value comes from."""
    for case in load_suite(SUITE):
        for m in case.spec.measures:
            assert len(m.source.split()) >= 5, (case.id, m.id)


def test_every_shipped_scenario_states_its_sources() -> None:
    """The scenarios the suite fights say where their figures come from, and none is
    'flavour, not history'."""
    for path in sorted((SUITE / "scenarios").glob("*.yaml")):
        text = path.read_text(encoding="utf-8")
        assert "flavour, not history" not in text, path.name
        assert "Sources" in text or "sources are in their" in text, path.name
