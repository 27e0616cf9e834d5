"""``battlesim history`` on small suites: exit codes, JSON, plot, outputs, bad input."""

from __future__ import annotations

import json
import os
from pathlib import Path
from types import SimpleNamespace

import pytest

from sim import api
from sim.batch.inputs.seeds import run_seed
from sim.history.render import runs_text
from tests.batch.helpers import SCENARIOS, invoke

CASE = """\
format: 1
id: {id}
title: A small case
scenario: {scenario}
seed: 7
runs: 4
measures:
  - id: holds
    label: P(the Confederates hold)
    kind: win
    side: csa
    historical: 1
    accept: {{min: {least}}}
    source: A test.
"""


def suite(tmp_path: Path, least: float = 0.0, case_id: str = "small") -> Path:
    folder = tmp_path / "suite"
    folder.mkdir(exist_ok=True)
    text = CASE.format(id=case_id, scenario=SCENARIOS / "stone_wall.yaml", least=least)
    (folder / f"{case_id}.yaml").write_text(text)
    return folder


def test_a_passing_suite_exits_0_and_prints_its_table(tmp_path: Path) -> None:
    """Every measure in range: exit 0, the table names the case and the tally."""
    result = invoke("history", "--suite", suite(tmp_path), "-q")
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0] == "Fitting set: the cases rule defaults may be chosen on"
    assert lines[2] == "small: A small case"
    assert lines[3] == "  stone_wall.yaml, seed 7, runs 0–3"
    # ... result, the record's p (every run holds, as the record: 1), the source
    assert "P(the Confederates hold)" in lines[5] and lines[5].split()[-3:] == ["pass", "1", "[1]"]
    assert lines[-2:] == [
        "fitting: 1 of 1 measure passes (0 FAIL, 0 inconclusive); 1 of 1 case passes.",
        "held out: no cases.",
    ]
    only = invoke("history", "--suite", suite(tmp_path), "-q", "--split", "fitting")
    assert only.stdout.splitlines()[-1].startswith("fitting: 1 of 1 measure passes")


def test_a_case_of_one_run_and_one_measure_is_counted_as_one(tmp_path: Path) -> None:
    """runs: 1 and --max-runs 1: the tally, the bound and the cap count one measure, one
    look, one case and one run as one (they said "1 measures", "1 looks", "up to 1 runs")."""
    folder = suite(tmp_path)
    case = folder / "small.yaml"
    case.write_text(case.read_text().replace("runs: 4", "runs: 1"))
    result = invoke("history", "--suite", folder, "--max-runs", "1")
    assert result.exit_code == 0, result.output
    assert result.stderr.splitlines()[0] == "[1/1] small: 1 run"
    verdicts, chance, beyond, fitting, held_out = result.stdout.splitlines()[-5:]
    assert verdicts.endswith("is fought again with twice the runs, up to 1 run.")
    assert chance.startswith(
        "By chance alone, if every true value met its range: nominally 0.03 of the 1 measure "
        "would FAIL with each true value on an edge of its range, 0.03 with it anywhere within "
        "(2.5 % a look on each side, summed over 1 look: "
    )
    assert "): fitting 0 of 1 measure; were each record one more run" in beyond
    assert fitting == "fitting: 1 of 1 measure passes (0 FAIL, 0 inconclusive); 1 of 1 case passes."
    assert held_out == "held out: no cases."


def test_a_cap_below_a_cases_own_runs_says_the_case_is_fought_at_its_own(tmp_path: Path) -> None:
    """--max-runs 2 under a case of 4 runs: the case is fought once at its 4 (runs 0–3), and
    the verdicts line says so after the cap (it said only "up to 2 runs")."""
    result = invoke("history", "--suite", suite(tmp_path), "--max-runs", "2", "-q")
    assert result.exit_code == 0, result.output
    assert "  stone_wall.yaml, seed 7, runs 0–3" in result.stdout.splitlines()
    verdicts = result.stdout.splitlines()[-5]
    assert verdicts.endswith(
        "twice the runs, up to 2 runs (a case whose own runs are more is fought once, at its own)."
    )
    assert (
        invoke("history", "--suite", suite(tmp_path), "--max-runs", "4", "-q")
        .stdout.splitlines()[-5]
        .endswith("twice the runs, up to 4 runs.")
    )


