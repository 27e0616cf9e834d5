"""A flattop battle won on a tally of 1 says "Allied 1 point" wherever it is shown.

The reason is recorded in the ``flattop.battle_ended`` event as the rules wrote it
(``… Allied 1 points, Japanese 14 …``): the replay's chain and state digests fix those
bytes, and a study's runs keep the same text, so it stays so in the file and the data.
Every line that shows it — ``run``'s headline and summary, ``show --events``, ``why``,
``report``'s page — words the count as every other count is worded.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.batch.helpers import SCENARIOS, invoke

TF17 = SCENARIOS / "coral_sea_tf17.yaml"
SEED = "6"  # the Allied sink Lexington and lose 8 air factors; the Japanese lose 1
SAID = "every strike flown: Allied 1 point, Japanese 14 — Japanese leads by 13"
RECORDED = "every strike flown: Allied 1 points, Japanese 14 — Japanese leads by 13"


@pytest.fixture(scope="module")
def replay(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    out = tmp_path_factory.mktemp("tf17") / "tf17.jsonl"
    result = invoke("run", TF17, "--seed", SEED, "--out", out)
    assert result.exit_code == 0, result.output
    return out, result.stdout


def test_run_says_1_point_in_its_headline_and_summary(replay: tuple[Path, str]) -> None:
    out, stdout = replay
    assert stdout.splitlines() == [
        f"coral_sea_tf17.yaml (seed {SEED}): Japanese wins after 5 turns — {SAID}",
        "  Allied: 1 ship sunk (Lexington), 0 crippled, 8 air factors lost; 1 point",
        "  Japanese: 0 ships sunk, 0 crippled, 1 air factor lost; 14 points",
        f"Replay: {out} (23 events)",
    ]


def test_the_event_keeps_the_text_the_rules_wrote(replay: tuple[Path, str]) -> None:
    out, _ = replay
    lines = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    ended = [e for e in lines if e.get("type") == "flattop.battle_ended"]
    assert [(e["seq"], e["reason"]) for e in ended] == [(21, RECORDED)]
    assert invoke("verify", out).stdout.startswith(f"OK: {out}: 23 events")
    again = out.with_name("again.jsonl")
    data = json.loads(invoke("run", TF17, "--seed", SEED, "--out", again, "--json").stdout)
    assert data["reason"] == RECORDED  # the data, as a study's runs hold it


def test_show_and_why_say_1_point(replay: tuple[Path, str]) -> None:
    out, _ = replay
    shown = invoke("show", out, "--events", "--seqs", "--type", "flattop.battle_ended")
    assert shown.stdout == f"[seq 21] Turn 5, 14:00 — Japanese wins: {SAID}\n"
    assert invoke("why", out, "21").stdout.splitlines()[-1] == f"      → {shown.stdout.strip()}"


def test_the_report_page_says_1_point(replay: tuple[Path, str], tmp_path: Path) -> None:
    out, _ = replay
    page = tmp_path / "tf17.html"
    assert invoke("report", out, "--out", page).exit_code == 0
    text = page.read_text(encoding="utf-8")
    assert f"<p>{SAID}</p>" in text
    assert "1 point</li>" in text
    assert text.count("Allied 1 points") == 1  # the event's own data, as recorded


@pytest.mark.parametrize(
    ("reason", "said"),
    [
        (RECORDED, SAID),
        ("turn limit: Allied 21 points, Japanese 1", "turn limit: Allied 21 points, Japanese 1"),
        ("turn limit: Allied 0.1 points", "turn limit: Allied 0.1 points"),
        ("turn limit: Task Force 1 1 points, B 0", "turn limit: Task Force 1 1 point, B 0"),
        ("turn limit: Union holds the most objective points (1)",
         "turn limit: Union holds the most objective points (1)"),
    ],
)  # fmt: skip
def test_one_point(reason: str, said: str) -> None:
    from sim.text.grammar import one_point

    assert one_point(reason) == said
