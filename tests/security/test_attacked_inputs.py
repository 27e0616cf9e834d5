"""Bad input found by an attack on the study, campaign, export, discover and history paths:
each is one line and exit 2, and nothing of the user's (or of a study) is written over.

Every case here did otherwise before: a study damaged by its own export, a campaign file
replaced by its results under ``--force``, a history plot written over the JSON results,
a case's ``set`` renaming a battle into a silent FAIL, NaN or a digit of another script
read as a number, a half-width so small it divided by zero.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from sim.batch.planning.stopping import pilot_runs
from tests.forge import invoke

ROOT = Path(__file__).resolve().parents[2]
TAVERN = ROOT / "scenarios" / "tavern_brawl.yaml"
SUITE = ROOT / "sim" / "history" / "suite"


def _one_line_exit_2(args: list[str | Path], fragment: str, usage: bool = False) -> str:
    """Exit 2 with ``fragment`` said; in one line, but for click's usage errors, which the
    console script (not the in-process runner) puts in one (tests/security/test_cli_failures)."""
    result = invoke(*(str(a) for a in args))
    assert result.exit_code == 2, result.output
    assert usage or result.stderr.count("\n") == 1, result.stderr
    assert fragment in result.stderr, result.stderr
    return result.stderr


@pytest.fixture(scope="module")
def study(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("attacked") / "s"
    made = invoke("batch", str(TAVERN), "--runs", "4", "--out", str(out), "-q", "--no-plots")
    assert made.exit_code == 0, made.output
    return out


def test_an_export_into_the_study_is_refused_and_the_study_still_verifies(study: Path) -> None:
    for inside in (study / "replays", study, study / "plots"):
        _one_line_exit_2(
            ["export", study, "--format", "csv", "--out", inside],
            f"is inside the study {str(study)!r}, whose files its manifest lists",
        )
    assert invoke("export", str(study), "--format", "csv").exit_code == 0  # its own export/
    assert invoke("verify", str(study)).exit_code == 0


def test_nan_and_other_scripts_digits_are_not_numbers(study: Path) -> None:
    _one_line_exit_2(["discover", study, "--measure", "turns > 1", "--alpha", "nan"],
                     "'nan' is not a number", usage=True)  # fmt: skip
    _one_line_exit_2(["batch", TAVERN, "--runs", "2", "--until-ci", "nan"],
                     "'nan' is not a number", usage=True)  # fmt: skip
    _one_line_exit_2(["rerun", study, "３"], "'３' is not a whole number in digits 0-9",
                     usage=True)  # fmt: skip


def test_a_half_width_too_small_to_square_asks_for_every_run() -> None:
    """1e-200 squared is 0: the pilot is the quarter of the runs (it divided by zero)."""
    assert pilot_runs(1e-200, 100, 20) == 40  # ⌈100 / 4⌉ = 25, rounded up to whole chunks
    assert pilot_runs(1e-200, 100, 20) == pilot_runs(1e-3, 100, 20)


def test_a_campaign_never_writes_over_the_files_it_reads(tmp_path: Path) -> None:
    for name in ("stone_wall.yaml", "chancellorsville.yaml"):
        shutil.copy(ROOT / "scenarios" / name, tmp_path / name)
    campaign = tmp_path / "campaign.json"  # the campaign file where its results would go
    shutil.copy(ROOT / "scenarios" / "fredericksburg_campaign.yaml", campaign)
    before = campaign.read_bytes()
    _one_line_exit_2(["campaign", campaign, "--out", tmp_path, "--force"],
                     "which this command reads: choose another name")  # fmt: skip
    assert campaign.read_bytes() == before


def test_the_history_plot_is_never_one_of_outs_files(tmp_path: Path) -> None:
    out = tmp_path / "ho"
    _one_line_exit_2(
        ["history", "--case", "maida_kempt", "--out", out, "--plot", out / "history.json"],
        "that is where --out writes history.json: choose another name for the plot",
    )
    assert not out.exists() or not (out / "history.json").exists()


def test_a_case_that_renames_a_battle_is_refused_on_its_line(tmp_path: Path) -> None:
    case = SUITE / "fredericksburg_campaign.yaml"
    text = case.read_text(encoding="utf-8")
    campaign = SUITE / "scenarios" / "fredericksburg_campaign.yaml"
    text = text.replace("campaign: scenarios/fredericksburg_campaign.yaml", f"campaign: {campaign}")
    (tmp_path / case.name).write_text(text + "set:\n  battles.0.id: other\n", encoding="utf-8")
    line = text.count("\n") + 2  # the line after "set:"
    _one_line_exit_2(
        ["history", "--suite", tmp_path, "--case", "fredericksburg_campaign"],
        f"{case.name}:{line}: set.battles.0.id: a set value cannot change an id",
    )


def test_a_value_problem_is_said_without_its_class_name(tmp_path: Path) -> None:
    """A refusal the API raises as a ValueProblem reaches the command line as its words."""
    study_file = tmp_path / "s.yaml"
    shutil.copy(TAVERN, tmp_path / "tavern_brawl.yaml")
    study_file.write_text(
        "name: s\nscenario: tavern_brawl.yaml\nseed: 1\nreplications: 2\n"
        "outputs: {dir: out, plots: false}\n",
        encoding="utf-8",
    )
    stderr = _one_line_exit_2(["study", study_file, "--until-ci", "nan"], "is not a number",
                              usage=True)  # fmt: skip
    assert "ValueProblem" not in stderr
    from sim.cli.errors import describe
    from sim.scenario.values import ValueProblem

    said = "StudyPlan until_ci: nan is not a half-width"  # as the plan refused it, in Python
    assert describe(ValueProblem(said)) == said  # was "ValueProblem: StudyPlan until_ci: …"


def test_an_unforeseen_errors_long_message_is_clipped() -> None:
    """An error battlesim did not foresee is one line of its type and message; a message
    carrying a long value (5,000 characters) is cut to its start and its length, as every
    other echoed value is (it was echoed whole)."""
    from sim.cli.errors import UNKNOWN_CHARS, describe

    said = describe(RuntimeError("v" * 5000))
    assert said == f"RuntimeError: {'v' * (UNKNOWN_CHARS - 1)}… (5,000 characters)"
    assert describe(RuntimeError("short")) == "RuntimeError: short"
