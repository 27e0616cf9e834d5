"""battlesim rerun: any run of a study as a full replay, byte for byte what it would write."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import duckdb
import pytest

from sim import api
from tests.batch.helpers import CAMPAIGN, STONE_WALL, invoke


@pytest.fixture(scope="module")
def study(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """8 runs at 2 points, replays kept of the first 2 replications of each."""
    out = tmp_path_factory.mktemp("study")
    result = invoke(
        "batch", STONE_WALL, "--runs", "4", "--seed", "3", "--out", out, "--jobs", "1",
        "--sweep", "sides.usa.units.28ma.quality=B,E", "--keep-replays", "2", "--no-plots",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    return out


def test_kept_replays_are_the_first_replications_of_each_point(study: Path) -> None:
    """--keep-replays 2 keeps runs 0, 1 (point 0) and 4, 5 (point 1)."""
    names = sorted(p.name for p in (study / "replays").iterdir())
    assert names == ["run-0.jsonl", "run-1.jsonl", "run-4.jsonl", "run-5.jsonl"]


@pytest.mark.parametrize("run_id", [1, 5])
def test_rerun_reproduces_a_kept_replay_byte_for_byte(
    study: Path, tmp_path: Path, run_id: int
) -> None:
    """The rerun's file equals the kept replay, and verify re-simulates it byte for byte."""
    out = tmp_path / "again.jsonl"
    result = invoke("rerun", study, str(run_id), "--out", out)
    assert result.exit_code == 0, result.output
    assert out.read_bytes() == (study / "replays" / f"run-{run_id}.jsonl").read_bytes()
    assert result.output.splitlines()[-1] == f"Replay: {out}"
    assert api.verify_replay(out).ok


def test_rerun_header_carries_the_points_values_and_the_runs_seed(
    study: Path, tmp_path: Path
) -> None:
    """Run 6 is point 1, replication 2: its header has quality E and the stored seed."""
    out = tmp_path / "r6.jsonl"
    result = invoke("rerun", study, "6", "--out", out)
    assert result.exit_code == 0
    loaded = api.load_replay(out)
    assert loaded.scenario.sides[0].units[1].quality == "E"
    assert result.output.startswith(
        f"Run 6 (point 1, replication 2, seed {loaded.replay.header.seed}):"
    )


def test_rerun_of_a_run_that_does_not_exist_exits_2(study: Path) -> None:
    """A run id past the study's last is bad input."""
    result = invoke("rerun", study, "8")
    assert result.exit_code == 2
    assert "no run 8: the study plans runs 0 to 7 and holds 8" in result.output


def test_rerun_past_a_one_run_study_says_its_one_run(tmp_path: Path) -> None:
    """A study of one run is said to plan run 0 (it said "plans runs 0 to 0 and holds 1")."""
    out = tmp_path / "one"
    made = invoke("batch", STONE_WALL, "--runs", "1", "--out", out, "--no-plots", "-q")
    assert made.exit_code == 0, made.output
    result = invoke("rerun", out, "1")
    assert (result.exit_code, result.stderr) == (
        2,
        "battlesim: error: no run 1: the study plans one run, run 0, and holds it\n",
    )


