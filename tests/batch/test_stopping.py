"""--until-ci: the pilot sizes each point; only the confirmatory runs are summarised."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest

from sim.batch.methods.stats import wilson
from sim.batch.planning.stopping import confirm_runs
from tests.batch.helpers import REPO, STONE_WALL, invoke, tables

W = 0.15
ARGS = ["--runs", "45", "--seed", "7", "--chunk-size", "5", "--until-ci", str(W), "--jobs", "1"]
ARGS += ["--sweep", "map.terrain.0.cover=-50,0", "--no-plots"]
PILOT = 10  # ⌈min(1.96²/(32 · 0.15²), 45/4)⌉ = 6, in whole chunks of 5


def test_each_point_says_why_it_stopped_and_unmet_targets_are_flagged(tmp_path: Path) -> None:
    """Pilot counts decide the stop; figures are over the confirmatory runs; all outputs agree."""
    result = invoke("batch", STONE_WALL, "--out", tmp_path, *ARGS, "--json")
    assert result.exit_code == 0, result.output
    summary = json.loads(result.output)
    runs = tables(tmp_path)["runs"]
    reasons = []
    for pt in summary["points"]:
        pilot = [r[6] for r in runs if r[1] == pt["point"] and r[2] < PILOT]
        confirm = [r[6] for r in runs if r[1] == pt["point"] and r[2] >= PILOT]
        wins = [pilot.count(s) for s in ("usa", "csa")]
        planned, capped = confirm_runs(wins, len(pilot), W, 45, 5)
        assert len(pilot) == PILOT
        assert len(confirm) == planned
        assert pt["pilot"] == {"runs": PILOT, "done": PILOT, "draws": pilot.count(None),
                               "wins": {"usa": wins[0], "csa": wins[1]}}  # fmt: skip
        assert pt["done"] == planned
        assert pt["win"]["usa"]["count"] == confirm.count("usa")  # the pilot is not summarised
        width = max(wilson(confirm.count(s), len(confirm)).half_width for s in ("usa", "csa"))
        assert pt["half_width"] == width
        assert pt["stopped"] == ("runs" if capped else "ci")
        assert pt["target_met"] is (width <= W)
        reasons.append(pt["stopped"])
    assert reasons == ["ci", "runs"]  # the wall holds (Union never wins); no wall: Union wins some
    assert summary["unmet_targets"] == [
        p["point"] for p in summary["points"] if not p["target_met"]
    ]
    progress = json.loads((tmp_path / "progress.json").read_text())
    assert progress == {
        "committed": len(runs),
        "planned": len(runs),
        "finished": True,
        "stopped": {"0": "ci", "1": "runs"},
    }


@pytest.fixture(scope="module")
def whole(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """The ARGS study fought once, never stopped: its folder and the text it printed."""
    folder = tmp_path_factory.mktemp("whole")
    result = invoke("batch", STONE_WALL, "--out", folder, *ARGS)
    assert result.exit_code == 0, result.output
    return folder, result.output


def test_the_pilot_runs_are_marked_in_runs_wide(whole: tuple[Path, str]) -> None:
    """runs_wide.pilot is true exactly for replications 0 … pilot − 1 of each point."""
    con = duckdb.connect(str(whole[0] / "study.duckdb"), read_only=True)
    rows = con.execute("SELECT replication, pilot FROM runs_wide ORDER BY run_id").fetchall()
    assert rows and all(pilot is (rep < PILOT) for rep, pilot in rows)


def test_text_summary_says_how_each_point_stopped(whole: tuple[Path, str]) -> None:
    """The readable summary names the pilot and says when the cap cut the confirmatory sample."""
    output = whole[1]
    assert f"runs (after a pilot of {PILOT}, not summarised)" in output
    assert f"  stopped: ci — the pilot's {PILOT} runs sized the sample at " in output
    assert f"  stopped: runs — the pilot's {PILOT} runs asked for more than the cap left" in (
        output
    )


def test_a_run_too_short_for_a_pilot_and_a_confirmation_is_refused(tmp_path: Path) -> None:
    """--runs that the pilot would use up leaves no confirmatory sample: exit 2, with the fix."""
    args = ["--runs", "5", "--chunk-size", "5", "--until-ci", "0.05", "--no-plots"]
    result = invoke("batch", STONE_WALL, "--out", tmp_path, *args)
    assert result.exit_code == 2
    assert "its pilot takes 5 runs of a point, leaving none of --runs 5" in result.output
    # the fewest --runs that leave one: 6 (a pilot of ⌈min(48, 6/4)⌉ = 2 runs, one chunk of 5)
    assert "raise --runs (at least 6)" in result.output


def test_a_study_killed_after_its_pilot_resumes_to_the_same_stop(
    tmp_path: Path, whole: tuple[Path, str]
) -> None:
    """SIGKILL after 5 committed chunks (the pilots and one confirmatory chunk), then --resume:
    the stopping rule replayed over what was committed gives the uninterrupted study's tables."""
    killed = tmp_path / "killed"
    cmd = [sys.executable, "-m", "tests.batch.kill_after", "5", str(tmp_path / "pids.txt")]
    cmd += ["batch", str(STONE_WALL), "--out", str(killed), *ARGS]
    done = subprocess.run(cmd, check=False, cwd=REPO, capture_output=True)
    assert done.returncode == -signal.SIGKILL, done.stderr
    assert len(tables(killed)["runs"]) == 25
    resumed = invoke("batch", STONE_WALL, "--out", killed, "--resume", *ARGS)
    assert resumed.exit_code == 0, resumed.output
    assert tables(killed) == tables(whole[0])
    assert (killed / "summary.json").read_bytes() == (whole[0] / "summary.json").read_bytes()


