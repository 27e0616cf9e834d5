"""Bad study files, campaign files and flags: exit 2 with file:line: field: message."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.batch.helpers import CAMPAIGN, RULES1, SCENARIOS, STONE_WALL, invoke

GOOD = """\
name: ok
scenario: stone_wall.yaml
seed: 1
replications: 3
factors:
  - {path: options.fire_hcv, values: [15, 25]}
"""


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    """A folder with the campaign's scenarios (tests/data/rules1) beside the test's files."""
    for name in ("stone_wall.yaml", "chancellorsville.yaml"):
        shutil.copy(RULES1 / name, tmp_path / name)
    return tmp_path


@pytest.mark.parametrize(
    ("text", "errors"),
    [
        (GOOD.replace("replications: 3", "replications: 0"),
         ["4: replications: 0 is less than 1, the least it may be"]),
        (GOOD.replace("seed: 1", "seed: 1\ncolour: red"), ["4: colour: unknown field"]),
        (GOOD.replace("replications:", "replicatons:"),  # said once, not also 'missing'
         ["4: replicatons: unknown field; did you mean 'replications'?"]),
        (GOOD + "outputs: {keep_replay: 1}\n",
         ["7: outputs.keep_replay: unknown field; did you mean 'keep_replays'?"]),
        (GOOD.replace("options.fire_hcv", "options.fire_hvc"),
         ["6: factors.0.path: no field 'fire_hvc' in options; did you mean 'options.fire_hcv'?"]),
        # a value named twice: the same design point fought twice
        (GOOD.replace("values: [15, 25]", "values: [15, 25, 15.0]"),
         ["6: factors.0.values.2: the value 15.0 is named twice"]),
        # 'type' is a range's (docs/batch.md): on a values list it was accepted without a word
        (GOOD.replace("values: [15, 25]", "values: [15, 25], type: int"),
         ["6: factors.0: 'type' applies to a range; a values list's levels are typed as "
          "written"]),
        (GOOD.replace("values: [15, 25]", "range: [30, 20]"),
         ["6: factors.0.range: low 30 must be below high 20"]),
        # a reversed range on a line of its own is reported at that line, not the path's
        (GOOD.replace("  - {path: options.fire_hcv, values: [15, 25]}",
                      "  - path: options.fire_hcv\n    type: int\n    range: [30, 20]"),
         ["8: factors.0.range: low 30 must be below high 20"]),
        (GOOD.replace("values: [15, 25]", "range: [15, 35]"),
         ["6: factors.0: options.fire_hcv: a range in a grid design needs 'levels'"]),
        # an infinite end: a numpy warning, then a design point of NaN
        (GOOD.replace("values: [15, 25]", "range: [1, .inf], levels: 2"),
         ["6: factors.0.range.1: .inf is not a finite number"]),
        (GOOD.replace("stone_wall.yaml", "nowhere.yaml"), ["2: scenario: no scenario file "]),
        (GOOD + "design: lhs\n", ["7: design: design lhs needs 'points' (how many design points)"]),
        (GOOD + "points: 4\n", ["7: points: 'points' applies to designs lhs, morris and sobol"]),
        (GOOD.replace("values: [15, 25]", "range: [15, 35], levels: 3")
         + "design: lhs\npoints: 4\n",
         ["6: factors.0.levels: 'levels' applies to a grid design; lhs draws from the "
          "whole range"]),
        (GOOD.replace("scenario: stone_wall.yaml", "description: none"),
         ["1: name the 'scenario' (or 'campaign') file to run"]),
        ("name: [unclosed\n", ["2: not valid YAML: "]),
        # one unit by its id and by its index: the second factor set nothing at any point
        (GOOD + "  - {path: sides.csa.units.wash.strength, values: [4, 8]}\n"
         "  - {path: sides.1.units.2.strength, values: [6, 7]}\n",
         ["8: factors.2.path: swept twice, as factors.1 (sides.csa.units.wash.strength)"]),
        # a field inside a field swept whole: which value a run got hung on the order of setting
        (GOOD + "  - {path: map.terrain.1, values: [{terrain: fence, hexes: [[5, 7]]}]}\n"
         "  - {path: map.terrain.1.cover, values: [-10, -30]}\n",
         ["8: factors.2.path: sweeps what factors.1 (map.terrain.1) sweeps: give one of them"]),
        # a third factor on one field is said too, not only the second
        (GOOD + "  - {path: options.fire_hcv, values: [30]}\n"
         "  - {path: options.fire_hcv, values: [35]}\n",
         ["7: factors.1.path: swept twice", "8: factors.2.path: swept twice"]),
        # refused on the file's line, as --sweep is on the command line
        (GOOD + "  - {path: sides.0.id, values: [usa, yankees]}\n",
         ["7: factors.1.path: a study compares the same sides and units at every point, read "
          "by their ids: a factor cannot change an id (or the ruleset)"]),
        (GOOD + "  - {path: seed, values: [1, 2, 3]}\n",
         ["7: factors.1.path: a study fights each run with a seed of its own, derived from its "
          "own seed, so the scenario's seed changes no run: give more replications, or another "
          "seed"]),
    ],
)  # fmt: skip
def test_bad_study_files_exit_2_naming_file_line_and_field(
    folder: Path, text: str, errors: list[str]
) -> None:
    """Each problem is reported as study.yaml:LINE: field: message, and nothing runs."""
    study = folder / "study.yaml"
    study.write_text(text)
    result = invoke("study", study, "--out", folder / "out")
    assert result.exit_code == 2, result.output
    lines = result.output.splitlines()
    assert len(lines) == len(errors)
    for line, expected in zip(lines, errors, strict=True):
        assert line.startswith(f"{study}:{expected}"), line
    assert not (folder / "out").exists()


def test_int_levels_that_repeat_name_the_range_s_ends_as_the_file_does(folder: Path) -> None:
    """An int range's ends were printed as decimals, "repeat in (1.0, 5.0)", for a file's
    ``range: [1, 5], type: int``."""
    study = folder / "study.yaml"
    study.write_text(GOOD.replace("values: [15, 25]", "range: [1, 5], type: int, levels: 10"))
    result = invoke("study", study, "--out", folder / "out")
    assert (result.exit_code, result.output) == (
        2,
        f"{study}:6: factors.0: options.fire_hcv: 10 int levels repeat in (1, 5)\n",
    )
    assert not (folder / "out").exists()


def test_a_factor_value_the_scenario_refuses_names_the_study_file(folder: Path) -> None:
    """A study file's factor gives a value the scenario's schema refuses: the one line is at
    the study file's line of that value, names the factor's field and the value, and the
    scenario's reason (``--sweep`` names the flag's point alone)."""
    study = folder / "study.yaml"
    study.write_text(GOOD.replace("values: [15, 25]", "values: [15, -25]"))
    line = 1 + GOOD.splitlines().index(next(t for t in GOOD.splitlines() if "values:" in t))
    result = invoke("study", study, "--out", folder / "out")
    assert (result.exit_code, result.output) == (
        2,
        f"{study}:{line}: factors.0.values.1: options.fire_hcv = -25: -25 is less than 0, the "
        "least it may be\n",
    )
    assert not (folder / "out").exists()


_ROUNDS = """\
name: typo
scenario: stone_wall.yaml
seed: 5
replication: 20
desing: grid
crn: yes
factors:
  - path: options.fire_hvc
    values: [15, 25]
  - path: map.terrain.0.cover
    value: [-20, -40]
  - path: sides.usa.units.28ma.quality
    values: [B, Q]
