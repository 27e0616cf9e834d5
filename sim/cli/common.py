"""What every ``battlesim`` command shares: lazy command groups, options, plain errors.

This module imports click and the standard library only, so that
``battlesim --version``, ``--help`` and tab completion start at once; each
command imports the work it wraps inside its own body.
"""

from __future__ import annotations

import functools
import json
import math
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass, fields
from importlib import import_module
from pathlib import Path
from typing import Any, Literal, NoReturn, TypeVar

import click

__all__ = [
    "PAGE_FORCE",
    "QUIET",
    "REPLAY_FORCE",
    "Command",
    "Execution",
    "LazyGroup",
    "OutPath",
    "Whole",
    "default_option",
    "echo_json",
    "fail",
    "file_argument",
    "force_option",
    "json_option",
    "out_option",
    "quiet_option",
    "readable_file",
    "say",
    "seed_option",
    "seed_value",
]

F = TypeVar("F", bound=Callable[..., Any])


def say(text: str, *, err: bool = False) -> None:
    """Print ``text`` as one line: a newline, CR, tab or invisible character in a name,
    file name or message shown escaped (``\\n``), never starting a line of its own."""
    from engine.safety.text import one_line  # noqa: PLC0415 - --version imports no engine

    click.echo(one_line(text), err=err)


def command_line(command: str, *files: str | os.PathLike[str]) -> str:
    """``battlesim COMMAND FILE…`` as a shell takes it when pasted: each file quoted where
    it needs it (``'sp ace.yaml'``), and one whose name starts with ``-`` given as
    ``./-x.yaml``, which no command reads as an option."""
    import shlex  # noqa: PLC0415

    said = [os.fspath(f) for f in files]
    said = [f"./{f}" if f.startswith("-") else f for f in said]
    return " ".join(["battlesim", command, *map(shlex.quote, said)])


def fail(message: str) -> NoReturn:
    """Print ``battlesim: error: <message>`` on stderr and exit 2 (bad input)."""
    say(f"battlesim: error: {message}", err=True)
    sys.exit(2)


def needs(*modules: str) -> None:
    """Import each of ``modules`` now, so that a command that needs an extra's library says
    so (:func:`sim.cli.errors.run_guarded`: which extra, one line, exit 2) before it prints
    or fights anything, not when it first reaches for the library."""
    import importlib  # noqa: PLC0415

    for name in modules:
        importlib.import_module(name)


def echo_json(data: Any) -> None:
    """Print one JSON object on one line (keys sorted) for scripts."""
    click.echo(json.dumps(data, sort_keys=True))


class Command(click.Command):
    """A command whose one-line summary in a listing is its whole first line, never cut."""

    def get_short_help_str(self, limit: int = 45) -> str:
        """The first line of the docstring (or ``short_help``), whole."""
        del limit
        text = self.short_help or self.help or ""
        return text.strip().split("\n", 1)[0].strip()


