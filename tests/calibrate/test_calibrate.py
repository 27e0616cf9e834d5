"""`battlesim calibrate`: the shipped fit improves its targets, deterministically and resumably."""

from __future__ import annotations

import json
import math
import os
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import yaml

from sim.batch.execution.executors import InlineExecutor
from sim.batch.execution.worker import fight, prepare
from sim.batch.inputs.seeds import run_seed
from sim.batch.inputs.target import load_campaign, load_target
from sim.calibrate import calibrate, load_calibration
from sim.calibrate.measures import estimate, parse_measure
from sim.scenario.load import load_scenario
from tests.batch.helpers import SCENARIOS, invoke

SHIPPED = SCENARIOS / "coral_sea_calibration.yaml"
RUNS, TRIALS = 30, 5
"""Small enough to take a few seconds; the shipped file asks for 100 runs and 30 trials."""


def small(folder: Path, **changes: Any) -> Path:
    """The shipped calibration with RUNS runs and TRIALS trials (and ``changes``) in ``folder``."""
    data = yaml.safe_load(SHIPPED.read_text(encoding="utf-8"))
    data.update(scenario=str(SCENARIOS / data["scenario"]), replications=RUNS, trials=TRIALS)
    data.update(startup_trials=3)
    data.update(changes)
    path = folder / "fit.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False, allow_unicode=True), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def fitted(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any], str]:
    """The small calibration run once with --jobs 1: its folder, JSON and text output."""
    folder = tmp_path_factory.mktemp("fit")
    path = small(folder)
    as_json = invoke("calibrate", path, "-o", folder / "j", "--jobs", "1", "-q", "--json")
    assert as_json.exit_code == 0, as_json.output
    text = invoke("calibrate", path, "-o", folder / "t", "--jobs", "1", "-q")
    assert text.exit_code == 0, text.output
    return folder, json.loads(as_json.stdout), text.stdout


def test_quiet_leaves_out_the_line_per_trial_and_its_help_says_so(tmp_path: Path) -> None:
    """calibrate draws no bar: ``-q`` leaves out its progress line per trial (one for each of
    the TRIALS trials without it), and its help says that, not "No progress bar."."""
    path = small(tmp_path, replications=2)
    loud = invoke("calibrate", path, "-o", tmp_path / "loud", "--jobs", "1", "--refight", "0")
    assert loud.exit_code == 0, loud.output
    lines = loud.stderr.splitlines()
    assert [line.split(":")[0] for line in lines] == [
        f"trial {k} ({k + 1} of {TRIALS})" for k in range(TRIALS)
    ]
    quiet = invoke("calibrate", path, "-o", tmp_path / "q", "--jobs", "1", "--refight", "0", "-q")
    assert quiet.exit_code == 0, quiet.output
    assert quiet.stderr == ""
    shown = " ".join(invoke("calibrate", "--help").stdout.split())
    assert "-q, --quiet No progress line per trial on stderr." in shown


def _misses(point: dict[str, Any]) -> list[float]:
    return [t["miss"] for t in point["targets"]]


def test_the_shipped_calibration_starts_from_the_scenario_and_keeps_the_best(
    fitted: tuple[Path, dict[str, Any], str],
) -> None:
    """Trial 0 is the scenario's own values; the best is the trial with the lowest objective,
    the earliest of equals. Under flattop rules v3 Shoho is sunk in every run at trial 0 and
    the American losses are within 1 AF, so trial 0 already meets both targets (objective 0):
    nothing improves on it, and it stays the best (docs/calibrate.md)."""
    _, result, _ = fitted
    start, best = result["start"], result["best"]
    assert start["trial"] == 0
    assert start["params"] == {
        "sides.japan.task_forces.mo_main.ships.shoho.damage": 5,
        "options.cripple_fraction": 0.5,
        "options.table_anti_aircraft": 4,
    }
    assert start["objective"] == 0.0 and _misses(start) == [0.0, 0.0]
    assert (best["trial"], result["improved"]) == (0, False)


def test_the_objective_is_the_weighted_sum_of_squared_misses(
    fitted: tuple[Path, dict[str, Any], str],
) -> None:
    """Each miss is the distance outside the historical range over the scale (0.1 for a rate,
    the range's magnitude otherwise); the objective is Σ weight · miss²."""
    _, result, _ = fitted
    for point in (result["start"], result["best"]):
        for t in point["targets"]:
            low, high, x = t["historical"]["low"], t["historical"]["high"], t["achieved"]
            unit = 0.1 if t["kind"] == "rate" else max(1.0, abs(low), abs(high))
            assert t["miss"] == pytest.approx(max(low - x, x - high, 0.0) / unit, abs=1e-12)
        total = sum(t["weight"] * t["miss"] ** 2 for t in point["targets"])
        assert point["objective"] == pytest.approx(total, rel=1e-12)


