"""Suite-wide test settings.

Hypothesis's per-example ``deadline`` is a timed assertion: under load (CI
shares two cores with other jobs) a correct example can take longer than
200 ms and fail the test.  Tests never look at the clock (they count work
instead), so the deadline is off for every Hypothesis test; each test still
bounds its work with ``max_examples``.
"""

from __future__ import annotations

from hypothesis import settings

settings.register_profile("battlesim", deadline=None)
settings.load_profile("battlesim")
