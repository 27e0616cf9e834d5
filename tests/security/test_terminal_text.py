"""Terminal forgery: names and file names never start a line of their own or hide characters.

A newline in a unit's name would print "FAKE: Union wins after 1 turns" as
a line of its own; U+202E reverses what follows it; zero-width characters
make two names look alike.  Every printer passes its lines through
:func:`engine.safety.text.one_line` (``sim.cli.common.say``), and everything
printed through :func:`engine.safety.text.escape` (the guarded streams).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.safety.text import escape, one_line
from tests.forge import invoke

ROOT = Path(__file__).resolve().parents[2]
SCENARIO = (ROOT / "scenarios" / "stone_wall.yaml").read_text(encoding="utf-8")
FORGED = "FAKE: Union wins after 1 turns"
HIDDEN = ["\u202e", "\u202d", "\u2066", "\u2069", "\u200b", "\u200d", "\u200e", "\ufeff", "\u2028"]
"""Bidirectional controls, zero-width characters and a line separator."""
UNIT = f"69th\n{FORGED}\u202etxt.exe\u200b"
SIDE = f"Uni\u200bon\n{FORGED}"
SEQ_69 = next(
    e["seq"]
    for e in map(json.loads, (ROOT / "replays" / "stone_wall-s1862.jsonl").read_text().splitlines())
    if e.get("unit") == "69ny"
)
"""The first event of the 69th New York in the golden battle, which the renamed scenario
fights again at the same seed: ``why`` narrates it with the forged name."""


@pytest.fixture(scope="module")
def replays(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    folder = tmp_path_factory.mktemp("names")
    text = SCENARIO.replace("name: 69th New York", f'name: "{_yaml(UNIT)}"', 1)
    text = text.replace("    name: Union\n", f'    name: "{_yaml(SIDE)}"\n', 1)
    scenario = folder / "s.yaml"
    scenario.write_text(text, encoding="utf-8")
    a, b = folder / "a.jsonl", folder / "b.jsonl"
    for out, seed in ((a, "1862"), (b, "7")):
        result = invoke("run", str(scenario), "--seed", seed, "--out", str(out))
        assert result.exit_code == 0, result.output
        _clean(result.output)
    return a, b


def _yaml(text: str) -> str:
    return text.replace("\n", "\\n").replace("\u202e", "\\u202E").replace("\u200b", "\\u200B")


def _clean(output: str) -> None:
    """No line begins with the forged text; no hidden character is printed raw."""
    assert not [line for line in output.splitlines() if line.startswith("FAKE")], output
    assert [c for c in HIDDEN if c in output] == []


@pytest.mark.parametrize(
    "args",
    [
        ["show", "{a}", "--events"],
        ["show", "{a}", "--events", "--seqs", "--unit", "69ny"],
        ["show", "{a}", "--turn", "2"],
        ["show", "{a}", "--unit", "69ny"],
        ["why", "{a}", str(SEQ_69)],
        ["diff", "{a}", "{b}"],
        ["diff", "{a}", "{b}", "--verbose"],
        ["verify", "{a}"],
    ],
)
def test_every_printer_escapes_names(replays: tuple[Path, Path], args: list[str]) -> None:
    """Each command prints the names with \\n and \\uNNNN shown, every line its own."""
    a, b = replays
    result = invoke(*(x.format(a=a, b=b) for x in args))
    assert result.exit_code in (0, 1), result.output
    _clean(result.output)
    if args[0] == "show" or args[0] == "why":
        assert "\\n" + FORGED in result.output


def test_the_unit_name_is_shown_escaped_in_the_table(replays: tuple[Path, Path]) -> None:
    """show --turn prints the unit's name as one cell: \\n, \\u202e and \\u200b spelled out."""
    result = invoke("show", str(replays[0]), "--turn", "1")
    assert "69th\\nFAKE: Union wins after 1 turns\\u202etxt.exe\\u200b" in result.output