outputs:
  keep_replay: 1
"""


def test_every_problem_of_a_study_file_is_said_in_one_pass_by_line(folder: Path) -> None:
    """The schema's problems, a misspelt factor path and a factor value the scenario refuses
    are said at once, in the file's order: they came in three rounds (the path once the
    schema's were mended, the value once the path was), and the first out of line order
    (6, 11, 15, 4, 5)."""
    study = folder / "study.yaml"
    study.write_text(_ROUNDS)
    result = invoke("study", study, "--out", folder / "out")
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr.splitlines() == [
        f"{study}:4: replication: unknown field; did you mean 'replications'?",
        f"{study}:5: desing: unknown field; did you mean 'design'?",
        f"{study}:6: crn: 'yes' is not true or false (write true or false)",
        f"{study}:8: factors.0.path: no field 'fire_hvc' in options; did you mean "
        "'options.fire_hcv'?",
        f"{study}:11: factors.1.value: unknown field; did you mean 'values'?",
        f"{study}:13: factors.2.values.1: sides.usa.units.28ma.quality = \"Q\": 'Q' is not one "
        "of 'A', 'B', 'C', 'D', 'E' or 'F'",
        f"{study}:15: outputs.keep_replay: unknown field; did you mean 'keep_replays'?",
    ]
    assert not (folder / "out").exists()


@pytest.mark.parametrize(
    ("text", "errors"),
    [
        # a required field refused leaves the rest checked: the path too
        (GOOD.replace("replications: 3", "replications: 0").replace("fire_hcv", "fire_hvc"),
         ["4: replications: 0 is less than 1, the least it may be",
          "6: factors.0.path: no field 'fire_hvc' in options; did you mean "
          "'options.fire_hcv'?"]),
        # a factor left out for its range still has its path checked
        (GOOD.replace("options.fire_hcv, values: [15, 25]", "options.fire_hvc, range: [30, 20]"),
         ["6: factors.0.range: low 30 must be below high 20",
          "6: factors.0.path: no field 'fire_hvc' in options; did you mean "
          "'options.fire_hcv'?"]),
        # the factor after a left-out one is named at its own place and line
        (GOOD + "  - {path: options.fire_hcv, range: [30, 20]}\n"
         "  - {path: sides.csa.units.wash.strength, values: [4, 4]}\n",
         ["7: factors.1.range: low 30 must be below high 20",
          "7: factors.1.path: swept twice",
          "8: factors.2.values.1: the value 4 is named twice"]),
        # a misspelt design is read as the design meant: its points are no grid's
        (GOOD.replace("values: [15, 25]", "range: [15, 35]") + "desing: lhs\npoints: 4\n",
         ["7: desing: unknown field; did you mean 'design'?"]),
        # a design the schema refused: nothing said that reads it
        (GOOD.replace("values: [15, 25]", "range: [15, 35]") + "design: lhz\npoints: 4\n",
         ["7: design: 'lhz' is not one of 'grid', 'lhs', 'morris' or 'sobol'; did you mean "
          "'lhs'?"]),
        # a scenario the schema refused: not also 'name the scenario', and no path checked
        (GOOD.replace("scenario: stone_wall.yaml", "scenario: ''") + "points: 4\n",
         ["2: scenario: is empty: write it out",
          "7: points: 'points' applies to designs lhs, morris and sobol; a grid has every "
          "combination"]),
    ],
)  # fmt: skip
def test_a_study_files_problems_are_said_with_those_they_do_not_hide(
    folder: Path, text: str, errors: list[str]
) -> None:
    """Each check after the schema's is run unless it reads a field the schema refused, on
    the file as it was meant (a misspelt key read as the field its "did you mean" names), so
    its problems are said with the schema's, and none that only the refused field made."""
    study = folder / "study.yaml"
    study.write_text(text)
    result = invoke("study", study, "--out", folder / "out")
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr.splitlines() == [f"{study}:{e}" for e in errors]
    assert not (folder / "out").exists()


