"""Option ``disrupted_counts_out`` (ours): a disrupted unit counts out for its army's break
on the same terms as a spent one, so a rally from disrupted to spent never turns a unit
from in to out (docs/rules/musket.md, *Victory*, and the option's protocol).

Every unit here starts 400 strong: with ``spent_out_loss`` 0.2 (rules version 4's default)
a unit counts out at 80 men lost, 79 not; with it null, ``rout_loss`` 0.3: 120 men.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import yaml

from sim.rulesets.musket.model.options import MusketOptions
from sim.rulesets.musket.reading.report import narrate
from sim.rulesets.musket.rules.victory import decide_breaks
from tests.musket.test_spent_out_loss import _battle, _units_out
from tests.sim.test_rules import _fight

ROOT = Path(__file__).resolve().parents[2]
ON: dict[str, Any] = {"disrupted_counts_out": True}


def test_off_by_default_a_disrupted_unit_never_counts_out_and_is_not_written() -> None:
    assert MusketOptions().disrupted_counts_out is False
    assert "disrupted_counts_out" not in MusketOptions().model_dump()
    assert MusketOptions(disrupted_counts_out=True).model_dump()["disrupted_counts_out"] is True
    assert _units_out({}, 0 + 100, morale="disrupted") == 0.0  # 300 lost, still in


def test_on_a_disrupted_unit_counts_out_at_the_spent_units_share() -> None:
    assert _units_out(ON, 321, morale="disrupted") == 0.0  # 79 lost: 0.1975 < 0.2
    assert _units_out(ON, 320, morale="disrupted") == 0.5  # 80 lost: 0.2
    null = ON | {"spent_out_loss": None}  # rout_loss's 0.3: 120 men
    assert _units_out(null, 281, morale="disrupted") == 0.0
    assert _units_out(null, 280, morale="disrupted") == 0.5
    assert _units_out(ON, 100, morale="good") == 0.0  # in good order never, whatever it lost


def test_never_without_spent_counts_out_or_any_threshold() -> None:
    assert _units_out(ON | {"spent_counts_out": False}, 100, morale="disrupted") == 0.0
    both_null = ON | {"rout_loss": None, "spent_out_loss": None}
    assert _units_out(both_null, 100, morale="disrupted") == 0.0


def test_on_a_rally_from_disrupted_to_spent_never_turns_a_unit_out() -> None:
    """Off, some strengths leave a unit in while disrupted and out once it rallies to spent
    (the defect: from 320 of 400 down); on, at no strength is spent out and disrupted in."""
    for options, defect in (({}, True), (ON, False)):
        worse = [
            n for n in range(0, 401, 5)
            if _units_out(options, n, morale="spent") > _units_out(options, n, morale="disrupted")
        ]  # fmt: skip
        assert bool(worse) is defect, (options, worse)
        assert not defect or worse == list(range(0, 321, 5))


def test_the_narrative_of_a_break_names_the_disrupted_units_that_counted_out() -> None:
    b = _battle(ON)
    a1 = b.state.units["a1"]
    a1.morale, a1.strength = "disrupted", 320
    (broke,) = decide_breaks(b, {"a": 7})
    assert broke.reason == "50% of its units routed or eliminated (breaks at 50%)"
    line = narrate(b.scenario, b.state, broke.model_copy(update={"seq": 8}))
    assert line is not None and line.endswith(
        "breaks: 50% of its units out (breaks at 50%) — of 2 units, 0 routed, "
        "0 eliminated, 0 spent and 1 disrupted with 20% or more of its strength lost"
    ), line


def _minimal(options: dict[str, Any]) -> list[dict[str, Any]]:
    """docs/scenario-format.md's minimal scenario, fought at its seed (7)."""
    text = (ROOT / "docs" / "scenario-format.md").read_text("utf-8")
    found = re.search(r"## A minimal scenario\n\n```yaml\n(.*?)```", text, re.DOTALL)
    assert found is not None
    data = yaml.safe_load(found.group(1))
    data.setdefault("options", {}).update(options)
    return _fight(data, seed=7)


def test_the_docs_minimal_scenario_breaks_before_the_rally_not_at_it() -> None:
    """Off: 1st Blue, disrupted with 22.7 % lost since turn 4, rallies to spent in turn 5
    and Blue breaks at that turn's end, by the rally. On: Blue breaks at turn 4's end."""

    def broke(events: list[dict[str, Any]]) -> tuple[int, list[str]]:
        """The turn Blue broke, and that turn's rallies: ``before → after``."""
        (e,) = [e for e in events if e.get("type") == "musket.side_broken"]
        rallies = [
            f"{x['before']} → {x['after']}" for x in events
            if x.get("type") == "musket.rallied" and x["turn"] == e["turn"]
        ]  # fmt: skip
        return e["turn"], rallies

    assert broke(_minimal({})) == (5, ["disrupted → spent"])
    assert broke(_minimal(ON)) == (4, ["disrupted → disrupted"])


def test_off_the_battle_is_the_battle_without_it_byte_for_byte() -> None:
    assert [json.dumps(e) for e in _minimal({"disrupted_counts_out": False})] == [
        json.dumps(e) for e in _minimal({})
    ]
