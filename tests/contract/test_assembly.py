"""sim.contract.hooks: a ruleset's hooks gathered from its modules by the Ruleset field names."""

from __future__ import annotations

import dataclasses
from types import ModuleType
from typing import Any

import pytest

from sim.contract import Ruleset, hooks
from sim.rulesets.musket import RULESET as MUSKET


def _module(name: str, names: dict[str, object], exported: list[str] | None) -> ModuleType:
    module = ModuleType(name)
    for key, value in names.items():
        setattr(module, key, value)
    if exported is not None:
        module.__all__ = exported  # type: ignore[attr-defined]
    return module


def plan() -> None:
    """A stand-in hook."""


def outcome() -> None:
    """Another."""


def test_hooks_are_the_exported_names_of_ruleset_fields() -> None:
    """A lower-case field name or its capitals (DERIVED_FIELDS) is a hook; other names, names
    a module with __all__ does not export, and private names are not."""
    report = _module("report", {"outcome": outcome, "helper": print, "plan": plan}, ["outcome"])
    view = _module("view", {"DERIVED_FIELDS": ("hex",), "Plan": plan, "_units": plan}, None)
    assert hooks(report, view) == {"outcome": outcome, "derived_fields": ("hex",)}


def test_a_hook_two_modules_define_is_refused_naming_both() -> None:
    """Ambiguity is an error at import, never a silent choice."""
    a, b = _module("a", {"plan": plan}, None), _module("b", {"plan": plan}, ["plan"])
    with pytest.raises(TypeError, match="hook 'plan' is defined by both a and b"):
        hooks(a, b)


def test_the_built_ins_are_assembled_with_every_hook_they_had() -> None:
    """musket's hooks are its modules' functions of those names (checked against the modules,
    not a pasted list): each field not given by hand comes from its module."""
    from sim.rulesets.musket import battle
    from sim.rulesets.musket.model import state
    from sim.rulesets.musket.reading import reach, report, view

    assert MUSKET.plan is battle.plan and MUSKET.reach is reach.reach
    # outcome (as units and summary) is guarded: what it raises names the ruleset and hook
    assert (MUSKET.outcome.fn, MUSKET.narrate) == (report.outcome, report.narrate)  # type: ignore[attr-defined]
    assert MUSKET.units.fn is view.units  # type: ignore[attr-defined]
    assert MUSKET.snapshot_json is state.snapshot_json
    assert MUSKET.derived_fields == view.DERIVED_FIELDS
    names = {f.name for f in dataclasses.fields(Ruleset)}
    assert {"plan", "outcome", "units", "space", "audit", "carry_over"} <= names


def test_with_ending_puts_the_battles_end_between_a_states_own_fields() -> None:
    """The four EndingState fields, in their order, between before and after; musket's order
    so made names each of its snapshot fields once (StateBase checks it at class creation)."""
    from sim.contract import EndingState
    from sim.rulesets.musket.model.state import BattleState

    assert EndingState.with_ending(("a",), ("z",)) == (
        "a",
        "ended",
        "ended_turn",
        "winner",
        "reason",
        "z",
    )
    assert BattleState.snapshot_order[:3] == ("units", "sides", "ended")


def test_int_option_reads_a_whole_number_option_by_name() -> None:
    """flattop's speed of a type is its speed_<type> option; a name that is not a whole-number
    option is refused."""
    from pydantic import BaseModel

    from sim.contract.options import int_option
    from sim.rulesets.flattop.model.options import FlattopOptions

    o = FlattopOptions()
    assert o.speed("fighter") == o.speed_fighter == int_option(o, "speed_fighter")

    class Odd(BaseModel):
        share: float = 0.5

    with pytest.raises(TypeError, match=r"option 'share' is 0\.5, not a whole number"):
        int_option(Odd(), "share")


