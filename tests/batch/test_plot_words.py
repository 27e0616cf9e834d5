"""Plots a person reads: loss words, short factor names, keys that fit inside the figure."""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.image import imread

from sim.batch.analysis.labels import loss_label, measure_label
from sim.batch.analysis.summary import format_summary, said
from sim.batch.charts import results
from sim.batch.charts.plotting import DPI, key_legend, point_keys, save, short_paths, wrap


def test_losses_in_each_rulesets_own_words() -> None:
    """'ships sunk', 'dead', 'knocked out' as they are; a count of things gets 'lost'."""
    assert [loss_label(k) for k in ("ships_sunk", "dead", "knocked_out", "fled")] == [
        "ships sunk", "dead", "knocked out", "fled",
    ]  # fmt: skip
    assert [loss_label(k) for k in ("men", "guns", "air_factors", "hp")] == [
        "men lost", "guns lost", "air factors lost", "hp lost",
    ]  # fmt: skip
    assert measure_label("Allied", "losses.ships_sunk") == "Allied ships sunk"
    assert measure_label("Thorgrim", "losses.dead") == "Thorgrim dead"
    assert measure_label("Union", "win_rate") == "Union win rate"


def test_short_factor_names_are_last_segments_made_unique() -> None:
    """The last path segment, or more of the path where two factors would share it."""
    paths = ["sides.csa.units.cobb.strength", "sides.usa.units.69ny.strength", "options.fire_hcv"]
    assert short_paths(paths) == {
        "sides.csa.units.cobb.strength": "cobb.strength",
        "sides.usa.units.69ny.strength": "69ny.strength",
        "options.fire_hcv": "fire_hcv",
    }


def _points(n: int) -> list[dict[str, object]]:
    return [
        {
            "point": i,
            "label": f"map.terrain.0.cover={-20 - i}, options.fire_hcv={15 + i}",
            "factors": {"map.terrain.0.cover": -20 - i, "options.fire_hcv": 15 + i},
        }
        for i in range(n)
    ]


def test_long_labels_become_keys_spelled_out_in_full() -> None:
    """P0, P1, … with every value under a short name, and a line naming each path."""
    keys, lines = point_keys(_points(3))
    assert keys == {0: "P0", 1: "P1", 2: "P2"}
    assert lines == [
        "where cover = map.terrain.0.cover; fire_hcv = options.fire_hcv",
        "P0 = cover=-20, fire_hcv=15",
        "P1 = cover=-21, fire_hcv=16",
        "P2 = cover=-22, fire_hcv=17",
    ]