def test_trial_0_measures_the_scenario_fought_on_the_common_seeds(
    fitted: tuple[Path, dict[str, Any], str],
) -> None:
    """Trial 0's P(Shoho sunk) and US air factors lost equal the same RUNS seeds fought directly
    (run r: run_seed(seed, ·, r, crn=True)), with the Wilson and Student t intervals."""
    _, result, _ = fitted
    target = load_target(SCENARIOS / "coral_sea.yaml")
    prepared = prepare(target, {})
    sunk, lost = [], []
    for r in range(RUNS):
        fought = fight(prepared, run_seed(1942, 0, r, crn=True))
        _, ruleset, state, scenario = fought.battles[0]
        [shoho] = [u for u in ruleset.units(scenario, state) if u.id == "shoho"]
        sunk.append(float("sunk" in shoho.status))
        lost.append(float(fought.outcome["sides"]["allied"]["losses"]["air_factors"]))
    got = result["start"]["targets"]
    assert got[0]["achieved"] == sum(sunk) / RUNS
    assert got[1]["achieved"] == pytest.approx(math.fsum(lost) / RUNS, rel=1e-12)
    rate, mean = estimate("rate", sunk), estimate("mean", lost, 0.0)  # a loss: cut at 0
    assert (got[0]["low"], got[0]["high"], got[0]["interval"]) == (
        rate.low,
        rate.high,
        "Wilson 95 %",
    )
    assert (got[1]["low"], got[1]["high"], got[1]["interval"]) == (
        mean.low,
        mean.high,
        mean.method,
    )
    assert mean.method == ("Student t 95 %, cut at 0" if mean.low == 0 else "Student t 95 %")


def test_student_t_interval_of_a_mean() -> None:
    """Mean 2.5 of 1..4, s = √(5/3), half-width t(0.975, 3) · s / 2 with t = 3.182446305284263."""
    e = estimate("mean", [1.0, 2.0, 3.0, 4.0])
    half = 3.182446305284263 * math.sqrt(5 / 3) / 2
    assert (e.value, e.n) == (2.5, 4)
    assert e.low == pytest.approx(2.5 - half, rel=1e-12)
    assert e.high == pytest.approx(2.5 + half, rel=1e-12)


def test_a_mean_that_cannot_be_below_zero_has_its_interval_cut_there() -> None:
    """One aircraft lost in ten runs: mean 0.1, s = √0.1, half-width t(0.975, 9) · s / √10 with
    t = 2.2621571627982; the low end, 0.1 − 0.226, is cut at the floor 0 and the method says so.
    Without a floor (or with a run below it) the interval is the plain t interval."""
    xs = [0.0] * 9 + [1.0]
    half = 2.2621571627982 * math.sqrt(0.1) / math.sqrt(10)
    cut = estimate("mean", xs, 0.0)
    assert (cut.value, cut.low, cut.method) == (0.1, 0.0, "Student t 95 %, cut at 0")
    assert cut.high == pytest.approx(0.1 + half, rel=1e-12)
    plain = estimate("mean", xs)
    assert plain.low == pytest.approx(0.1 - half, rel=1e-12) and plain.method == "Student t 95 %"
    assert estimate("mean", [*xs[:-1], -1.0], 0.0).low < 0  # a run below 0: no floor to cut at
    assert estimate("mean", [2.0, 3.0, 4.0], 0.0).method == "Student t 95 %"  # nothing to cut
    measures = {m: parse_measure(m, {"a": ["men"]}, ["u"]) for m in (
        "losses.a.men", "turns", "unit.u.strength", "unit.u.lost", "win.a", "draw")}  # fmt: skip
    assert {m: x.floor for m, x in measures.items()} == {
        "losses.a.men": 0.0, "turns": 0.0, "unit.u.strength": None,
        "unit.u.lost": None, "win.a": None, "draw": None,
    }  # fmt: skip


def test_cutting_at_zero_keeps_the_t_intervals_coverage_on_plain_draws() -> None:
    """Counts drawn from Poisson(0.3), ten a sample, 4,000 samples (seed 20261206): the cut
    interval holds the true mean in exactly the samples the whole one does (the mean is never
    below 0), though many of the intervals reach below 0. The coverage itself, the t
    interval's on a skewed count of ten, is only bounded loosely here (0.85-0.99): the
    claim under test is that cutting changes none of it."""
    rng = np.random.default_rng(20261206)
    mu, held, held_cut, cut = 0.3, 0, 0, 0
    for _ in range(4000):
        xs = [float(x) for x in rng.poisson(mu, 10)]
        whole, floored = estimate("mean", xs), estimate("mean", xs, 0.0)
        held += whole.low <= mu <= whole.high
        held_cut += floored.low <= mu <= floored.high
        cut += floored.low != whole.low
    assert held == held_cut
    assert 0.85 <= held / 4000 <= 0.99
    assert cut >= 400


def test_same_file_same_bytes_with_any_number_of_workers(
    fitted: tuple[Path, dict[str, Any], str],
) -> None:
    """--jobs 2 proposes the same points and prints and writes the same bytes as --jobs 1."""
    folder, _, text = fitted
    path = folder / "fit.yaml"
    two = invoke("calibrate", path, "-o", folder / "t2", "--jobs", "2", "-q")
    assert two.exit_code == 0, two.output
    assert two.stdout.replace(str(folder / "t2"), "DIR") == text.replace(str(folder / "t"), "DIR")
    for name in ("trials.jsonl", "patch.yaml"):
        assert (folder / "t2" / name).read_bytes() == (folder / "t" / name).read_bytes()