def test_a_study_files_problems_come_before_its_scenarios(folder: Path) -> None:
    """A study file naming a scenario with problems of its own: the study file's, by line,
    then the scenario's at its own lines (the scenario's came alone, the study's after)."""
    (folder / "stone_wall.yaml").write_text(
        (folder / "stone_wall.yaml").read_text().replace("quality: B", "quality: Q", 1)
    )
    study = folder / "study.yaml"
    study.write_text(GOOD.replace("replications: 3", "replications: 0") + "colour: red\n")
    result = invoke("study", study, "--out", folder / "out")
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr.splitlines() == [
        f"{study}:4: replications: 0 is less than 1, the least it may be",
        f"{study}:7: colour: unknown field",
        f"{folder / 'stone_wall.yaml'}:63: sides.0.units.1.quality: 'Q' is not one of 'A', "
        "'B', 'C', 'D', 'E' or 'F'",
    ]


def test_a_good_study_file_runs_and_exports(folder: Path) -> None:
    """The study above runs its 2 x 3 runs and exports parquet as its outputs ask."""
    study = folder / "study.yaml"
    study.write_text(GOOD + "outputs: {export: [parquet], plots: false}\n")
    result = invoke("study", study, "--out", folder / "out", "--jobs", "1")
    assert result.exit_code == 0, result.output
    assert "Point 1 (options.fire_hcv=25): 3 runs" in result.output
    names = sorted(p.name for p in (folder / "out" / "export").iterdir())
    assert names == ["points.parquet", "runs.parquet", "study.parquet", "unit_finals.parquet"]
    assert not (folder / "out" / "plots").exists()


def test_reinforcements_on_the_first_battle_are_refused(folder: Path) -> None:
    """Nothing is carried into a campaign's first battle, so reinforcements there would be
    dropped without a word (a reviewer's attack found them so): refused, located, exit 2."""
    campaign = folder / "c.yaml"
    campaign.write_text(
        "campaign: X\nbattles:\n"
        "  - id: a\n    scenario: stone_wall.yaml\n    reinforcements:\n      usa:\n"
        "        - {id: z, name: Z, kind: infantry, strength: 100, quality: C,"
        " weapon: rifle_musket, at: [1, 1], order: {kind: hold}}\n"
    )
    result = invoke("campaign", campaign, "--out", folder / "out")
    assert (result.exit_code, result.output) == (
        2,
        f"{campaign}:5: battles.0.reinforcements: the first battle has no battle before it "
        "to be reinforced after: put these units in its scenario\n",
    )
    assert not (folder / "out").exists()