def test_run_counts_of_a_thousand_or_more_carry_thousands_separators(tmp_path: Path) -> None:
    """The cap on the verdicts line, the case's runs and its doublings (``runs 0–1,599 (200,
    400, 800: …)``, ``up to 1,600 runs``), as the README and a study write them (they said
    ``runs 0–1599``, ``up to 1600 runs``)."""
    result = invoke("history", "--suite", suite(tmp_path), "--max-runs", "1600", "-q")
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[-5].endswith("twice the runs, up to 1,600 runs.")
    spec = SimpleNamespace(seed=508, runs=200)

    def fought(*looks: int) -> str:
        return runs_text(
            SimpleNamespace(case=SimpleNamespace(spec=spec), runs=looks[-1], looks=looks)
        )

    assert fought(200, 400, 800, 1600) == (
        "seed 508, runs 0–1,599 (200, 400, 800: inconclusive, doubled)"
    )
    assert fought(200, 400, 800, 1600, 2500) == (
        "seed 508, runs 0–2,499 (200, 400, 800, 1,600: inconclusive, more runs to the cap of 2,500)"
    )
    assert fought(200) == "seed 508, runs 0–199"


def test_a_failing_case_exits_1(tmp_path: Path) -> None:
    """A measure outside its range fails its case, and the command exits 1."""
    result = invoke("history", "--suite", suite(tmp_path, least=2), "--json")
    assert result.exit_code == 1
    data = json.loads(result.stdout)
    assert data["passed"] is False
    (case,) = data["cases"]
    (m,) = case["measures"]
    assert (case["id"], m["id"], m["method"], m["runs"]) == ("small", "holds", "Wilson 95 %", 4)
    assert m["accept"] == {"min": 2.0, "max": None}
    assert m["passed"] is False
    assert m["low"] <= m["value"] <= m["high"]


def test_results_do_not_depend_on_the_worker_count(tmp_path: Path) -> None:
    """The same seeds in the same order: one worker or two give the same bytes."""
    folder = suite(tmp_path)
    one = invoke("history", "--suite", folder, "--json", "--jobs", "1")
    two = invoke("history", "--suite", folder, "--json", "--jobs", "2")
    assert one.exit_code == two.exit_code == 0
    assert one.stdout == two.stdout


def test_plot_and_out_folder(tmp_path: Path) -> None:
    """--plot draws a PNG; -o writes the table, the JSON and the plot, and keeps them
    from being overwritten without --force."""
    folder = suite(tmp_path)
    png = tmp_path / "h.png"
    assert invoke("history", "--suite", folder, "--plot", png, "-q").exit_code == 0
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    out = tmp_path / "out"
    first = invoke("history", "--suite", folder, "-o", out, "-q")
    assert first.exit_code == 0
    assert sorted(p.name for p in out.iterdir()) == ["history.json", "history.png", "history.txt"]
    assert (out / "history.txt").read_text().splitlines()[2] == "small: A small case"
    again = invoke("history", "--suite", folder, "-o", out, "-q")
    assert again.exit_code == 2
    assert "add --force" in again.output
    assert invoke("history", "--suite", folder, "-o", out, "-q", "--force").exit_code == 0


