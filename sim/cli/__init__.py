"""The ``battlesim`` command line: thin click commands over :mod:`sim.api` and the tools.

:mod:`sim.cli.main` holds the root group, which imports each command's
module (:mod:`sim.cli.battles.core`, :mod:`sim.cli.battles.show`, ...) the
first time the command is asked for; every command module imports only click
and :mod:`sim.cli.common` at module level, so ``--help`` stays light.  The
commands are grouped as users meet them: :mod:`sim.cli.battles` (running and
reading battles), :mod:`sim.cli.outcomes` (studies, calibration, history) and
:mod:`sim.cli.rulesets` (rulesets, scenarios, ``check-ruleset``, odds).
"""

from __future__ import annotations

from sim.cli.main import cli, main

__all__ = ["cli", "main"]
