"""The ``battlesim`` command line: thin click wrappers over :mod:`sim.api` and friends.

Commands live in the modules of ``sim/cli/battles/``, ``outcomes/`` and
``rulesets/``, which import nothing but click and
:mod:`sim.cli.common` at module level; the root group imports them lazily by
name (no import circle: they never import this module), and each command
imports the work it wraps in its own body, so ``battlesim --version``,
``--help`` and tab completion load no simulation code and no heavy library.

Exit codes: 0 success, 1 a negative answer (damaged, differs, incomplete),
2 bad input or usage.
"""

from __future__ import annotations

import errno
import io
import re
import sys
from typing import Any

import click

from sim.cli import common
from sim.cli.common import LazyGroup, default_option

__all__ = ["cli", "main"]

COMMANDS: dict[str, str] = {
    "run": "sim.cli.battles.core:run",
    "verify": "sim.cli.battles.core:verify",
    "show": "sim.cli.battles.show:show",
    "validate": "sim.cli.battles.core:validate",
    "schema": "sim.cli.battles.core:schema",
    "rulesets": "sim.cli.rulesets.info:rulesets",
    "check-ruleset": "sim.cli.rulesets.check:check_ruleset",
    "scenarios": "sim.cli.rulesets.info:scenarios",
    "new": "sim.cli.rulesets.info:new",
    "diff": "sim.cli.battles.replay:diff",
    "fork": "sim.cli.battles.replay:fork_command",
    "why": "sim.cli.battles.replay:why",
    "report": "sim.cli.battles.replay:report",
    "batch": "sim.cli.outcomes.batch:batch",
    "study": "sim.cli.outcomes.batch:study",
    "rerun": "sim.cli.outcomes.runs:rerun_command",
    "export": "sim.cli.outcomes.runs:export",
    "campaign": "sim.cli.outcomes.runs:campaign",
    "calibrate": "sim.cli.outcomes.calibrate:calibrate",
    "history": "sim.cli.outcomes.history:history",
    "discover": "sim.cli.outcomes.studies:discover",
}
"""Every command: name -> ``module:attribute`` (imported on first use)."""


class _Odds(LazyGroup):
    """The ``odds`` group: one command per resolution of every installed ruleset.

    The commands come from :func:`sim.cli.rulesets.odds.odds_commands`, imported (with
    the rulesets) only when the group lists or runs them, once per invocation.
    """

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        """A number with the minus sign the docs typeset (``−40``, U+2212) is read with an
        ASCII one, for every odds command's options (``--ac −5``, ``--modifier −2``)."""
        return super().parse_args(ctx, [_MINUS.sub("-", a) for a in args])

    def _odds(self, ctx: click.Context) -> dict[str, click.Command]:
        key = "battlesim.odds"
        if key not in ctx.meta:
            from sim.cli.rulesets.odds import odds_commands  # noqa: PLC0415  # start-up stays light

            ctx.meta[key] = odds_commands()
        commands: dict[str, click.Command] = ctx.meta[key]
        return commands

    def list_commands(self, ctx: click.Context) -> list[str]:
        """Every odds command of the installed rulesets, sorted."""
        return sorted(self._odds(ctx))

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        """The odds command of that name, or None."""
        return self._odds(ctx).get(cmd_name)


class _Root(LazyGroup):
    """The root group: lazy commands, guarded by :func:`sim.cli.errors.run_guarded`.

    The guard (and pydantic with it) is imported only when a command runs,
    never for ``--version``, ``--help`` or completion.
    """

    def invoke(self, ctx: click.Context) -> Any:
        """Run the command; whatever it does not handle is one line and exit 2."""
        from sim.cli.errors import run_guarded  # noqa: PLC0415  # start-up stays light
        from sim.cli.interrupts import signals_as_interrupts  # noqa: PLC0415

        _tolerant_streams()
        _matplotlib_cache()
        with signals_as_interrupts():
            return run_guarded(ctx, lambda: super(_Root, self).invoke(ctx))


def _configure_logging(level: str, as_json: bool) -> None:
    import logging  # noqa: PLC0415  # only commands that run pay for logging

    import structlog  # noqa: PLC0415

    renderer: Any = (
        structlog.processors.JSONRenderer()
        if as_json
        else structlog.dev.ConsoleRenderer(colors=False)
    )
    structlog.configure(
        processors=[
            structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="iso"),
            renderer,
        ],
        wrapper_class=structlog.make_filtering_bound_logger(getattr(logging, level.upper())),
        logger_factory=structlog.PrintLoggerFactory(file=sys.stderr),
        cache_logger_on_first_use=False,
    )


