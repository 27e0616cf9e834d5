"""The command line's one surface: --json, -o/--out, --force, help, plain messages (issue 15)."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import click
import pytest
from click.testing import CliRunner, Result

from sim import api
from sim.cli import cli

REPO = Path(__file__).resolve().parents[2]
STONE_WALL = REPO / "tests" / "data" / "rules1" / "stone_wall.yaml"
"""The pre-issue-22 stone wall with musket rules version 1's options (the battles pinned here)."""
GOLDEN = REPO / "tests" / "data" / "replays" / "stone_wall-s1862-musket-rules1.jsonl"
"""Its seed-1862 replay as version 1 wrote it."""


def _invoke(*args: str) -> Result:
    """Run the CLI as the console script would, failing on any escaped exception."""
    result = CliRunner().invoke(cli, list(args), prog_name="battlesim")
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result


def _commands() -> list[tuple[str, ...]]:
    """Every command path: ('run',), ('odds', 'musket-fire'), ..."""
    ctx = click.Context(cli, info_name="battlesim")
    out: list[tuple[str, ...]] = []
    for name in cli.list_commands(ctx):
        command = cli.get_command(ctx, name)
        if isinstance(command, click.Group):
            sub = click.Context(command, info_name=name, parent=ctx)
            out.extend((name, s) for s in command.list_commands(sub))
        else:
            out.append((name,))
    return out


COMMANDS = _commands()


