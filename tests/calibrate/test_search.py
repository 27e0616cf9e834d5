"""The search: a small grid whole, no point fought twice, met on intervals, fresh re-fights,
and history cases as targets (with leave-one-out)."""

from __future__ import annotations

import itertools
import json
import math
import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml

from sim.batch.execution.worker import fight, prepare
from sim.batch.inputs.seeds import derived_seed, run_seed
from sim.batch.inputs.target import load_target
from sim.batch.planning.factors import Factor
from sim.calibrate import load_calibration
from sim.calibrate import search as search_module
from sim.calibrate.measures import Estimate, estimate
from sim.calibrate.report import format_progress, format_result, status
from sim.calibrate.search import grid_points
from sim.calibrate.spec import Goal, _start_problems
from sim.history.fit import load_cases
from tests.batch.helpers import SCENARIOS, invoke
from tests.calibrate.test_calibrate import small

DAMAGE = "sides.japan.task_forces.mo_main.ships.shoho.damage"
AA = "options.table_anti_aircraft"


def test_a_small_discrete_grid_is_searched_whole(tmp_path: Path) -> None:
    """2 × 2 points and 10 trials asked: 4 trials, every point once, the scenario's own
    (damage 5, AA table 4) first, the rest in grid_points' seeded order."""
    factors = [
        {"path": DAMAGE, "range": [4, 5], "type": "int"},
        {"path": AA, "values": [4, 3]},
    ]
    path = small(tmp_path, factors=factors, trials=10, replications=3, startup_trials=None)
    result = invoke("calibrate", path, "-o", tmp_path / "o", "--jobs", "1", "-q", "--json",
                    "--refight", "0")  # fmt: skip
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert (data["trials"], data["sampler"], data["repeats"]) == (4, "the whole grid", 0)
    lines = (tmp_path / "o" / "trials.jsonl").read_text(encoding="utf-8").splitlines()
    points = [json.loads(line)["params"] for line in lines]
    assert points[0] == {DAMAGE: 5, AA: 4}
    assert sorted((p[DAMAGE], p[AA]) for p in points) == list(itertools.product([4, 5], [3, 4]))
    assert points == grid_points(load_calibration(path))


def test_no_point_is_fought_twice(tmp_path: Path) -> None:
    """3 × 2 points, 5 trials: the TPE sampler's random start proposes repeats, which are
    answered from the trials; the 5 trials fought are 5 different points."""
    factors = [
        {"path": DAMAGE, "range": [4, 5], "type": "int"},
        {"path": AA, "range": [2, 4], "type": "int"},
    ]
    path = small(tmp_path, factors=factors, trials=5, replications=2)
    result = invoke("calibrate", path, "-o", tmp_path / "o", "--jobs", "1", "-q", "--json",
                    "--refight", "0")  # fmt: skip
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert (data["trials"], data["sampler"]) == (5, "optuna TPESampler")
    lines = (tmp_path / "o" / "trials.jsonl").read_text(encoding="utf-8").splitlines()
    points = {json.dumps(json.loads(line)["params"], sort_keys=True) for line in lines}
    assert len(points) == 5
    assert data["repeats"] >= 0


@pytest.mark.parametrize(
    ("interval", "word"),
    [((0.9, 1.0), "met"), ((0.85, 0.95), "unsure"), ((0.5, 0.89), "missed"),
     ((math.nan, math.nan), "unsure")],
)  # fmt: skip
def test_a_target_is_met_only_when_its_interval_is_in_range(
    interval: tuple[float, float], word: str
) -> None:
    goal = Goal(measure="win.x", range=(0.9, 1.0))
    low, high = interval
    assert status(goal, Estimate(0.92, low, high, 100, "Wilson 95 %")) == word
    assert status(Goal(measure="turns", value=3), Estimate(3, 3, 3, 5, "t")) == "met"
    assert status(Goal(measure="turns", value=3), Estimate(3, 2.5, 3.5, 5, "t")) == "unsure"


