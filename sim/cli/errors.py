"""The one place where a failure becomes a message and an exit code.

Every command runs inside :class:`GuardedGroup`: whatever a command does not
handle itself ends as one line on stderr and exit 2 ("bad input"), never a
traceback and never exit 1, which means "damaged" or "differs" and which
scripts rely on.  Everything printed passes through :class:`SafeText`, so a
control character from a file name or a forged replay cannot drive the
terminal.
"""

from __future__ import annotations

import contextlib
import errno
import sys
from collections.abc import Callable, Iterator
from typing import IO, Any

import click
from pydantic import ValidationError

from engine.replayfile.reader import ReplayError
from engine.safety.files import FileProblem
from engine.safety.strictjson import StrictJSONError
from engine.safety.text import escape, one_line
from sim.cli import common
from sim.cli.interrupts import pending
from sim.contract import HookError
from sim.scenario.values import ValueProblem

__all__ = [
    "EXTRAS",
    "GuardedGroup",
    "SafeText",
    "describe",
    "missing_extra",
    "run_guarded",
    "safe_streams",
]


class SafeText:
    """A text stream wrapper that escapes control characters.

    See :func:`engine.safety.text.escape`.
    """

    def __init__(self, stream: IO[str] | None, name: str = "standard output") -> None:
        self._stream = stream
        self._name = name

    def write(self, text: str) -> int:
        if self._stream is None:  # the shell closed it (``>&-``)
            raise OSError(errno.EBADF, "it is closed", self._name)
        try:
            return self._stream.write(escape(text))
        except OSError as exc:  # a full disk (``> /dev/full``): the line names the stream
            if exc.filename is None:
                exc.filename = self._name
            raise

    def flush(self) -> None:
        if self._stream is None:
            return
        try:
            self._stream.flush()
        except OSError as exc:
            if exc.filename is None:
                exc.filename = self._name
            raise

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


@contextlib.contextmanager
def safe_streams() -> Iterator[None]:
    """Escape control characters in everything written to stdout and stderr meanwhile."""
    saved = sys.stdout, sys.stderr
    sys.stdout = SafeText(saved[0])  # a duck-typed text stream
    sys.stderr = SafeText(saved[1], "standard error")
    try:
        yield
    finally:
        sys.stdout, sys.stderr = saved


def _one_line(text: str) -> str:
    return " ".join(text.split()) or "no details"


def describe(exc: BaseException) -> str:
    """One line naming the file (when known) and what went wrong."""
    if isinstance(exc, ReplayError):
        return str(exc)
    if isinstance(exc, OSError):
        where = exc.filename if exc.filename is not None else ""
        what = exc.strerror or _one_line(str(exc))
        return f"{where}: {what}" if where else what
    if isinstance(exc, ValidationError):
        err = exc.errors()[0]
        loc = ".".join(str(p) for p in err["loc"])
        return f"{loc}: {err['msg']}" if loc else str(err["msg"])
    if isinstance(exc, RecursionError):
        return "input nested too deeply"
    if isinstance(exc, MemoryError):
        return "input too large for memory"
    if isinstance(exc, FileProblem | StrictJSONError | HookError | ValueProblem):
        return _one_line(str(exc))
    said = _one_line(str(exc))
    if len(said) > UNKNOWN_CHARS:  # an unforeseen error may carry a hostile value whole
        said = f"{said[: UNKNOWN_CHARS - 1]}… ({len(said):,} characters)"
    return f"{type(exc).__name__}: {said}"


UNKNOWN_CHARS = 400
"""The most of an unforeseen error's message a line echoes: its start and its length."""


EXTRAS = {
    "numpy": "study",
    "scipy": "study",
    "duckdb": "study",
    "matplotlib": "study",
    "SALib": "study",
    "statsmodels": "study",
    "optuna": "study",
    "sklearn": "study",
    "pandas": "notebook",
    "pyarrow": "notebook",
    "dask": "dask",
    "distributed": "dask",
}
"""Top-level module -> the extra of pyproject.toml that installs it (``make run`` installs none)."""


def missing_extra(exc: ModuleNotFoundError) -> str | None:
    """The extra to install for a missing optional library, or None for any other module."""
    return EXTRAS.get(_top(exc))


def _top(exc: ModuleNotFoundError) -> str:
    return (exc.name or "").split(".", 1)[0]


BROKEN_PIPE = 141
"""Exit status when stdout's reader has gone (``| head``): 128 + SIGPIPE, as a shell reports."""


def _reader_gone(ctx: click.Context) -> None:
    """Stop quietly: nobody reads stdout any more, so nothing is wrong with the input."""
    common.stdout_to_devnull()
    ctx.exit(BROKEN_PIPE)


def _note_broken_rulesets() -> None:
    """One note on stderr for each plugin a command that reads every ruleset had to leave out."""
    registry = sys.modules.get("sim.contract.registry")  # never imported just for this
    for line in registry.broken() if registry is not None else ():
        click.echo(f"battlesim: note: {line}", err=True)


