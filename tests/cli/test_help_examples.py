"""Every example in every command's ``--help`` runs, exits as it says and prints what it shows.

The examples are read from the commands themselves (click's help text and
epilog, every command and subcommand), so a new example is tested the day it
is written. They run in page order of a dependency-sorted list in one
scratch folder holding links to the checkout's ``scenarios/`` and
``replays/``, so ``export sw`` finds the study ``batch … -o sw`` made and
``report held.jsonl`` the fork's replay. An example exits 0 unless its line
says otherwise (``# exit 0 or 1``: history's verdict); lines under an example that are not
commands are its shown output and must match what it prints.

The few examples too costly for a test run with a smaller budget appended
(``BUDGET``, counted), the rest exactly as printed.

An option's help may give examples of its own: ``run --set``'s and ``batch --sweep``'s
field paths (``sides.csa.units.phil.strength=900``). They are no command line, so the
blocks above never held them, and a unit the scenario lacks stood there unnoticed
(``cobb``, of chancellorsville.yaml, on the stone wall). Each is run too, on the scenario
its command's own examples fight, all of a command's at once (one battle; a study of one
run a point): :func:`option_examples`.

Each example belongs to a *group* (:func:`groups`): the group of the example
that made a file it names (``-o``/``--out``, ``new``'s scenario, a study's
default folder), else its own command's. A group is one unit of work for
``make test`` (tests/units.py: its examples run in order on one worker, in
the group's own scratch folder), so the groups share the cores. The commands
run through the forking stand-in of :mod:`tests.forkserver` (the real script
with ``BATTLESIM_TEST_SUBPROCESS=1``): the same output and exit codes without
Python's start-up each time.
"""

from __future__ import annotations

import re
import shlex
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

import click
import pytest

from sim.api import load_replay
from sim.cli import cli
from sim.rulesets.musket.model.events import Fired
from tests.forkserver import battlesim_script
from tests.readme_examples import ALSO_RUN_BY_HELP, example_env, pages, shared_command
from tests.readme_examples import examples as page_examples

ROOT = Path(__file__).resolve().parents[2]
HEADING = re.compile(r"^\s*Examples?:\s*(.*)$")
CONTINUED = re.compile(r"\\\n\s*")
"""A shell line continued on the next (``\\`` at its end)."""
EXIT = re.compile(r"#.*\bexit (\d)(?: or (\d))?")


@dataclass
class Example:
    """One example command of a command's help, with what it shows and may exit with."""

    command: str
    line: str
    shown: list[str] = field(default_factory=list)
    group: str = ""
    """Its unit of work (:func:`groups`)."""

    @property
    def bare(self) -> str:
        """The line without its comment."""
        return self.line.split("#")[0].strip()

    @property
    def exits(self) -> set[int]:
        """The exit codes the line allows: 0 unless its comment says ``exit N [or M]``."""
        said = EXIT.search(self.line)
        return {int(c) for c in said.groups() if c} if said else {0}

    @property
    def argv(self) -> list[list[str]]:
        """The battlesim argument lists of the line (``a && b`` is two)."""
        words = shlex.split(self.line, comments=True)
        out: list[list[str]] = [[]]
        for word in words:
            if word == "&&":
                out.append([])
            else:
                out[-1].append(word)
        assert all(a and a[0] == "battlesim" for a in out), self.line
        return [a[1:] for a in out]


def _texts(command: click.Command) -> list[str]:
    return [t for t in (command.help, command.epilog) if t]


def _walk(group: click.Command, path: str = "") -> list[tuple[str, click.Command]]:
    """The command and every subcommand under it (loaded as the CLI loads them), with paths."""
    out = [(path, group)]
    if isinstance(group, click.Group):
        ctx = click.Context(group, info_name=path or "battlesim")
        for name in group.list_commands(ctx):
            sub = group.get_command(ctx, name)
            assert sub is not None
            out += _walk(sub, f"{path} {name}".strip())
    return out


def examples() -> list[Example]:
    """Every example of every command's help, in command order."""
    found: list[Example] = []
    for path, command in _walk(cli):
        for text in _texts(command):
            block = False
            for raw in CONTINUED.sub("", text).splitlines():
                heading = HEADING.match(raw)
                if heading:
                    block = True
                    if heading.group(1):  # an inline example: "Example: battlesim run …"
                        found.append(Example(path or "battlesim", heading.group(1).strip()))
                    continue
                if block and not raw.strip():
                    block = False
                elif block and raw.strip().startswith("battlesim "):
                    found.append(Example(path or "battlesim", raw.strip()))
                elif block:
                    found[-1].shown.append(raw.strip())
    return found


