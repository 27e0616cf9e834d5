"""A small JSON Schema check: the keywords pydantic's scenario schema uses, nothing more.

``jsonschema`` is not among battlesim's dependencies; this checks a value
against ``$ref``, ``oneOf``/``anyOf`` (with pydantic's ``discriminator``),
``type``, ``const``, ``enum``, ``properties``, ``required``,
``additionalProperties``, ``propertyNames``, ``minProperties``, ``items``,
``prefixItems``, the size bounds and ``pattern`` — and refuses a schema
keyword it does not know, so it never passes a value by ignoring a rule.
"""

from __future__ import annotations

import re
from typing import Any

__all__ = ["schema_errors"]

_TYPES: dict[str, tuple[type, ...]] = {
    "object": (dict,),
    "array": (list,),
    "string": (str,),
    "integer": (int,),
    "number": (int, float),
    "boolean": (bool,),
    "null": (type(None),),
}
_NOTES = {"title", "description", "default", "$schema", "$defs", "examples", "mapping"}


def _is(value: Any, kind: str) -> bool:
    if isinstance(value, bool) and kind in ("integer", "number"):
        return False
    return isinstance(value, _TYPES[kind])


def _branches(schema: dict[str, Any], value: Any, root: dict[str, Any], at: str) -> list[str]:
    key = "oneOf" if "oneOf" in schema else "anyOf"
    disc = schema.get("discriminator")
    if disc is not None:
        tag = value.get(disc["propertyName"]) if isinstance(value, dict) else None
        if tag not in disc["mapping"]:
            return [f"{at}: {disc['propertyName']} {tag!r} is not one of {sorted(disc['mapping'])}"]
        return schema_errors({"$ref": disc["mapping"][tag]}, value, root, at)
    passing = [b for b in schema[key] if not schema_errors(b, value, root, at)]
    if not passing or (key == "oneOf" and len(passing) > 1):
        return [f"{at}: matches {len(passing)} of its {key} branches"]
    return []


def _object(
    schema: dict[str, Any], value: dict[str, Any], root: dict[str, Any], at: str
) -> list[str]:
    errors = [f"{at}: missing {k}" for k in schema.get("required", []) if k not in value]
    if len(value) < schema.get("minProperties", 0):
        errors.append(f"{at}: fewer than {schema['minProperties']} properties")
    props, extra = schema.get("properties", {}), schema.get("additionalProperties", True)
    for k, v in value.items():
        if "propertyNames" in schema:
            errors += schema_errors(schema["propertyNames"], k, root, f"{at}.{k} (name)")
        if k in props:
            errors += schema_errors(props[k], v, root, f"{at}.{k}")
        elif extra is False:
            errors.append(f"{at}: unknown field {k}")
        elif isinstance(extra, dict):
            errors += schema_errors(extra, v, root, f"{at}.{k}")
    return errors


def _array(schema: dict[str, Any], value: list[Any], root: dict[str, Any], at: str) -> list[str]:
    errors = []
    if not schema.get("minItems", 0) <= len(value) <= schema.get("maxItems", len(value)):
        errors.append(f"{at}: {len(value)} items")
    prefix = schema.get("prefixItems", [])
    for i, v in enumerate(value):
        item = prefix[i] if i < len(prefix) else schema.get("items", {})
        errors += schema_errors(item, v, root, f"{at}[{i}]")
    return errors


def _scalar(schema: dict[str, Any], value: Any, at: str) -> list[str]:
    errors = []
    if isinstance(value, int | float) and not isinstance(value, bool):
        if value < schema.get("minimum", value) or value > schema.get("maximum", value):
            errors.append(f"{at}: {value} out of bounds")
        low = schema.get("exclusiveMinimum")
        if low is not None and not value > low:
            errors.append(f"{at}: {value} not above {low}")
    if isinstance(value, str):
        if not schema.get("minLength", 0) <= len(value) <= schema.get("maxLength", len(value)):
            errors.append(f"{at}: length {len(value)}")
        if "pattern" in schema and not re.search(schema["pattern"], value):
            errors.append(f"{at}: {value!r} does not match {schema['pattern']}")
    return errors


_KNOWN = _NOTES | {
    "$ref", "oneOf", "anyOf", "discriminator", "type", "const", "enum", "properties",
    "required", "additionalProperties", "propertyNames", "minProperties", "items",
    "prefixItems", "minItems", "maxItems", "minimum", "maximum", "exclusiveMinimum",
    "minLength", "maxLength", "pattern",
}  # fmt: skip


def schema_errors(
    schema: dict[str, Any], value: Any, root: dict[str, Any] | None = None, at: str = "$"
) -> list[str]:
    """Why ``value`` does not validate against ``schema`` (empty: it does)."""
    root = schema if root is None else root
    unknown = set(schema) - _KNOWN
    if unknown:
        raise ValueError(f"{at}: schema keywords this check does not know: {sorted(unknown)}")
    if "$ref" in schema:
        name = schema["$ref"].removeprefix("#/$defs/")
        return schema_errors(root["$defs"][name], value, root, at)
    if "oneOf" in schema or "anyOf" in schema:
        return _branches(schema, value, root, at)
    kinds = schema.get("type")
    if kinds is not None:
        kinds = [kinds] if isinstance(kinds, str) else kinds
        if not any(_is(value, k) for k in kinds):
            return [f"{at}: {value!r} is not {' or '.join(kinds)}"]
    if "const" in schema and value != schema["const"]:
        return [f"{at}: {value!r} is not {schema['const']!r}"]
    if "enum" in schema and value not in schema["enum"]:
        return [f"{at}: {value!r} is not one of {schema['enum']}"]
    if isinstance(value, dict):
        return _object(schema, value, root, at)
    if isinstance(value, list):
        return _array(schema, value, root, at)
    return _scalar(schema, value, at)
