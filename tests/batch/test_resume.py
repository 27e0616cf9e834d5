"""A study killed with SIGKILL resumes to exactly the tables of an uninterrupted study."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

from sim.batch.storage.store import Store
from tests.batch.helpers import REPO, STONE_WALL, invoke, tables

ARGS = ["--runs", "150", "--seed", "5", "--chunk-size", "5", "--quiet", "--no-plots"]
ARGS += ["--sweep", "options.fire_hcv=20,30"]


def _alive(pid: int) -> bool:
    """Whether ``pid`` still runs (a zombie, or one gone while we look, does not)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


KILL_AFTER = 8
"""Chunks committed (of 5 runs each) before the study SIGKILLs itself."""


def test_resume_after_sigkill_equals_an_uninterrupted_study(tmp_path: Path) -> None:
    """SIGKILL after exactly 8 committed chunks, then --resume: nothing lost, nothing twice."""
    killed = tmp_path / "killed"
    pids = tmp_path / "workers.txt"
    cmd = [sys.executable, "-m", "tests.batch.kill_after", str(KILL_AFTER), str(pids), "batch"]
    cmd += [str(STONE_WALL), "--out", str(killed), "--jobs", "2", *ARGS]
    log = tmp_path / "stderr.txt"
    with log.open("wb") as err:  # a file, not a pipe: orphaned workers would hold a pipe open
        done = subprocess.run(cmd, check=False, cwd=REPO, stdout=subprocess.DEVNULL, stderr=err)
    returncode = done.returncode
    assert returncode == -signal.SIGKILL, log.read_text()
    workers = [int(p) for p in pids.read_text().split()]
    assert workers  # the pool was running when the study died
    for _ in range(600):  # the pool's workers notice their parent is gone
        if not any(_alive(p) for p in workers):
            break
        time.sleep(0.1)
    assert not [p for p in workers if _alive(p)], "workers outlived the killed study"

    store = Store.open(killed / "study.duckdb", read_only=True)
    before = store.count()
    store.close()
    assert before == KILL_AFTER * 5  # every committed chunk is there, and nothing more

    resumed = invoke("batch", STONE_WALL, "--out", killed, "--resume", "--jobs", "2", *ARGS)
    assert resumed.exit_code == 0, resumed.output
    assert f"(300 runs, {300 - before} fought now)" in resumed.output

    whole = tmp_path / "whole"
    assert invoke("batch", STONE_WALL, "--out", whole, "--jobs", "1", *ARGS).exit_code == 0
    assert tables(killed) == tables(whole)
    assert (killed / "summary.json").read_bytes() == (whole / "summary.json").read_bytes()


def test_resume_of_a_finished_study_runs_nothing(tmp_path: Path) -> None:
    """--resume of a complete study fights no run and leaves its tables as they were."""
    args = ["batch", STONE_WALL, "--out", tmp_path, "--runs", "10", "--jobs", "1", "--no-plots"]
    assert invoke(*args).exit_code == 0
    before = tables(tmp_path)
    again = invoke(*args, "--resume")
    assert again.exit_code == 0
    assert "(10 runs, all fought before)" in again.output
    assert tables(tmp_path) == before


def test_a_resume_from_the_same_battle_under_another_file_name_is_refused(
    tmp_path: Path,
) -> None:
    """The same scenario copied to sw2.yaml: a study begun from it and resumed from
    stone_wall.yaml named one file in its first replays and the other in the rest, and
    `verify` called every later run DIFFERS."""
    copy = tmp_path / "sw2.yaml"
    copy.write_bytes(STONE_WALL.read_bytes())
    out = tmp_path / "s"
    args = ["--runs", "4", "--keep-replays", "4", "-o", str(out), "--no-plots", "--jobs", "1"]
    assert invoke("batch", str(copy), *args).exit_code == 0
    result = invoke("batch", str(STONE_WALL), *args, "--resume")
    assert result.exit_code == 2
    assert result.stderr == (
        f"battlesim: error: --resume: the study in {str(out)!r} was begun from 'sw2.yaml', not "
        "'stone_wall.yaml' (the same battle, but its replays name the file): resume it with "
        "that file\n"
    )
    assert invoke("batch", str(copy), *args, "--resume").exit_code == 0


SUMMARY_ONLY = ["--runs", "10", "--jobs", "1", "--crn", "--sweep", "options.fire_hcv=20,30"]


REMOVED_ALL = (
    "battlesim: note: removed the plots drawn from the earlier summary.json "
    "(plots/convergence.png, plots/losses.png, plots/outcomes.png, plots/paired.png and 1 "
    "more): plots are off (--no-plots), so none is drawn from the new one; resume with "
    "plots on to draw them"
)
"""What a --no-plots resume of a finished one-factor study says of the plots it removed."""


