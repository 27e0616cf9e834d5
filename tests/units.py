"""How ``make test`` shares the suite among pytest-xdist workers (``--dist loadfile``).

A unit of work goes to one worker and runs there in collection order: each
test file is a unit (its module fixtures are made once, e.g. the historical
suite fought once for both of tests/history/test_suite.py's checks), except
tests/test_doc_examples.py, whose examples are one unit per docs page (each
page's examples run in page order in one scratch directory; pages are
independent), and tests/viewer/, one unit (its files share one headless
Chromium and one set of report pages, session fixtures made once a worker).
Units are handed out longest first (:data:`FIRST`, then collection order),
so that no worker is left with a long one at the end while the other idles.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from xdist.scheduler import LoadScopeScheduling

FIRST = (
    "docs/batch.md",
    "tests/test_readme.py",
    "tests/viewer/",
    "tests/history/test_suite.py",
    "tests/test_plugin_install.py",
    "docs/replay-tools.md",
    "tests/batch/test_sensitivity.py",
    "tests/batch/test_study.py",
    "tests/engine/test_row_digest.py",
)
"""The units that took longest (``pytest --durations``), longest first.  A unit missing
here (new, renamed) only costs balance, never a result."""

_PAGE = re.compile(r"^tests/test_doc_examples\.py::test_doc_example\[(.+\.md):\d+\]$")


def unit(nodeid: str) -> str:
    """The unit of work a test belongs to: its docs page, the viewer's tests, or its file."""
    page = _PAGE.match(nodeid)
    if page:
        return page.group(1)
    return "tests/viewer/" if nodeid.startswith("tests/viewer/") else nodeid.split("::", 1)[0]


def longest_first(items: list[pytest.Item]) -> None:
    """Put the :data:`FIRST` units' tests first (each worker collects, then sorts alike)."""
    rank = {name: k for k, name in enumerate(FIRST)}
    items.sort(key=lambda item: rank.get(unit(item.nodeid), len(FIRST)))  # stable


class Units(LoadScopeScheduling):
    """xdist's scope scheduling with :func:`unit` as the scope, in collection order (the
    workers' :func:`longest_first`), not xdist's largest-count-first."""

    def __init__(self, config: pytest.Config, log: Any = None) -> None:
        super().__init__(config, log)
        config.option.loadscopereorder = False

    def _split_scope(self, nodeid: str) -> str:
        return unit(nodeid)
