"""The docs' examples (README.md and docs/*.md) as commands to run, and their update.

The scheme (documented in README.md, "How the examples are tested"):

* a ```` ```console ```` block holds ``$ command`` lines, each followed by
  its expected output; a line ``…`` in the expected output stands for any
  lines (one or more) left out; ``$ make TARGET`` shows what make echoes on
  a fresh checkout (``make -n``, its silent steps left out, nothing
  installed) followed by what its battlesim commands print;
* in README.md a ```` ```sh ```` block holds commands only (``# comments``
  are dropped, a trailing ``\\`` continues a line); each must exit 0
  (``diff``: 0 or 1). Lines starting with ``make`` are not run (``make
  test`` is what runs the test). In docs/*.md, ``sh`` blocks are synopses
  (``battlesim show REPLAY [--turn N]``) and are run only when marked
  ``<!-- docs-test: run -->``;
* a ```` ```python ```` block runs as one script and must exit 0 (in
  docs/*.md: when marked ``<!-- docs-test: run -->``, as for ``sh``); an
  ```` ```output ```` block right after it is what the script must print
  (``…`` as in console blocks);
* HTML comments, invisible on the rendered page, drive the test:
  ``<!-- docs-test: setup COMMAND -->`` runs a command there (preparing the
  files the next examples need; it must exit 0; the comment may run over
  several lines, e.g. a ``python - <<'EOF'`` script), ``<!-- docs-test: check
  COMMAND -->`` runs one that must exit 0 (a figure the prose quotes, checked
  against what a command prints), and ``<!-- docs-test: skip REASON -->``
  before a block leaves it out — every skip is counted in
  ``tests/test_doc_examples.py`` (``SKIPPED``).

A console example shows what a terminal would: stdout and stderr together.
Commands run with bash, in page order, one scratch directory per section
(``##`` or ``###`` heading; a section marked ``<!-- docs-test: continue
UNIT -->`` uses what section UNIT, before it, made, and shares its directory) holding
copies of ``scenarios/``, ``replays/``, ``docs/`` and ``tests/data/``, with
battlesim on ``PATH``: the forking stand-in of :mod:`tests.forkserver` (the
same output and exit codes, without Python's start-up each time), or the
real script with ``BATTLESIM_TEST_SUBPROCESS=1``.

A command that more than one page runs (the same text, e.g. the stone-wall
study in README.md and docs/batch.md) is run once for all of them when the
tests give the pages a shared folder (:func:`shared_run`): in a scratch
directory of fresh copies, its output and the files it made kept, and each
page given those — exactly what it would have got, because a battlesim command
is deterministic and the page's copies are checked unchanged, none of the
files it made already there, and the command refers to no shell variable.

``python tests/readme_examples.py update [--slow] [PAGE…]`` runs the pages
(all by default) the same way and rewrites each console example's shown
output with what its command prints now (keeping a ``…`` cut at the same
place); the outputs change when the rules or the wording do (``make
docs-examples`` passes ``--slow``: the examples skipped as ``slow: …`` in
the tests run there too).
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

__all__ = [
    "ROOT",
    "Example",
    "Page",
    "console_examples",
    "example_env",
    "examples",
    "exit_ok",
    "failure",
    "fenced_blocks",
    "matches",
    "pages",
    "prepare",
    "repeated",
    "run_example",
    "shared_command",
    "shared_run",
    "slug",
    "units",
    "update",
]

ROOT = Path(__file__).resolve().parent.parent
FENCE = re.compile(r"^```(\w*)\s*$")
DIRECTIVE = re.compile(r"^<!--\s*docs-test:\s*(run|setup|check|skip)\b\s*(.*?)\s*-->\s*$", re.S)
ASSIGN = re.compile(r"^([A-Z_][A-Z0-9_]*)=(\S+)$")
COPIED = ("scenarios", "replays", "docs", "tests/data")
"""What each page's scratch directory holds a copy of."""


@dataclass
class Example:
    """One command, where it is in its page, and its expected output (console) or None.

    ``kind`` is ``console``, ``sh``, ``python``, ``setup`` or ``check``; ``skip``
    the reason a ``<!-- docs-test: skip -->`` gave, or None.
    """

    line: int
    command: str
    expected: list[str] | None = field(default=None)
    kind: str = "sh"
    skip: str | None = None
    shown_at: int = 0
    """0-based index in the page's lines of the first expected line (``update`` rewrites there)."""
    unit: str = ""
    """The slug of the section whose scratch directory it runs in (:func:`units`)."""


