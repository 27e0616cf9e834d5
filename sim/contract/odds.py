"""Exact odds: how a ruleset offers ``battlesim odds`` commands, without click.

A ruleset lists in ``Ruleset.odds`` the single resolutions it can give the
exact odds of (one volley, one attack roll), each an :class:`OddsResolution`:
a command name, a summary line and examples for its ``--help``, typed
parameters (:class:`OddsParam`, each one ``--option``) and a ``compute``
function from the parameters' values to an :class:`OddsResult` — the text
lines to print and the JSON object for ``--json``.  ``battlesim odds`` builds
one command per resolution of every installed ruleset (``sim/cli/rulesets/odds.py``);
nothing here knows about the command line.

Numbers of kind ``"exact"`` are read exactly, as :class:`~fractions.Fraction`
(:func:`read_exact`), and bounded by :data:`LARGEST`.  ``docs/rulesets.md``,
"Exact odds: the ``odds`` hook", has an example.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Literal

__all__ = [
    "LARGEST",
    "OddsInputError",
    "OddsParam",
    "OddsResolution",
    "OddsResult",
    "ParamKind",
    "distribution_json",
    "distribution_table",
    "read_exact",
]

ParamKind = Literal["exact", "integer", "flag", "choice", "text"]
"""What a parameter's value is: see :class:`OddsParam`."""

LARGEST = 10**9
"""Bound on exact numbers: no table of these rules comes near it, and 1e308 would run forever."""

RESERVED = ("help", "json")
"""Parameter names every odds command has already (``--help``, ``--json``)."""

_COMMAND = re.compile(r"^[a-z][a-z0-9]*(-[a-z0-9]+)*$")
_PARAM = re.compile(r"^[a-z][a-z0-9]*(_[a-z0-9]+)*$")
_METAVAR = re.compile(r"^[A-Z][A-Z0-9]*([_-][A-Z0-9]+)*$")


class OddsInputError(ValueError):
    """Inputs the rules refuse (``compute`` raises it); the command prints it, exit 2."""


def read_exact(text: str) -> Fraction:
    """Read a decimal number or fraction exactly (``-40``, ``12.5``, ``1/3``); a minus sign
    as typeset (``−40``, U+2212, as the docs print it) is a minus.

    Raises:
        OddsInputError: not a number, or larger than :data:`LARGEST` in size
            or in denominator.
    """
    try:
        number = Fraction(text.replace("\u2212", "-"))
    except (ValueError, ZeroDivisionError):
        bare = text.strip().removesuffix("%").strip()
        if bare != text.strip() and bare:
            raise OddsInputError(
                f"{text!r} is not a number: write it without '%' ({bare})"
            ) from None
        raise OddsInputError(f"{text!r} is not a number") from None
    if abs(number) > LARGEST or number.denominator > LARGEST:
        raise OddsInputError(
            f"{text!r} is out of range (at most {LARGEST:.0e} in size, or as fine)"
        )
    return number


Default = Fraction | int | bool | str | None