def test_each_interval_printed_is_named_by_its_own_method(tmp_path: Path) -> None:
    """A loss's interval is cut at 0 on fresh seeds and not at the best (or the other way):
    the text named only the best's method for the three intervals on the line."""
    target = {"measure": "losses.allied.air_factors", "range": [0, 0.3]}
    spec = load_calibration(small(tmp_path, targets=[target]))
    params = dict(spec.start)
    plain = Estimate(0.0, 0.0, 0.0, 3, "Student t 95 %")
    cut = Estimate(1.0, 0.0, 3.484, 3, "Student t 95 %, cut at 0")
    best = search_module.Trial(0, params, 0.0, (plain,), 3, 0)
    fresh = search_module.Trial(0, params, 0.49, (cut,), 3, 0)
    lines = format_result(spec, search_module.Search([best]), tmp_path, [(best, fresh)])
    (line,) = [x for x in lines if x.startswith("  losses.allied.air_factors")]
    assert line.endswith(
        "met, fresh unsure (weight 1; Student t 95 %, n=3; fresh: Student t 95 %, cut at 0, n=3)"
    )
    lines = format_result(spec, search_module.Search([best]), tmp_path, [(best, best)])
    (line,) = [x for x in lines if x.startswith("  losses.allied.air_factors")]
    assert line.endswith("met, fresh met (weight 1; Student t 95 %, n=3)")  # one method: once


def _assert_sunk_on_fresh_seeds(fresh_trial: dict[str, Any], runs: int) -> None:
    """The trial's P(Shoho sunk) on fresh seeds, recomputed here: run r with
    run_seed(derived_seed(1942, "calibrate-fresh"), 0, r, crn=True) at its params."""
    prepared = prepare(load_target(SCENARIOS / "coral_sea.yaml"), fresh_trial["params"])
    fresh = derived_seed(1942, "calibrate-fresh")
    sunk = []
    for r in range(runs):
        fought = fight(prepared, run_seed(fresh, 0, r, crn=True))
        _, ruleset, state, scenario = fought.battles[0]
        [shoho] = [u for u in ruleset.units(scenario, state) if u.id == "shoho"]
        sunk.append(float("sunk" in shoho.status))
    got = fresh_trial["targets"][0]
    want = estimate("rate", sunk)
    assert (got["achieved"], got["low"], got["high"]) == (want.value, want.low, want.high)


def test_the_best_point_is_fought_again_on_fresh_seeds(tmp_path: Path) -> None:
    """--refight 1: the best trial again with run r on run_seed(derived_seed(seed,
    "calibrate-fresh"), ·, r, crn=True); its P(Shoho sunk) recomputed here."""
    runs = 6
    path = small(tmp_path, trials=2, replications=runs, startup_trials=2)
    result = invoke("calibrate", path, "-o", tmp_path / "o", "--jobs", "1", "-q", "--json",
                    "--refight", "1")  # fmt: skip
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    (again,) = data["refights"]
    assert again["trial"] == data["best"]["trial"]
    assert again["in_sample"] == data["best"]
    _assert_sunk_on_fresh_seeds(again["fresh"], runs)
    text = invoke("calibrate", path, "-o", tmp_path / "t", "--jobs", "1", "-q", "--refight", "1")
    said = "The best point on fresh seeds (the winner's curse: the search chose it on its own"
    assert said in text.stdout  # one point is a point ("The best 1 points" it said)
    assert f"trial {again['trial']}: objective " in text.stdout


CASE = """\
format: 1
id: {id}
title: A case
scenario: {scenario}
seed: {seed}
runs: 50
{set}measures:
  - id: holds
    label: P(the Confederates hold)
    kind: win
    side: csa
    historical: 1
    accept: {{min: 0.5}}
    source: A test.
  - id: loss
    label: Union loss
    kind: loss
    side: usa
    unit: men
    historical: 0.4
    accept: {{min: 0.3, max: 0.45}}
    source: A test.
"""


def _suite(folder: Path, extra: str = "") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for cid, seed in (("a_case", 1), ("b_case", 2)):
        text = CASE.format(id=cid, scenario=SCENARIOS / "stone_wall.yaml", seed=seed, set="")
        (folder / f"{cid}.yaml").write_text(text + extra)
    return folder


def _fit(folder: Path, name: str = "fit", **changes: Any) -> Path:
    data: dict[str, Any] = {
        "name": "fire on two cases",
        "history": {"suite": str(folder / "suite"), "split": "all"},
        "seed": 3,
        "replications": 4,
        "trials": 2,
        "factors": [{"path": "options.fire_hcv", "values": [25.0, 20.0]}],
        "outputs": {"plots": False},
    }
    data.update(changes)
    path = folder / f"{name}.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return path


