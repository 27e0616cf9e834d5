"""``python -m sim`` is ``battlesim``: the same commands, options and exit codes."""

from sim.cli import main

if __name__ == "__main__":
    main()