def fenced_blocks(text: str) -> list[tuple[str, int, list[str]]]:
    """Each fenced block: (language, first body line number, body lines)."""
    return [(lang, start, body) for lang, start, body, _ in _blocks(text)]


def _blocks(text: str) -> list[tuple[str, int, list[str], list[tuple[str, str, int]]]]:
    """Fenced blocks, each with the directives met since the block before it."""
    out: list[tuple[str, int, list[str], list[tuple[str, str, int]]]] = []
    lang: str | None = None
    start = 0
    body: list[str] = []
    pending: list[tuple[str, str, int]] = []
    opened: tuple[int, list[str]] | None = None  # a directive running over several lines
    for n, line in enumerate(text.splitlines(), 1):
        fence = FENCE.match(line)
        if fence and lang is None:
            lang, start, body = fence.group(1), n + 1, []
        elif line.strip() == "```" and lang is not None:
            out.append((lang, start, body, pending))
            lang, pending = None, []
        elif lang is not None:
            body.append(line)
        elif opened is not None:
            opened[1].append(line)
            if line.rstrip().endswith("-->"):
                d = DIRECTIVE.match("\n".join(opened[1]).strip())
                if d:
                    pending.append((d.group(1), d.group(2), opened[0]))
                opened = None
        elif line.startswith("<!-- docs-test:") and not line.rstrip().endswith("-->"):
            opened = (n, [line])
        else:
            d = DIRECTIVE.match(line.strip())
            if d:
                pending.append((d.group(1), d.group(2), n))
    if pending:
        out.append(("", 0, [], pending))
    return out


def console_examples(start: int, body: list[str]) -> list[Example]:
    """The ``$ command`` lines of a console block, each with the lines below it."""
    found: list[Example] = []
    for k, line in enumerate(body):
        if line.startswith("$ "):
            found.append(Example(start + k, line[2:], [], "console", shown_at=start + k))
        elif found and found[-1].expected is not None:
            found[-1].expected.append(line)
    return found


def _sh(start: int, body: list[str]) -> list[Example]:
    found: list[Example] = []
    pending = ""
    for k, raw in enumerate(body):
        line = re.sub(r"\s+#\s.*$", "", raw).rstrip()
        if not line or line.lstrip().startswith("#"):
            continue
        if line.endswith("\\"):
            pending += line[:-1] + " "
            continue
        command = (pending + line.strip()).strip()
        pending = ""
        if not command.startswith("make"):
            found.append(Example(start + k, command))
    return found


def examples(page: Path) -> list[Example]:
    """Every example of ``page`` in order, hidden setups and checks included (skips marked)."""
    readme = page.name == "README.md"
    found: list[Example] = []
    blocks = _blocks(page.read_text(encoding="utf-8"))
    for k, (lang, start, body, directives) in enumerate(blocks):
        run, skip = readme, None
        for kind, arg, n in directives:
            if kind in ("setup", "check"):
                found.append(Example(n, arg, None, kind))
            elif kind == "run":
                run = True
            else:
                skip = arg or "marked skip"
        block: list[Example] = []
        if lang == "console":
            block = console_examples(start, body)
        elif lang == "sh" and run:
            block = _sh(start, body)
        elif lang == "python" and run:
            script = "python - <<'README'\n" + "\n".join(body) + "\nREADME"
            block = [Example(start, script, None, "python")]
            after = blocks[k + 1] if k + 1 < len(blocks) else None
            if after is not None and after[0] == "output" and not after[3]:
                block[0].expected, block[0].shown_at = list(after[2]), after[1] - 1
        for e in block:
            e.skip = skip
        found += block
    unit_at = _units_by_line(page.read_text(encoding="utf-8"))
    for e in found:
        e.unit = next((u for n, u in reversed(unit_at) if n <= e.line), "")
    return found


HEADING = re.compile(r"^#{2,3} +(.+?)\s*$")
CONTINUE = re.compile(r"^<!--\s*docs-test:\s*continue\s*([a-z0-9-]*)\s*-->\s*$")


def slug(title: str) -> str:
    """A section title as a short name: its first four words, lower case, joined by ``-``."""
    return "-".join(re.findall(r"[a-z0-9]+", title.lower())[:4]) or "section"