@dataclass(frozen=True)
class OddsParam:
    """One parameter of a resolution: the option ``--<name, _ as ->`` of its command.

    Attributes:
        name: a snake_case word, the key of its value in ``compute``'s mapping;
            the option is the name with ``-`` for ``_`` (``target_artillery``
            is ``--target-artillery``). Not ``help`` or ``json``.
        kind: ``"exact"`` a number read exactly (a :class:`Fraction`, bounded
            by :data:`LARGEST`); ``"integer"`` an ``int``; ``"flag"`` a
            ``bool``; ``"choice"`` one of ``choices`` (a ``str``); ``"text"``
            the word as given, passed through ``parse`` when there is one.
        help: one sentence for ``--help``.
        default: the value when the option is not given (shown in ``--help``);
            None: the value is None, or the option must be given if ``required``.
            A flag's default is a ``bool`` (False unless ``negatable``).
        required: the option must be given.
        low, high: inclusive bounds of an ``"exact"`` or ``"integer"`` value.
        choices: the words a ``"choice"`` takes.
        negatable: a flag that is ``--name/--no-name`` (needed for a default of True).
        parse: for ``"text"``: the word to its value; raises ``ValueError``
            with the one-line message for a bad word.
        metavar: the upper-case word ``--help`` shows for the value (``--hit-table
            TABLE``); None: ``NUMBER`` for an exact, ``N`` for an integer, ``TEXT``
            for a text. A flag takes no value and a choice shows its choices: neither
            has one.
    """

    name: str
    kind: ParamKind
    help: str
    default: Default = None
    required: bool = False
    low: Fraction | int | None = None
    high: Fraction | int | None = None
    choices: tuple[str, ...] = ()
    negatable: bool = False
    parse: Callable[[str], Any] | None = None
    metavar: str | None = None

    def __post_init__(self) -> None:
        """Refuse a parameter no command could offer (at import, where the author sees it)."""
        problem = _param_problem(self)
        if problem:
            raise ValueError(f"odds parameter {self.name!r}: {problem}")

    @property
    def option(self) -> str:
        """The command-line option: ``--`` and the name with ``-`` for ``_``."""
        return "--" + self.name.replace("_", "-")

    def read(self, text: str) -> Any:
        """The value of the word given for an ``"exact"`` or ``"text"`` parameter.

        Raises:
            ValueError: the one-line message for a bad word (not a number,
                out of bounds, or what ``parse`` refuses).
        """
        if self.kind == "text":
            return self.parse(text) if self.parse is not None else text
        if self.kind != "exact":
            raise TypeError(f"odds parameter {self.name!r} of kind {self.kind} is not read")
        number = read_exact(text)
        if not _within(self, number):
            raise OddsInputError(f"{text!r} is not in the range {_range(self)}")
        return number


_DEFAULT_TYPES: dict[str, type | tuple[type, ...]] = {
    "exact": (Fraction, int),
    "integer": int,
    "flag": bool,
    "choice": str,
    "text": str,
}


def _of_kind(p: OddsParam, value: object) -> bool:
    """Whether a default is a value of the parameter's kind (a bool is a flag's only)."""
    if isinstance(value, bool):
        return p.kind == "flag"
    return isinstance(value, _DEFAULT_TYPES[p.kind])


def _within(p: OddsParam, value: Any) -> bool:
    """Whether a value is within the parameter's bounds (inclusive)."""
    return (p.low is None or value >= p.low) and (p.high is None or value <= p.high)


def _range(p: OddsParam) -> str:
    """The bounds as click words them: ``1<=x<=15``, ``x>=0``, ``x<=9``."""
    low = f"{p.low}<=" if p.low is not None else ""
    high = f"<={p.high}" if p.high is not None else ""
    return f"{low}x{high}" if low and high else f"x>={p.low}" if low else f"x{high}"


def _param_problem(p: OddsParam) -> str | None:
    """What is wrong with a parameter, or None."""
    return _shape_problem(p) or _default_problem(p)


def _shape_problem(p: OddsParam) -> str | None:
    """What is wrong with a parameter's name, kind and the fields its kind takes, or None."""
    if not _PARAM.match(p.name) or p.name in RESERVED:
        return "a name is a snake_case word, not help or json"
    if (p.low is not None or p.high is not None) and p.kind not in ("exact", "integer"):
        return "bounds are for exact and integer parameters"
    if p.kind == "integer" and not all(isinstance(b, int | None) for b in (p.low, p.high)):
        return "an integer's bounds are whole numbers"
    if p.low is not None and p.high is not None and p.low > p.high:
        return f"low {p.low} is above high {p.high}"
    if bool(p.choices) != (p.kind == "choice"):
        return "a choice parameter, and only one, has choices"
    if p.kind == "flag" and p.required:
        return "a flag is never required"
    if p.negatable and p.kind != "flag":
        return "only a flag is negatable"
    if p.parse is not None and p.kind != "text":
        return "only a text parameter has parse"
    return _metavar_problem(p)


def _metavar_problem(p: OddsParam) -> str | None:
    """What is wrong with a parameter's metavar, or None."""
    if p.metavar is None:
        return None
    if p.kind == "flag":
        return "a flag takes no value: it has no metavar"
    if p.kind == "choice":
        return "a choice shows its choices: it has no metavar"
    if not _METAVAR.match(p.metavar):
        return f"metavar {p.metavar!r} is not an upper-case word (TABLE, N)"
    return None


