"""Suite-wide test settings.

Hypothesis's per-example ``deadline`` is a timed assertion: under load (CI
shares two cores with other jobs) a correct example can take longer than
200 ms and fail the test.  Tests never look at the clock (they count work
instead), so the deadline is off for every Hypothesis test; each test still
bounds its work with ``max_examples``.

Every event any test writes is checked against its own line
(:func:`engine.log.check_line`): events built trusted by rule code
(:func:`engine.events.trusted`) must write exactly what validating them
would.  The variable reaches battlesim commands run as subprocesses too.
Unit rows built trusted (:func:`sim.rulesets.trusted.trusted_row`) are validated
again as they are built, under the same switch.

``make test`` runs the suite on every core (pytest-xdist, ``--dist loadfile``,
scheduled by :mod:`tests.units`): each test file is one unit of work, kept on
one worker, and each README or docs section's examples one unit; the longest
units first.  Plain ``pytest`` runs the same tests in one process.

The battlesim commands tests run (the docs examples, the batch helper) are
forked from a process that has imported battlesim (:mod:`tests.forkserver`);
``BATTLESIM_TEST_SUBPROCESS=1`` runs each as a real process instead.
``BATTLESIM_TEST_PROFILE=FILE`` records each test's CPU and the processes it
started (:mod:`tests.profile_tests`).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from hypothesis import settings

from engine.log import EventLog
from sim.rulesets import trusted

os.environ["BATTLESIM_CHECK_LINES"] = "1"  # battlesim run as a subprocess
EventLog.check_lines = True
trusted.CHECK_TRUSTED = True

settings.register_profile("battlesim", deadline=None)
settings.load_profile("battlesim")


def pytest_configure(config: pytest.Config) -> None:
    """``BATTLESIM_TEST_PROFILE=FILE``: each test's CPU and processes to FILE
    (:mod:`tests.profile_tests`)."""
    if os.environ.get("BATTLESIM_TEST_PROFILE"):
        from tests import profile_tests

        config.pluginmanager.register(profile_tests, "battlesim-profile")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """On an xdist worker: the longest units' tests first (tests.units)."""
    if os.environ.get("PYTEST_XDIST_WORKER"):
        from tests.units import longest_first

        longest_first(items)


@pytest.hookimpl(tryfirst=True, optionalhook=True)  # an xdist hook: unknown without it
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """The suite's units (:class:`tests.units.Units`) under any distribution that shares out
    tests: ``--dist loadfile`` as ``make test`` asks, and ``load`` too, which a bare ``-n 2``
    means (a docs section's examples read what the ones before made, so a section split
    between workers would fail). ``--dist each`` is left to xdist."""
    if config.getvalue("dist") in ("no", "each"):
        return None
    from tests.units import Units  # xdist's controller only

    return Units(config, log)


@pytest.fixture(scope="session")
def across_workers(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder of this run that every xdist worker sees (each worker's temp folder is in the
    run's one); without xdist, a folder of the run."""
    base = tmp_path_factory.getbasetemp()
    return (base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base) / "across-workers"
