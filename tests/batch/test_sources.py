"""Study, calibration and case files read the scenario and output folder they name alike.

The three readers share one reading of ``scenario:``/``campaign:`` and
``outputs.dir``; these tests pin each reader's exact messages, so the
sharing changed no byte of them.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from sim.batch.planning.spec import load_study
from sim.calibrate.spec import load_calibration
from sim.history.case import load_case
from sim.scenario.load import ScenarioError
from tests.batch.helpers import SCENARIOS

ROOT = SCENARIOS.parent

STUDY = """\
replications: 2
{target}
outputs: {{dir: {out}}}
"""

CALIBRATION = """\
replications: 2
trials: 1
startup_trials: 1
{target}
factors:
  - {{path: options.fire_hcv, range: [10, 40]}}
targets:
  - {{measure: win.csa, value: 1}}
outputs: {{dir: {out}}}
"""

CASE = """\
format: 1
id: case
title: A case
{target}
seed: 1
runs: 2
measures:
  - {{id: holds, label: P(hold), kind: win, side: csa, historical: 1, accept: {{min: 0.5}},
      source: A test.}}
"""

STONE_WALL = f"scenario: {SCENARIOS / 'stone_wall.yaml'}"
Reader = Callable[[Path], Any]
FILES: list[tuple[str, str, Reader]] = [
    ("study.yaml", STUDY, load_study),
    ("fit.yaml", CALIBRATION, load_calibration),
    ("case.yaml", CASE, load_case),
]


def _file(folder: Path, name: str, text: str, target: str, out: str = "out") -> Path:
    path = folder / name
    path.write_text(text.format(target=target, out=out), encoding="utf-8")
    return path


def _error(read: Reader, path: Path) -> str:
    with pytest.raises(ScenarioError) as caught:
        read(path)
    return str(caught.value)


@pytest.mark.parametrize(("name", "text", "read"), FILES, ids=[f[0] for f in FILES])
def test_a_missing_scenario_file_is_named_at_its_line(
    tmp_path: Path, name: str, text: str, read: Reader
) -> None:
    """``scenario: nowhere.yaml``: the line of ``scenario``, and the path looked for."""
    path = _file(tmp_path, name, text, "scenario: nowhere.yaml")
    line = text.splitlines().index("{target}") + 1
    assert _error(read, path) == (
        f"{path}:{line}: scenario: no scenario file {str(tmp_path / 'nowhere.yaml')!r}"
    )


@pytest.mark.parametrize(("name", "text", "read"), FILES, ids=[f[0] for f in FILES])
def test_a_folder_or_a_link_to_nothing_as_the_scenario_says_what_it_is(
    tmp_path: Path, name: str, text: str, read: Reader
) -> None:
    """``scenario: adir`` (a folder) said "no file 'adir'", though it is there; a link to
    a file that is gone said it too: each says what it is, at the line of ``scenario``."""
    (tmp_path / "adir").mkdir()
    (tmp_path / "gone.yaml").symlink_to("old.yaml")
    line = text.splitlines().index("{target}") + 1
    path = _file(tmp_path, name, text, "scenario: adir")
    folder = str(tmp_path / "adir")
    assert (
        _error(read, path)
        == f"{path}:{line}: scenario: {folder!r} is a folder, not a scenario file"
    )
    path = _file(tmp_path, name, text, "scenario: gone.yaml")
    gone = str(tmp_path / "gone.yaml")
    assert _error(read, path) == (
        f"{path}:{line}: scenario: {gone!r}: a link to 'old.yaml', which does not exist"
    )


@pytest.mark.parametrize(("name", "text", "read"), FILES, ids=[f[0] for f in FILES])
def test_a_file_of_the_other_kind_is_refused(
    tmp_path: Path, name: str, text: str, read: Reader
) -> None:
    """``campaign:`` naming a scenario (and the reverse): which kind the file is."""
    line = text.splitlines().index("{target}") + 1
    path = _file(tmp_path, name, text, f"campaign: {SCENARIOS / 'stone_wall.yaml'}")
    assert _error(read, path) == (
        f"{path}:{line}: campaign: {str(SCENARIOS / 'stone_wall.yaml')!r} is a scenario file, "
        "not a campaign"
    )
    path = _file(tmp_path, name, text, f"scenario: {SCENARIOS / 'fredericksburg_campaign.yaml'}")
    assert _error(read, path) == (
        f"{path}:{line}: scenario: {str(SCENARIOS / 'fredericksburg_campaign.yaml')!r} is a "
        "campaign file, "
        "not a scenario"
    )


@pytest.mark.parametrize(("name", "text", "read"), FILES, ids=[f[0] for f in FILES])
def test_a_study_where_the_scenario_goes_is_named_at_its_line(
    tmp_path: Path, name: str, text: str, read: Reader
) -> None:
    """``scenario:`` (or ``campaign:``) naming a study file: said at this file's line. It was
    said at the study's own line, "not a scenario: this is a study file: run it with
    'battlesim study FILE'", naming neither this file nor the field that named it."""
    (tmp_path / "other.yaml").write_text(f"{STONE_WALL}\nreplications: 2\n", encoding="utf-8")
    line = text.splitlines().index("{target}") + 1
    for key in ("scenario", "campaign"):
        path = _file(tmp_path, name, text, f"{key}: other.yaml")
        assert _error(read, path) == (
            f"{path}:{line}: {key}: 'other.yaml' is a study file, not a {key}"
        )


