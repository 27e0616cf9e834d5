"""``pips_loose``: the toy ruleset whose scenario model takes any text as its ``ruleset``.

Every tool tells scenarios apart by that field, so the registry refuses the plugin (one
line naming the field and the fix) and the other rulesets' ``schema`` and ``new`` go on
without it, as beside a plugin that cannot be imported.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from sim.contract import AnyRuleset
from tests.contract.toy import RULESET as TOY

__all__ = ["RULESET"]

_ToyScenario: Any = TOY.scenario_model


class Scenario(_ToyScenario):  # type: ignore[misc]  # the toy's model, whatever it is
    """The toy's scenario model with ``ruleset`` any text: the mistake."""

    ruleset: str  # the mistake under test


RULESET: AnyRuleset = dataclasses.replace(TOY, name="pips_loose", scenario_model=Scenario)
