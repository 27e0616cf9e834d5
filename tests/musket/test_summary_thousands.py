"""musket's outcome summary writes a count of a thousand or more with thousands separators.

``battlesim run scenarios/cold_harbor.yaml`` said ``Union: 1237 men and 0 guns lost``, where
a study of the same battle says ``mean 1,367.8`` and the narrative ``value 1,992``. The
summary is no part of a replay (the report page and the campaign lines are drawn from it
when shown), so its words can change.
"""

from __future__ import annotations

from pathlib import Path

from sim import api
from sim.rulesets.musket.reading.report import summary
from tests.forge import invoke

ROOT = Path(__file__).resolve().parents[2]
COLD_HARBOR = ROOT / "scenarios" / "cold_harbor.yaml"


def test_a_thousand_men_lost_is_written_with_a_separator(tmp_path: Path) -> None:
    result = api.run(COLD_HARBOR, seed=1864, out=tmp_path / "a.jsonl")
    union = result.outcome.sides["usa"].details
    men = union["men_lost"]
    assert men >= 1000  # the case this test is about: a loss of four digits
    lines = summary(result.outcome)
    assert lines[0].startswith(f"Union: {men // 1000},{men % 1000:03d} men and ")
    shown = invoke("run", str(COLD_HARBOR), "--seed", "1864", "--out", str(tmp_path / "b.jsonl"))
    assert shown.exit_code == 0
    assert f"  {lines[0]}" in shown.stdout.splitlines()


def test_small_counts_are_unchanged(tmp_path: Path) -> None:
    result = api.run(ROOT / "scenarios" / "stone_wall.yaml", out=tmp_path / "sw.jsonl")
    csa = result.outcome.sides["csa"].details
    assert csa["men_lost"] < 1000
    assert summary(result.outcome)[1] == (
        f"Confederate: {csa['men_lost']} men and {csa['guns_lost']} guns lost; "
        f"{csa['routed']} routed, {csa['eliminated']} eliminated of {csa['units']} units"
    )