def test_a_plot_in_the_out_folder_not_made_yet_is_written_there(tmp_path: Path) -> None:
    """``-o out --plot out/fig.png``: the command makes the folder, so a plot named in it is
    not refused as being in a folder that does not exist (it was, exit 2); it is written
    there beside the table and the JSON (and no history.png), and kept from being
    overwritten without --force as before."""
    folder = suite(tmp_path)
    out = tmp_path / "out"
    first = invoke("history", "--suite", folder, "-o", out, "--plot", out / "fig.png", "-q")
    assert first.exit_code == 0, first.output
    assert sorted(p.name for p in out.iterdir()) == ["fig.png", "history.json", "history.txt"]
    assert (out / "fig.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    again = invoke("history", "--suite", folder, "-o", out, "--plot", out / "fig.png", "-q")
    assert again.exit_code == 2
    assert f"--plot {out / 'fig.png'}: the file already exists; add --force" in again.output
    elsewhere = invoke("history", "--suite", folder, "--plot", tmp_path / "no" / "f.png", "-q")
    assert elsewhere.exit_code == 2
    assert f"folder '{tmp_path / 'no'}' does not exist" in elsewhere.output


def test_an_unknown_case_is_bad_input(tmp_path: Path) -> None:
    """--case names a case that is not there: exit 2 with a suggestion."""
    result = invoke("history", "--suite", suite(tmp_path), "--case", "smal")
    assert result.exit_code == 2
    assert "--case smal: no such case; did you mean 'small'?" in result.output


OUTCOME_LOSS = """\
  - id: lost
    label: Union men lost
    kind: outcome_loss
    side: usa
    loss: {loss}
    historical: 0
    accept: {{max: 100000}}
    source: A test.
"""


def test_outcome_loss_is_the_mean_of_the_runs_outcome_losses(tmp_path: Path) -> None:
    """Run r of a case fights with run_seed(seed, 0, r); the estimate is the mean of what each
    run's outcome lists as the side's loss, redone here one battle at a time."""
    folder = suite(tmp_path)
    path = folder / "small.yaml"
    outcome = api.run(SCENARIOS / "stone_wall.yaml", seed=1, out=tmp_path / "one.jsonl").outcome
    name = next(iter(outcome.losses()["usa"]))
    path.write_text(path.read_text() + OUTCOME_LOSS.format(loss=name))
    result = invoke("history", "--suite", folder, "--json")
    assert result.exit_code == 0, result.output
    (case,) = json.loads(result.stdout)["cases"]
    lost = next(m for m in case["measures"] if m["id"] == "lost")
    each = [
        api.run(
            SCENARIOS / "stone_wall.yaml", seed=run_seed(7, 0, r), out=tmp_path / f"{r}.jsonl"
        ).outcome.losses()["usa"][name]
        for r in range(4)
    ]
    assert (lost["method"], lost["value"]) == ("Student t 95 %", pytest.approx(sum(each) / 4))


def test_an_outcome_loss_the_outcome_does_not_list_is_located(tmp_path: Path) -> None:
    """A misspelt loss is an error when the case is read, not a silent 0 in every run."""
    folder = suite(tmp_path)
    path = folder / "small.yaml"
    path.write_text(path.read_text() + OUTCOME_LOSS.format(loss="mne"))
    result = invoke("history", "--suite", folder)
    assert result.exit_code == 2
    assert f"{path}:19: measures.1.loss: the outcome lists no loss 'mne' for 'usa' (guns, men)" in (
        result.output
    )


FINITE = "is not a finite number"
LOSS_FROM = (
    "kind: loss_from\n    unit: men\n    by_kind: {by_kind}\n    event: musket.fired\n"
    "    amount: {amount}"
)


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (("runs: 4", "runs: 0"), ":6: runs: 0 is less than 1, the least it may be"),
        (("kind: win", "kind: wins"), ":10: measures.0.kind: 'wins' is not one of 'win', "),
        (("    side: csa\n", ""), ":8: measures.0: kind win needs side"),
        (("id: small", "id: other"), ":2: id: the case 'other' belongs in other.yaml"),
        # a name the battle does not hold: an error, not a silent 0 in every run (which can pass)
        (("side: csa", "side: csx"), ":11: measures.0.side: no side 'csx'; did you mean 'csa'?"),
        (("side: csa", "side: xyz"), ":11: measures.0.side: no side 'xyz' (csa, usa)"),
        (
            ("kind: win\n    side: csa", "kind: status\n    unit: 69nx\n    word: routed"),
            ":11: measures.0.unit: no unit '69nx' (",
        ),
        (
            ("kind: win\n    side: csa", "kind: status\n    unit: 69ny\n    word: routd"),
            ":12: measures.0.word: no status word 'routd' (disrupted, eliminated, left the "
            "field, routed, spent)",
        ),
        (
            ("kind: win", "kind: loss\n    unit: mne"),
            ":11: measures.0.unit: side 'csa' counts strength in guns, men, not 'mne'",
        ),
        (
            ("kind: win", "kind: loss\n    unit: men\n    kinds: [infantri]"),
            ":12: measures.0.kinds: no unit kind 'infantri' (artillery, infantry)",
        ),
        # an event type or a field path an event measure reads (D1, D2 of a review)
        (
            ("kind: win", "kind: events\n    event: musket.melee"),
            ":11: measures.0.event: no event type 'musket.melee' (",
        ),
        (
            ("kind: win", "kind: events\n    event: musket.meleed\n    where: {phaze: melee}"),
            ":12: measures.0.where: no field 'phaze' in musket.meleed events",
        ),
        (
            ("kind: win", "kind: events\n    event: musket.meleed\n    where: {turn: one}"),
            ":12: measures.0.where: 'turn' of musket.meleed events never holds 'one'",
        ),
        (
            ("kind: win", "kind: events\n    event: engine.turn_ended"),
            ":12: measures.0.side: no field 'unit' in engine.turn_ended events (name one "
            "with side_field)",
        ),
        (
            ("kind: win", "kind: events\n    event: musket.meleed\n    side_field: winer"),
            ":12: measures.0.side_field: no field 'winer' in musket.meleed events",
        ),
        (
            ("kind: win", LOSS_FROM.format(by_kind="infantri", amount="result.casualties")),
            ":12: measures.0.by_kind: no unit kind 'infantri' (artillery, infantry)",
        ),
        (
            ("kind: win", LOSS_FROM.format(by_kind="infantry", amount="result.casulties")),
            ":14: measures.0.amount: no field 'result.casulties' in musket.fired events",
        ),
        (
            ("kind: win", LOSS_FROM.format(by_kind="infantry", amount="phase")),
            ":14: measures.0.amount: 'phase' of musket.fired events is not a number",
        ),
        (
            ("kind: win", LOSS_FROM.format(by_kind="infantry", amount="result.draws.5.2")),
            ":14: measures.0.amount: 'result.draws.5.2' of musket.fired events is optional or an "
            "item of a list or mapping",
        ),
        (
            (
                "kind: win",
                LOSS_FROM.format(by_kind="infantry", amount="result.casualties")
                + "\n    actor: shooter",
            ),
            ":15: measures.0.actor: no field 'shooter' in musket.fired events",
        ),
        (
            (
                "kind: win",
                LOSS_FROM.format(by_kind="infantry", amount="range").replace(
                    "musket.fired", "musket.meleed"
                ),
            ),
            ":14: measures.0.amount: no field 'range' in musket.meleed events",
        ),
        (
            ("kind: win", "kind: win\n    battle: fredericksburg"),
            ":11: measures.0.battle: a lone scenario has no battle 'fredericksburg' to name",
        ),
        (
            ("kind: win", "kind: reaches\n    hexes: [[400, 4]]"),
            ":11: measures.0.hexes: hex [400, 4] is off the map",
        ),
        (
            ("historical: 1", "historical: .nan"),
            f":12: measures.0.historical: .nan {FINITE}",
        ),
        (
            ("historical: 1", "historical: -.inf"),
            f":12: measures.0.historical: -.inf {FINITE}",
        ),
        (
            ("{min: 0.0}", "{min: .nan}"),
            f":13: measures.0.accept.min: .nan {FINITE}",
        ),
        (
            ("{min: 0.0}", "{min: -.inf}"),
            f":13: measures.0.accept.min: -.inf {FINITE}",
        ),
        (
            ("{min: 0.0}", "{max: .Inf}"),
            f":13: measures.0.accept.max: .Inf {FINITE}",
        ),
        (
            ("kind: win", "kind: loss\n    unit: men\n    at_least: .nan"),
            f":12: measures.0.at_least: .nan {FINITE}",
        ),
        # within a calibration's ±1e12: 1e308 broke the plot and a fit of the case
        (
            ("historical: 1", "historical: -1.0e+308"),
            ":12: measures.0.historical: -1.0e+308 is less than -1000000000000, the least it "
            "may be",
        ),
        (
            ("{min: 0.0}", "{max: 1.0e+13}"),
            ":13: measures.0.accept.max: 1.0e+13 is more than 1000000000000, the most it may be",
        ),
        # a probability's record is 1 or 0: 7 would read as far beyond every run; refused
        # at the historical field's own line, not at the measure's first (line 8)
        (
            ("historical: 1", "historical: 7"),
            ":12: measures.0.historical: 7: a probability's record is 1 (it happened) or 0",
        ),
        (
            ("historical: 1", "historical: 0.5"),
            ":12: measures.0.historical: 0.5: a probability's record is 1 (it happened) or 0",
        ),
        (  # a threshold makes any kind a probability (at_least, before historical)
            (
                "kind: win\n    side: csa\n    historical: 1",
                "kind: loss\n    side: csa\n    unit: men\n    at_least: 0.5\n    historical: 0.4",
            ),
            ":14: measures.0.historical: 0.4: a probability's record is 1 (it happened) or 0",
        ),
        # a set value every run would refuse is refused when the case is read, on its line
        (
            ("seed: 7", "seed: 7\nset:\n  options.fire_hcv: -5"),
            ":7: set.options.fire_hcv: -5 is less than 0, the least it may be",
        ),
        (
            ("seed: 7", "seed: 7\nset:\n  options.fire_lcv: 40"),
            ":6: set: stone_wall.yaml: options.fire_hcv: fire_lcv 40 is above fire_hcv 25",
        ),
        # spaces are no source (nor a band's reason, which clears its ABOVE p90 flag)
        (("source: A test.", "source: '   '"), ":14: measures.0.source: only spaces: write it out"),
        # a second measure with the first's id: at its own line, not the file's second
        (
            (
                "    source: A test.\n",
                "    source: A test.\n  - id: holds\n    label: again\n"
                "    kind: win\n    side: usa\n    historical: 0\n    accept: {max: 1}\n"
                "    source: A test.\n",
            ),
            ":15: measures.1.id: measure id 'holds' is used twice",
        ),
        # an id or a field path of the wrong form: what the form is, not "has not the
        # expected form"
        (
            ("- id: holds", "- id: Holds"),
            ":8: measures.0.id: 'Holds' is not an id: use 1 to 40 lower-case letters, digits "
            "or '_'",
        ),
        (
            (
                "kind: win\n    side: csa",
                "kind: events\n    event: musket.fired\n    where: {to hit: 1}\n    at_least: 1",
            ),
            ":12: measures.0.where.to hit: 'to hit' is not a field path: 1 to 10 names of "
            "letters, digits or '_' joined by '.', e.g. 'result.casualties'",
        ),
        # a value that fits none of a union's types: one line at the field itself
        (
            (
                "kind: win\n    side: csa",
                "kind: units_below\n    side: csa\n    unit: men\n"
                "    share: [1, 2]\n    at_least: 1",
            ),
            ":13: measures.0.share: [1, 2] is not true or false, nor a number",
        ),
    ],
)
def test_a_bad_case_file_is_located(tmp_path: Path, edit: tuple[str, str], message: str) -> None:
    """Every problem in a case file is one located line and exit 2, never a traceback."""
    folder = suite(tmp_path)
    path = folder / "small.yaml"
    path.write_text(path.read_text().replace(*edit, 1))
    result = invoke("history", "--suite", folder)
    assert result.exit_code == 2
    assert f"{path}{message}" in result.output
    assert len(result.output.splitlines()) == 1, result.output


