"""Tests of the battlesim command line: exit codes and exact output of every command."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from engine.canonical import canonical_json
from engine.log import GENESIS, seal
from sim import api
from sim.cli import cli
from sim.contract.registry import get_ruleset

REPO = Path(__file__).resolve().parents[2]
STONE_WALL = REPO / "tests" / "data" / "rules1" / "stone_wall.yaml"
MUSKET_VERSION = get_ruleset("musket").version
"""The musket rules a battle is fought under today (its options set as version 1's)."""
"""The stone wall as it was before issue 22, with musket rules version 1's options: the
battles these tests pin (the shipped scenarios/stone_wall.yaml was rebuilt)."""
CORPUS = REPO / "tests" / "data" / "bad_scenarios"
CORPUS_FILES = sorted(p.name for p in CORPUS.glob("*.yaml"))
SEED_ERROR = "Error: Invalid value for '--seed':"
NOT_A_SEED = "is not a seed: use a whole number from 0 to 9223372036854775807"
CHAIN_BROKEN = "hash chain broken: this line, or one before it, was edited, dropped or reordered"


def _expected() -> dict[str, list[str]]:
    """EXPECTED.txt as {file name: its error lines, in order}."""
    out: dict[str, list[str]] = {}
    for line in (CORPUS / "EXPECTED.txt").read_text(encoding="utf-8").splitlines():
        if line and not line.startswith("#"):
            out.setdefault(line.split(":", 1)[0], []).append(line)
    return out


EXPECTED = _expected()


def _invoke(*args: str) -> Result:
    """Run the CLI as the console script would, failing on any escaped exception."""
    result = CliRunner().invoke(cli, list(args), prog_name="battlesim")
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    assert "Traceback" not in result.output
    return result


@pytest.fixture(scope="module")
def replay(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh replay of stone_wall.yaml with seed 7 (do not modify; copy it)."""
    out = tmp_path_factory.mktemp("replay") / "sw7.jsonl"
    assert _invoke("run", str(STONE_WALL), "--seed", "7", "--out", str(out)).exit_code == 0
    return out


def _altered(replay: Path, tmp_path: Path, change: Callable[[list[str]], list[str]]) -> Path:
    """A copy of ``replay`` whose lines ``change`` rewrote (newline-terminated)."""
    path = tmp_path / "altered.jsonl"
    lines = replay.read_text(encoding="utf-8").split("\n")[:-1]
    path.write_text("".join(f"{line}\n" for line in change(lines)), encoding="utf-8")
    return path


def _events(replay: Path) -> int:
    """How many events a replay holds: its lines less header and footer."""
    return len(replay.read_bytes().splitlines()) - 2


def _casualty_edited(lines: list[str]) -> tuple[int, list[str]]:
    """The index of the first fire line, and the lines with one digit of its casualties changed."""
    i = next(i for i, line in enumerate(lines) if '"casualties":' in line)
    line = re.sub(
        r'"casualties":(\d*)(\d),',
        lambda m: f'"casualties":{m[1]}{(int(m[2]) + 1) % 10},',
        lines[i],
    )
    assert line != lines[i]
    return i, [*lines[:i], line, *lines[i + 1 :]]


def _resealed(lines: list[str]) -> list[str]:
    """The lines with their hash chain recomputed, as a careful forger would."""
    out, h = [], GENESIS
    for line in lines:
        sealed, h = seal(h, line[: line.rindex(',"h":"')] + "}")
        out.append(sealed)
    return out


def _with_header_unit(lines: list[str], **changes: object) -> list[str]:
    """Lines whose header's first unit has ``changes``, chain resealed."""
    header = json.loads(lines[0])
    del header["h"]
    header["scenario"]["sides"][0]["units"][0].update(changes)
    return _resealed([f'{canonical_json(header)[:-1]},"h":"{"0" * 32}"}}', *lines[1:]])


# validate


@pytest.mark.parametrize("name", CORPUS_FILES)
def test_validate_bad_scenario_exits_2_listing_every_error(name: str) -> None:
    """`validate` on a broken scenario exits 2 and prints exactly its error lines on stderr."""
    result = _invoke("validate", str(CORPUS / name))
    assert result.exit_code == 2
    assert result.stdout == ""
    assert result.stderr == "".join(f"{CORPUS}/{line}\n" for line in EXPECTED[name])


# The rules-1 stone wall: Arnold's battery (1ri, Napoleons reaching 3 hexes) stands
# more than 3 hexes from every Confederate unit, holds, and no Confederate moves, so
# it never fires in that battle (its golden has no 1ri event): musket's reach hook says so.
NEVER_REACHES = (
    f"{STONE_WALL}:76: sides.0.units.3: warning: unit '1ri' can never reach an enemy: "
    "it does not move, no enemy is in its reach (napoleon_12pdr reaches 3 hexes) and none moves"
)


def test_validate_stone_wall_exits_0_with_ok_line() -> None:
    """`validate` on the rules-1 stone wall exits 0 with the one OK line (and its one warning)."""
    result = _invoke("validate", str(STONE_WALL))
    assert (result.exit_code, result.stderr) == (0, NEVER_REACHES + "\n")
    assert result.stdout == (
        f"OK: {STONE_WALL} is a valid musket scenario: Stone wall at Marye's Heights\n"
    )


def test_validate_missing_file_exits_2() -> None:
    """`validate` on a path that does not exist exits 2 saying so in plain words (no line 0)."""
    result = _invoke("validate", "/nonexistent/nope.yaml")
    assert result.exit_code == 2
    assert result.stderr == "battlesim: error: /nonexistent/nope.yaml: no such file\n"


def test_validate_generated_bad_files_exit_2(tmp_path: Path) -> None:
    """Non-UTF-8 bytes and an oversized file exit 2 with one located line each."""
    latin1 = tmp_path / "latin1.yaml"
    latin1.write_bytes(b"ruleset: musket\nname: Gu\xe9\n")
    big = tmp_path / "big.yaml"
    big.write_bytes(b"#" * (2 * 1024 * 1024 + 1))
    results = [_invoke("validate", str(p)) for p in (latin1, big)]
    assert [(r.exit_code, r.stderr) for r in results] == [
        (2, f"{latin1}:2: not UTF-8 text\n"),
        (2, f"{big}:1: file too large (limit 2097152 bytes)\n"),
    ]


# run


@pytest.mark.parametrize("name", CORPUS_FILES)
def test_run_bad_scenario_exits_2_and_writes_nothing(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`run` on a broken scenario exits 2 listing its errors; no replay by default or at --out."""
    monkeypatch.chdir(tmp_path)
    expected = "".join(f"{CORPUS}/{line}\n" for line in EXPECTED[name])
    default = _invoke("run", str(CORPUS / name))
    out = _invoke("run", str(CORPUS / name), "--out", str(tmp_path / "out.jsonl"))
    assert [(r.exit_code, r.stdout, r.stderr) for r in (default, out)] == [(2, "", expected)] * 2
    assert list(tmp_path.iterdir()) == []


def test_run_prints_outcome_and_writes_default_replay(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`run --seed 7` prints the pinned outcome and writes stone_wall-s7.jsonl in the cwd."""
    monkeypatch.chdir(tmp_path)
    result = _invoke("run", str(STONE_WALL), "--seed", "7")
    assert (result.exit_code, result.stderr) == (0, "")
    assert result.stdout.splitlines() == [
        "stone_wall.yaml (seed 7): Confederate wins after 9 turns — "
        "every other army broke; Confederate holds the field",
        "  Union: 606 men and 0 guns lost; 0 routed, 0 eliminated of 4 units — broken",
        "  Confederate: 164 men and 0 guns lost; 0 routed, 0 eliminated of 3 units",
        "Replay: stone_wall-s7.jsonl (91 events)",
    ]
    assert [p.name for p in tmp_path.iterdir()] == ["stone_wall-s7.jsonl"]
    assert len((tmp_path / "stone_wall-s7.jsonl").read_bytes().splitlines()) == 91 + 2


def test_run_json_prints_one_pinned_object(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`run --json` prints one JSON object on one line with the seed-7 outcome."""
    monkeypatch.chdir(tmp_path)
    result = _invoke("run", str(STONE_WALL), "--seed", "7", "--json")
    assert (result.exit_code, result.stderr) == (0, "")
    assert result.stdout.count("\n") == 1
    got = json.loads(result.stdout)
    assert {
        k: got[k]
        for k in ("scenario", "ruleset", "ruleset_version", "seed", "winner", "turns", "events")
    } == {
        "scenario": str(STONE_WALL),
        "ruleset": "musket",
        "ruleset_version": MUSKET_VERSION,  # the rules it was fought under, as its header says
        "seed": 7,
        "winner": "csa",
        "turns": 9,
        "events": 91,
    }
    assert got["replay"] == "stone_wall-s7.jsonl"
    header = json.loads((tmp_path / got["replay"]).read_text().splitlines()[0])
    assert header["ruleset_version"] == got["ruleset_version"]
    assert got["losses"] == {"csa": {"guns": 0, "men": 164}, "usa": {"guns": 0, "men": 606}}
    assert sorted(got) == [
        "events",
        "losses",
        "reason",
        "replay",
        "ruleset",
        "ruleset_version",
        "scenario",
        "seed",
        "sides",
        "turns",
        "winner",
        "winner_name",
    ]


def test_run_default_seed_is_the_scenarios(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Without --seed, `run` uses the scenario's own seed (1862) and names the replay by it."""
    monkeypatch.chdir(tmp_path)
    result = _invoke("run", str(STONE_WALL), "--json")
    assert result.exit_code == 0
    assert json.loads(result.stdout)["seed"] == 1862
    assert [p.name for p in tmp_path.iterdir()] == ["stone_wall-s1862.jsonl"]


def test_run_out_into_missing_directory_exits_2(tmp_path: Path) -> None:
    """`run --out` into a directory that does not exist exits 2 naming it, writing nothing."""
    missing = tmp_path / "missing"
    result = _invoke("run", str(STONE_WALL), "--out", str(missing / "r.jsonl"))
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == (
        f"battlesim: error: --out {missing / 'r.jsonl'}: folder {str(missing)!r} does not exist\n"
    )
    assert not missing.exists()


def test_run_out_onto_the_scenario_exits_2_and_keeps_it(tmp_path: Path) -> None:
    """`run --out` naming the scenario file itself exits 2 instead of overwriting it."""
    scenario = tmp_path / "sw.yaml"
    shutil.copy(STONE_WALL, scenario)
    result = _invoke("run", str(scenario), "--out", str(scenario))
    assert (result.exit_code, result.stdout) == (2, "")
    assert (
        result.stderr == f"battlesim: error: --out {scenario}: that is the scenario file itself\n"
    )
    assert scenario.read_bytes() == STONE_WALL.read_bytes()


def test_run_python_tag_never_executes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`run` on the python-tag scenario exits 2 and its shell command leaves no marker file."""
    monkeypatch.chdir(tmp_path)
    result = _invoke("run", str(CORPUS / "python_tag.yaml"))
    assert result.exit_code == 2
    assert list(tmp_path.iterdir()) == []


def test_run_logs_json_when_asked(tmp_path: Path) -> None:
    """`--log-json --log-level info run` writes one JSON log line about the battle on stderr."""
    out = tmp_path / "r.jsonl"
    args = ["--log-json", "--log-level", "info", "run", str(STONE_WALL), "--seed", "7"]
    result = _invoke(*args, "--out", str(out), "--json")
    assert result.exit_code == 0
    [line] = result.stderr.splitlines()
    record = json.loads(line)
    assert sorted(record) == ["event", "events", "level", "replay", "scenario", "seed", "timestamp"]
    assert {k: record[k] for k in ("event", "level", "seed", "events", "replay")} == {
        "event": "battle fought",
        "level": "info",
        "seed": 7,
        "events": 91,
        "replay": str(out),
    }


@pytest.mark.parametrize(
    ("flag", "message"),
    [
        ("-5", f"{SEED_ERROR} -5 {NOT_A_SEED}"),
        ("abc", f"{SEED_ERROR} 'abc' {NOT_A_SEED}"),
        ("9223372036854775808", f"{SEED_ERROR} 9223372036854775808 {NOT_A_SEED}"),
    ],
)
def test_run_bad_seed_exits_2(flag: str, message: str, tmp_path: Path) -> None:
    """A seed that is negative, not a number or past 2**63-1 is a usage error: exit 2."""
    result = _invoke("run", str(STONE_WALL), "--seed", flag, "--out", str(tmp_path / "r.jsonl"))
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr.splitlines()[-1] == message
    assert list(tmp_path.iterdir()) == []


def test_unknown_flag_exits_2() -> None:
    """An option no command has is a usage error: exit 2 naming it."""
    result = _invoke("run", str(STONE_WALL), "--sed", "7")
    assert result.exit_code == 2
    assert result.stderr.splitlines()[-1] == (
        "Error: No such option '--sed'. (Did you mean one of: '--seed', '--set'?)"
    )


# verify


def test_verify_fresh_replay_exits_0(replay: Path) -> None:
    """`verify` of a fresh replay exits 0 with the OK line."""
    result = _invoke("verify", str(replay))
    assert (result.exit_code, result.stderr) == (0, "")
    assert result.stdout == f"OK: {replay}: 91 events, intact, lawful, re-simulates byte for byte\n"


def test_verify_edited_casualty_digit_exits_1_naming_seq(replay: Path, tmp_path: Path) -> None:
    """One digit changed in the first casualty count breaks the chain on its line: exit 1."""
    i, _ = _casualty_edited(replay.read_text(encoding="utf-8").split("\n"))
    path = _altered(replay, tmp_path, lambda lines: _casualty_edited(lines)[1])
    result = _invoke("verify", str(path))
    assert result.exit_code == 1
    assert (
        result.stdout == f"DAMAGED at seq {i - 1}: {path}:{i + 1} (seq {i - 1}): {CHAIN_BROKEN}\n"
    )


def test_verify_deleted_middle_line_exits_1_naming_seq(replay: Path, tmp_path: Path) -> None:
    """Deleting line 20 (seq 18) is found at line 20, where seq 18 should be: exit 1."""
    path = _altered(replay, tmp_path, lambda lines: [*lines[:19], *lines[20:]])
    result = _invoke("verify", str(path))
    assert result.exit_code == 1
    assert result.stdout == f"DAMAGED at seq 18: {path}:20 (seq 18): {CHAIN_BROKEN}\n"


def test_verify_dropped_footer_exits_1_naming_seq(replay: Path, tmp_path: Path) -> None:
    """A replay of n events without its footer is incomplete after seq n-1: exit 1 naming seq n."""
    n = _events(replay)
    path = _altered(replay, tmp_path, lambda lines: lines[:-1])
    result = _invoke("verify", str(path))
    assert result.exit_code == 1
    assert result.stdout == (
        f"INCOMPLETE at seq {n}: {path}:{n + 2} (seq {n}): "
        f"incomplete: no footer after seq {n - 1} (a run stopped before the end?)\n"
    )


def _half_cut(replay: Path, tmp_path: Path) -> Path:
    """The replay without its footer and with its last event line cut in half."""
    path = tmp_path / "half.jsonl"
    lines = replay.read_bytes().split(b"\n")[:-2]
    path.write_bytes(b"\n".join([*lines[:-1], lines[-1][: len(lines[-1]) // 2]]))
    return path


def test_verify_half_cut_last_line_exits_1(replay: Path, tmp_path: Path) -> None:
    """A last line cut in half (a crash mid-write) is reported as incomplete: exit 1."""
    n = _events(replay)
    path = _half_cut(replay, tmp_path)
    result = _invoke("verify", str(path))
    assert result.exit_code == 1
    assert result.stdout == (
        f"INCOMPLETE at seq {n - 1}: {path}:{n + 1} (seq {n - 1}): "
        "incomplete: the last line was cut short (a run stopped while writing?)\n"
    )


def test_verify_half_cut_last_line_names_seq(replay: Path, tmp_path: Path) -> None:
    """A half-written last event line (seq n-1) is named by its seq, like every other damage."""
    result = _invoke("verify", str(_half_cut(replay, tmp_path)))
    assert result.stdout.startswith(f"INCOMPLETE at seq {_events(replay) - 1}: ")


def test_verify_resealed_edit_exits_1_with_the_broken_invariant(
    replay: Path, tmp_path: Path
) -> None:
    """An edit whose hash chain was recomputed passes the chain but not the audit: the
    fatigue drawn from the casualties, (c + 2c·u) × 1, no longer follows from the edited c
    (re-simulation found it too, MISMATCH … in: result.casualties): exit 1."""

    i, edited = _casualty_edited(replay.read_text(encoding="utf-8").split("\n"))
    result_of = json.loads(edited[i])["result"]
    c, u = result_of["casualties"], result_of["draws"][-3][2]
    path = _altered(replay, tmp_path, lambda lines: _resealed(_casualty_edited(lines)[1]))
    result = _invoke("verify", str(path))
    assert result.exit_code == 1
    assert result.stdout == (
        f"INVARIANT broken at seq {i - 1} (line {i + 1}): musket.fired: result.fatigue_value "
        f"{result_of['fatigue_value']} is not (b + 2b·u) × 1.0 from b = {c} and its draw: it "
        f"is {c + 2 * c * u}\n"
    )


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        (
            {"strength": 0},
            "header scenario is invalid: sides.0.units.0.strength: "
            "Input should be greater than or equal to 1",
        ),
        (
            {"order": {"kind": "charge", "target": "zz", "to": None}},
            "header scenario is invalid: sides.0.units.0.order.target: no unit 'zz'",
        ),
        (
            {"weapon": "laser"},
            "header scenario is invalid: sides.0.units.0.weapon: unknown weapon 'laser'; "
            "known: carbine, foot_6pdr, french_12pdr, napoleon_12pdr, rifle_musket, "
            "rifled_3in, smoothbore",
        ),
    ],
)
def test_verify_forged_invalid_header_exits_1(
    changes: dict[str, object], message: str, replay: Path, tmp_path: Path
) -> None:
    """A resealed header whose scenario fails its checks is damage at line 1, not a traceback."""
    path = _altered(replay, tmp_path, lambda lines: _with_header_unit(lines, **changes))
    result = _invoke("verify", str(path))
    assert result.exit_code == 1
    assert result.stdout == f"DAMAGED at line 1: {path}:1: {message}\n"


def test_verify_garbage_file_exits_2(tmp_path: Path) -> None:
    """A file that is not a replay at all is bad input (exit 2), not a damaged replay (1)."""
    path = tmp_path / "garbage.jsonl"
    path.write_text("hello\n")
    result = _invoke("verify", str(path))
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == f"battlesim: error: {path}:1: not a battlesim replay\n"


def test_verify_missing_file_exits_2(tmp_path: Path) -> None:
    """`verify` of a path that does not exist is bad input (exit 2), not a damaged replay."""
    result = _invoke("verify", str(tmp_path / "nope.jsonl"))
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == f"battlesim: error: {tmp_path / 'nope.jsonl'}: no such file\n"


# show

END_OF_BATTLE = [
    "Stone wall at Marye's Heights — end of battle (turn 9)",
    "unit                               side         col,row  strength"
    "     status     fatigue  morale     men_lost  guns_lost",
    "69th New York                      Union        6,5      120/450"
    " men  -              780  good            330          0",
    "28th Massachusetts                 Union        7,5      388/400"
    " men  -               20  good             12          0",
    "116th Pennsylvania                 Union        8,4      116/380"
    " men  disrupted      536  disrupted       264          0",
    "1st Rhode Island Light, Battery A  Union        7,11     6/6"
    " guns     -                0  good              0          0",
    "24th Georgia                       Confederate  5,3      475/500"
    " men  -               73  good             25          0",
    "Cobb's Legion                      Confederate  7,3      281/420"
    " men  -              263  good            139          0",
    "Washington Artillery               Confederate  7,1      4/4"
    " guns     -                0  good              0          0",
]
"""The seed-7 battle's final table: full names, side names, every unit's contract row."""


def test_show_men_lost_is_initial_less_strength(replay: Path) -> None:
    """In every row of `show`, men lost = initial - strength for regiments (a derived check)."""
    for line in _invoke("show", str(replay)).stdout.splitlines()[2:]:
        cells = line.split()
        kept, initial = (int(x) for x in next(c for c in cells if "/" in c).split("/"))
        if "men" in cells:
            assert int(cells[-2]) == initial - kept


def test_show_prints_final_state(replay: Path) -> None:
    """`show` prints the state folded to the end of the battle (seed 7: turn 9)."""
    result = _invoke("show", str(replay))
    assert (result.exit_code, result.stderr) == (0, "")
    assert result.stdout.splitlines() == END_OF_BATTLE


def test_show_turn_2_prints_that_turns_state(replay: Path) -> None:
    """`show --turn 2` prints the state at the end of turn 2."""
    result = _invoke("show", "--turn", "2", str(replay))
    assert (result.exit_code, result.stderr) == (0, "")
    assert result.stdout.splitlines() == [
        "Stone wall at Marye's Heights — end of turn 2",
        "unit                               side         col,row  strength"
        "     status     fatigue  morale     men_lost  guns_lost",
        "69th New York                      Union        6,5      394/450"
        " men  -              108  good             56          0",
        "28th Massachusetts                 Union        7,5      388/400"
        " men  -               20  good             12          0",
        "116th Pennsylvania                 Union        8,4      340/380"
        " men  disrupted       74  disrupted        40          0",
        "1st Rhode Island Light, Battery A  Union        7,11     6/6"
        " guns     -                0  good              0          0",
        "24th Georgia                       Confederate  5,3      489/500"
        " men  -               41  good             11          0",
        "Cobb's Legion                      Confederate  7,3      410/420"
        " men  -               15  good             10          0",
        "Washington Artillery               Confederate  7,1      4/4"
        " guns     -                0  good              0          0",
    ]


def test_show_turn_9_equals_the_end(replay: Path) -> None:
    """`show --turn 9` (the last turn) shows the same table as the end of battle."""
    result = _invoke("show", "--turn", "9", str(replay))
    assert result.exit_code == 0
    assert result.stdout.splitlines() == [
        "Stone wall at Marye's Heights — end of turn 9",
        *END_OF_BATTLE[1:],
    ]


def test_show_events_narrates_the_battle(replay: Path) -> None:
    """`show --events` narrates the battle line by line, from the first move to the victory."""
    result = _invoke("show", "--events", str(replay))
    assert (result.exit_code, result.stderr) == (0, "")
    lines = result.stdout.splitlines()
    assert len(lines) == len(replay.read_text().splitlines()) - 2 - 9  # all but 9 turn ends
    assert lines[:3] == [
        "Turn 1, 12:00 — 69th New York moves to 5,6 (4 hexes)",
        "Turn 1, 12:00 — 28th Massachusetts moves to 7,6 (4 hexes)",
        "Turn 1, 12:00 — 116th Pennsylvania moves to 9,6 (4 hexes)",
    ]
    assert lines[-2:] == [
        "Turn 9, 15:00 — Union breaks: 44% of its men lost (breaks at 40%)",
        "Turn 9, 15:00 — Confederate wins: every other army broke; Confederate holds the field",
    ]


def test_show_events_turn_1_stops_after_turn_1(replay: Path) -> None:
    """`show --events --turn 1` narrates only turn 1."""
    result = _invoke("show", "--events", "--turn", "1", str(replay))
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    assert (len(lines), lines[-1][:40]) == (8, "Turn 1, 12:08 — 28th Massachusetts fires")
    assert {line[:7] for line in lines} == {"Turn 1,"}


@pytest.mark.parametrize("extra", [[], ["--events"]])
def test_show_turn_past_the_end_exits_2(extra: list[str], replay: Path) -> None:
    """`show --turn 999` (with or without --events) exits 2: the battle ended at turn 9."""
    result = _invoke("show", "--turn", "999", *extra, str(replay))
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == "battlesim: error: --turn 999: the battle ended at turn 9\n"
    brawl = REPO / "replays" / "tavern_brawl-s377.jsonl"  # becmi counts rounds
    rounds = api.load_replay(brawl).last_turn
    result = _invoke("show", "--turn", "999", *extra, str(brawl))
    assert result.stderr == f"battlesim: error: --turn 999: the battle ended at round {rounds}\n"


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"hello\n", "{p}:1: not a battlesim replay"),
        (b"", "{p}:1: empty file: not a battlesim replay"),
        (b'{"a":1}\n\xff\xfe\n', "{p}:1: not a battlesim replay"),
        (
            b"ruleset: musket\nname: x",
            "{p}:1: not a battlesim replay; this is a scenario: fight it with "
            "'battlesim run FILE', or study it with 'battlesim batch FILE --runs N'",
        ),
    ],
)
def test_show_non_replay_exits_2_without_traceback(
    content: bytes, message: str, tmp_path: Path
) -> None:
    """`show` on garbage, an empty file, binary bytes or YAML exits 2 with one error line."""
    path = tmp_path / "x.jsonl"
    path.write_bytes(content)
    result = _invoke("show", str(path))
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == f"battlesim: error: {message.format(p=path)}\n"


def test_show_damaged_replay_exits_2(replay: Path, tmp_path: Path) -> None:
    """`show` refuses a replay with a broken chain (exit 2) rather than fold damaged events."""
    path = _altered(replay, tmp_path, lambda lines: [*lines[:19], *lines[20:]])
    result = _invoke("show", str(path))
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == f"battlesim: error: {path}:20 (seq 18): {CHAIN_BROKEN}\n"


def test_show_negative_turn_exits_2(replay: Path) -> None:
    """`show --turn -1` is a usage error: exit 2."""
    result = _invoke("show", "--turn", "-1", str(replay))
    assert result.exit_code == 2
    assert result.stderr.splitlines()[-1] == (
        "Error: Invalid value for '--turn': -1 is not in the range x>=0."
    )


# schema, help, version


def test_schema_is_json_with_title_and_ruleset() -> None:
    """`schema` prints a JSON Schema titled "battlesim scenario", one branch per ruleset."""
    result = _invoke("schema")
    assert (result.exit_code, result.stderr) == (0, "")
    schema = json.loads(result.stdout)
    assert schema["title"] == "battlesim scenario"
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert schema["discriminator"] == {
        "propertyName": "ruleset",
        "mapping": {
            "becmi": "#/$defs/BecmiScenario",
            "flattop": "#/$defs/FlattopScenario",
            "musket": "#/$defs/MusketScenario",
        },
    }
    musket = schema["$defs"]["MusketScenario"]
    assert musket["properties"]["ruleset"] == {
        "const": "musket",
        "title": "Ruleset",
        "type": "string",
    }
    assert "ruleset" in musket["required"]


@pytest.mark.parametrize(
    ("command", "usage"),
    [
        ([], "Usage: battlesim [OPTIONS] COMMAND [ARGS]..."),
        (["run"], "Usage: battlesim run [OPTIONS] SCENARIO"),
        (["verify"], "Usage: battlesim verify [OPTIONS] REPLAY|STUDY_DIR"),
        (["show"], "Usage: battlesim show [OPTIONS] REPLAY"),
        (["validate"], "Usage: battlesim validate [OPTIONS] SCENARIO"),
        (["schema"], "Usage: battlesim schema [OPTIONS]"),
    ],
)
@pytest.mark.parametrize("flag", ["--help", "-h"])
def test_help_of_every_command_exits_0(command: list[str], usage: str, flag: str) -> None:
    """`--help` (and `-h`) of the group and of every command exits 0 with its usage line."""
    result = _invoke(*command, flag)
    assert (result.exit_code, result.stderr) == (0, "")
    assert result.stdout.splitlines()[0] == usage


def test_version_exits_0() -> None:
    """`--version` prints the installed package version."""
    result = _invoke("--version")
    assert (result.exit_code, result.stdout) == (0, "battlesim, version 0.1.0\n")


def test_unknown_command_exits_2() -> None:
    """A command that does not exist is a usage error: exit 2."""
    result = _invoke("fight")
    assert result.exit_code == 2
    assert result.stderr.splitlines()[-1] == "Error: No such command 'fight'."


# the real console script


def test_console_script_exits_2_without_traceback(tmp_path: Path) -> None:
    """The installed `battlesim` script run for real on a bad scenario exits 2, no traceback."""
    script = Path(sys.executable).parent / "battlesim"
    bad = CORPUS / "python_tag.yaml"
    proc = subprocess.run(
        [str(script), "run", str(bad)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert (proc.returncode, proc.stdout) == (2, "")
    assert proc.stderr == "".join(f"{CORPUS}/{line}\n" for line in EXPECTED[bad.name])
    assert list(tmp_path.iterdir()) == []


def test_committed_schema_is_current() -> None:
    """docs/scenario.schema.json equals what `battlesim schema` prints (regenerate it if not)."""
    committed = (Path(__file__).resolve().parents[2] / "docs" / "scenario.schema.json").read_text()
    assert _invoke("schema").stdout == committed
