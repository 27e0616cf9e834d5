"""JSON Schema of scenario files, from the rulesets' pydantic models."""

from __future__ import annotations

from typing import Annotated, Any, Union

from pydantic import Field, TypeAdapter

from sim.contract import get_ruleset, ruleset_names

__all__ = ["scenario_json_schema"]


def scenario_json_schema() -> dict[str, Any]:
    """One schema accepting a scenario of any installed ruleset (tagged by ``ruleset``)."""
    models = tuple(get_ruleset(n).scenario_model for n in ruleset_names())
    if len(models) == 1:
        schema: dict[str, Any] = models[0].model_json_schema()
    else:
        union: Any = Union[models]  # noqa: UP007
        schema = TypeAdapter(Annotated[union, Field(discriminator="ruleset")]).json_schema()
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["title"] = "battlesim scenario"
    return schema
