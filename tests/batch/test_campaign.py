"""Campaigns: carry-over of survivors by unit id, reinforcements, the victory rule."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from sim.batch.execution.worker import NullSink
from sim.batch.inputs.campaign import CampaignData, campaign_outcome, fight_campaign
from sim.batch.inputs.files import read_yaml
from sim.batch.inputs.target import load_campaign
from sim.contract import Measure, Outcome, SideResult
from sim.rulesets.musket.campaign import carry_over
from sim.rulesets.musket.model.state import initial_state
from sim.scenario.load import load_scenario
from tests.batch.helpers import CAMPAIGN, RULES1, STONE_WALL, invoke


def _units(data: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {u["id"]: u for s in data["sides"] for u in s["units"]}


def test_carry_over_moves_survivors_by_id_with_exact_values() -> None:
    """Strength as it ended, fatigue less the recovery, morale stepped up; the dead stay behind."""
    _, sc = load_scenario(STONE_WALL)
    state = initial_state(sc)
    u = state.units
    u["69ny"].strength, u["69ny"].fatigue, u["69ny"].morale = 293, 374, "eliminated"  # fled
    u["28ma"].strength, u["28ma"].fatigue, u["28ma"].morale = 367, 75, "disrupted"
    u["116pa"].strength, u["116pa"].morale = 0, "eliminated"  # destroyed
    u["cobb"].strength, u["cobb"].fatigue, u["cobb"].morale = 288, 655, "routed"
    nxt, _ = read_yaml(RULES1 / "chancellorsville.yaml")
    reinforcement = {
        "id": "88ny", "name": "88th New York", "kind": "infantry", "strength": 320,
        "quality": "C", "weapon": "rifle_musket", "at": [6, 2],
    }  # fmt: skip
    out = _units(
        carry_over(
            sc, state, nxt, {"fatigue_recovery": 300, "reinforcements": {"usa": [reinforcement]}}
        )
    )
    got = {k: (v["strength"], v.get("fatigue", 0), v.get("morale", "good")) for k, v in out.items()}
    assert got == {
        "69ny": (293, 74, "disrupted"),  # fled the field: back as routed, one step up
        "28ma": (367, 0, "good"),
        "1ri": (6, 0, "good"),
        "88ny": (320, 0, "good"),  # reinforcement, appended to its side
        "24ga": (500, 0, "good"),
        "cobb": (288, 355, "disrupted"),
        "16ga": (450, 0, "good"),  # new in this battle: fresh
        "wash": (4, 0, "good"),
    }
    assert list(out) == ["69ny", "28ma", "1ri", "88ny", "24ga", "cobb", "16ga", "wash"]
    assert out["16ga"]["order"] == {"kind": "advance", "to": [9, 3]}  # its target is gone
    assert out["24ga"]["order"] == {"kind": "charge", "target": "69ny"}
    assert nxt["sides"][0]["units"][0]["strength"] == 300  # the input is not changed


def test_carry_over_settings_can_leave_fled_units_out() -> None:
    """fled_return false: a unit that left the field does not fight the next battle."""
    _, sc = load_scenario(STONE_WALL)
    state = initial_state(sc)
    state.units["69ny"].morale = "eliminated"
    nxt, _ = read_yaml(RULES1 / "chancellorsville.yaml")
    out = _units(carry_over(sc, state, nxt, {"fled_return": False, "morale_recovery": 0}))
    assert "69ny" not in out
    assert out["24ga"]["order"] == {"kind": "advance", "to": [5, 3]}


def test_a_fought_campaign_carries_each_battles_end_into_the_next() -> None:
    """In the shipped campaign, battle 2 starts from battle 1's final states, by unit id."""
    campaign = load_campaign(CAMPAIGN)
    result = fight_campaign(campaign, 1863, lambda k, e: NullSink())
    first, second = result.battles
    assert [b.id for b in result.battles] == ["fredericksburg", "chancellorsville"]
    start = {u.id: u for s in second.scenario.sides for u in s.units}
    for unit in first.state.units.values():
        if unit.strength == 0:
            assert unit.id not in start
            continue
        carried = start[unit.id]
        assert carried.strength == unit.strength
        assert carried.fatigue == max(0, unit.fatigue - 300)
        assert carried.morale == "good"  # morale_recovery 2 restores every unit
    assert start["88ny"].strength == 320 and start["16ga"].strength == 450
    o = result.outcome
    assert o["turns"] == first.outcome.turns + second.outcome.turns
    assert [b["id"] for b in o["battles"]] == ["fredericksburg", "chancellorsville"]
    for sid in ("usa", "csa"):
        men = first.outcome.sides[sid].loss("men") + second.outcome.sides[sid].loss("men")
        assert o["sides"][sid]["losses"]["men"] == men


def _outcome(campaign: CampaignData, winners: list[str | None]) -> dict[str, Any]:
    """The campaign outcome for battles won by ``winners`` (stand-in battle results)."""

    class B:
        def __init__(self, id: str, winner: str | None) -> None:
            self.id, self.seed = id, 0
            men = [Measure(name="men", value=10, unit="men")]
            self.outcome = Outcome(
                winner=winner, winner_name=None, turns=5, reason="r",
                sides={s: SideResult(name=s.upper(), losses=men) for s in ("usa", "csa")},
            )  # fmt: skip

    fought = [B(b.id, w) for b, w in zip(campaign.battles, winners, strict=False)]
    return campaign_outcome(campaign, fought)


