"""A value typed on the command line (``fork --set``, ``--sweep``): plain data, bounded, acyclic.

Every such value passes through :func:`parse_value` and nothing else: the
text is read as YAML by the scenario loader (:func:`sim.scenario.load.parse_yaml`:
standard scalar tags only, nesting at most :data:`~sim.scenario.load.MAX_DEPTH`
deep, no control characters), with two more bounds a value on a command line
never needs to pass: no aliases (``&a [*a]`` is a cycle, ``[*a, *a, …]`` an
explosion), and at most :data:`MAX_VALUES` values in all.  Integers must fit
a replay (−2⁶³ … 2⁶⁴−1, :mod:`engine.safety.strictjson`).  The result is a fresh
tree of ``None``, ``bool``, ``int``, ``float``, ``str`` and lists (mappings
where the caller allows them), so no later walk over it can loop.
"""

from __future__ import annotations

import numbers
import operator
import re
import shlex
from typing import Any

import yaml

from engine.safety.strictjson import INT_MAX, INT_MIN
from engine.safety.text import CONTROL
from sim.scenario.load import (
    COLON_HINT,
    MAX_DEPTH,
    TAB_HINT,
    UNQUOTE_HINT,
    ScenarioError,
    parse_yaml,
    quote_hint,
)

__all__ = [
    "MAX_VALUES",
    "SEED_MAX",
    "ValueProblem",
    "check_name",
    "check_seed",
    "check_seq",
    "check_turn",
    "for_the_shell",
    "parse_value",
    "seed_from_text",
    "shown_typed",
    "turn_number",
    "typed_number",
    "whole",
]

MAX_VALUES = 10_000
"""Scalars, lists and mappings one command-line value may hold."""


class ValueProblem(ValueError):
    """A command-line value that is not bounded plain data; the message says why."""


def parse_value(text: str) -> Any:
    """``text`` read as one YAML value: plain data, no aliases, bounded in size and depth.

    Raises:
        ValueProblem: not valid YAML, an alias, too many values, nested too
            deep, a tag, a control character, or an integer beyond a replay's range.
    """
    count = depth = 0
    try:
        for event in yaml.parse(text, Loader=yaml.SafeLoader):
            if isinstance(event, yaml.AliasEvent):
                raise ValueProblem(f"aliases (*{event.anchor}) are not allowed in a value")
            if isinstance(event, yaml.NodeEvent):
                count += 1
                if count > MAX_VALUES:
                    raise ValueProblem(f"too large: more than {MAX_VALUES} values")
            if isinstance(event, yaml.CollectionStartEvent):
                depth += 1
                if depth > MAX_DEPTH:
                    # parse_yaml refuses it as too deep; PyYAML's scanner takes time
                    # quadratic in the open levels, so reading on to the count's bound
                    # ("[" * 50,000) took 10 CPU s
                    break
            elif isinstance(event, yaml.CollectionEndEvent):
                depth -= 1
    except yaml.YAMLError:
        pass  # parse_yaml names the problem and its place
    try:
        value, _ = parse_yaml(text, "value")
    except ScenarioError as exc:
        raise ValueProblem(exc.problems[0].message) from None
    _check_range(value)
    return value


def shown_typed(text: str) -> str:
    """``text`` typed on a command line, quoted as an error line echoes it: whole up to 60
    characters, else its start and its length (``'99999…... (100000 characters)'``), so a
    huge value's error stays one readable line (``--set``, ``--sweep``)."""
    return repr(_cut(text))


def _cut(text: str) -> str:
    """``text`` whole up to 60 characters, else its first 40 and its length (``99999...
    (100000 characters)``): how a typed value is echoed, in quotes or in advice."""
    return text if len(text) <= 60 else f"{text[:40]}... ({len(text)} characters)"