def test_a_stopped_calibration_resumes_to_the_same_result(
    fitted: tuple[Path, dict[str, Any], str], tmp_path: Path
) -> None:
    """Stopped after trial 1, --resume re-asks the sampler for the stored trials (the same
    points), fights only the rest, and ends with the uninterrupted run's trials and output."""
    folder, _, text = fitted
    spec = load_calibration(folder / "fit.yaml")
    out = tmp_path / "r"

    def stop(trial: Any, _best: Any, _planned: int) -> None:
        if trial.number == 1:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        calibrate(spec, out, InlineExecutor(), progress=stop)
    assert len((out / "trials.jsonl").read_text(encoding="utf-8").splitlines()) == 2
    again = invoke("calibrate", folder / "fit.yaml", "-o", out, "--jobs", "1")
    assert again.exit_code == 2
    assert "already holds a calibration: add --resume" in again.stderr
    fought: list[int] = []
    shown: list[list[str]] = []

    def seen(trial: Any, _best: Any, _planned: int) -> None:
        fought.append(trial.number)
        shown.append(list(trial.params))

    trials = calibrate(spec, out, InlineExecutor(), resume=True, progress=seen)
    assert [t.number for t in trials] == fought == list(range(TRIALS))
    # the trials read back are shown with their factors in the file's order, as fought ones
    assert shown == [[f.path for f in spec.factors]] * TRIALS
    assert (out / "trials.jsonl").read_bytes() == (folder / "t" / "trials.jsonl").read_bytes()
    resumed = invoke("calibrate", folder / "fit.yaml", "-o", out, "--jobs", "1", "-q", "--resume")
    assert resumed.stdout.replace(str(out), "DIR") == text.replace(str(folder / "t"), "DIR")
    typo = tmp_path / "rr"  # a mistyped folder: no calibration there to continue
    refused = invoke("calibrate", folder / "fit.yaml", "-o", typo, "--jobs", "1", "--resume")
    assert (refused.exit_code, refused.stderr.count("\n")) == (2, 1)
    assert f"--resume: no calibration to resume in {str(typo)!r}" in refused.stderr
    assert not (typo / "trials.jsonl").exists()