def test_a_state_hook_that_raises_is_a_hook_error_naming_ruleset_and_hook() -> None:
    """units, outcome and summary are the plugin's code: what they raise reaches every tool
    as one HookError line naming the ruleset and the hook, with where it was raised."""
    from sim.contract import HookError

    def units(sc: Any, state: Any) -> list[Any]:
        raise KeyError("boom")

    from sim.contract import defaults

    broken: Any = dataclasses.replace(
        MUSKET, name="musket_broken", units=units, measures=defaults.unset
    )
    with pytest.raises(HookError) as caught:
        broken.units(None, None)
    assert str(caught.value).startswith(
        "ruleset 'musket_broken': units raised KeyError: 'boom' (at test_assembly.py:"
    )
    # the measures default reads the guarded units; replacing keeps one guard, the new name
    again: Any = dataclasses.replace(broken, name="musket_again")
    assert again.units.fn is units
    with pytest.raises(HookError, match=r"^ruleset 'musket_again': units raised KeyError"):
        again.measures(None, None)


def test_a_hook_with_the_wrong_parameters_is_named_where_it_is_defined() -> None:
    """A units hook written without the scenario parameter: the HookError names the hook's
    parameters and its own file and line (it named battlesim's ruleset.py, where it is called,
    and check-ruleset's hint says to fix the hook where the message says)."""
    from sim.contract import HookError, defaults

    def units(state: Any) -> list[Any]:
        return []

    broken: Any = dataclasses.replace(
        MUSKET,
        name="musket_broken",
        units=units,  # type: ignore[arg-type]  # the fault under test
        measures=defaults.unset,
    )
    with pytest.raises(HookError) as caught:
        broken.units(None, None)
    line = units.__code__.co_firstlineno
    assert str(caught.value) == (
        "ruleset 'musket_broken': units raised TypeError: "
        f"{units.__qualname__}() takes 1 positional argument but 2 were given "
        f"(the hook is units(state), at test_assembly.py:{line}: give it the parameters the "
        "contract calls it with, docs/rulesets.md 'The contract')"
    )


def test_a_type_error_inside_a_hook_is_still_named_where_it_was_raised() -> None:
    """A TypeError the hook's own code raises is named at its line, not the hook's definition."""
    from sim.contract import HookError, defaults

    def units(sc: Any, state: Any) -> list[Any]:
        return len(3)  # type: ignore[arg-type, return-value]  # the fault under test

    broken: Any = dataclasses.replace(
        MUSKET, name="musket_broken", units=units, measures=defaults.unset
    )
    with pytest.raises(HookError) as caught:
        broken.units(None, None)
    line = units.__code__.co_firstlineno + 1
    assert str(caught.value) == (
        "ruleset 'musket_broken': units raised TypeError: object of type 'int' has no len() "
        f"(at test_assembly.py:{line})"
    )


@pytest.mark.parametrize(
    ("hook", "returned", "said"),
    [
        ("units", [{"id": "a"}], "units returned a list whose item 0 is dict, not UnitRow"),
        ("units", ("row",), "units returned a list whose item 0 is str, not UnitRow"),
        ("units", {"a": 1}, "units returned dict, not a list of UnitRow"),
        ("outcome", {"winner": None}, "outcome returned dict, not Outcome"),
        ("summary", "Union: lost 3", "summary returned str, not a list of str"),
        ("summary", ["a", 3], "summary returned a list whose item 1 is int, not str"),
    ],
)
def test_a_state_hook_returning_the_wrong_type_is_a_hook_error_at_that_hook(
    hook: str, returned: Any, said: str
) -> None:
    """units, outcome and summary return what their fields' types say, or every tool says
    which hook returned what (a units of dicts failed in show at "'dict' object has no
    attribute 'position'", and an outcome of a dict was blamed on summary)."""
    from sim.contract import HookError

    def wrong(*args: Any) -> Any:
        return returned

    changes: dict[str, Any] = {hook: wrong}
    broken: Any = dataclasses.replace(MUSKET, name="musket_wrong", **changes)
    with pytest.raises(HookError) as caught:
        getattr(broken, hook)(None, None) if hook != "summary" else broken.summary(None)
    assert str(caught.value) == f"ruleset 'musket_wrong': {said}"