@pytest.fixture(scope="module")
def replay(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh replay of stone_wall.yaml with seed 7 (do not modify)."""
    out = tmp_path_factory.mktemp("replay") / "sw7.jsonl"
    assert _invoke("run", str(STONE_WALL), "--seed", "7", "-o", str(out)).exit_code == 0
    return out


# help


def test_every_command_is_listed() -> None:
    """The root group lists the twenty-one commands and odds its four calculators."""
    assert len(COMMANDS) == 25  # 21 commands and 4 odds calculators
    assert ("history",) in COMMANDS and ("calibrate",) in COMMANDS and ("discover",) in COMMANDS
    assert ("rulesets",) in COMMANDS and ("new",) in COMMANDS and ("scenarios",) in COMMANDS
    assert ("check-ruleset",) in COMMANDS


@pytest.mark.parametrize("path", COMMANDS, ids=" ".join)
def test_every_help_has_a_runnable_looking_example(path: tuple[str, ...]) -> None:
    """Each command's --help shows an example that starts with `battlesim <its command>`."""
    result = _invoke(*path, "--help")
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    start = next(i for i, line in enumerate(lines) if line.strip() in ("Example:", "Examples:"))
    example = lines[start + 1].split()
    assert example[: len(path) + 1] == ["battlesim", *path]


def _options(path: tuple[str, ...]) -> dict[str, str]:
    """Each option of the command's --help by its long name, with the metavar shown after it
    ("" for a flag)."""
    ctx = click.Context(cli, info_name="battlesim")
    command: Any = cli
    for name in path:
        ctx = click.Context(command, info_name=name, parent=ctx)
        command = command.get_command(ctx, name) if isinstance(command, click.Group) else command
    shown = {}
    for param in command.get_params(ctx):
        record = param.get_help_record(ctx)
        if isinstance(param, click.Option) and record is not None:
            long = next(o for o in param.opts if o.startswith("--"))
            words = record[0].split(", ")[-1].split(" ", 1)
            shown[long] = words[1] if len(words) > 1 else ""
    return shown


@pytest.mark.parametrize("path", COMMANDS, ids=" ".join)
def test_every_help_names_its_values_in_plain_words(path: tuple[str, ...]) -> None:
    """An option's value is named for what it is (SEQ, N, NUMBER), never click's type names
    (`--at INTEGER RANGE` beside "at event SEQ"; `--value TEXT` for a number), and the help
    is plain text: no markdown (`*opposing*`, backticks)."""
    text = _invoke(*path, "--help").stdout
    assert "RANGE" not in text and "`" not in text
    assert not re.search(r"\*\w[^*]*\w\*", text), text
    numbers = {
        name: metavar
        for name, metavar in _options(path).items()
        if metavar in ("INTEGER", "FLOAT", "TEXT") and name not in ("--unit", "--type")
    }
    assert numbers == {}


def test_fork_and_odds_name_their_values() -> None:
    """`fork --help` says "at event SEQ" and its option takes SEQ; musket's odds take numbers,
    flattop's a TABLE (it showed TEXT)."""
    assert _options(("fork",))["--at"] == "SEQ"
    assert _options(("show",))["--turn"] == "N"
    for calculator in ("musket-fire", "musket-melee"):
        shown = _options(("odds", calculator))
        assert [shown[o] for o in ("--value", "--modifier", "--lcv", "--hcv")] == ["NUMBER"] * 4
    assert _options(("odds", "flattop"))["--hit-table"] == "TABLE"  # * or 1..15, not TEXT


def test_root_help_shows_every_summary_whole() -> None:
    """`battlesim --help` lists each command with its whole first docstring line, never cut."""
    listing = _invoke("--help").stdout.split("Commands:")[1]
    text = " ".join(listing.split())
    assert "..." not in text and "…" not in text
    ctx = click.Context(cli, info_name="battlesim")
    for name in cli.list_commands(ctx):
        command = cli.get_command(ctx, name)
        assert command is not None and command.help is not None
        first = " ".join(command.help.strip().splitlines()[0].split())
        assert f"{name} {first}" in text
    # ... and on one line of an 80-column listing, here and in `odds --help`.
    for listed in (listing, _invoke("odds", "--help").stdout.split("Commands:")[1]):
        assert all(not line.startswith(" " * 5) for line in listed.splitlines() if line.strip())


@pytest.mark.parametrize("command", ["why", "fork"])
def test_why_and_fork_help_say_where_a_seq_is_found(command: str) -> None:
    """`why --help` and `fork --help` took a SEQ and never said where one is read: the help
    names `show REPLAY --events --seqs`, whose lines start with it, and its filters."""
    text = " ".join(_invoke(command, "--help").stdout.split())
    assert (
        "SEQ is the event's number: 'battlesim show REPLAY --events --seqs' starts each line "
        "with it (narrow the lines with --type or --unit)."
    ) in text


def test_odds_lcv_and_hcv_are_explained() -> None:
    """`odds musket-fire --help` says what --lcv and --hcv are (with their defaults)."""
    text = " ".join(_invoke("odds", "musket-fire", "--help").stdout.split())
    lcv = "--lcv NUMBER Low Combat Value L per 1000: the casualty range starts at L x E / 1000."
    assert lcv in text
    assert "--hcv NUMBER High Combat Value H per 1000" in text


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["run"], "battlesim run: error: Missing argument 'SCENARIO'."),
        (["nosuch"], "battlesim: error: No such command 'nosuch'."),
        (["rnu", "x.yaml"], "battlesim: error: No such command 'rnu'; did you mean 'run'?"),
        (
            ["odds", "musket_fire", "--value", "1800"],
            "battlesim odds: error: No such command 'musket_fire'; did you mean 'musket-fire'?",
        ),
        (
            ["batch", "scenarios/stone_wall.yaml", "--runs", "x"],
            "battlesim batch: error: Invalid value for '--runs' / '-n': 'x' is not a whole number.",
        ),
        (  # click said "'1.5' is not a valid integer range.", as if a range were wanted
            ["why", "replays/stone_wall-s1862.jsonl", "1.5"],
            "battlesim why: error: Invalid value for 'SEQ': '1.5' is not a whole number.",
        ),
        (  # and "'abc' is not a valid float range."
            ["discover", "--alpha", "abc", "no_study", "-m", "x"],
            "battlesim discover: error: Invalid value for '--alpha': 'abc' is not a number.",
        ),
        (
            ["run", "scenarios/stone_wall.yaml", "--log-level", "debug"],
            "battlesim run: error: --log-level is an option of battlesim itself: put it before"
            " the command, as in 'battlesim --log-level debug run …'",
        ),
        (  # click's parser gives no context here: the command is found in the arguments
            ["batch", "scenarios/stone_wall.yaml", "--runs", "3", "--keep-replays"],
            "battlesim batch: error: Option '--keep-replays' requires an argument.",
        ),
        (["--log-level"], "battlesim: error: Option '--log-level' requires an argument."),
        (  # a negative number stands alone: click reads it as an option
            ["why", "replays/stone_wall-s1862.jsonl", "-1"],
            "battlesim why: error: -1 is a negative number, not an option: a value that "
            "starts with '-' goes after '--' ('battlesim why … -- -1')",
        ),
        (  # the number as typed (click names a short option's first two characters: -4),
            # and, where no argument could take it, an option's value (--modifier -40)
            ["odds", "musket-fire", "--value", "1800", "-40"],
            "battlesim odds musket-fire: error: -40 is a negative number, not an option, and no "
            "argument of battlesim odds musket-fire takes it: give it as the value of one of "
            "its options",
        ),
        (
            ["why", "replays/stone_wall-s1862.jsonl", "-40.5"],
            "battlesim why: error: -40.5 is a negative number, not an option: a value that "
            "starts with '-' goes after '--' ('battlesim why … -- -40.5')",
        ),
        (  # given twice, the first was dropped: the +10 volley alone, not the sum the docs ask
            ["odds", "musket-fire", "--value", "1800", "--modifier", "-40", "--modifier", "10"],
            "battlesim odds musket-fire: error: --modifier is given 2 times: give it once "
            "(several modifiers: their sum)",
        ),
        (  # ... and a sum is advice for a modifier alone, not for flattop's attacking factors
            ["odds", "flattop", "--hit-table", "7", "--factors", "3", "--factors", "5"],
            "battlesim odds flattop: error: --factors is given 2 times: give it once",
        ),
        (
            ["odds", "becmi", "--thac0", "19", "--ac", "9", "--cover", "full-soft", "--cover", "x"],
            "battlesim odds becmi: error: --cover is given 2 times: give it once",
        ),
        (
            ["odds", "musket-fire", "--value", "1800", "--log-json"],
            "battlesim odds musket-fire: error: --log-json is an option of battlesim itself:"
            " put it before the command, as in 'battlesim --log-json odds musket-fire …'",
        ),
    ],
)
def test_usage_errors_are_one_line_exit_2(args: list[str], expected: str) -> None:
    """A usage error from the console script is one line naming the command and its --help.

    The script runs forked from a process that has imported battlesim (tests/forkserver.py:
    the console script's own code, its stderr and exit code; tests/cli/test_forkserver.py
    holds usage errors of the stand-in byte for byte to the real script's), not as a fresh
    Python each time (about 0.8 CPU s of start-up a case)."""
    from tests.forkserver import battlesim_script

    script = str(battlesim_script())
    proc = subprocess.run([script, *args], cwd=REPO, capture_output=True, text=True, check=False)
    command = expected.split(": error:", maxsplit=1)[0]
    assert (proc.returncode, proc.stdout) == (2, "")
    assert proc.stderr == f"{expected} (see '{command} --help')\n"


