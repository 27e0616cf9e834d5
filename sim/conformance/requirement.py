"""A requirement of the ruleset contract: an id, what it asks, how to meet it, and its check."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from sim.conformance.battle import Battle

__all__ = ["Check", "NotChecked", "Requirement", "RequirementFailed", "requirement"]

DOCS = "docs/rulesets.md"
"""The plugin author's guide every hint points into."""


class RequirementFailed(AssertionError):
    """A requirement is not met: what was found, and where (scenario, turn or seq, field; or
    a line of a file, as the scenario loader names one)."""

    def __init__(
        self,
        what: str,
        *,
        scenario: str,
        turn: int | None = None,
        seq: int | None = None,
        field: str | None = None,
        line: int | None = None,
    ) -> None:
        self.what, self.scenario, self.turn, self.seq, self.field = what, scenario, turn, seq, field
        self.line = line
        super().__init__(self.message)

    @property
    def message(self) -> str:
        """``scenario, turn T, seq S, field F: what`` (the parts that are known), or
        ``file:LINE: what`` for a line of a file."""
        where = [self.scenario if self.line is None else f"{self.scenario}:{self.line}"]
        where += [f"turn {self.turn}"] if self.turn is not None else []
        where += [f"seq {self.seq}"] if self.seq is not None else []
        where += [f"field {self.field}"] if self.field is not None else []
        return f"{', '.join(where)}: {self.what}"

    def __str__(self) -> str:
        return self.message


class NotChecked(Exception):
    """A requirement could not be checked: something it stands on failed (the scenario did
    not run, or there is no scenario), or this installation lacks the optional ``extra`` it
    needs (then it is no finding against the ruleset); the message says what."""

    def __init__(self, message: str, *, extra: str | None = None) -> None:
        super().__init__(message)
        self.extra = extra


Check = Callable[["Battle"], None]
"""A requirement's check: returns when met on one battle, raises RequirementFailed if not."""


@dataclass(frozen=True)
class Requirement:
    """One requirement of the contract.

    Attributes:
        id: stable, lower-case words joined by hyphens (``restore-inverts-snapshot``).
        statement: the requirement in one line.
        how: how to meet it.
        section: the section of docs/rulesets.md that says more.
        check: the check, run on one scenario's battle at a time.
    """

    id: str
    statement: str
    how: str
    section: str
    check: Check

    @property
    def hint(self) -> str:
        """How to meet it, and where to read more: ``… (docs/rulesets.md, 'section')``."""
        return f"{self.how} ({DOCS}, '{self.section}')"

    def __call__(self, battle: Battle) -> None:
        """Check the requirement on one battle (raises RequirementFailed or NotChecked)."""
        self.check(battle)


def requirement(statement: str, how: str, section: str) -> Callable[[Check], Requirement]:
    """Decorator: the check function below becomes a :class:`Requirement` whose id is the
    function's name in lower case, words joined by hyphens (``RESTORE_INVERTS_SNAPSHOT``:
    ``restore-inverts-snapshot``).

    ``how`` says how to meet it; ``section`` names where docs/rulesets.md says more.
    """

    def make(check: Check) -> Requirement:
        return Requirement(check.__name__.lower().replace("_", "-"), statement, how, section, check)

    return make
