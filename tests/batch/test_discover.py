"""Scenario discovery: PRIM finds the region a study was built with, said in plain conditions."""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sim.batch.discovery.condition import ConditionError, parse_condition
from sim.batch.discovery.discover import discover, discover_lines
from sim.batch.methods.prim import Data, Limit, find_boxes
from tests.batch.helpers import invoke
from tests.batch.synthetic import Outcome, synthetic_study

COVER, FIRE = "map.terrain.0.cover", "options.fire_hcv"
FACTORS = [
    {"path": COVER, "values": [-50, -40, -30, -20]},
    {"path": FIRE, "values": [10, 20, 30, 40]},
]
GRID = [{COVER: c, FIRE: f} for c in (-50, -40, -30, -20) for f in (10, 20, 30, 40)]


def _wall(_p: int, values: dict[str, Any]) -> list[Outcome]:
    """20 runs a point; the Union wins 18 where cover ≥ -30 and fire_hcv ≤ 20, else 1.

    A win takes 5 turns, a loss 12, so ``turns < 8`` is the Union's win again.
    """
    inside = values[COVER] >= -30 and values[FIRE] <= 20
    wins = 18 if inside else 1
    won: Outcome = ("usa", 5)
    lost: Outcome = ("csa", 12)
    return [won] * wins + [lost] * (20 - wins)


