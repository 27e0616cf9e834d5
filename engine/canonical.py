"""Canonical JSON and digests: one byte string for one value, on any machine."""

from __future__ import annotations

import hashlib
import json
import marshal
from itertools import chain, compress
from json.encoder import encode_basestring
from typing import Any

__all__ = [
    "NotCanonical",
    "RowDigest",
    "canonical_json",
    "digest",
    "members_json",
    "rows_json",
    "text_digest",
]

_ENCODER = json.JSONEncoder(
    sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
)


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


_PLAIN = frozenset({str, int, bool, type(None)})
_ARRAYS = frozenset({list, tuple})
_ROW_VALUES = _PLAIN | _ARRAYS


def rows_json(rows: list[dict[str, Any]]) -> str | None:
    """:func:`canonical_json` of a list of rows written by msgspec's sorted encoder
    (a twentieth of the stdlib's cost), or None where it might write other text.

    msgspec (``order="sorted"``) writes text, ints of any width, booleans and
    null exactly as the stdlib encoder (``ensure_ascii=False``, sorted keys,
    no spaces) does, but not every float (``1e-7`` for ``1e-07``, ``null``
    for NaN, which the stdlib refuses), and it writes many other types the
    stdlib refuses or writes otherwise.  So the rows are passed to it only
    when every value is of those exact types or an array of them (one
    level, as hexes are), and anything it refuses (a lone surrogate) is None
    too; the caller then writes them with the stdlib.  msgspec is imported
    on first use (a battle whose ruleset writes its own snapshot text never
    needs it).  ``tests/engine/test_row_digest.py`` compares the two over
    that value domain and beyond.
    """
    values = list(chain.from_iterable(map(dict.values, rows)))
    types = list(map(type, values))
    kinds = set(types)
    if not kinds <= _ROW_VALUES:
        return None
    if not kinds.isdisjoint(_ARRAYS):
        arrays = compress(values, map(_ARRAYS.__contains__, types))
        if not set(map(type, chain.from_iterable(arrays))) <= _PLAIN:
            return None
    global _SORTED  # noqa: PLW0603 - the encoder, made once on first use
    if _SORTED is None:
        import msgspec  # noqa: PLC0415 - only for rulesets without their own snapshot text

        _SORTED = (
            msgspec.json.Encoder(order="sorted").encode,
            (msgspec.EncodeError, TypeError, ValueError, OverflowError),
        )
    encode, refusals = _SORTED
    try:
        return str(encode(rows).decode())
    except refusals:
        return None


_SORTED: tuple[Any, tuple[type[Exception], ...]] | None = None
"""msgspec's sorted JSON encoder and what it raises, once :func:`rows_json` has needed it."""


def digest(value: Any) -> str:
    """Return ``"sha256:<hex>"`` of the canonical JSON of ``value``."""
    return text_digest(canonical_json(value))


def text_digest(text: str) -> str:
    """Return ``"sha256:<hex>"`` of ``text`` in UTF-8: :func:`digest` of a value whose
    canonical JSON ``text`` is."""
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()


class NotCanonical(ValueError):
    """A text offered as a value's canonical JSON is not :func:`canonical_json` of it."""


def members_json(members: dict[str, Any], written: dict[str, str]) -> str:
    """:func:`canonical_json` of one mapping whose members come in two kinds.

    Args:
        members: members given as values (serialised here).
        written: members given as their canonical JSON text already (a
            ruleset writes its long lists of rows straight from its records).

    Returns:
        The canonical text of the mapping holding both, keys sorted.

    Raises:
        ValueError: a key is in both.
    """
    if not members.keys().isdisjoint(written):
        raise ValueError(f"members given twice: {sorted(members.keys() & written.keys())}")
    parts = [(k, _ENCODER.encode(v)) for k, v in members.items()]
    parts.extend(written.items())
    parts.sort()
    return "{" + ",".join(encode_basestring(k) + ":" + text for k, text in parts) + "}"