def test_a_campaign_or_a_study_as_a_campaigns_battle_is_named_at_its_line(
    tmp_path: Path,
) -> None:
    """A campaign's battle naming a campaign (itself) or a study: said at the battle's
    ``scenario`` line. It was said at the other file's first line, telling a user who ran
    ``battlesim campaign`` to "fight it with 'battlesim campaign FILE'"."""
    from sim.batch.inputs.target import load_campaign

    (tmp_path / "st.yaml").write_text(f"{STONE_WALL}\nreplications: 2\n", encoding="utf-8")
    path = tmp_path / "c.yaml"
    path.write_text(
        "campaign: C\nseed: 1\nbattles:\n"
        "  - {id: a, scenario: c.yaml}\n"
        f"  - {{id: b, scenario: {SCENARIOS / 'stone_wall.yaml'}}}\n"
        "  - {id: d, scenario: st.yaml}\n",
        encoding="utf-8",
    )
    assert _error(load_campaign, path) == (
        f"{path}:4: battles.0.scenario: 'c.yaml' is a campaign file, not a scenario\n"
        f"{path}:6: battles.2.scenario: 'st.yaml' is a study file, not a scenario"
    )


@pytest.mark.parametrize(("name", "text", "read"), FILES, ids=[f[0] for f in FILES])
def test_a_replay_where_a_scenario_goes_is_named_at_its_line(
    tmp_path: Path, name: str, text: str, read: Reader
) -> None:
    """``scenario:`` naming a replay, and a campaign's battle naming one: said at this file's
    line. It was said at the replay's own first line ("a battlesim replay, not a YAML
    file: read it with 'battlesim show FILE'"), naming neither this file nor its field."""
    from sim.batch.inputs.target import load_campaign

    shutil.copy(ROOT / "replays" / "stone_wall-s1862.jsonl", tmp_path / "sw.jsonl")
    line = text.splitlines().index("{target}") + 1
    path = _file(tmp_path, name, text, "scenario: sw.jsonl")
    assert (
        _error(read, path)
        == f"{path}:{line}: scenario: 'sw.jsonl' is a battlesim replay, not a scenario"
    )
    campaign = tmp_path / "c.yaml"
    campaign.write_text("campaign: C\nseed: 1\nbattles:\n  - {id: a, scenario: sw.jsonl}\n")
    assert _error(load_campaign, campaign) == (
        f"{campaign}:4: battles.0.scenario: 'sw.jsonl' is a battlesim replay, not a scenario"
    )


