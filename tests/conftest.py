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
"""

from __future__ import annotations

import os

from hypothesis import settings

from engine.log import EventLog
from sim.rulesets import trusted

os.environ["BATTLESIM_CHECK_LINES"] = "1"  # battlesim run as a subprocess
EventLog.check_lines = True
trusted.CHECK_TRUSTED = True

settings.register_profile("battlesim", deadline=None)
settings.load_profile("battlesim")
