"""No plot or export is written by name after the check (issue 31, item 3).

A temporary name checked and then handed to another library by name
(matplotlib's ``savefig(path)``, DuckDB's ``COPY … TO path``) is reopened,
and a link another local user swaps in between is followed. Each writer is
raced here deterministically: the seam that creates the temporary file
(``engine.safety.atomic._create_temp``) or the private export folder
(``engine.safety.atomic._private_folder``) is wrapped so that, the moment it has
been made and before a byte is written, its name is swapped for a symbolic
link to a victim. The victim keeps its bytes whatever the writer does; a
plot whose temporary name was swapped is refused (nothing is renamed into
place), and an export still lands as a regular file of its own.
"""

from __future__ import annotations

import contextlib
import os
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
import yaml

import engine.safety.atomic
from tests.batch.helpers import SCENARIOS, invoke
from tests.batch.synthetic import synthetic_study
from tests.batch.test_discover import FACTORS, GRID, _wall
from tests.forge import GOLDEN

BRAWL = SCENARIOS / "tavern_brawl.yaml"
VICTIM = b"DATA\n"

HISTORY_CASE = """\
format: 1
id: small
title: A small case
scenario: {scenario}
seed: 7
runs: 3
measures:
  - id: holds
    label: P(the Confederates hold)
    kind: win
    side: csa
    historical: 1
    accept: {{min: 0}}
    source: A test.
"""


