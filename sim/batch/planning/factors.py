"""A study's factors: the field paths it varies, each with its values or range.

:mod:`sim.batch.planning.design` builds design points from them and
:mod:`sim.batch.analysis.sensitivity` the Morris and Sobol designs; both read the
factors from here, so neither imports the other to know what a factor is.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Sequence
from typing import Any, Literal

import numpy as np
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    field_serializer,
    field_validator,
    model_validator,
)

__all__ = [
    "DesignError",
    "Factor",
    "Point",
    "consistent",
    "decimal_reason",
    "repeated",
    "stored_factor",
    "unsweepable",
    "value_key",
]

Point = dict[str, Any]
"""One design point: factor path → value, in factor order."""


def value_key(value: Any) -> tuple[str, Any]:
    """A factor's value as a point reads it: ``3`` and ``3.0`` are one, ``true`` is not ``1``."""
    if isinstance(value, bool) or value is None:
        return "other", value
    if isinstance(value, int | float):
        return "number", float(value)
    return "other", value


def repeated(values: list[Any]) -> list[int]:
    """The indexes of the values an earlier one already names (:func:`value_key`): a design
    would fight that point twice."""
    keys = [value_key(v) for v in values]
    return [j for j, key in enumerate(keys) if keys.index(key) != j]


def unsweepable(path: str, study: str = "a study") -> str | None:
    """Why no factor may vary ``path``, or None: an id or the ruleset (``study`` reads its
    sides and units by their ids: a point whose side is 'hero', not 'thorgrim', counted its
    wins as nobody's), or the scenario's (campaign's, a campaign battle's) own ``seed``,
    which no run reads: each run is fought with a seed of its own, derived from
    ``study``'s, and a campaign's battles with seeds derived from the run's."""
    if path.rsplit(".", 1)[-1] in ("id", "ruleset"):
        return (
            f"{study} compares the same sides and units at every point, read by their ids: "
            "a factor cannot change an id (or the ruleset)"
        )
    if path == "seed" or re.fullmatch(r"battles\.[^.]+\.scenario\.seed", path):
        return (
            f"{study} fights each run with a seed of its own, derived from its own seed, so "
            "the scenario's seed changes no run: give more replications, or another seed"
        )
    return None


def _plain_scalar(value: Any) -> Any:
    """A NumPy scalar as its Python value (``numpy.int64(15)`` → ``15``); others as given."""
    if isinstance(value, np.generic):
        return value.item()
    return value


class DesignError(ValueError):
    """A design that cannot be built from its factors."""