def test_history_cases_are_the_targets(tmp_path: Path) -> None:
    """Each case measure is a target (its accepted range; scale 0.1 for a probability, else
    the largest end, at least 1); a trial's estimates are what `battlesim history` gives the
    same case, set to that point, on its first 4 runs (its own seeds)."""
    _suite(tmp_path / "suite")
    path = _fit(tmp_path)
    spec = load_calibration(path, load_cases)
    assert [g.measure for g in spec.goals] == ["a_case.holds", "a_case.loss", "b_case.holds",
                                               "b_case.loss"]  # fmt: skip
    assert [g.unit(m.kind) for g, m in zip(spec.goals, spec.measures, strict=True)] == [
        0.1, 1.0, 0.1, 1.0]  # fmt: skip
    result = invoke("calibrate", path, "-o", tmp_path / "o", "--jobs", "1", "-q", "--json",
                    "--refight", "0")  # fmt: skip
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["cases"] == ["a_case", "b_case"] and data["files"]["scenario"] is None
    lines = (tmp_path / "o" / "trials.jsonl").read_text(encoding="utf-8").splitlines()
    trial = next(json.loads(x) for x in lines if json.loads(x)["params"]["options.fire_hcv"] == 20)
    one = _suite(tmp_path / "one", extra="")
    for f in one.iterdir():
        f.write_text(f.read_text().replace("runs: 50\n", "runs: 4\nset: {options.fire_hcv: 20}\n"))
    hist = invoke("history", "--suite", one, "--json", "--max-runs", "4")
    got = [(m["value"], m["low"], m["high"]) for c in json.loads(hist.stdout)["cases"]
           for m in c["measures"]]  # fmt: skip
    assert got == [(e["value"], e["low"], e["high"]) for e in trial["estimates"]]


def test_the_text_names_the_cases_fitted_and_their_split(tmp_path: Path) -> None:
    """A history fit's text said nothing of what it was fitted on (only ``--json`` named the
    cases): its second line names the cases, by split."""
    suite = _suite(tmp_path / "suite")
    held = suite / "b_case.yaml"
    held.write_text(held.read_text(encoding="utf-8") + "split: held_out\n", encoding="utf-8")
    result = invoke("calibrate", _fit(tmp_path), "-o", tmp_path / "o", "--jobs", "1", "-q",
                    "--refight", "0")  # fmt: skip
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[:2] == [
        "fire on two cases: 2 trials of 4 runs (common random numbers; the whole grid, seed 3)",
        "Fitted on 2 history cases, fitting: a_case; held_out: b_case",
    ]


def test_leave_one_out_fits_without_each_case(tmp_path: Path) -> None:
    """--leave-one-out: the fit of all cases, then one without each; leaving a_case out is
    the fit of b_case alone (the same best point and objective)."""
    _suite(tmp_path / "suite")
    path = _fit(tmp_path)
    result = invoke("calibrate", path, "-o", tmp_path / "o", "--jobs", "1", "-q", "--json",
                    "--refight", "0", "--leave-one-out")  # fmt: skip
    assert result.exit_code == 0, result.output
    loo = json.loads(result.stdout)["leave_one_out"]
    assert [x["left_out"] for x in loo] == [None, "a_case", "b_case"]
    alone = _fit(tmp_path, "alone", history={"suite": str(tmp_path / "suite"), "split": "all",
                                    "cases": ["b_case"]})  # fmt: skip
    b = invoke("calibrate", alone, "-o", tmp_path / "b", "--jobs", "1", "-q", "--json",
               "--refight", "0")  # fmt: skip
    best = json.loads(b.stdout)["best"]
    assert (loo[1]["params"], loo[1]["objective"]) == (best["params"], best["objective"])
    text = invoke("calibrate", path, "-o", tmp_path / "o", "--jobs", "1", "-q", "--resume",
                  "--refight", "0", "--leave-one-out")  # fmt: skip
    assert text.exit_code == 0, text.output
    assert "Leave one out: the fitted values with each case left out" in text.stdout
    assert any(line.split()[:1] == ["a_case"] for line in text.stdout.splitlines())


