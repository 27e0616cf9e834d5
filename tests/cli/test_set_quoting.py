"""A value typed on the command line (``run --set``, ``fork --set``, ``batch --sweep``) is
told how to quote it on the command line, a value in a file how to in the file.

The scenario loader's advice is a YAML file's: ``quote it ('1862')``, ``write the number
without quotes``, ``check this line's indentation, or quote a value that holds ': '``, ``a
tab: YAML wants spaces to indent``. Typed as told after ``--set sides.csa.name=``, the
quotes never reach battlesim: the shell takes them off (``--set sides.csa.name='1862'``
is the number 1862 again), and a flag has no lines to indent. A flag's advice shows the
value quoted inside the shell's quotes, as the flag is typed; each example it gives is
taken as the advice says when split as a POSIX shell splits it.
"""

from __future__ import annotations

import shlex
from pathlib import Path

import pytest

from engine.projection import set_path
from sim.cli.outcomes.batch import _factor
from sim.contract.parts import row
from sim.replay.fork import ForkError, _check_declared, parse_assignment
from sim.text.values import clipped
from tests.batch.helpers import SCENARIOS, invoke

STONE_WALL = SCENARIOS / "stone_wall.yaml"
GOLDEN = SCENARIOS.parent / "replays" / "stone_wall-s1862.jsonl"
SHELL = "inside the shell's quotes (the shell takes those off)"


def _advised(said: str, flag: str) -> list[str]:
    """The flag and its argument the advice at the end of ``said`` shows, as a POSIX shell
    splits them."""
    shown = said[said.rindex(f": {flag} ") + 2 :]
    return shlex.split(shown.removesuffix(")") if "(" in said[: -len(shown)] else shown)


@pytest.mark.parametrize(
    ("given", "said", "typed"),
    [
        ("sides.csa.name=1862",
         f"--set sides.csa.name: 1862 is a number, not text: quote it, {SHELL}: "
         "--set sides.csa.name=\"'1862'\"",
         "1862"),
        ("sides.csa.name=true",
         f"--set sides.csa.name: true is true or false, not text: quote it, {SHELL}: "
         "--set sides.csa.name=\"'true'\"",
         "true"),
        ("options.fire_hcv='25'",
         "--set options.fire_hcv: '25' is text, not a number: write the number without quotes "
         "inside the shell's: --set options.fire_hcv=25",
         25),
        ("sides.csa.name=a: b: c",
         "--set 'sides.csa.name=a: b: c': not valid YAML: mapping values are not allowed here "
         f"(a value that holds ': ' reads as a 'key:': quote it, {SHELL}: "
         "--set sides.csa.name=\"'a: b: c'\")",
         "a: b: c"),
        ("sides.csa.name=it's: a: $5",
         "--set \"sides.csa.name=it's: a: $5\": not valid YAML: mapping values are not allowed "
         f"here (a value that holds ': ' reads as a 'key:': quote it, {SHELL}: "
         "--set 'sides.csa.name='\"'\"'it'\"'\"''\"'\"'s: a: $5'\"'\"'')",
         "it's: a: $5"),
    ],
)  # fmt: skip
def test_run_set_is_told_how_to_quote_on_the_command_line(
    tmp_path: Path, given: str, said: str, typed: object
) -> None:
    """One line, exit 2, nothing written; the flag the advice shows, split as a shell splits
    it, gives the value the advice meant."""
    out = tmp_path / "r.jsonl"
    result = invoke("run", STONE_WALL, "--set", given, "-o", out)
    assert (result.exit_code, result.stdout, result.stderr) == (2, "", f"{STONE_WALL}: {said}\n")
    assert not out.exists()
    flag, word = _advised(said, "--set")
    assert flag == "--set"
    assert parse_assignment(word) == (given.partition("=")[0], typed)


def test_a_tab_is_told_to_be_quoted_not_indented(tmp_path: Path) -> None:
    result = invoke("run", STONE_WALL, "--set", "sides.csa.name=x\ty", "-o", tmp_path / "r.jsonl")
    assert result.stderr == (
        f"{STONE_WALL}: --set 'sides.csa.name=x\\ty': not valid YAML: found character '\\t' "
        "that cannot start any token (a tab: YAML takes one in a value only inside quotes: "
        f"quote the value, {SHELL}, or write spaces)\n"
    )