class RowDigest:
    """:func:`digest` of successive states, re-serialising only the rows that changed.

    A state snapshot is a mapping whose lists hold many rows (one per unit);
    between two turns most rows are unchanged.  Each row's canonical text is
    kept with the row's ``marshal`` bytes, and reused while they are the
    same.  ``marshal`` writes the exact built-in types (``1``, ``1.0`` and
    ``True`` differ, so do ``[1]`` and ``(1,)``) and refuses anything else, so
    equal bytes mean equal canonical JSON; a row that ``marshal`` refuses is
    serialised every time.  It takes a third of the time of serialising.  The
    bytes digested are exactly :func:`canonical_json` of the whole value, so
    the digest equals :func:`digest`'s.

    When most rows of a list changed since the last digest (every unit acts
    every turn), checking signatures costs more than it saves: the list is
    then written afresh, without signatures (by msgspec when
    :func:`rows_json` can), for the next :data:`DIRECT_DIGESTS` digests,
    and checked again after.  A kept
    signature stays true however old it is, so the text never depends on
    which way a row was written.
    """

    __slots__ = ("_direct", "_rows", "_templates")

    DIRECT_DIGESTS = 8
    """Digests for which a mostly changing list's rows are written without signatures."""

    def __init__(self) -> None:
        self._rows: dict[tuple[str, int], tuple[bytes, str]] = {}
        self._templates: dict[tuple[str, ...], tuple[tuple[str, str], ...]] = {}
        self._direct: dict[str, int] = {}

    def digest(self, value: Any) -> str:
        """Return ``"sha256:<hex>"`` of the canonical JSON of ``value``."""
        return text_digest(self.canonical_json(value))

    def canonical_json(self, value: Any) -> str:
        """The same text as :func:`canonical_json`, from cached rows where they hold."""
        if not isinstance(value, dict) or not all(type(k) is str for k in value):
            return canonical_json(value)
        parts = []
        for key in sorted(value):
            item = value[key]
            if type(item) is list and all(type(row) is dict for row in item):
                text = self._rows_of(key, item)
            else:
                text = _ENCODER.encode(item)
            parts.append(_ENCODER.encode(key) + ":" + text)
        return "{" + ",".join(parts) + "}"

    def _rows_of(self, key: str, rows: list[dict[str, Any]]) -> str:
        """A list of rows' text: from signatures, or afresh while the list mostly changes
        (by :func:`rows_json` where it can)."""
        direct = self._direct.get(key, 0)
        if direct > 0:
            self._direct[key] = direct - 1
            text = rows_json(rows)
            return text if text is not None else "[" + ",".join(map(self._encode, rows)) + "]"
        changed = [0]
        texts = [self._row(key, i, row, changed) for i, row in enumerate(rows)]
        if 4 * changed[0] > 3 * len(rows):
            self._direct[key] = self.DIRECT_DIGESTS
        return "[" + ",".join(texts) + "]"

    def _row(self, key: str, index: int, row: dict[str, Any], changed: list[int]) -> str:
        try:
            signature = marshal.dumps(row)
        except ValueError:  # a type marshal does not know: no signature to trust
            return _ENCODER.encode(row)
        kept = self._rows.get((key, index))
        if kept is not None:
            if kept[0] == signature:
                return kept[1]
            changed[0] += 1
        text = self._encode(row)
        self._rows[key, index] = (signature, text)
        return text

    def _encode(self, row: dict[str, Any]) -> str:
        """``_ENCODER.encode(row)`` for a row of text keys, member by member.

        The sorted keys and their ``"key":`` prefixes are kept per key set;
        text, int, bool and None values and arrays of ints are written here
        exactly as the encoder writes them (twice as fast as the encoder's own sorting
        and dispatch), anything else by the encoder itself.
        """
        shape = tuple(row)
        template = self._templates.get(shape)
        if template is None:
            if not all(type(k) is str for k in shape):
                return _ENCODER.encode(row)
            template = tuple((k, encode_basestring(k) + ":") for k in sorted(shape))
            self._templates[shape] = template
        parts = []
        for k, prefix in template:
            v = row[k]
            t = type(v)
            if t is str:
                parts.append(prefix + encode_basestring(v))
            elif t is int:
                parts.append(prefix + int.__repr__(v))
            elif v is None:
                parts.append(prefix + "null")
            elif t is bool:
                parts.append(prefix + ("true" if v else "false"))
            elif (t is tuple or t is list) and all(type(x) is int for x in v):
                parts.append(prefix + "[" + ",".join(map(int.__repr__, v)) + "]")
            else:
                parts.append(prefix + _ENCODER.encode(v))
        return "{" + ",".join(parts) + "}"
