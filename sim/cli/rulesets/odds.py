"""``battlesim odds`` subcommands: one per exact-odds resolution of every installed ruleset.

A ruleset lists its resolutions in ``Ruleset.odds`` (:mod:`sim.contract.odds`);
this module turns each into a click command and imports no ruleset itself —
it asks the registry (:func:`sim.contract.get_ruleset`).  Loaded only when
the ``odds`` group lists or runs its commands (the group lives in
:mod:`sim.cli.main`).

Command names: rulesets are taken built-in first (in the order of
:data:`sim.contract.BUILTIN`), then plugins by name.  A resolution's command
is its own name unless an earlier ruleset's resolution has that name; then it
is ``<ruleset>.<name>`` — a name no resolution has (they have no dot), nor
any other ruleset (their names are unique).  A ruleset offering one name twice
is refused: the listing fails with one line naming it.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import click

from sim.cli.common import Command, Whole

if TYPE_CHECKING:
    from sim.contract import OddsParam, OddsResolution

__all__ = ["command", "command_names", "odds_commands"]


def command_names(offers: list[tuple[str, list[str]]]) -> dict[str, tuple[str, str]]:
    """Command name -> (ruleset, resolution) for each ruleset's resolution names, in order.

    ``offers`` is ``[(ruleset, [resolution name, ...]), ...]`` in precedence
    order; see the module's docstring for the rule.

    Raises:
        LookupError: a ruleset offers the same name twice.
    """
    out: dict[str, tuple[str, str]] = {}
    for ruleset, names in offers:
        twice = sorted({n for n in names if names.count(n) > 1})
        if twice:
            raise LookupError(f"ruleset {ruleset!r} offers the odds command {twice[0]!r} twice")
        for name in names:
            out[name if name not in out else f"{ruleset}.{name}"] = (ruleset, name)
    return out


def odds_commands() -> dict[str, click.Command]:
    """One click command per resolution of every installed ruleset, by command name."""
    from sim.contract import BUILTIN, loaded_rulesets  # noqa: PLC0415

    installed = {r.name: r for r in loaded_rulesets()}  # a broken plugin is left out, noted
    order = [n for n in BUILTIN if n in installed] + [n for n in installed if n not in BUILTIN]
    offered = {n: installed[n].odds for n in order}
    names = command_names([(n, [r.name for r in odds]) for n, odds in offered.items()])
    each = {(n, r.name): r for n, odds in offered.items() for r in odds}
    return {name: command(each[key], name, key[0]) for name, key in names.items()}


def command(resolution: OddsResolution, name: str, ruleset: str | None = None) -> click.Command:
    """The click command ``name`` of one resolution: its options, ``--json``, and its help.

    ``compute`` is the ruleset's code: an error of its other than ``OddsInputError``, or a
    result that is not an ``OddsResult`` of text lines and a JSON object, is a
    :class:`~sim.contract.HookError` naming the ruleset (``ruleset``, when given), the
    command and where it was raised, as every other hook's is.
    """
    hook = f"odds {resolution.name}"

    def run(json_: bool, **values: Any) -> None:
        from sim.contract import HookError, OddsInputError  # noqa: PLC0415

        owner = ruleset if ruleset is not None else "?"
        try:
            result = resolution.compute(values)
        except OddsInputError as exc:
            raise click.UsageError(str(exc)) from None
        except Exception as exc:
            raise HookError.raised(owner, hook, exc, fn=resolution.compute) from exc
        wrong = _wrong_result(result, json_)
        if wrong is not None:
            raise HookError(f"ruleset {owner!r}: {hook} returned {wrong}")
        if json_:
            click.echo(json.dumps(result.data))
            return
        for line in result.lines:
            click.echo(line)

    params: list[click.Parameter] = [_option(p) for p in resolution.params]
    params.append(click.Option(["--json", "json_"], is_flag=True, help="Print one JSON object."))
    return _OddsCommand(name, params=params, callback=run, help=_help(resolution, name))


class _OddsCommand(Command):
    """An odds command, whose options each take one value: given twice, the first was
    dropped (click keeps the last), so ``--modifier -40 --modifier 10`` computed the +10
    volley alone, where the docs ask for the sum of the modifiers; refused, one line (which
    asks for that sum of a modifier only)."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        """``args`` parsed, after refusing an option given more than once."""
        for param in self.params:
            if not isinstance(param, click.Option) or param.is_flag or param.multiple:
                continue
            given = [a for a in args if any(a == o or a.startswith(f"{o}=") for o in param.opts)]
            if len(given) > 1:
                # the sum is advice for a modifier alone: two --thac0 or --factors have none
                summed = (
                    " (several modifiers: their sum)" if "modifier" in (param.name or "") else ""
                )
                raise click.UsageError(
                    f"{param.opts[0]} is given {len(given)} times: give it once{summed}",
                    ctx=ctx,
                )
        return super().parse_args(ctx, args)


def _wrong_result(result: Any, as_json: bool) -> str | None:
    """What is wrong with a ``compute``'s result for the text or the ``--json`` it prints."""
    from sim.contract import OddsResult  # noqa: PLC0415

    if not isinstance(result, OddsResult):
        return f"{type(result).__name__}, not OddsResult"
    if as_json:
        if not isinstance(result.data, dict):
            return f"data of {type(result.data).__name__}, not a dict"
        try:
            json.dumps(result.data, allow_nan=False)
        except (TypeError, ValueError) as exc:
            return f"data that is not plain JSON ({exc})"
        return None
    if not isinstance(result.lines, tuple | list):
        return f"lines of {type(result.lines).__name__}, not a tuple of str"
    for i, line in enumerate(result.lines):
        if not isinstance(line, str) or "\n" in line:
            what = type(line).__name__ if not isinstance(line, str) else "text with a newline"
            return f"lines whose item {i} is {what}, not one line of str"
    return None


