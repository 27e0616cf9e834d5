"""calibrated.yaml: the fitted scenario's (or campaign's) own text with the best point set —
every comment and unchanged byte kept, a comment beside a value the fit changed marked with
what the value was. The writer is called on two made-up trials: no battle is fought."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

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