def test_a_ctrl_c_as_the_outputs_are_written_says_resume_and_exits_1(
    fitted: tuple[Path, dict[str, Any], str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ctrl-C while the search's plot is drawn (the outputs come after the last trial) is an
    interrupt like one in the search: exit 1 and the resume line (docs/calibrate.md), not
    click's bare "Aborted!" and 130; --resume then writes the outputs the whole run writes."""
    from sim.calibrate import report

    folder, _, text = fitted

    def interrupted(*_args: Any) -> None:
        raise KeyboardInterrupt

    out = tmp_path / "c"
    with monkeypatch.context() as patched:
        patched.setattr(report, "_plot", interrupted)
        stopped = invoke("calibrate", folder / "fit.yaml", "-o", out, "--jobs", "1", "-q")
    assert stopped.exit_code == 1, stopped.output
    assert stopped.stderr.strip().endswith("run the same command with --resume to continue")
    resumed = invoke("calibrate", folder / "fit.yaml", "-o", out, "--jobs", "1", "-q", "--resume")
    assert resumed.exit_code == 0, resumed.output
    assert resumed.stdout.replace(str(out), "DIR") == text.replace(str(folder / "t"), "DIR")
    for name in ("trials.jsonl", "patch.yaml", "calibrated.yaml"):
        assert (out / name).read_bytes() == (folder / "t" / name).read_bytes()


def test_the_patch_sets_the_best_point_on_the_scenario(
    fitted: tuple[Path, dict[str, Any], str],
) -> None:
    """patch.yaml maps each factor's path to its best value; calibrated.yaml is coral_sea with
    those values set, and the text names the best trial and the files."""
    folder, result, text = fitted
    best = result["best"]["params"]
    patch = yaml.safe_load((folder / "t" / "patch.yaml").read_text(encoding="utf-8"))
    assert patch == best
    _, validated = load_scenario(folder / "t" / "calibrated.yaml")  # a scenario file as it is
    assert validated.options.table_anti_aircraft == best["options.table_anti_aircraft"]
    scenario = yaml.safe_load((folder / "t" / "calibrated.yaml").read_text(encoding="utf-8"))
    assert scenario["options"]["table_anti_aircraft"] == best["options.table_anti_aircraft"]
    shoho = scenario["sides"][1]["task_forces"][0]["ships"][0]
    assert (shoho["id"], shoho["damage"]) == (
        "shoho",
        best["sides.japan.task_forces.mo_main.ships.shoho.damage"],
    )
    assert validated.sides[1].task_forces[0].ships[0].damage == shoho["damage"]
    # the scenario's own text: its sources and comments kept, Shoho's damage set where the
    # file holds it, and the options it leaves out added as one line, no other option pinned
    written = (folder / "t" / "calibrated.yaml").read_text(encoding="utf-8").splitlines()
    own = (SCENARIOS / "coral_sea.yaml").read_text(encoding="utf-8").splitlines()
    assert own.count("            damage: 5") == 1
    schema = SCENARIOS.parent / "docs" / "scenario.schema.json"  # the editor's schema line,
    moved = os.path.relpath(schema.resolve(), (folder / "t").resolve())  # seen from -o
    expected = [
        line.replace("damage: 5", f"damage: {shoho['damage']}") if line.endswith("damage: 5")
        else f"# yaml-language-server: $schema={moved}" if "$schema=" in line
        else line
        for line in own
    ] + [
        f"options: {{cripple_fraction: {best['options.cripple_fraction']!r}, "
        f"table_anti_aircraft: {best['options.table_anti_aircraft']}}}"
    ]  # fmt: skip
    header = 1 + len(best)  # the line naming the fit, then a line per factor
    assert all(line.startswith("# ") for line in written[:header])
    assert written[header:] == expected
    assert (folder / "t" / "search.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    lines = text.splitlines()
    assert lines[1].startswith(f"Best: trial {result['best']['trial']}, objective ")
    assert lines[-1].startswith(f"Results: {folder / 't' / 'patch.yaml'}, ")


def test_the_summary_and_the_json_name_the_same_files(
    fitted: tuple[Path, dict[str, Any], str],
) -> None:
    """A scenario's fit writes the four files of docs/calibrate.md; the JSON's ``files`` and
    the summary's last line name each, the summary in the order patch, scenario, trials, plot."""
    folder, result, text = fitted
    names = {
        "patch": "patch.yaml",
        "scenario": "calibrated.yaml",
        "trials": "trials.jsonl",
        "plot": "search.png",
    }
    assert result["files"] == {kind: str(folder / "j" / name) for kind, name in names.items()}
    assert all(Path(path).is_file() for path in result["files"].values())
    shown = ", ".join(str(folder / "t" / name) for name in names.values())
    assert text.splitlines()[-1] == f"Results: {shown}"


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"targets": [{"measure": "unit.zuikaku.sunk", "range": [0.7, 1]}]},
         "targets.0.measure: 'unit.zuikaku.sunk': no unit 'zuikaku' in the scenario"),
        ({"targets": [{"measure": "unit.shoho.snuk", "range": [0.7, 1]}]},  # not a silent 0
         "targets.0.measure: 'unit.shoho.snuk': no status 'snuk' (the ruleset's: crippled, "
         "sunk, planned, spotted, cancelled, airborne, destroyed, ditched, recovered; or "
         "strength, lost); did you mean 'sunk'?"),
        ({"targets": [{"measure": "losses.allied.men", "value": 1}]},
         "targets.0.measure: 'losses.allied.men': side 'allied' has no loss 'men'"),
        ({"targets": [{"measure": "win.allied", "value": 2}]},
         "targets.0: win.allied is a rate: its target must lie in [0, 1]"),
        ({"factors": [{"path": "options.table_anti_aircraft", "range": [5, 6], "type": "int"}]},
         "factors.0.range: the scenario's value 4 is outside [5, 6]"),
        ({"factors": [{"path": "options.table_anti_aircaft", "range": [1, 6]}]},
         "factors.0.path: no field 'table_anti_aircaft' in options"),
        ({"trials": 0}, "trials: 0 is less than 1, the least it may be"),
        ({"factors": [{"path": "options.table_anti_aircraft", "values": [[4], 5]}]},
         "factors.0.values: a calibration's values are numbers, text, true/false or null"),
        ({"startup_trials": 9}, "startup_trials: 9 random trials is more than the 5 trials"),
        ({"targets": [{"measure": "unit.shoho.sunk", "range": [0.7, 1], "scale": math.inf}]},
         "targets.0.scale: .inf is not a finite number"),
        ({"targets": [{"measure": "unit.shoho.sunk", "range": [0.7, 1], "scale": 1e-300}]},
         "targets.0.scale: 1.0e-300 is less than 1e-06, the least it may be"),
        ({"targets": [{"measure": "unit.shoho.sunk", "range": [0.7, 1], "scale": math.nan}]},
         "targets.0.scale: .nan is not a finite number"),
        ({"targets": [{"measure": "losses.allied.air_factors", "value": 1e300}]},
         "targets.0: the historical value must be a number within ±1e+12"),
        ({"targets": [{"measure": "unit.shoho.sunk", "range": [0.7, 1], "weight": math.inf}]},
         "targets.0.weight: .inf is not a finite number"),
        ({"factors": [{"path": "options.cripple_fraction", "range": [0, math.inf]}]},
         "factors.0.range.1: .inf is not a finite number"),
        ({"factors": [{"path": "options.cripple_fraction", "range": [0, 1e300]}]},
         "factors.0.range: a range's ends must be numbers within ±1e+12"),
        # one field by its id and by its index: the second set over the first
        ({"factors": [{"path": "options.table_anti_aircraft", "values": [4, 3]},
                      {"path": "sides.japan.task_forces.mo_main.ships.shoho.damage",
                       "values": [4, 5]},
                      {"path": "sides.1.task_forces.0.ships.0.damage", "values": [4, 6]}]},
         "factors.2.path: a factor named twice, as "
         "sides.japan.task_forces.mo_main.ships.shoho.damage too"),
        # a renamed side meets any target on its old id (the best point was the renamed one)
        ({"factors": [{"path": "sides.japan.id", "values": ["japan", "nippon"]}]},
         "factors.0.path: a calibration compares the same sides and units at every point, "
         "read by their ids: a factor cannot change an id (or the ruleset)"),
        # every trial fights the calibration's own seeds: the scenario's is read by none
        ({"factors": [{"path": "seed", "values": [1, 2]}]},
         "factors.0.path: a calibration fights each run with a seed of its own, derived from "
         "its own seed, so the scenario's seed changes no run"),
        # the grid would fight a point twice (it was: trials 1 and 2 both at 3)
        ({"factors": [{"path": "options.table_anti_aircraft", "values": [4, 3, 3.0]}]},
         "factors.0.values.2: the value 3.0 is named twice"),
        ({"factors": [{"path": "options.table_anti_aircraft", "values": [4, 3]},
                      {"path": "options.table_anti_aircraft", "values": [4, 2]}]},
         "factors.1.path: a factor named twice"),
        # the file is a calibration's, not a study's (it said "the study file's folder")
        ({"outputs": {"dir": "../elsewhere"}},
         "outputs.dir: '../elsewhere' leaves the calibration file's folder"),
        ({"outputs": {"dir": "/tmp/elsewhere"}},
         "outputs.dir: '/tmp/elsewhere' is absolute: name a folder relative to the "
         "calibration file"),
    ],
)  # fmt: skip
def test_bad_input_is_one_line_naming_the_file_and_field(
    tmp_path: Path, changes: dict[str, Any], message: str
) -> None:
    """A calibration file's error: exit 2, one line, file:line: field: message."""
    path = small(tmp_path, **changes)
    result = invoke("calibrate", path, "-o", tmp_path / "out")
    assert result.exit_code == 2
    [line] = result.stderr.splitlines()
    assert line.startswith(f"{path}:") and message in line, line
    assert not (tmp_path / "out").exists()
    again = invoke("calibrate", path, "-o", tmp_path / "out", "--resume")  # refused as well
    assert again.exit_code == 2
    assert again.stderr.splitlines() == [line]


