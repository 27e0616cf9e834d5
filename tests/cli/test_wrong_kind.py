"""A file of the wrong kind is one line saying what it is and what to do with it (issue 24)."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from sim.cli import cli

REPO = Path(__file__).resolve().parents[2]
SCENARIO = REPO / "scenarios" / "stone_wall.yaml"
STUDY = REPO / "scenarios" / "stone_wall_study.yaml"
CAMPAIGN = REPO / "scenarios" / "carrier_war_campaign.yaml"
CALIBRATION = REPO / "scenarios" / "coral_sea_calibration.yaml"
REPLAY = REPO / "replays" / "stone_wall-s1862.jsonl"
CASE = REPO / "sim" / "history" / "suite" / "maida_kempt.yaml"

IS_SCENARIO = (
    "this is a scenario: fight it with 'battlesim run FILE', "
    "or study it with 'battlesim batch FILE --runs N'"
)
IS_STUDY = "this is a study file: run it with 'battlesim study FILE'"
IS_CAMPAIGN = "this is a campaign file: fight it with 'battlesim campaign FILE' (or batch)"
IS_CALIBRATION = "this is a calibration file: run it with 'battlesim calibrate FILE'"
IS_CASE = (
    "this is a historical case file: fight it with 'battlesim history --suite FOLDER --case ID' "
    "(the folder it is in, its id)"
)
IS_REPLAY = (
    "a battlesim replay, not a YAML file: read it with 'battlesim show FILE' "
    "(or verify, report, diff)"
)


def _invoke(*args: str) -> Result:
    result = CliRunner().invoke(cli, list(args), prog_name="battlesim")
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result


def _line(path: Path, key: str) -> int:
    return next(i for i, t in enumerate(path.read_text().splitlines(), 1) if t.startswith(key))


@pytest.mark.parametrize(
    ("command", "path", "expected"),
    [
        ("study", SCENARIO, f"ruleset: not a study file: {IS_SCENARIO}"),
        ("campaign", SCENARIO, f"ruleset: not a campaign file: {IS_SCENARIO}"),
        ("campaign", STUDY, f"scenario: not a campaign file: {IS_STUDY}"),
        ("study", CAMPAIGN, f"campaign: not a study file: {IS_CAMPAIGN}"),
        ("run", STUDY, f"scenario: not a scenario: {IS_STUDY}"),
        ("run", CAMPAIGN, f"campaign: not a scenario: {IS_CAMPAIGN}"),
        ("validate", STUDY, f"scenario: not a scenario: {IS_STUDY}"),
        # it has a study's replications, but is no study (it said "run it with study")
        ("validate", CALIBRATION, f"scenario: not a scenario: {IS_CALIBRATION}"),
        ("study", CALIBRATION, f"scenario: not a study file: {IS_CALIBRATION}"),
        # a history case has a study's scenario: it was called a study file
        ("run", CASE, f"measures: not a scenario: {IS_CASE}"),
        ("study", CASE, f"measures: not a study file: {IS_CASE}"),
        ("calibrate", CASE, f"measures: not a calibration file: {IS_CASE}"),
    ],
)
def test_a_yaml_file_of_another_kind_is_one_line(command: str, path: Path, expected: str) -> None:
    """study/campaign/run given another kind of file: one line (not a dozen), exit 2."""
    key = expected.split(":", maxsplit=1)[0]
    result = _invoke(command, str(path))
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == f"{path}:{_line(path, key + ':')}: {expected}\n"


def test_batch_of_a_study_file_says_to_use_study(tmp_path: Path) -> None:
    """batch takes a scenario or campaign; a study file is pointed at `battlesim study`."""
    result = _invoke("batch", str(STUDY), "--runs", "2", "-o", str(tmp_path / "b"))
    assert result.exit_code == 2
    assert (
        result.stderr
        == f"{STUDY}:{_line(STUDY, 'scenario:')}: scenario: not a scenario: {IS_STUDY}\n"
    )


@pytest.mark.parametrize("command", ["run", "validate", "study", "campaign"])
def test_a_replay_where_yaml_is_read_says_it_is_a_replay(command: str) -> None:
    """A replay given to run, validate, study or campaign: not 'not valid YAML', but what it is."""
    result = _invoke(command, str(REPLAY))
    assert (result.exit_code, result.stderr) == (2, f"{REPLAY}:1: {IS_REPLAY}\n")


@pytest.mark.parametrize(
    ("path", "what"), [(SCENARIO, IS_SCENARIO), (STUDY, IS_STUDY), (CAMPAIGN, IS_CAMPAIGN)]
)
@pytest.mark.parametrize("command", ["show", "verify", "report", "why"])
def test_a_yaml_file_where_a_replay_is_read_says_what_it_is(
    command: str, path: Path, what: str
) -> None:
    """show/verify/report/why of a scenario, study or campaign file: the hint, exit 2."""
    args = [command, str(path), *(["1"] if command == "why" else [])]
    result = _invoke(*args)
    assert (result.exit_code, result.stderr) == (
        2,
        f"battlesim: error: {path}:1: not a battlesim replay; {what}\n",
    )


def test_an_unrelated_file_gets_no_hint() -> None:
    """README.md is no battlesim file: the plain message, nothing guessed."""
    result = _invoke("show", str(REPO / "README.md"))
    assert result.stderr == f"battlesim: error: {REPO / 'README.md'}:1: not a battlesim replay\n"


@pytest.mark.parametrize(
    ("args", "name"),
    [
        (["run", ""], "SCENARIO"),
        (["validate", ""], "SCENARIO"),
        (["show", ""], "REPLAY"),
        (["why", "", "3"], "REPLAY"),
        (["fork", "", "--at", "3", "--set", "roll=6"], "REPLAY"),
        (["diff", "", str(REPLAY)], "A"),
        (["diff", str(REPLAY), ""], "B"),
        (["report", ""], "REPLAY"),
        (["batch", "", "--runs", "2"], "SCENARIO"),
        (["study", ""], "STUDY.yaml"),
        (["calibrate", ""], "CALIBRATION.yaml"),
        (["campaign", ""], "CAMPAIGN.yaml"),
    ],
    ids=lambda v: v[0] if isinstance(v, list) else v,
)
def test_an_empty_file_name_is_said_as_one(args: list[str], name: str) -> None:
    """An empty name for the file a command reads is said to be one, by its argument
    (it said ``battlesim error: : is a folder, not a file``: the current folder)."""
    result = _invoke(*args)
    assert (result.exit_code, result.output) == (
        2,
        f"battlesim: error: {name}: an empty name; give a file\n",
    )


@pytest.mark.parametrize("command", ["show", "why", "report", "diff", "fork", "run", "batch"])
def test_a_folder_given_for_a_file_is_one_line_of_ours(command: str, tmp_path: Path) -> None:
    """A folder where a command takes a file is refused in battlesim's own line, and a
    study's folder says which commands read one; it was click's usage error (``Invalid value
    for 'REPLAY': File 'sw' is a directory.``, with its ``(see 'battlesim show --help')``)."""
    plain, study = tmp_path / "plain", tmp_path / "sw"
    plain.mkdir()
    study.mkdir()
    (study / "study.duckdb").write_bytes(b"")
    rest = {"why": ["1"], "diff": [str(REPLAY)], "fork": ["--at", "1"]}.get(command, [])
    compare = "; to compare two studies, see docs/batch.md, 'Two studies side by side'"
    for folder, said in (
        (plain, "a directory, not a regular file"),
        (study, "a study's folder, not a file (verify, rerun, discover and export read a "
                f"study's folder{compare if command == 'diff' else ''})"),
    ):  # fmt: skip
        result = _invoke(command, str(folder), *rest)
        assert (result.exit_code, result.stderr) == (
            2,
            f"battlesim: error: {folder}: {said}\n",
        ), command