def test_reinforcements_for_a_side_the_next_battle_lacks_are_said_once(folder: Path) -> None:
    """A reinforcement naming a side the next battle does not have is refused at the battle's
    reinforcements, the word said once (it said `battles.1.reinforcements: reinforcements:
    the next battle has no side 'xyz'`)."""
    campaign = folder / "c.yaml"
    campaign.write_text(
        "campaign: X\nbattles:\n  - {id: a, scenario: stone_wall.yaml}\n"
        "  - id: b\n    scenario: chancellorsville.yaml\n    reinforcements:\n      xyz: []\n"
    )
    result = invoke("campaign", campaign, "--out", folder / "out")
    assert (result.exit_code, result.output) == (
        2,
        f"{campaign}:6: battles.1.reinforcements: the next battle has no side 'xyz'\n",
    )
    assert not (folder / "out").exists()


def test_a_one_battle_campaigns_carry_over_settings_are_still_checked(folder: Path) -> None:
    """Nothing is carried out of a lone battle, but a misspelt setting is refused all the
    same, as it is in a longer campaign (a reviewer's attack found it accepted), with the
    setting it was meant to be, as a misspelt field of any file has."""
    campaign = folder / "c.yaml"
    text = (
        "campaign: X\ncarry_over: {{{key}: 3}}\n"
        "battles:\n  - {{id: a, scenario: stone_wall.yaml}}\n"
    )
    campaign.write_text(text.format(key="fatigue_recovry"))
    result = invoke("campaign", campaign, "--out", folder / "out")
    assert (result.exit_code, result.output) == (
        2,
        f"{campaign}:2: carry_over.fatigue_recovry: unknown field; did you mean "
        "'fatigue_recovery'?\n",
    )
    campaign.write_text(text.format(key="fatigue_recovery"))
    assert invoke("campaign", campaign, "--out", folder / "out").exit_code == 0


def test_bad_campaign_files_exit_2_naming_file_line_and_field(folder: Path) -> None:
    """A campaign's own fields, missing scenario files and bad reinforcements are located."""
    campaign = folder / "c.yaml"
    text = CAMPAIGN.read_text()
    campaign.write_text(
        text.replace("weapon: rifle_musket, at: [6, 2]", "weapon: pike, at: [6, 2]")
    )
    result = invoke("campaign", campaign)
    assert result.exit_code == 2
    line = text.splitlines().index("  - id: chancellorsville") + 1
    assert result.output.splitlines() == [
        f"{campaign}:{line}: battles.1: after carry-over: sides.0.units.4.weapon: unknown weapon "
        "'pike'; known: carbine, foot_6pdr, french_12pdr, napoleon_12pdr, rifle_musket, "
        "rifled_3in, smoothbore"
    ]
    campaign.write_text(text.replace("fatigue_recovery: 300", "fatigue_recover: 300"))
    result = invoke("campaign", campaign)
    line = (
        text.splitlines().index(
            "  fatigue_recovery: 300  # a winter in camp: one fatigue level recovered"
        )
        + 1
    )
    assert result.output.splitlines() == [
        f"{campaign}:{line}: carry_over.fatigue_recover: unknown field; did you mean "
        "'fatigue_recovery'?"
    ]
    campaign.write_text(text.replace("scenario: chancellorsville.yaml", "scenario: gone.yaml"))
    result = invoke("campaign", campaign)
    line = text.splitlines().index("    scenario: chancellorsville.yaml") + 1
    assert result.exit_code == 2
    assert result.output.startswith(f"{campaign}:{line}: battles.1.scenario: no scenario file ")