@pytest.fixture(scope="module")
def wall(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """16 points x 20 runs: 4 points (80 runs) in the region, 72 Union wins there, 12 outside."""
    return synthetic_study(tmp_path_factory.mktemp("wall") / "s", FACTORS, GRID, _wall)


def test_prim_finds_the_region_the_study_was_built_with(wall: Path) -> None:
    """One box, exactly cover ≥ -30 and fire_hcv ≤ 20: 72 of its 80 runs, 72 of the 84 wins."""
    result = discover(wall, "winner == 'Union'")
    assert (result["runs"], result["holds"], result["base_rate"]) == (320, 84, 84 / 320)
    (box,) = result["boxes"]
    assert box["limits"] == [
        {"factor": COVER, "low": -30, "high": -20},
        {"factor": FIRE, "low": 10, "high": 20},
    ]
    assert (box["runs"], box["holds"]) == (80, 72)
    assert (box["density"], box["coverage"], box["mass"]) == (72 / 80, 72 / 84, 80 / 320)
    assert box["text"] == (
        "Union wins in 90.0 % of runs when map.terrain.0.cover ≥ -30 and options.fire_hcv ≤ 20"
    )
    assert discover_lines(result) == [
        "Union wins in 26.2 % of all 320 runs (84 runs).",
        "Box 1: " + box["text"],
        "  72 of 80 runs in the box; coverage 85.7 % (of the 84 runs where it holds), "
        "density 90.0 %, mass 25.0 %",
        # without cover ≥ -30 the box holds 160 runs, 76 wins: P(Bin(80, 0.475) ≥ 72) is tiny
        "  quasi-p of each restriction (one-sided binomial test): map.terrain.0.cover ≥ -30 "
        "(qp < 0.001); options.fire_hcv ≤ 20 (qp < 0.001)",
    ]


def test_the_trajectory_peels_a_whole_level_at_a_time_while_it_gains(wall: Path) -> None:
    """A level of a factor holds 80 of the 320 runs; the 5 % quantile falls inside the
    lowest (or highest) level, so a peel removes that level. Each step takes the peel
    with the largest gain in density per run removed (ema_workbench's objective): cover
    -50 (4 points, 4 wins: 240 runs, 80 wins), cover -40 (160, 76), fire_hcv 40 (120,
    74), fire_hcv 30 (80, 72: the region). Inside it every point holds 18 of 20, so no
    peel gains and peeling stops; no paste raises the density either."""
    (box,) = discover(wall, "winner == 'usa'")["boxes"]
    assert [s["runs"] for s in box["trajectory"]] == [320, 240, 160, 120, 80]
    assert [s["holds"] for s in box["trajectory"]] == [84, 80, 76, 74, 72]


def test_a_number_condition_finds_the_same_region_as_the_winner_it_stands_for(wall: Path) -> None:
    """``turns < 8`` holds exactly on the Union's wins: the same box, the same counts."""
    by_turns = discover(wall, "turns < 8")
    by_winner = discover(wall, "winner == 'usa'")
    assert by_turns["words"] == "“turns < 8” holds"
    assert [b["limits"] for b in by_turns["boxes"]] == [b["limits"] for b in by_winner["boxes"]]
    assert [(b["runs"], b["holds"]) for b in by_turns["boxes"]] == [(80, 72)]


def test_a_becmi_study_takes_its_length_in_rounds_as_its_summary_says_it(tmp_path: Path) -> None:
    """becmi's summary and charts call the battle's length "rounds": ``rounds < 8`` is
    ``turns < 8`` on the same runs (the Union's 72 wins in the 80 runs of the box) and is
    said as written; "rounds" means nothing in a musket study, whose word is "turns"."""
    study = synthetic_study(tmp_path / "s", FACTORS, GRID, _wall, ruleset="becmi")
    by_rounds = discover(study, "rounds < 8")
    assert by_rounds["words"] == "“rounds < 8” holds"
    assert [(b["runs"], b["holds"]) for b in by_rounds["boxes"]] == [(80, 72)]
    by_turns = discover(study, "turns < 8")
    assert [b["limits"] for b in by_turns["boxes"]] == [b["limits"] for b in by_rounds["boxes"]]
    with pytest.raises(ConditionError, match=r"'round' is not a measure .* did you mean 'rounds'"):
        discover(study, "round < 8")
    musket = synthetic_study(tmp_path / "m", FACTORS, GRID, _wall)
    with pytest.raises(ConditionError, match="'rounds' is not a measure of this study"):
        discover(musket, "rounds < 8")


def test_a_second_box_covers_what_the_first_left(tmp_path: Path) -> None:
    """Two regions, the denser first: box 1 = cover ≥ -30 at fire_hcv 10 (two points
    winning 20 of 20), box 2 = cover -50 at fire_hcv ≥ 30 (two points winning 15 of 20),
    said of the 280 runs outside box 1; then nothing left is denser than the rest."""
    hot = {(-20, 10): 20, (-30, 10): 20, (-50, 40): 15, (-50, 30): 15}

    def two(_p: int, v: dict[str, Any]) -> list[Outcome]:
        wins = hot.get((v[COVER], v[FIRE]), 0)
        won: Outcome = ("usa", 5)
        lost: Outcome = ("csa", 12)
        return [won] * wins + [lost] * (20 - wins)

    out = synthetic_study(tmp_path / "s", FACTORS, GRID, two)
    result = discover(out, "winner == 'usa'", min_coverage=0.5)
    assert [(b["runs"], b["holds"]) for b in result["boxes"]] == [(40, 40), (40, 30)]
    assert [b["conditions"] for b in result["boxes"]] == [
        [f"{COVER} ≥ -30", f"{FIRE} = 10"],
        [f"{COVER} = -50", f"{FIRE} ≥ 30"],
    ]
    assert result["boxes"][1]["text"].endswith("(outside box 1)")
    assert result["boxes"][1]["coverage"] == 30 / 70


def test_levels_of_a_text_factor_are_peeled_one_at_a_time() -> None:
    """A factor of words: smoothbore goes first (leaving 19 of 40), then musket (17 of
    20); peeling n too would leave 9 of the 19 (coverage 0.47 < 0.5), so the box is
    weapon = rifle, n unrestricted."""
    data = Data(
        factors=["weapon", "n"],
        values=[[w, n] for w in ("musket", "rifle", "smoothbore") for n in (1, 2)],
        runs=[10] * 6,
        holds=[1, 1, 9, 8, 0, 0],
    )
    (box,) = find_boxes(data, boxes=1, min_coverage=0.5)
    assert box.limits == (Limit(levels=("rifle",)), None)
    assert (box.runs, box.holds) == (20, 17)


def test_discovery_is_the_same_every_time(wall: Path) -> None:
    """Nothing is random: two searches give equal results, to the last float."""
    a = discover(wall, "winner == 'usa' or turns >= 12", boxes=3)
    b = discover(wall, "winner == 'usa' or turns >= 12", boxes=3)
    assert json.dumps(a) == json.dumps(b)


def test_conditions_become_quoted_sql_and_plain_words() -> None:
    """Every name is quoted and every value a literal written by the parser; words read out."""
    sides = {"usa": "Union", "csa": "Confederate"}
    numbers = ["turns", "usa_men_lost", "usa_draws"]
    c = parse_condition("winner == 'Union' and (turns ≥ 3 or not draw)", sides, numbers)
    assert c.sql == (
        "(coalesce(winner = 'usa', false) AND (coalesce(\"turns\" >= 3.0, false) OR "
        "(NOT (status = 'done' AND winner IS NULL))))"
    )
    assert c.words == "“winner = usa and (turns ≥ 3 or not draw)” holds"
    assert parse_condition("winner != 'csa'", sides, numbers).words == "Confederate does not win"
    assert parse_condition("DRAW", sides, numbers).words == "The battle is drawn"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "--measure: empty; write e.g. \"winner == 'usa'\" or 'turns > 10'"),
        ("winer == 'usa'", "at character 1: 'winer' is not a measure of this study; did you "
         "mean 'winner'? (measures: turns, usa_draws, usa_men_lost; or winner, draw)"),
        ("winner == 'onion'", "at character 11: 'onion' is no side of this study; did you mean "
         "'Union'? (sides: usa (Union), csa (Confederate))"),
        ("winner > 'usa'", "at character 8: write winner == 'SIDE' or winner != 'SIDE'"),
        ("turns >", "at character 8: turns > needs a number"),
        ("turns 5", "at character 7: compare turns with a number, e.g. turns > 10"),
        ("turns > 1e999", "at character 9: 1e999 is not a finite number"),
        ("(turns > 1", "at character 11: expected ')'"),
        ("turns > 1 turns", "at character 11: expected 'and', 'or' or the end, found 'turns'"),
        ("__import__('os')", "at character 1: '__import__' is not a measure of this study"),
        ("turns > 1; drop", "at character 10: cannot read '; drop'"),
    ],
)  # fmt: skip
def test_a_condition_that_cannot_be_read_says_where_and_why(text: str, message: str) -> None:
    """One line naming the character and what was expected; nothing runs."""
    sides = {"usa": "Union", "csa": "Confederate"}
    with pytest.raises(ConditionError) as err:
        parse_condition(text, sides, ["turns", "usa_men_lost", "usa_draws"])
    assert message in str(err.value)


