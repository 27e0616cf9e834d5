"""``phalanx_templated``: a copy of ``phalanx`` whose ``template.yaml`` (beside this module,
where ``battlesim new`` looks for it) does not validate: ``bounds`` is misspelt ``boundz``.
``check-ruleset`` must fail ``new-writes-a-scenario-that-runs`` on it."""

from __future__ import annotations

from tests.contract.faults import _copy

RULESET = _copy("phalanx_templated")