SWEPT = f"battlesim: error: {STONE_WALL}: "
"""How a refusal of a --sweep of the stone wall begins: it names the file swept."""


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--sweep", "options.fire_hvc=1"], f"{SWEPT}--sweep options.fire_hvc: no field"),
        (["--sweep", "options.fire_hcv"], "write FIELD.PATH=V1,V2,… or FIELD.PATH=LOW..HIGH"),
        (["--sweep", "options.fire_hcv=15..35"],
         "a range LOW..HIGH needs --design lhs, morris or sobol"),
        (["--design", "lhs", "--sweep", "options.fire_hcv=1..3"], "--design lhs needs --points K"),
        (["--design", "lhs", "--points", "3"], "--design lhs needs at least one --sweep"),
        (["--points", "3"], "--points applies to --design lhs"),
        (["--design", "sobol", "--points", "6", "--sweep", "options.fire_hcv=15..35"],
         "a sobol design needs --points a power of two (got 6)"),
        (["--design", "morris", "--sweep", "options.fire_hcv=15..35"],
         "--design morris needs --points K"),
        # one value varies nothing: the dice's noise between points became its Sobol' indices
        (["--design", "sobol", "--points", "2", "--sweep", "options.fire_hcv=15"],
         "battlesim: error: options.fire_hcv: a sobol design needs each factor to vary (two "
         "values or more, or a range); set a single value in the scenario instead"),
        # one point: it said "points 0 to 0"
        (["--baseline", "5"], "--baseline 5: the design has one point, 0"),
        (["--scheduler", "tcp://127.0.0.1:1"], "--scheduler needs --executor dask"),
        (["--sweep", "options.fire_hcv=15,25", "--sweep", "options.fire_hcv=35"],
         f"{SWEPT}--sweep options.fire_hcv: the field is swept twice (give its "
         "values once)"),
        # a value named twice: two identical design points, one "compared" with the other
        (["--sweep", "options.fire_hcv=15,25,15.0"],
         f"{SWEPT}--sweep options.fire_hcv: the value 15.0 is named twice"),
        # one field by its ids and by its indexes: the second factor set nothing
        (["--sweep", "sides.csa.units.wash.strength=4,8",
          "--sweep", "sides.1.units.2.strength=6,7"],
         f"{SWEPT}--sweep sides.1.units.2.strength: the field is swept twice, as "
         "sides.csa.units.wash.strength too (give its values once)"),
        # 1e400 reads as infinity: its design point was options.fire_hcv=NaN
        (["--design", "morris", "--points", "2", "--sweep", "options.fire_hcv=1..1e400"],
         f"{SWEPT}--sweep options.fire_hcv: Input should be a finite number"),
        # a side renamed at a point: its wins were counted as nobody's (rates adding to 22.5 %)
        (["--sweep", "sides.0.id=usa,union"],
         f"{SWEPT}--sweep sides.0.id: a study compares the same sides and units at "
         "every point, read by their ids: a factor cannot change an id (or the ruleset)"),
        # not an address: named, one line, before any work (dask raised a ValueError)
        (["--executor", "dask", "--scheduler", "notanaddress"],
         "battlesim: error: --scheduler notanaddress: cannot reach the Dask scheduler: "
         "missing port number in address 'notanaddress'"),
        (["--sweep", "map.terrain.1.cover=-10,-30",
          "--sweep", 'map.terrain.1={"terrain": "fence", "hexes": [[5, 7]]}'],
         f"{SWEPT}--sweep map.terrain.1: sweeps what --sweep map.terrain.1.cover "
         "sweeps (give one of them)"),
        (["--resume"], "--resume: no study to resume in"),
        (["--until-ci", "0.7"], "Invalid value for '--until-ci'"),
        (["--jobs", "0"], "Invalid value for '--jobs'"),
    ],
)  # fmt: skip
def test_bad_batch_flags_exit_2(tmp_path: Path, args: list[str], message: str) -> None:
    """Every bad flag is refused with exit 2 and a message naming it; no study is made."""
    result = invoke("batch", STONE_WALL, "--runs", "2", "--out", tmp_path / "s", *args)
    assert result.exit_code == 2, result.output
    assert message in result.output
    assert not (tmp_path / "s" / "study.duckdb").exists()


def test_lhs_from_the_command_line(tmp_path: Path) -> None:
    """--design lhs --points 3 with a range and a values list: 3 points, each run once."""
    result = invoke(
        "batch", STONE_WALL, "--runs", "1", "--out", tmp_path, "--jobs", "1", "--no-plots",
        "--design", "lhs", "--points", "3", "--sweep", "options.fire_hcv=15..35",
        "--sweep", "sides.csa.units.cobb.quality=A,C,E", "--json",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "Point 2" not in result.output  # --json: only the JSON summary
    assert result.output.count('"label"') == 3


def test_export_csv_is_ordered_by_key_and_export_of_nothing_exits_2(tmp_path: Path) -> None:
    """export --format csv writes tables sorted by key; a folder without a study exits 2."""
    assert (
        invoke(
            "batch", STONE_WALL, "--runs", "6", "--out", tmp_path, "--jobs", "2", "--no-plots"
        ).exit_code
        == 0
    )
    result = invoke("export", tmp_path, "--format", "csv")
    assert result.exit_code == 0
    runs = (tmp_path / "export" / "runs.csv").read_text().splitlines()
    assert runs[0].startswith("run_id,point,replication,seed,status,error,winner,")
    assert [int(r.split(",")[0]) for r in runs[1:]] == list(range(6))
    missing = invoke("export", tmp_path / "nothing", "--format", "parquet")
    assert missing.exit_code == 2
    assert "no study database at" in missing.output


def test_a_kept_replay_the_os_refuses_is_named_and_leaves_no_temp_file(tmp_path: Path) -> None:
    """A kept replay whose write the OS refuses (here the file size limit, EFBIG, as a
    full disk gives ENOSPC) is one line naming the replay, exit 2, and no
    ``.tmp`` file is left in ``replays/``."""
    import errno
    import os
    import resource
    import subprocess

    from tests.batch.helpers import battlesim_command

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (40_000, 40_000))  # a replay is ~60 KB

    out = tmp_path / "s"
    args = ["batch", str(STONE_WALL), "--runs", "2", "--jobs", "1", "--keep-replays", "1"]
    done = subprocess.run(
        [*battlesim_command(), *args, "--no-plots", "--out", str(out)],
        check=False,
        capture_output=True,
        text=True,
        preexec_fn=limit,
    )
    assert done.returncode == 2, done.stderr
    replay = out / "replays" / "run-0.jsonl"
    assert done.stderr == f"battlesim: error: {replay}: {os.strerror(errno.EFBIG)}\n"
    assert list((out / "replays").iterdir()) == []


