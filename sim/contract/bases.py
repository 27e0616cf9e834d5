"""Rooms the rulesets share: identifier, name and hex types, the scenario and side bases,
battle end.

Only what is truly common lives here; each ruleset extends these with its
own data.  Field order is part of the bytes (scenario digests, event JSON):
a subclass's fields come after the base's, and a field a subclass
re-declares (``ruleset``'s ``Literal``, ``type``) keeps the base's place.
"""

from __future__ import annotations

import dataclasses
import json
from typing import Annotated, Any, TypeVar

from pydantic import BaseModel, ConfigDict, Field, StringConstraints

from engine.events import Event

__all__ = [
    "NAME_LENGTH",
    "BattleEndedBase",
    "Hex",
    "Ident",
    "Model",
    "Name",
    "ScenarioBase",
    "Share",
    "SideBase",
    "validate_plain",
]

M = TypeVar("M", bound=BaseModel)

Ident = Annotated[str, StringConstraints(pattern=r"^[A-Za-z0-9_-]{1,40}$")]
NAME_LENGTH = 120
"""The most characters a name holds."""
Name = Annotated[str, StringConstraints(min_length=1, max_length=NAME_LENGTH)]
_HexCoord = Annotated[int, Field(ge=0, le=999)]
Hex = tuple[_HexCoord, _HexCoord]
"""A hex as [column, row], 0-based (0 to 999), "odd-q" offset layout: flat-topped hexes in
columns (docs/scenario-format.md)."""


@dataclasses.dataclass(frozen=True)
class Share:
    """A field that is a share, 0 to 1, of something, declared as ``break_losses:
    Annotated[float, Share("the side's men")]``: given 35 where 0.35 was meant, the loader
    says so (``35 is more than 1: a share of the side's men, 0 to 1 (0.35 for 35 %)``).

    Validation and the JSON Schema ignore it."""

    of: str
    """What it is a share of."""


class Model(BaseModel):
    """A frozen scenario model that refuses unknown fields."""

    model_config = ConfigDict(frozen=True, extra="forbid")


class ScenarioBase(Model):
    """What every scenario file has: its ruleset key, name, description and default seed.

    A ruleset narrows ``ruleset`` to its ``Literal`` key and adds its own data.
    """

    ruleset: str
    name: Name
    description: str = Field("", max_length=20_000)
    seed: int = Field(1, ge=0, le=2**63 - 1, description="Default seed (--seed overrides).")


class SideBase(Model):
    """What every side has: an id and a name."""

    id: Ident
    name: Name


class BattleEndedBase(Event):
    """What every ruleset's battle-ended event records: the winner (None for a draw) and why."""

    winner: str | None
    reason: str


def validate_plain(model: type[M], data: Any) -> M:
    """Validate plain data read from a file or an option (YAML, ``--set``) with strict types.

    The data is checked as the JSON it is: a number field takes a number and
    never text (``ac: "6"``) nor a boolean (``hp: true``), an integer field
    never a float (``hp: 24.0``), a true/false field only true or false
    (``monster_morale: "yes"``); a float field takes an integer.  Lists
    become tuples and text becomes a ``Literal`` or enum as usual.  Every
    ruleset's and plugin's model gets this from the loaders, whatever its
    own config.

    Raises:
        pydantic.ValidationError: as ``model.model_validate`` (locations alike).
    """
    text = json.dumps(data, ensure_ascii=False, allow_nan=True)
    return model.model_validate_json(text, strict=True)
