"""Every file of the project that README.md or a docs page names by its path exists.

Modules move (0.3 split the folders of more than a dozen modules into rooms), and a page
that cites ``sim/rulesets/musket/fire.py`` after the file went to ``rules/`` sends a reader
nowhere. CHANGELOG.md is history and benchmarks/README.md cites branches' own files, so
neither is read; a path a command *writes* (an output the page shows) is listed below.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]

PATH = re.compile(
    r"(?<![\w./-])((?:engine|sim|tests|benchmarks|scenarios|replays|docs)/[\w./-]+"
    r"\.(?:py|yaml|yml|md|jsonl|json|js|css|txt))(?![\w-])"
)
"""A path in the tree: from a top-level folder of the project to a file with an extension."""

WRITTEN = {
    "benchmarks/results-batch.json": "written by `make bench-batch` (ignored by git)",
    "docs/examples/musket_fitting/patch.yaml": "written by the calibration docs/calibrate.md runs",
    "docs/examples/musket_fitting/trials.jsonl": "the same calibration's trials",
}
"""Paths a page names as what a command writes, not as files of the tree."""


def _cited(page: Path) -> list[tuple[int, str]]:
    found = []
    for number, line in enumerate(page.read_text(encoding="utf-8").splitlines(), 1):
        found += [(number, m.group(1)) for m in PATH.finditer(line)]
    return found


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_path_a_page_names_exists(page: Path) -> None:
    """A placeholder (``scenarios/X.yaml``) and what a command writes are not files."""
    missing = [
        f"{page.relative_to(ROOT)}:{n}: {path}"
        for n, path in _cited(page)
        if path not in WRITTEN and "/X." not in path and not (ROOT / path).exists()
    ]
    assert missing == []


def test_the_pattern_finds_paths_and_not_their_tails() -> None:
    """Paths at a line's start, in backticks and in brackets; ``tests/sim/x.py`` is not also
    read as ``sim/x.py``, and a URL's path is not read as the tree's."""
    line = (
        "sim/a.py, `engine/replayfile/reader.py:_unseal`, [tests/sim/test_x.py](x), "
        "see https://example.org/docs/y.md"
    )
    assert [m.group(1) for m in PATH.finditer(line)] == [
        "sim/a.py",
        "engine/replayfile/reader.py",
        "tests/sim/test_x.py",
    ]


ARCHITECTURE = ROOT / "docs" / "architecture.md"


def _sections() -> dict[str, list[str]]:
    """docs/architecture.md's lines under each heading that names a package (``engine/``,
    ``sim/batch/``), up to the next heading of any level."""
    sections: dict[str, list[str]] = {}
    current: str | None = None
    for line in ARCHITECTURE.read_text(encoding="utf-8").splitlines():
        if line.startswith("#"):
            named = re.match(r"#+ `((?:engine|sim)/(?:[\w/]*/)?)`", line)
            current = named.group(1) if named else None
            if current is not None:
                sections.setdefault(current, [])
        elif current is not None:
            sections[current].append(line)
    return sections


def _modules() -> list[str]:
    """Every module of engine/ and sim/ but packages' ``__init__.py``, a ruleset's own modules
    (the page gives a ruleset's layout, not each file) and the historical suite's data."""
    found = [
        p.relative_to(ROOT).as_posix()
        for top in ("engine", "sim")
        for p in (ROOT / top).rglob("*.py")
    ]
    return sorted(
        m
        for m in found
        if not m.endswith("/__init__.py")
        and not m.startswith("sim/history/suite/")
        and not re.match(r"sim/rulesets/\w+/", m)
    )


def test_the_architecture_page_names_every_module() -> None:
    """A module added to engine/ or sim/ is named in the section of docs/architecture.md of its
    package: by its path from there (``replayfile/sinks.py``), or by its name on a line that
    names its folder (the row of ``sim/batch/storage/``), so the module map cannot fall behind
    the tree."""
    sections = _sections()
    unnamed = []
    for module in _modules():
        root = max((r for r in sections if module.startswith(r)), key=len, default=None)
        if root is None:
            unnamed.append(f"{module} (no section)")
            continue
        rel = module[len(root) :]
        folder, _, name = rel.rpartition("/")
        lines = sections[root]
        if any(re.search(rf"(?<![\w.]){re.escape(rel)}", line) for line in lines):
            continue
        scope = [line for line in lines if f"{folder}/" in line] if folder else lines
        if not any(f"`{name}`" in line for line in scope):
            unnamed.append(module)
    assert unnamed == []


@pytest.mark.parametrize("page", ["docs/architecture.md", "docs/rulesets.md"])
def test_the_ruleset_tables_name_every_field(page: str) -> None:
    """Each field of ``Ruleset`` is the first cell of a row of the page's tables."""
    import dataclasses

    from sim.contract import Ruleset

    cited: set[str] = set()
    for line in (ROOT / page).read_text(encoding="utf-8").splitlines():
        if line.startswith("| `"):
            cited |= set(re.findall(r"`(\w+)", line.split("|")[1]))
    assert [f.name for f in dataclasses.fields(Ruleset) if f.name not in cited] == []


def test_the_architecture_page_names_every_function_of_the_api() -> None:
    """docs/architecture.md's ``sim/api.py`` section names each function ``sim.api`` exports
    (it had left out ``why``, ``narrative``, ``fork`` and ``diff`` when they were added)."""
    import sim.api

    text = ARCHITECTURE.read_text(encoding="utf-8")
    section = text[text.index("#### `sim/api.py`") :].split("\n#")[0]
    functions = [n for n in sim.api.__all__ if n[0].islower()]
    assert [n for n in functions if f"`{n}`" not in section] == []
