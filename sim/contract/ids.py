"""The duplicate-id check every scenario's ``cross_check`` makes."""

from __future__ import annotations

from sim.contract.models import Problem

__all__ = ["UniqueIds"]


class UniqueIds:
    """The ids of a scenario, each with what first used it; an id used again is a problem.

    ::

        ids = UniqueIds()
        for i, side in enumerate(sc.sides):
            ids.add(side.id, ("sides", i, "id"), "side")
        problems = ids.problems   # [(("sides", 1, "id"), "side id 'blue' is used twice")]

    One register is one namespace: give sides and units a register each
    when a unit may share its side's id.
    """

    def __init__(self, problems: list[Problem] | None = None) -> None:
        self.first: dict[str, str] = {}
        """Each id, with what first used it."""
        self.problems: list[Problem] = [] if problems is None else problems
        """One problem for each id used again, at the later place, in the order added
        (appended to the ``cross_check``'s own list when given one)."""

    def add(self, ident: str, path: tuple[str | int, ...], what: str = "") -> bool:
        """Record ``ident`` at ``path`` for a ``what`` (``ship``; "" says only ``id``).

        Returns:
            True when it is new; else the problem is recorded and False returned.
        """
        if ident not in self.first:
            self.first[ident] = what
            return True
        first = self.first[ident]
        if first == what or not first:
            told = "is used twice"
        else:
            told = f"is already used by {'an' if first[0] in 'aeiou' else 'a'} {first}"
        self.problems.append((path, f"{what} id {ident!r} {told}".lstrip()))
        return False