@pytest.mark.parametrize(
    ("campaign", "sweep", "message"),
    [
        ("carrier_war_campaign.yaml", "battles.day2.scenario.sides.blue.task_forces.0.cap=-1",
         "-1 is less than 0, the least it may be"),
        ("delve_campaign.yaml", "battles.lair.scenario.sides.0.characters.alaric.hp=0",
         "0 is less than 1, the least it may be"),
    ],
)  # fmt: skip
def test_a_bad_value_swept_into_a_later_battle_is_refused_before_any_run(
    tmp_path: Path, campaign: str, sweep: str, message: str
) -> None:
    """A campaign's later battles are fought after the earlier ones, but a value no battle
    could take is refused up front, as in its first battle (every run failed, exit 0)."""
    path = SCENARIOS / campaign
    result = invoke("batch", path, "--runs", "5", "--out", tmp_path / "s", "--sweep", sweep)
    assert result.exit_code == 2, result.output
    flag = f"--sweep {sweep.partition('=')[0]}"  # the flag as typed, as run --set names it
    assert result.output == (
        f"battlesim: error: {path}: {flag}: design point 0 ({sweep}): {message}\n"
    )
    assert not (tmp_path / "s" / "study.duckdb").exists()


def test_campaign_replaces_what_it_wrote_and_no_other_file_without_force(tmp_path: Path) -> None:
    """Its earlier replays and campaign.json are replaced; a file of the user's there
    (where a replay or campaign.json goes) is refused, exit 2, unless --force."""
    delve, out = SCENARIOS / "delve_campaign.yaml", tmp_path / "c"
    assert invoke("campaign", delve, "--out", out).exit_code == 0
    assert invoke("campaign", delve, "--out", out).exit_code == 0  # its own: replaced
    for name in ("campaign.json", "2-guardroom.jsonl"):
        (out / name).write_text("precious\n")
        result = invoke("campaign", delve, "--out", out)
        assert result.exit_code == 2
        what = "a campaign.json" if name.endswith(".json") else "a replay"
        assert result.output == (
            f"battlesim: error: --out {out / name}: the file is not {what} battlesim wrote; "
            "add --force to overwrite it, or choose another name\n"
        )
        assert (out / name).read_text() == "precious\n"
        assert invoke("campaign", delve, "--out", out, "--force").exit_code == 0
        assert (out / name).read_text() != "precious\n"


def test_campaign_refuses_a_study_folder_as_batch_refuses_a_campaigns(tmp_path: Path) -> None:
    """campaign --out a batch study's folder is one line naming the folder, exit 2, --force
    or not, and nothing is written into it (it wrote its replays and campaign.json beside the
    study's files), in the words batch --out a campaign's folder is refused in."""
    delve, study, fought = SCENARIOS / "delve_campaign.yaml", tmp_path / "s", tmp_path / "c"
    assert invoke("batch", STONE_WALL, "--runs", "2", "--out", study, "--no-plots").exit_code == 0
    held = sorted(p.name for p in study.iterdir())
    for force in ((), ("--force",)):
        result = invoke("campaign", delve, "--out", study, *force)
        assert (result.exit_code, result.stdout, result.stderr) == (
            2,
            "",
            f"battlesim: error: {str(study)!r} holds a study: name a new or empty folder "
            "(a campaign never writes into a study's folder)\n",
        )
        assert sorted(p.name for p in study.iterdir()) == held
    assert invoke("campaign", delve, "--out", fought).exit_code == 0
    refused = invoke("batch", STONE_WALL, "--runs", "2", "--out", fought)
    assert (refused.exit_code, refused.stderr) == (
        2,
        f"battlesim: error: {str(fought)!r} holds files that no study made: name a new or empty "
        "folder (a study never writes over files it did not create)\n",
    )


