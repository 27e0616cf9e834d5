"""A study's plots are matplotlib's default style wherever battlesim is run: a
``matplotlibrc`` in the working folder (which matplotlib reads when imported) changes no
plot, and its ``text.usetex: True`` no longer makes a study fail after its last run."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.batch.helpers import invoke

ROOT = Path(__file__).resolve().parents[2]
STONE_WALL = ROOT / "scenarios" / "stone_wall.yaml"
ARGS = ("--runs", "6", "--sweep", "options.fire_hcv=15,25", "--jobs", "1", "--quiet")
RC = "lines.linewidth: 9\nfigure.facecolor: red\naxes.prop_cycle: cycler('color', ['k'])\n"


def _study(where: Path, out: Path) -> None:
    """The study fought by a fresh ``python -m sim`` started in ``where`` (matplotlib reads
    the folder's rc file as it is imported: a process that has imported it already would
    not)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    subprocess.run(
        [sys.executable, "-m", "sim", "batch", str(STONE_WALL), *ARGS, "-o", str(out)],
        cwd=where, env=env, check=True, capture_output=True,
    )  # fmt: skip


def test_a_matplotlibrc_where_battlesim_runs_changes_no_plot(tmp_path: Path) -> None:
    """The study fought where a matplotlibrc lies draws the plots the same study draws in
    this process (whose matplotlib read no rc file of the tests' folders)."""
    styled = tmp_path / "styled"
    styled.mkdir()
    (styled / "matplotlibrc").write_text(RC + "text.usetex: True\n")
    _study(styled, tmp_path / "a")
    result = invoke("batch", STONE_WALL, *ARGS, "-o", tmp_path / "b")
    assert result.exit_code == 0, result.output
    names = sorted(p.name for p in (tmp_path / "a" / "plots").iterdir())
    assert names and names == sorted(p.name for p in (tmp_path / "b" / "plots").iterdir())
    for name in names:
        a = (tmp_path / "a" / "plots" / name).read_bytes()
        assert a == (tmp_path / "b" / "plots" / name).read_bytes(), name
