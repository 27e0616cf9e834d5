"""Every command example in README.md runs, and its shown output is what it prints.

The scheme is :mod:`tests.readme_examples` (console blocks compared, sh
blocks run), documented in README.md under "How the examples are tested";
docs/*.md follow it too (tests/test_doc_examples.py).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests import readme_examples
from tests.readme_examples import ROOT, Example, Page, examples, failure, prepare
from tests.units import rank, unit

README = ROOT / "README.md"
EXAMPLES = examples(README)


@pytest.fixture(scope="module")
def scratch() -> dict[str, Page]:
    """Each README section's scratch directory, made when its first example runs."""
    return {}


@pytest.fixture
def page(
    example: Example,
    scratch: dict[str, Page],
    tmp_path_factory: pytest.TempPathFactory,
    across_workers: Path,
) -> Page:
    """The scratch directory of ``example``'s section (copies of scenarios/, replays/, docs/,
    tests/data/); the commands other pages run too are run once for all
    (tests.readme_examples.shared_run)."""
    if example.unit not in scratch:
        where = tmp_path_factory.mktemp(f"readme-{example.unit}")
        scratch[example.unit] = prepare(README, where, across_workers)
    return scratch[example.unit]


def test_the_readme_has_examples_of_both_kinds() -> None:
    """The README shows console examples with output and sh examples to run."""
    assert sum(e.expected is not None for e in EXAMPLES) >= 5
    assert sum(e.expected is None for e in EXAMPLES) >= 10


def test_the_readme_skips_nothing() -> None:
    """Every README example runs: none is marked skip."""
    assert [e.line for e in EXAMPLES if e.skip is not None] == []


def test_the_readme_runs_in_sections() -> None:
    """Each section is a unit with its own scratch directory; the replays section continues
    the one that makes stone_wall-s7.jsonl, and units are sections in page order."""
    order = list(dict.fromkeys(e.unit for e in EXAMPLES))
    assert order[:3] == ["quickstart", "rule-systems-and-shipped", "using-it"]
    replays = [e for e in EXAMPLES if e.command == "R=replays/stone_wall-s1862.jsonl"]
    made = [e for e in EXAMPLES if e.command == "battlesim run scenarios/stone_wall.yaml --seed 7"]
    assert [e.unit for e in replays] == [e.unit for e in made] == ["using-it"]
    assert len(order) >= 6


def test_each_section_is_a_unit_of_work_of_its_own() -> None:
    """tests.units gives each README and docs section's examples one xdist unit, named
    page#section, and keeps every other test of these files in its file's unit."""
    assert unit("tests/test_readme.py::test_readme_example[exact-odds:224]") == (
        "README.md#exact-odds"
    )
    assert unit("tests/test_doc_examples.py::test_doc_example[docs/odds.md#json:225]") == (
        "docs/odds.md#json"
    )
    assert unit("tests/test_readme.py::test_the_readme_skips_nothing") == "tests/test_readme.py"
    assert rank("docs/batch.md#study-files") < rank("README.md#using-it") < rank("tests/x.py")


@pytest.mark.parametrize("example", EXAMPLES, ids=[f"{e.unit}:{e.line}" for e in EXAMPLES])
def test_readme_example(example: Example, page: Page) -> None:
    """In README order within each section (one scratch directory a section): console output
    matches (… for omitted lines); sh and python succeed."""
    problem = failure(example, page)
    assert problem is None, problem


def test_a_command_several_pages_run_is_run_once_and_each_page_gets_its_output_and_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """shared_run: the first page runs the command in fresh copies, the second gets the same
    output and files without running it; a page whose copies changed, or that already holds
    a file the command makes, runs it itself (None)."""
    count = tmp_path / "count"
    command = f"echo ran >> {count}; echo made > made.txt; echo out; echo err >&2"
    monkeypatch.setattr(readme_examples, "REPEATED", frozenset({command}))
    example = Example(1, command, None, "sh")
    shared = tmp_path / "shared"
    first, second, changed, holding = (
        prepare(README, _made(tmp_path / name), shared) for name in ("a", "b", "c", "d")
    )
    for page in (first, second):
        done = readme_examples.shared_run(example, page)
        assert done is not None
        assert (done.returncode, done.stdout, done.stderr) == (0, "out\nerr\n", "")
        assert (page.where / "made.txt").read_text() == "made\n"
    assert count.read_text() == "ran\n"
    (changed.where / "scenarios" / "stone_wall.yaml").write_text("changed\n")
    (holding.where / "made.txt").write_text("mine\n")
    assert readme_examples.shared_run(example, changed) is None
    assert readme_examples.shared_run(example, holding) is None
    assert (holding.where / "made.txt").read_text() == "mine\n"
    assert readme_examples.shared_run(example, prepare(README, _made(tmp_path / "e"))) is None


def _made(folder: Path) -> Path:
    folder.mkdir()
    return folder