_ROUNDS = """\
name: fit
scenario: {scenario}
seed: 1942
replications: 10
trials: {trials}
startup_trials: 8
factors:
  - path: sides.japan.task_forces.mo_main.ships.shoho.damag
    range: [3, 6]
    type: int
  - path: options.cripple_fraction
    range: [0.3, 1.5]
  - path: options.table_anti_aircraft
    range: [6, 3]
    type: int
  - {{path: options.table_anti_aircaft, values: [1, 2]}}
targets:
  - measure: unit.shoho.snuk
    range: [0.9, 1.0]
  - {{measure: losses.alied.air_factors, range: [0, 1], weight: 0}}
outputs:
  dir: ../elsewhere
"""
_SAID = [
    "8: factors.0.path: no field 'damag' in sides.japan.task_forces.mo_main.ships.shoho; did "
    "you mean 'sides.japan.task_forces.mo_main.ships.shoho.damage'?",
    "12: factors.1.range: options.cripple_fraction near 1.5 is refused (invalid scenario: "
    "options.cripple_fraction: 1.4999988 is more than 1, the most it may be): every trial "
    "there would fail; keep the factor to values the scenario accepts",
    "14: factors.2.range: low 6 must be below high 3",
    "16: factors.3.path: no field 'table_anti_aircaft' in options; did you mean "
    "'options.table_anti_aircraft'?",
    "18: targets.0.measure: 'unit.shoho.snuk': no status 'snuk' (the ruleset's: crippled, "
    "sunk, planned, spotted, cancelled, airborne, destroyed, ditched, recovered; or strength, "
    "lost); did you mean 'sunk'?",
    "20: targets.1.weight: 0 is not more than 0, as it must be",
    "20: targets.1.measure: no side 'alied' (the sides are allied, japan); did you mean 'allied'?",
    "22: outputs.dir: '../elsewhere' leaves the calibration file's folder '{folder}'",
]


@pytest.mark.parametrize(
    ("trials", "first"),
    [
        (5, "6: startup_trials: 8 random trials is more than the 5 trials"),
        # trials refused: nothing said that reads it (the random trials are not more)
        (0, "5: trials: 0 is less than 1, the least it may be"),
    ],
)
def test_every_problem_of_a_calibration_file_is_said_in_one_pass_by_line(
    tmp_path: Path, trials: int, first: str
) -> None:
    """The schema's problems, the random trials, the factors' paths and the values they
    reach, the targets' measures (of one the schema refused for its weight too) and the
    output folder are said at once, in the file's order: the schema's came first and
    alone, then the random trials alone, then the paths, then the measures, then the
    values; the factor and the target the schema refused are named at their own places."""
    path = tmp_path / "fit.yaml"
    path.write_text(_ROUNDS.format(scenario=SCENARIOS / "coral_sea.yaml", trials=trials))
    result = invoke("calibrate", path, "-o", tmp_path / "out")
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr.splitlines() == [
        f"{path}:{said}".replace("{folder}", str(tmp_path)) for said in [first, *_SAID]
    ]
    assert not (tmp_path / "out").exists()