def test_the_command_prints_the_boxes_and_draws_the_plot(wall: Path) -> None:
    """Text as discover_lines says it, the plot in the study's plots/ folder, exit 0."""
    result = invoke("discover", wall, "--measure", "winner == 'usa'")
    assert result.exit_code == 0, result.output
    plot = wall / "plots" / "discover.png"
    assert result.output.splitlines() == [
        *discover_lines(discover(wall, "winner == 'usa'")),
        f"Plot: {plot}",
    ]
    assert plot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_the_command_with_json_prints_one_object(wall: Path, tmp_path: Path) -> None:
    """--json: the result with the plot's path; -o puts the plot where it is asked."""
    plot = tmp_path / "d.png"
    result = invoke("discover", wall, "-m", "winner == 'usa'", "--json", "-o", plot)
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["plot"] == str(plot) and plot.is_file()
    assert data["significance_method"] == "one-sided binomial test (quasi-p)"
    assert [(b["runs"], b["holds"]) for b in data["boxes"]] == [(80, 72)]


def test_the_command_refuses_bad_input_with_one_line(wall: Path, tmp_path: Path) -> None:
    """A condition it cannot read, or a folder with no study: one line, exit 2."""
    bad = invoke("discover", wall, "-m", "turns >")
    assert (bad.exit_code, bad.output.count("\n")) == (2, 1)
    assert "turns > needs a number" in bad.output
    none = invoke("discover", tmp_path, "-m", "turns > 1")
    assert none.exit_code == 2
    assert f"{str(tmp_path)!r}: no study here (no study.duckdb)" in none.output


