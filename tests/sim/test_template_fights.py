"""The musket template's every unit fights: `battlesim new musket` gives no idle battery."""

from __future__ import annotations

from pathlib import Path

from sim import api
from sim.scenario.catalog import template_text


def test_every_unit_of_the_musket_template_fires_or_charges(tmp_path: Path) -> None:
    """Fought at its own seed, each unit of the template is the actor of an engagement
    (fire or melee, the ruleset's `engagements` hook) at least once."""
    scenario = tmp_path / "mine.yaml"
    scenario.write_text(template_text("musket").replace("{name}", "Mine"), encoding="utf-8")
    result = api.run(scenario, out=tmp_path / "mine.jsonl")
    assert result.replay is not None
    loaded = api.load_replay(result.replay)
    rows = loaded.ruleset.units(loaded.scenario, loaded.ruleset.initial_state(loaded.scenario))
    actors = {
        e.actor for ev in loaded.events for e in loaded.ruleset.engagements(loaded.scenario, ev)
    }
    assert {r.id for r in rows} - actors == set()
    assert len(rows) == 4