def test_a_guarded_hook_takes_keywords_as_the_hook_does() -> None:
    """A plugin calling its own hook by keyword (``RULESET.units(scenario=…, state=…)``)."""
    seen: list[tuple[Any, Any]] = []

    def units(scenario: Any, state: Any) -> list[Any]:
        seen.append((scenario, state))
        return []

    ruleset: Any = dataclasses.replace(MUSKET, name="musket_keywords", units=units)
    assert ruleset.units(scenario=1, state=2) == [] and seen == [(1, 2)]


def test_a_module_whose_all_leaves_out_every_hook_it_defines_is_named() -> None:
    """A one-module ruleset with ``__all__ = ["RULESET"]``: hooks() finds nothing, and says
    which of the module's own hooks its __all__ leaves out (Ruleset(...) said only "missing
    5 required positional arguments"). Names it imported are not its own, and a module that
    exports any hook is read as before."""

    def units() -> None:
        """A stand-in hook defined in the plugin's module."""

    units.__module__ = "duel"
    duel = _module("duel", {"units": units, "outcome": outcome, "RULESET": None}, ["RULESET"])
    with pytest.raises(TypeError, match=r"^hooks\(duel\) found no hook: its __all__ leaves out "
                       r"units, which it defines; add them to __all__"):  # fmt: skip
        hooks(duel)
    imported = _module("imported", {"outcome": outcome, "RULESET": None}, ["RULESET"])
    assert hooks(imported) == {}
    report = _module("report", {"outcome": outcome, "plan": plan}, ["outcome"])
    assert hooks(report) == {"outcome": outcome}


def test_a_refusal_names_only_hook_like_values_not_the_constants_given_by_hand() -> None:
    """hooks(duel) of a module whose __all__ is ["RULESET"] lists the functions and tuples it
    leaves out; it also told the author to export VERSION (a text whose lower case is a
    Ruleset field), which, with version=VERSION by hand as the docs show, gave a TypeError."""

    def units() -> None:
        """A stand-in hook defined in the plugin's module."""

    class Scenario:
        """A scenario model, given by hand."""

    units.__module__ = Scenario.__module__ = "duel"
    names = {
        "units": units,
        "VERSION": "1",
        "NAME": "duel",
        "SCENARIO_MODEL": Scenario,
        "STATUS_WORDS": ("fallen",),
        "RULESET": None,
    }
    duel = _module("duel", names, ["RULESET"])
    with pytest.raises(TypeError) as caught:
        hooks(duel)
    assert str(caught.value) == (
        "hooks(duel) found no hook: its __all__ leaves out units, STATUS_WORDS, which it "
        "defines; add them to __all__ (hooks() reads only the names a module exports), or give "
        "them to Ruleset(...) by hand"
    )


def test_a_field_given_by_hand_and_by_hooks_is_one_line_naming_it(
    tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """version=VERSION by hand beside **hooks(module) of a module exporting VERSION: loading
    the plugin said Python's `Ruleset() got multiple values for keyword argument 'version'`;
    it names the field, the two ways it came and the line of the Ruleset(...) call."""
    from sim.contract import registry

    (tmp_path / "twice_plugin.py").write_text(
        "import sys\n"
        "from sim.contract import Ruleset, hooks\n"
        '__all__ = ["RULESET", "VERSION"]\n'
        'VERSION = "1"\n'
        "RULESET = Ruleset(\n"
        '    name="pips",\n'
        "    version=VERSION,\n"
        "    **hooks(sys.modules[__name__]),\n"
        ")\n",
        encoding="utf-8",
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(registry.RulesetUnavailable) as caught:
        registry._load("pips_twice", "twice_plugin:RULESET")
    assert str(caught.value) == (
        "ruleset 'pips_twice' (entry point pips_twice = twice_plugin:RULESET) cannot be "
        "loaded: Ruleset(...) is given 'version' twice, by hand and in the mapping spread into "
        "it (hooks(...) takes version or VERSION from a module whose __all__ exports it): give "
        "it once (at twice_plugin.py:5)"
    )
