"""Canonical JSON and digests: one byte string for one value, on any machine."""

from __future__ import annotations

import hashlib
import json
from typing import Any

__all__ = ["canonical_json", "digest"]


def canonical_json(value: Any) -> str:
    """Serialise ``value`` with sorted keys, no spaces and no NaN.

    Args:
        value: plain JSON data (dicts, lists, str, int, float, bool, None).

    Returns:
        The canonical text; equal values give equal text.
    """
    return json.dumps(
        value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
    )


def digest(value: Any) -> str:
    """Return ``"sha256:<hex>"`` of the canonical JSON of ``value``."""
    data = canonical_json(value).encode("utf-8")
    return "sha256:" + hashlib.sha256(data).hexdigest()