def _units_by_line(text: str) -> list[tuple[int, str]]:
    """(line of a ``##``/``###`` heading, its unit), in page order.

    Each section is a unit: its examples run in their own scratch directory,
    in page order.  A section marked ``<!-- docs-test: continue UNIT -->`` uses
    files an earlier section made, so it joins that section's unit (without a
    name: the section just before it).
    """
    found: list[tuple[int, str]] = [(0, "top")]
    unit_of = {"top": "top"}  # each section's name -> the unit it runs in
    sections = ["top"]
    fenced = commented = False
    for n, line in enumerate(text.splitlines(), 1):
        if FENCE.match(line) or (fenced and line.strip() == "```"):
            fenced = not fenced
        elif not fenced and line.lstrip().startswith("<!--"):
            commented = "-->" not in line
            joined = CONTINUE.match(line.strip())
            if joined:
                name = joined.group(1) or sections[max(len(sections) - 2, 0)]
                if name not in sections[:-1]:
                    raise ValueError(f"line {n}: docs-test: continue {name}: no such section")
                unit_of[sections[-1]] = unit_of[name]
                found.append((n, unit_of[name]))
        elif commented:
            commented = "-->" not in line
        elif not fenced and HEADING.match(line):
            name = slug(HEADING.match(line).group(1))  # type: ignore[union-attr]
            name = name if name not in unit_of else f"{name}-{n}"
            sections.append(name)
            unit_of[name] = name
            found.append((n, name))
    return found


def units(page: Path) -> dict[str, list[Example]]:
    """``page``'s examples by unit (section), in page order."""
    out: dict[str, list[Example]] = {}
    for e in examples(page):
        out.setdefault(e.unit, []).append(e)
    return out


def matches(expected: list[str], actual: list[str]) -> bool:
    """True when ``actual`` is ``expected`` with each ``…`` line standing for 1+ lines."""
    if not expected:
        return not actual
    head, rest = expected[0], expected[1:]
    if head.strip() == "…":
        return any(matches(rest, actual[k:]) for k in range(1, len(actual) + 1))
    return bool(actual) and actual[0].rstrip() == head.rstrip() and matches(rest, actual[1:])


@dataclass
class Page:
    """One documentation page with examples, and its scratch directory and shell variables.

    ``shared``: where commands that several pages run are run once for all (None: each page
    runs its own); ``variables``: what the page's ``NAME=value`` lines set (in ``env`` too).
    """

    path: Path
    where: Path
    env: dict[str, str]
    shared: Path | None = None
    variables: dict[str, str] = field(default_factory=dict)


def pages() -> list[Path]:
    """README.md and every docs/*.md page (docs/rules/ too), in a fixed order."""
    return [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]


def prepare(page: Path, where: Path, shared: Path | None = None) -> Page:
    """A scratch directory for ``page``: copies of :data:`COPIED`, battlesim on PATH
    (:func:`example_env`)."""
    for name in COPIED:
        shutil.copytree(ROOT / name, where / name)
    return Page(page, where, example_env(), shared)


def example_env() -> dict[str, str]:
    """The environment the examples run in: battlesim on PATH
    (:func:`tests.forkserver.bin_dir` first; this Python's folder for the rest)."""
    from tests.forkserver import bin_dir  # as a script, importable once main() set sys.path

    env = {**os.environ, "PYTHONHASHSEED": "0", "PYTHONUNBUFFERED": "1"}
    # a reader types `make run` in a plain shell: not inside `make test`'s jobserver
    # (`make -j2 typecheck pytest`), whose MAKEFLAGS would make it warn on stderr
    for name in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL"):
        env.pop(name, None)
    path = [str(bin_dir(env)), str(Path(sys.executable).parent), os.environ["PATH"]]
    env["PATH"] = os.pathsep.join(path)
    return env


ALSO_RUN_BY_HELP = frozenset(
    {
        "battlesim study scenarios/stone_wall_study.yaml --jobs 2",
        "battlesim study scenarios/stone_wall_study.yaml --runs 40 --out sw-quick",
        "battlesim calibrate scenarios/coral_sea_calibration.yaml --jobs 2",
    }
)
"""Commands a page runs that a command's ``--help`` shows too, and that
tests/cli/test_help_examples.py runs as printed: one run serves the pages and the help
example (:func:`shared_command`).  Each makes what it reads from the pages' inputs alone
(the two stone-wall studies: README.md and docs/batch.md; the calibration: README.md and
docs/calibrate.md)."""


def repeated() -> frozenset[str]:
    """Commands (console and sh, not skipped) that more than one page runs."""
    pages_of: dict[str, set[Path]] = {}
    for p in pages():
        for e in examples(p):
            if e.kind in ("console", "sh") and e.skip is None:
                pages_of.setdefault(e.command, set()).add(p)
    return frozenset(c for c, on in pages_of.items() if len(on) > 1)