ORDER = ["new", "run", "fork", "batch", "study"]
"""Commands whose examples make what others read (a scenario, a replay, a study folder)."""

BUDGET = {
    "battlesim batch scenarios/stone_wall.yaml --runs 200 --jobs 2 -o sw": ["--runs", "50"],
    "battlesim study scenarios/stone_wall_study.yaml --jobs 2": ["--runs", "24"],
    "battlesim study scenarios/stone_wall_study.yaml --runs 40 --out sw-quick": ["--runs", "24"],
    # one musket case (its loss band reported too): garcia_hernandez costs half quatre_bras_hedge's
    # CPU (~2.3 against ~5.2 s), and the examples' checks (an exit 0 or 1) hold for any case
    "battlesim history": ["--case", "garcia_hernandez"],
    "battlesim history --json --plot history.png": ["--case", "garcia_hernandez"],
    # one held-out case, few runs
    "battlesim history --split held_out --max-runs 3200": [
        "--case",
        "maida_kempt",
        "--max-runs",
        "200",
    ],
}
"""Examples run with these arguments appended (a later option wins): each costs up to minutes
as printed (the whole history suite ~130-145 CPU s, tests/units.py; its held-out cases at up
to 3,200 runs a case more; the full stone wall study ~30 CPU s; 24 runs is the least the
study's --until-ci pilot leaves a confirmatory sample of), unless :data:`SHARED`."""

SHARED = ALSO_RUN_BY_HELP
"""Examples README.md and docs/*.md run too, as printed: when a page has already run
one in this session (:func:`tests.readme_examples.shared_command`, keyed on the exact
command, made from the checkout's scenarios alone), that run serves the example: its exit
code is the example's and its files (the study folder the examples after it read) are
copied into the group's folder. So ``make test`` fights the stone wall study once, at full
size (README's batch section runs it first, tests/units.py), not once more here at 24 runs a
point for each of the two; alone (``make check``, ``-k``) the example runs with its budget.
One with no budget (the coral sea calibration, which docs/calibrate.md runs as printed too)
costs the same run either way, so the example runs it for the pages when no page has: one
calibration a session, not two."""

EXAMPLES = sorted(
    examples(), key=lambda e: ORDER.index(e.command) if e.command in ORDER else len(ORDER)
)

_MADE_BY = ("-o", "--out")


def _made(argv: list[str]) -> set[str]:
    """The files and folders a command's arguments say it makes (first path part)."""
    made = {argv[k + 1] for k, w in enumerate(argv[:-1]) if w in _MADE_BY}
    if argv[:1] == ["new"] and len(argv) >= 3:
        made.add(argv[2])
    if argv[:1] == ["study"] and len(argv) >= 2 and not made & set(argv):
        made.add(Path(argv[1]).stem)  # a study file's default folder: its name
    return {m.strip("/").split("/")[0] for m in made}


def groups(found: list[Example]) -> None:
    """Set each example's group: the group of the example before it that made a file it
    names, else its own command's (the first word after ``battlesim``)."""
    maker: dict[str, str] = {}
    for e in found:
        names = {w.strip("/").split("/")[0] for argv in e.argv for w in argv[1:]}
        reads = sorted(maker[n] for n in names if n in maker)
        e.group = reads[0] if reads else e.argv[0][0]
        for argv in e.argv:
            for m in _made(argv):
                maker.setdefault(m, e.group)


groups(EXAMPLES)


def test_every_command_has_an_example() -> None:
    """Each command with no subcommands shows at least one example in its help."""
    leaves = {p for p, c in _walk(cli) if p and not isinstance(c, click.Group)}
    assert leaves - {e.command for e in EXAMPLES} == set()


def test_budgets_name_real_examples() -> None:
    """Every budgeted example is one the help prints (a renamed one is not run short silently);
    every shared one too, alone on its line, showing no output of its own, and run by a page
    as well (else no page's run would serve it)."""
    assert set(BUDGET) <= {e.bare for e in EXAMPLES}
    assert len(BUDGET) == 6
    shared = [e for e in EXAMPLES if e.bare in SHARED]
    assert {e.bare for e in shared} == SHARED
    assert [(len(e.argv), e.shown) for e in shared] == [(1, [])] * len(SHARED)
    on_pages = {e.command for p in pages() for e in page_examples(p) if e.skip is None}
    assert on_pages >= SHARED