def test_a_file_name_in_an_error_is_one_line(tmp_path: Path) -> None:
    """A missing file whose name holds a newline and U+202E: one escaped line on stderr, exit 2."""
    name = tmp_path / f"x\n{FORGED}\u202e.jsonl"
    result = invoke("verify", str(name))
    assert result.exit_code == 2
    assert result.stderr.count("\n") == 1, result.stderr
    _clean(result.stderr)
    assert "\\nFAKE" in result.stderr and "\\u202e" in result.stderr


def test_a_bad_file_name_in_a_scenario_error_is_one_line(tmp_path: Path) -> None:
    """Each scenario problem in a file whose name holds a newline is one line of its own."""
    bad = tmp_path / f"s\n{FORGED}.yaml"
    bad.write_text("ruleset: musket\nname: x\nseed: yes\n", encoding="utf-8")
    result = invoke("validate", str(bad))
    assert result.exit_code == 2
    _clean(result.stderr)
    lines = result.stderr.splitlines()
    assert len(lines) == 4  # seed, then the three missing fields
    assert all(line.startswith(f"{tmp_path}/s\\n{FORGED}.yaml:") for line in lines), lines


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.sampled_from(["a", " ", "\n", "\r", "\t", "\x1b", "\x85", *HIDDEN])))
def test_one_line_leaves_no_line_break_nor_hidden_character(text: str) -> None:
    """one_line's result is one line without any control or hidden character; escape keeps
    newline, tab and CR only; plain text passes both unchanged."""
    shown = one_line(text)
    assert shown.splitlines() in ([shown], [])
    assert [c for c in shown if c in [*HIDDEN, "\n", "\r", "\t", "\x1b", "\x85"]] == []
    kept = escape(text)
    assert [c for c in kept if c in [*HIDDEN, "\x1b", "\x85"]] == []
    assert kept.count("\n") == text.count("\n")
    if all(c in "a " for c in text):
        assert shown == kept == text


@pytest.fixture(scope="module")
def study(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A small study of a swept tavern brawl in a folder whose name holds a newline."""
    folder = tmp_path_factory.mktemp("study") / f"s\n{FORGED}"
    result = invoke(
        "batch", str(ROOT / "scenarios" / "tavern_brawl.yaml"), "--runs", "10", "--jobs", "1",
        "--design", "lhs", "--points", "4", "--sweep", "sides.orcs.monsters.grub.hp=1..60",
        "--no-plots", "-q", "-o", str(folder),
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    _clean(result.output)  # batch's "Results:" line
    assert f"Results: {folder}".replace("\n", "\\n") in result.output
    return folder


@pytest.mark.parametrize(
    "args",
    [
        ["verify", "{s}", "--sample", "1"],
        ["export", "{s}", "--format", "csv"],
        ["discover", "{s}", "-m", "winner == 'orcs'", "--boxes", "1", "-o", "{s}.png"],
        ["new", "musket", "{s}.yaml"],
        ["calibrate", "{c}", "-o", "{s}-fit", "--refight", "0", "--jobs", "1", "-q"],
    ],
)
def test_every_writer_prints_its_file_names_on_one_line(study: Path, args: list[str]) -> None:
    """The file names a command says it wrote (verify's verdict, export's "Wrote", discover's
    "Plot:", new's "Wrote … next:", calibrate's "Results:") are shown escaped: a folder named
    with a newline printed "FAKE: …" as a line of its own."""
    fit = study.parent / "fit.yaml"
    fit.write_text(
        f"scenario: {ROOT / 'scenarios' / 'tavern_brawl.yaml'}\nseed: 1\nreplications: 2\n"
        "trials: 1\nfactors:\n  - {path: sides.orcs.monsters.grub.hp, values: [6]}\n"
        "targets:\n  - {measure: win.thorgrim, range: [0.5, 1.0]}\n"
        "outputs: {plots: false}\n",
        encoding="utf-8",
    )
    result = invoke(*(x.format(s=study, c=fit) for x in args))
    assert result.exit_code == 0, result.output
    _clean(result.output)
    assert f"{study}".replace("\n", "\\n") in result.output
