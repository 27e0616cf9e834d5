"""A fire's narrative line says why a morale check is required when the draw is not why.

The loss draw requires a check when it falls under p; a hit at maximum fatigue, or one
leaving the unit past ``rout_loss`` (heavy losses), requires one without it. The line
said only "required" for all three, so a reader checking the draw against p by hand
concluded "not required" (found by a designer's review).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from sim import api
from sim.replay.analysis import narrative_line

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def first_fires() -> dict[str | None, tuple[str, Any]]:
    """The first fire of each morale-check reason in the Chancellorsville golden: its
    narrative line and its event (one fold)."""
    loaded = api.load_replay(ROOT / "replays" / "chancellorsville-s1863.jsonl")
    found: dict[str | None, tuple[str, Any]] = {}
    for event, before in loaded.fold():
        if event.type == "musket.fired" and event.result.morale_check_reason not in found:
            line = narrative_line(loaded, before, event)
            assert line is not None
            found[event.result.morale_check_reason] = (line, event)
    return found


@pytest.mark.parametrize(
    ("reason", "said"),
    [
        (None, "not required"),
        ("loss", "required"),
        ("heavy_losses", "required (heavy losses)"),
    ],
)
def test_the_line_says_why_a_check_is_required(
    first_fires: dict[str | None, tuple[str, Any]], reason: str | None, said: str
) -> None:
    line, event = first_fires[reason]
    p = event.result.morale_check_p
    assert line.endswith(f"morale check p = {p:.2f}: {said}"), line


def test_a_morale_check_says_its_reason_in_the_fire_lines_words() -> None:
    """ "checks morale (heavy_losses, …" beside the fire line's "required (heavy losses)": each
    morale check's reason reads as words, the fire line's (Chancellorsville has all three)."""
    loaded = api.load_replay(ROOT / "replays" / "chancellorsville-s1863.jsonl")
    said: dict[str, str] = {}
    for event, before in loaded.fold():
        if event.type == "musket.morale_tested" and event.reason not in said:
            line = narrative_line(loaded, before, event)
            assert line is not None
            said[event.reason] = line.split(" checks morale (", 1)[1].split(",", 1)[0]
    assert said == {"loss": "loss", "heavy_losses": "heavy losses", "charge": "charge"}
