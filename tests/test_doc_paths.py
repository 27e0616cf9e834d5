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
