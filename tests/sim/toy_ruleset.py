"""A ruleset object for the registry tests: musket's parts under another name."""

from dataclasses import replace

from sim.rulesets.musket import RULESET as MUSKET

RULESET = replace(MUSKET, name="toy", examples=())
