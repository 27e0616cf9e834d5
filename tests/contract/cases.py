"""The contract suite's cases: every installed ruleset × its scenarios, plus the two plugins."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from sim.conformance import scenarios_for
from sim.contract import get_ruleset, ruleset_names
from tests.contract.phalanx import SCENARIOS as PHALANX_SCENARIOS
from tests.contract.toy import SCENARIOS as TOY_SCENARIOS


@dataclass(frozen=True)
class Case:
    """One scenario of one ruleset (None: the ruleset ships none, which fails)."""

    ruleset: str
    scenario: Path | None

    @property
    def id(self) -> str:
        """``ruleset-stem``."""
        return f"{self.ruleset}-{self.scenario.stem if self.scenario else 'no-scenario'}"


def cases() -> list[Case]:
    """The scenarios ``battlesim check-ruleset`` checks each installed ruleset on, and the toy's.

    Every installed ruleset is listed; one with no scenario at all gets a
    case with no scenario, which fails ``ships-a-scenario``.
    """
    found: list[Case] = []
    for name in ruleset_names():
        mine = scenarios_for(get_ruleset(name))
        found += [Case(name, p) for p in mine] or [Case(name, None)]
    found += [Case("pips", p) for p in TOY_SCENARIOS]
    found += [Case("phalanx", p) for p in PHALANX_SCENARIOS]
    return found


CASES = cases()

PLUGINS = ("pips", "phalanx")
"""The test suite's own plugins, installed only for the tests under tests/contract/."""

INSTALLED_CASES = [c for c in CASES if c.ruleset not in PLUGINS]
"""The cases of the rulesets installed everywhere (tests outside tests/contract/ use these)."""