def typed_number(text: str) -> str | None:
    """The text a value typed as one number was written in (``08``, ``1e3``), which YAML reads
    as another (8, 1000.0); None for anything else. A refusal that says to quote it quotes
    what was typed, as a file's quotes what the file says (:class:`~sim.scenario.load.Lines`)."""
    try:
        _, lines = parse_yaml(text, "value")
    except ScenarioError:
        return None
    return getattr(lines, "texts", {}).get(())


_QUOTE = re.compile(re.escape(quote_hint("@")).replace("@", "(.*)") + "$")
"""A file's advice to quote a value, at a message's end (the value as written in group 1)."""

_IN_SHELL_QUOTES = "inside the shell's quotes (the shell takes those off)"


def for_the_shell(message: str, flag: str, value: Any) -> str:
    """``message`` with its advice on quoting said for a value typed on a command line.

    The scenario loader words it for a YAML file (:data:`~sim.scenario.load.TAB_HINT`,
    :data:`~sim.scenario.load.COLON_HINT`, :func:`~sim.scenario.load.quote_hint`,
    :data:`~sim.scenario.load.UNQUOTE_HINT`); on a command line the shell takes off its own
    quotes before battlesim reads the value, so quotes YAML must see go inside them, and the
    advice shows the flag so typed: ``quote it, inside the shell's quotes (the shell takes
    those off): --set sides.csa.name="'1862'"``. A message with no such advice is returned
    as it is.

    Args:
        message: the value's problem, in the loader's words.
        flag: the option and the field path as typed (``--set sides.csa.name``).
        value: the value as battlesim read it (the text YAML could not read, or took as text).
    """
    quoted = _QUOTE.search(message)
    if quoted is not None:
        # the loader wrote the value as the message echoes it, a long one cut already
        typed = _typed(flag, quoted[1], in_yaml_quotes=True, cut=False)
        return f"{message[: quoted.start()]}quote it, {_IN_SHELL_QUOTES}: {typed}"
    if message.endswith(UNQUOTE_HINT) and isinstance(value, str):
        return f"{message} inside the shell's: {_typed(flag, value)}"
    colon, tab = f"({COLON_HINT})", f"({TAB_HINT})"
    if message.endswith(colon) and isinstance(value, str):
        typed = _typed(flag, value, in_yaml_quotes=True)
        return (
            f"{message.removesuffix(colon)}(a value that holds ': ' reads as a 'key:': quote it, "
            f"{_IN_SHELL_QUOTES}: {typed})"
        )
    if message.endswith(tab):
        return (
            f"{message.removesuffix(tab)}(a tab: YAML takes one in a value only inside quotes: "
            f"quote the value, {_IN_SHELL_QUOTES}, or write spaces)"
        )
    return message


def _yaml_quoted(text: str) -> str:
    """``text`` in YAML's single quotes (a quote inside doubled)."""
    return "'" + text.replace("'", "''") + "'"


def _typed(flag: str, text: str, *, in_yaml_quotes: bool = False, cut: bool = True) -> str:
    """``flag`` (``--set PATH``) given ``text`` (in YAML's single quotes when
    ``in_yaml_quotes``), as a POSIX shell hands the text on whole: bare when nothing in it
    is special there, in double quotes when nothing in it is special inside them, else as
    :func:`shlex.quote` quotes it. The quoting is the whole text's; with ``cut``, a text past
    60 characters is shown as its start and length inside it (:func:`_cut`), as its echo is."""
    option, _, path = flag.partition(" ")
    shown = _cut(text) if cut else text
    if in_yaml_quotes:
        text, shown = _yaml_quoted(text), _yaml_quoted(shown)
    if shlex.quote(f"{path}={text}") == f"{path}={text}":
        return f"{option} {path}={shown}"
    if not set(text) & set('"$`\\!'):
        return f'{option} {path}="{shown}"'
    return f"{option} {shlex.quote(f'{path}={shown}')}"


def _check_range(value: Any) -> None:
    stack = [value]  # a fresh tree without aliases: every node is visited once
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
        elif type(item) is int and not INT_MIN <= item <= INT_MAX:
            raise ValueProblem(
                f"{item} is out of range (a replay holds integers from {INT_MIN} to {INT_MAX})"
            )