def test_a_newline_in_the_file_name_cannot_inject_a_key(tmp_path: Path) -> None:
    """patch.yaml's comment names the calibration file on one line (engine.safety.text.one_line):
    a file named "fit\\ninjected: 1.yaml" leaves patch.yaml with the factors' keys only."""
    path = small(tmp_path, trials=1, startup_trials=1, replications=2)
    named = path.rename(tmp_path / "fit\ninjected: 1.yaml")
    result = invoke("calibrate", named, "-o", tmp_path / "out", "--jobs", "1", "-q")
    assert result.exit_code == 0, result.output
    text = (tmp_path / "out" / "patch.yaml").read_text(encoding="utf-8")
    assert sorted(yaml.safe_load(text)) == sorted(
        f["path"] for f in yaml.safe_load(named.read_text(encoding="utf-8"))["factors"]
    )
    assert "fit\\ninjected: 1.yaml" in text.splitlines()[0]
    scenario = (tmp_path / "out" / "calibrated.yaml").read_text(encoding="utf-8")
    assert "injected" not in yaml.safe_load(scenario)


def test_a_field_the_scenario_leaves_unset_is_named_with_what_to_do(tmp_path: Path) -> None:
    """Aoba's damage is not in coral_sea.yaml (the heavy cruiser's value applies): one line at
    the factor's path says it is unset and to set it, not "the value None is not a number"."""
    path = small(
        tmp_path,
        factors=[
            {"path": "sides.japan.task_forces.mo_main.ships.aoba.damage", "range": [3, 6],
             "type": "int"},
        ],
    )  # fmt: skip
    result = invoke("calibrate", path, "-o", tmp_path / "out", "--jobs", "1", "-q")
    assert result.exit_code == 2
    assert result.stderr.splitlines() == [
        f"{path}:{_line_of(path, 'aoba.damage')}: factors.0.path: the scenario's value there "
        "is null (unset: the rules give it a value, or switch it off); the search starts from "
        "its value: set one in the scenario"
    ]
    assert not (tmp_path / "out").exists()


def test_a_scenario_saved_with_a_byte_order_mark_calibrates_to_a_file_that_runs(
    tmp_path: Path,
) -> None:
    """coral_sea.yaml saved with a UTF-8 byte-order mark (as some editors write it): the
    calibrated text keeps its comments and loads; the mark, which the header would have put
    mid-file, is left out (calibrated.yaml failed: "\ufeff# yaml-language-server: unknown
    field")."""
    marked = tmp_path / "coral_sea.yaml"
    marked.write_text("\ufeff" + (SCENARIOS / "coral_sea.yaml").read_text(encoding="utf-8"))
    path = small(tmp_path, scenario=str(marked), trials=1, startup_trials=1, replications=2)
    result = invoke("calibrate", path, "-o", tmp_path / "out", "--jobs", "1", "-q")
    assert result.exit_code == 0, result.output
    written = (tmp_path / "out" / "calibrated.yaml").read_text(encoding="utf-8")
    assert "\ufeff" not in written and "# Coral Sea, 7 May 1942" in written
    load_scenario(tmp_path / "out" / "calibrated.yaml")


def _line_of(path: Path, text: str) -> int:
    return next(
        i for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1) if text in line
    )


def test_more_random_trials_than_the_one_trial_says_1_trial(tmp_path: Path) -> None:
    """trials: 1, startup_trials: 2: "… is more than the 1 trial" (it said "1 trials")."""
    path = small(tmp_path, trials=1, startup_trials=2)
    result = invoke("calibrate", path, "-o", tmp_path / "out")
    assert result.exit_code == 2
    [line] = result.stderr.splitlines()
    assert line.startswith(f"{path}:")
    assert line.endswith(": startup_trials: 2 random trials is more than the 1 trial"), line


def test_a_folder_holding_other_files_is_refused(tmp_path: Path) -> None:
    """-o naming a folder with files no calibration made: exit 2, one line, nothing written."""
    path = small(tmp_path)
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "notes.txt").write_text("mine\n", encoding="utf-8")
    result = invoke("calibrate", path, "-o", tmp_path / "out", "--jobs", "1")
    assert result.exit_code == 2
    assert result.stderr.splitlines() == [
        f"battlesim: error: {str(tmp_path / 'out')!r} holds files that no calibration made: "
        "name a new or empty folder"
    ]
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["notes.txt"]


