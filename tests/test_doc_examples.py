"""Every shell example of docs/*.md with shown output runs and prints what the page shows.

The scheme is :mod:`tests.readme_examples` (README.md, "How the examples are
tested"): console blocks compared, blocks marked ``<!-- docs-test: run -->``
run, hidden ``setup`` and ``check`` commands run in page order, one scratch
directory per page.  ``python tests/readme_examples.py update`` (``make
docs-examples``) rewrites the shown outputs from what the commands print.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.readme_examples import ROOT, Example, Page, examples, failure, pages, prepare

SKIPPED = {
    "docs/calibrate.md": 1,  # the fit on the history cases: ~7,200 battles (the same)
    "docs/rulesets.md": 6,  # the duel plugin's commands: tests/test_docs_rulesets.py,
    # tests/contract/test_odds_hook.py run them with the plugin installed
}
"""Examples each page leaves out with ``<!-- docs-test: skip REASON -->`` (the reason is
on the page).  A new skip changes this count, so it is a decision someone made."""

PAGES = [p for p in pages() if p.name != "README.md"]
CASES = [(p, e) for p in PAGES for e in examples(p)]


def _id(case: tuple[Path, Example]) -> str:
    page, e = case
    return f"{page.relative_to(ROOT)}#{e.unit}:{e.line}"


@pytest.fixture(scope="module")
def scratch(tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[Path, str], Page]:
    """Each page section's scratch directory, made when its first example runs."""
    return {}


def _page(
    path: Path,
    unit: str,
    made: dict[tuple[Path, str], Page],
    factory: pytest.TempPathFactory,
    shared: Path,
) -> Page:
    if (path, unit) not in made:
        made[path, unit] = prepare(path, factory.mktemp(f"{path.stem}-{unit}"), shared)
    return made[path, unit]


def test_every_skip_is_counted() -> None:
    """The pages' skipped examples are exactly the ones counted in SKIPPED."""
    counted: dict[str, int] = {}
    for page, e in CASES:
        if e.skip is not None:
            name = str(page.relative_to(ROOT))
            counted[name] = counted.get(name, 0) + 1
    assert counted == SKIPPED


def test_the_docs_show_output() -> None:
    """The docs hold console examples with output on more than one page."""
    shown = {p for p, e in CASES if e.expected}
    assert len(shown) >= 3


@pytest.mark.parametrize("case", CASES, ids=[_id(c) for c in CASES])
def test_doc_example(
    case: tuple[Path, Example],
    scratch: dict[tuple[Path, str], Page],
    tmp_path_factory: pytest.TempPathFactory,
    across_workers: Path,
) -> None:
    """In page order within each section (one scratch directory a section): console output
    matches (… for omitted lines); run, setup, check succeed."""
    path, example = case
    if example.skip is not None:
        pytest.skip(example.skip)
    page = _page(path, example.unit, scratch, tmp_path_factory, across_workers)
    problem = failure(example, page)
    assert problem is None, problem
