"""A study's lines word a count of one as one: "1 run", "1 planned run", "1 more point"
(they said "1 runs", "1 planned runs", "1 more points", "1 replications")."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import duckdb
import pytest

from sim import api
from sim.batch.analysis.summary import _stop_lines
from sim.batch.charts import discover as discover_chart
from sim.batch.charts.plotting import MAX_KEYS, point_keys
from sim.batch.discovery.discover import discover_lines
from sim.batch.inputs.target import load_target
from sim.batch.planning.plan import StudyPlan
from sim.batch.study import RunOptions, run_study
from tests.batch.helpers import SCENARIOS, invoke

BRAWL = SCENARIOS / "tavern_brawl.yaml"


@pytest.fixture(scope="module")
def interrupted(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A study of one run stopped before its run was committed: no row, progress 0 of 1."""
    folder = tmp_path_factory.mktemp("interrupted") / "s"
    plan = StudyPlan(target=load_target(BRAWL), seed=3, replications=1, chunk_size=1)
    run_study(plan, folder, RunOptions(jobs=1, plots=False))
    with duckdb.connect(str(folder / "study.duckdb")) as con:
        for table in ("runs", "unit_rows", "run_digests"):
            con.execute(f"DELETE FROM {table}")
    progress = {"committed": 0, "planned": 1, "finished": False}
    (folder / "progress.json").write_text(json.dumps(progress))
    return folder


def test_a_pilot_of_one_run_that_leaves_none_says_1_run(tmp_path: Path) -> None:
    """--runs 1 --until-ci 0.49 --chunk-size 1: "its pilot takes 1 run of a point"."""
    out = tmp_path / "o"
    result = invoke(
        "batch", BRAWL, "--runs", "1", "--until-ci", "0.49", "--chunk-size", "1", "--out", out
    )
    assert result.exit_code == 2
    assert result.output == (
        "battlesim: error: --until-ci 0.49: its pilot takes 1 run of a point, leaving none of "
        "--runs 1 for the confirmatory sample: raise --runs (at least 2) or lower --chunk-size\n"
    )
    assert not out.exists()


