"""Musket rules versions 2 to 8: an older battle (v1 to v7) is read, shown, explained and
fought again under the rules it was fought under, and ``verify`` says which those were."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from engine.canonical import digest
from sim import api
from sim.contract import get_ruleset
from sim.replay import analysis
from sim.replay.header import header_scenario, make_header
from sim.rulesets.musket.model.options import (
    RULES_V1,
    RULES_V2,
    RULES_V3,
    RULES_V4,
    RULES_V5,
    RULES_V6,
    RULES_V7,
    MusketOptions,
)
from tests.forge import ROOT, edit_header, forge, invoke

RULES1 = ROOT / "tests" / "data" / "replays" / "stone_wall-s1862-musket-rules1.jsonl"
"""The stone wall golden replay as it was before rules version 2 (kept as it was written)."""
RULES2 = ROOT / "tests" / "data" / "replays" / "stone_wall-s1862-musket-rules2.jsonl"
"""The stone wall golden replay as it was before rules version 3 (kept as it was written)."""
RULES3 = ROOT / "tests" / "data" / "replays" / "stone_wall-s1862-musket-rules3.jsonl"
"""The stone wall golden replay as it was before rules version 4 (kept as it was written)."""
RULES4 = ROOT / "tests" / "data" / "replays" / "stone_wall-s1862-musket-rules4.jsonl"
"""The stone wall golden replay as it was before rules version 5 (kept as it was written;
its battle is the same under version 5, only its header's version differs)."""
BRIGADE4 = ROOT / "tests" / "data" / "replays" / "napoleonic_brigade-s1815-musket-rules4.jsonl"
"""The napoleonic brigade golden as it was before rules version 5 (kept as it was written):
its 2e Léger's charge test reads under_fire -5 under v4, -21 under v5 (the column's head)."""
RULES5 = ROOT / "tests" / "data" / "replays" / "stone_wall-s1862-musket-rules5.jsonl"
"""The stone wall golden replay as it was before rules version 6 (kept as it was written;
its battle is the same under version 6, only its header's version differs)."""
BRIGADE5 = ROOT / "tests" / "data" / "replays" / "napoleonic_brigade-s1815-musket-rules5.jsonl"
"""The napoleonic brigade golden as it was before rules version 6 (kept as it was written):
the 61e Ligne and then the 72e, routing under the 28th Foot's fire, lose no prisoners under
v5, 94 and 89 under v6 (rout_prisoners_share 0.25)."""
RULES6 = ROOT / "tests" / "data" / "replays" / "stone_wall-s1862-musket-rules6.jsonl"
"""The stone wall golden replay as it was before rules version 7 (kept as it was written;
its battle is the same under version 7, only its header's version differs)."""
SALAMANCA6 = ROOT / "tests" / "data" / "replays" / "salamanca_le_marchant-s722-musket-rules6.jsonl"
"""Salamanca at its case's seed fought under rules version 6 (no golden of version 6 has a
cavalry charge version 7 changes): its 5th Dragoon Guards' charge test reads under_fire -3
under v6, -1 under v7 (cavalry_closing_loss_step 0.06), and fails where v7's passes."""
RULES7 = ROOT / "tests" / "data" / "replays" / "stone_wall-s1862-musket-rules7.jsonl"
"""The stone wall golden replay as it was before rules version 8 (kept as it was written;
its battle is the same under version 8, only its header's version differs)."""
QB7 = ROOT / "tests" / "data" / "replays" / "quatre_bras_69th-s616-musket-rules7.jsonl"
"""Quatre Bras' 69th at its case's seed fought under rules version 7 (no golden has a
cavalry melee version 8 changes): the 8e's melee against the 69th in line weighs the
cuirassiers 411.4 under v7, 1,234.2 under v8 (cavalry_vs_line 3)."""
GOLDEN = ROOT / "replays" / "stone_wall-s1862.jsonl"
"""Today's stone wall golden (rules version 8)."""


def test_the_kept_golden_is_a_version_1_battle() -> None:
    """Its header names musket rules v1, the other kept goldens' v2, v3, v4 and v5; today's
    musket is v8 and still fights all seven."""
    header = json.loads(RULES1.read_text().split("\n", 1)[0])
    musket = get_ruleset("musket")
    assert (header["ruleset"], header["ruleset_version"]) == ("musket", "1")
    header2 = json.loads(RULES2.read_text().split("\n", 1)[0])
    assert (header2["ruleset"], header2["ruleset_version"]) == ("musket", "2")
    header3 = json.loads(RULES3.read_text().split("\n", 1)[0])
    assert (header3["ruleset"], header3["ruleset_version"]) == ("musket", "3")
    for kept in (RULES4, BRIGADE4):
        header4 = json.loads(kept.read_text().split("\n", 1)[0])
        assert (header4["ruleset"], header4["ruleset_version"]) == ("musket", "4")
    for kept in (RULES5, BRIGADE5):
        header5 = json.loads(kept.read_text().split("\n", 1)[0])
        assert (header5["ruleset"], header5["ruleset_version"]) == ("musket", "5")
    for kept in (RULES6, SALAMANCA6):
        header6 = json.loads(kept.read_text().split("\n", 1)[0])
        assert (header6["ruleset"], header6["ruleset_version"]) == ("musket", "6")
    for kept in (RULES7, QB7):
        header7 = json.loads(kept.read_text().split("\n", 1)[0])
        assert (header7["ruleset"], header7["ruleset_version"]) == ("musket", "7")
    assert (musket.version, musket.older_versions) == ("8", ("1", "2", "3", "4", "5", "6", "7"))


def test_a_version_1_scenario_reads_with_version_1_defaults() -> None:
    """Read for v1, every option v2 changed has its v1 value; read for v2, v6 (or with no
    version), its new default; written for v1 the changed options are left out."""
    old = MusketOptions.model_validate({}, context={"ruleset_version": "1"})
    new = MusketOptions.model_validate({}, context={"ruleset_version": "8"})
    assert MusketOptions.model_validate({}, context={"ruleset_version": "2"}).charge_test
    assert {k: getattr(old, k) for k in RULES_V1} == RULES_V1
    assert new == MusketOptions()
    assert all(getattr(new, k) != v for k, v in RULES_V1.items())
    assert not set(RULES_V1) & set(old.model_dump(context={"ruleset_version": "1"}))
    assert not set(RULES_V1) & set(new.model_dump())


def test_a_version_2_scenario_reads_with_version_2_values() -> None:
    """Read for v2, every option v3 added or changed has its v2 value (v3's rules off),
    and v2's own changes stay; read for v1, v1's values win where both changed one.
    Written for v2, the options v3 added are left out; the one v2 already wrote
    (melee_winner_rule) stays, with its v2 value."""
    v2 = MusketOptions.model_validate({}, context={"ruleset_version": "2"})
    v1 = MusketOptions.model_validate({}, context={"ruleset_version": "1"})
    v3 = MusketOptions.model_validate({}, context={"ruleset_version": "3"})
    assert {k: getattr(v2, k) for k in RULES_V2} == RULES_V2
    assert {k: getattr(v1, k) for k in RULES_V2} == RULES_V2
    assert {k: getattr(v1, k) for k in RULES_V1} == RULES_V1
    assert v2.charge_test is True and v2.break_off_loss == 0.4
    assert v3 == MusketOptions(**RULES_V3, **RULES_V4, **RULES_V5, **RULES_V6, **RULES_V7)
    assert all(getattr(v3, k) != v for k, v in RULES_V2.items())
    dumped = v2.model_dump(context={"ruleset_version": "2"})
    assert set(RULES_V2) & set(dumped) == {"melee_winner_rule"}
    assert dumped["melee_winner_rule"] == "lower_loss_share"


def test_a_version_3_scenario_reads_with_version_3_values() -> None:
    """Version 4 changed two defaults the fitting set chose: spent_out_loss 0.2 and
    column_fire_share 0.5. Read for v3 (or v2, v1) a scenario that does not set them has
    v3's null for both, and written for v3 it leaves them out, as v3 wrote it; read for v4
    it has the new defaults, also left out of its dump written for v4 (and v5's and v6's
    changes at their v4 values)."""
    assert RULES_V3 == {"spent_out_loss": None, "column_fire_share": None}
    for version in ("1", "2", "3"):
        old = MusketOptions.model_validate({}, context={"ruleset_version": version})
        assert (old.spent_out_loss, old.column_fire_share) == (None, None), version
        assert not set(RULES_V3) & set(old.model_dump(context={"ruleset_version": version}))
    v4 = MusketOptions.model_validate({}, context={"ruleset_version": "4"})
    assert v4 == MusketOptions(**RULES_V4, **RULES_V5, **RULES_V6, **RULES_V7)
    assert (v4.spent_out_loss, v4.column_fire_share) == (0.2, 0.5)
    assert not set(RULES_V3) & set(v4.model_dump(context={"ruleset_version": "4"}))
    # today's scenario asking for v3's behaviour writes the nulls
    asked = MusketOptions(spent_out_loss=None, column_fire_share=None)
    assert {k: asked.model_dump()[k] for k in RULES_V3} == RULES_V3


def test_the_version_3_header_leaves_the_two_options_out_and_reads_them_as_null() -> None:
    """The kept v3 golden's header does not name spent_out_loss or column_fire_share (v3
    left them out at their null default); read under v4 it must still give null, not
    v4's 0.2 and 0.5 — or the v3 battle would be fought again under v4's rules."""
    recorded = api.open_replay(RULES3).header
    header = json.loads(RULES3.read_text().split("\n", 1)[0])
    assert not set(RULES_V3) & set(header["scenario"]["options"])
    _ruleset, scenario = header_scenario(recorded, str(RULES3))
    assert scenario.options.spent_out_loss is None
    assert scenario.options.column_fire_share is None


@pytest.mark.parametrize(
    ("older", "source", "changed"),
    [
        ("3", RULES4, {"spent_out_loss": 0.2, "column_fire_share": 0.5}),
        ("4", BRIGADE5, {"closing_depth": True, "column_closing_share": 0.25}),
        ("5", RULES6, {"rout_prisoners_share": 0.25}),
        ("6", RULES7, {"cavalry_closing_loss_step": 0.06, "cavalry_ride_past": "all"}),
        ("7", ROOT / "replays" / "napoleonic_brigade-s1815.jsonl", {"cavalry_vs_line": 3.0}),
    ],
)  # fmt: skip
def test_an_older_battle_that_set_the_new_defaults_still_verifies(
    tmp_path: Path, older: str, source: Path, changed: dict[str, object]
) -> None:
    """A v3 scenario that set spent_out_loss 0.2 and column_fire_share 0.5 (v4's defaults),
    a v4 one that set closing_depth true and column_closing_share 0.25 (v5's), a v5 one
    that set rout_prisoners_share 0.25 (v6's), a v6 one that set cavalry_closing_loss_step
    0.06 and cavalry_ride_past all (v7's), or a v7 one that set cavalry_vs_line 3 (v8's),
    wrote them in its header
    (they were not its version's defaults); the next version's dump leaves them out, so
    written for the older version they must be put back, or its header would differ at line
    1. Its battle is the source's (the kept v4 stone wall; the kept v5 brigade; the kept v6
    and v7 stone walls; today's brigade golden), the newer version being the older with
    these values, under an older header."""
    newer = str(int(older) + 1)

    def as_older(header: dict[str, Any]) -> None:
        assert header["ruleset_version"] == newer
        assert not set(changed) & set(header["scenario"]["options"])
        header["ruleset_version"] = older
        header["scenario"]["options"].update(changed)
        header["scenario_digest"] = digest(header["scenario"])

    forged = forge(tmp_path, lambda texts: edit_header(texts, as_older), source=source)
    recorded = api.open_replay(forged).header
    ruleset, scenario = header_scenario(recorded, str(forged))
    assert {k: getattr(scenario.options, k) for k in changed} == changed
    again = make_header(
        ruleset, scenario, recorded.seed, recorded.source, recorded.format_version, older
    )
    assert again.body() == recorded.body()
    result = invoke("verify", str(forged))
    assert result.exit_code == 0, result.stdout
    assert result.stderr == (
        f"battlesim: note: fought under musket rules v{older} (this battlesim's are v8); "
        f"fought again under v{older}\n"
    )


def test_a_version_4_scenario_reads_with_version_4_values() -> None:
    """Version 5 changed two defaults the fitting set chose: closing_depth true and
    column_closing_share 0.25. Read for v4 (or earlier) a scenario that does not set them
    has v4's false and null, and written for v4 leaves them out; read for v5 it has the new
    defaults, also left out of its dump written for v5 (and v6's change at its v5 value)."""
    assert RULES_V4 == {"closing_depth": False, "column_closing_share": None}
    for version in ("1", "2", "3", "4"):
        old = MusketOptions.model_validate({}, context={"ruleset_version": version})
        assert (old.closing_depth, old.column_closing_share) == (False, None), version
        assert not set(RULES_V4) & set(old.model_dump(context={"ruleset_version": version}))
    v5 = MusketOptions.model_validate({}, context={"ruleset_version": "5"})
    assert v5 == MusketOptions(**RULES_V5, **RULES_V6, **RULES_V7)
    assert (v5.closing_depth, v5.column_closing_share) == (True, 0.25)
    assert not set(RULES_V4) & set(v5.model_dump(context={"ruleset_version": "5"}))
    asked = MusketOptions(closing_depth=False, column_closing_share=None)
    assert {k: asked.model_dump()[k] for k in RULES_V4} == RULES_V4


def test_a_version_5_scenario_reads_with_version_5_values() -> None:
    """Version 6 changed one default the fitting set chose: rout_prisoners_share 0.25. Read
    for v5 (or earlier) a scenario that does not set it has v5's 0, and written for v5 leaves
    it out; read for v6 (or with no version) it has the new default, also left out of its
    dump."""
    assert RULES_V5 == {"rout_prisoners_share": 0}
    for version in ("1", "2", "3", "4", "5"):
        old = MusketOptions.model_validate({}, context={"ruleset_version": version})
        assert old.rout_prisoners_share == 0, version
        assert not set(RULES_V5) & set(old.model_dump(context={"ruleset_version": version}))
    v6 = MusketOptions.model_validate({}, context={"ruleset_version": "6"})
    assert v6 == MusketOptions(**RULES_V6, **RULES_V7)
    assert v6.rout_prisoners_share == 0.25
    assert not set(RULES_V5) & set(v6.model_dump())
    asked = MusketOptions(rout_prisoners_share=0)
    assert {k: asked.model_dump()[k] for k in RULES_V5} == RULES_V5


def test_a_version_6_scenario_reads_with_version_6_values() -> None:
    """Version 7 changed two defaults the fitting set chose: cavalry_closing_loss_step 0.06
    and cavalry_ride_past all. Read for v6 (or earlier) a scenario that does not set them has
    v6's nulls, and written for v6 leaves them out; read for v7 (or with no version) it has
    the new defaults, also left out of its dump."""
    assert RULES_V6 == {"cavalry_closing_loss_step": None, "cavalry_ride_past": None}
    for version in ("1", "2", "3", "4", "5", "6"):
        old = MusketOptions.model_validate({}, context={"ruleset_version": version})
        assert (old.cavalry_closing_loss_step, old.cavalry_ride_past) == (None, None), version
        assert not set(RULES_V6) & set(old.model_dump(context={"ruleset_version": version}))
    v7 = MusketOptions.model_validate({}, context={"ruleset_version": "7"})
    assert v7 == MusketOptions(**RULES_V7)
    assert (v7.cavalry_closing_loss_step, v7.cavalry_ride_past) == (0.06, "all")
    assert not set(RULES_V6) & set(v7.model_dump())
    asked = MusketOptions(cavalry_closing_loss_step=None, cavalry_ride_past=None)
    assert {k: asked.model_dump()[k] for k in RULES_V6} == RULES_V6


def test_a_version_7_scenario_reads_with_version_7_values() -> None:
    """Version 8 changed one default the fitting set chose: cavalry_vs_line 3. Read for v7
    (or earlier) a scenario that does not set it has v7's null, and written for v7 leaves it
    out; read for v8 (or with no version) it has the new default, also left out of its
    dump."""
    assert RULES_V7 == {"cavalry_vs_line": None}
    for version in ("1", "2", "3", "4", "5", "6", "7"):
        old = MusketOptions.model_validate({}, context={"ruleset_version": version})
        assert old.cavalry_vs_line is None, version
        assert not set(RULES_V7) & set(old.model_dump(context={"ruleset_version": version}))
    v8 = MusketOptions.model_validate({}, context={"ruleset_version": "8"})
    assert v8 == MusketOptions()
    assert v8.cavalry_vs_line == 3
    assert not set(RULES_V7) & set(v8.model_dump())
    asked = MusketOptions(cavalry_vs_line=None)
    assert {k: asked.model_dump()[k] for k in RULES_V7} == RULES_V7


@pytest.mark.parametrize(
    "replay",
    [
        RULES1,
        RULES2,
        RULES3,
        RULES4,
        BRIGADE4,
        RULES5,
        BRIGADE5,
        RULES6,
        SALAMANCA6,
        RULES7,
        QB7,
        ROOT / "tests" / "data" / "replays" / "coral_sea-s1942-flattop-rules1.jsonl",
    ],
)
def test_the_header_is_written_back_byte_for_byte(replay: Path) -> None:
    """An older header's scenario, read and written again for its version, is the recorded
    header: musket's v1 to v7 (options added by v2 and v3, defaults changed by v4 to v8)
    and flattop's v1 (options v1 already wrote, with v2's new defaults)."""
    recorded = api.open_replay(replay).header
    ruleset, scenario = header_scenario(recorded, str(replay))
    again = make_header(
        ruleset,
        scenario,
        recorded.seed,
        recorded.source,
        recorded.format_version,
        recorded.ruleset_version,
    )
    assert again.body() == recorded.body()


@pytest.mark.parametrize(
    ("replay", "version", "events"),
    [
        (RULES1, "1", 81),
        (RULES2, "2", 93),
        (RULES3, "3", 71),
        (RULES4, "4", 48),
        (BRIGADE4, "4", 77),
        (RULES5, "5", 48),
        (BRIGADE5, "5", 77),
        (RULES6, "6", 48),
        (SALAMANCA6, "6", 46),
        (RULES7, "7", 48),
        (QB7, "7", 31),
    ],
)
def test_verify_says_which_rules_it_was_fought_under(
    replay: Path, version: str, events: int
) -> None:
    """verify re-simulates the v1 to v7 battles byte for byte and names their rules."""
    text = invoke("verify", str(replay))
    assert text.exit_code == 0
    assert text.stdout.splitlines() == [
        f"OK: {replay}: {events} events, intact, lawful, re-simulates byte for byte"
    ]
    assert text.stderr.splitlines() == [
        f"battlesim: note: fought under musket rules v{version} (this battlesim's are v8); "
        f"fought again under v{version}"
    ]
    data = json.loads(invoke("verify", str(replay), "--json").stdout)
    assert data["ok"] is True
    assert data["rules"] == {
        "ruleset": "musket",
        "fought_under": version,
        "current": "8",
        "fought_again": True,
    }


def test_a_version_this_battlesim_does_not_have_is_named_not_trusted(tmp_path: Path) -> None:
    """A header claiming rules v9, later than today's v8: a newer battlesim's replay (or a
    forged claim of one), which this one cannot judge. verify does not call it OK, nor a
    mismatch of the file (exit 1): one line names the rules, exit 2, as a newer format is."""

    def claim(header: dict[str, Any]) -> None:
        header["ruleset_version"] = "9"

    forged = forge(tmp_path, lambda texts: edit_header(texts, claim), source=RULES1)
    result = invoke("verify", str(forged))
    assert (result.exit_code, result.stdout, result.stderr) == (
        2,
        "",
        f"battlesim: error: {forged}: fought under musket rules v9, newer than this "
        "battlesim's (v8); upgrade battlesim (or the ruleset's plugin)\n",
    )


@pytest.mark.parametrize(
    ("replay", "claimed"),
    [
        (RULES1, "2"),
        (RULES2, "3"),
        (RULES3, "4"),
        (BRIGADE4, "5"),
        (BRIGADE5, "6"),
        (SALAMANCA6, "7"),
        (QB7, "8"),
    ],
)
def test_an_older_header_cannot_pass_for_a_later_version(
    tmp_path: Path, replay: Path, claimed: str
) -> None:
    """The v1 battle claimed for v2, the v2 battle for v3, the v3 battle for v4, the v4
    brigade for v5, the v5 brigade for v6, the v6 Salamanca for v7, or the v7 Quatre Bras for
    v8, is fought under the claimed version's rules, and differs. (The kept v4 to v7 stone
    walls are no witnesses: their battle is the same under v5 to v8, so claimed for the next
    version it is what that fights, and verifies.)"""

    def claim(header: dict[str, Any]) -> None:
        header["ruleset_version"] = claimed

    forged = forge(tmp_path, lambda texts: edit_header(texts, claim), source=replay)
    result = invoke("verify", str(forged))
    assert result.exit_code == 1
    # v1's battle differs under v2 at its first charge; v2's breaks a v3 invariant first
    # (a charge test failed by 4 that leaves the unit in good order: v3 throws it back)
    assert "MISMATCH" in result.stdout or "INVARIANT broken" in result.stdout
    if claimed == "8":  # today's: no note
        assert "fought under" not in result.stdout + result.stderr
    else:  # an older version this battlesim still fights: fought again under the claim
        assert f"fought again under v{claimed}" in result.stderr


@pytest.mark.parametrize(
    ("replay", "turns"),
    [(RULES1, 8), (RULES2, 4), (RULES3, 3), (RULES4, 2), (RULES5, 2), (RULES6, 2), (RULES7, 2)],
)
def test_the_old_battle_still_shows_and_explains(replay: Path, turns: int) -> None:
    """show, why and the narrative read the v1 to v7 battles from their logs alone."""
    shown = invoke("show", str(replay))
    assert shown.exit_code == 0
    title = f"Stone wall at Marye's Heights — end of battle (turn {turns})"
    assert shown.stdout.splitlines()[0] == title
    loaded = api.load_replay(replay)
    check = next(e for e in loaded.events if e.type == "musket.morale_tested")
    chain = analysis.why(loaded, check.seq)
    assert [e.type for e, _ in chain][-2:] == ["musket.fired", "musket.morale_tested"]
    assert invoke("why", str(replay), str(check.seq)).exit_code == 0


def test_a_damaged_older_replay_is_not_said_to_be_fought_again(tmp_path: Path) -> None:
    """A rules-v1 replay with a line edited (the chain not recomputed): DAMAGED, and the
    note names the rules it was fought under without saying verify fought it again."""
    lines = RULES1.read_text(encoding="utf-8").splitlines(keepends=True)
    lines[9] = lines[9].replace('"turn":1', '"turn":2', 1)
    damaged = tmp_path / "damaged.jsonl"
    damaged.write_text("".join(lines), encoding="utf-8")
    result = invoke("verify", str(damaged))
    assert result.exit_code == 1 and result.stdout.startswith("DAMAGED at seq 8: ")
    assert result.stderr == (
        "battlesim: note: fought under musket rules v1 (this battlesim's are v8)\n"
    )
