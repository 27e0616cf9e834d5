"""The rule systems that ship with battlesim: ``musket``, ``flattop`` and ``becmi``.

Each is a package of the same shape: ``__init__`` (assembling one ``RULESET``
through :mod:`sim.contract` alone, exactly as a plugin does), ``battle`` and
``campaign``, and three subpackages: ``model`` (scenario, options, events,
state, data, the map), ``rules`` (``context`` and the rule modules) and
``reading`` (report, view, engage, audit, odds: what the generic tools read).
docs/architecture.md draws the tree. :mod:`~sim.rulesets.trusted` is their
shared speed device.
"""

from pathlib import Path

__all__ = ["examples_of"]


def examples_of(package_file: str) -> tuple[Path, ...]:
    """A built-in ruleset's example scenarios: the ``examples/*.yaml`` beside ``package_file``.

    In a checkout each is a link to its file in ``scenarios/``; a built
    package holds copies, so ``battlesim scenarios`` and ``check-ruleset``
    find them in an installed battlesim too.
    """
    return tuple(sorted((Path(package_file).parent / "examples").glob("*.yaml")))
