"""A ruleset object for the registry tests: musket's parts under another name."""

from dataclasses import replace
from typing import Literal

from pydantic import create_model

from sim.rulesets.musket import RULESET as MUSKET

Scenario = create_model(
    "ToyScenario",
    __base__=MUSKET.scenario_model,
    ruleset=(Literal["toy"], ...),
)
"""Musket's scenario model under the toy's name (the registry checks its ``ruleset`` field)."""

RULESET = replace(MUSKET, name="toy", examples=(), scenario_model=Scenario)

MUSKET_KEY = replace(MUSKET, name="toy2", examples=())
"""Musket's parts under another name with musket's own scenario model: refused."""
