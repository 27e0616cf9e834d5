"""Flattop rules version 2 (the AA table and the CAP's engagement, chosen against the
historical suite): a version-1 battle is read, shown, explained and fought again under
version 1, and ``verify`` says so."""

from __future__ import annotations

import json

from sim import api
from sim.contract import get_ruleset
from sim.replay import analysis
from sim.rulesets.flattop.options import RULES_V1, FlattopOptions
from tests.forge import ROOT, invoke

RULES1 = ROOT / "tests" / "data" / "replays" / "coral_sea-s1942-flattop-rules1.jsonl"
"""The coral_sea golden replay as it was before flattop rules version 2 (kept as written);
tests/sim/test_rules_versions.py writes its header back byte for byte, as musket's."""


def test_the_kept_golden_is_a_version_1_battle() -> None:
    """Its header names flattop rules v1 and its options say table 4 and every_raid."""
    header = json.loads(RULES1.read_text().split("\n", 1)[0])
    flattop = get_ruleset("flattop")
    assert (header["ruleset"], header["ruleset_version"]) == ("flattop", "1")
    options = header["scenario"]["options"]
    assert (options["table_anti_aircraft"], options["cap_engagement"]) == (4, "every_raid")
    assert (flattop.version, flattop.older_versions) == ("2", ("1",))


def test_options_read_for_each_version() -> None:
    """Read for v1, the changed options have their v1 values; for v2 (or none), the new ones.
    Both options were in version 1's headers, so a v1 dump keeps them (byte for byte)."""
    old = FlattopOptions.model_validate({}, context={"ruleset_version": "1"})
    new = FlattopOptions.model_validate({}, context={"ruleset_version": "2"})
    assert (
        {k: getattr(old, k) for k in RULES_V1}
        == RULES_V1
        == {
            "table_anti_aircraft": 4,
            "cap_engagement": "every_raid",
        }
    )
    assert (new.table_anti_aircraft, new.cap_engagement) == (1, "once_per_turn")
    assert new == FlattopOptions()
    dumped = old.model_dump(context={"ruleset_version": "1"})
    assert {k: dumped[k] for k in RULES_V1} == RULES_V1


def test_verify_says_which_rules_it_was_fought_under() -> None:
    """verify fights the v1 battle again under v1, byte for byte (its CAP fights both raids)."""
    result = invoke("verify", str(RULES1))
    assert result.exit_code == 0
    assert result.stdout.splitlines() == [
        f"OK: {RULES1}: 22 events, intact, lawful, re-simulates byte for byte"
    ]
    assert result.stderr.splitlines() == [
        "battlesim: note: fought under flattop rules v1 (this battlesim's are v2); "
        "fought again under v1"
    ]
    loaded = api.load_replay(RULES1)
    fights = [e.strike for e in loaded.events if e.type == "flattop.air_combat"]
    assert set(fights) == {"lex_strike", "yorktown_strike"}


def test_the_old_battle_still_shows_and_explains() -> None:
    """show and why read the v1 battle from its log alone."""
    shown = invoke("show", str(RULES1))
    assert shown.exit_code == 0
    title = "Coral Sea — the strike on Shoho — end of battle (turn 5)"
    assert shown.stdout.splitlines()[0] == title
    loaded = api.load_replay(RULES1)
    sunk = next(e for e in loaded.events if getattr(e, "status_after", None) == "sunk")
    chain = analysis.why(loaded, sunk.seq)
    assert next(e.type for e, _ in chain) == "flattop.spotted"
    assert invoke("why", str(RULES1), str(sunk.seq)).exit_code == 0