def test_examples_that_read_what_another_made_run_in_its_group() -> None:
    """A study's, a batch's, a fork's and a new scenario's readers share its group."""

    def group(start: str) -> str:
        (found,) = {e.group for e in EXAMPLES if e.bare.startswith(f"battlesim {start}")}
        return found

    assert group("export sw") == group("rerun sw") == group("batch") == "batch"
    assert group("report held.jsonl") == group("diff replays/stone_wall-s1862.jsonl") == "fork"
    assert group("verify stone_wall_study") == group("discover stone_wall_study") == "study"
    assert group("discover sw-quick") == group("study") == "study"
    assert group("check-ruleset musket") == group("new") == "new"
    assert group("history") == "history"
    assert len({e.group for e in EXAMPLES}) >= 10


@pytest.fixture(scope="module")
def scratches() -> dict[str, Path]:
    """Each group's scratch folder, made when its first example runs."""
    return {}


@pytest.fixture
def scratch(
    example: Example, scratches: dict[str, Path], tmp_path_factory: pytest.TempPathFactory
) -> Path:
    """``example``'s group's folder: the checkout's scenarios/ and replays/ (links) and a
    docs/ to write into."""
    group = example.group
    if group not in scratches:
        here = tmp_path_factory.mktemp(f"help-examples-{group}")
        for name in ("scenarios", "replays"):
            (here / name).symlink_to(ROOT / name, target_is_directory=True)
        (here / "docs").mkdir()
        scratches[group] = here
    return scratches[group]


@pytest.mark.parametrize("example", EXAMPLES, ids=[f"{e.group}: {e.bare}" for e in EXAMPLES])
def test_help_example_runs(example: Example, scratch: Path, across_workers: Path) -> None:
    """The example exits as its line says, and prints the output its help shows (a
    :data:`SHARED` one a page has run already: as that run, as printed)."""
    if example.bare in SHARED:
        run = example.bare not in BUDGET  # as printed either way: run it once for all
        done = shared_command(example.bare, scratch, example_env(), across_workers, run=run)
        if done is not None:
            assert done.returncode in example.exits, (example.line, done.stdout[-2000:])
            return
    for argv in example.argv:
        extra = BUDGET.get(example.bare, [])
        done = subprocess.run(
            [str(battlesim_script()), *argv, *extra],
            cwd=scratch,
            capture_output=True,
            text=True,
            check=False,
            timeout=600,
        )
        assert done.returncode in example.exits, (example.line, done.stderr[-2000:])
    if example.shown:
        assert done.stdout.splitlines() == example.shown


FIELD_EXAMPLE = re.compile(r"[a-z_]+(?:\.[\w-]+)+=\S+")
"""A field path given a value, as an option's help shows one: ``options.fire_hcv=15..35``."""


def option_examples() -> list[tuple[str, str, list[str]]]:
    """Each command's options whose help gives field examples: the command, the option's
    flag and its examples, in help order (the words of the help that are a path given a
    value, less the prose's brackets and punctuation around them)."""
    found = []
    for path, command in _walk(cli):
        for param in command.params:
            if not isinstance(param, click.Option) or not param.help:
                continue
            words = [w.lstrip("(").rstrip(",.;)") for w in param.help.split()]
            values = [w for w in words if FIELD_EXAMPLE.fullmatch(w)]
            if values:
                found.append((path, max(param.opts, key=len), values))
    return found


OPTION_EXAMPLES = option_examples()

OPTION_RUNS = {
    "run": ["-o", "set.jsonl"],
    "batch": ["--runs", "1", "--design", "lhs", "--points", "2", "--no-plots", "-o", "sweep"],
}
"""What each command with option examples is run with besides them, at the least cost: one
battle; a study of one run at each of two points (a Latin hypercube, so that the help's
range ``options.fire_hcv=15..35``, which a grid refuses, is swept, and each of a two-value
factor's values is a point's)."""


RUN_HERE = [e for e in OPTION_EXAMPLES if e[0] in OPTION_RUNS]


def test_option_examples_are_found() -> None:
    """The options whose help gives field examples are batch --sweep's, fork --set's and run
    --set's, each with the examples its help shows; all but fork's are run here (a new one
    needs its :data:`OPTION_RUNS`). fork's name a field of one event or another, which no
    one seq has: :func:`test_fork_option_examples_are_lawful` tries each where it applies."""
    assert [(c, flag, len(v)) for c, flag, v in OPTION_EXAMPLES] == [
        ("batch", "--sweep", 2),
        ("fork", "--set", 2),
        ("run", "--set", 3),
    ]
    assert [c for c, _, _ in RUN_HERE] == ["batch", "run"]