def test_a_resume_without_plots_removes_the_plots_of_the_earlier_summary(tmp_path: Path) -> None:
    """A finished study re-summarised by --resume with another --baseline and --interval
    and --no-plots: the plots drawn from the old summary (paired.png from point 1, the
    win_vs axis in Clopper–Pearson) are removed, said in one line, and left out of the
    manifest; the folder is then the uninterrupted --no-plots study's, file for file."""
    resumed, whole = tmp_path / "resumed", tmp_path / "whole"
    first = invoke("batch", STONE_WALL, "--out", resumed, *SUMMARY_ONLY, "--baseline", "1",
                   "--interval", "clopper-pearson", "--quiet")  # fmt: skip
    assert first.exit_code == 0, first.output
    assert sorted(p.name for p in (resumed / "plots").iterdir()) == [
        "convergence.png", "losses.png", "outcomes.png", "paired.png",
        "win_vs_options.fire_hcv.png",
    ]  # fmt: skip
    again = invoke("batch", STONE_WALL, "--out", resumed, *SUMMARY_ONLY, "--no-plots",
                   "--quiet", "--resume")  # fmt: skip
    assert again.exit_code == 0, again.output
    assert again.stderr.splitlines() == [REMOVED_ALL]
    assert not (resumed / "plots").exists()
    manifest = json.loads((resumed / "manifest.json").read_text(encoding="utf-8"))
    assert sorted(manifest["files"]) == ["progress.json", "summary.json"]
    checked = invoke("verify", resumed, "--sample", "0", "--json")
    assert checked.exit_code == 0, checked.output
    assert json.loads(checked.stdout)["files"] == 2
    plain = invoke("batch", STONE_WALL, "--out", whole, *SUMMARY_ONLY, "--no-plots", "--quiet")
    assert plain.exit_code == 0, plain.output
    assert sorted(p.name for p in resumed.iterdir()) == sorted(p.name for p in whole.iterdir())
    for name in ("summary.json", "progress.json", "manifest.json"):
        assert (resumed / name).read_bytes() == (whole / name).read_bytes(), name


def test_a_resume_without_plots_keeps_discover_and_the_users_files(
    tmp_path: Path,
) -> None:
    """discover.png (drawn from the runs, not the summary) and a file of the user's stay
    through a --no-plots resume, discover.png with its digest in the manifest."""
    out = tmp_path / "st"
    assert invoke("batch", STONE_WALL, "--out", out, *SUMMARY_ONLY, "--quiet").exit_code == 0
    found = invoke("discover", out, "--measure", "usa_men_lost > 500")
    assert found.exit_code == 0, found.output
    listed = json.loads((out / "manifest.json").read_text(encoding="utf-8"))["files"]
    assert "plots/discover.png" in listed
    (out / "plots" / "mine.txt").write_text("the user's\n", encoding="utf-8")
    again = invoke("batch", STONE_WALL, "--out", out, *SUMMARY_ONLY, "--no-plots", "--quiet",
                   "--resume", "--baseline", "1")  # fmt: skip
    assert again.exit_code == 0, again.output
    assert again.stderr.splitlines() == [REMOVED_ALL]
    assert sorted(p.name for p in (out / "plots").iterdir()) == ["discover.png", "mine.txt"]
    files = json.loads((out / "manifest.json").read_text(encoding="utf-8"))["files"]
    assert files["plots/discover.png"] == listed["plots/discover.png"]
    assert not any(name.startswith("plots/win_vs") for name in files)
    assert "plots/mine.txt" not in files  # the user's: never vouched for


def test_a_resume_that_draws_plots_removes_one_of_the_study_it_no_longer_draws(
    tmp_path: Path,
) -> None:
    """A plot of the study's that the new summary does not draw (here one an earlier
    battlesim drew: a grid has no sensitivity.png) is removed, said in one line, and left
    out of the manifest; the plots drawn again, discover.png and a file of the user's stay."""
    out = tmp_path / "st"
    assert invoke("batch", STONE_WALL, "--out", out, *SUMMARY_ONLY, "--quiet").exit_code == 0
    found = invoke("discover", out, "--measure", "usa_men_lost > 500")
    assert found.exit_code == 0, found.output
    (out / "plots" / "mine.txt").write_text("the user's\n", encoding="utf-8")
    (out / "plots" / "sensitivity.png").write_bytes(b"drawn from another summary")
    drawn = invoke("batch", STONE_WALL, "--out", out, *SUMMARY_ONLY, "--quiet", "--resume")
    assert drawn.exit_code == 0, drawn.output
    assert drawn.stderr.splitlines() == [
        "battlesim: note: removed the plots drawn from the earlier summary.json "
        "(plots/sensitivity.png): the new one draws none of them"
    ]
    assert sorted(p.name for p in (out / "plots").iterdir()) == [
        "convergence.png", "discover.png", "losses.png", "mine.txt", "outcomes.png",
        "paired.png", "win_vs_options.fire_hcv.png",
    ]  # fmt: skip
    files = json.loads((out / "manifest.json").read_text(encoding="utf-8"))["files"]
    assert "plots/sensitivity.png" not in files and "plots/paired.png" in files
    # a file of the user's in plots/ is no plot of the study's: a resume that rewrites the
    # manifest does not list it (it did: verify then said it matched), verify notes it
    assert "plots/mine.txt" not in files
    checked = invoke("verify", out, "--sample", "0")
    assert checked.exit_code == 0, checked.output
    assert "plots/mine.txt" in checked.output