def test_the_fixed_advice_runs(tmp_path: Path) -> None:
    """The advice for ``sides.csa.name=1862``, typed: the battle is fought, the Confederates
    named 1862 (text)."""
    out = tmp_path / "r.jsonl"
    result = invoke("run", STONE_WALL, *shlex.split("--set sides.csa.name=\"'1862'\""), "-o", out)
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("stone_wall.yaml (seed 1862): 1862 wins")


def test_fork_set_is_told_how_to_quote_on_the_command_line(tmp_path: Path) -> None:
    result = invoke(
        "fork", GOLDEN, "--at", "14", "--set", "state.units.wash.name=a: b: c", "-o",
        tmp_path / "f.jsonl",
    )  # fmt: skip
    assert (result.exit_code, result.stderr) == (
        2,
        "battlesim: error: --set 'state.units.wash.name=a: b: c': not valid YAML: mapping "
        f"values are not allowed here (a value that holds ': ' reads as a 'key:': quote it, "
        f"{SHELL}: --set state.units.wash.name=\"'a: b: c'\")\n",
    )


@pytest.mark.parametrize(
    ("sweep", "said", "meant"),
    [
        ("sides.csa.name=1862,Rebels",
         f"{STONE_WALL}: --sweep sides.csa.name: design point 0 (sides.csa.name=1862): 1862 is "
         f"a number, not text: quote it, {SHELL}: --sweep sides.csa.name=\"'1862'\"", "1862"),
        ("sides.1.name=Rebels,1862",
         f"{STONE_WALL}: --sweep sides.1.name: design point 1 (sides.1.name=1862): 1862 is "
         f"a number, not text: quote it, {SHELL}: --sweep sides.1.name=\"'1862'\"", "1862"),
        ("options.fire_hcv=15,'25'",
         f"{STONE_WALL}: --sweep options.fire_hcv: design point 1 (options.fire_hcv=\"25\"): "
         "'25' is text, not a number: write the number without quotes inside the shell's: "
         "--sweep options.fire_hcv=25", 25),
        ("sides.csa.name=Rebels,a: b: c",
         f"{STONE_WALL}: --sweep sides.csa.name: 'a: b: c': not valid YAML: mapping values "
         "are not allowed "
         f"here (a value that holds ': ' reads as a 'key:': quote it, {SHELL}: "
         "--sweep sides.csa.name=\"'a: b: c'\")", "a: b: c"),
    ],
)  # fmt: skip
def test_a_sweep_is_told_how_to_quote_on_the_command_line(
    tmp_path: Path, sweep: str, said: str, meant: object
) -> None:
    """One line, exit 2, no study; the value the advice shows, typed, is read as meant."""
    out = tmp_path / "s"
    result = invoke("batch", STONE_WALL, "--runs", "1", "--sweep", sweep, "-o", out)
    assert (result.exit_code, result.stdout, result.stderr) == (
        2,
        "",
        f"battlesim: error: {said}\n",
    )
    assert not (out / "study.duckdb").exists()
    flag, word = _advised(said, "--sweep")
    assert flag == "--sweep"
    assert _factor(word).values == [meant]


@pytest.mark.parametrize(
    ("path", "values", "point"),
    [
        ("options.fire_hcv", "15,abc", 'design point 1 (options.fire_hcv="abc")'),
        ("sides.csa.name", "08,Rebels", "design point 0 (sides.csa.name=08)"),
    ],
)
def test_a_sweep_value_refused_is_said_as_run_set_says_it(
    tmp_path: Path, path: str, values: str, point: str
) -> None:
    """``batch --sweep`` names the scenario file and the flag, and says the value as ``run
    --set`` says it (08 as typed, quoted for the shell); it said ``design point 1 (...) is not
    a valid scenario: options.fire_hcv: ...`` without either, and ``8`` for 08."""
    value = values.split(",")[int(point.split()[2])]
    ran = invoke("run", STONE_WALL, "--set", f"{path}={value}", "-o", tmp_path / "r.jsonl")
    reason = ran.stderr.removeprefix(f"{STONE_WALL}: --set {path}: ")
    assert ran.exit_code == 2 and reason != ran.stderr
    result = invoke("batch", STONE_WALL, "--runs", "1", "--sweep", f"{path}={values}", "-o",
                    tmp_path / "s")  # fmt: skip
    assert (result.exit_code, result.stdout, result.stderr) == (
        2,
        "",
        f"battlesim: error: {STONE_WALL}: --sweep {path}: {point}: "
        + reason.replace(f"--set {path}=", f"--sweep {path}="),
    )