@click.group(
    cls=_Root,
    lazy=COMMANDS,
    context_settings={"help_option_names": ["-h", "--help"]},
    epilog="Example: battlesim run scenarios/stone_wall.yaml --seed 7 -o sw.jsonl\n\n"
    "Shell completion (bash, zsh, fish): see README.md, 'Shell completion'.",
)
@click.version_option(package_name="battlesim")
@default_option(
    "--log-level",
    kind=click.Choice(["debug", "info", "warning", "error"]),
    default="warning",
    help_text="Operational log level (stderr).",
)
@click.option("--log-json", is_flag=True, help="Operational logs as JSON lines on stderr.")
def cli(log_level: str, log_json: bool) -> None:
    """battlesim: deterministic, event-sourced battle simulation.

    Run a scenario to a replay file, check a replay, read it back, study
    outcomes. Every command that reports takes --json; every command that
    writes a file takes -o/--out (diff: --html; new: the NAME.yaml it is given). Exit codes:
    0 success, 1 a negative answer (damaged, differs, incomplete), 2 bad input or usage.
    """
    _configure_logging(log_level, log_json)


@cli.group(cls=_Odds)
def odds() -> None:
    """Exact odds of one resolution, as dice calculators give them.

    The commands are those the installed rulesets offer.

    \b
    Example:
      battlesim odds musket-fire --value 1800 --modifier -40
    """


_MINUS = re.compile(r"(?:^|(?<==))\u2212(?=[\d.])")
"""A typeset minus sign (U+2212) before a number."""

_LONG_NUMBER = re.compile(r"\d{41,}")
"""A number too long to echo in an error line (5,000 digits): shown by its length."""

_CLICK_WORDS = {
    " is not a valid integer range.": " is not a whole number.",
    " is not a valid float range.": " is not a number.",
}
"""click's words for text where a number in a range goes, said plainly: it names the type
(``'x' is not a valid integer range.``), which reads as if a range were wanted. Every
``IntRange`` and ``FloatRange`` option says it so, a plugin's (``odds``) too."""


def _plain_words(message: str) -> str:
    """``message`` with click's type names (:data:`_CLICK_WORDS`) said plainly."""
    for said, plain in _CLICK_WORDS.items():
        if message.endswith(said):
            return message[: -len(said)] + plain
    return message


def _tolerant_streams() -> None:
    """Print what the terminal's encoding cannot show as ``\\u2014`` escapes, never fail.

    Under ``PYTHONIOENCODING=latin-1`` (or a C locale) an em dash or a file
    name holding a byte that is not UTF-8 would otherwise end a command with
    exit 2 after its work was done (a replay already written).
    """
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            reconfigure(errors="backslashreplace")


def _matplotlib_cache() -> None:
    """Give matplotlib a private cache folder when its own is not writable.

    matplotlib would make a new temporary one on every run and say so on
    stderr; a command's stderr holds its errors only.  The folder is the
    user's own (``<tmp>/battlesim-<uid>/matplotlib``, mode 0700); if even that
    cannot be had, matplotlib's note is silenced instead.
    """
    import os  # noqa: PLC0415  # the few commands that draw pay for this

    if "MPLCONFIGDIR" in os.environ:
        return
    home = os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
    existing = os.path.join(home, "matplotlib")
    while not os.path.exists(existing) and os.path.dirname(existing) != existing:
        existing = os.path.dirname(existing)  # matplotlib makes the rest
    if os.path.isdir(existing) and os.access(existing, os.W_OK):
        return
    private = _private_folder()
    if private is not None:
        os.environ["MPLCONFIGDIR"] = private
    else:
        import logging  # noqa: PLC0415

        logging.getLogger("matplotlib").setLevel(logging.ERROR)


def _private_folder() -> str | None:
    """``<tmp>/battlesim-<uid>/matplotlib``, made 0700 and checked to be the user's own."""
    import os  # noqa: PLC0415
    import stat  # noqa: PLC0415
    import tempfile  # noqa: PLC0415

    base = os.path.join(tempfile.gettempdir(), f"battlesim-{os.getuid()}")
    try:
        for folder in (base, os.path.join(base, "matplotlib")):
            os.makedirs(folder, mode=0o700, exist_ok=True)
            info = os.lstat(folder)  # a link or someone else's folder is not ours
            if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid():
                return None
            if info.st_mode & 0o077:
                return None
    except OSError:
        return None
    return os.path.join(base, "matplotlib")


_NEGATIVE = re.compile(r"-\d+(\.\d+)?")
"""A negative number, which click takes for an option when it stands alone."""