def test_campaign_refuses_a_folder_inside_a_study_as_the_study_itself(tmp_path: Path) -> None:
    """campaign --out a subfolder of a batch study's folder (one the user made there, one
    to be made two deep, one reached through ..) is one line naming the folder and the study,
    exit 2, --force or not, and nothing is made or written in the study (it wrote its replays
    and campaign.json there, as into the study's folder itself before that was refused)."""
    delve, study = SCENARIOS / "delve_campaign.yaml", tmp_path / "s"
    assert invoke("batch", STONE_WALL, "--runs", "2", "--out", study, "--no-plots").exit_code == 0
    (study / "mine").mkdir()
    held = sorted(str(p.relative_to(study)) for p in study.rglob("*"))
    for out in (study / "mine", study / "new" / "deeper", study / "mine" / ".." / "other"):
        for force in ((), ("--force",)):
            result = invoke("campaign", delve, "--out", out, *force)
            assert (result.exit_code, result.stdout, result.stderr) == (
                2,
                "",
                f"battlesim: error: {str(out)!r} is inside the study {str(study)!r}, whose "
                "files its manifest lists: name a folder outside it (a campaign never writes "
                "into a study's folder)\n",
            )
            assert sorted(str(p.relative_to(study)) for p in study.rglob("*")) == held
    beside = tmp_path / "beside"  # a folder next to the study is the user's to use
    assert invoke("campaign", delve, "--out", beside).exit_code == 0
    assert (beside / "campaign.json").is_file()


def test_export_to_a_folder_of_the_users_needs_force_to_replace_a_file(tmp_path: Path) -> None:
    study, out = tmp_path / "s", tmp_path / "x"
    assert invoke("batch", STONE_WALL, "--runs", "2", "--out", study, "--no-plots").exit_code == 0
    out.mkdir()
    (out / "runs.csv").write_text("precious\n")
    result = invoke("export", study, "--format", "csv", "--out", out)
    assert result.exit_code == 2
    assert result.output == (
        f"battlesim: error: --out: '{out / 'runs.csv'}' already exists; add --force to "
        "overwrite it, or choose another folder\n"
    )
    assert sorted(p.name for p in out.iterdir()) == ["runs.csv"]
    assert invoke("export", study, "--format", "csv", "--out", out, "--force").exit_code == 0
    assert (out / "runs.csv").read_text().startswith("run_id,")
    for _ in range(2):  # the study's own export/ folder: an earlier export is replaced
        assert invoke("export", study, "--format", "csv").exit_code == 0


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="/proc, where no folder is made")
def test_export_to_a_folder_that_cannot_be_made_names_out(tmp_path: Path) -> None:
    """An --out where no folder can be made was told as "battlesim: error: /proc/x: No such
    file or directory", without the flag: it is named, as batch's --out errors name it."""
    study = tmp_path / "s"
    assert invoke("batch", STONE_WALL, "--runs", "2", "--out", study, "--no-plots").exit_code == 0
    for wide in ([], ["--wide"]):
        result = invoke("export", study, "--format", "csv", "--out", "/proc/x", *wide)
        assert (result.exit_code, result.stdout, result.stderr) == (
            2,
            "",
            "battlesim: error: --out /proc/x: cannot write the export there: No such file or "
            "directory\n",
        )


def test_an_interrupt_as_the_workers_shut_down_counts_the_runs_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ctrl-C after every run is committed, while the pool shuts down: the message counts
    the runs kept (the store was left open, so it said "no run is kept")."""
    import contextlib
    from collections.abc import Iterator

    from sim.batch import study
    from sim.batch.execution.executors import InlineExecutor

    @contextlib.contextmanager
    def interrupted_at_exit(*_args: object) -> Iterator[InlineExecutor]:
        yield InlineExecutor()
        raise KeyboardInterrupt

    monkeypatch.setattr(study, "open_executor", interrupted_at_exit)
    result = invoke("batch", STONE_WALL, "--runs", "6", "--out", tmp_path / "s", "--no-plots")
    assert result.exit_code == 1
    assert result.stderr.splitlines()[-1] == (
        "battlesim: interrupted; the committed chunks are kept (6 runs) — run the same "
        "command with --resume to complete the study"
    )


def test_a_new_study_over_a_database_of_anothers_says_it_is_no_study(tmp_path: Path) -> None:
    """Not "already holds a study: --resume completes it", which --resume then refuses."""
    import duckdb

    out = tmp_path / "s"
    out.mkdir()
    with duckdb.connect(str(out / "study.duckdb")) as con:
        con.execute("CREATE TABLE t (x INTEGER)")
    result = invoke("batch", STONE_WALL, "--runs", "2", "--out", out)
    assert result.exit_code == 2
    assert result.output == (
        f"battlesim: error: {str(out / 'study.duckdb')!r} is not a battlesim study: it has no "
        "table 'points': choose another --out (there is no study to --resume)\n"
    )


RENAMING_STUDY = """\
name: rename by mapping
scenario: {scenario}
seed: 1
replications: 4
design: grid
factors:
  - path: sides.0
    values:
      - {{id: thorgrim, name: Thorgrim, characters: [{character}]}}
      - {{id: hero, name: Thorgrim, characters: [{character}]}}
