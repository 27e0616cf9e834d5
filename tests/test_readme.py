"""Every command example in README.md runs, and its shown output is what it prints.

The scheme is :mod:`tests.readme_examples` (console blocks compared, sh
blocks run), documented in README.md under "How the examples are tested";
docs/*.md follow it too (tests/test_doc_examples.py).
"""

from __future__ import annotations

import pytest

from tests.readme_examples import ROOT, Example, Page, examples, failure, prepare

README = ROOT / "README.md"
EXAMPLES = examples(README)


@pytest.fixture(scope="module")
def page(tmp_path_factory: pytest.TempPathFactory) -> Page:
    """README's scratch directory (copies of scenarios/, replays/, docs/, tests/data/)."""
    return prepare(README, tmp_path_factory.mktemp("readme"))


def test_the_readme_has_examples_of_both_kinds() -> None:
    """The README shows console examples with output and sh examples to run."""
    assert sum(e.expected is not None for e in EXAMPLES) >= 5
    assert sum(e.expected is None for e in EXAMPLES) >= 10


def test_the_readme_skips_nothing() -> None:
    """Every README example runs: none is marked skip."""
    assert [e.line for e in EXAMPLES if e.skip is not None] == []


@pytest.mark.parametrize("example", EXAMPLES, ids=[f"line{e.line}" for e in EXAMPLES])
def test_readme_example(example: Example, page: Page) -> None:
    """In README order: console output matches (… for omitted lines); sh and python succeed."""
    problem = failure(example, page)
    assert problem is None, problem