def _global_option(exc: click.UsageError) -> str | None:
    """For an option of battlesim itself given after a command (``run … --log-level debug``):
    the line that says where it goes; for a negative number click took for an option
    (``why FILE -1``), that it goes after ``--``; else None."""
    ctx = exc.ctx
    if not isinstance(exc, click.NoSuchOption) or ctx is None or ctx.parent is None:
        return None
    name = exc.option_name.split("=", 1)[0]
    if _NEGATIVE.fullmatch(name):  # why FILE -1: a value the shell gave, read as an option
        # click names a short option's first two characters (-4 of -40): the word as typed
        name = next(
            (a for a in sys.argv[1:] if _NEGATIVE.fullmatch(a) and a.startswith(name)), name
        )
        slots = [p.nargs for p in ctx.command.params if isinstance(p, click.Argument)]
        if sum(slots) < 2 and -1 not in slots:  # no argument it could be (odds: none; run: FILE)
            return (  # but an option's value (odds … -40: --modifier -40)
                f"{name} is a negative number, not an option, and no argument of "
                f"{ctx.command_path} takes it: give it as the value of one of its options"
            )
        return (
            f"{name} is a negative number, not an option: a value that starts with '-' "
            f"goes after '--' ('{ctx.command_path} … -- {name}')"
        )
    if name == "--version":
        return "--version is an option of battlesim itself: battlesim --version"
    for param in cli.params:
        if isinstance(param, click.Option) and name in param.opts:
            shown = name
            if not param.is_flag:
                shown = f"{name} {_given(name) or param.metavar or 'VALUE'}"
            command = ctx.command_path.removeprefix(f"{ctx.find_root().info_name} ")
            return (
                f"{name} is an option of battlesim itself: put it before the command,"
                f" as in 'battlesim {shown} {command} …'"
            )
    return None


def _given(name: str) -> str | None:
    """The value given to option ``name`` on this command line (``--log-level info`` or
    ``--log-level=info``), if any."""
    args = sys.argv[1:]
    for i, arg in enumerate(args):
        if arg.startswith(f"{name}="):
            return arg.split("=", 1)[1]
        if arg == name and i + 1 < len(args):
            return args[i + 1]
    return None


def _command_given(args: list[str]) -> str:
    """``battlesim COMMAND`` for the first of ``args`` that names a command, else
    ``battlesim``: click's parser reports an option missing its value with no context, which
    the line would blame on ``battlesim`` itself."""
    for arg in args:
        if arg in cli.commands:
            return f"battlesim {arg}"
    return "battlesim"


class _Closed(io.TextIOBase):
    """Standard output when the shell closed it: any write is an error naming it."""

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        raise OSError(errno.EBADF, "it is closed", "standard output")


def main() -> None:
    """Console-script entry point (also ``python -m sim``).

    A usage error (a missing argument, a bad flag value) is one line naming
    the command, and exit 2; click alone would print the usage around it.
    """
    if sys.stdout is None:  # the shell closed it (``>&-``): --help says so, as commands do
        sys.stdout = _Closed()
    try:
        code = cli.main(prog_name="battlesim", standalone_mode=False)
    except SystemExit as exc:
        # click's own answer to a closed pipe under --help or --version: exit 1, raised while
        # it handled the EPIPE; a reader gone is 141 here, as for every command
        broke = exc.__context__
        epipe = isinstance(broke, OSError) and broke.errno == errno.EPIPE
        if exc.code == 1 and (epipe or common.stdout_gone(unknown=False)):
            common.stdout_to_devnull()
            sys.exit(141)
        raise
    except click.exceptions.NoArgsIsHelpError as exc:
        exc.show()  # a bare group prints its help, as click does
        sys.exit(exc.exit_code)
    except click.UsageError as exc:
        where = exc.ctx.command_path if exc.ctx is not None else _command_given(sys.argv[1:])
        message = _global_option(exc) or _LONG_NUMBER.sub(
            lambda m: f"<{len(m.group())} digits>", _plain_words(exc.format_message())
        )
        message = " ".join(message.split())  # click lists a missing option's choices on lines
        click.echo(f"{where}: error: {message} (see '{where} --help')", err=True)
        sys.exit(exc.exit_code)
    except click.ClickException as exc:
        exc.show()
        sys.exit(exc.exit_code)
    except BrokenPipeError:  # --help or --version into a pipe whose reader has gone
        common.stdout_to_devnull()  # the flush at exit must not fail again
        sys.exit(141)  # as a command's own output does (sim.cli.errors.BROKEN_PIPE)
    except OSError as exc:  # --help or --version onto a full disk: the command never ran
        name = exc.filename or "standard output"  # as a command's own line names it
        click.echo(f"battlesim: error: {name}: {exc.strerror or exc}", err=True)
        common.stdout_to_devnull()
        sys.exit(2)
    except click.Abort as exc:
        from sim.cli.interrupts import Terminated  # noqa: PLC0415  # start-up stays light

        if isinstance(exc.__cause__, Terminated):
            sys.exit(143)  # 128 + SIGTERM, as a shell reports a terminated command
        click.echo("Aborted!", err=True)
        sys.exit(130)
    sys.exit(code if isinstance(code, int) else 0)
