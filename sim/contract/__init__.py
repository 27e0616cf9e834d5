"""The contract between battlesim and a rule system: the one import a plugin author needs.

A rule system is one :class:`Ruleset` value.  Everything it hands the
generic tools is a model of :mod:`sim.contract.models`; its battle is a
:class:`~sim.runner.Plan` fought by the one runner (:mod:`sim.runner`);
:mod:`sim.contract.registry` finds installed rulesets by name;
:mod:`sim.contract.odds` describes the exact odds a ruleset offers;
:mod:`sim.contract.bases` holds the scenario, side and battle-ended bases
the built-in rulesets derive from (a plugin may too); :mod:`sim.contract.emit`
the helpers rules make their events with (``stamp``); :mod:`sim.contract.parts`,
:mod:`sim.contract.ending`, :mod:`sim.contract.carry` and :mod:`sim.contract.ids`
are the state, carry-over and cross-check pieces every ruleset shares, and
:mod:`sim.contract.assembly` gathers a ruleset's hooks from its modules by name.
``docs/rulesets.md`` is the guide, with a complete example plugin.
"""

from __future__ import annotations

from sim.contract import bases
from sim.contract.assembly import hooks
from sim.contract.bases import (
    BattleEndedBase,
    Hex,
    Ident,
    Model,
    Name,
    ScenarioBase,
    SideBase,
    validate_plain,
)
from sim.contract.carry import CarryOver, CarrySettings, NextBattle
from sim.contract.emit import (
    RecordsCause,
    Rolls,
    Stamp,
    cause_upcasters,
    stamp,
    turn_end_from,
)
from sim.contract.ending import EndingState, ending_line
from sim.contract.ids import UniqueIds
from sim.contract.models import (
    Engagement,
    Feature,
    Measure,
    Number,
    Outcome,
    Problem,
    Reach,
    Reading,
    SideResult,
    Space,
    UnitRow,
)
from sim.contract.odds import (
    LARGEST,
    OddsInputError,
    OddsParam,
    OddsResolution,
    OddsResult,
    ParamKind,
    distribution_json,
    distribution_table,
    read_exact,
)
from sim.contract.parts import AtMost, ById, OutAt, Part, fixed, row, trusted_part
from sim.contract.registry import (
    BUILTIN,
    ENTRY_POINT_GROUP,
    AnyRuleset,
    RulesetUnavailable,
    broken,
    get_ruleset,
    headline,
    load_error,
    loaded_rulesets,
    ruleset_names,
)
from sim.contract.ruleset import HookError, Ruleset, ScenarioT, StateT
from sim.contract.state import StateBase, applies

__all__ = [
    "BUILTIN",
    "ENTRY_POINT_GROUP",
    "LARGEST",
    "AnyRuleset",
    "AtMost",
    "BattleEndedBase",
    "ById",
    "CarryOver",
    "CarrySettings",
    "EndingState",
    "Engagement",
    "Feature",
    "Hex",
    "HookError",
    "Ident",
    "Measure",
    "Model",
    "Name",
    "NextBattle",
    "Number",
    "OddsInputError",
    "OddsParam",
    "OddsResolution",
    "OddsResult",
    "OutAt",
    "Outcome",
    "ParamKind",
    "Part",
    "Problem",
    "Reach",
    "Reading",
    "RecordsCause",
    "Rolls",
    "Ruleset",
    "RulesetUnavailable",
    "ScenarioBase",
    "ScenarioT",
    "SideBase",
    "SideResult",
    "Space",
    "Stamp",
    "StateBase",
    "StateT",
    "UniqueIds",
    "UnitRow",
    "applies",
    "bases",
    "broken",
    "cause_upcasters",
    "distribution_json",
    "distribution_table",
    "ending_line",
    "fixed",
    "get_ruleset",
    "headline",
    "hooks",
    "load_error",
    "loaded_rulesets",
    "read_exact",
    "row",
    "ruleset_names",
    "stamp",
    "trusted_part",
    "turn_end_from",
    "validate_plain",
]


_MOVED_OUT = {"trusted_measure", "trusted_row", "trusted_side", "trusted_outcome", "typed"}


def __getattr__(name: str) -> object:
    """``sim.contract.trusted_*`` of battlesim 0.1, now :mod:`sim.rulesets.trusted` (warns)."""
    if name in _MOVED_OUT:
        import warnings  # noqa: PLC0415

        from sim.rulesets import trusted  # noqa: PLC0415 - a deprecated path only

        warnings.warn(
            f"sim.contract.{name} has moved to sim.rulesets.trusted.{name}",
            DeprecationWarning,
            stacklevel=2,
        )
        return getattr(trusted, name)
    raise AttributeError(f"module 'sim.contract' has no attribute {name!r}")