@pytest.mark.parametrize(
    ("damage", "message"),
    [
        (lambda b: b"\xff\xfe" + b, "trials.jsonl: not a calibration's trials ('utf-8' codec"),
        (lambda b: b.replace(b'"objective":', b'"objective":"abc","x":', 1),
         "trials.jsonl:1: not a trial record ('abc' is not a finite number)"),
        (lambda b: b.replace(b'"runs":', b'"runs":true,"x":', 1),
         "trials.jsonl:1: not a trial record (True is not a whole number)"),
    ],
)  # fmt: skip
def test_damaged_trials_on_resume_are_one_line_naming_the_file(
    tmp_path: Path, damage: Any, message: str
) -> None:
    """trials.jsonl damaged between runs: --resume says which file and line, exit 2 (bytes
    that are not UTF-8 and an objective that is text were tracebacks-in-a-line naming none)."""
    path = small(tmp_path, trials=1, startup_trials=1, replications=2)
    out = tmp_path / "out"
    assert invoke("calibrate", path, "-o", out, "--jobs", "1", "-q").exit_code == 0
    trials = out / "trials.jsonl"
    trials.write_bytes(damage(trials.read_bytes()))
    result = invoke("calibrate", path, "-o", out, "--jobs", "1", "-q", "--resume")
    assert result.exit_code == 2
    [line] = result.stderr.splitlines()
    assert line.startswith(f"battlesim: error: {trials}") and message in line, line


@pytest.mark.parametrize("name", ["trials.jsonl", "calibration.json"])
def test_a_fifo_in_place_of_a_calibrations_file_is_refused_not_waited_on(
    tmp_path: Path, name: str
) -> None:
    """--resume reads its trials and settings as regular files only: a FIFO there blocked
    it for ever; it is one line naming the file, exit 2."""
    import os

    path = small(tmp_path, trials=1, startup_trials=1, replications=2)
    out = tmp_path / "out"
    assert invoke("calibrate", path, "-o", out, "--jobs", "1", "-q").exit_code == 0
    (out / name).unlink()
    os.mkfifo(out / name)
    result = invoke("calibrate", path, "-o", out, "--jobs", "1", "-q", "--resume")
    assert result.exit_code == 2
    [line] = result.stderr.splitlines()
    assert line.startswith(f"battlesim: error: {out / name}") and "not a regular file" in line


@pytest.mark.parametrize(
    ("forge", "message"),
    [
        (lambda t: {**t, "objective": -1.0}, "its objective -1.0 is not what its estimates give"),
        (lambda t: {**t, "estimates": [{**e, "n": 5000} for e in t["estimates"]]},
         "estimates over more runs than the trial's 2"),
        # printed as "Best: trial 9" and re-fought as trial 9, beside "trial 0: …" of itself
        (lambda t: {**t, "trial": 9}, "trial 9 where trial 0 was stored"),
    ],
)  # fmt: skip
def test_a_stored_trial_whose_figures_do_not_agree_is_refused_on_resume(
    tmp_path: Path, forge: Any, message: str
) -> None:
    """--resume took a stored trial's objective as given: an objective of -1 made a trial
    the best, and its patch was written; estimates over 5,000 runs of a 2-run trial were
    reported as met. Each stored objective is computed again from its estimates."""
    path = small(tmp_path, trials=1, startup_trials=1, replications=2)
    out = tmp_path / "out"
    assert invoke("calibrate", path, "-o", out, "--jobs", "1", "-q").exit_code == 0
    trials = out / "trials.jsonl"
    [record] = [json.loads(line) for line in trials.read_text().splitlines()]
    trials.write_text(json.dumps(forge(record)) + "\n")
    result = invoke("calibrate", path, "-o", out, "--jobs", "1", "-q", "--resume")
    assert result.exit_code == 2
    [line] = result.stderr.splitlines()
    assert line == f"battlesim: error: {trials}:1: not a trial record ({message})"


def test_a_campaigns_calibrated_file_is_a_campaign_battlesim_fights(tmp_path: Path) -> None:
    """A campaign's fit writes calibrated.yaml as a campaign file naming each battle's
    calibrated scenario beside it (it held the study form, every scenario inlined, which
    `battlesim campaign` and `batch` refused): read back, it is the campaign at the best
    point, battle for battle, and `battlesim campaign` fights it. Each file is its own
    text after the header, every comment kept (they were dumped from the data, every
    comment lost): the campaign's with the battles' files named, stone_wall.yaml's with
    the fire value added, chancellorsville.yaml's as it is (its schema line pointed at
    its file from the output folder)."""
    campaign = SCENARIOS / "fredericksburg_campaign.yaml"
    path = tmp_path / "camp.yaml"
    path.write_text(
        yaml.safe_dump(
            {
                "name": "campaign fit",
                "campaign": str(campaign),
                "seed": 3,
                "replications": 2,
                "trials": 2,
                "factors": [
                    {"path": "battles.0.scenario.options.fire_hcv", "values": [25.0, 40.0]}
                ],
                "targets": [{"measure": "losses.usa.men", "range": [0, 1]}],
                "outputs": {"plots": False},
            },
            sort_keys=False,
        ),
        encoding="utf-8",
    )
    out = tmp_path / "o"
    result = invoke("calibrate", path, "-o", out, "--jobs", "1", "-q", "--json", "--refight", "0")
    assert result.exit_code == 0, result.output
    best = json.loads(result.stdout)["best"]["params"]
    written = load_campaign(out / "calibrated.yaml").model_dump(mode="json")
    wanted = load_target(campaign).at(best)
    for battle in wanted["battles"]:
        battle["source"] = f"calibrated-{battle['id']}.yaml"
    assert written == wanted
    fought = invoke("campaign", out / "calibrated.yaml", "--seed", "1", "-o", tmp_path / "c")
    assert fought.exit_code == 0, fought.output
    trial = json.loads(result.stdout)["best"]["trial"]
    fire = best["battles.0.scenario.options.fire_hcv"]
    head = (
        f"# fredericksburg_campaign.yaml with the best point of battlesim calibrate camp.yaml "
        f"(trial {trial}) set:\n#   battles.0.scenario.options.fire_hcv = {fire:g}\n"
    )
    own = campaign.read_text(encoding="utf-8")
    assert (out / "calibrated.yaml").read_text(encoding="utf-8") == head + own.replace(
        "scenario: stone_wall.yaml", "scenario: calibrated-fredericksburg.yaml"
    ).replace("scenario: chancellorsville.yaml", "scenario: calibrated-chancellorsville.yaml")
    schema = os.path.relpath((SCENARIOS.parent / "docs" / "scenario.schema.json").resolve(),
                             out.resolve())  # fmt: skip
    for battle, source, added in (
        ("fredericksburg", "stone_wall.yaml", f"options: {{fire_hcv: {fire!r}}}\n"),
        ("chancellorsville", "chancellorsville.yaml", ""),
    ):
        where = f"# battle {battle} of the calibrated campaign (calibrated.yaml), from {source}:\n"
        text = (SCENARIOS / source).read_text(encoding="utf-8")
        text = text.replace("$schema=../docs/scenario.schema.json", f"$schema={schema}")
        written = (out / f"calibrated-{battle}.yaml").read_text(encoding="utf-8")
        assert written == head + where + text + added