"""
THORGRIM = (
    "{id: thorgrim, name: Thorgrim, class: fighter, level: 4, abilities: {strength: 16, "
    "dexterity: 13, constitution: 14}, armour_ac: 9, hp: 24, at: [30, 10], attack: strike, "
    "target: grub, tactics: advance}"
)


def test_a_whole_side_as_a_factors_value_may_not_rename_it(tmp_path: Path) -> None:
    """The side as a mapping, its id 'hero' at point 1: the study ran and counted its wins
    as nobody's (rates adding to 30 %, a "significant" -50 points)."""
    study = tmp_path / "ren.yaml"
    brawl = SCENARIOS / "tavern_brawl.yaml"
    study.write_text(RENAMING_STUDY.format(scenario=brawl, character=THORGRIM))
    result = invoke("study", str(study), "--out", str(tmp_path / "s"), "-q")
    assert result.exit_code == 2
    assert result.stderr.startswith("battlesim: error: design point 1 (sides.0={")
    assert result.stderr.endswith(
        "has sides ['hero', 'orcs'] and units ['thorgrim', 'grub', 'snaga'], not the battle's "
        "['thorgrim', 'orcs'] and ['thorgrim', 'grub', 'snaga']: a study compares the same "
        "sides and units at every point, read by their ids\n"
    )


_TWO_PROBLEMS = (
    "campaign: X\ncarry_over:\n  {setting}: 3\nbattles:\n  - {{id: a, scenario: stone_wall.yaml}}\n"
    "  - id: b\n    scenario: chancellorsville.yaml\n    reinforcements:\n      {side}:\n"
    "        - {{id: z, name: Z, kind: infantry, strength: 100, quality: C,"
    " weapon: rifle_musket, at: [1, 1], order: {{kind: hold}}}}\n"
)


def test_every_problem_of_a_campaign_file_is_said_in_one_pass(folder: Path) -> None:
    """A misspelt setting and a misspelt side id are both said, each at its line, the side
    with the side it was meant to be (it said the setting alone, and then the side with no
    "did you mean")."""
    campaign = folder / "c.yaml"
    campaign.write_text(_TWO_PROBLEMS.format(setting="fatigue_recovry", side="usx"))
    result = invoke("campaign", campaign, "--out", folder / "out")
    assert (result.exit_code, result.output.splitlines()) == (
        2,
        [
            f"{campaign}:3: carry_over.fatigue_recovry: unknown field; did you mean "
            "'fatigue_recovery'?",
            f"{campaign}:8: battles.1.reinforcements: the next battle has no side 'usx'; did "
            "you mean 'usa'?",
        ],
    )
    assert not (folder / "out").exists()


def test_validate_checks_a_campaign_file(folder: Path) -> None:
    """`validate` checks a campaign file as `campaign` does, every problem at its line, exit
    2; a good one is OK, exit 0 (it refused every campaign file: 'not a scenario')."""
    campaign = folder / "c.yaml"
    campaign.write_text(_TWO_PROBLEMS.format(setting="fatigue_recovry", side="usx"))
    bad = invoke("validate", campaign)
    assert (bad.exit_code, bad.stdout) == (2, "")
    assert bad.stderr == invoke("campaign", campaign, "--out", folder / "out").output
    campaign.write_text(_TWO_PROBLEMS.format(setting="fatigue_recovery", side="usa"))
    good = invoke("validate", campaign)
    assert (good.exit_code, good.stdout) == (
        0,
        f"OK: {campaign} is a valid musket campaign of 2 battles: X\n",
    )
    # each battle's warnings, at its scenario's lines, as validate of that scenario says them
    names = ("stone_wall.yaml", "chancellorsville.yaml")
    each = [invoke("validate", folder / n) for n in names]
    assert good.stderr == "".join(r.stderr for r in each)
    assert good.stderr  # stone_wall's rifled guns on the ridge reach no enemy
    data = json.loads(invoke("validate", campaign, "--json").stdout)
    said = [json.loads(invoke("validate", folder / n, "--json").stdout) for n in names]
    warned = [w for one in said for w in one["warnings"]]
    assert data == {"file": str(campaign), "ok": True, "ruleset": "musket", "name": "X",
                    "kind": "campaign", "battles": ["a", "b"], "warnings": warned}  # fmt: skip