class Factor(BaseModel):
    """One swept field: discrete ``values``, or a ``range`` [low, high] of finite numbers."""

    model_config = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False)

    path: str = Field(min_length=1, description="Dotted field path, e.g. options.fire_hcv.")
    values: list[Any] | None = Field(None, min_length=1, description="The levels to try.")
    range: tuple[float, float] | None = Field(None, description="[low, high], inclusive.")
    type: Literal["int", "float"] = Field("float", description="Number type of a range.")
    levels: int | None = Field(
        None, ge=2, le=1000, description="Evenly spaced levels of a range in a grid design."
    )

    @field_validator("values", mode="before")
    @classmethod
    def _plain(cls, values: Any) -> Any:
        """NumPy's scalars and arrays as the Python values they hold (``np.arange(15, 40, 10)``
        from a notebook): a level is written to JSON and the study's tables as plain data."""
        if isinstance(values, np.ndarray):
            return values.tolist()
        if isinstance(values, (list, tuple)):
            return [_plain_scalar(v) for v in values]
        return values

    @field_validator("range")
    @classmethod
    def _ordered(cls, rng: tuple[float, float] | None) -> tuple[float, float] | None:
        """Low below high: a problem of the ``range`` line, where it is reported."""
        if rng is not None and not rng[0] < rng[1]:
            raise ValueError(f"low {rng[0]:g} must be below high {rng[1]:g}")
        return rng

    @model_validator(mode="after")
    def _one_kind(self) -> Factor:
        if (self.values is None) == (self.range is None):
            raise ValueError("give either 'values' or 'range', not both or neither")
        if self.range is not None:
            low, high = self.range
            if self.type == "int" and not (low.is_integer() and high.is_integer()):
                raise ValueError("range: an int range needs whole-number ends")
        elif self.levels is not None:
            raise ValueError("'levels' applies to a range; a values list is its own levels")
        return self

    @field_serializer("range")
    def _range_typed(self, rng: tuple[float, float] | None) -> list[float] | list[int] | None:
        """An int range is written as ints, as its values are (summary.json, the study row)."""
        if rng is None:
            return None
        if self.type == "int":
            return [int(rng[0]), int(rng[1])]
        return [float(rng[0]), float(rng[1])]

    def stored(self) -> dict[str, Any]:
        """The factor as a study's plan and row store it (docs/batch.md, *Study files*):
        ``{path, values}``, or ``{path, range, type, levels}``. ``type`` is a range's number
        type; a values factor's numbers are its values' own, so it has none to store."""
        return stored_factor(self.model_dump(exclude_none=True))

    def grid_levels(self) -> list[Any]:
        """The factor's levels in a grid design.

        Raises:
            DesignError: a range without ``levels``, or int levels that repeat.
        """
        if self.values is not None:
            return list(self.values)
        assert self.range is not None
        if self.levels is None:
            raise DesignError(
                f"{self.path}: a range in a grid design needs 'levels' (or use a Latin hypercube)"
            )
        raw = np.linspace(self.range[0], self.range[1], self.levels)
        if self.type == "float":
            return [float(x) for x in raw]
        ints = [round(float(x)) for x in raw]
        if len(set(ints)) != len(ints):
            low, high = (int(end) for end in self.range)  # whole-number ends, as the file's
            raise DesignError(f"{self.path}: {self.levels} int levels repeat in ({low}, {high})")
        return ints

    def at(self, u: float) -> Any:
        """The factor's value at quantile ``u`` in [0, 1) (a Latin hypercube coordinate)."""
        if self.values is not None:
            return self.values[min(math.floor(u * len(self.values)), len(self.values) - 1)]
        assert self.range is not None
        low, high = self.range
        if self.type == "int":
            span = int(high) - int(low) + 1
            return int(low) + min(math.floor(u * span), span - 1)
        return float(low + u * (high - low))


def stored_factor(data: dict[str, Any]) -> dict[str, Any]:
    """A factor's stored JSON (``Factor.stored``'s) without the ``type`` of a values factor,
    which a study stored before this (``"type": "float"`` beside whole numbers) and which
    never changed its points: so a ``--resume`` compares such a study's plan as today's."""
    if "values" in data:
        return {k: v for k, v in data.items() if k != "type"}
    return data


def consistent(points: list[Point]) -> list[Point]:
    """Points whose every factor has one number type: ints become floats beside floats.

    So a factor reads the same in summary.json, the points table and runs_wide.
    """
    if not points:
        return points
    mixed = [
        path
        for path in points[0]
        if any(isinstance(p[path], float) for p in points)
        and all(isinstance(p[path], int | float) and not isinstance(p[path], bool) for p in points)
    ]
    return [{k: float(v) if k in mixed else v for k, v in p.items()} for p in points]


def decimal_reason(factors: Sequence[Factor], field: str, message: str) -> str:
    """The scenario's reason for refusing a design point, with why a whole number reached a
    field as a decimal (``-50.0 is not an integer: write -50``, when the study file says
    ``-50``): the factor made it one. A factor whose values mix whole numbers with a
    fraction, on a field of whole numbers, is refused for the fraction: "write -20" was no
    help where the file said -20."""
    if "is not an integer" not in message:
        return message
    factor = next((f for f in factors if f.path == field), None)
    if factor is None:
        return message
    if factor.range is not None and factor.type == "float":
        return message + " (a range factor's values are decimals unless it says 'type: int')"
    if factor.values is not None:
        decimals = [v for v in factor.values if isinstance(v, float) and not v.is_integer()]
        if decimals and any(type(v) is int for v in factor.values):
            return (
                f"{json.dumps(decimals[0])} is not a whole number, and this field takes whole "
                "numbers only (beside it, every value of the factor is read as a decimal)"
            )
    return message
