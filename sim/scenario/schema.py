"""JSON Schema of scenario files, from the rulesets' pydantic models."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any, Union

from pydantic import Field, TypeAdapter

from sim.contract import loaded_rulesets

__all__ = [
    "SCHEMA_FILE",
    "TITLE",
    "is_our_schema",
    "is_schema_file",
    "scenario_json_schema",
    "schema_text",
]

TITLE = "battlesim scenario"
"""The schema's ``title``: how battlesim knows a schema file as its own."""

SCHEMA_FILE = "scenario.schema.json"
"""The name ``battlesim new`` gives the schema it writes beside a new scenario."""


def scenario_json_schema() -> dict[str, Any]:
    """One schema accepting a scenario of any installed ruleset (tagged by ``ruleset``)."""
    models = tuple(r.scenario_model for r in loaded_rulesets())
    if len(models) == 1:
        schema: dict[str, Any] = models[0].model_json_schema()
    else:
        union: Any = Union[models]  # noqa: UP007
        schema = TypeAdapter(Annotated[union, Field(discriminator="ruleset")]).json_schema()
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["title"] = TITLE
    return schema


def schema_text() -> str:
    """The schema as ``battlesim schema`` writes it: indented JSON, keys sorted, a newline."""
    return json.dumps(scenario_json_schema(), indent=2, sort_keys=True) + "\n"


def is_schema_file(path: Path) -> bool:
    """Whether the file at ``path`` is a schema battlesim wrote (see :func:`is_our_schema`)."""
    try:
        return is_our_schema(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError):
        return False


def is_our_schema(text: str) -> bool:
    """Whether ``text`` is a schema battlesim wrote (a JSON object titled :data:`TITLE`)."""
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):  # nested 100,000 deep: not ours
        return False
    return isinstance(data, dict) and data.get("title") == TITLE