@pytest.fixture(scope="module")
def study(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A two-run study of the brawl, without plots."""
    out = tmp_path_factory.mktemp("study") / "st"
    assert invoke("batch", BRAWL, "--runs", "2", "--out", out, "--no-plots").exit_code == 0
    return out


@pytest.fixture(scope="module")
def wall(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The synthetic study discover's tests use (16 points × 20 runs)."""
    return synthetic_study(tmp_path_factory.mktemp("wall") / "s", FACTORS, GRID, _wall)


def _calibration(folder: Path) -> Path:
    data = yaml.safe_load((SCENARIOS / "coral_sea_calibration.yaml").read_text("utf-8"))
    data.update(scenario=str(SCENARIOS / data["scenario"]), replications=4, trials=2)
    data.update(startup_trials=2)
    path = folder / "fit.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return path


def _suite(folder: Path) -> Path:
    suite = folder / "suite"
    suite.mkdir()
    (suite / "small.yaml").write_text(
        HISTORY_CASE.format(scenario=SCENARIOS / "stone_wall.yaml"), encoding="utf-8"
    )
    return suite


PLOT_WRITERS: dict[str, Callable[[Path, Path, Path], list[str | Path]]] = {
    "study plots": lambda d, s, w: ["batch", BRAWL, "--runs", "2", "--out", d / "st", "-q"],
    "discover": lambda d, s, w: ["discover", w, "-m", "winner == 'usa'", "-o", d / "d.png"],
    "calibrate search.png": lambda d, s, w: [
        "calibrate", _calibration(d), "-o", d / "fit", "--jobs", "1", "-q",
    ],
    "history --plot": lambda d, s, w: ["history", "--suite", _suite(d), "--plot", d / "h.png"],
    "report --png": lambda d, s, w: ["report", GOLDEN, "-o", d / "r.html", "--png", d / "png"],
    "report page": lambda d, s, w: ["report", GOLDEN, "-o", d / "r.html"],
}  # fmt: skip
"""Every writer that writes through ``replacing`` (a plot, a page): its command line in D."""


def _swapping_temps(monkeypatch: pytest.MonkeyPatch, victim: Path) -> list[Path]:
    """Make every temporary file's name a link to ``victim`` as soon as it is created."""
    made = engine.safety.atomic._create_temp
    swapped: list[Path] = []

    def racing(final: Path) -> tuple[int, Path]:
        fd, temp = made(final)
        temp.unlink()
        temp.symlink_to(victim)  # the other user's move, between creation and write
        swapped.append(temp)
        return fd, temp

    monkeypatch.setattr(engine.safety.atomic, "_create_temp", racing)
    return swapped


@pytest.mark.parametrize("writer", sorted(PLOT_WRITERS))
def test_a_temp_name_swapped_for_a_link_is_never_written_through(
    writer: str,
    tmp_path: Path,
    study: Path,
    wall: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The writer writes only to the descriptor it created: the victim keeps its bytes,
    and the swapped name is refused before the rename (the command fails, exit 2 —
    one line — and puts nothing in place)."""
    victim = tmp_path / "victim.png"
    victim.write_bytes(VICTIM)
    folder = tmp_path / "d"
    folder.mkdir()
    args = PLOT_WRITERS[writer](folder, study, wall)
    swapped = _swapping_temps(monkeypatch, victim)
    result = invoke(*args)
    assert victim.read_bytes() == VICTIM
    assert swapped, "the writer made no temporary file: the race was not run"
    assert result.exit_code == 2, result.output
    errors = [line for line in result.stderr.splitlines() if line.startswith("battlesim:")]
    assert len(errors) == 1 and "temporary name was replaced" in errors[0], result.stderr
    # the other user's link is left as found, unless it was made in battlesim's own private
    # folder (history's plot is drawn there, put in place with its tables), removed whole
    assert all(p.is_symlink() or not p.parent.exists() for p in swapped)


EXPORTS = {
    "csv": (["--format", "csv"], ["points.csv", "runs.csv", "study.csv", "unit_finals.csv"]),
    "parquet": (
        ["--format", "parquet"],
        ["points.parquet", "runs.parquet", "study.parquet", "unit_finals.parquet"],
    ),
    "wide": (["--format", "csv", "--wide"], ["runs_wide.csv"]),
}


@pytest.mark.parametrize("kind", sorted(EXPORTS))
def test_an_export_folder_swapped_for_a_link_is_never_written_through(
    kind: str, tmp_path: Path, study: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """DuckDB writes by name into a private folder; its name swapped for a link to a
    folder of victims as soon as it is made, the victims keep their bytes and the export
    lands in place, each file a regular file of its own."""
    options, names = EXPORTS[kind]
    victims = tmp_path / "victims"
    victims.mkdir()
    for name in names:
        (victims / name).write_bytes(VICTIM)
    made = engine.safety.atomic._private_folder
    raced: list[str] = []
    left: list[str] = []

    def racing() -> tuple[str, int]:
        private, fd = made()
        os.rename(private, private + ".moved")
        os.symlink(victims, private)  # the name the writer would have been given
        raced.append(private)
        return private, fd

    monkeypatch.setattr(engine.safety.atomic, "_private_folder", racing)
    dest = tmp_path / "export"
    try:
        result = invoke("export", study, *options, "-o", dest)
    finally:
        for private in raced:  # the export's rmtree met the link: the folder is ours to remove
            with contextlib.suppress(OSError):  # never hides the test's own failure
                os.unlink(private)
                os.rename(private + ".moved", private)
                left.extend(os.listdir(private))
                shutil.rmtree(private)
    assert result.exit_code == 0, result.output
    assert len(raced) == 1  # one private folder for the export's tables (exporting_together)
    assert left == []  # every file DuckDB wrote was moved out of its private folder
    assert sorted(p.name for p in victims.iterdir()) == names
    assert all((victims / n).read_bytes() == VICTIM for n in names)
    for name in names:
        final = dest / name
        assert final.is_file() and not final.is_symlink() and final.stat().st_size > 0


def test_an_export_writer_that_left_a_link_is_refused(
    tmp_path: Path, study: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Whatever DuckDB leaves under the export's name must be a plain file: a link there
    (planted in the private folder) is never renamed into place nor read through."""
    victim = tmp_path / "victim.csv"
    victim.write_bytes(VICTIM)
    dest = tmp_path / "out.csv"
    with pytest.raises(OSError), engine.safety.atomic.exporting(dest) as temp:
        temp.symlink_to(victim)
    assert victim.read_bytes() == VICTIM and not dest.exists()
