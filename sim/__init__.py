"""The battle domain on top of :mod:`engine`: contract, rulesets, scenarios, replays, CLI.

The layers, lowest first, and what each may import: docs/architecture.md.
Old flat module paths (``sim.ruleset``, ``sim.loader``, ``sim.musket``...)
still import, with a :class:`DeprecationWarning` (:mod:`sim._moved`).
"""

from sim._moved import install as _install_moved

_install_moved()