RATIO = """\
  - id: ratio
    label: Confederate over Union men lost
    kind: loss_ratio
    side: csa
    over: usaa
    unit: men
    historical: 1
    accept: {min: 0}
    source: A test.
"""


def test_a_misspelt_side_of_a_measure_is_refused_with_the_side_meant(tmp_path: Path) -> None:
    """A measure's side or over one letter off a side of the battle is refused at its line
    with the side it was meant to be, as the scenario loader says it (it listed the sides,
    'no side 'csaa' (csa, usa)', and left the reader to spot the typo)."""
    folder = suite(tmp_path)
    path = folder / "small.yaml"
    path.write_text(path.read_text().replace("side: csa", "side: csaa") + RATIO)
    result = invoke("history", "--suite", folder)
    assert (result.exit_code, result.stdout, result.stderr.splitlines()) == (
        2,
        "",
        [
            f"battlesim: error: {path}:11: measures.0.side: no side 'csaa'; did you mean 'csa'?",
            f"battlesim: error: {path}:19: measures.1.over: no side 'usaa'; did you mean 'usa'?",
        ],
    )


def test_every_problem_of_a_case_file_is_a_line_of_its_own(tmp_path: Path) -> None:
    """Two problems: two located lines, each whole (never joined by an escaped newline)."""
    folder = suite(tmp_path)
    path = folder / "small.yaml"
    path.write_text(path.read_text().replace("historical: 1", "historical: .nan", 1) + "  - x\n")
    path.write_text(path.read_text().replace("  - x\n", "").replace("{min: 0.0}", "{min: .nan}", 1))
    result = invoke("history", "--suite", folder)
    assert result.exit_code == 2
    assert result.output.splitlines() == [
        f"battlesim: error: {path}:12: measures.0.historical: .nan {FINITE}",
        f"battlesim: error: {path}:13: measures.0.accept.min: .nan {FINITE}",
    ]