@pytest.mark.parametrize(("command", "flag", "values"), RUN_HERE, ids=[c for c, _, _ in RUN_HERE])
def test_option_help_examples_run(
    command: str, flag: str, values: list[str], tmp_path: Path
) -> None:
    """Every field example of an option's help is one the scenario of its command's own
    examples has: the command, given them all at once, exits 0."""
    scenario = next(e.argv[0][1] for e in EXAMPLES if e.command == command)
    (tmp_path / "scenarios").symlink_to(ROOT / "scenarios", target_is_directory=True)
    given = [w for v in values for w in (flag, v)]
    argv = [command, scenario, *given, *OPTION_RUNS[command]]
    done = subprocess.run(
        [str(battlesim_script()), *argv],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
        timeout=600,
    )
    assert (done.returncode, done.stderr) == (0, ""), shlex.join(["battlesim", *argv])


FORK = next(e for e in EXAMPLES if e.command == "fork")


def _fork_claim(line: str) -> tuple[str, int, dict[str, str]]:
    words = shlex.split(line)
    sets = dict(words[i + 1].split("=", 1) for i, w in enumerate(words) if w == "--set")
    return words[2], int(words[words.index("--at") + 1]), sets


def test_fork_example_flips_a_failed_morale_check() -> None:
    """`fork --help`'s seq is, in the golden it names, a morale check that failed, and the
    example sets it passed with the status the unit had before it (so the unit holds)."""
    replay, seq, sets = _fork_claim(FORK.line)
    events = load_replay(ROOT / replay).events
    failed = [e.seq for e in events if getattr(e, "passed", True) is False]
    event = events[seq]
    assert getattr(event, "passed", None) is False, (
        f"seq {seq} of {replay} is a {event.type}, not a failed morale check; "
        f"the failed checks are at seq {failed}"
    )
    assert sets == {"passed": "true", "after": getattr(event, "before", None)}


def _fork(replay: str, seq: int, sets: list[str], where: Path) -> subprocess.CompletedProcess[str]:
    given = [w for v in sets for w in ("--set", v)]
    argv = ["fork", str(ROOT / replay), "--at", str(seq), *given, "-o", "f.jsonl"]
    return subprocess.run(
        [str(battlesim_script()), *argv],
        cwd=where, capture_output=True, text=True, check=False, timeout=600,
    )  # fmt: skip


def test_fork_option_examples_are_lawful(tmp_path: Path) -> None:
    """`fork --set`'s field examples, on the golden `fork --help`'s example names: the state
    field forks at the example's seq (exit 0); the event field, a loss of 0 set alone on the
    first fire that cost men, is refused in one line naming the fields it decides, as the
    help says it is."""
    (_, _, values) = next(e for e in OPTION_EXAMPLES if e[0] == "fork")
    state = [v for v in values if v.startswith("state.")]
    event = [v for v in values if not v.startswith("state.")]
    assert state == ["state.units.1ri.strength=4"] and event == ["result.casualties=0"]
    replay, seq, _ = _fork_claim(FORK.line)
    done = _fork(replay, seq, state, tmp_path)
    assert (done.returncode, done.stderr) == (0, ""), done.stderr
    fired = next(
        e.seq
        for e in load_replay(ROOT / replay).events
        if isinstance(e, Fired) and e.result.casualties > 0
    )
    refused = _fork(replay, fired, event, tmp_path)
    assert refused.returncode == 2 and refused.stderr.count("\n") == 1
    assert "result.fatigue_value must be 0.0" in refused.stderr
    assert "result.morale_check_p must be 0.0" in refused.stderr


@pytest.mark.parametrize("page", ["README.md"])
def test_pages_fork_where_the_help_does(page: str) -> None:
    """README forks the stone wall golden at the seq `fork --help` names, with the same
    changes: when the golden moves, the help's number is the one to fix. (The viewer page
    forks where its picture does, the 69th New York's failed check:
    tests/viewer/test_page.py.)"""
    _, seq, sets = _fork_claim(FORK.line)
    text = (ROOT / page).read_text(encoding="utf-8")
    golden = "replays/stone_wall-s1862.jsonl"
    commands = [
        line.removeprefix("$ ").split("#")[0].replace("$R", golden)  # README: R=the golden
        for line in text.splitlines()
    ]
    lines = [c for c in commands if c.startswith(f"battlesim fork {golden} ")]
    assert lines
    assert {_fork_claim(line)[1:] == (seq, sets) for line in lines} == {True}