def test_a_start_spelt_otherwise_than_the_values_is_not_fought_twice(tmp_path: Path) -> None:
    """The cases' fire_hcv is 25.0 and the file's values 20 and 25: 3 and 3.0 are one value,
    so the grid is 2 points and 2 trials, the start as the file spells it (the start, 25.0,
    and the value 25 were two points: 3 trials of a 2-point grid, the start fought twice)."""
    _suite(tmp_path / "suite")
    path = _fit(tmp_path, factors=[{"path": "options.fire_hcv", "values": [20, 25]}])
    spec = load_calibration(path, load_cases)
    assert grid_points(spec) == [{"options.fire_hcv": 25}, {"options.fire_hcv": 20}]
    result = invoke("calibrate", path, "-o", tmp_path / "o", "--jobs", "1", "-q", "--json",
                    "--refight", "0")  # fmt: skip
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["trials"] == 2
    lines = (tmp_path / "o" / "trials.jsonl").read_text(encoding="utf-8").splitlines()
    assert [json.loads(x)["params"]["options.fire_hcv"] for x in lines] == [25, 20]


def test_a_start_of_true_is_not_the_value_1(tmp_path: Path) -> None:
    """``true`` is not ``1`` (docs/calibrate.md): a start of true is not among [1, 0]."""
    problems = _start_problems(0, Factor(path="options.x", values=[1, 0]), True, "f.yaml", {})[1]
    assert [p.message for p in problems] == [
        "the scenario's value True is not among the values: the search starts from the "
        "scenario's own values"
    ]


def test_a_leave_one_out_folder_that_is_a_link_is_refused_and_nothing_is_written_through_it(
    tmp_path: Path,
) -> None:
    """The fits' folders are named by the tool inside the user's: one replaced by a link
    (to a folder elsewhere) is refused in one line, exit 2, and its target stays empty."""
    _suite(tmp_path / "suite")
    path = _fit(tmp_path)
    args = ("calibrate", path, "-o", tmp_path / "o", "--jobs", "1", "-q", "--refight", "0",
            "--leave-one-out")  # fmt: skip
    assert invoke(*args).exit_code == 0
    sub = tmp_path / "o" / "leave-out-a_case"
    shutil.rmtree(sub)
    victim = tmp_path / "victim"
    victim.mkdir()
    sub.symlink_to(victim)
    result = invoke(*args, "--resume")
    assert result.exit_code == 2
    assert result.output == (
        f"battlesim: error: {str(sub)!r} is a symbolic link; battlesim writes only into "
        "folders it made: remove it\n"
    )
    assert list(victim.iterdir()) == []


@pytest.mark.parametrize(
    ("changes", "suite_extra", "message"),
    [
        ({"factors": [{"path": "options.fire_hkv", "values": [25.0]}]}, "",
         "factors.0.path: case a_case: no field 'fire_hkv' in options"),
        ({"targets": [{"measure": "turns", "value": 3}]}, "",
         "targets: with 'history' the targets are the cases' measures"),
        ({"history": {"split": "held_out"}}, "", "history: no case is chosen"),
        ({"history": {"cases": ["c_case"]}}, "", "history.cases: no case 'c_case'"),
        # a path named twice set one value over the other; the grid counted both
        ({"factors": [{"path": "options.fire_hcv", "values": [25.0, 15.0]},
                      {"path": "options.fire_hcv", "values": [25.0, 40.0]}]}, "",
         "factors.1.path: a factor named twice"),
        ({"factors": [{"path": "options.fire_hcv", "values": [25.0, 15, 15.0]}]}, "",
         "factors.0.values.2: the value 15.0 is named twice"),
        # a case named is fought, or the file says why not (it was dropped without a word)
        ({"history": {"split": "held_out", "cases": ["a_case"]}}, "",
         "history.cases: case 'a_case' is a fitting case, and history.split is held_out: "
         "name only held-out cases (or set split: all)"),
        ({"history": {"ruleset": "muskett"}}, "",
         "history.ruleset: no case of ruleset 'muskett' in "),
        # the search starts from the cases' shared value: it must be a choice, as a scenario's
        ({"factors": [{"path": "options.fire_hcv", "values": [30.0, 15.0]}]}, "",
         "factors.0.values: the cases' value 25.0 is not among the values: the search starts "
         "from the cases' own values"),
        ({"factors": [{"path": "options.fire_hcv", "range": [30.0, 40.0]}]}, "",
         "factors.0.range: the cases' value 25.0 is outside [30, 40]: the search starts "
         "from the cases' own values"),
    ],
)  # fmt: skip
def test_bad_history_calibrations_are_one_line(
    tmp_path: Path, changes: dict[str, Any], suite_extra: str, message: str
) -> None:
    _suite(tmp_path / "suite", suite_extra)
    for key in ("history",):
        if key in changes:
            changes[key] = {"suite": str(tmp_path / "suite"), **changes[key]}
    path = _fit(tmp_path, **changes)
    result = invoke("calibrate", path, "-o", tmp_path / "o")
    assert result.exit_code == 2
    [line] = result.stderr.splitlines()
    assert line.startswith(f"{path}:") and message in line, line


