"""The ``Ruleset(...)`` assembly: a ruleset's hooks gathered from its modules by name.

A ruleset's package defines its hooks under the names of the
:class:`~sim.contract.Ruleset` fields they fill (``plan`` in ``battle.py``,
``outcome`` and ``narrate`` in ``report.py``, ``DERIVED_FIELDS`` for
``derived_fields``), so its ``__init__`` names only what is not a hook of
one module::

    RULESET = Ruleset(
        name="duel",
        version="1",
        scenario_model=DuelScenario,
        registry=EventRegistry(State.applied_events()),
        **hooks(battle, report, state, view),
    )

Each keyword a ``Ruleset`` call gives once: a hook two modules define is
refused (say which one by passing it yourself and leaving the other module
out), and so is one given both by a module and by hand (Python's own
``TypeError`` for a repeated keyword, which the plugin's loading says in one line
naming the field: :func:`sim.contract.registry.given_twice`).
"""

from __future__ import annotations

import dataclasses
from types import ModuleType
from typing import Any

from sim.contract.ruleset import Ruleset

__all__ = ["HOOKS", "hooks"]


HOOKS: tuple[str, ...] = tuple(f.name for f in dataclasses.fields(Ruleset))
"""The names :func:`hooks` looks for: every :class:`~sim.contract.Ruleset` field."""


def hooks(*modules: ModuleType) -> dict[str, Any]:
    """The ``Ruleset`` hooks the modules define, by field name, for ``Ruleset(**hooks(...))``.

    A module's names are those in its ``__all__`` (all its public top-level names
    when it has none); a name that is a ``Ruleset`` field, or one in capitals
    whose lower case is (``DERIVED_FIELDS``), is that field's hook.

    Raises:
        TypeError: two modules define the same hook.
    """
    found: dict[str, Any] = {}
    where: dict[str, str] = {}
    for module in modules:
        names = getattr(module, "__all__", None)
        if names is None:
            names = [n for n in vars(module) if not n.startswith("_")]
        for name in names:
            field = name.lower()
            if field not in HOOKS or name not in (field, field.upper()):
                continue
            if field in found:
                raise TypeError(
                    f"hook {field!r} is defined by both {where[field]} and {module.__name__}: "
                    "give it by hand and leave one module out"
                )
            found[field] = getattr(module, name)
            where[field] = module.__name__
    if not found:
        _none_exported(modules)
    return found


def _none_exported(modules: tuple[ModuleType, ...]) -> None:
    """Say why no hook was found when a module's ``__all__`` leaves out hooks it defines (a
    one-module ruleset whose ``__all__`` is ``["RULESET"]``): else its ``Ruleset(...)``
    fails later, naming only the missing arguments.

    Raises:
        TypeError: naming the module and the hooks its ``__all__`` leaves out.
    """
    for module in modules:
        exported = getattr(module, "__all__", None)
        if exported is None:
            continue
        left = [
            name
            for name, value in vars(module).items()
            if name.lower() in HOOKS
            and name in (name.lower(), name.lower().upper())
            and name not in exported
            and _hook_like(value)
            and getattr(value, "__module__", module.__name__) == module.__name__
        ]
        if left:
            raise TypeError(
                f"hooks({module.__name__}) found no hook: its __all__ leaves out "
                f"{', '.join(left)}, which it defines; add them to __all__ (hooks() reads "
                "only the names a module exports), or give them to Ruleset(...) by hand"
            )


def _hook_like(value: Any) -> bool:
    """Whether a module's value is what a hook is: a function (or another callable that is
    no class) or a tuple (``DERIVED_FIELDS``, ``STATUS_WORDS``). A text (``VERSION = "1"``),
    a scenario model or a registry is what ``Ruleset(...)`` is given by hand: advising to
    export ``VERSION`` led to ``version=VERSION`` given twice."""
    return isinstance(value, tuple) or (callable(value) and not isinstance(value, type))