def test_victory_by_points_and_by_last_battle() -> None:
    """Points: battle worth 1 and 2; a split goes to the winner of the 2-point battle."""
    campaign = load_campaign(CAMPAIGN)
    assert _outcome(campaign, ["csa", "usa"])["winner"] == "usa"
    assert _outcome(campaign, ["csa", "usa"])["reason"] == "most campaign points (2 of 3)"
    assert _outcome(campaign, ["csa", None])["winner"] == "csa"
    assert _outcome(campaign, [None, None])["winner"] is None
    even = campaign.model_copy(
        update={"battles": [b.model_copy(update={"points": 1}) for b in campaign.battles]}
    )
    assert _outcome(even, ["csa", "usa"])["reason"] == "campaign points are even (1 each)"
    last = campaign.model_copy(
        update={"victory": campaign.victory.model_copy(update={"rule": "last_battle"})}
    )
    assert _outcome(last, ["usa", "csa"])["winner"] == "csa"


def test_needed_points_belong_to_the_points_rule(tmp_path: Path) -> None:
    """`needed` with rule last_battle is refused at the victory's line: it stopped the
    campaign after its first battle, exit 0 (`needed` is the points rule's)."""
    text = CAMPAIGN.read_text(encoding="utf-8")
    rule = "  rule: points           # most campaign points wins; equal points are a draw"
    assert rule in text.splitlines()
    bad = tmp_path / "c.yaml"
    for name in ("stone_wall.yaml", "chancellorsville.yaml"):
        (tmp_path / name).write_bytes((CAMPAIGN.parent / name).read_bytes())
    bad.write_text(text.replace(rule, "  rule: last_battle\n  needed: 1"))
    result = invoke("campaign", bad, "--out", tmp_path / "out")
    line = 1 + bad.read_text().splitlines().index("victory:")
    assert (result.exit_code, result.output) == (
        2,
        f"{bad}:{line}: victory: 'needed' applies to rule points; a last_battle campaign "
        "fights every battle\n",
    )


def test_campaign_command_writes_a_replay_per_battle_and_a_summary(tmp_path: Path) -> None:
    """battlesim campaign: replays 1-<id>.jsonl, 2-<id>.jsonl and campaign.json, exit 0."""
    result = invoke("campaign", CAMPAIGN, "--seed", "7", "--out", tmp_path)
    assert result.exit_code == 0, result.output
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "1-fredericksburg.jsonl",
        "2-chancellorsville.jsonl",
        "campaign.json",
    ]
    summary = json.loads((tmp_path / "campaign.json").read_text())
    assert summary["seed"] == 7
    assert summary["replays"] == ["1-fredericksburg.jsonl", "2-chancellorsville.jsonl"]
    assert result.output.splitlines()[0] == "Fredericksburg to Chancellorsville (seed 7):"
    again = tmp_path / "again"
    assert invoke("campaign", CAMPAIGN, "--seed", "7", "--out", again).exit_code == 0
    for name in ("1-fredericksburg.jsonl", "2-chancellorsville.jsonl", "campaign.json"):
        assert (again / name).read_bytes() == (tmp_path / name).read_bytes()
    as_json = invoke("campaign", CAMPAIGN, "--seed", "7", "--out", tmp_path / "j", "--json")
    printed = json.loads(as_json.stdout)
    # campaign.json's object (its name and seed too), the replays as the paths written
    assert (printed["campaign"], printed["seed"]) == ("Fredericksburg to Chancellorsville", 7)
    assert {**printed, "replays": summary["replays"]} == summary
    assert printed["replays"] == [str(tmp_path / "j" / n) for n in summary["replays"]]


def test_a_shorter_campaign_leaves_no_replay_of_an_earlier_one_in_its_folder(
    tmp_path: Path,
) -> None:
    """The delve fights its three rooms at one seed and stops after two at another (the party
    cannot go on); fought into the same folder, the first's 3-lair.jsonl stayed beside the
    second's campaign.json, which lists two replays: two campaigns in one folder. A file
    there battlesim did not write stays (--force replaces only what a battle writes)."""
    delve = Path(__file__).resolve().parents[2] / "scenarios" / "delve_campaign.yaml"
    out = tmp_path / "out"
    assert invoke("campaign", delve, "--seed", "9223372036854775807", "-o", out).exit_code == 0
    assert (out / "3-lair.jsonl").is_file()
    assert invoke("campaign", delve, "--seed", "0", "-o", out).exit_code == 0
    replays = json.loads((out / "campaign.json").read_text())["replays"]
    assert replays == ["1-barricade.jsonl", "2-guardroom.jsonl"]
    assert sorted(p.name for p in out.iterdir()) == [*replays, "campaign.json"]
    (out / "3-lair.jsonl").write_text("my notes\n")
    assert invoke("campaign", delve, "--seed", "0", "-o", out, "--force").exit_code == 0
    assert (out / "3-lair.jsonl").read_text() == "my notes\n"


def test_batch_accepts_a_campaign(tmp_path: Path) -> None:
    """A campaign outcome study is one command; each run records its battles."""
    result = invoke("batch", CAMPAIGN, "--runs", "4", "--out", tmp_path, "--jobs", "1", "--json")
    assert result.exit_code == 0, result.output
    summary = json.loads(result.output)
    assert summary["study"]["kind"] == "campaign"
    assert summary["points"][0]["done"] == 4