def test_a_named_case_of_another_ruleset_is_refused_not_dropped(tmp_path: Path) -> None:
    """`ruleset: musket` with a flattop case named: one located line (the shipped suite)."""
    path = _fit(tmp_path)
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    data["history"] = {"ruleset": "musket", "cases": ["stone_wall_first_hour", "coral_sea_shoho"]}
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    result = invoke("calibrate", path, "-o", tmp_path / "o")
    assert result.exit_code == 2
    assert result.stderr == (
        f"{path}:4: history.cases: case 'coral_sea_shoho' is a flattop case, and "
        "history.ruleset is musket\n"
    )


def test_a_factor_the_cases_disagree_on_is_refused(tmp_path: Path) -> None:
    folder = _suite(tmp_path / "suite")
    b = folder / "b_case.yaml"
    b.write_text(b.read_text().replace("runs: 50\n", "runs: 50\nset: {options.fire_hcv: 20}\n"))
    result = invoke("calibrate", _fit(tmp_path), "-o", tmp_path / "o")
    assert result.exit_code == 2
    assert "factors.0.path: case b_case sets options.fire_hcv itself" in result.stderr


def test_a_range_with_levels_is_discrete(tmp_path: Path) -> None:
    """cripple_fraction over [0.3, 0.7] in 5 levels (0.3, 0.4, …, 0.7) × damage 4-5: a grid
    of 10 points, searched whole; with 4 levels the scenario's 0.5 is none of them."""
    factors = [
        {"path": "options.cripple_fraction", "range": [0.3, 0.7], "levels": 5},
        {"path": DAMAGE, "range": [4, 5], "type": "int"},
    ]
    path = small(tmp_path, factors=factors, trials=12, replications=2, startup_trials=None)
    result = invoke("calibrate", path, "-o", tmp_path / "o", "--jobs", "1", "-q", "--json",
                    "--refight", "0")  # fmt: skip
    assert result.exit_code == 0, result.output
    assert (json.loads(result.stdout)["trials"], json.loads(result.stdout)["sampler"]) == (
        10,
        "the whole grid",
    )
    lines = (tmp_path / "o" / "trials.jsonl").read_text(encoding="utf-8").splitlines()
    points = [json.loads(line)["params"] for line in lines]
    assert points[0] == {"options.cripple_fraction": 0.5, DAMAGE: 5}
    fractions = sorted({p["options.cripple_fraction"] for p in points})
    assert fractions == pytest.approx([0.3, 0.4, 0.5, 0.6, 0.7], abs=1e-12)
    factors[0]["levels"] = 4
    bad = small(tmp_path, factors=factors, trials=12, replications=2, startup_trials=None)
    refused = invoke("calibrate", bad, "-o", tmp_path / "b")
    assert refused.exit_code == 2
    [line] = refused.stderr.splitlines()
    assert "factors.0.levels: the scenario's value 0.5 is not one of the 4 levels" in line


