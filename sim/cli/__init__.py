"""The ``battlesim`` command line: thin click commands over :mod:`sim.api` and the tools.

:mod:`sim.cli.main` holds the root group, which imports each command's
module (:mod:`sim.cli.core`, :mod:`sim.cli.show`, ...) the first time the
command is asked for; every command module imports only click and
:mod:`sim.cli.common` at module level, so ``--help`` stays light.
"""

from __future__ import annotations

from sim.cli.main import cli, main

__all__ = ["cli", "main"]
