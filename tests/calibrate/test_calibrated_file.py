"""calibrated.yaml: the fitted scenario's (or campaign's) own text with the best point set —
every comment and unchanged byte kept, a comment beside a value the fit changed marked with
what the value was. The writer is called on two made-up trials: no battle is fought."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from sim.batch.inputs.target import load_campaign, load_target
from sim.calibrate import Trial, load_calibration
from sim.calibrate.report import write_outputs

BRAWL = """\
# A brawl: comments beside values the fit changes and values it keeps.
ruleset: becmi
name: Brawl
seed: 377
rounds:
  limit: 30
options:
  monster_morale: true # orcs may bolt
sides:
  - id: thorgrim
    name: Thorgrim
    characters:
      - id: thorgrim
        name: Thorgrim
        class: fighter
        level: 4             # THAC0 17
        hp: 24               # 24: rolled
        attack: strike
        at: [30, 10]         # by the bar
  - id: orcs
    name: Orc band
    monsters:
      - {id: grub, name: Grub, attack: strike, save_as: F1,
         hd: "1", ac: 6, hp: 6, at: [0, 0]}  # the puncher
"""

CAMPAIGN = """\
# Two brawls: comments beside values the fit changes and values it keeps.
campaign: Two brawls
seed: 3
carry_over:             # between brawls
  healing: 2            # a short rest
victory:
  rule: last_battle     # the last brawl decides
battles:
  - id: first
    scenario: brawl.yaml    # the common room
  - id: second
    scenario: brawl.yaml
    points: 1           # worth one point