def test_rerun_of_a_planned_run_the_study_did_not_fight_exits_2(tmp_path: Path) -> None:
    """--until-ci stops a point early: a run past what it fought has no row, so a replay of it
    would match nothing the study holds. It is refused (exit 2, one line), as a run an
    interrupted study has not fought yet is; a run it holds is rerun."""
    out = tmp_path / "s"
    result = invoke(
        "batch", STONE_WALL, "--runs", "200", "--until-ci", "0.2", "--seed", "3", "--out", out,
        "--jobs", "1", "--no-plots", "-q",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    with duckdb.connect(str(out / "study.duckdb"), read_only=True) as con:
        held = [r for (r,) in con.execute("SELECT run_id FROM runs ORDER BY run_id").fetchall()]
    assert 0 < len(held) < 200 and held == list(range(len(held)))
    missing = invoke("rerun", out, "199", "--out", tmp_path / "r.jsonl")
    assert missing.exit_code == 2
    assert missing.stderr.splitlines() == [
        f"battlesim: error: run 199 (point 0, replication 199) is not in the study: it holds "
        f"{len(held)} of its 200 planned runs, runs 0 to {held[-1]} (a point stopped by "
        "--until-ci, or a study interrupted: --resume fights the rest)"
    ]
    assert not (tmp_path / "r.jsonl").exists()
    assert invoke("rerun", out, str(held[-1]), "--out", tmp_path / "r.jsonl").exit_code == 0


def test_a_run_missing_between_held_ones_is_refused_naming_the_runs_held(
    study: Path, tmp_path: Path
) -> None:
    """Runs 2 and 3 taken out of a copy (as if never committed): rerun of run 2 names the
    runs the study holds by their ids, around the hole."""
    copy = Path(shutil.copytree(study, tmp_path / "s"))
    with duckdb.connect(str(copy / "study.duckdb")) as con:
        con.execute("DELETE FROM runs WHERE run_id IN (2, 3)")
    result = invoke("rerun", copy, "2", "--out", tmp_path / "r.jsonl")
    assert (result.exit_code, result.stderr.splitlines()) == (
        2,
        [
            "battlesim: error: run 2 (point 0, replication 2) is not in the study: it holds 6 "
            "of its 8 planned runs, runs 0, 1 and 4 to 7 (a point stopped by --until-ci, or a "
            "study interrupted: --resume fights the rest)"
        ],
    )


def test_rerun_of_a_study_planning_no_runs_is_damage(study: Path, tmp_path: Path) -> None:
    """No study writes 0 replications: one edited so says it is damaged (it said "the study's
    runs are 0 to -1")."""
    copy = Path(shutil.copytree(study, tmp_path / "s"))
    with duckdb.connect(str(copy / "study.duckdb")) as con:
        con.execute("UPDATE study SET replications = 0")
    result = invoke("rerun", copy, "0")
    assert (result.exit_code, result.output) == (
        2,
        f"battlesim: error: {copy / 'study.duckdb'}: damaged: the study row has replications "
        "0, not a whole number of at least 1\n",
    )


def test_rerun_refuses_an_out_inside_the_study(study: Path) -> None:
    """A replay written into the study's own folder would replace a kept replay the manifest
    lists (a reviewer's attack: ``verify`` then said it differs): refused, exit 2, nothing
    written, even with --force."""
    before = sorted(p.name for p in study.rglob("*"))
    out = study / "replays" / "run-0.jsonl"
    result = invoke("rerun", study, "0", "--out", out, "--force")
    assert (result.exit_code, result.output) == (
        2,
        f"battlesim: error: --out {str(out)!r} is inside the study {str(study)!r}, whose "
        "files its manifest lists: write the replay elsewhere\n",
    )
    assert sorted(p.name for p in study.rglob("*")) == before


def test_rerun_of_a_campaign_run_writes_each_battles_replay(tmp_path: Path) -> None:
    """A campaign study's rerun writes one replay per battle, equal to the kept ones."""
    study = tmp_path / "c"
    args = ["--runs", "2", "--out", study, "--jobs", "1", "--keep-replays", "1", "--no-plots"]
    assert invoke("batch", CAMPAIGN, *args).exit_code == 0
    kept = sorted((study / "replays").iterdir())
    assert [p.name for p in kept] == [
        "run-0-1-fredericksburg.jsonl",
        "run-0-2-chancellorsville.jsonl",
    ]
    again = tmp_path / "again"
    result = invoke("rerun", study, "0", "--out", again)
    assert result.exit_code == 0, result.output
    assert [p.read_bytes() for p in kept] == [(again / p.name).read_bytes() for p in kept]
    for name in ("r0.jsonl", "r0.jsonl.gz"):  # a replay file's name: not made into a folder
        result = invoke("rerun", study, "0", "--out", tmp_path / name)
        assert (result.exit_code, result.stdout) == (2, "")
        assert result.stderr == (
            f"battlesim: error: {tmp_path / name}: run 0 is a campaign's, one replay for each of "
            "its battles, written into a folder: name a folder, not a replay file (e.g. run-0)\n"
        )
        assert not (tmp_path / name).exists()
    # a file of the user's where a battle's replay would go is refused, not overwritten
    (again / "run-0-2-chancellorsville.jsonl").write_text("my notes\n")
    refused = invoke("rerun", study, "0", "--out", again)
    assert (refused.exit_code, refused.stdout) == (2, "")
    assert refused.stderr == (
        f"battlesim: error: replay {again / 'run-0-2-chancellorsville.jsonl'}: the file is not "
        "a replay battlesim wrote; add --force to overwrite it, or choose another name\n"
    )
    assert (again / "run-0-2-chancellorsville.jsonl").read_text() == "my notes\n"
    assert invoke("rerun", study, "0", "--out", again, "--force").exit_code == 0


def test_rerun_holds_its_default_name_to_what_out_is_held_to(
    study: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With no --out the replay goes to run-<id>.jsonl here: a file of the user's there is
    refused without --force (it was overwritten), and so is the study's own folder as
    "here"; an --out naming a folder gets the default name inside it (it said "PosixPath('.')
    has an empty name")."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "run-3.jsonl").write_text("my notes\n")
    result = invoke("rerun", study, "3")
    assert (result.exit_code, result.stderr) == (
        2,
        "battlesim: error: replay run-3.jsonl: the file is not a replay battlesim wrote; add "
        "--force to overwrite it, or choose another name\n",
    )
    assert (tmp_path / "run-3.jsonl").read_text() == "my notes\n"
    into = invoke("rerun", study, "2", "-o", ".")
    assert into.exit_code == 0, into.output
    assert into.stdout.splitlines()[-1] == "Replay: run-2.jsonl"
    assert api.verify_replay(tmp_path / "run-2.jsonl").ok
    monkeypatch.chdir(study)
    before = sorted(p.name for p in study.rglob("*"))
    inside = invoke("rerun", ".", "1")
    assert (inside.exit_code, inside.stderr) == (
        2,
        "battlesim: error: 'run-1.jsonl' is inside the study '.', whose files its manifest "
        "lists: write the replay elsewhere (-o)\n",
    )
    assert sorted(p.name for p in study.rglob("*")) == before


def test_rerun_and_export_json(study: Path, tmp_path: Path) -> None:
    """`rerun --json` names run 6's point, replication, seed, replay; `export --json` its files."""
    out = tmp_path / "r6.jsonl"
    got = json.loads(invoke("rerun", study, "6", "-o", out, "--json").output)
    header = api.load_replay(out).replay.header
    assert (got["run"], got["point"], got["replication"], got["seed"]) == (6, 1, 2, header.seed)
    assert got["replays"] == [str(out)]
    files = json.loads(invoke("export", study, "--format", "csv", "-o", tmp_path, "--json").output)
    names = sorted(Path(p).name for p in files["written"])
    assert names == ["points.csv", "runs.csv", "study.csv", "unit_finals.csv"]


def test_rerun_refuses_to_overwrite_a_text_file(study: Path, tmp_path: Path) -> None:
    """`rerun -o notes.txt` onto an existing text file exits 2 and leaves it alone."""
    notes = tmp_path / "notes.txt"
    notes.write_text("keep me")
    result = invoke("rerun", study, "1", "-o", notes)
    assert result.exit_code == 2
    assert notes.read_text() == "keep me"
