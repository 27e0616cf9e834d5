"""How ``make test`` shares the suite among pytest-xdist workers (``--dist loadfile``, and a
bare ``pytest -n N`` alike: tests/conftest.py).

A unit of work goes to one worker and runs there in collection order: each
test file is a unit (its module fixtures are made once, e.g. the historical
suite fought once for both of tests/history/test_suite.py's checks), except
the examples of README.md (tests/test_readme.py) and of docs/*.md
(tests/test_doc_examples.py), one unit per section (``README.md#using-it``:
a section's examples run in page order in one scratch directory; sections
are independent, or marked to continue the one before, and then are one
section to :func:`tests.readme_examples.units`), the examples of the commands'
``--help`` (tests/cli/test_help_examples.py), one unit per group of examples
(``tests/cli/test_help_examples.py#study``: a command's examples and those that
read what they made), and tests/viewer/, one unit
(its files share one headless Chromium and one set of report pages, session
fixtures made once a worker).  Units are handed out longest first
(:data:`FIRST`, then collection order), so that no worker is left with a
long one at the end while the other idles.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from xdist.scheduler import LoadScopeScheduling

FIRST = (
    "tests/history/test_suite.py",
    "README.md#batch-studies-and-campaigns",
    "tests/viewer/",
    "docs/batch.md#study-files",
    "tests/test_plugin_install.py",
    "tests/cli/test_help_examples.py#history",
    "tests/batch/test_study.py",
    "tests/batch/test_sensitivity.py",
    "tests/cli/test_help_examples.py#calibrate",
    "README.md#using-it",
    "tests/engine/test_row_digest.py",
    "docs/batch.md",
    "docs/replay-tools.md#pat-s-evening-replay",
    "tests/cli/test_long_in_turns.py",
    "tests/cli/test_help_examples.py#batch",
)
"""The units that took longest, longest first (``pytest --durations``, and the CPU of every
process a unit starts, pools included, by ``tests/cpu_meter.py --unit``: the historical
suite's one run of every case ~130-145 CPU seconds, the README's batch section's studies ~93,
the viewer's tests ~40-45, the study-files section of docs/batch.md ~35, the plugin install
~19, the history help examples ~18, test_study ~16, test_sensitivity ~15, 2026-12-04
05:17-06:05 UTC, a loaded machine).  Since the fork server shares one worker-pool server
among its commands (tests/forkserver.py) and the study help examples take the pages' run of
their two studies (tests.readme_examples.ALSO_RUN_BY_HELP), the README's batch section,
docs/batch.md's study files and the study help examples cost ~102-104 CPU seconds together
where they cost ~126-132 (one process, in that order, 2026-12-04 11:41-12:03 UTC, two runs
each); docs/batch.md's sections all together ~66-77 either way.  The study help examples
(~5 now) are left out, so that they run after the README's batch section has made that run
(else they fight their budgeted studies themselves).  An entry names a unit or the start of
units' names (``docs/batch.md``: each of its sections).  A unit missing here (new, renamed)
only costs balance, never a result."""

_PAGE = re.compile(r"^tests/test_doc_examples\.py::test_doc_example\[(.+\.md#[^:\]]+):\d+\]$")
_README = re.compile(r"^tests/test_readme\.py::test_readme_example\[([^:\]]+):\d+\]$")
_HELP = re.compile(r"^(tests/cli/test_help_examples\.py)::test_help_example_runs\[([a-z-]+): ")


def unit(nodeid: str) -> str:
    """The unit of work a test belongs to: its page's section, its group of help examples,
    the viewer's tests, or its file."""
    page = _PAGE.match(nodeid)
    if page:
        return page.group(1)
    readme = _README.match(nodeid)
    if readme:
        return f"README.md#{readme.group(1)}"
    help_group = _HELP.match(nodeid)
    if help_group:
        return f"{help_group.group(1)}#{help_group.group(2)}"
    return "tests/viewer/" if nodeid.startswith("tests/viewer/") else nodeid.split("::", 1)[0]


def rank(name: str) -> int:
    """Where a unit is handed out: the first :data:`FIRST` entry naming it, else after all."""
    return next((k for k, first in enumerate(FIRST) if name.startswith(first)), len(FIRST))


def longest_first(items: list[pytest.Item]) -> None:
    """Put the :data:`FIRST` units' tests first (each worker collects, then sorts alike)."""
    items.sort(key=lambda item: rank(unit(item.nodeid)))  # stable


class Units(LoadScopeScheduling):
    """xdist's scope scheduling with :func:`unit` as the scope, in collection order (the
    workers' :func:`longest_first`), not xdist's largest-count-first."""

    def __init__(self, config: pytest.Config, log: Any = None) -> None:
        super().__init__(config, log)
        config.option.loadscopereorder = False

    def _split_scope(self, nodeid: str) -> str:
        return unit(nodeid)
