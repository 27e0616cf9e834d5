"""Rooms the rulesets share: identifier and name types, the scenario and side bases, battle end.

Only what is truly common lives here; each ruleset extends these with its
own data.  Field order is part of the bytes (scenario digests, event JSON):
a subclass's fields come after the base's, and a field a subclass
re-declares (``ruleset``'s ``Literal``, ``type``) keeps the base's place.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, StringConstraints

from engine.events import Event

__all__ = ["BattleEndedBase", "Ident", "Model", "Name", "ScenarioBase", "SideBase"]

Ident = Annotated[str, StringConstraints(pattern=r"^[A-Za-z0-9_-]{1,40}$")]
Name = Annotated[str, StringConstraints(min_length=1, max_length=120)]


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