def test_a_plot_named_inside_the_study_is_refused_even_with_force(wall: Path) -> None:
    """--out study.duckdb --force replaced the study's database with a PNG."""
    db = wall / "study.duckdb"
    before = db.read_bytes()
    for out in (db, wall / "summary.json", wall / "mine.png"):
        result = invoke("discover", wall, "-m", "turns > 1", "--out", out, "--force")
        assert result.exit_code == 2
        assert result.output == (
            f"battlesim: error: --out {str(out)!r} is inside the study {str(wall)!r}, whose "
            "files its manifest lists: write the plot elsewhere, or leave --out out "
            "(plots/discover.png)\n"
        )
    assert db.read_bytes() == before


_levels = st.lists(st.integers(-5, 5), min_size=1, max_size=4, unique=True)


@st.composite
def _data(draw: st.DrawFn) -> Data:
    """2 numeric factors on a small grid, each point with 0-12 runs and some holding."""
    xs, ys = draw(_levels), draw(_levels)
    values = [[x, y] for x in xs for y in ys]
    runs = draw(st.lists(st.integers(0, 12), min_size=len(values), max_size=len(values)))
    holds = [draw(st.integers(0, n)) for n in runs]
    return Data(factors=["x", "y"], values=values, runs=runs, holds=holds)


def _inside(data: Data, limits: tuple[Limit | None, ...], i: int) -> bool:
    return all(lim is None or lim.admits(data.values[i][j]) for j, lim in enumerate(limits))


@settings(max_examples=150, deadline=None)
@given(_data(), st.floats(0.05, 0.45), st.floats(0.0, 1.0))
def test_prim_laws(data: Data, alpha: float, min_coverage: float) -> None:
    """Every peel shrinks the box, every paste after them grows it and raises its density,
    and each keeps at least min_mass of the runs; each box's counts are the runs it admits;
    boxes are denser than the runs they were found in, disjoint, and found again
    identically."""
    total = sum(data.runs)
    boxes = find_boxes(data, 3, alpha, 0.05, min_coverage)
    assert boxes == find_boxes(data, 3, alpha, 0.05, min_coverage)
    taken: set[int] = set()
    for box in boxes:
        steps = box.trajectory
        m = min(range(len(steps)), key=lambda k: (steps[k].runs, k))
        assert all(a.runs > b.runs for a, b in itertools.pairwise(steps[: m + 1]))
        assert all(
            a.runs < b.runs and a.holds / a.runs < b.holds / b.runs
            for a, b in itertools.pairwise(steps[m:])
        )
        assert all(s.runs >= 0.05 * total for s in steps)
        rest = [i for i in range(len(data.runs)) if i not in taken and data.runs[i] > 0]
        mine = [i for i in rest if _inside(data, box.limits, i)]
        assert (box.runs, box.holds) == (
            sum(data.runs[i] for i in mine),
            sum(data.holds[i] for i in mine),
        )
        before = sum(data.holds[i] for i in rest) / sum(data.runs[i] for i in rest)
        assert box.holds / box.runs > before
        taken |= set(mine)