def _digest(where: Path) -> str:
    return _root_digest() if where == ROOT else _tree_digest(where)


@cache
def _root_digest() -> str:
    return _tree_digest(ROOT)


def _tree_digest(where: Path) -> str:
    """One digest of the :data:`COPIED` trees under ``where`` (names and bytes)."""
    h = hashlib.sha256()
    for name in COPIED:
        for f in sorted((where / name).rglob("*")):
            h.update(f"{f.relative_to(where)}\0".encode())
            if f.is_file():
                h.update(f.read_bytes())
    return h.hexdigest()


def _shared_result(command: str, env: dict[str, str], entry: Path) -> dict[str, Any]:
    """Run ``command`` once in ``entry/work`` (fresh copies); what it printed and made."""
    done_file = entry / "done.json"
    if done_file.exists():
        found: dict[str, Any] = json.loads(done_file.read_text(encoding="utf-8"))
        return found
    work = entry / "work"
    if work.exists():
        shutil.rmtree(work)  # a run stopped half-way: start again
    for name in COPIED:
        shutil.copytree(ROOT / name, work / name)
    before = set(os.listdir(work))
    done = subprocess.run(
        ["bash", "-c", command], cwd=work, env=env, stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT, text=True, timeout=900, check=False,
    )  # fmt: skip
    result = {
        "returncode": done.returncode,
        "stdout": done.stdout,
        "made": sorted(set(os.listdir(work)) - before),
        "inputs_kept": _digest(work) == _digest(ROOT),
    }
    done_file.write_text(json.dumps(result), encoding="utf-8")
    return result


def shared_run(example: Example, page: Page) -> subprocess.CompletedProcess[str] | None:
    """``example`` as run once for every page that runs it (stdout and stderr together),
    its files copied into this page; None when this page must run it itself."""
    command = example.command
    if page.shared is None or "$" in command:
        return None
    if command not in REPEATED and command not in ALSO_RUN_BY_HELP:
        return None
    if _digest(page.where) != _digest(ROOT):
        return None  # an earlier example changed a copied input
    return shared_command(command, page.where, page.env, page.shared, page.variables)


