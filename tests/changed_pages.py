"""The docs-example tests of the pages a change touches, for ``make check``.

pytest-testmon selects tests by the Python code they ran, so an edited
README.md or docs page, which no Python line of a test changes, would select
nothing.  This prints the node ids of every example test of each page that
differs from the last commit (``git status``: staged, unstaged or new), one a
line; ``make check`` runs them after testmon's selection.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def changed() -> list[Path]:
    """README.md and docs/*.md pages git sees changed or new."""
    out = subprocess.run(
        ["git", "status", "--porcelain", "--untracked-files=all", "--", "README.md", "docs"],
        cwd=ROOT, capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    names = {line[3:].split(" -> ")[-1] for line in out.splitlines()}
    return [ROOT / n for n in sorted(names) if n.endswith(".md")]


def node_ids(pages: list[Path]) -> list[str]:
    """Each page's example tests (tests/test_readme.py, tests/test_doc_examples.py)."""
    from tests import test_doc_examples, test_readme  # after sys.path is set

    ids: list[str] = []
    for page in pages:
        if page.name == "README.md" and page.parent == ROOT:
            ids += [f"tests/test_readme.py::test_readme_example[{e.unit}:{e.line}]"
                    for e in test_readme.EXAMPLES]  # fmt: skip
        else:
            ids += [f"tests/test_doc_examples.py::test_doc_example[{test_doc_examples._id(c)}]"
                    for c in test_doc_examples.CASES if c[0] == page]  # fmt: skip
    return ids


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    print("\n".join(node_ids(changed())))