def test_files_keep_a_file_s_advice(tmp_path: Path) -> None:
    """A scenario file's and a study file's values are told to quote as YAML is written, and
    a file's layout to check its line's indentation."""
    scenario = tmp_path / "stone_wall.yaml"
    text = STONE_WALL.read_text(encoding="utf-8")
    scenario.write_text(text.replace("name: Confederate", "name: 1862"), encoding="utf-8")
    line = text.splitlines().index("    name: Confederate") + 1
    result = invoke("validate", scenario)
    assert (result.exit_code, result.stderr) == (
        2,
        f"{scenario}:{line}: sides.1.name: 1862 is a number, not text: quote it ('1862')\n",
    )
    scenario.write_text(text.replace("name: Confederate", "name: a: b: c"), encoding="utf-8")
    result = invoke("validate", scenario)
    assert (result.exit_code, result.stderr) == (
        2,
        f"{scenario}:{line}: not valid YAML: mapping values are not allowed here (a 'key:' "
        "where none can begin: check this line's indentation, or quote a value that holds ': ')\n",
    )
    study = tmp_path / "study.yaml"
    study.write_text(
        f"name: s\nscenario: {STONE_WALL}\nseed: 1\nreplications: 1\n"
        "factors:\n  - {path: sides.csa.name, values: [1862, Rebels]}\n"
    )
    result = invoke("study", study, "--out", tmp_path / "out")
    assert result.exit_code == 2
    assert result.stderr.endswith(": 1862 is a number, not text: quote it ('1862')\n")


@pytest.mark.parametrize(
    ("at", "path", "typed"),
    [(46, "reason", "08"), (14, "state.units.wash.name", "08"), (46, "reason", "1e3")],
    ids=["event-field", "state-field", "float-spelling"],
)
def test_fork_set_of_a_number_where_text_goes_keeps_the_text_typed(
    tmp_path: Path, at: int, path: str, typed: str
) -> None:
    """``fork --set reason=08`` (a text field; YAML reads 08 as the number 8) is refused as
    ``run --set`` refuses it, in the text typed: ``08 is a number, not text``, with the
    flag that sets the text 08 (it said ``reason is a str, not an int``); typed as advised,
    the fork holds the text 08."""
    out = tmp_path / "f.jsonl"
    result = invoke("fork", GOLDEN, "--at", str(at), "--set", f"{path}={typed}", "-o", out)
    advice = f"--set {path}=\"'{typed}'\""
    assert (result.exit_code, result.stdout, result.stderr) == (
        2,
        "",
        f"battlesim: error: --set {path}: {typed} is a number, not text: quote it, {SHELL}: "
        f"{advice}\n",
    )
    assert not out.exists()
    flag, word = shlex.split(advice)
    assert parse_assignment(word) == (path, typed)
    assert invoke("fork", GOLDEN, "--at", str(at), flag, word, "-o", out).exit_code == 0


def test_run_set_of_a_number_where_text_goes_keeps_the_text_typed(tmp_path: Path) -> None:
    """``run --set sides.csa.name=08`` says 08, as typed, and advises quoting 08: it said
    ``8 is a number`` and advised ``'8'``, which names the side 8."""
    out = tmp_path / "r.jsonl"
    result = invoke("run", STONE_WALL, "--set", "sides.csa.name=08", "-o", out)
    assert (result.exit_code, result.stdout, result.stderr) == (
        2,
        "",
        f"{STONE_WALL}: --set sides.csa.name: 08 is a number, not text: quote it, {SHELL}: "
        "--set sides.csa.name=\"'08'\"\n",
    )
    flag, word = _advised(result.stderr.rstrip("\n"), "--set")
    assert (flag, parse_assignment(word)) == ("--set", ("sides.csa.name", "08"))