def test_an_editors_schema_line_is_pointed_at_its_file_from_the_output_folder(
    tmp_path: Path,
) -> None:
    """calibrated.yaml is written elsewhere than its scenario: a relative schema path is
    written as seen from there (it named ../docs/… from the output folder, which resolves
    only by chance); a URL is left as it is."""
    from sim.calibrate.calibrated import _schema_from

    was, out = tmp_path / "repo" / "scenarios", tmp_path / "fits" / "a"
    line = "# yaml-language-server: $schema="
    assert _schema_from(f"{line}../docs/s.json\nname: x\n", was, out) == (
        f"{line}../../repo/docs/s.json\nname: x\n"
    )
    url = f"{line}https://example.org/s.json\n"
    assert _schema_from(url, was, out) == url


def test_a_target_in_the_thousands_reads_with_thousands_separators(tmp_path: Path) -> None:
    """Men lost as a target: its range, estimate and interval read ``900 … 1,515`` and
    ``989.000 [286.450, 1,691.550]``, as ``history`` and ``run`` write men, not
    ``900 … 1515`` and ``1691.550``."""
    data = {
        "scenario": str(SCENARIOS / "fort_wagner.yaml"),
        "seed": 718,
        "replications": 3,
        "trials": 1,
        "factors": [{"path": "map.terrain.0.cover", "range": [-50, -20], "type": "int"}],
        "targets": [{"measure": "losses.usa.men", "range": [900, 1515]}],
        "outputs": {"plots": False},
    }
    path = tmp_path / "men.yaml"
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    result = invoke("calibrate", path, "-o", tmp_path / "out", "--jobs", "1", "-q")
    assert result.exit_code == 0, result.output
    row = next(line for line in result.stdout.splitlines() if "losses.usa.men" in line)
    assert row.split()[1:19] == [
        "history", "—", "accepted", "900", "…", "1,515", "start", "989.000", "[286.450,",
        "1,691.550]",
        "best", "989.000", "[286.450,", "1,691.550]", "fresh", "1,189.333", "[917.921,",
        "1,460.746]",
    ]  # fmt: skip


@pytest.mark.parametrize(
    ("name", "said"),
    [
        ("win.alied", "no side 'alied' (the sides are allied, japan); did you mean 'allied'?"),
        (
            "losses.alied.air_factors",
            "no side 'alied' (the sides are allied, japan); did you mean 'allied'?",
        ),
        (
            "losses.allied.air_factor",
            "'losses.allied.air_factor': side 'allied' has no loss 'air_factor' (it has "
            "ships, air_factors); did you mean 'air_factors'?",
        ),
        (
            "unit.yorktwn.lost",
            "'unit.yorktwn.lost': no unit 'yorktwn' in the scenario; did you mean 'yorktown'?",
        ),
        ("win.xyz", "no side 'xyz' (the sides are allied, japan)"),
    ],
)
def test_a_misspelt_side_loss_or_unit_of_a_measure_is_refused_with_the_one_meant(
    name: str, said: str
) -> None:
    """A target's measure one letter off names what was meant, as the scenario loader and the
    history suite do (``did you mean 'allied'?``), after the names it could be; with nothing
    close, the names alone."""
    from sim.calibrate.measures import MeasureError

    sides = {"allied": ["ships", "air_factors"], "japan": ["ships", "air_factors"]}
    with pytest.raises(MeasureError) as caught:
        parse_measure(name, sides, ["yorktown", "shoho"])
    assert str(caught.value) == said