def test_a_key_writes_values_as_the_label_does_in_the_factors_order(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """tavern_brawl swept by hp, then options.monster_morale: the key said
    "P1 = monster_morale=False, hp=12" (Python's word, the stored point's sorted keys) where
    the summary says "sides.thorgrim.characters.thorgrim.hp=12, options.monster_morale=false"."""
    paths = ["sides.thorgrim.characters.thorgrim.hp", "options.monster_morale"]
    points = [
        {
            "point": i,
            "label": f"{paths[0]}={hp}, {paths[1]}={str(morale).lower()}",
            "factors": {paths[1]: morale, paths[0]: hp},  # as summary.json stores them
        }
        for i, (hp, morale) in enumerate([(12, True), (12, False)])
    ]
    drawn: list[Figure] = []
    monkeypatch.setattr(results, "_save", lambda fig, path: drawn.append(fig) or path)
    win = {"thorgrim": {"name": "Thorgrim", "count": 1}}
    summary = {
        "study": {"name": "Brawl", "factors": [{"path": p} for p in paths]},
        "points": [{**p, "win": win, "draw": {"count": 0}, "failed": 0, "runs": 1} for p in points],
    }
    results._outcomes(summary, tmp_path / "outcomes.png")
    [fig] = drawn
    assert fig.get_supxlabel().splitlines() == [
        "where hp = sides.thorgrim.characters.thorgrim.hp; monster_morale =",
        "options.monster_morale",
        "P0 = hp=12, monster_morale=true",
        "P1 = hp=12, monster_morale=false",
    ]


def test_a_wrapped_title_and_a_40_point_key_stay_inside_the_figure() -> None:
    """Rendered: every text's extent lies within the figure (nothing cut at an edge)."""
    fig = Figure(figsize=(6.0, 3.0), layout="constrained")
    ax = fig.add_subplot()
    ax.plot([0, 1], [0, 1])
    long = "Win probability against sides.csa.units.cobb.strength (pooled over the other factors)"
    ax.set_title(wrap(long, 50))
    _, lines = point_keys(_points(40))
    key_legend(fig, lines)
    canvas = FigureCanvasAgg(fig)
    canvas.draw()
    renderer = canvas.get_renderer()
    box = fig.bbox
    texts = [ax.title, fig._supxlabel]  # the key is the figure's supxlabel
    for t in texts:
        assert t is not None
        e = t.get_window_extent(renderer)
        assert box.x0 - 1 <= e.x0 and e.x1 <= box.x1 + 1, t.get_text()[:40]
        assert box.y0 - 1 <= e.y0 and e.y1 <= box.y1 + 1, t.get_text()[:40]
    assert "P39 = cover=-59, fire_hcv=54" in fig._supxlabel.get_text()


@pytest.mark.parametrize("width", [5.2, 10.4])
def test_a_key_line_longer_than_the_figure_is_wrapped_inside_it(width: float) -> None:
    """A list of measures left out, longer than the figure is wide (Coral Sea's ten, under a
    two-panel paired plot), ran off its right edge: it is wrapped to the figure's width,
    whole, above the point keys, and every line of the key lies within the figure."""
    fig = Figure(figsize=(width, 3.0), layout="constrained")
    fig.add_subplot().plot([0, 1], [0, 1])
    gone = ", ".join(f"Allied air factors lost kind {i}" for i in range(10))
    key_legend(fig, [f"no variation observed, not drawn: {gone}", "P0 = cap=0", "P1 = cap=2"])
    canvas = FigureCanvasAgg(fig)
    canvas.draw()
    key = fig._supxlabel
    assert key is not None
    e = key.get_window_extent(canvas.get_renderer())
    assert fig.bbox.x0 - 1 <= e.x0 and e.x1 <= fig.bbox.x1 + 1
    text = key.get_text().split("\n")
    assert " ".join(text[:-2]) == f"no variation observed, not drawn: {gone}"
    assert text[-2:] == ["P0 = cap=0", "P1 = cap=2"]


def _laid_out_figure() -> Figure:
    """Two panels under constrained layout with long labels, a title and a key below."""
    fig = Figure(figsize=(7.0, 3.4), layout="constrained")
    for i, ax in enumerate(fig.subplots(1, 2)):
        ax.plot([0, 1, 2, 3], [3 * i, 1, 4, 1], marker="o", label=f"side {i}")
        ax.set_xlabel("options.fire_hcv (percentage points of the hit chance)")
        ax.set_ylabel("Union win rate, 95 % Wilson interval")
        ax.set_title(f"Panel {i}: the wall's cover from −20 to 0")
        ax.legend()
    fig.suptitle("A figure constrained layout has to make room in")
    key_legend(fig, [f"P{i} = cobb.strength={400 + i}" for i in range(12)])
    return fig


def test_save_draws_once_and_writes_what_savefig_does(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``save`` lays a constrained figure out once and draws it once; the PNG's pixels are
    those of matplotlib's own ``savefig`` (which draws it twice: to lay out, then to render)."""
    plain = _laid_out_figure()
    FigureCanvasAgg(plain)
    plain.savefig(tmp_path / "plain.png", dpi=DPI, format="png")
    draws: list[Figure] = []
    real_draw = Figure.draw

    def counted(self: Figure, renderer: object) -> None:
        draws.append(self)
        real_draw(self, renderer)

    monkeypatch.setattr(Figure, "draw", counted)
    saved = save(_laid_out_figure(), tmp_path / "saved.png")
    assert len(draws) == 1
    assert draws[0].get_layout_engine() is None
    a, b = imread(tmp_path / "plain.png"), imread(saved)
    assert a.shape == b.shape and np.array_equal(a, b)


def test_save_lays_out_as_figure_draw_does(tmp_path: Path) -> None:
    """A constrained figure without axes is not laid out (no warning), as ``Figure.draw``
    would not; a compressed layout that cannot be done is skipped, as ``draw`` skips it."""
    import warnings

    bare = Figure(figsize=(3, 2), layout="constrained")
    bare.suptitle("nothing but a title")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        save(bare, tmp_path / "bare.png")
    odd = Figure(figsize=(4, 3), layout="compressed")
    odd.add_gridspec(1, 2).subplots()
    odd.add_gridspec(2, 1).subplots()
    save(odd, tmp_path / "odd.png")
    assert imread(tmp_path / "bare.png").shape[:2] == (2 * DPI, 3 * DPI)


def test_a_win_plots_ticks_write_a_value_as_the_study_and_its_labels_do(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A flattop task force's ``clouds`` swept over true and false: the summary labels the
    points ``…clouds=true`` and discover says ``= true``; the win plot's ticks said Python's
    ``True`` and ``False``."""
    from sim.batch.charts import results
    from tests.batch.helpers import REPO, invoke

    drawn: dict[str, Figure] = {}
    monkeypatch.setattr(
        results, "_save", lambda fig, path: (drawn.setdefault(path.name, fig), path)[1]
    )
    path = "sides.japan.task_forces.mo_striking.clouds"
    made = invoke(
        "batch", REPO / "scenarios" / "coral_sea_tf17.yaml", "--runs", "1", "--jobs", "1",
        "--sweep", f"{path}=true,false", "--out", tmp_path / "cs", "-q",
    )  # fmt: skip
    assert made.exit_code == 0, made.output
    assert f"Point 0 ({path}=true): 1 run" in made.output
    ax = drawn[f"win_vs_{path}.png"].axes[0]
    assert [t.get_text() for t in ax.get_xticklabels()] == ["true", "false"]


def test_a_measure_with_no_variation_within_a_point_says_so_in_its_title(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A measure constant within each point but not across them (Coral Sea's Japanese draws:
    the differences 2, 3, 4 exact) is drawn as diamonds: its panel title named its method as
    "()"; it says there is no variation within a point, and the key says what a diamond is."""
    from sim.batch.charts import analysis

    points = [{**p, "win": {"japan": {"name": "Japanese"}}} for p in _points(3)]
    rows = [
        {"point": i, "side": "japan", "measure": "draws", "method": "no-variation",
         "difference": float(i + 1), "ci_low": None, "ci_high": None, "paired": False}
        for i in (1, 2)
    ]  # fmt: skip
    summary = {"points": points, "comparisons": rows, "baseline": 0, "variance_reduction": []}
    drawn: list[Figure] = []
    monkeypatch.setattr(analysis, "save", lambda fig, path: drawn.append(fig) or path)
    assert analysis.paired_plot(summary, tmp_path / "paired.png") is not None
    [fig] = drawn
    assert fig.axes[0].get_title() == "Japanese random draws (no variation\nwithin a point)"
    key = fig._supxlabel
    assert key is not None
    assert "◆ no variation observed at that point: the difference, exact (no interval)" in (
        key.get_text()
    )


def test_a_forest_panels_tick_labels_never_run_together(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A paired plot's panel of small differences ("Union guns lost", −0.1 to 0.1) drew
    eleven labels such as "−0.100" 3 pixels apart, run together; rendered, every two tick
    labels are a character's width apart at least (6 pixels at 10 points, 100 dpi)."""
    from sim.batch.charts import analysis

    points = [{**p, "win": {"usa": {"name": "Union"}}} for p in _points(3)]
    rows = [
        {"point": i, "side": "usa", "measure": measure, "method": "welch",
         "difference": 0.0, "ci_low": -0.1, "ci_high": 0.1, "paired": False}
        for measure in ("losses.guns", "losses.men", "turns", "draws")
        for i in (1, 2)
    ]  # fmt: skip
    summary = {"points": points, "comparisons": rows, "baseline": 0, "variance_reduction": []}
    drawn: list[Figure] = []
    monkeypatch.setattr(analysis, "save", lambda fig, path: drawn.append(fig) or path)
    analysis.paired_plot(summary, tmp_path / "paired.png")
    [fig] = drawn
    canvas = FigureCanvasAgg(fig)
    canvas.draw()
    renderer = canvas.get_renderer()
    assert len(fig.axes) == 4  # two panels a row, each about 5 inches wide
    for ax in fig.axes:
        labels = [t for t in ax.get_xticklabels() if t.get_text()]
        boxes = [t.get_window_extent(renderer) for t in labels]
        assert len(boxes) >= 3
        for left, right in itertools.pairwise(boxes):
            assert right.x0 - left.x1 >= 6, [t.get_text() for t in labels]


def _loss_lines(ruleset: str, kinds: tuple[str, ...]) -> list[str]:
    """The loss labels a study of ``ruleset`` prints, one side ("Side") losing ``kinds``."""
    rate = {"p": 0.5, "low": 0.1, "high": 0.9}
    stats = {"mean": 1.0, "sd": 0.0, "median": 1.0, "p5": 1.0, "p95": 1.0}
    point = {
        "point": 0, "label": "base", "done": 4, "failed": 0, "errors": {},
        "win": {"s": {"name": "Side", **rate}}, "draw": rate,
        "losses": {"s": dict.fromkeys(kinds, stats)}, "turns": stats,
    }  # fmt: skip
    study = {"ruleset": ruleset, "until_ci": None, "interval": "wilson", "factors": []}
    lines = format_summary({"study": study, "points": [point]})
    said = [line.removesuffix("1.0 in every run (no variation observed)") for line in lines]
    return [line.strip().removeprefix("Side ") for line in said[4 : 4 + len(kinds)]]


def test_each_rulesets_loss_kinds_in_its_own_words() -> None:
    """A study's summary says flattop's loss kinds by cause as a person says them
    (``Ruleset.loss_words``); musket's and becmi's, which give no words, as they always were."""
    assert _loss_lines(
        "flattop",
        ("ships_sunk", "ships_crippled", "air_factors", "air_factors_air_combat",
         "air_factors_anti_aircraft", "air_factors_aboard", "air_factors_ditched"),
    ) == [
        "ships sunk", "ships crippled", "air factors lost", "air factors lost in air combat",
        "air factors lost to anti-aircraft fire", "air factors lost aboard", "air factors ditched",
    ]  # fmt: skip
    assert _loss_lines("musket", ("men", "guns")) == ["men lost", "guns lost"]
    assert _loss_lines("becmi", ("dead", "knocked_out", "fled", "hp")) == [
        "dead", "knocked out", "fled", "hp lost",
    ]  # fmt: skip
    # a ruleset not installed: its kinds by their keys
    assert _loss_lines("no_such_ruleset", ("air_factors_ditched",)) == ["air factors ditched lost"]
    # a compared measure (the comparisons' lines and forest plots)
    study = {"study": {"ruleset": "flattop"}}
    assert said(study, {"japan": "Japanese"}, "japan", "losses.air_factors_anti_aircraft") == (
        "Japanese air factors lost to anti-aircraft fire"
    )


def test_an_unpaired_comparison_names_both_ways_to_pair_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A study file's comparison without common random numbers said "unpaired (no --crn)",
    in the summary and the paired plot's title; ``battlesim study`` has no --crn (a study
    file writes ``crn: true``), so ``study … --crn`` was "No such option". Both say each."""
    from sim.batch.analysis.summary import _comparison_lines
    from sim.batch.charts import analysis

    points = [{**p, "win": {"usa": {"name": "Union"}}} for p in _points(2)]
    rows = [{"point": 1, "side": "usa", "measure": "turns", "method": "welch",
             "difference": 0.5, "ci_low": -0.1, "ci_high": 1.1, "paired": False}]  # fmt: skip
    summary = {"points": points, "comparisons": rows, "baseline": 0, "variance_reduction": [],
               "study": {}}  # fmt: skip
    words = "unpaired (no common random numbers: batch --crn, or crn: true in a study file)"
    assert _comparison_lines(summary)[0] == (
        f"Differences from point 0 ({points[0]['label']}) — {words}; 95 % intervals: "
        "win rates Newcombe's score, losses Welch's t:"
    )
    drawn: list[Figure] = []
    monkeypatch.setattr(analysis, "save", lambda fig, path: drawn.append(fig) or path)
    analysis.paired_plot(summary, tmp_path / "paired.png")
    [fig] = drawn
    assert fig.get_suptitle() == wrap(
        f"Difference from P0 (the baseline), 95 % intervals, {words}", 90
    )


def test_a_count_axis_has_whole_number_ticks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A small becmi study (two points of 8 runs): the losses panels' ``runs`` axes, laid
    out as they are written, ticked 0.5, 1.5, …; the outcomes' ``runs`` axis of a one-run
    point ticked 0.2, 0.4, …. A count axis has whole-number ticks."""
    from sim.batch.charts import results
    from tests.batch.helpers import REPO, invoke

    drawn: dict[str, Figure] = {}

    def saved(fig: Figure, path: Path) -> Path:  # laid out as written: the ticks it shows
        drawn[path.name] = fig
        return save(fig, path)

    monkeypatch.setattr(results, "_save", saved)
    study = tmp_path / "study.yaml"
    study.write_text(
        f"name: Skirmish morale\nscenario: {REPO / 'scenarios' / 'dungeon_skirmish.yaml'}\n"
        "seed: 5\nreplications: 8\ndesign: grid\ncrn: true\n"
        "factors:\n  - path: options.monster_morale\n    values: [true, false]\n",
        encoding="utf-8",
    )
    made = invoke("study", study, "--jobs", "1", "--out", tmp_path / "bm", "-q")
    assert made.exit_code == 0, made.output
    panels = {ax.get_title(): ax for ax in drawn["losses.png"].axes}
    assert list(panels["The party: hp lost"].get_yticks()) == [0, 1, 2, 3, 4, 5]
    for ax in panels.values():
        assert ax.get_ylabel() == "runs"
        assert all(float(t).is_integer() for t in ax.get_yticks()), ax.get_title()
    summary = json.loads((tmp_path / "bm" / "summary.json").read_text(encoding="utf-8"))
    for point in summary["points"]:
        point["runs"] = point["done"] = 1
        for win in point["win"].values():
            win["count"] = 0
        point["win"]["party"]["count"], point["draw"]["count"], point["failed"] = 1, 0, 0
    results._outcomes(summary, tmp_path / "outcomes.png")
    ax = drawn["outcomes.png"].axes[0]
    low, high = ax.get_ylim()
    assert [t for t in ax.get_yticks() if low <= t <= high] == [0, 1]


def test_losses_png_names_the_losses_no_run_had(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The stone wall: no run loses a gun, so losses.png has no guns panel; it left both out
    without a word (paired.png names what it leaves out). Its key now says so."""
    from sim.batch.inputs.target import load_target
    from sim.batch.planning.plan import StudyPlan
    from sim.batch.study import RunOptions, run_study
    from tests.batch.helpers import SCENARIOS

    drawn: dict[str, Figure] = {}
    monkeypatch.setattr(
        results, "_save", lambda fig, path: (drawn.setdefault(path.name, fig), path)[1]
    )
    plan = StudyPlan(target=load_target(SCENARIOS / "stone_wall.yaml"), seed=1, replications=2)
    run_study(plan, tmp_path / "s", RunOptions(jobs=1))
    fig = drawn["losses.png"]
    assert [ax.get_title() for ax in fig.axes] == ["Union: men lost", "Confederate: men lost"]
    note = "0 in every run, not drawn: Union guns lost, Confederate guns lost"
    assert fig.get_supxlabel() == note


def _win_vs_figure(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, design: str, factors: int = 2
) -> Figure:
    """The win_vs plot of a stone wall study of ``design``: fire_hcv 15, 25, 35, the Union
    never winning and the Confederates always (the pooled rates given, no store read)."""
    from sim.batch.analysis.pooled import Pooled

    rows = [
        Pooled(v, side, wins, 10, 10, wins / 10, low, high, None, "wilson")
        for v in (15, 25, 35)
        for side, wins, low, high in (("usa", 0, 0.0, 0.28), ("csa", 10, 0.72, 1.0))
    ]
    monkeypatch.setattr(results, "pooled", lambda *args: rows)
    drawn: list[Figure] = []
    monkeypatch.setattr(results, "_save", lambda fig, path: drawn.append(fig) or path)
    win = {"usa": {"name": "Union"}, "csa": {"name": "Confederate"}}
    paths = ["options.fire_hcv", "map.terrain.0.cover", "sides.csa.units.phil.strength"]
    study = {"design": design, "crn": True, "factors": [{"path": p} for p in paths[:factors]]}
    summary = {"study": study, "points": [{"win": win}]}
    results._win_vs(None, summary, paths[0], tmp_path / "w.png")  # type: ignore[arg-type]
    [fig] = drawn
    return fig


def test_a_win_plot_says_pooled_only_where_a_grid_pooled_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A Sobol' or Morris study's win_vs plots said "(pooled over the other factors)", where
    almost every value of a Sobol' factor is at one point, and no ``pooled`` entry of
    summary.json backs them; they say "(the other factors vary)" as lhs's do. A grid's
    rates are pooled over the others, and a study of one factor says neither."""
    said = {
        design: _win_vs_figure(tmp_path, monkeypatch, design).axes[0].get_xlabel()
        for design in ("grid", "lhs", "morris", "sobol")
    }
    assert said == {
        "grid": "options.fire_hcv (pooled over the other factors)",
        "lhs": "options.fire_hcv (the other factors vary)",
        "morris": "options.fire_hcv (the other factors vary)",
        "sobol": "options.fire_hcv (the other factors vary)",
    }
    alone = _win_vs_figure(tmp_path, monkeypatch, "grid", factors=1)
    assert alone.axes[0].get_xlabel() == "options.fire_hcv"


def _rendered(fig: Figure, tmp_path: Path) -> Any:
    """``fig`` laid out and drawn as ``save`` writes it; its renderer."""
    save(fig, tmp_path / "drawn.png")
    canvas = fig.canvas
    assert isinstance(canvas, FigureCanvasAgg)
    canvas.draw()
    return canvas.get_renderer()


def _beside(fig: Figure, tmp_path: Path) -> tuple[float, float, float]:
    """(the axes' right edge, the legend's left edge, the legend's right edge) in pixels, the
    legend's right edge no further than the figure's."""
    renderer = _rendered(fig, tmp_path)
    [ax] = fig.axes
    legend = ax.get_legend()
    assert legend is not None
    box = legend.get_window_extent(renderer)
    assert box.x1 <= fig.bbox.x1 + 1
    return ax.bbox.x1, box.x0, box.x1


def test_a_win_plots_legend_stands_beside_its_axes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The win_vs legend sat in the axes' upper right corner, over the Confederates' 100 %
    at the last value and its bar; it stands right of the axes, inside the figure."""
    fig = _win_vs_figure(tmp_path, monkeypatch, "grid")
    right, low, _high = _beside(fig, tmp_path)
    assert low >= right
    _handles, labels = fig.axes[0].get_legend_handles_labels()
    assert labels == ["Union wins", "Confederate wins"]


def test_the_discover_plots_legend_stands_beside_its_axes_and_its_title_reads_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The goblin barricade's discover.png (lhs, 20 points): the legend in the lower
    left hid box 3's marker and cut box 2's label; it stands right of the axes. The title
    said "Where The goblins win"."""
    from sim.batch.charts import discover as discover_chart

    drawn: list[Figure] = []
    monkeypatch.setattr(discover_chart, "save", lambda fig, path: drawn.append(fig) or path)

    def box(n: int, holds: int, runs: int, coverage: float, density: float) -> dict[str, Any]:
        steps = [{"coverage": coverage + 0.1 * i, "density": density - 0.02 * i} for i in range(4)]
        return {"box": n, "holds": holds, "runs": runs, "coverage": coverage,
                "density": density, "trajectory": steps}  # fmt: skip

    boxes = [box(1, 26, 100, 0.51, 0.26), box(2, 14, 80, 0.275, 0.175), box(3, 10, 100, 0.196, 0.1)]
    result = {"boxes": boxes, "base_rate": 0.1275, "min_coverage": 0.5, "alpha": 0.05,
              "words": "The goblins win"}  # fmt: skip
    discover_chart.discover_plot(result, tmp_path / "d.png")
    [fig] = drawn
    right, low, _high = _beside(fig, tmp_path)
    assert low >= right
    assert fig.axes[0].get_title() == "Where the goblins win — PRIM (α 0.05, min coverage 0.5)"
    assert len(fig.axes[0].get_legend().get_texts()) == 8  # type: ignore[union-attr]


def test_a_morris_factor_at_the_origin_is_drawn_inside_the_axes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The stone wall's Morris study (docs' example): Phillips' Legion's strength never moves
    the Union's guns lost (μ* = σ = 0); its marker sat in the axes' corner, cut to a quarter
    by the spines. The axes start below 0, so the whole marker is inside them."""
    from sim.batch.charts import analysis

    drawn: list[Figure] = []
    monkeypatch.setattr(analysis, "save", lambda fig, path: drawn.append(fig) or path)
    ixs = [("map.terrain.0.cover", 0.03, 0.0387, 0.0075, 0.0525),
           ("options.fire_hcv", 0.0077, 0.0243, 0.0, 0.0231),
           ("sides.csa.units.phil.strength", 0.0, 0.0, 0.0, 0.0)]  # fmt: skip
    measure = {"side": "usa", "measure": "losses.guns", "indices": [
        {"factor": f, "mu_star": mu, "sigma": sd, "mu_star_low": lo, "mu_star_high": hi}
        for f, mu, sd, lo, hi in ixs
    ]}  # fmt: skip
    summary = {"study": {"name": "Stone wall", "ruleset": "musket"},
               "points": [{"win": {"usa": {"name": "Union"}}}],
               "sensitivity": {"method": "morris", "measures": [measure]}}  # fmt: skip
    analysis.sensitivity_plot(summary, tmp_path / "s.png")
    [fig] = drawn
    _rendered(fig, tmp_path)
    [ax] = fig.axes
    assert ax.get_xlim()[0] == ax.get_ylim()[0] == -0.04 * 0.0525
    radius = 6 / 2 * DPI / 72  # markersize 6 points, in pixels
    for line in ax.get_lines():
        if line.get_marker() not in ("None", None, ""):
            for x, y in ax.transData.transform(line.get_xydata()):
                assert ax.bbox.x0 + radius <= x <= ax.bbox.x1 - radius, line.get_label()
                assert ax.bbox.y0 + radius <= y <= ax.bbox.y1 - radius, line.get_label()


def test_a_wrapped_label_keeps_a_hyphenated_method_whole() -> None:
    """The win plot's axis label broke its method's name at a hyphen (``wilson-by-`` /
    ``replication``); a hyphenated word now moves whole to the next line."""
    from sim.batch.charts.plotting import wrap

    assert wrap("win probability (95 % interval: wilson-by-replication)", 45) == (
        "win probability (95 % interval:\nwilson-by-replication)"
    )