"""


def _calibrated(folder: Path, fitted: dict[str, str], factors: dict[str, list[Any]]) -> Path:
    """The calibrated files of a fit of ``fitted`` (``scenario``/``campaign``: its file)
    whose best point, trial 1, is each factor's last value (trial 0, the start, its first):
    the output folder."""
    calibration = {
        "name": "a fit",
        **fitted,
        "replications": 2,
        "trials": 2,
        "factors": [{"path": path, "values": values} for path, values in factors.items()],
        "targets": [{"measure": "win.orcs", "value": 1}],
        "outputs": {"plots": False},
    }
    path = folder / "fit.yaml"
    path.write_text(yaml.safe_dump(calibration, sort_keys=False), encoding="utf-8")
    spec = load_calibration(path)
    best = {path: values[-1] for path, values in factors.items()}
    trials = [Trial(0, spec.start, 2.0, (), 2, 0), Trial(1, best, 1.0, (), 2, 0)]
    out = folder / "out"
    out.mkdir()
    write_outputs(spec, trials, out)
    return out


def _read(path: Path) -> str:
    return path.read_text(encoding="utf-8")


def test_a_comment_beside_a_changed_value_says_what_it_was_and_the_rest_is_kept(
    tmp_path: Path,
) -> None:
    """Thorgrim's hp 24 → 7 keeps its comment behind "calibrated: hp was 24" at its column
    (it read `hp: 7    # 24: rolled`, the comment now false); Grub's ac and hp, changed on
    one line, share one note; a value the point leaves as it was (level 4, hd "1", not
    respelled '1') and every other line stay byte for byte; a changed value with no
    comment (the round limit) gets none."""
    (tmp_path / "brawl.yaml").write_text(BRAWL, encoding="utf-8")
    factors: dict[str, list[Any]] = {
        "sides.thorgrim.characters.thorgrim.hp": [24, 7],
        "sides.thorgrim.characters.thorgrim.level": [5, 4],
        "sides.orcs.monsters.grub.ac": [6, 4],
        "sides.orcs.monsters.grub.hp": [6, 9],
        "sides.orcs.monsters.grub.hd": ["2", "1"],
        "rounds.limit": [30, 20],
    }
    out = _calibrated(tmp_path, {"scenario": "brawl.yaml"}, factors)
    head = (
        "# brawl.yaml with the best point of battlesim calibrate fit.yaml (trial 1) set:\n"
        "#   sides.thorgrim.characters.thorgrim.hp = 7\n"
        "#   sides.thorgrim.characters.thorgrim.level = 4\n"
        "#   sides.orcs.monsters.grub.ac = 4\n"
        "#   sides.orcs.monsters.grub.hp = 9\n"
        "#   sides.orcs.monsters.grub.hd = '1'\n"
        "#   rounds.limit = 20\n"
    )
    assert _read(out / "calibrated.yaml") == head + (
        BRAWL.replace("limit: 30", "limit: 20")
        .replace(
            "hp: 24               # 24: rolled",
            "hp: 7                # calibrated: hp was 24; 24: rolled",
        )
        .replace(
            'hd: "1", ac: 6, hp: 6, at: [0, 0]}  # the puncher',
            'hd: "1", ac: 4, hp: 9, at: [0, 0]}  # calibrated: ac was 6, hp was 6; the puncher',
        )
    )


def test_a_campaigns_files_keep_every_comment_as_a_scenarios_does(tmp_path: Path) -> None:
    """A campaign's calibrated.yaml is its own text with each battle's scenario named as
    the calibrated one beside it, and each calibrated-<battle>.yaml its scenario's own text
    (they were dumped from the data: every comment lost, every default written in): values
    set and comments noted as in a scenario's fit — the campaign's own (the healing, the
    points, the scenario named), each battle's (Thorgrim's hp in the first only) — and
    every other line byte for byte."""
    (tmp_path / "brawl.yaml").write_text(BRAWL, encoding="utf-8")
    (tmp_path / "camp.yaml").write_text(CAMPAIGN, encoding="utf-8")
    factors: dict[str, list[Any]] = {
        "battles.0.scenario.sides.thorgrim.characters.thorgrim.hp": [24, 7],
        "battles.1.scenario.rounds.limit": [30, 20],
        "battles.1.points": [1, 2],
        "carry_over.healing": [2, 3],
        "victory.rule": ["points", "last_battle"],
    }
    out = _calibrated(tmp_path, {"campaign": "camp.yaml"}, factors)
    head = (
        "# camp.yaml with the best point of battlesim calibrate fit.yaml (trial 1) set:\n"
        "#   battles.0.scenario.sides.thorgrim.characters.thorgrim.hp = 7\n"
        "#   battles.1.scenario.rounds.limit = 20\n"
        "#   battles.1.points = 2\n"
        "#   carry_over.healing = 3\n"
        "#   victory.rule = last_battle\n"
    )
    assert _read(out / "calibrated.yaml") == head + (
        CAMPAIGN.replace(
            "healing: 2            # a short rest",
            "healing: 3            # calibrated: healing was 2; a short rest",
        )
        .replace(
            "scenario: brawl.yaml    # the common room",
            "scenario: calibrated-first.yaml # calibrated: scenario was brawl.yaml; "
            "the common room",
        )
        .replace("scenario: brawl.yaml\n", "scenario: calibrated-second.yaml\n")
        .replace(
            "points: 1           # worth one point",
            "points: 2           # calibrated: points was 1; worth one point",
        )
    )
    where = "# battle {} of the calibrated campaign (calibrated.yaml), from brawl.yaml:\n"
    assert _read(out / "calibrated-first.yaml") == head + where.format("first") + BRAWL.replace(
        "hp: 24               # 24: rolled",
        "hp: 7                # calibrated: hp was 24; 24: rolled",
    )
    second = BRAWL.replace("limit: 30", "limit: 20")
    assert _read(out / "calibrated-second.yaml") == head + where.format("second") + second


def test_a_file_that_cannot_be_edited_in_place_is_written_from_its_data_said_so(
    tmp_path: Path,
) -> None:
    """A campaign file and a battle's scenario each holding an anchor (an edit could reach
    every place that shares it): each is written from its data after a line saying so, and
    reads back as the campaign at the best point (the other battle's file is still edited
    in place)."""
    anchored = BRAWL.replace("at: [30, 10]", "at: &bar [30, 10]")
    (tmp_path / "anchored.yaml").write_text(anchored, encoding="utf-8")
    (tmp_path / "brawl.yaml").write_text(BRAWL, encoding="utf-8")
    campaign = CAMPAIGN.replace("scenario: brawl.yaml    #", "scenario: anchored.yaml  #")
    (tmp_path / "camp.yaml").write_text(campaign.replace("seed: 3", "seed: &s 3"), "utf-8")
    factors: dict[str, list[Any]] = {
        "battles.0.scenario.sides.thorgrim.characters.thorgrim.hp": [24, 7],
        "battles.1.scenario.rounds.limit": [30, 20],
    }
    out = _calibrated(tmp_path, {"campaign": "camp.yaml"}, factors)
    head = (
        "# camp.yaml with the best point of battlesim calibrate fit.yaml (trial 1) set:\n"
        "#   battles.0.scenario.sides.thorgrim.characters.thorgrim.hp = 7\n"
        "#   battles.1.scenario.rounds.limit = 20\n"
    )
    where = "# battle {} of the calibrated campaign (calibrated.yaml), from {}:\n"
    said = "# (written from the {}: its text could not be edited in place)\n"
    scenario = "scenario's data, every option at its value"
    written = _read(out / "calibrated.yaml")
    assert written.startswith(head + said.format("campaign's data") + "campaign: Two brawls\n")
    first = _read(out / "calibrated-first.yaml")
    assert first.startswith(head + where.format("first", "anchored.yaml") + said.format(scenario))
    second = BRAWL.replace("limit: 30", "limit: 20")
    assert _read(out / "calibrated-second.yaml") == head + where.format("second", "brawl.yaml") + (
        second
    )
    wanted = load_target(tmp_path / "camp.yaml").at({k: v[-1] for k, v in factors.items()})
    for battle in wanted["battles"]:
        battle["source"] = f"calibrated-{battle['id']}.yaml"
    assert load_campaign(out / "calibrated.yaml").model_dump(mode="json") == wanted
