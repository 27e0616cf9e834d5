"""``python -m sim`` is ``battlesim``: the same commands, options and exit codes."""

from sim.cli import cli

if __name__ == "__main__":
    cli(prog_name="battlesim")
