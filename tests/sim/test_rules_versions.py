"""Musket rules version 2: an older battle is read, shown, explained and fought again
under the rules it was fought under, and ``verify`` says which those were."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from sim import api
from sim.contract import get_ruleset
from sim.replay import analysis
from sim.replay.header import header_scenario, make_header
from sim.rulesets.musket.options import RULES_V1, MusketOptions
from tests.forge import ROOT, edit_header, forge, invoke

RULES1 = ROOT / "tests" / "data" / "replays" / "stone_wall-s1862-musket-rules1.jsonl"
"""The stone wall golden replay as it was before rules version 2 (kept as it was written)."""


def test_the_kept_golden_is_a_version_1_battle() -> None:
    """Its header names musket rules v1; today's musket is v2 and still fights v1."""
    header = json.loads(RULES1.read_text().split("\n", 1)[0])
    musket = get_ruleset("musket")
    assert (header["ruleset"], header["ruleset_version"]) == ("musket", "1")
    assert (musket.version, musket.older_versions) == ("2", ("1",))


def test_a_version_1_scenario_reads_with_version_1_defaults() -> None:
    """Read for v1, every option v2 changed has its v1 value; read for v2 (or with no
    version), its new default; written for v1 the changed options are left out."""
    old = MusketOptions.model_validate({}, context={"ruleset_version": "1"})
    new = MusketOptions.model_validate({}, context={"ruleset_version": "2"})
    assert {k: getattr(old, k) for k in RULES_V1} == RULES_V1
    assert new == MusketOptions()
    assert all(getattr(new, k) != v for k, v in RULES_V1.items())
    assert not set(RULES_V1) & set(old.model_dump(context={"ruleset_version": "1"}))
    assert not set(RULES_V1) & set(new.model_dump())


@pytest.mark.parametrize(
    "replay", [RULES1, ROOT / "tests" / "data" / "replays" / "coral_sea-s1942-flattop-rules1.jsonl"]
)
def test_the_header_is_written_back_byte_for_byte(replay: Path) -> None:
    """A v1 header's scenario, read and written again for v1, is the recorded header: musket's
    (options added by v2) and flattop's (options v1 already wrote, with v2's new defaults)."""
    recorded = api.open_replay(replay).header
    ruleset, scenario = header_scenario(recorded, str(replay))
    again = make_header(
        ruleset, scenario, recorded.seed, recorded.source, recorded.format_version, "1"
    )
    assert again.body() == recorded.body()


def test_verify_says_which_rules_it_was_fought_under() -> None:
    """verify re-simulates the v1 battle byte for byte and names its rules version."""
    text = invoke("verify", str(RULES1))
    assert text.exit_code == 0
    assert text.stdout.splitlines() == [
        f"OK: {RULES1}: 81 events, intact, lawful, re-simulates byte for byte"
    ]
    assert text.stderr.splitlines() == [
        "battlesim: note: fought under musket rules v1 (this battlesim's are v2); "
        "fought again under v1"
    ]
    data = json.loads(invoke("verify", str(RULES1), "--json").stdout)
    assert data["ok"] is True
    assert data["rules"] == {
        "ruleset": "musket",
        "fought_under": "1",
        "current": "2",
        "fought_again": True,
    }


def test_a_version_this_battlesim_does_not_have_is_named_not_trusted(tmp_path: Path) -> None:
    """A header claiming rules v7 is fought again under today's rules: its header differs
    at line 1 (exit 1), and verify says the rules are the reason to look at."""

    def claim(header: dict[str, Any]) -> None:
        header["ruleset_version"] = "7"

    forged = forge(tmp_path, lambda texts: edit_header(texts, claim), source=RULES1)
    result = invoke("verify", str(forged))
    assert result.exit_code == 1
    (first,) = result.stdout.splitlines()
    assert first.startswith("MISMATCH at line 1")
    assert result.stderr == (
        "battlesim: note: fought under musket rules v7, which this battlesim cannot fight "
        "again (this battlesim's are v2): a difference comes from the rules, not "
        "necessarily from tampering\n"
    )


def test_a_version_1_header_cannot_pass_for_version_2(tmp_path: Path) -> None:
    """The same battle claimed for v2 is fought under v2's rules, and differs."""

    def claim(header: dict[str, Any]) -> None:
        header["ruleset_version"] = "2"

    forged = forge(tmp_path, lambda texts: edit_header(texts, claim), source=RULES1)
    result = invoke("verify", str(forged))
    assert result.exit_code == 1
    assert "MISMATCH" in result.stdout
    assert "fought under" not in result.stdout + result.stderr


def test_the_old_battle_still_shows_and_explains() -> None:
    """show, why and the narrative read the v1 battle from its log alone."""
    shown = invoke("show", str(RULES1))
    assert shown.exit_code == 0
    assert shown.stdout.splitlines()[0] == "Stone wall at Marye's Heights — end of battle (turn 8)"
    loaded = api.load_replay(RULES1)
    check = next(e for e in loaded.events if e.type == "musket.morale_tested")
    chain = analysis.why(loaded, check.seq)
    assert [e.type for e, _ in chain][-2:] == ["musket.fired", "musket.morale_tested"]
    assert invoke("why", str(RULES1), str(check.seq)).exit_code == 0
