"""Shared helper for ruleset options added after replays were first written.

A scenario is stored in each replay header as its canonical dump, defaults
included.  An option added later would change that dump for every scenario,
so a replay written before it would no longer match its own re-simulation
(and every golden replay would change without any event changing).  An
option made with :func:`later_option` keeps today's behaviour at its default
and is left out of the dump while it has that default: a scenario that sets
it differently carries it in its header, and one that does not reads as it
always did.
"""

from __future__ import annotations

from typing import Any, ClassVar

from pydantic import (
    BaseModel,
    Field,
    SerializationInfo,
    SerializerFunctionWrapHandler,
    ValidationInfo,
    model_serializer,
    model_validator,
)

__all__ = ["VERSION_KEY", "ChangedDefaults", "int_option", "later_option"]


def later_option(default: Any, description: str, **constraints: Any) -> Any:
    """A pydantic ``Field`` for an option added later: omitted from dumps at its default."""
    return Field(
        default,
        description=description,
        exclude_if=lambda value: bool(value == default),
        **constraints,
    )


def int_option(options: BaseModel, name: str) -> int:
    """The whole-number option ``name`` of ``options``, for an option named from parts
    (``f"speed_{aircraft}"``).

    Raises:
        AttributeError: there is no option ``name``.
        TypeError: it is not a whole number.
    """
    value = getattr(options, name)
    if type(value) is not int:
        raise TypeError(f"option {name!r} is {value!r}, not a whole number")
    return value


VERSION_KEY = "ruleset_version"
"""The pydantic validation and serialization context key naming the rules version a
scenario is read or written for (:func:`sim.replay.header.header_scenario`,
:func:`sim.replay.header.make_header`)."""


def _earlier(version: Any, since: str) -> bool:
    """True when ``version`` is a rules version before ``since`` (versions are whole numbers)."""
    if not isinstance(version, str) or not version.isdigit() or not since.isdigit():
        return False
    return int(version) < int(since)


class ChangedDefaults(BaseModel):
    """Options whose defaults changed with the ruleset's version.

    ``CHANGED`` maps a version to the options whose default it changed, each
    with its value *before* that version. A scenario read for an earlier
    version (the context ``{"ruleset_version": v}``, which a replay's header
    gives) gets the earlier values of the options it does not set, and is
    written for that version without them; so a replay fought before the
    change is fought again exactly, and its header is written back byte for
    byte. Declare an option the change added with :func:`later_option` (its new
    default, left out of dumps); an option that was already there keeps a plain
    ``Field`` with its new default, and stays in every dump, as the earlier
    version wrote it (flattop's AA table, changed by its version 2).
    """

    CHANGED: ClassVar[dict[str, dict[str, Any]]] = {}
    ADDED: ClassVar[frozenset[str]] = frozenset()
    """Options a later version added as plain fields (in every dump of today's version, so
    a study can sweep them): like a :func:`later_option`, each is left out of an earlier
    version's dump while it holds that version's value (flattop's version 3)."""

    @model_validator(mode="before")
    @classmethod
    def _earlier_defaults(cls, data: Any, info: ValidationInfo) -> Any:
        version = (info.context or {}).get(VERSION_KEY)
        if not isinstance(data, dict):
            return data
        filled = dict(data)
        for name, value in cls._in_effect(version).items():
            filled.setdefault(name, value)
        return filled

    @classmethod
    def _in_effect(cls, version: Any) -> dict[str, Any]:
        """The earlier values of the options whose defaults changed after ``version``: each
        the value its first change after ``version`` replaced (an option changed twice, say
        by versions 3 and 6, reads at version 1 as version 3 found it, not as version 6 did)."""
        found: dict[str, Any] = {}
        for since in sorted(cls.CHANGED, key=lambda v: int(v) if v.isdigit() else 0):
            if _earlier(version, since):
                for name, value in cls.CHANGED[since].items():
                    found.setdefault(name, value)
        return found

    @model_serializer(mode="wrap")
    def _earlier_dump(self, handler: SerializerFunctionWrapHandler, info: SerializationInfo) -> Any:
        data = handler(self)
        version = (info.context or {}).get(VERSION_KEY)
        if not isinstance(data, dict):
            return data
        fields = type(self).model_fields
        for name, value in self._in_effect(version).items():
            # added with the change
            later = fields[name].exclude_if is not None or name in self.ADDED
            if later and name in data and getattr(self, name) == value:
                del data[name]
            elif name not in data and getattr(self, name) != value:
                # set away from the earlier version's value to today's default,
                # which a later_option leaves out: the earlier version wrote it
                data[name] = getattr(self, name)
        return data
