"""``pips_rowless``: the toy ruleset with a ``units`` hook that raises, always.

Made from the toy's :class:`~sim.contract.Ruleset` fields (``dataclasses.replace``), as
``pips_broken`` is; its scenario model is the toy's with ``ruleset: pips_rowless``. Every
requirement that reads the unit rows meets the one fault: ``check-ruleset pips_rowless``
must report it once, in full, and name the others it left unchecked in one line.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Literal

from sim.contract import AnyRuleset, UnitRow
from tests.contract.toy import RULESET as TOY

__all__ = ["NAME", "RULESET"]

NAME = "pips_rowless"

ENTRY_POINTS = f"[battlesim.rulesets]\n{NAME} = tests.contract.rowless:RULESET\n"

_TOY: AnyRuleset = TOY
_ToyScenario: Any = _TOY.scenario_model


class Scenario(_ToyScenario):  # type: ignore[misc]  # the toy's model, whatever it is
    """The toy's scenario model, for the ``pips_rowless`` ruleset."""

    ruleset: Literal["pips_rowless"]


def _units(sc: Any, state: Any) -> list[UnitRow]:
    raise KeyError("no rows today")


RULESET: AnyRuleset = dataclasses.replace(
    _TOY, name=NAME, scenario_model=Scenario, units=_units, examples=()
)