def _signal_instead(exc: BaseException) -> None:
    """Raise the interrupt of a Ctrl-C or SIGTERM that came while the command ran, if one did
    (:func:`sim.cli.interrupts.pending`), in place of ``exc``: the command ends as that signal
    ends it (130, 143), not as an error."""
    interrupt = pending()
    if interrupt is not None:
        raise interrupt from exc


def run_guarded(ctx: click.Context, invoke: Callable[[], Any]) -> Any:
    """Run a group's ``invoke``: escaped output, and any unhandled error one line, exit 2."""
    with safe_streams():
        try:
            return invoke()
        except click.exceptions.NoArgsIsHelpError:
            raise  # a group asked for with no command: its help, as written (lines and all)
        except click.ClickException as exc:
            # A file name's newline starts no line of its own (``message`` is Final in the stubs).
            vars(exc)["message"] = one_line(exc.message)
            raise
        except (click.exceptions.Exit, click.Abort, SystemExit):
            raise
        except KeyboardInterrupt:
            raise
        except BrokenPipeError as exc:
            if common.stdout_gone(unknown=True):  # else another pipe of the command's
                _reader_gone(ctx)
            _signal_instead(exc)  # a pool's pipe, closed by a Ctrl-C or SIGTERM
            # another pipe (a worker pool's): an error like any other, not a reader gone
            click.echo(f"battlesim: error: {one_line(describe(exc))}", err=True)
            ctx.exit(2)
        except ModuleNotFoundError as exc:
            extra = missing_extra(exc)
            if extra is None:
                click.echo(f"battlesim: error: {describe(exc)}", err=True)
            else:
                command = ctx.invoked_subcommand or "this command"
                click.echo(
                    f"battlesim: error: battlesim {command} needs {_top(exc)}, which a lean "
                    f"install (make run) leaves out: pip install 'battlesim[{extra}]' "
                    "(or make dev)",
                    err=True,
                )
            ctx.exit(2)
        except Exception as exc:
            _signal_instead(exc)  # an error a library made of Ctrl-C or SIGTERM
            click.echo(f"battlesim: error: {one_line(_unhandled(exc))}", err=True)
            ctx.exit(2)
        finally:
            _note_broken_rulesets()


_SAID = (ReplayError, OSError, ValidationError, RecursionError, MemoryError, FileProblem,
         StrictJSONError, HookError, ValueProblem)  # fmt: skip
"""Errors :func:`describe` words itself: they name their file, field or ruleset."""


def _where(exc: Exception) -> str:
    """Where an error of no known kind was raised, ``" (at file.py:LINE)"``, when that is
    outside battlesim: a plugin's process or apply raising (``ValueError: apply broke``)
    is found in its own code. battlesim's own errors say what they mean without it."""
    if isinstance(exc, ValidationError):
        return _built_at(exc)
    if isinstance(exc, _SAID):
        return ""
    from sim.contract.ruleset import raised_outside  # noqa: PLC0415 - when something broke

    return raised_outside(exc)


def _unhandled(exc: Exception) -> str:
    """An error no command handled, in one line: what it is and where it was raised; for
    one a ruleset's code raised in a battle, the ruleset, process and turn first, then the
    error in its own words (a RecursionError there is the rules', not nested input)."""
    where = _in_battle(exc)
    if where is None:
        return describe(exc) + _where(exc)
    if isinstance(exc, ValidationError):
        return f"{where}: {describe(exc)}{_where(exc)}"
    from sim.contract.ruleset import raised_outside  # noqa: PLC0415 - when something broke

    return f"{where}: {type(exc).__name__}: {_one_line(str(exc))}{raised_outside(exc)}"


def _in_battle(exc: Exception) -> str | None:
    """``ruleset 'x', the process of unit 'u', turn 3`` for an error a ruleset's code raised
    while a battle was fought (:func:`sim.runner.raised_where`); None for any other, and
    for a hook's error, which names its ruleset and hook."""
    if isinstance(exc, HookError):
        return None
    from sim.runner import raised_where  # noqa: PLC0415 - when something broke

    where = raised_where(exc)
    return None if where is None else str(where)


def _built_at(exc: ValidationError) -> str:
    """For a model a plugin built with a wrong value (an event's ``int`` field given 5.5):
    ``" (building Combat, at rules.py:88)"``, the innermost place outside pydantic, when
    that is outside battlesim; battlesim's own validation errors name their file or field."""
    from sim.contract.ruleset import built_in, ours, place_name  # noqa: PLC0415 - when it broke

    place = built_in(exc)
    if place is None or ours(place[0]):
        return ""
    return f" (building {exc.title}, at {place_name(place[0])}:{place[1]})"


class GuardedGroup(click.Group):
    """A click group whose commands never end in a traceback or an unplanned exit 1."""

    def invoke(self, ctx: click.Context) -> Any:
        return run_guarded(ctx, lambda: super(GuardedGroup, self).invoke(ctx))