def test_the_start_is_fought_on_the_same_fresh_seeds_when_it_is_not_among_the_best(
    tmp_path: Path,
) -> None:
    """Shoho with 5 hits to sink (the scenario's own, trial 0) or 40, and a target of
    "sunk in at most a tenth of the runs": trial 1 (40: never sunk) is the best, so with
    --refight 1 the start is fought again on its own, on the fresh seeds the best was, and
    its P(sunk) there is recomputed here; the text prints it after the best."""
    runs = 6
    path = small(
        tmp_path,
        trials=2,
        replications=runs,
        startup_trials=2,
        factors=[{"path": "sides.japan.task_forces.mo_main.ships.shoho.damage", "values": [5, 40]}],
        targets=[
            {"measure": "unit.shoho.sunk", "range": [0.0, 0.1], "weight": 1},
            {"measure": "losses.allied.air_factors", "range": [0, 3], "weight": 1},
        ],
    )
    result = invoke("calibrate", path, "-o", tmp_path / "o", "--jobs", "1", "-q", "--json",
                    "--refight", "1")  # fmt: skip
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["best"]["trial"] == 1
    assert [r["trial"] for r in data["refights"]] == [1]
    start = data["start_refight"]
    assert (start["trial"], start["in_sample"]) == (0, data["start"])
    _assert_sunk_on_fresh_seeds(start["fresh"], runs)
    # fought on other seeds than the search's: the American losses come out otherwise
    losses = [
        t["achieved"] for t in (start["in_sample"]["targets"][1], start["fresh"]["targets"][1])
    ]
    assert losses[0] != losses[1], losses
    text = invoke("calibrate", path, "-o", tmp_path / "t", "--jobs", "1", "-q", "--refight", "1")
    tail = text.stdout.splitlines()[-3:-1]
    assert tail[0].startswith("  trial 1: objective ")
    assert tail[1].startswith("  and the start, trial 0: objective ")
    assert tail[1].endswith("(the scenario's own values)")


