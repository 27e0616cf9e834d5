"""A ``last_battle`` campaign whose last battle fought was a draw says it was drawn.

The delve's run 4 (study seed 1981, the file's): the party wins the barricade, then the
party and the hobgoblins are all down in the guard room ("no side is left standing"), so
the lair cannot be fought. The campaign is drawn; its printed line said the last battle
was "won". A study's runs store the reason in its older words (``won the last battle
fought (guardroom); …``) and ``verify`` re-fights and compares them exactly, so the
stored text stays; every line that shows it says the battle was drawn.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sim.batch.inputs.campaign import shown_reason
from sim.batch.inputs.seeds import run_seed
from tests.batch.helpers import SCENARIOS, invoke

DELVE = SCENARIOS / "delve_campaign.yaml"
SEED = run_seed(1981, 0, 4)  # the delve's own seed, run 4 of a study of it
ENDED = (
    "battle lair cannot be fought after carry-over: sides.0: a side needs at least one "
    "character or monster"
)
STORED = f"won the last battle fought (guardroom); {ENDED}"
SAID = f"the last battle fought (guardroom) was drawn; {ENDED}"


def test_the_campaign_line_says_the_last_battle_was_drawn(tmp_path: Path) -> None:
    """`battlesim campaign`: the guard room is a draw, and so is the campaign's line."""
    result = invoke("campaign", DELVE, "--seed", SEED, "--out", tmp_path / "c")
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[5] == "  guardroom: Draw after 6 rounds — no side is left standing"
    assert lines[-2] == f"The campaign is drawn: {SAID}"
    stored = json.loads((tmp_path / "c" / "campaign.json").read_text(encoding="utf-8"))
    assert (stored["winner"], stored["reason"]) == (None, STORED)  # the data keeps its words


def test_rerun_says_it_and_the_study_still_verifies(tmp_path: Path) -> None:
    """`rerun` of the delve study's run 4 says the last battle fought was drawn; the run's
    stored reason is the older words, and `verify` re-fights the runs and agrees."""
    study = tmp_path / "delve"
    made = invoke("batch", DELVE, "--runs", "5", "--out", study, "--jobs", "1")
    assert made.exit_code == 0, made.output
    again = invoke("rerun", study, "4", "-o", tmp_path / "r4")
    assert again.exit_code == 0, again.output
    assert again.stdout.splitlines()[0] == (
        f"Run 4 (point 0, replication 4, seed {SEED}): Draw after 11 rounds — {SAID}"
    )
    data = json.loads(invoke("rerun", study, "4", "-o", tmp_path / "r4j", "--json").stdout)
    assert (data["winner"], data["reason"]) == (None, STORED)
    verified = invoke("verify", study)
    assert verified.exit_code == 0, verified.output


@pytest.mark.parametrize(
    ("winner", "reason", "said"),
    [
        (None, "won the last battle fought (b2)", "the last battle fought (b2) was drawn"),
        ("usa", "won the last battle fought (b2)", "won the last battle fought (b2)"),
        (None, "campaign points are even (1 each)", "campaign points are even (1 each)"),
        ("usa", "most campaign points (3 of 4); a side reached 1 points",
         "most campaign points (3 of 4); a side reached 1 point"),
    ],
)  # fmt: skip
def test_shown_reason_rewords_only_a_drawn_last_battle(
    winner: str | None, reason: str, said: str
) -> None:
    """Only a campaign without a winner whose reason is the last battle's is reworded; a
    count of 1 says "1 point" as everywhere."""
    assert shown_reason({"winner": winner, "reason": reason}) == said