@pytest.mark.parametrize("option", ["--plot", "--out"])
def test_an_output_that_cannot_be_written_is_refused_before_any_fighting(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, option: str
) -> None:
    """/proc takes no new file: refused at once, naming the option, nothing fought."""
    import sim.history

    def never(*_args: object) -> None:
        raise AssertionError("fought before the output was checked")

    monkeypatch.setattr(sim.history, "run_suite", never)
    where = "/proc/battlesim-history.png" if option == "--plot" else "/proc/battlesim-history"
    result = invoke("history", "--suite", suite(tmp_path), "-q", option, where)
    assert result.exit_code == 2
    assert result.output == (
        f"battlesim: error: {option} {where}: cannot write in '/proc': No such file or directory\n"
    )


def test_a_title_cannot_forge_a_line(tmp_path: Path) -> None:
    """A newline in a case's title, battle or a measure's label is printed as \\n
    (engine.safety.text.one_line, the escaping path every name takes), never as a line."""
    folder = suite(tmp_path)
    path = folder / "small.yaml"
    text = path.read_text().replace(
        "title: A small case", 'title: "A small case\\nfitting: 9 of 9 measures pass"'
    )
    path.write_text(text.replace("label: P(the Confederates hold)", 'label: "P(hold)\\nFAKE pass"'))
    result = invoke("history", "--suite", folder, "-q")
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert "small: A small case\\nfitting: 9 of 9 measures pass" in lines
    assert not [line for line in lines if line.startswith(("fitting: 9", "FAKE"))]
    assert any(line.startswith("  P(hold)\\nFAKE pass ") for line in lines)