class LazyGroup(click.Group):
    """A group whose commands are imported from ``module:attribute`` on first use.

    No command module is imported to parse ``--version``; listing the
    commands (``--help``, completion) imports the light CLI modules only.
    """

    command_class = Command

    def __init__(self, *args: Any, lazy: dict[str, str] | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.lazy = dict(lazy or {})

    def list_commands(self, ctx: click.Context) -> list[str]:
        """Every command name, sorted."""
        return sorted({*super().list_commands(ctx), *self.lazy})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        """The command, importing its module the first time it is asked for."""
        if cmd_name not in self.commands and cmd_name in self.lazy:
            module, _, attr = self.lazy[cmd_name].partition(":")
            command = getattr(import_module(module), attr)
            if not isinstance(command, click.Command):  # pragma: no cover - a wiring mistake
                raise TypeError(f"{self.lazy[cmd_name]} is not a click command")
            self.add_command(command, cmd_name)
        return super().get_command(ctx, cmd_name)

    def get_short_help_str(self, limit: int = 45) -> str:
        """The first line of the docstring, whole."""
        return Command.get_short_help_str(self, limit)  # type: ignore[arg-type]  # same fields

    def resolve_command(
        self, ctx: click.Context, args: list[str]
    ) -> tuple[str | None, click.Command | None, list[str]]:
        """The command ``args`` name; a misspelt one is refused with the nearest name
        (``odds musket_fire``: did you mean 'musket-fire'?), as a misspelt option is."""
        try:
            return super().resolve_command(ctx, args)
        except click.UsageError as exc:
            if args and exc.message.startswith("No such command"):
                from sim.text.suggest import did_you_mean  # noqa: PLC0415  # the error path

                hint = did_you_mean(args[0], self.list_commands(ctx))
                if hint:
                    raise click.UsageError(f"{exc.message.rstrip('.')}{hint}", exc.ctx) from None
            raise


def stdout_gone(*, unknown: bool) -> bool:
    """Whether stdout is a pipe whose reader has gone (``poll`` says POLLERR or POLLHUP),
    rather than some other pipe of the command's breaking; ``unknown`` where that cannot
    be asked (no poll, or no descriptor: a test's stream)."""
    import select  # noqa: PLC0415

    try:
        poller = select.poll()
        poller.register(sys.stdout.fileno(), select.POLLOUT)
        return any(event & (select.POLLERR | select.POLLHUP) for _, event in poller.poll(0))
    except (AttributeError, OSError, ValueError):
        return unknown


def stdout_to_devnull() -> None:
    """Point stdout's descriptor at the null device: Python's flush at exit finds a stream
    that failed once and would print a second error, or a traceback, for it."""
    import os  # noqa: PLC0415

    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (AttributeError, OSError, ValueError):  # no stdout at all: nothing to flush
        pass


class Real(click.FloatRange):
    """A number option in a range (``click.FloatRange``) that refuses NaN, which every
    comparison of the range lets through (``--alpha nan`` reached the work)."""

    def get_metavar(self, param: click.Parameter, ctx: click.Context) -> str | None:
        """``NUMBER`` after an option that names none (click shows ``FLOAT RANGE``)."""
        return "NUMBER" if isinstance(param, click.Option) else super().get_metavar(param, ctx)

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        number = super().convert(value, param, ctx)
        if isinstance(number, float) and math.isnan(number):
            self.fail(f"{value!r} is not a number", param, ctx)
        return number


class Whole(click.IntRange):
    """A whole-number option or argument (``click.IntRange``): a very long one named by length.

    5,000 digits would otherwise be echoed whole in the error line, or end
    in Python's own integer-conversion limit message.
    """

    def __init__(self, min: int | None = None, max: int | None = None, **kwargs: Any) -> None:
        # no number past a machine index: --context 10**20 ended in Python's OverflowError
        self._unbounded = max is None
        super().__init__(min, sys.maxsize if max is None else max, **kwargs)

    def get_metavar(self, param: click.Parameter, ctx: click.Context) -> str | None:
        """``N`` after an option that names none (click shows ``INTEGER RANGE``); an argument
        is named by its own name (``SEQ``)."""
        return "N" if isinstance(param, click.Option) else super().get_metavar(param, ctx)

    def _describe_range(self) -> str:
        """The bounds for ``--help`` (none said when it has none: click wrote ``x<=None``;
        the machine's largest index, which bounds every unbounded one, is not said)."""
        if self._unbounded:
            return "" if self.min is None else f"x>={self.min}"
        return super()._describe_range()

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if isinstance(value, str) and not value.strip().isascii():  # "３", "١٠": not read as 3, 10
            self.fail(f"{value.strip()!r} is not a whole number in digits 0-9", param, ctx)
        if isinstance(value, str):
            digits = value.strip().lstrip("+-").replace("_", "")
            if len(digits) > _DIGITS_SHOWN and digits.isascii() and digits.isdigit():
                self.fail(f"a {len(digits)}-digit number is out of range", param, ctx)
            huge = self._unbounded and digits.isascii() and digits.isdigit()
            huge = huge and not value.strip().startswith("-")  # below the range: click says so
            if huge and int(digits) > sys.maxsize:
                self.fail(f"{value.strip()} is too large (at most {sys.maxsize})", param, ctx)
        return super().convert(value, param, ctx)


_DIGITS_SHOWN = 40
"""Numbers longer than this are named by their length in an error."""


def seed_value(ctx: click.Context, param: click.Parameter, value: Any) -> int | None:
    """Callback: a seed is a whole number from 0 to 2**63 - 1, else a plain usage error.

    The check is :func:`sim.scenario.values.check_seed`, the API's too.
    """
    del ctx
    if value is None:  # no --seed (completion parses every option so): nothing to import
        return None
    from sim.scenario.values import ValueProblem, check_seed, seed_from_text  # noqa: PLC0415

    try:
        return check_seed(value) if isinstance(value, int) else seed_from_text(str(value))
    except ValueProblem as exc:
        raise click.BadParameter(str(exc), param=param) from None


def seed_option(help_text: str) -> Callable[[F], F]:
    """``--seed SEED``: a whole number from 0 to 2**63 - 1."""
    return click.option("--seed", metavar="SEED", default=None, callback=seed_value, help=help_text)


def readable_file(ctx: click.Context, param: click.Parameter, value: Any) -> Any:
    """Callback: an input file that exists and is a file, else a plain error (exit 2).

    Tab completion parses the words before the cursor too: a file not there (yet) is no
    error there, and the options still complete."""
    if value is None or ctx.resilient_parsing:
        return value
    if value == "":  # no name, not the current folder (": is a folder, not a file")
        fail(f"{param.human_readable_name}: an empty name; give a file")
    path = Path(value)
    if not path.exists():
        from engine.safety.files import missing  # noqa: PLC0415 - only when it is missing

        fail(f"{value}: {missing(path)}")
    if path.is_dir():
        if (path / "study.duckdb").is_file():
            compare = (
                "; to compare two studies, see docs/batch.md, 'Two studies side by side'"
                if ctx.info_name == "diff"
                else ""
            )
            fail(
                f"{value}: a study's folder, not a file (verify, rerun, discover and export "
                f"read a study's folder{compare})"
            )
        fail(f"{value}: a directory, not a regular file")
    return value


def file_argument(name: str, metavar: str | None = None) -> Callable[[F], F]:
    """Argument ``name``: an input file that exists and is a file (:func:`readable_file`).

    Its click type takes a folder too, so that :func:`readable_file` refuses one in its own
    line (``sw: a study's folder, not a file …``), not click's usage error (``Invalid value
    for 'REPLAY': File 'sw' is a directory.``); the shell still completes files."""
    kind = click.Path()
    return click.argument(name, metavar=metavar, type=kind, callback=readable_file)


def default_option(
    *names: str, kind: Any, default: Any, help_text: str, metavar: str | None = None
) -> Callable[[F], F]:
    """An option of click type ``kind`` (a range, a choice) whose default ``--help`` shows,
    as ``[default: 3]`` after its help."""
    return click.option(
        *names, type=kind, default=default, show_default=True, metavar=metavar, help=help_text
    )


def json_option(help_text: str = "Print one JSON object (for scripts).") -> Callable[[F], F]:
    """``--json``: the command's report as one JSON object on stdout."""
    return click.option("--json", "as_json", is_flag=True, help=help_text)


class OutPath(click.Path):
    """A file or a folder a command writes, taken as given: its kind (a folder given for a
    file, a file for a folder) is refused with every other unwritable place by
    :func:`sim.outputs.check_output`, in one line naming the long flag (``--out PATH:
    'PATH' is a folder, not a file``), not in click's usage error. Its kind still names
    the metavar (``FILE``, ``DIRECTORY``) and what the shell completes.

    An empty name (``-o ''``, a shell variable left unset) is no name, neither the default
    nor the current folder: it is refused here, for every command alike."""

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if value in ("", b"") and param is not None and not (ctx and ctx.resilient_parsing):
            takes = {(True, False): "a file", (False, True): "a folder"}.get(
                (self.file_okay, self.dir_okay), "a file or folder"
            )
            if isinstance(param, click.Argument):
                fail(f"{param.human_readable_name}: an empty name; give {takes}")
            flag = max(param.opts, key=lambda o: (o.startswith("--"), len(o)))
            fail(f"{flag}: an empty name; give {takes}, or leave it out")
        return self.coerce_path_result(value)


def out_option(
    help_text: str, *, folder: bool = False, names: tuple[str, ...] = ("-o", "--out")
) -> Callable[[F], F]:
    """``-o/--out`` (or the option ``names``): a file, or a folder, the command writes
    (:class:`OutPath`)."""
    kind = OutPath(file_okay=not folder, dir_okay=folder)
    return click.option(*names, type=kind, default=None, help=help_text)


REPLAY_FORCE = (
    "Overwrite a file at the output path that is not a battlesim replay "
    "(a replay there is replaced without it)."
)
PAGE_FORCE = (
    "Overwrite a file at the output path that is not a page battlesim wrote "
    "(an earlier report or diff page is replaced without it)."
)
FILE_FORCE = (
    "Overwrite a file already at an output path (an earlier run's too: nothing is "
    "replaced without it)."
)
"""``--force`` of a command whose outputs (tables, a plot) are not recognised as its own."""


def force_option(help_text: str = REPLAY_FORCE, flag: str = "--force") -> Callable[[F], F]:
    """``--force``: overwrite an existing file battlesim did not write, or of another kind.

    What battlesim wrote itself (a replay where a replay goes, a page where a
    page goes) is replaced without it; ``help_text`` says so for the command.
    """
    return click.option(flag, "force", is_flag=True, help=help_text)


QUIET = "No progress bar."
"""``-q/--quiet`` of a command whose only progress is its bar (``batch``, ``study``)."""


def quiet_option(help_text: str = QUIET) -> Callable[[F], F]:
    """``-q/--quiet``: no progress on stderr; ``help_text`` says what the command leaves out."""
    return click.option("-q", "--quiet", is_flag=True, help=help_text)


STUDY_OUT = "Output folder (default: the file's outputs.dir, else <file stem> here)."
"""``-o/--out`` of a command that runs a study-like file (``study``, ``calibrate``)."""


@dataclass(frozen=True)
class Execution:
    """What runs a study's battles, as :func:`executor_options` reads it from the command line."""

    jobs: int | None
    executor: str
    scheduler: str | None
    resume: bool
    quiet: bool
    as_json: bool

    def check(self) -> None:
        """Refuse ``--scheduler`` without ``--executor dask``, and more ``--jobs`` than allowed
        here (exit 2)."""
        from sim.batch.execution.executors import JOBS_PER_CPU, max_jobs  # noqa: PLC0415

        if self.scheduler is not None and self.executor != "dask":
            fail("--scheduler needs --executor dask")
        if self.jobs is not None and self.jobs > max_jobs():
            fail(f"--jobs {self.jobs}: at most {max_jobs()} ({JOBS_PER_CPU} per CPU here)")

    @property
    def kind(self) -> Literal["local", "dask"]:
        """The executor: a local process pool, or Dask."""
        return "dask" if self.executor == "dask" else "local"

    @property
    def workers(self) -> int:
        """``--jobs``, or by default every CPU this process may use."""
        from sim.batch.execution.executors import default_jobs  # noqa: PLC0415

        return self.jobs or default_jobs()


def executor_options(
    resume_help: str, json_help: str, quiet_help: str = QUIET
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """What runs a study's battles: ``--jobs``, ``--executor``, ``--scheduler``, ``--resume``,
    ``-q/--quiet`` and ``--json`` (``batch``, ``study``, ``calibrate``), handed to the
    command as one :class:`Execution` named ``execution``."""
    options = [
        click.option(
            "--jobs",
            "-j",
            type=Whole(1),
            default=None,
            help="Worker processes (default: every CPU this process may use).",
        ),
        default_option(
            "--executor",
            kind=click.Choice(["local", "dask"]),
            default="local",
            help_text="local: a process pool here; dask: a Dask LocalCluster, or --scheduler's.",
        ),
        click.option(
            "--scheduler",
            metavar="ADDRESS",
            default=None,
            help="An existing Dask scheduler, e.g. tcp://host:8786 (with --executor dask).",
        ),
        click.option("--resume", is_flag=True, help=resume_help),
        quiet_option(quiet_help),
        json_option(json_help),
    ]

    def decorate(f: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(f)
        def command(**kwargs: Any) -> Any:
            given = {field.name: kwargs.pop(field.name) for field in fields(Execution)}
            return f(**kwargs, execution=Execution(**given))

        for option in reversed(options):
            command = option(command)
        return command

    return decorate