def test_python_dash_m_sim_is_battlesim() -> None:
    """`python -m sim --version` and `run --help` print what the `battlesim` script prints."""
    script = str(Path(sys.executable).parent / "battlesim")
    for args in (["--version"], ["run", "--help"], ["run", "nope.yaml"]):
        runs = [
            subprocess.run([*how, *args], cwd=REPO, capture_output=True, text=True, check=False)
            for how in ([sys.executable, "-m", "sim"], [script])
        ]
        a, b = ((p.returncode, p.stdout, p.stderr) for p in runs)
        assert a == b


@pytest.mark.parametrize("shell", ["bash", "zsh", "fish"])
def test_completion_scripts_as_documented(shell: str) -> None:
    """The README's completion line for each shell prints a script naming battlesim."""
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    assert f"_BATTLESIM_COMPLETE={shell}_source battlesim" in readme
    script = Path(sys.executable).parent / "battlesim"
    proc = subprocess.run(
        [str(script)],
        check=False,
        env={"_BATTLESIM_COMPLETE": f"{shell}_source", "PATH": str(script.parent)},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0
    assert "_BATTLESIM_COMPLETE" in proc.stdout


def test_help_chunk_default_is_the_plans() -> None:
    """The --chunk-size default shown without numpy equals sim.batch.planning.plan.DEFAULT_CHUNK."""
    from sim.batch.planning.plan import DEFAULT_CHUNK
    from sim.cli.outcomes.batch import DEFAULT_CHUNK as SHOWN

    assert SHOWN == DEFAULT_CHUNK


# --json on every command that reports


def _footer(replay: Path) -> dict[str, Any]:
    """The replay's footer line, decoded."""
    footer: dict[str, Any] = json.loads(replay.read_text().splitlines()[-1])
    return footer


def test_verify_json(replay: Path) -> None:
    """`verify --json` prints ok, status and the event count (the footer's)."""
    result = _invoke("verify", str(replay), "--json")
    assert result.exit_code == 0
    assert json.loads(result.stdout) == {
        "ok": True,
        "status": "ok",
        "replay": str(replay),
        "events": _footer(replay)["events"],
        "upcast": False,
        "older_rules": False,
    }


def test_verify_json_names_the_damaged_seq(replay: Path, tmp_path: Path) -> None:
    """A replay with line 20 (seq 18) dropped: `verify --json` exits 1 naming seq 18."""
    lines = replay.read_text(encoding="utf-8").splitlines(keepends=True)
    damaged = tmp_path / "d.jsonl"
    damaged.write_text("".join([*lines[:19], *lines[20:]]), encoding="utf-8")
    result = _invoke("verify", str(damaged), "--json")
    got = json.loads(result.stdout)
    assert (result.exit_code, got["ok"], got["status"], got["seq"], got["line"]) == (
        1,
        False,
        "damaged",
        18,
        20,
    )


def test_validate_json_ok_and_errors(tmp_path: Path) -> None:
    """`validate --json`: ok with ruleset, name and warnings, or exit 2 with every error as data.

    The rules-1 stone wall's one warning: its battery 1ri can never reach an enemy
    (more than its 3 hexes from each, and no unit of either side moves toward it).
    """
    good = _invoke("validate", str(STONE_WALL), "--json")
    assert json.loads(good.stdout) == {
        "file": str(STONE_WALL),
        "ok": True,
        "ruleset": "musket",
        "name": "Stone wall at Marye's Heights",
        "warnings": [
            {
                "field": "sides.0.units.3",
                "file": str(STONE_WALL),
                "line": 76,
                "message": "warning: unit '1ri' can never reach an enemy: it does not move, "
                "no enemy is in its reach (napoleon_12pdr reaches 3 hexes) and none moves",
            }
        ],
    }
    bad = tmp_path / "bad.yaml"
    bad.write_text(STONE_WALL.read_text().replace("quality: C\n", "quality: Q\n", 1))
    result = _invoke("validate", str(bad), "--json")
    got = json.loads(result.stdout)
    assert (result.exit_code, got["ok"]) == (2, False)
    assert got["errors"] == [
        {
            "file": str(bad),
            "line": 55,
            "field": "sides.0.units.0.quality",
            "message": "'Q' is not one of 'A', 'B', 'C', 'D', 'E' or 'F'",
        }
    ]


@pytest.mark.parametrize("flag_first", [True, False])
def test_validate_json_of_a_missing_file_or_a_folder_is_an_object(
    tmp_path: Path, flag_first: bool
) -> None:
    """`validate --json` of a path that is no file prints the object with that one error,
    wherever the flag stands (it printed a plain line on stderr, and a script reading the
    object got none); without --json a folder is the same one line (it was click's
    "Invalid value for 'SCENARIO': File '…' is a directory."), a missing file every
    command's."""
    for path, message in ((tmp_path / "nope.yaml", "no such file"),
                          (tmp_path, "a directory, not a regular file")):  # fmt: skip
        args = ("--json", str(path)) if flag_first else (str(path), "--json")
        result = _invoke("validate", *args)
        assert (result.exit_code, json.loads(result.stdout)) == (
            2,
            {
                "file": str(path),
                "ok": False,
                "errors": [{"file": str(path), "line": 0, "field": "", "message": message}],
            },
        )
    plain = _invoke("validate", str(tmp_path / "nope.yaml"))
    assert (plain.exit_code, plain.stdout, plain.stderr) == (
        2,
        "",
        f"battlesim: error: {tmp_path / 'nope.yaml'}: no such file\n",
    )
    folder = _invoke("validate", str(tmp_path))
    assert (folder.exit_code, folder.stdout, folder.stderr) == (
        2,
        "",
        f"{tmp_path}: a directory, not a regular file\n",
    )


def test_show_json_lists_every_unit_with_names(replay: Path) -> None:
    """`show --json` gives the seven units with full names and side names at the last turn."""
    got = json.loads(_invoke("show", str(replay), "--json").stdout)
    last = _footer(replay)["final_turn"]
    assert (got["turn"], got["last_turn"], len(got["units"])) == (last, last, 7)
    header = json.loads(replay.read_text().splitlines()[0])
    assert (got["ruleset"], got["ruleset_version"]) == ("musket", header["ruleset_version"])
    battery = got["units"][3]
    assert (battery["name"], battery["side_name"]) == ("1st Rhode Island Light, Battery A", "Union")


@pytest.mark.parametrize("version", ["1", "2", "3", "4"])
def test_show_json_names_the_rules_an_old_replay_was_fought_under(version: str) -> None:
    """A replay fought under an older musket rules version shows that version, not today's."""
    old = REPO / "tests" / "data" / "replays" / f"stone_wall-s1862-musket-rules{version}.jsonl"
    got = json.loads(_invoke("show", str(old), "--json").stdout)
    assert (got["ruleset"], got["ruleset_version"]) == ("musket", version)


def test_show_events_json_matches_the_narrative(replay: Path) -> None:
    """`show --events --json` carries, per event, the same line the text narrative prints."""
    text = _invoke("show", str(replay), "--events").stdout.splitlines()
    got = json.loads(_invoke("show", str(replay), "--events", "--json").stdout)
    assert [e["line"] for e in got["events"]] == text


def test_why_json_is_the_chain() -> None:
    """`why --json` on the golden's first morale check: the volley that caused it, then it."""
    events = api.load_replay(GOLDEN).events
    check = next(e for e in events if e.type == "musket.morale_tested")
    assert check.cause is not None
    got = json.loads(_invoke("why", str(GOLDEN), str(check.seq), "--json").stdout)
    assert [(c["seq"], c["type"]) for c in got["chain"]] == [
        (check.cause, "musket.fired"),
        (check.seq, "musket.morale_tested"),
    ]


# -o/--out, --force and plain messages


@pytest.mark.parametrize(
    "command",
    [
        ["run", str(STONE_WALL)],
        ["fork", str(GOLDEN), "--at", "33", "--set", "passed=true"],
        ["report", str(GOLDEN)],
        ["rerun", "nostudy", "1"],
        ["schema"],
    ],
)
def test_every_writer_takes_short_o(command: list[str]) -> None:
    """Every command that writes a file names it with -o as well as --out."""
    text = _invoke(*command[:1], "--help").stdout
    assert "-o, --out" in text


def test_out_whose_parent_is_a_file_is_refused(tmp_path: Path) -> None:
    """`run -o file.txt/r.jsonl` says the parent is a file, not that a folder is missing."""
    (tmp_path / "file.txt").write_text("x")
    out = tmp_path / "file.txt" / "r.jsonl"
    result = _invoke("run", str(STONE_WALL), "-o", str(out))
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == (
        f"battlesim: error: --out {out}: {str(tmp_path / 'file.txt')!r} is a file, not a folder\n"
    )


def test_run_refuses_to_overwrite_another_file_without_force(tmp_path: Path) -> None:
    """An existing text file at --out survives `run` (exit 2) and is replaced with --force."""
    notes = tmp_path / "notes.txt"
    notes.write_text("precious\n")
    refused = _invoke("run", str(STONE_WALL), "-o", str(notes))
    assert refused.exit_code == 2
    assert refused.stderr == (
        f"battlesim: error: --out {notes}: the file is not a replay battlesim wrote; "
        "add --force to overwrite it, or choose another name\n"
    )
    assert notes.read_text() == "precious\n"
    assert _invoke("run", str(STONE_WALL), "-o", str(notes), "--force").exit_code == 0
    assert notes.read_text().startswith('{"engine_version"')


def test_run_overwrites_a_replay_battlesim_wrote(tmp_path: Path) -> None:
    """Running again to the same replay (another seed, another scenario) needs no --force."""
    out = tmp_path / "r.jsonl"
    assert _invoke("run", str(STONE_WALL), "--seed", "1", "-o", str(out)).exit_code == 0
    assert _invoke("run", str(STONE_WALL), "--seed", "2", "-o", str(out)).exit_code == 0
    other = REPO / "scenarios" / "napoleonic_brigade.yaml"
    assert _invoke("run", str(other), "-o", str(out)).exit_code == 0
    assert _invoke("verify", str(out)).exit_code == 0


def test_report_and_schema_need_force_over_an_existing_file(tmp_path: Path) -> None:
    """`report -o` and `schema -o` onto an existing file exit 2 unless --force."""
    page = tmp_path / "page.html"
    page.write_text("mine")
    assert _invoke("report", str(GOLDEN), "-o", str(page)).exit_code == 2
    assert _invoke("schema", "-o", str(page)).exit_code == 2
    assert page.read_text() == "mine"
    assert _invoke("schema", "-o", str(page), "--force").exit_code == 0
    assert json.loads(page.read_text())["title"] == "battlesim scenario"


def test_show_type_nosuch_is_an_error_like_unit() -> None:
    """`show --events --type nosuch` exits 2 listing the types; a near miss gets a suggestion."""
    result = _invoke("show", str(GOLDEN), "--events", "--type", "nosuch")
    assert result.exit_code == 2
    assert result.stderr.startswith(
        "battlesim: error: --type nosuch: no event type 'nosuch' in this ruleset; known: "
    )
    assert "fired" in result.stderr and "morale_tested" in result.stderr
    near = _invoke("show", str(GOLDEN), "--events", "--type", "fird")
    assert near.stderr == (
        "battlesim: error: --type fird: no event type 'fird' in this ruleset; "
        "did you mean 'fired'?\n"
    )
    assert "turn_ended" not in result.stderr and "snapshot" not in result.stderr


@pytest.mark.parametrize("given", ["turn_ended", "engine.turn_ended", "snapshot"])
def test_show_type_of_the_engine_s_bookkeeping_is_refused(given: str) -> None:
    """`--type turn_ended` said "no event of this replay matches" of a file holding one a
    turn: the narrative never tells the engine's turn ends and snapshots; it says so, exit 2."""
    result = _invoke("show", str(GOLDEN), "--events", "--type", given)
    whole = "engine.snapshot" if given == "snapshot" else "engine.turn_ended"
    assert (result.exit_code, result.stdout, result.stderr) == (
        2,
        "",
        f"battlesim: error: --type {given}: {whole} is the engine's own record (no rule "
        "decided it, nothing happened on the field), which the narrative never tells\n",
    )
    with pytest.raises(api.ValueProblem, match=f"event type '{given}': {whole} is the engine"):
        api.narrative(GOLDEN, types=given)


def test_show_unit_nosuch_suggests_the_id() -> None:
    """`show --unit 69nyy` exits 2 suggesting 69ny."""
    result = _invoke("show", str(GOLDEN), "--unit", "69nyy")
    assert (result.exit_code, result.stderr) == (
        2,
        "battlesim: error: --unit 69nyy: no unit '69nyy' in this battle; did you mean '69ny'?\n",
    )


@pytest.mark.parametrize("name", ["69th New York", "69TH NEW YORK"])
def test_show_unit_takes_the_name_show_prints(name: str) -> None:
    """`--unit "69th New York"` tells the same story as `--unit 69ny` (names fold case)."""
    by_id = _invoke("show", str(GOLDEN), "--events", "--unit", "69ny")
    by_name = _invoke("show", str(GOLDEN), "--events", "--unit", name)
    assert (by_name.exit_code, by_name.stdout) == (0, by_id.stdout)
    assert by_id.stdout.count("\n") > 10


def test_show_unit_without_events_is_its_history(replay: Path) -> None:
    """`show --unit 69ny` without --events: turns 0..last, 450 men at the start, the end's after."""
    result = _invoke("show", str(replay), "--unit", "69ny")
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    assert lines[0] == (
        "Stone wall at Marye's Heights — 69th New York (Union) at the end of each turn, "
        "0: the start"
    )
    rows = [line.split() for line in lines[2:]]
    last = _footer(replay)["final_turn"]
    end = api.state_at(replay).units["69ny"].strength
    assert [r[0] for r in rows] == [str(t) for t in range(last + 1)]
    assert (rows[0][2], rows[-1][2]) == ("450/450", f"{end}/450")
    got = json.loads(_invoke("show", str(replay), "--unit", "69ny", "--json").stdout)
    assert [r["strength"]["value"] for r in got["rows"]][::last] == [450, end]


def test_type_without_events_is_refused_plainly() -> None:
    """`show --type fired` without --events says to add --events (it used to be ignored)."""
    result = _invoke("show", str(GOLDEN), "--type", "fired")
    assert (result.exit_code, result.stderr) == (
        2,
        "battlesim: error: --type filters the narrative: add --events\n",
    )


def test_missing_scenario_is_plain() -> None:
    """`run nope.yaml` says the file does not exist, with no line 0."""
    result = _invoke("run", "nope.yaml")
    assert (result.exit_code, result.stderr) == (2, "battlesim: error: nope.yaml: no such file\n")


def test_clock_time_without_leading_zero_is_explained(tmp_path: Path) -> None:
    """`turns.start: 7:00` is explained in words (HH:MM, e.g. '07:00'), not by a regex."""
    bad = tmp_path / "t.yaml"
    bad.write_text(STONE_WALL.read_text().replace('start: "12:00"', 'start: "7:00"'))
    result = _invoke("validate", str(bad))
    assert result.stderr == (
        f"{bad}:25: turns.start: '7:00' is not a clock time: write HH:MM on the 24-hour clock, "
        "e.g. '07:00'\n"
    )
    assert not re.search(r"\^|\\d", result.stderr)


# rulesets, scenarios, new


def test_rulesets_lists_name_version_and_source() -> None:
    """`rulesets --json`: becmi (rules v1), flattop (v3) and musket (v4), built in, their
    modules."""
    got = json.loads(_invoke("rulesets", "--json").stdout)["rulesets"]
    assert [(r["name"], r["version"], r["source"], r["target"]) for r in got] == [
        ("becmi", "1", "built in", "sim.rulesets.becmi:RULESET"),
        ("flattop", "3", "built in", "sim.rulesets.flattop:RULESET"),
        ("musket", "8", "built in", "sim.rulesets.musket:RULESET"),
    ]
    text = _invoke("rulesets").stdout.splitlines()
    assert text[2] == "musket   version 8    built in (sim.rulesets.musket:RULESET)"


def test_scenarios_lists_every_shipped_file_once() -> None:
    """`scenarios` prints the folder's heading, then one line per file in scenarios/, with its
    kind (the built-in rulesets ship no examples of their own)."""
    files = sorted(p.name for p in (REPO / "scenarios").glob("*.yaml"))
    heading, *lines = _invoke("scenarios").stdout.splitlines()
    assert heading == f"scenarios folder {REPO / 'scenarios'}:"
    assert [line.split()[0] for line in lines] == files
    assert all(line.startswith("  ") for line in lines)
    kinds = {line.split()[0]: line.split()[1] for line in lines}
    assert (kinds["stone_wall.yaml"], kinds["coral_sea.yaml"], kinds["tavern_brawl.yaml"]) == (
        "musket",
        "flattop",
        "becmi",
    )
    assert (kinds["fredericksburg_campaign.yaml"], kinds["stone_wall_study.yaml"]) == (
        "campaign",
        "study",
    )
    assert kinds["coral_sea_calibration.yaml"] == "calibration"
    study = next(line for line in lines if line.startswith("  stone_wall_study.yaml"))
    full = "Stone wall — cover and fire lethality: a study of stone_wall.yaml"
    text = study[study.index("Stone wall") :]
    assert full.startswith(text.removesuffix("…"))
    # one column for the summaries whatever the kind's length (calibration is the longest),
    # and no line past 100 columns off a terminal: a longer summary ends in "…"
    assert len({line.index(line.split()[2]) for line in lines}) == 1
    assert max(len(line) for line in lines) <= 100
    assert all(line.endswith("…") for line in lines if len(line) == 100)
    listed = json.loads(_invoke("scenarios", "--json").stdout)
    assert listed["folder"] == str(REPO / "scenarios")
    assert [(s["file"], s["path"], s["source"]) for s in listed["scenarios"]] == [
        (f, str(REPO / "scenarios" / f), "scenarios folder") for f in files
    ]


@pytest.mark.parametrize("ruleset", ["becmi", "flattop", "musket"])
def test_new_scenario_validates_and_runs(ruleset: str, tmp_path: Path) -> None:
    """`new RULESET x.yaml` writes a commented file that validates and runs, its schema line
    pointing at the schema written beside it (the installed rulesets': the committed one)."""
    path = tmp_path / "my_battle.yaml"
    made = _invoke("new", ruleset, str(path))
    assert (made.exit_code, made.stderr) == (0, "")
    text = path.read_text(encoding="utf-8")
    first = text.splitlines()[0]
    assert first == "# yaml-language-server: $schema=scenario.schema.json"
    written = (tmp_path / "scenario.schema.json").read_text(encoding="utf-8")
    assert written == (REPO / "docs" / "scenario.schema.json").read_text(encoding="utf-8")
    assert sum(1 for line in text.splitlines() if "#" in line) >= 5
    valid = _invoke("validate", str(path), "--json")
    assert json.loads(valid.stdout) == {
        "file": str(path),
        "ok": True,
        "ruleset": ruleset,
        "name": "My battle",
        "warnings": [],
    }
    ran = _invoke("run", str(path), "-o", str(tmp_path / "r.jsonl"), "--json")
    assert ran.exit_code == 0
    assert _invoke("verify", str(tmp_path / "r.jsonl")).exit_code == 0


def test_new_refuses_an_existing_file_and_an_unknown_ruleset(tmp_path: Path) -> None:
    """`new` onto an existing file needs --force; an unknown ruleset lists the installed ones."""
    path = tmp_path / "x.yaml"
    shutil.copy(STONE_WALL, path)
    assert _invoke("new", "musket", str(path)).exit_code == 2
    assert path.read_bytes() == STONE_WALL.read_bytes()
    assert _invoke("new", "musket", str(path), "--force").exit_code == 0
    unknown = _invoke("new", "pikes", str(tmp_path / "y.yaml"))
    assert (unknown.exit_code, unknown.stderr) == (
        2,
        "battlesim: error: unknown ruleset 'pikes'; installed: becmi, flattop, musket\n",
    )


def test_gitignore_covers_what_the_readme_leaves() -> None:
    """Files and folders the README's commands write in the checkout are ignored by git."""
    left = ["charts/a.png", "held.html", "held.jsonl", "sw/study.duckdb", "sw2/summary.json"]
    left += [
        "stone_wall_study/study.duckdb",
        "run-42.jsonl",
        "sw.jsonl.gz",
        "my_battle.yaml",
        "typos.yaml",
        "scenario.schema.json",
    ]
    left += ["stone_wall-s7.jsonl", "fredericksburg_campaign-s1/campaign.json", "out/x.jsonl"]
    proc = subprocess.run(
        ["git", "check-ignore", "--no-index", *left],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=False,
    )
    assert sorted(proc.stdout.split()) == sorted(left)


def test_readme_validate_example(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The README's one-pass validation example is what `validate` prints for those three edits."""
    monkeypatch.chdir(tmp_path)
    assert _invoke("new", "musket", "typos.yaml").exit_code == 0
    path = tmp_path / "typos.yaml"
    text = path.read_text(encoding="utf-8").replace('start: "12:00"', 'start: "7:00" ')
    text = text.replace("strength: 450 ", "strenght: 450 ", 1)
    path.write_text(text.replace("rifle_musket", "rifle_muskt", 1), encoding="utf-8")
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    block = readme.split("$ battlesim validate typos.yaml 2>&1\n", 1)[1].split("```", 1)[0]
    result = _invoke("validate", "typos.yaml")
    assert (result.exit_code, result.stderr) == (2, block)


def test_a_group_without_its_command_prints_its_help_in_lines() -> None:
    """``battlesim odds`` alone: the group's help on stderr, line by line, exit 2 (issue 33)."""
    result = _invoke("odds")
    assert (result.exit_code, result.stdout) == (2, "")
    lines = result.stderr.splitlines()
    assert lines[:3] == [
        "Usage: battlesim odds [OPTIONS] COMMAND [ARGS]...",
        "",
        "  Exact odds of one resolution, as dice calculators give them.",
    ]
    assert "    battlesim odds musket-fire --value 1800 --modifier -40" in lines
    assert "\\n" not in result.stderr


def test_odds_help_states_only_bounds_an_option_has() -> None:
    """An unbounded whole number says no range (click wrote `[default: 0; x<=None]`)."""
    from sim.cli.rulesets.odds import odds_commands

    names = sorted(odds_commands())
    assert {"becmi", "flattop", "musket-fire", "musket-melee"} <= set(names)
    for name in names:
        result = _invoke("odds", name, "--help")
        assert result.exit_code == 0, result.output
        assert "x<=None" not in result.output and "x>=None" not in result.output, name


def test_show_unit_by_a_name_two_units_bear_asks_for_an_id(tmp_path: Path) -> None:
    """Two units named "69th New York": the name is not unknown (it said "no unit"), it
    names two: say which, by id."""
    from sim import api

    scenario = tmp_path / "twins.yaml"
    text = (REPO / "scenarios" / "stone_wall.yaml").read_text(encoding="utf-8")
    scenario.write_text(text.replace("name: 28th Massachusetts", "name: 69th New York"))
    replay = tmp_path / "twins.jsonl"
    api.run(scenario, out=replay)
    result = _invoke("show", str(replay), "--unit", "69th New York")
    assert (result.exit_code, result.stderr) == (
        2,
        "battlesim: error: --unit 69th New York: 2 units are named '69th New York' "
        "(28ma, 69ny): name one by its id\n",
    )


def test_new_leaves_a_fifo_or_a_link_at_the_schemas_name_unread(tmp_path: Path) -> None:
    """`new` reads an existing scenario.schema.json beside the file only as a regular file:
    a FIFO there blocked it for ever. A FIFO or a link is left as it is, the scenario
    written."""
    import os

    os.mkfifo(tmp_path / "scenario.schema.json")
    made = _invoke("new", "musket", str(tmp_path / "a.yaml"))
    assert made.exit_code == 0, made.output
    assert (tmp_path / "a.yaml").is_file()
    other = tmp_path / "b"
    other.mkdir()
    (other / "scenario.schema.json").symlink_to(tmp_path / "elsewhere.json")
    assert _invoke("new", "musket", str(other / "a.yaml")).exit_code == 0
    assert (other / "scenario.schema.json").is_symlink()
    assert not (tmp_path / "elsewhere.json").exists()


def test_a_narrative_filtered_to_nothing_says_so_on_stderr() -> None:
    """`show --events --turn 0` printed nothing and exited 0, which read as a fault: a note
    on stderr says no event matched (stdout stays the narrative's lines, none)."""
    replay = str(REPO / "replays" / "stone_wall-s1862.jsonl")
    result = _invoke("show", replay, "--turn", "0", "--events")
    assert (result.exit_code, result.stdout) == (0, "")
    assert result.stderr == (
        "battlesim: note: no event of this replay matches --turn 0 (turn 0 is the start: the "
        "battle's events begin in turn 1)\n"
    )
    some = _invoke("show", replay, "--turn", "1", "--events")
    assert some.stdout and some.stderr == ""


@pytest.mark.parametrize("kind", ["loop", "dangling"])
def test_a_link_that_leads_nowhere_says_so(tmp_path: Path, kind: str) -> None:
    """A symbolic link that loops, or leads to a file that is gone, was "no such file" to
    every command, though `ls` lists it: each says what the link is, one line, exit 2."""
    link = tmp_path / "a.yaml"
    if kind == "loop":
        (tmp_path / "b.yaml").symlink_to("a.yaml")
        link.symlink_to("b.yaml")
        said = "a symbolic link that loops back on itself"
    else:
        link.symlink_to("gone.yaml")
        said = "a link to 'gone.yaml', which does not exist"
    for args in (["run", str(link)], ["show", str(link)], ["validate", str(link)]):
        result = _invoke(*args)
        assert (result.exit_code, result.stdout, result.stderr) == (
            2,
            "",
            f"battlesim: error: {link}: {said}\n",
        ), args
    checked = _invoke("check-ruleset", "musket", "--scenario", str(link))
    assert (checked.exit_code, checked.stderr) == (
        2,
        f"battlesim: error: --scenario {link}: {said}\n",
    )


@pytest.mark.parametrize(
    ("name", "shown"),
    [
        ("plain.yaml", "plain.yaml"),
        ("sp ace.yaml", "'sp ace.yaml'"),
        ("-dash.yaml", "./-dash.yaml"),
        ("it's.yaml", "'it'\"'\"'s.yaml'"),
    ],
)
def test_the_commands_suggested_run_as_pasted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str, shown: str
) -> None:
    """`new`'s `next: battlesim validate NAME` and `fork`'s `compare with: battlesim diff
    PARENT CHILD` printed the names as they are, so a name with a space, a quote or a
    leading dash failed when the line was pasted into a shell (`validate sp ace.yaml`: two
    files; `validate -dash.yaml`: an option). Each file is now quoted as a shell takes it,
    and one starting with `-` is given as `./-…`; the line runs as printed."""
    import shlex

    monkeypatch.chdir(tmp_path)
    made = CliRunner().invoke(cli, ["new", "musket", "--", name])
    assert made.exit_code == 0, made.output
    suggested = made.stdout.strip().rsplit("next: ", 1)[1]
    assert suggested == f"battlesim validate {shown}"
    checked = CliRunner().invoke(cli, shlex.split(suggested)[1:])
    assert checked.exit_code == 0, checked.output
    child = tmp_path / f"fork {name}"
    forked = CliRunner().invoke(
        cli,
        ["fork", str(REPO / "replays" / "stone_wall-s1862.jsonl"), "--at", "39", "--set",
         "passed=true", "--set", "after=good", "-o", str(child)],
    )  # fmt: skip
    assert forked.exit_code == 0, forked.output
    compare = forked.stdout.strip().rsplit("compare with: ", 1)[1]
    assert shlex.split(compare)[1:] == ["diff", str(REPO / "replays" / "stone_wall-s1862.jsonl"),
                                       str(child)]  # fmt: skip


@pytest.mark.parametrize(
    "words",
    [
        "battlesim run nosuch.yaml --",
        "battlesim report nosuch.jsonl --",
        "battlesim diff nosuch.jsonl other.jsonl --",
        "battlesim campaign '' --",
    ],
)
def test_completing_after_a_file_not_there_yet_offers_the_options(words: str) -> None:
    """Tab after a file name that does not exist (yet, or mistyped) completes the command's
    options, as after one that does; it printed ``battlesim: error: nosuch.yaml: no such
    file`` over the user's command line and completed nothing (exit 2)."""
    env = {
        "_BATTLESIM_COMPLETE": "bash_complete",
        "COMP_WORDS": words,
        "COMP_CWORD": str(len(words.split()) - 1),
    }
    result = CliRunner().invoke(cli, [], prog_name="battlesim", env=env)
    assert (result.exit_code, result.stderr) == (0, "")
    assert "plain,--json" in result.stdout.splitlines()
