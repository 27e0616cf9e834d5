"""Option ``spent_out_loss``: the loss share at which a spent unit counts out for its
army's break (docs/rules/musket.md, *Victory* and *Options*).

Every unit here starts 400 strong, so a unit that has lost L men has lost L/400 of it:
the count-out thresholds below are that share against the option (default 0.2 = 80 men
since musket rules version 4; null: ``rout_loss``, 0.3 = 120 men, as version 3 had it).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from click.testing import CliRunner

from sim import api
from sim.cli import cli
from sim.rulesets.musket.model.options import MusketOptions
from sim.rulesets.musket.reading.report import narrate
from sim.rulesets.musket.rules.context import Battle
from sim.rulesets.musket.rules.victory import decide_breaks, side_shares, spent_out_limit
from tests.sim.test_rules import _inf, _scenario, battle_of

ROOT = Path(__file__).resolve().parents[2]


def _battle(options: dict[str, Any]) -> Battle:
    """Side a: a1 and a2 (400 men each); side b: b1. Both armies break at 50 % of units."""
    data = _scenario([_inf("a1", [1, 1]), _inf("a2", [2, 1])], [_inf("b1", [8, 8])])
    if options:
        data["options"] = options
    return battle_of(data)


def _units_out(options: dict[str, Any], strength: int, morale: str = "spent") -> float:
    """Side a's share of units out with a1 in ``morale`` at ``strength`` of 400."""
    b = _battle(options)
    a1 = b.state.units["a1"]
    a1.morale = morale
    a1.strength = strength
    return side_shares(b, "a")[0]


def test_by_default_the_threshold_is_a_fifth() -> None:
    """Rules version 4's default, 0.2: a spent unit counts out once it has lost 80 of 400
    men, whatever rout_loss."""
    assert MusketOptions().spent_out_loss == 0.2
    assert spent_out_limit(_battle({})) == 0.2
    assert _units_out({}, 321) == 0.0  # 79 lost: 0.1975 < 0.2
    assert _units_out({}, 320) == 0.5  # 80 lost: 0.2
    assert _units_out({"rout_loss": 0.25}, 320) == 0.5


def test_null_makes_the_threshold_rout_loss() -> None:
    """null (version 3's behaviour): a spent unit counts out once it has lost rout_loss
    (0.3: 120 of 400 men)."""
    null: dict[str, Any] = {"spent_out_loss": None}
    assert spent_out_limit(_battle(null)) == 0.3
    assert _units_out(null, 281) == 0.0  # 119 lost: 0.2975 < 0.3
    assert _units_out(null, 280) == 0.5  # 120 lost: 0.3
    assert _units_out(null | {"rout_loss": 0.25}, 301) == 0.0  # 99 lost < 100
    assert _units_out(null | {"rout_loss": 0.25}, 300) == 0.5  # 100 lost = 0.25


def test_the_option_sets_the_threshold_whatever_rout_loss() -> None:
    """0.1: 40 of 400 men lost counts out, 39 does not; 0.2: 80; rout_loss is not read."""
    assert _units_out({"spent_out_loss": 0.1}, 361) == 0.0
    assert _units_out({"spent_out_loss": 0.1}, 360) == 0.5
    assert _units_out({"spent_out_loss": 0.2}, 321) == 0.0
    assert _units_out({"spent_out_loss": 0.2}, 320) == 0.5
    assert _units_out({"spent_out_loss": 0.2, "rout_loss": None}, 320) == 0.5
    assert _units_out({"spent_out_loss": 0.2, "rout_loss": 0.1}, 321) == 0.0


def test_zero_counts_every_spent_unit_out_and_only_spent_ones() -> None:
    """0.0: a spent unit counts out at full strength; one in good order or disrupted does
    not, whatever it lost; a routed one always does."""
    assert _units_out({"spent_out_loss": 0.0}, 400) == 0.5
    assert _units_out({"spent_out_loss": 0.0}, 100, morale="good") == 0.0
    assert _units_out({"spent_out_loss": 0.0}, 100, morale="disrupted") == 0.0
    assert _units_out({"spent_out_loss": 0.0}, 400, morale="routed") == 0.5


def test_never_without_spent_counts_out_or_any_threshold() -> None:
    """spent_counts_out false: no spent unit counts out; both shares null: none either."""
    assert _units_out({"spent_out_loss": 0.0, "spent_counts_out": False}, 100) == 0.0
    both_null = {"rout_loss": None, "spent_out_loss": None}
    assert spent_out_limit(_battle(both_null)) is None
    assert _units_out(both_null, 100) == 0.0


