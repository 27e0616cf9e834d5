"""Text is drawn as text in every plot: ``$...$`` in a name is not matplotlib mathtext.

A side named ``$\\notacommand{x}$`` made matplotlib's mathtext parser fail,
so the study could be neither plotted nor resumed.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from matplotlib.figure import Figure

from sim.batch.charts.plotting import save
from sim.batch.inputs.target import load_target
from sim.batch.planning.design import Factor
from sim.batch.planning.plan import StudyPlan
from sim.batch.study import RunOptions, run_study
from tests.batch.helpers import STONE_WALL, invoke

MATH = r"$\notacommand{x}$"


@pytest.mark.parametrize("text", [MATH, "$x^{$", r"a $\frac{1}{$ b", "$$", "$5 and $6"])
def test_a_figure_with_dollars_saves_as_a_png(tmp_path: Path, text: str) -> None:
    """Title, axis label, legend and tick labels holding broken mathtext still save."""
    fig = Figure(figsize=(3, 2))
    ax = fig.add_subplot()
    ax.plot([0, 1], [0, 1], label=text)
    ax.set_title(text)
    ax.set_xlabel(text)
    ax.set_xticks([0, 1], [text, "b"])
    ax.legend()
    path = save(fig, tmp_path / "f.png")
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert [t.get_text() for t in fig.findobj() if getattr(t, "get_parse_math", None)
            and t.get_parse_math()] == []  # fmt: skip


def test_a_study_with_a_mathtext_side_name_plots_and_resumes(tmp_path: Path) -> None:
    """The study is plotted with the side's name as written, and --resume reopens it."""
    text = STONE_WALL.read_text(encoding="utf-8")
    text = re.sub(r"(?m)^  - id: csa\n    name: .*$", f"  - id: csa\n    name: '{MATH}'", text)
    scenario = tmp_path / "math.yaml"
    scenario.write_text(text, encoding="utf-8")
    plan = StudyPlan(
        load_target(scenario),
        seed=4,
        replications=2,
        factors=(Factor(path="turns.limit", values=[3, 4]),),
    )
    out = tmp_path / "study"
    run_study(plan, out, RunOptions(jobs=1, plots=True))
    pngs = sorted(p.name for p in (out / "plots").glob("*.png"))
    assert pngs, "no plot written"
    result = invoke("batch", scenario, "--runs", "2", "--sweep", "turns.limit=3,4", "--seed", "4",
                    "--out", out, "--resume")  # fmt: skip
    assert result.exit_code == 0, result.output
    assert sorted(p.name for p in (out / "plots").glob("*.png")) == pngs
