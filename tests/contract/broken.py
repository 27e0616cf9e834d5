"""``pips_broken``: the toy ruleset with a ``restore`` that forgets part of the snapshot.

Made from the toy's :class:`~sim.contract.Ruleset` fields alone
(``dataclasses.replace``), so it follows the toy whatever its state is:
``restore`` puts back the first plain top-level value of the snapshot
that changed since the start (the battle's end) at its start value.  Its scenario model is the
toy's with ``ruleset: pips_broken``.  ``check-ruleset pips_broken`` must fail
``restore-inverts-snapshot`` and that alone.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Literal

from sim.contract import AnyRuleset
from tests.contract.toy import RULESET as TOY

__all__ = ["NAME", "RULESET", "forgotten"]

NAME = "pips_broken"

ENTRY_POINTS = f"[battlesim.rulesets]\n{NAME} = tests.contract.broken:RULESET\n"

_TOY: AnyRuleset = TOY
_ToyScenario: Any = _TOY.scenario_model


class Scenario(_ToyScenario):  # type: ignore[misc]  # the toy's model, whatever it is
    """The toy's scenario model, for the ``pips_broken`` ruleset."""

    ruleset: Literal["pips_broken"]


def forgotten(sc: Any, data: dict[str, Any]) -> str | None:
    """The snapshot entry the broken restore forgets: the first plain value (not a list or
    mapping) that changed since the start, such as the battle's end."""
    start = TOY.snapshot(TOY.initial_state(sc))
    changed = (k for k in data if data[k] != start.get(k) and not isinstance(data[k], list | dict))
    return next(changed, None)


def _restore(sc: Any, data: dict[str, Any]) -> Any:
    key = forgotten(sc, data)
    if key is None:
        return TOY.restore(sc, data)
    start = TOY.snapshot(TOY.initial_state(sc))
    return TOY.restore(sc, {**data, key: start[key]})


RULESET: AnyRuleset = dataclasses.replace(
    _TOY, name=NAME, scenario_model=Scenario, restore=_restore, examples=()
)