def test_a_campaign_case_names_one_of_its_battles(tmp_path: Path) -> None:
    """A measure's ``battle`` is one of the campaign's battle ids; a misspelt one is located
    (it would read no battle, a silent 0 in every run)."""
    folder = tmp_path / "suite"
    folder.mkdir()
    text = CASE.format(id="camp", scenario="x", least=0.0).replace(
        "scenario: x", f"campaign: {SCENARIOS / 'fredericksburg_campaign.yaml'}"
    )
    path = folder / "camp.yaml"
    path.write_text(text.replace("kind: win", "kind: win\n    battle: chancellorsvile"))
    result = invoke("history", "--suite", folder)
    assert (result.exit_code, result.output) == (
        2,
        f"battlesim: error: {path}:11: measures.0.battle: no battle 'chancellorsvile' "
        "(chancellorsville, fredericksburg)\n",
    )
    path.write_text(text.replace("kind: win", "kind: win\n    battle: chancellorsville"))
    assert invoke("history", "--suite", folder, "-q").exit_code == 0


def test_a_campaigns_reinforcements_count_among_the_names_a_measure_may_give(
    tmp_path: Path,
) -> None:
    """Cavalry that joins only in the second battle is a unit kind of the case (a reviewer
    found it refused), and its id a unit; a kind no battle nor reinforcement has is not."""
    for name in ("stone_wall.yaml", "chancellorsville.yaml"):
        (tmp_path / name).write_text((SCENARIOS / name).read_text())
    (tmp_path / "camp.yaml").write_text(
        "campaign: T\nbattles:\n  - {id: fredericksburg, scenario: stone_wall.yaml}\n"
        "  - id: chancellorsville\n    scenario: chancellorsville.yaml\n    reinforcements:\n"
        "      usa:\n        - {id: 6pa, name: 6th Pennsylvania Cavalry, kind: cavalry,"
        " strength: 300, quality: C, weapon: carbine, at: [6, 2], order: {kind: hold}}\n"
    )
    folder = tmp_path / "suite"
    folder.mkdir()
    text = CASE.format(id="camp", scenario="x", least=0.0).replace(
        "scenario: x", f"campaign: {tmp_path / 'camp.yaml'}"
    )
    path = folder / "camp.yaml"
    measure = (
        "kind: loss\n    unit: men\n    kinds: [{kind}]\n    battle: chancellorsville\n"
        "    side: usa"
    )
    path.write_text(text.replace("kind: win\n    side: csa", measure.format(kind="cavalry")))
    assert invoke("history", "--suite", folder, "-q").exit_code == 0
    path.write_text(text.replace("kind: win\n    side: csa", measure.format(kind="hussars")))
    result = invoke("history", "--suite", folder)
    assert result.exit_code == 2
    assert "measures.0.kinds: no unit kind 'hussars' (artillery, cavalry, infantry)" in (
        result.output
    )


