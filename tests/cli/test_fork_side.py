"""A fork cannot move a unit to the other side: the rules index each side's enemies."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from sim.cli import cli

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(
    ("replay", "path"),
    [
        ("stone_wall-s1862.jsonl", "units.116pa.side=csa"),
        ("coral_sea-s1942.jsonl", "ships.shoho.side=allied"),
        ("tavern_brawl-s377.jsonl", "combatants.grub.side=thorgrim"),
    ],
)
def test_a_side_override_is_refused_in_one_line(replay: str, path: str, tmp_path: Path) -> None:
    out = tmp_path / "f.jsonl"
    args = [
        "fork",
        str(ROOT / "replays" / replay),
        "--at",
        "3",
        "--set",
        f"state.{path}",
        "-o",
        str(out),
    ]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 2
    lines = result.output.splitlines()
    assert len(lines) == 1
    field = path.partition("=")[0]
    assert f"--set state.{field}: side cannot be forked (this ruleset keeps " in lines[0]
    assert not out.exists()
