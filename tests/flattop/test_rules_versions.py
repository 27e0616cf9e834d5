"""Flattop rules versions 2 (the AA table and the CAP's engagement, chosen against the
historical suite) and 3 (hits per strike and damage from the record, spoiled attacks, no
attack on a sunk target): a version-1 or version-2 battle is read, shown, explained and
fought again under its version, and ``verify`` says so."""

from __future__ import annotations

import json

from sim import api
from sim.contract import get_ruleset
from sim.replay import analysis
from sim.replay.header import header_scenario, make_header
from sim.rulesets.flattop.model.options import RULES_V1, RULES_V2, FlattopOptions
from tests.forge import ROOT, invoke

RULES1 = ROOT / "tests" / "data" / "replays" / "coral_sea-s1942-flattop-rules1.jsonl"
"""The coral_sea golden replay as it was before flattop rules version 2 (kept as written);
tests/sim/test_rules_versions.py writes its header back byte for byte, as musket's."""

RULES2 = ROOT / "tests" / "data" / "replays" / "coral_sea-s1942-flattop-rules2.jsonl"
"""The coral_sea golden replay as flattop rules version 2 wrote it (kept as written)."""


def test_the_kept_golden_is_a_version_1_battle() -> None:
    """Its header names flattop rules v1 and its options say table 4 and every_raid."""
    header = json.loads(RULES1.read_text().split("\n", 1)[0])
    flattop = get_ruleset("flattop")
    assert (header["ruleset"], header["ruleset_version"]) == ("flattop", "1")
    options = header["scenario"]["options"]
    assert (options["table_anti_aircraft"], options["cap_engagement"]) == (4, "every_raid")
    assert (flattop.version, flattop.older_versions) == ("3", ("1", "2"))


def test_options_read_for_each_version() -> None:
    """Read for v1, the options v2 changed have their v1 values; for v2, v2's; for v3 (or
    none), today's.  The options of v1's headers stay in a v1 dump (byte for byte); those v3
    added are left out of it."""
    old = FlattopOptions.model_validate({}, context={"ruleset_version": "1"})
    new = FlattopOptions.model_validate({}, context={"ruleset_version": "2"})
    v1_values = {**RULES_V2, **RULES_V1}
    assert {k: getattr(old, k) for k in v1_values} == v1_values
    assert {k: getattr(new, k) for k in RULES_V2} == RULES_V2
    assert (
        {k: getattr(old, k) for k in RULES_V1}
        == RULES_V1
        == {
            "table_anti_aircraft": 4,
            "cap_engagement": "every_raid",
        }
    )
    assert (new.table_anti_aircraft, new.cap_engagement) == (1, "once_per_turn")
    assert new == FlattopOptions.model_validate(RULES_V2)
    today = FlattopOptions.model_validate({}, context={"ruleset_version": "3"})
    assert today == FlattopOptions() and today.table_anti_aircraft == 4
    dumped = old.model_dump(context={"ruleset_version": "1"})
    assert {k: dumped[k] for k in RULES_V1} == RULES_V1
    assert not set(dumped) & FlattopOptions.ADDED


def test_version_3_options_are_in_todays_dumps_and_out_of_version_2s() -> None:
    """The options version 3 added are in every dump for today's version (so a study or a
    history case can sweep them) and left out of a version-2 dump while they hold version 2's
    values; ``retarget_sunk``, in version 2's headers already, stays in both."""
    today = FlattopOptions().model_dump(mode="json")
    assert set(today) >= FlattopOptions.ADDED
    assert set(RULES_V2) - {"retarget_sunk", "table_anti_aircraft"} == FlattopOptions.ADDED
    v2 = FlattopOptions.model_validate({}, context={"ruleset_version": "2"})
    dumped = v2.model_dump(mode="json", context={"ruleset_version": "2"})
    assert not set(dumped) & FlattopOptions.ADDED
    assert (dumped["retarget_sunk"], dumped["table_anti_aircraft"]) == (True, 1)
    assert (today["retarget_sunk"], today["attack_factor_scale"]) == (False, 2)


def test_verify_says_which_rules_it_was_fought_under() -> None:
    """verify fights the v1 battle again under v1, byte for byte (its CAP fights both raids)."""
    result = invoke("verify", str(RULES1))
    assert result.exit_code == 0
    assert result.stdout.splitlines() == [
        f"OK: {RULES1}: 22 events, intact, lawful, re-simulates byte for byte"
    ]
    assert result.stderr.splitlines() == [
        "battlesim: note: fought under flattop rules v1 (this battlesim's are v3); "
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


def test_a_version_2_battle_is_fought_again_under_version_2() -> None:
    """The coral_sea golden as flattop rules v2 wrote it (kept): verify fights it again under
    v2 byte for byte, and show and why read it: Lexington's dive bombers cripple Shoho and
    Yorktown's strike sinks her, an attack per declared attack, none logged as target_sunk."""
    result = invoke("verify", str(RULES2))
    assert result.exit_code == 0
    assert result.stdout.splitlines() == [
        f"OK: {RULES2}: 21 events, intact, lawful, re-simulates byte for byte"
    ]
    assert result.stderr.splitlines() == [
        "battlesim: note: fought under flattop rules v2 (this battlesim's are v3); "
        "fought again under v2"
    ]
    header = json.loads(RULES2.read_text().split("\n", 1)[0])
    assert header["ruleset_version"] == "2"
    assert not set(header["scenario"]["options"]) & FlattopOptions.ADDED
    loaded = api.load_replay(RULES2)
    types = [e.type for e in loaded.events]
    assert "flattop.target_sunk" not in types and types.count("flattop.attacked") == 4
    assert invoke("show", str(RULES2)).exit_code == 0
    sunk = next(e for e in loaded.events if getattr(e, "status_after", None) == "sunk")
    assert invoke("why", str(RULES2), str(sunk.seq)).exit_code == 0


def test_the_version_2_header_is_written_back_byte_for_byte() -> None:
    """The v2 header's scenario, read and written again for v2, is the recorded header: the
    options version 3 added are left out, the damage factors read as version 2's."""
    recorded = api.open_replay(RULES2).header
    ruleset, scenario = header_scenario(recorded, str(RULES2))
    again = make_header(
        ruleset, scenario, recorded.seed, recorded.source, recorded.format_version, "2"
    )
    assert again.body() == recorded.body()
    assert scenario.options.damage("carrier") == 8 and scenario.options.attack_factor_scale == 1