def test_discover_counts_the_summarised_runs_and_keeps_the_pilot_apart(tmp_path: Path) -> None:
    """An --until-ci study (W = 0.2, 20 replications, chunks of 5): its pilot is replications
    0–4 (⌈z²/32W²⌉ = 3 runs, a whole chunk). The Union wins every pilot run and, after it,
    only where cover ≥ -30 and fire_hcv ≤ 20: discover sees the 15 summarised runs a point,
    240 in all, and the 4 × 15 = 60 wins of the region, as the summary does."""
    import duckdb

    from sim.batch.planning.stopping import PILOT, pilot_runs

    assert pilot_runs(0.2, 20, 5) == 5

    def outcomes(_p: int, values: dict[str, Any]) -> list[Outcome]:
        inside = values[COVER] >= -30 and values[FIRE] <= 20
        pilot: list[Outcome] = [("usa", 5)] * 5
        after: Outcome = ("usa", 5) if inside else ("csa", 12)
        return pilot + [after] * 15

    folder = synthetic_study(tmp_path / "s", FACTORS, GRID, outcomes)
    plan = {"design": "grid", "points": None, "until_ci": 0.2, "replications": 20,
            "chunk_size": 5, "stopping": PILOT}  # fmt: skip
    con = duckdb.connect(str(folder / "study.duckdb"))
    con.execute("UPDATE study SET plan = ?", [json.dumps(plan)])
    con.execute("DROP VIEW runs_wide")  # made for the old plan: a study refuses it now
    con.close()
    result = discover(folder, "winner == 'usa'")
    assert (result["runs"], result["holds"]) == (240, 60)
    (box,) = result["boxes"]
    assert (box["runs"], box["holds"]) == (60, 60)


def test_no_box_draws_no_chart(wall: Path) -> None:
    """A condition that holds in no run, or nowhere more often than overall: the answer,
    then "Plot: none (no box to draw)", exit 0 (a script asking many questions goes on);
    no discover.png is written and --json says "plot": null."""
    plot = wall / "plots" / "discover.png"
    plot.unlink(missing_ok=True)
    for measure in ("turns > 100", "turns > 0"):
        result = invoke("discover", wall, "--measure", measure)
        assert result.exit_code == 0, result.output
        assert result.output.splitlines()[-1] == "Plot: none (no box to draw)"
        assert not plot.exists()
        data = json.loads(invoke("discover", wall, "-m", measure, "--json").output)
        assert (data["boxes"], data["plot"]) == ([], None)


def test_the_study_plot_is_listed_in_the_manifest_and_verified(tmp_path: Path) -> None:
    """discover.png drawn in a study's plots/ is added to its manifest.json (only that
    entry): verify then checks it, and names it when it is altered."""
    from tests.batch.helpers import STONE_WALL

    out = tmp_path / "s"
    made = invoke(
        "batch", STONE_WALL, "--runs", "4", "--out", out, "--seed", "3", "--jobs", "1",
        "--sweep", "options.fire_hcv=5,45", "--no-plots", "--quiet",
    )  # fmt: skip
    assert made.exit_code == 0, made.output
    before = json.loads((out / "manifest.json").read_text())["files"]
    result = invoke("discover", out, "--measure", "usa_men_lost >= 300")
    assert result.exit_code == 0, result.output
    assert "Plot: none" not in result.output
    after = json.loads((out / "manifest.json").read_text())["files"]
    assert set(after) - set(before) == {"plots/discover.png"}
    assert {k: v for k, v in after.items() if k in before} == before
    ok = invoke("verify", out, "--sample", "0")
    assert ok.exit_code == 0, ok.output
    plot = out / "plots" / "discover.png"
    plot.write_bytes(plot.read_bytes() + b"\0")
    bad = invoke("verify", out, "--sample", "0")
    assert bad.exit_code == 1
    assert "plots/discover.png" in bad.output


def test_the_pilots_runs_are_said_left_out() -> None:
    """With --until-ci the confirmatory runs are read and the pilot's left out: the line
    said "of all 240 runs" of a study of 480 without a word of them."""
    from sim.batch.discovery.discover import discover_lines

    result = {"words": "“turns > 2” holds", "base_rate": 0.5, "runs": 240, "holds": 120,
              "pilot_runs": 240, "boxes": []}  # fmt: skip
    assert discover_lines(result)[0] == (
        "“turns > 2” holds in 50.0 % of all 240 confirmatory runs (120 runs; the 240 pilot "
        "runs that sized them are left out)."
    )
    assert discover_lines({**result, "pilot_runs": 0})[0] == (
        "“turns > 2” holds in 50.0 % of all 240 runs (120 runs)."
    )