def test_the_tables_command_takes_no_arguments_and_says_what_it_needs(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """``python -m sim.batch.planning.stopping``: --help says what it prints (exit 0), an
    argument is refused in one line (2), and without numpy it names the extra (2), never a
    traceback."""
    from sim.batch.planning.stopping import main

    assert main(["--help"]) == 0
    assert capsys.readouterr().out.startswith("usage: python -m sim.batch.planning.stopping\n")
    assert main(["-x"]) == 2
    assert capsys.readouterr().err == (
        "python -m sim.batch.planning.stopping: takes no arguments (got '-x'); --help says "
        "what it prints\n"
    )
    monkeypatch.setitem(sys.modules, "numpy", None)  # import numpy raises ImportError
    assert main([]) == 2
    assert capsys.readouterr().err == (
        "python -m sim.batch.planning.stopping: needs numpy, in the study extra: "
        "pip install 'battlesim[study]'\n"
    )


@pytest.mark.parametrize(
    ("command", "said"),
    [
        (["study", "STUDY"],
         "Target until_ci 0.05 (the study file's) not met at point 0: raise the study file's "
         "replications"),
        (["study", "STUDY", "--runs", "16"],
         "Target until_ci 0.05 (the study file's) not met at point 0: raise --runs"),
        (["study", "STUDY", "--until-ci", "0.04"],
         "Target --until-ci 0.04 not met at point 0: raise the study file's replications"),
        (["batch", str(STONE_WALL), "--runs", "12", "--chunk-size", "2", "--seed", "7",
          "--until-ci", "0.05", "--no-plots"],
         "Target --until-ci 0.05 not met at point 0: raise --runs"),
    ],
)  # fmt: skip
def test_an_unmet_target_names_what_the_user_gave(
    tmp_path: Path, command: list[str], said: str
) -> None:
    """A study file's ``until_ci`` not met was said as "Target --until-ci 0.05 not met …:
    raise --runs", flags the user had not given: the target and the runs are named as given,
    the study file's fields or the flags that overrode them."""
    study = tmp_path / "study.yaml"
    study.write_text(
        f"scenario: {STONE_WALL}\nseed: 7\nreplications: 12\nchunk_size: 2\nuntil_ci: 0.05\n"
        "outputs: {plots: false}\n"
    )
    args = [str(study) if a == "STUDY" else a for a in command]
    result = invoke(*args, "--out", tmp_path / "out", "--jobs", "1")
    assert result.exit_code == 0, result.output
    assert said in result.output.splitlines(), result.output


def test_the_stop_line_names_the_wilson_half_width_beside_another_interval() -> None:
    """tavern_brawl --runs 100 --until-ci 0.12 --interval clopper-pearson: 72.5 % of 80 runs
    printed [61.4 %, 81.9 %] (Clopper–Pearson, half-width 10.3 %) and its stop line said
    "half-width 9.6 % ≤ 12 %" — the Wilson half-width --until-ci targets, unnamed."""
    from sim.batch.analysis.summary import _stop_lines

    pt = {"stopped": "ci", "runs": 80, "done": 80, "pilot": {"runs": 20}, "target_met": True,
          "half_width": 0.09613}  # fmt: skip
    assert _stop_lines(pt, 0.12) == [
        "  stopped: ci — the pilot's 20 runs sized the sample at 80 runs; "
        "Wilson half-width 9.6 % ≤ 12 %"
    ]


def test_convergence_png_counts_the_summarised_runs_alone(
    tmp_path: Path, whole: tuple[Path, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """convergence.png accumulated each point's win rate and half-width from replication 0,
    pilot and confirmation pooled: README's 40-run study drew every point's × at half-width
    0.044, under the 0.05 target, where the summary said 0.081, TARGET NOT MET. After the
    pilot the curves start again, over the summarised runs alone: each × is the summary's
    half-width, each curve ends at the summary's win rate."""
    from matplotlib.figure import Figure

    from sim.batch.charts import convergence
    from sim.batch.storage.store import Store

    drawn: list[Figure] = []
    monkeypatch.setattr(convergence, "save", lambda fig, path: drawn.append(fig) or path)
    summary = json.loads((whole[0] / "summary.json").read_text(encoding="utf-8"))
    store = Store.open(whole[0] / "study.duckdb", read_only=True)
    try:
        convergence.convergence_plot(store, summary, store.meta()["plan"], tmp_path / "c.png")
    finally:
        store.close()
    [fig] = drawn
    *sides, widths = fig.axes
    pts = summary["points"]
    crosses = [ln for ln in widths.get_lines() if ln.get_marker() == "x"]
    assert [(ln.get_xdata()[0], ln.get_ydata()[0]) for ln in crosses] == [
        (PILOT + p["done"], p["half_width"]) for p in pts
    ]
    assert [p["half_width"] for p in pts] == [
        max(wilson(p["win"][s]["count"], p["done"]).half_width for s in ("usa", "csa")) for p in pts
    ]  # the confirmatory runs' alone, as the summary says
    for ax, side in zip(sides, ("usa", "csa"), strict=True):
        curves = ax.get_lines()
        assert len(curves) == 2 * len(pts)  # each point: its pilot, then its confirmation
        for i, p in enumerate(pts):
            pilot, confirmation = curves[2 * i], curves[2 * i + 1]
            assert (pilot.get_xdata()[0], pilot.get_xdata()[-1]) == (1, PILOT)
            assert pilot.get_ydata()[-1] == p["pilot"]["wins"][side] / PILOT
            assert (confirmation.get_xdata()[0], confirmation.get_xdata()[-1]) == (
                PILOT + 1,
                PILOT + p["done"],
            )
            assert confirmation.get_ydata()[-1] == p["win"][side]["p"]
    assert widths.get_xlabel() == (
        "replications of the point (× where it stopped; after the pilot, its summarised "
        "runs counted afresh)"
    )