def test_a_spent_unit_counted_out_breaks_its_army() -> None:
    """With 0.1, a1 spent with 40 of 400 lost is one of two units out: side a breaks
    at break_units 0.5; its men lost are 40 of 800 (5 %)."""
    b = _battle({"spent_out_loss": 0.1})
    a1 = b.state.units["a1"]
    a1.morale, a1.strength = "spent", 360
    (broke,) = decide_breaks(b, {"a": 7})
    assert (broke.side, broke.cause, broke.units_out_share) == ("a", 7, 0.5)
    assert broke.losses_share == 40 / 800
    assert broke.reason == "50% of its units routed or eliminated (breaks at 50%)"
    a1.strength = 361
    assert decide_breaks(b, {"a": 7}) == []


def test_the_narrative_of_a_break_says_which_units_counted_out() -> None:
    """The recorded words say "routed or eliminated" for every unit out (they are part of the
    replay's bytes); the narrative says "out" and what it counted: a1 spent with 40 of 400
    lost at 0.1 counts out beside a2 in good order. With no spent unit out, nothing is added."""
    b = _battle({"spent_out_loss": 0.1})
    a1 = b.state.units["a1"]
    a1.morale, a1.strength = "spent", 360
    (broke,) = decide_breaks(b, {"a": 7})
    assert broke.reason == "50% of its units routed or eliminated (breaks at 50%)"
    scenario = b.scenario
    line = narrate(scenario, b.state, broke.model_copy(update={"seq": 8}))
    assert line is not None and line.endswith(
        "A breaks: 50% of its units out (breaks at 50%) — of 2 units, 0 routed, "
        "0 eliminated and 1 spent with 10% or more of its strength lost"
    ), line
    a1.morale, a1.strength = "routed", 360
    (broke,) = decide_breaks(b, {"a": 7})
    line = narrate(scenario, b.state, broke.model_copy(update={"seq": 8}))
    assert line is not None and line.endswith("(breaks at 50%)")


def test_the_count_follows_the_units_share_not_the_losses_after_it() -> None:
    """A break on both thresholds: a1 spent (40 lost) and a2 in good order with 360 of 400
    lost, 400 of 800 men: the count of units out follows the share it explains, and the
    share of men lost keeps its words."""
    b = _battle({"spent_out_loss": 0.1})
    a1, a2 = b.state.units["a1"], b.state.units["a2"]
    a1.morale, a1.strength = "spent", 360
    a2.strength = 40
    (broke,) = decide_breaks(b, {"a": 7})
    assert broke.reason == (
        "50% of its units routed or eliminated (breaks at 50%); 50% of its men lost (breaks at 50%)"
    )
    line = narrate(b.scenario, b.state, broke.model_copy(update={"seq": 8}))
    assert line is not None and line.endswith(
        "A breaks: 50% of its units out (breaks at 50%) — of 2 units, 0 routed, "
        "0 eliminated and 1 spent with 10% or more of its strength lost; "
        "50% of its men lost (breaks at 50%)"
    ), line


def test_the_default_is_left_out_of_a_scenario_and_a_value_is_kept() -> None:
    """A later option: at its default (0.2) it is not written (older headers read back byte
    for byte); a value set, null included, is."""
    assert "spent_out_loss" not in MusketOptions().model_dump()
    assert MusketOptions(spent_out_loss=0.1).model_dump()["spent_out_loss"] == 0.1
    assert MusketOptions(spent_out_loss=None).model_dump()["spent_out_loss"] is None


def test_a_routed_unit_that_passes_a_check_is_told_still_routed() -> None:
    """A check of a routed unit (heavy losses) that passes leaves it routed: the narrative
    says so, where it said "passes" of a unit the state has routed."""
    replay = ROOT / "replays" / "chancellorsville-s1863.jsonl"
    loaded = api.load_replay(replay)
    checks = [
        e for e in loaded.events
        if e.type == "musket.morale_tested" and e.passed and e.after == "routed"  # type: ignore[attr-defined]
    ]  # fmt: skip
    assert checks
    shown = CliRunner().invoke(cli, ["show", str(replay), "--events", "--seqs"]).stdout
    lines = {int(t.split("]")[0].removeprefix("[seq ")): t for t in shown.splitlines()}
    for e in checks:
        assert lines[e.seq].endswith("): passes, still routed")