def test_the_start_among_the_best_is_its_refight(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The shipped calibration's start is its best (objective 0): ``start_refight`` is the
    start's ``refights`` entry, fought once, and the text adds no line for it."""
    fresh_fights: list[int] = []
    evaluate = search_module._evaluate

    def counted(*args: Any, fresh: bool = False) -> Any:
        if fresh:
            fresh_fights.append(args[4])
        return evaluate(*args, fresh=fresh)

    monkeypatch.setattr(search_module, "_evaluate", counted)
    path = small(tmp_path, trials=2, replications=6, startup_trials=2)
    result = invoke("calibrate", path, "-o", tmp_path / "o", "--jobs", "1", "-q", "--json",
                    "--refight", "1")  # fmt: skip
    data = json.loads(result.stdout)
    assert data["best"]["trial"] == 0
    assert data["start_refight"] == data["refights"][0]
    assert fresh_fights == [0]  # the start, once
    text = invoke("calibrate", path, "-o", tmp_path / "t", "--jobs", "1", "-q", "--refight", "1")
    assert "and the start" not in text.stdout
    none = invoke("calibrate", path, "-o", tmp_path / "n", "--jobs", "1", "-q", "--json",
                  "--refight", "0")  # fmt: skip
    assert json.loads(none.stdout)["start_refight"] is None


def _line_of(path: Path, text: str) -> int:
    return next(i for i, line in enumerate(path.read_text().splitlines(), 1) if text in line)


@pytest.mark.parametrize(("span", "end"), [([-0.5, 0.7], "near -0.5"), ([0.3, 1.5], "near 1.5")])
def test_a_range_reaching_values_the_scenario_refuses_is_refused_before_any_trial(
    tmp_path: Path, span: list[float], end: str
) -> None:
    """cripple_fraction is in (0, 1]: a range reaching beyond either end would have the
    sampler's trials there fail one by one ("invalid scenario"). Refused at load, exit 2,
    one line at the factor's range, with the scenario's own reason; no trial is fought."""
    path = small(tmp_path, factors=[{"path": "options.cripple_fraction", "range": span}])
    result = invoke("calibrate", path, "-o", tmp_path / "o", "--jobs", "1", "-q")
    assert result.exit_code == 2
    reason = (  # at the value the check tries, just inside the range's end
        "-0.4999988 is not more than 0, as it must be"
        if span[0] < 0
        else "1.4999988 is more than 1, the most it may be"
    )
    assert result.output == (
        f"{path}:{_line_of(path, 'range:')}: factors.0.range: options.cripple_fraction {end} "
        f"is refused (invalid scenario: options.cripple_fraction: {reason}): "
        "every trial there would fail; keep the factor to values the scenario accepts\n"
    )
    assert not (tmp_path / "o").exists()


ESCORT = "sides.allied.strikes.lex_strike.escort"
FIGHTERS = "sides.allied.task_forces.tf17.ships.lexington.aircraft.fighter"


@pytest.mark.parametrize(
    "factors",
    [
        # an open bound at a float range's end: the search never proposes 0.0 itself
        [{"path": "options.cripple_fraction", "range": [0.0, 0.7]}],
        # escort 9 needs more than the 7 fighters at the start: the fighters' range has 12
        [
            {"path": ESCORT, "range": [1, 9], "type": "int"},
            {"path": FIGHTERS, "range": [5, 12], "type": "int"},
        ],
    ],
)
def test_a_range_the_scenario_accepts_somewhere_at_its_ends_loads(
    tmp_path: Path, factors: list[dict[str, Any]]
) -> None:
    path = small(tmp_path, factors=factors)
    assert len(load_calibration(path, load_cases).factors) == len(factors)


def test_a_value_a_history_case_refuses_names_the_case(tmp_path: Path) -> None:
    """The same for history cases: each case's scenario, its own ``set`` under the point;
    the first case that refuses is named."""
    data = {
        "name": "fire_hcv below zero",
        "history": {"cases": ["bussaco_light_division", "sunken_road"]},
        "seed": 30,
        "replications": 2,
        "trials": 2,
        "factors": [{"path": "options.fire_hcv", "values": [25.0, -5.0]}],
    }
    path = tmp_path / "cases.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    result = invoke("calibrate", path, "-o", tmp_path / "o", "--jobs", "1", "-q")
    assert result.exit_code == 2
    assert result.output == (
        f"{path}:{_line_of(path, 'values:')}: factors.0.values: options.fire_hcv = -5.0 is "
        "refused (case bussaco_light_division: invalid scenario: options.fire_hcv: -5.0 is "
        "less than 0, the least it may be): every trial there would fail; keep the "
        "factor to values the scenario accepts\n"
    )


def test_a_point_a_history_case_refuses_is_a_failed_trial(tmp_path: Path) -> None:
    """fire_lcv 30 with fire_hcv 40 is a valid point, with fire_hcv 25 not (the Low Combat
    Value cannot exceed the High), so the file loads; the grid's invalid point is a failed
    trial naming the case, as a scenario's is, and the search goes on (it stopped the
    whole calibration with exit 2, and --resume proposed the point again)."""
    data = {
        "name": "lcv against hcv",
        "history": {"cases": ["bussaco_light_division"]},
        "seed": 30,
        "replications": 2,
        "trials": 4,
        "factors": [
            {"path": "options.fire_lcv", "values": [5.0, 30.0]},
            {"path": "options.fire_hcv", "values": [25.0, 40.0]},
        ],
        "outputs": {"plots": False},
    }
    path = tmp_path / "cases.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    result = invoke("calibrate", path, "-o", tmp_path / "o", "--jobs", "1", "-q", "--refight", "0")
    assert result.exit_code == 0, result.output
    trials = [json.loads(x) for x in (tmp_path / "o" / "trials.jsonl").read_text().splitlines()]
    assert len(trials) == 4
    failed = [t for t in trials if t["objective"] is None]
    assert [t["params"] for t in failed] == [{"options.fire_lcv": 30.0, "options.fire_hcv": 25.0}]
    assert failed[0]["error"] == (
        "case bussaco_light_division: invalid scenario: options.fire_hcv: fire_lcv 30 is above "
        "fire_hcv 25: the Low Combat Value cannot exceed the High"
    )


NO_ESTIMATE = """\
format: 1
id: guns
title: A ratio of guns no run can estimate
scenario: {scenario}
seed: 1
runs: 4
set: {{turns.limit: 1}}
measures:
  - id: ratio
    label: guns lost, Union over Confederate
    kind: loss_ratio
    side: usa
    over: csa
    unit: guns
    historical: 3
    accept: {{min: 1}}
    source: A test of a ratio no run can estimate.
"""


def test_when_no_trial_is_fought_to_the_end_no_patch_is_written_or_named(tmp_path: Path) -> None:
    """Every trial fails (its one measure has no estimate: no Confederate gun is lost in one
    turn): the text says so, no patch.yaml is written, and --json names none (it named one)."""
    suite = tmp_path / "suite"
    suite.mkdir()
    (suite / "guns.yaml").write_text(NO_ESTIMATE.format(scenario=SCENARIOS / "stone_wall.yaml"))
    path = _fit(tmp_path)
    args = ("calibrate", path, "-o", tmp_path / "o", "--jobs", "1", "-q", "--refight", "0")
    result = invoke(*args, "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["best"] is None
    trials = str(tmp_path / "o" / "trials.jsonl")
    assert data["files"] == {"patch": None, "scenario": None, "trials": trials, "plot": None}
    written = sorted(p.name for p in (tmp_path / "o").iterdir())
    assert written == ["calibration.json", "trials.jsonl"]
    text = invoke(*args, "--resume")
    assert "No trial was fought to the end: every point failed (see trials.jsonl)." in text.stdout


def test_a_factor_value_is_printed_as_the_file_spells_it(tmp_path: Path) -> None:
    """A true/false or null factor's value reads as YAML in the report, the progress lines
    and calibrated.yaml's header (``true``, as patch.yaml writes it), not Python's
    ``True``/``None``: a value copied from the report into a file means what it says."""
    factors = [{"path": "options.retarget_sunk", "values": [False, True]}]
    path = small(tmp_path, factors=factors, trials=2, replications=2, startup_trials=None)
    result = invoke("calibrate", path, "-o", tmp_path / "o", "--jobs", "1", "--refight", "1")
    assert result.exit_code == 0, result.output
    assert [line.split(":")[0] for line in result.stderr.splitlines()] == [
        "trial 0 (1 of 2)",
        "trial 1 (2 of 2)",
    ]
    assert "options.retarget_sunk=false: objective" in result.stderr
    assert "options.retarget_sunk=true: objective" in result.stderr
    assert "True" not in result.stdout + result.stderr
    assert "False" not in result.stdout + result.stderr
    best = yaml.safe_load((tmp_path / "o" / "patch.yaml").read_text(encoding="utf-8"))
    shown = "true" if best["options.retarget_sunk"] else "false"
    assert f"  options.retarget_sunk  {shown:>8}  (start false)" in result.stdout.splitlines()
    header = (tmp_path / "o" / "calibrated.yaml").read_text(encoding="utf-8").splitlines()[1]
    assert header == f"#   options.retarget_sunk = {shown}"
    from sim.calibrate.report import _value

    assert [_value(v) for v in (None, True, 3, 0.25, "abc", "1")] == [
        "null", "true", "3", "0.25", "abc", "'1'",
    ]  # fmt: skip


def test_a_search_of_one_trial_of_one_run_says_so(tmp_path: Path) -> None:
    """The result's first line and its note of repeats count one as one: "1 trial of 1 run",
    "1 proposal of points already tried was not fought again" (they said "1 trials of 1
    runs", "1 proposals … were")."""
    spec = load_calibration(small(tmp_path, trials=1, startup_trials=1, replications=1))
    got = tuple(Estimate(0.5, 0.4, 0.6, 1, "Wilson 95 %") for _ in spec.measures)
    only = search_module.Trial(0, dict(spec.start), 1.0, got, 1, 0)
    lines = format_result(spec, search_module.Search([only], repeats=1), tmp_path)
    assert lines[0].startswith(f"{spec.name}: 1 trial of 1 run (common random numbers; ")
    assert lines[1] == "1 proposal of points already tried was not fought again."
    two = format_result(spec, search_module.Search([only], repeats=2), tmp_path)
    assert two[1] == "2 proposals of points already tried were not fought again."


def test_two_objectives_that_differ_are_printed_apart(tmp_path: Path) -> None:
    """The best trial's 2.98718 and the start's 2.98719 both read 2.9872 at four decimals,
    which hid why the one won: they are printed with the decimals that tell them apart, and
    equal or distant objectives keep four."""
    spec = load_calibration(small(tmp_path))
    params = dict(spec.start)
    got = tuple(Estimate(0.5, 0.4, 0.6, 3, "Wilson 95 %") for _ in spec.measures)
    start = search_module.Trial(0, params, 2.98719, got, 3, 0)
    best = search_module.Trial(1, params, 2.98718, got, 3, 0)
    lines = format_result(spec, search_module.Search([start, best]), tmp_path)
    assert "Best: trial 1, objective 2.98718 (the scenario's own values, trial 0: 2.98719)" in lines
    progress = format_progress(start, best, 2)
    assert progress.endswith(": objective 2.98719; best 2.98718 (trial 1)")
    far = search_module.Trial(1, params, 1.5, got, 3, 0)
    lines = format_result(spec, search_module.Search([start, far]), tmp_path)
    assert "Best: trial 1, objective 1.5000 (the scenario's own values, trial 0: 2.9872)" in lines
    assert format_progress(far, far, 2).endswith(": objective 1.5000; best 1.5000 (trial 1)")