@row
class _Named:
    name: str | None = None


def test_a_number_for_a_text_field_now_null_is_said_as_typed() -> None:
    """A state field declared text or null, null now (set_path cannot tell its type): a
    number typed for it is refused in the text typed, as over a text."""
    state = {"p": _Named()}
    set_path(state, "p.name", 8, counts=True)
    with pytest.raises(ForkError) as refused:
        _check_declared(state, "p.name", 8, "08")
    assert str(refused.value) == (
        f"--set state.p.name: 08 is a number, not text: quote it, {SHELL}: "
        "--set state.p.name=\"'08'\""
    )


LONG = "a: b: " + "y" * 200
"""A value holding ': ' that YAML cannot read, 206 characters long."""


def _cut(text: str) -> str:
    """``text`` as an error line echoes a long value: its first 40 characters and its length."""
    return f"{text[:40]}... ({len(text)} characters)"


def test_a_long_value_s_quoting_advice_shows_its_start_and_length(tmp_path: Path) -> None:
    """``run --set``, ``fork --set`` and ``--sweep`` of a 206-character value holding ': '
    echoed it cut (``'sides.csa.name=a: b: yyy... (221 characters)'``) and then whole in
    the advice on quoting it; the advice now cuts it the same way, inside the quotes it
    says to type."""
    advice = (
        "not valid YAML: mapping values are not allowed here (a value that holds ': ' reads "
        f"as a 'key:': quote it, {SHELL}: "
    )
    given = f"sides.csa.name={LONG}"
    run = invoke("run", STONE_WALL, "--set", given, "-o", tmp_path / "r.jsonl")
    assert (run.exit_code, run.stderr) == (
        2,
        f"{STONE_WALL}: --set '{_cut(given)}': {advice}--set sides.csa.name=\"'{_cut(LONG)}'\")\n",
    )
    given = f"state.units.wash.name={LONG}"
    fork = invoke("fork", GOLDEN, "--at", "14", "--set", given, "-o", tmp_path / "f.jsonl")
    assert (fork.exit_code, fork.stderr) == (
        2,
        f"battlesim: error: --set '{_cut(given)}': {advice}"
        f"--set state.units.wash.name=\"'{_cut(LONG)}'\")\n",
    )
    sweep = invoke(
        "batch", STONE_WALL, "--runs", "1", "--sweep", f"sides.csa.name=Rebels,{LONG}", "-o",
        tmp_path / "s",
    )  # fmt: skip
    assert (sweep.exit_code, sweep.stderr) == (
        2,
        f"battlesim: error: {STONE_WALL}: --sweep sides.csa.name: '{_cut(LONG)}': {advice}"
        f"--sweep sides.csa.name=\"'{_cut(LONG)}'\")\n",
    )


def test_a_long_number_s_advice_to_unquote_it_shows_its_start_and_length(
    tmp_path: Path,
) -> None:
    """A 100-digit number typed in quotes for a number: the advice to type it without
    quotes showed all 100 digits; it shows the first 40 and the length, as the value's
    echo does."""
    digits = "8" * 100
    result = invoke(
        "run", STONE_WALL, "--set", f"options.fire_hcv='{digits}'", "-o", tmp_path / "r.jsonl"
    )
    assert result.exit_code == 2
    assert result.stderr.endswith(
        f" is text, not a number: write the number without quotes inside the shell's: "
        f"--set options.fire_hcv={_cut(digits)}\n"
    )


def test_a_long_number_s_advice_to_quote_it_is_cut_as_its_echo_is(tmp_path: Path) -> None:
    """A 153-character number typed for text is echoed cut by the loader, and the advice to
    quote it shows that same cut, not a second one of it."""
    number = "1." + "0" * 150 + "1"
    result = invoke(
        "run", STONE_WALL, "--set", f"sides.csa.name={number}", "-o", tmp_path / "r.jsonl"
    )
    written = clipped(number)
    assert (result.exit_code, result.stderr) == (
        2,
        f"{STONE_WALL}: --set sides.csa.name: {written} is a number, not text: quote it, "
        f"{SHELL}: --set sides.csa.name=\"'{written}'\"\n",
    )