def _default_problem(p: OddsParam) -> str | None:
    """What is wrong with a parameter's default, or None."""
    if p.default is None:
        return None
    if p.required:
        return "a required parameter has no default"
    if not _of_kind(p, p.default):
        return f"default {p.default!r} is not a value of kind {p.kind}"
    if p.kind == "choice" and p.default not in p.choices:
        return f"default {p.default!r} is not one of its choices"
    if p.kind != "flag" and not _within(p, p.default):
        return f"default {p.default} is out of its bounds"
    if p.default is True and not p.negatable:
        return "a flag that defaults to True must be negatable"
    return None


@dataclass(frozen=True)
class OddsResult:
    """What one resolution's odds print.

    Attributes:
        lines: the text, one line each (without newlines).
        data: the ``--json`` object, printed with :func:`json.dumps` in its own key order.
    """

    lines: tuple[str, ...]
    data: dict[str, Any]


@dataclass(frozen=True)
class OddsResolution:
    """One single resolution a ruleset gives exact odds of: one ``battlesim odds`` command.

    Attributes:
        name: the command name, lowercase words joined by ``-`` (``musket-fire``).
        summary: the one-line summary of its ``--help`` and of the ``odds`` listing.
        params: its parameters, in the order ``--help`` lists them (``--json``
            follows them).
        compute: the values of the parameters, by name, to the result; raises
            :class:`OddsInputError` for inputs the rules refuse.
        examples: the arguments after the command name of one or more
            examples (``"--value 1800 --modifier -40"``); ``--help`` shows each
            as ``battlesim odds <command> <arguments>``.
        description: more text for ``--help``, between the summary and the examples.
    """

    name: str
    summary: str
    params: tuple[OddsParam, ...]
    compute: Callable[[Mapping[str, Any]], OddsResult]
    examples: tuple[str, ...]
    description: str = ""

    def __post_init__(self) -> None:
        """Refuse a resolution no command could offer."""
        names = [p.name for p in self.params]
        if not _COMMAND.match(self.name):
            problem = "a name is lowercase words joined by '-'"
        elif not self.summary.strip() or "\n" in self.summary.strip():
            problem = "the summary is one line"
        elif len(set(names)) != len(names):
            problem = "two parameters have the same name"
        elif not self.examples:
            problem = "--help needs at least one example"
        else:
            return
        raise ValueError(f"odds resolution {self.name!r}: {problem}")


def distribution_table(
    dist: Mapping[int, Fraction] | Mapping[str, Fraction], label: str
) -> tuple[str, ...]:
    """A distribution as text: a header, then each outcome's probability, cumulative and bar.

    The bar is ``round(60 × p)`` ``#``; ``label`` heads the outcome column, at least 10
    wide and as wide as its longest outcome. Whole-number outcomes are written with thousands
    separators (``25,500``). Outcomes in words (``"attacker recoils"``)
    have no order to accumulate over: their table has no cumulative column.
    """
    numbers = all(isinstance(k, int | Fraction) and not isinstance(k, bool) for k in dist)
    shown = {k: f"{k:,}" if isinstance(k, int) and numbers else str(k) for k in dist}
    width = max([10, len(label), *(len(text) for text in shown.values())])
    lines = [f"{label:>{width}}  {'probability':>11}" + (f"  {'cumulative':>10}" * numbers)]
    cumulative = Fraction(0)
    for k, p in dist.items():
        cumulative += p
        bar = "#" * round(60 * float(p))
        running = f"  {float(cumulative):>10.6f}" if numbers else ""
        lines.append(f"{shown[k]:>{width}}  {float(p):>11.6f}{running}  {bar}")
    return tuple(lines)


def distribution_json(dist: Mapping[int, Fraction] | Mapping[str, Fraction]) -> dict[str, Any]:
    """The JSON keys ``distribution``, ``exact``, ``mean`` and ``mean_exact`` of a distribution.

    Outcomes are string keys; ``exact`` and ``mean_exact`` are ``"p/q"`` strings. Outcomes
    in words (``"attacker recoil"``) have no mean: ``mean`` and ``mean_exact`` are left
    out unless every outcome is a number (an ``int`` or a ``Fraction``).
    """
    out: dict[str, Any] = {
        "distribution": {str(k): float(p) for k, p in dist.items()},
        "exact": {str(k): str(p) for k, p in dist.items()},
    }
    if all(isinstance(k, int | Fraction) and not isinstance(k, bool) for k in dist):
        mean = sum((k * p for k, p in dist.items()), Fraction(0))  # type: ignore[operator]
        out["mean"], out["mean_exact"] = float(mean), str(mean)
    return out