def check_name(name: str) -> None:
    """A field path or name typed on the command line holds no control character.

    Raises:
        ValueProblem: it does (a replay refuses control characters in any text).
    """
    found = CONTROL.search(name)
    if found is not None:
        raise ValueProblem(
            f"control character \\x{ord(found.group()):02x} in {name!r} "
            "(a replay holds none but newline and tab)"
        )


SEED_MAX = 2**63 - 1
"""The largest seed: every seed is a whole number from 0 to 2⁶³ − 1 (a replay's header holds it)."""

_DIGITS_MAX = 40
"""Longer digit strings are out of range before Python is asked to convert them."""


def whole(value: object) -> int | None:
    """``value`` as a Python ``int`` when it is a whole number: an ``int`` or any other
    integer type (``numpy.int64`` from a DataFrame), not a bool; else None.

    Floats (``7.0``), text (``"7"``) and bools (``True``, ``numpy.bool_``) are not whole
    numbers here: a seed or a turn is never one of those by accident.
    """
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        return None
    return operator.index(value)


def check_seed(value: object) -> int:
    """``value`` as a seed: a whole number (:func:`whole`) from 0 to :data:`SEED_MAX`.

    The one seed check of the CLI (``--seed``) and the API.

    Raises:
        ValueProblem: anything else (``-1``, ``2**64``, ``True``, ``"7"``, ``7.0``).
    """
    number = whole(value)
    value = value if number is None else number
    if type(value) is not int or not 0 <= value <= SEED_MAX:
        shown = _short(value)
        raise ValueProblem(f"{shown} is not a seed: use a whole number from 0 to {SEED_MAX}")
    return value


def seed_from_text(text: str) -> int:
    """A seed typed as text (``1862``, ``1_862``), checked by :func:`check_seed`.

    Raises:
        ValueProblem: not a whole number, or out of range (even 5,000 digits long).
    """
    number = text.strip().replace("_", "")
    digits = number[1:] if number[:1] in ("-", "+") else number
    whole = digits.isascii() and digits.isdigit()
    if not whole or len(digits) > _DIGITS_MAX:
        shown = f"a {len(digits)}-digit number" if whole else _short(text)
        raise ValueProblem(f"{shown} is not a seed: use a whole number from 0 to {SEED_MAX}")
    return check_seed(int(number))


def check_turn(value: object) -> int | None:
    """``value`` as a turn: None (the end) or a whole number (:func:`whole`) from 0.

    The one turn check of ``show --turn`` and :func:`sim.api.state_at`.

    Raises:
        ValueProblem: anything else (``-1``, ``nan``, ``inf``, ``2.0``, ``True``).
    """
    if value is None:
        return None
    number = whole(value)
    value = value if number is None else number
    if type(value) is not int or value < 0:
        raise ValueProblem(f"{_short(value)} is not a turn: use a whole number from 0")
    return value


def turn_number(value: object) -> int:
    """``value`` as a turn that must be given: :func:`check_turn` without None.

    Raises:
        ValueProblem: None, or anything :func:`check_turn` refuses.
    """
    turn = check_turn(value)
    if turn is None:
        raise ValueProblem("None is not a turn: use a whole number from 0")
    return turn


def check_seq(value: object) -> int:
    """``value`` as an event's seq: a whole number (:func:`whole`) from 0.

    Raises:
        ValueProblem: anything else (``-1``, ``"3"``, ``3.0``, ``True``).
    """
    number = whole(value)
    if number is None or number < 0:
        raise ValueProblem(f"{_short(value)} is not an event's seq: use a whole number from 0")
    return number


def _short(value: object) -> str:
    """``repr(value)``, cut to a readable length (a 5,000-digit number stays one line)."""
    if type(value) is int and value.bit_length() > 200:  # no str() past Python's digit limit
        return f"a number of about {int(value.bit_length() * 0.30103) + 1} digits"
    text = repr(value)
    return text if len(text) <= 60 else f"{text[:57]}..."
