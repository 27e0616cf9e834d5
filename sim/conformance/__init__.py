"""The ruleset contract as requirements that ship: ``battlesim check-ruleset NAME``.

Each :class:`Requirement` has a stable id, the requirement in one line, how
to meet it (pointing into docs/rulesets.md) and a check that raises
:class:`RequirementFailed` naming the scenario, the turn or seq and the field.
:func:`run_suite` checks them on a ruleset, fighting each of its scenarios
(:func:`scenarios_for`) once in a temporary folder; every tool is driven as
a user drives it, through the ``battlesim`` command line in this process.
The test suite runs the same requirements (tests/contract/).

This package sits at the top layer beside :mod:`sim.cli`: it drives every tool.
"""

from __future__ import annotations

from sim.conformance.battle import Battle
from sim.conformance.requirement import NotChecked, Requirement, RequirementFailed
from sim.conformance.suite import (
    REQUIREMENTS,
    SuiteInputError,
    Verdict,
    check,
    run_suite,
    scenarios_for,
)

__all__ = [
    "REQUIREMENTS",
    "Battle",
    "NotChecked",
    "Requirement",
    "RequirementFailed",
    "SuiteInputError",
    "Verdict",
    "check",
    "run_suite",
    "scenarios_for",
]