def shared_command(
    command: str,
    where: Path,
    env: dict[str, str],
    shared: Path,
    variables: dict[str, str] | None = None,
    *,
    run: bool = True,
) -> subprocess.CompletedProcess[str] | None:
    """``command`` as run once (in fresh copies of :data:`COPIED`, with ``env``) for every
    page and help example that runs it, keyed on the command and the page's variables (stdout
    and stderr together), its files copied into ``where``; None when the caller must run it
    itself (it changed a copied input, or its files are already in ``where``; with ``run``
    false, when no one has run it yet or someone is running it now)."""
    # the page's own variables reach the command: they are part of the key
    blob = json.dumps([command, sorted((variables or {}).items())])
    key = hashlib.sha256(blob.encode()).hexdigest()[:16]
    shared.mkdir(parents=True, exist_ok=True)
    with (shared / f"{key}.lock").open("w") as lock:
        try:  # another worker running it: wait (or, not to run it, leave), then take its result
            fcntl.flock(lock, fcntl.LOCK_EX if run else fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return None
        if not run and not (shared / key / "done.json").exists():
            return None
        result = _shared_result(command, env, shared / key)
    made: list[str] = result["made"]
    if not result["inputs_kept"] or any((where / m).exists() for m in made):
        return None  # the command changed a copied input, or would meet its files already here
    for m in made:
        source = shared / key / "work" / m
        if source.is_dir():
            shutil.copytree(source, where / m, symlinks=True)
        else:
            shutil.copy2(source, where / m, follow_symlinks=False)
    return subprocess.CompletedProcess(
        ["bash", "-c", command], result["returncode"], result["stdout"], ""
    )


MAKE = """d=$(mktemp -d) && cp {root}/Makefile {root}/pyproject.toml "$d"/ &&
make --no-print-directory -n -C "$d" {target} | grep -v -e '^touch ' -e '^mkdir -p ' |
while IFS= read -r line; do
  echo "$line"
  case "$line" in .venv/bin/battlesim*) mkdir -p out; eval "${{line#.venv/bin/}}" ;; esac
done; rm -rf "$d"
"""
"""A console ``$ make TARGET``: what make echoes for a fresh checkout (its silent ``touch`` and
``mkdir`` left out; the installs are not run) and what the battlesim commands print."""


def run_example(example: Example, page: Page) -> subprocess.CompletedProcess[str] | None:
    """Run one example in its page's directory (None for ``NAME=value``, which sets a variable)."""
    assign = ASSIGN.match(example.command)
    if assign:
        page.env[assign.group(1)] = page.variables[assign.group(1)] = assign.group(2)
        return None
    shared = shared_run(example, page)
    if shared is not None:
        return shared
    command = example.command
    if example.kind == "console" and re.fullmatch(r"make [a-z-]+", command):
        command = MAKE.format(root=ROOT, target=command.split()[1])
    return subprocess.run(
        ["bash", "-c", command],
        cwd=page.where,
        env=page.env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT if example.kind == "console" else subprocess.PIPE,
        text=True,
        timeout=900,
        check=False,
    )


REPEATED = repeated()
"""Computed once: every page is read to find them."""


def exit_ok(example: Example, code: int) -> bool:
    """Whether an ``sh``, ``python``, ``setup`` or ``check`` example ended as it must."""
    return code in ((0, 1) if example.command.startswith("battlesim diff ") else (0,))


def failure(example: Example, page: Page) -> str | None:
    """Run ``example``; None when it did what its page says, else what went wrong."""
    done = run_example(example, page)
    if done is None:
        return None
    where = f"{page.path.relative_to(ROOT)}:{example.line}: {example.command}"
    if example.expected is None:
        if exit_ok(example, done.returncode):
            return None
        return f"{where}\nexit {done.returncode}\n{done.stdout}{done.stderr}"
    actual = done.stdout.splitlines()
    if matches(example.expected, actual):
        return None
    return f"{where}\n" + "\n".join(actual) + (f"\n(stderr) {done.stderr}" if done.stderr else "")


def _cut_like(expected: list[str], actual: list[str]) -> list[str]:
    """``actual`` cut where ``expected`` was: the lines before its first ``…``, after its last."""
    cuts = [k for k, line in enumerate(expected) if line.strip() == "…"]
    if not cuts:
        return actual
    head, tail = cuts[0], len(expected) - cuts[-1] - 1
    if head + tail >= len(actual):
        return actual
    return [*actual[:head], "…", *(actual[len(actual) - tail :] if tail else [])]


def update(page_path: Path, slow: bool = False) -> list[str]:
    """Run ``page_path``'s examples and rewrite its console outputs; return what changed.

    Args:
        slow: run the examples skipped as slow too (``skip slow: …``) and rewrite theirs.
    """
    lines = page_path.read_text(encoding="utf-8").splitlines(keepends=True)
    found = examples(page_path)
    notes: list[str] = []
    edits: list[tuple[int, int, list[str]]] = []  # (first line index, count, new lines)
    rel = page_path.relative_to(ROOT)
    with tempfile.TemporaryDirectory(prefix="docs-examples-") as tmp:
        page = prepare(page_path, Path(tmp))
        for e in found:
            if e.skip is not None and not (slow and e.skip.startswith("slow")):
                continue
            done = run_example(e, page)
            if done is None:
                continue
            if e.expected is None:
                if not exit_ok(e, done.returncode):
                    notes.append(f"{rel}:{e.line}: exit {done.returncode}: {e.command[:80]}")
                continue
            assert e.expected is not None
            actual = [line.rstrip() for line in done.stdout.splitlines()]
            if matches(e.expected, actual):
                continue
            new = _cut_like(e.expected, actual)
            edits.append((e.shown_at, len(e.expected), new))
            notes.append(f"{rel}:{e.line}: output rewritten: {e.command[:80]}")
    for first, count, new in sorted(edits, reverse=True):
        lines[first : first + count] = [f"{x}\n" for x in new]
    if edits:
        page_path.write_text("".join(lines), encoding="utf-8")
    return notes


def main(argv: list[str]) -> int:
    """``update [--slow] [PAGE…]``: rewrite the shown outputs of the pages (all by default)."""
    if not argv or argv[0] != "update":
        print("usage: python tests/readme_examples.py update [--slow] [PAGE.md …]", file=sys.stderr)
        return 2
    slow = "--slow" in argv[1:]
    chosen = [Path(a).resolve() for a in argv[1:] if a != "--slow"] or pages()
    for p in chosen:
        if not any(e.expected is not None or e.kind != "sh" for e in examples(p)):
            continue
        for note in update(p, slow=slow):
            print(note)
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    sys.exit(main(sys.argv[1:]))
