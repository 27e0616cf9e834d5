"""An outcome of a run, written as a small expression: ``winner == 'usa'``, ``turns > 10``.

``battlesim discover --measure`` asks where in the factors an outcome holds.
The outcome is a condition on one run's row, in this grammar (keywords in
any case; nothing is evaluated as Python, and every name is checked against
the study's own columns before anything runs)::

    condition  := term ('or' term)*
    term       := factor ('and' factor)*
    factor     := 'not' factor | '(' condition ')' | 'draw' | comparison
    comparison := 'winner' ('==' | '!=') TEXT
                | NAME ('==' | '!=' | '<' | '<=' | '>' | '>=') NUMBER

``TEXT`` is quoted (``'usa'`` or ``"Union"``): a side's id or its name, any
case. ``draw`` holds for a run no side won. ``NAME`` is a number of the
run: ``turns``, ``battles``, a loss column (``usa_men_lost``) or a draw
count (``usa_draws``), or an alias of one (``rounds``, becmi's word for
``turns``, as its summary says it); ``≤ ≥ ≠`` and ``=`` are read as
``<= >= != ==``.
The condition becomes a SQL expression over the ``runs`` table with every
name quoted and every value a literal written here, never text from the
user; a run for which a number is missing (NULL) does not satisfy it.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from sim.batch.storage.sql import literal as _literal
from sim.batch.storage.sql import quote as _quote
from sim.text.grammar import agree
from sim.text.suggest import did_you_mean, known

__all__ = ["Condition", "ConditionError", "parse_condition"]

_TOKEN = re.compile(
    r"\s*(?:(?P<num>[-+]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][-+]?[0-9]+)?)"
    r"|(?P<name>[A-Za-z_][A-Za-z0-9_]*)"
    r"|(?P<text>'[^']*'|\"[^\"]*\")"
    r"|(?P<op>==|!=|<=|>=|<|>|=|≤|≥|≠)"
    r"|(?P<paren>[()]))"
)
_SAME = {"=": "==", "≤": "<=", "≥": ">=", "≠": "!="}
_SQL_OP = {"==": "=", "!=": "<>", "<": "<", "<=": "<=", ">": ">", ">=": ">="}
_SHOWN = {"==": "=", "!=": "≠", "<": "<", "<=": "≤", ">": ">", ">=": "≥"}
_KEYWORDS = ("and", "or", "not", "draw", "winner")
_EXCERPT = 40
"""The most characters of the condition (or of one of its words) an error quotes."""


def excerpt(text: str, limit: int = _EXCERPT) -> str:
    """``text`` quoted, or its first ``limit`` characters and its length when it is longer."""
    if len(text) <= limit:
        return repr(text)
    return f"{text[:limit]!r}… ({len(text):,} characters)"


class ConditionError(ValueError):
    """A condition that cannot be read; the message names the place and what was expected."""


@dataclass(frozen=True)
class Condition:
    """A parsed condition: its SQL over ``runs`` and how to say it.

    Attributes:
        text: the condition as given.
        sql: a boolean SQL expression over the ``runs`` table (NULL counts as false).
        words: the condition in words: "Union wins", "The battle is drawn" for one
            outcome alone, else the condition normalised, "“turns > 10 and not draw” holds".
    """

    text: str
    sql: str
    words: str


class _Parser:
    def __init__(
        self, text: str, sides: dict[str, str], numbers: list[str], aliases: Mapping[str, str]
    ) -> None:
        self.text = text
        self.sides = sides
        self.numbers = numbers
        self.aliases = {a: c for a, c in aliases.items() if c in numbers and a not in numbers}
        self.tokens = self._tokens(text)
        self.i = 0
        self.said: tuple[str, str] | None = None
        """The last winner or draw atom: (its text, the sentence saying it)."""

    def _tokens(self, text: str) -> list[tuple[str, str, int]]:
        out: list[tuple[str, str, int]] = []
        pos = 0
        while pos < len(text):
            if text[pos:].strip() == "":
                break
            m = _TOKEN.match(text, pos)
            if m is None or m.end() == pos:
                start = len(text) - len(text[pos:].lstrip())
                if text[start].isdigit():  # ١٠, ５: a digit, but not one a condition takes
                    raise self._error(
                        start, f"{text[start]!r} is not an ASCII digit: write numbers with 0-9"
                    )
                raise self._error(start, f"cannot read {text[start : start + 10]!r}")
            kind = m.lastgroup or ""
            value = m.group(kind)
            out.append((kind, _SAME.get(value, value), m.start(kind)))
            pos = m.end()
        return out

    def _error(self, at: int, message: str) -> ConditionError:
        return ConditionError(f"--measure {excerpt(self.text)}: at character {at + 1}: {message}")

    def _peek(self) -> tuple[str, str, int]:
        return self.tokens[self.i] if self.i < len(self.tokens) else ("end", "", len(self.text))

    def _take(self) -> tuple[str, str, int]:
        token = self._peek()
        self.i += 1
        return token

    def _keyword(self, word: str) -> bool:
        kind, value, _ = self._peek()
        if kind == "name" and value.lower() == word:
            self.i += 1
            return True
        return False

    def parse(self) -> tuple[str, str]:
        if not self.tokens:
            raise ConditionError("--measure: empty; write e.g. \"winner == 'usa'\" or 'turns > 10'")
        sql, words = self._or()
        kind, value, at = self._peek()
        if kind != "end":
            raise self._error(at, f"expected 'and', 'or' or the end, found {excerpt(value)}")
        if self.said is not None and words == self.said[0]:  # one outcome alone: say it
            return sql, self.said[1]
        return sql, f"“{words}” holds"

    def _or(self) -> tuple[str, str]:
        return self._joined("or", self._and)

    def _and(self) -> tuple[str, str]:
        return self._joined("and", self._factor)

    def _joined(self, keyword: str, part: Callable[[], tuple[str, str]]) -> tuple[str, str]:
        """``part (keyword part)*``: one part as it is, several joined in SQL and in words."""
        parts = [part()]
        while self._keyword(keyword):
            parts.append(part())
        if len(parts) == 1:
            return parts[0]
        sql = f" {keyword.upper()} ".join(p[0] for p in parts)
        return f"({sql})", f" {keyword} ".join(p[1] for p in parts)

    def _factor(self) -> tuple[str, str]:
        if self._keyword("not"):
            sql, words = self._factor()
            return f"(NOT {sql})", f"not {words}"
        kind, value, at = self._peek()
        if kind == "paren" and value == "(":
            self.i += 1
            sql, words = self._or()
            kind, value, at = self._take()
            if (kind, value) != ("paren", ")"):
                raise self._error(at, "expected ')'")
            return sql, f"({words})"
        if self._keyword("draw"):
            self.said = ("draw", "The battle is drawn")
            return "(status = 'done' AND winner IS NULL)", "draw"
        if self._keyword("winner"):
            return self._winner()
        return self._number()

    def _winner(self) -> tuple[str, str]:
        kind, op, at = self._take()
        if kind != "op" or op not in ("==", "!="):
            raise self._error(at, "write winner == 'SIDE' or winner != 'SIDE'")
        kind, value, at = self._take()
        if kind != "text":
            raise self._error(at, "the winner is a quoted side id or name, e.g. 'usa'")
        wanted = value[1:-1]
        side = self._side(wanted, at)
        name = self.sides[side]
        text = f"winner {_SHOWN[op]} {side}"
        if op == "==":
            self.said = (text, agree(name, "wins"))
            return f"coalesce(winner = {_literal(side)}, false)", text
        self.said = (text, agree(name, "does not win"))
        return f"coalesce(winner <> {_literal(side)}, true)", text

    def _side(self, wanted: str, at: int) -> str:
        for sid, name in self.sides.items():
            if wanted.lower() in (sid.lower(), name.lower()):
                return sid
        choices = [*self.sides, *self.sides.values()]
        sides = ", ".join(f"{sid} ({name})" for sid, name in self.sides.items())
        raise self._error(
            at,
            f"{excerpt(wanted)} is no side of this study"
            f"{did_you_mean(wanted, choices) if len(wanted) <= _EXCERPT else ''} "
            f"(sides: {sides})",
        )

    def _number(self) -> tuple[str, str]:
        kind, name, at = self._take()
        if kind != "name":
            shown = "the end" if kind == "end" else excerpt(name)
            raise self._error(
                at, f"expected a measure, 'winner', 'draw', 'not' or '(', found {shown}"
            )
        column = self.aliases.get(name, name)
        if column not in self.numbers:
            names = sorted([*self.numbers, *self.aliases])
            hint = did_you_mean(name, [*names, *_KEYWORDS]) if len(name) <= _EXCERPT else ""
            raise self._error(
                at,
                f"{excerpt(name)} is not a measure of this study{hint} "
                f"(measures: {known(names, 40)}; or winner, draw)",
            )
        kind, op, at = self._take()
        if kind != "op":
            raise self._error(at, f"compare {name} with a number, e.g. {name} > 10")
        kind, value, at = self._take()
        if kind != "num":
            raise self._error(at, f"{name} {op} needs a number")
        number = float(value)
        if not math.isfinite(number):
            shown = value if len(value) <= _EXCERPT else excerpt(value)
            raise self._error(at, f"{shown} is not a finite number")
        shown = f"{number:g}"
        sql = f"coalesce({_quote(column)} {_SQL_OP[op]} {number!r}, false)"
        return sql, f"{name} {_SHOWN[op]} {shown}"


def parse_condition(
    text: str,
    sides: dict[str, str],
    numbers: list[str],
    aliases: Mapping[str, str] | None = None,
) -> Condition:
    """Read ``text`` as a condition on a run of a study with these sides and number columns.

    Args:
        text: the condition.
        sides: side id → side name, in scenario order.
        numbers: the runs table's number columns a condition may name.
        aliases: other names of those columns (``{"rounds": "turns"}``: the word the
            study's summary uses), said as written; one that is itself a column is ignored.

    Raises:
        ConditionError: the text does not follow the grammar, or names an
            unknown side or measure.
    """
    sql, words = _Parser(text, sides, numbers, aliases or {}).parse()
    return Condition(text, sql, words)