def test_an_output_that_is_not_a_regular_file_is_refused_before_any_fight(
    tmp_path: Path,
) -> None:
    """--plot /dev/null, or a FIFO where -o's history.json goes: one line and exit 2 before
    anything is fought or written (the writer refused them only after the fight, and -o's
    history.txt was written before its history.json failed)."""
    folder = suite(tmp_path)
    result = invoke("history", "--suite", folder, "-q", "--plot", "/dev/null")
    assert result.exit_code == 2
    assert result.output == (
        "battlesim: error: --plot /dev/null: '/dev/null' is not a regular file; "
        "battlesim writes only files\n"
    )
    out = tmp_path / "out"
    out.mkdir()
    os.mkfifo(out / "history.json")
    result = invoke("history", "--suite", folder, "-q", "-o", out)
    assert result.exit_code == 2
    assert "history.json' is not a regular file; battlesim writes only files" in result.output
    assert sorted(p.name for p in out.iterdir()) == ["history.json"]


def test_a_set_value_that_renames_a_side_is_located(tmp_path: Path) -> None:
    """``set: {sides.0.id: hero}`` on the brawl: the measures, checked against the battle's
    start, named 'thorgrim', whose win never came (a review's case); refused on the value's
    own line, by the last part of its path, as a calibration's factor is."""
    folder = tmp_path / "suite"
    folder.mkdir()
    text = CASE.format(id="small", scenario=SCENARIOS / "tavern_brawl.yaml", least=0.0)
    text = text.replace("side: csa", "side: thorgrim").replace(
        "seed: 7", "seed: 7\nset:\n  sides.0.id: hero"
    )
    (folder / "small.yaml").write_text(text)
    result = invoke("history", "--suite", folder)
    assert result.exit_code == 2
    assert result.output == (
        f"battlesim: error: {folder / 'small.yaml'}:7: set.sides.0.id: a set value cannot "
        "change an id (or the ruleset): the measures read sides, units and battles by their "
        "ids\n"
    )


def test_a_plot_is_never_written_over_a_case_or_its_scenario(tmp_path: Path) -> None:
    """--plot naming the case file (or its scenario), --force or not: refused before the
    fight (the PNG replaced it)."""
    folder = suite(tmp_path)
    case = folder / "small.yaml"
    before = case.read_bytes()
    result = invoke("history", "--suite", folder, "-q", "--plot", case, "--force")
    assert result.exit_code == 2
    assert result.output == (
        f"battlesim: error: --plot {case}: that is {str(case)!r}, which this command reads: "
        "choose another name\n"
    )
    assert case.read_bytes() == before


def test_a_split_that_leaves_no_case_names_the_cases_and_their_split() -> None:
    """`--case maida_kempt --split fitting` said "no such case among those chosen": the
    case is held out, and the line says so."""
    result = invoke("history", "--case", "maida_kempt", "--split", "fitting")
    assert result.exit_code == 2
    assert result.stderr == (
        "battlesim: error: --split fitting: no fitting case among those chosen (maida_kempt: "
        "held out); leave out --split, or choose a fitting case\n"
    )


@pytest.mark.parametrize(
    ("text", "line", "field", "what"),
    [
        ("name: fit\nhistory:\n  suite: .\nfactors: []\n", 2, "history",
         "this is a calibration file: run it with 'battlesim calibrate FILE'"),
        ("ruleset: musket\nname: x\n", 1, "ruleset", "this is a scenario"),
        ("name: my notes\ntodo: x\n", 1, "", "(no format, id or measures)"),
    ],
    ids=["calibration", "scenario", "notes"],
)  # fmt: skip
def test_another_kind_of_file_in_a_suite_is_one_line_naming_it(
    tmp_path: Path, text: str, line: int, field: str, what: str
) -> None:
    """A calibration file (or a scenario) kept in the suite's folder: one line saying what it
    is and that a suite's folder holds cases only, not a line per case field it lacks."""
    folder = suite(tmp_path)
    (folder / "fit.yaml").write_text(text, encoding="utf-8")
    result = invoke("history", "--suite", folder, "-q")
    assert result.exit_code == 2
    [message] = result.stderr.splitlines()
    where = f"{field}: " if field else ""
    assert message.startswith(
        f"battlesim: error: {folder / 'fit.yaml'}:{line}: {where}not a historical case file"
    )
    assert what in message
    assert message.endswith(
        "(a suite's folder holds case files only: every *.yaml in it is read as a case)"
    )