@pytest.mark.parametrize(("name", "text", "read"), FILES[:2], ids=[f[0] for f in FILES[:2]])
def test_an_output_folder_outside_the_files_folder_is_refused(
    tmp_path: Path, name: str, text: str, read: Reader
) -> None:
    """``outputs.dir`` climbing out or absolute: the line of ``outputs``, and why, naming
    the kind of file it is (a calibration's is not a study file)."""
    what = "calibration file" if name == "fit.yaml" else "study file"
    line = text.splitlines().index("outputs: {{dir: {out}}}") + 1
    path = _file(tmp_path, name, text, STONE_WALL, out="../elsewhere")
    assert _error(read, path) == (
        f"{path}:{line}: outputs.dir: '../elsewhere' leaves the {what}'s folder {str(tmp_path)!r}"
    )
    path = _file(tmp_path, name, text, STONE_WALL, out="/tmp/x")
    assert _error(read, path) == (
        f"{path}:{line}: outputs.dir: '/tmp/x' is absolute: name a folder relative to the {what}"
    )


@pytest.mark.parametrize(("name", "text", "read"), FILES[:2], ids=[f[0] for f in FILES[:2]])
def test_the_output_folder_defaults_to_the_files_stem(
    tmp_path: Path, name: str, text: str, read: Reader
) -> None:
    """No ``outputs.dir``: ./<file stem>; one inside the file's folder: that folder."""
    path = _file(tmp_path, name, text.replace("outputs: {{dir: {out}}}\n", ""), STONE_WALL)
    assert read(path).out == Path(Path(name).stem)
    path = _file(tmp_path, name, text, STONE_WALL, out="results")
    assert read(path).out == tmp_path / "results"


def test_files_named_in_bytes_that_are_not_utf8_are_studied_and_calibrated(
    tmp_path: Path,
) -> None:
    """A scenario, study or calibration file whose name is not UTF-8 (``s\\xff.yaml``) ran,
    but ``batch``/``study`` failed with DuckDB's "Python Conversion Failure: cannot encode
    str as UTF-8", naming the database, and ``calibrate`` with "UnicodeEncodeError:
    surrogates not allowed": the name was recorded as Python read it. It is recorded as a
    replay's header holds it, the bytes that are not UTF-8 as U+FFFD."""
    import os

    from tests.forge import invoke

    def named(stem: bytes, text: str) -> str:
        path = os.fsdecode(bytes(tmp_path) + b"/" + stem + b".yaml")
        Path(path).write_text(text, encoding="utf-8")
        return path

    brawl = named(b"s\xff", (SCENARIOS / "tavern_brawl.yaml").read_text(encoding="utf-8"))
    out = str(tmp_path / "b")
    result = invoke("batch", brawl, "--runs", "2", "--keep-replays", "1", "-q", "-o", out)
    assert result.exit_code == 0, result.output
    assert invoke("verify", out).exit_code == 0
    replay = (tmp_path / "b" / "replays" / "run-0.jsonl").read_text(encoding="utf-8")
    assert '"source":"s\ufffd.yaml"' in replay.splitlines()[0]
    study = named(
        b"st\xff",
        f"scenario: {SCENARIOS / 'tavern_brawl.yaml'}\nreplications: 2\noutputs: {{dir: st}}\n",
    )
    result = invoke("study", study, "-q")
    assert result.exit_code == 0, result.output
    fit = named(
        b"fit\xff",
        f"scenario: {SCENARIOS / 'tavern_brawl.yaml'}\nseed: 1\nreplications: 2\ntrials: 1\n"
        "factors:\n  - {path: sides.orcs.monsters.grub.hp, values: [6]}\n"
        "targets:\n  - {measure: win.thorgrim, range: [0.5, 1.0]}\n"
        "outputs: {dir: fit, plots: false}\n",
    )
    result = invoke("calibrate", fit, "--refight", "0", "--jobs", "1", "-q")
    assert result.exit_code == 0, result.output
    patch = (tmp_path / "fit" / "patch.yaml").read_text(encoding="utf-8")
    assert patch.startswith("# battlesim calibrate fit\ufffd.yaml: the best point")