def test_a_pilot_of_one_run_sizing_one_run_says_so(tmp_path: Path) -> None:
    """--runs 2 --until-ci 0.45 --chunk-size 1: the pilot's one run sizes a sample of one
    (its half-width then 39.7 %), and the point's stop line says "1 run" both times."""
    out = tmp_path / "o"
    result = invoke(
        "batch", BRAWL, "--runs", "2", "--until-ci", "0.45", "--chunk-size", "1", "--out", out,
        "--no-plots", "--seed", "3",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    (line,) = [x for x in result.stdout.splitlines() if x.startswith("  stopped:")]
    assert line.startswith("  stopped: ci — the pilot's 1 run sized the sample at 1 run; ")


@pytest.mark.parametrize(
    ("pt", "line"),
    [
        ({"stopped": "ci", "done": 1},
         "  stopped: ci — Wilson half-width 40.0 % ≤ 45 % after 1 run"),
        ({"stopped": "runs", "runs": 1},
         "  stopped: runs — cap of 1 run reached, Wilson half-width 40.0 % > 45 %: TARGET NOT MET"),
        ({"stopped": "runs", "runs": 1, "pilot": {"runs": 1}, "target_met": True},
         "  stopped: runs — the pilot's 1 run asked for more than the cap left; 1 run gives "
         "Wilson half-width 40.0 % ≤ 45 %: target met"),
        ({"stopped": "runs", "runs": 2, "pilot": {"runs": 1}, "target_met": False},
         "  stopped: runs — the pilot's 1 run asked for more than the cap left; 2 runs give "
         "Wilson half-width 40.0 % > 45 %: TARGET NOT MET"),
    ],
)  # fmt: skip
def test_each_stop_line_words_one_run_as_one(pt: dict[str, Any], line: str) -> None:
    """Each way a point of --until-ci stops, with counts of one: the old sequential rule's
    two (read from older studies) and the pilot's cap."""
    assert _stop_lines({"half_width": 0.4, **pt}, 0.45) == [line]


def test_discover_words_a_study_of_one_run_and_a_box_of_one() -> None:
    """A measure over one run that holds in it, its box that one run: "of the one run",
    "1 of 1 run in the box", "(of the 1 run where it holds)"."""
    box = {
        "box": 1, "text": "options.x ≥ 1", "holds": 1, "runs": 1, "coverage": 1.0,
        "density": 1.0, "mass": 1.0, "significance": [],
    }  # fmt: skip
    result = {"words": "Thorgrim wins", "base_rate": 1.0, "runs": 1, "holds": 1, "boxes": [box]}
    assert discover_lines(result)[:3] == [
        "Thorgrim wins in 100.0 % of the one run (1 run).",
        "Box 1: options.x ≥ 1",
        "  1 of 1 run in the box; coverage 100.0 % (of the 1 run where it holds), density "
        "100.0 %, mass 100.0 %",
    ]
    pilot = {**result, "runs": 1, "pilot_runs": 1, "boxes": []}
    assert discover_lines(pilot)[0] == (
        "Thorgrim wins in 100.0 % of the one confirmatory run (1 run; the 1 pilot run that "
        "sized them are left out)."
    )
    more = {**result, "runs": 2, "base_rate": 0.5}
    assert discover_lines(more)[0] == "Thorgrim wins in 50.0 % of all 2 runs (1 run)."


def test_discover_plot_labels_a_box_of_one_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The box's legend entry on the plot: "box 1: 1 of 1 run"."""
    drawn: list[Any] = []
    monkeypatch.setattr(discover_chart, "save", lambda fig, path: drawn.append(fig) or path)
    box = {
        "box": 1, "holds": 1, "runs": 1, "coverage": 1.0, "density": 1.0,
        "trajectory": [{"coverage": 1.0, "density": 1.0}],
    }  # fmt: skip
    result = {
        "boxes": [box],
        "base_rate": 1.0,
        "min_coverage": 0.5,
        "alpha": 0.05,
        "words": "Thorgrim wins",
    }
    discover_chart.discover_plot(result, tmp_path / "d.png")
    (fig,) = drawn
    _handles, labels = fig.axes[0].get_legend_handles_labels()
    assert "box 1: 1 of 1 run" in labels


def test_a_plot_key_one_point_past_the_listed_says_1_more_point() -> None:
    """One long-labelled point more than a plot's key lists: "… and 1 more point"."""
    points = [
        {"point": i, "label": f"options.fire_scale={i}, options.fire_hcv={i}",
         "factors": {"options.fire_scale": i, "options.fire_hcv": i}}
        for i in range(MAX_KEYS + 1)
    ]  # fmt: skip
    _keys, lines = point_keys(points)
    assert lines[-1] == "… and 1 more point (labels in summary.json)"


def test_rerun_of_the_one_planned_run_never_fought_says_1_planned_run(interrupted: Path) -> None:
    """rerun of the run an interrupted one-run study never committed."""
    result = invoke("rerun", interrupted, "0")
    assert result.exit_code == 2
    assert result.output == (
        "battlesim: error: run 0 (point 0, replication 0) is not in the study: it holds 0 of "
        "its 1 planned run (a point stopped by --until-ci, or a study interrupted: --resume "
        "fights the rest)\n"
    )


def test_export_of_an_interrupted_one_run_study_says_0_of_1_run(
    interrupted: Path, tmp_path: Path
) -> None:
    """export's note, and load_study's warning, count the one run planned as one."""
    copy = Path(shutil.copytree(interrupted, tmp_path / "s"))
    result = invoke("export", copy, "--format", "csv")
    assert result.exit_code == 0, result.output
    assert result.stderr.splitlines()[0] == (
        f"battlesim: note: {str(copy)!r} is incomplete (0 of 1 run committed): export reads "
        "those; complete it with --resume, then export again"
    )
    with pytest.warns(api.IncompleteStudyWarning) as caught:
        api.load_study(copy)
    assert str(caught[0].message).startswith(f"{str(copy)!r} is incomplete (0 of 1 run committed)")