def _help(resolution: OddsResolution, name: str) -> str:
    """Summary, description, then the examples as ``battlesim odds <name> <arguments>``."""
    heading = "Example:" if len(resolution.examples) == 1 else "Examples:"
    examples = "\n".join(f"  battlesim odds {name} {e}" for e in resolution.examples)
    parts = [resolution.summary, resolution.description, f"\b\n{heading}\n{examples}"]
    return "\n\n".join(p for p in parts if p)


def _option(p: OddsParam) -> click.Option:
    """The click option of one parameter (click words the errors of integers and choices)."""
    shown = p.default is not None and (p.kind != "flag" or p.negatable)
    common: dict[str, Any] = {"help": p.help, "required": p.required, "show_default": shown}
    if p.default is not None and p.kind in ("integer", "choice"):
        common["default"] = p.default  # no default=None: click would take None as given
    if p.kind == "flag":
        decl = f"{p.option}/--no-{p.option[2:]}" if p.negatable else p.option
        return click.Option([decl, p.name], is_flag=True, default=bool(p.default), **common)
    if p.kind == "integer":
        low, high = (None if b is None else int(b) for b in (p.low, p.high))
        bounded = low is not None or high is not None
        kind = Whole(low, high) if bounded else Whole()
        return click.Option([p.option, p.name], type=kind, metavar=p.metavar or "N", **common)
    if p.kind == "choice":
        return click.Option([p.option, p.name], type=click.Choice(list(p.choices)), **common)
    if p.default is not None:
        common["default"] = str(p.default)
    # not click's TEXT for a number; a text's own word when it names one (TABLE)
    metavar = p.metavar or ("NUMBER" if p.kind == "exact" else None)
    return click.Option([p.option, p.name], callback=_reader(p), metavar=metavar, **common)


def _reader(p: OddsParam) -> Any:
    """The callback reading an exact or text parameter's word (None when not given)."""

    def read(ctx: click.Context, param: click.Parameter, value: str | None) -> Any:
        del ctx
        if value is None:
            return None
        try:
            return p.read(value)
        except ValueError as exc:
            raise click.BadParameter(str(exc), param=param) from None

    return read