def test_a_case_missing_its_measures_is_told_so_not_called_a_study(tmp_path: Path) -> None:
    """A half-written case (``measure:`` for ``measures:``) names a scenario, as a study does;
    it has a format and an id, so it is read as the case it is and the typo is named."""
    folder = suite(tmp_path)
    case = folder / "small.yaml"
    case.write_text(case.read_text().replace("measures:", "measure:"))
    result = invoke("history", "--suite", folder, "-q")
    assert result.exit_code == 2
    assert "measure: unknown field; did you mean 'measures'?" in result.stderr
    assert "study" not in result.stderr


def test_a_hidden_yaml_file_in_a_suite_is_not_read(tmp_path: Path) -> None:
    """An editor's or a tool's hidden file (.config.yaml) beside the cases is not a case."""
    folder = suite(tmp_path)
    (folder / ".config.yaml").write_text("editor: settings\n", encoding="utf-8")
    result = invoke("history", "--suite", folder, "-q")
    assert result.exit_code == 0, result.output


def test_quiet_says_it_leaves_out_the_case_lines_too(tmp_path: Path) -> None:
    """``-q`` leaves out the line each case starts with (there is no bar off a terminal), and
    its help says so: it read "No progress bar." alone."""
    folder = suite(tmp_path)
    loud = invoke("history", "--suite", folder)
    assert loud.stderr == "[1/1] small: 4 runs\n"
    assert invoke("history", "--suite", folder, "-q").stderr == ""
    shown = " ".join(invoke("history", "--help").stdout.split())
    assert "-q, --quiet No progress on stderr: no line as each case starts, no bar." in shown


def test_the_case_formats_optional_fields_are_those_the_docs_name() -> None:
    """docs/history.md, *The case format*: "Every field is required except …" names every
    field a case file may leave out (``loss_band`` was missing), besides ``scenario`` and
    ``campaign``, of which a case names one."""
    import re

    from sim.history.case import CaseFile

    docs = (Path(__file__).parents[2] / "docs" / "history.md").read_text(encoding="utf-8")
    sentence = " ".join(docs.split("Every field is required except ", 1)[1].split())
    named = set(re.findall(r"`(\w+)`", sentence.split(" and, in a measure", 1)[0]))
    optional = {n for n, f in CaseFile.model_fields.items() if not f.is_required()}
    assert named == optional - {"scenario", "campaign"}


def test_a_measure_in_the_thousands_reads_as_a_whole_number_with_separators(
    tmp_path: Path,
) -> None:
    """Men lost as an amount (``share: false``): the estimate, its interval, the record and
    the accepted range read ``1,056 [933, 1,180]``, ``1,126`` and ``800 – 1,515``, as ``run`` writes
    men, never ``1.06e+03`` (three significant figures hid the record's 1,126)."""
    folder = tmp_path / "suite"
    folder.mkdir()
    text = CASE.format(id="men", scenario=SCENARIOS / "fort_wagner.yaml", least=0.0)
    text += (
        "  - id: union_men\n    label: Union men lost\n    kind: loss\n    side: usa\n"
        "    unit: men\n    share: false\n    historical: 1126\n"
        "    accept: {min: 800, max: 1515}\n    source: A test.\n"
    )
    (folder / "men.yaml").write_text(text)
    result = invoke("history", "--suite", folder, "-q", "--allow-inconclusive")
    row = next(line for line in result.stdout.splitlines() if "Union men lost" in line)
    assert row.split()[3:] == [
        "1,056", "[933,", "1,180]", "Student", "t", "1,126", "800", "–", "1,515", "pass",
        "0.667", "[1]",
    ]  # fmt: skip
    assert "e+" not in result.stdout
