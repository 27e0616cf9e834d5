"""A state override above the bound its field declares by another field of its part
(:class:`~sim.contract.parts.AtMost`) is refused: a unit's strength above its initial, a
becmi combatant's hp above its hp_max, are values the rules never produce."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from sim.cli import cli

ROOT = Path(__file__).resolve().parents[2]
STONE_WALL = ROOT / "replays" / "stone_wall-s1862.jsonl"
TAVERN = ROOT / "replays" / "tavern_brawl-s377.jsonl"


def _fork(tmp_path: Path, replay: Path, at: int, change: str) -> tuple[int, str, Path]:
    out = tmp_path / "f.jsonl"
    args = ["fork", str(replay), "--at", str(at), "--set", change, "-o", str(out)]
    result = CliRunner().invoke(cli, args)
    return result.exit_code, result.output, out


@pytest.mark.parametrize(
    ("replay", "at", "change", "said"),
    [
        (
            STONE_WALL,
            19,
            "state.units.69ny.strength=5000",
            "--set state.units.69ny.strength: 5000 is more than 69ny's initial 228",
        ),
        (
            STONE_WALL,
            19,
            "state.units.69ny.initial=100",
            "--set state.units.69ny.initial: 100 is less than 69ny's strength 211, which it bounds",
        ),
        (
            TAVERN,
            3,
            "state.combatants.thorgrim.hp=99",
            "--set state.combatants.thorgrim.hp: 99 is more than thorgrim's hp_max 24",
        ),
    ],
)
def test_a_count_above_its_declared_bound_is_refused_in_one_line(
    tmp_path: Path, replay: Path, at: int, change: str, said: str
) -> None:
    code, output, out = _fork(tmp_path, replay, at, change)
    assert code == 2
    assert output.splitlines() == [f"battlesim: error: {said}"]
    assert not out.exists()
    assert not list(tmp_path.iterdir())


@pytest.mark.parametrize(
    ("replay", "at", "change"),
    [
        (STONE_WALL, 19, "state.units.69ny.strength=228"),
        (TAVERN, 3, "state.combatants.thorgrim.hp=20"),
    ],
)
def test_a_count_within_its_bound_forks_and_verifies(
    tmp_path: Path, replay: Path, at: int, change: str
) -> None:
    code, output, out = _fork(tmp_path, replay, at, change)
    assert code == 0, output
    assert CliRunner().invoke(cli, ["verify", str(out)]).exit_code == 0
