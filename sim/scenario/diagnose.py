"""Every problem of a scenario in one pass, with "did you mean" for misspellings.

Schema errors hide the ruleset's cross-field checks (those need a valid
model). So that one ``validate`` shows everything, the data is *repaired*
once: unknown fields are dropped and every list item with an error is left
out; if what remains validates, the cross checks run on it and their
problems are reported too (mapped back to the original list positions).
A cross problem that names a left-out item (``no unit 'b1'``) or is about
what held one (a side left with no units) is a consequence of an error
already reported and is not repeated.

The fields of a left-out item that did validate are checked too: a second
repair *mends* each such item instead, each bad field taken from its default
or borrowed from a sibling item that validated (never an ``id``), or, with no
sibling to lend one, for a misspelt choice the first choice its own error
names and for a number out of range the nearest it may be (a lone unit's
``strength: 0``, 1); of that pass's cross problems those inside a mended item, not at a
mended field and not naming a value the mending lent, are kept, and so are
those outside every mended item that the first pass did not have and that
name no lent value (a sibling with the mended unit's id, a unit in its hex). So a unit
with a bad ``strength`` still has its unknown weapon, off-map hex and missing
target reported in the same pass, and a carrier whose misspelt kind was lent
a cruiser's is not told that a cruiser carries no aircraft.
"""

from __future__ import annotations

import copy
import re
import types
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Annotated, Any, Union, get_args, get_origin

from pydantic import BaseModel, ValidationError, create_model
from pydantic.fields import FieldInfo

from sim.contract.bases import Share, validate_plain
from sim.text.suggest import close_names, did_you_mean
from sim.text.values import SHOWN_CHARS

__all__ = [
    "cross_problems_after_repair",
    "hint",
    "hint_known",
    "known_fields",
    "misspelt",
    "one_per_field",
    "repaired",
    "said_twice",
    "untagged",
]

Path_ = tuple[str | int, ...]
Problem = tuple[Path_, str]

_QUOTED = re.compile(r"'([^']*)'")
_UNKNOWN = re.compile(r"^unknown \w+ '([^']+)'; known: (.+)$")
_TWICE = re.compile(
    r"^(?:(?P<what>[a-z][a-z ]*) )?id '(?P<id>[^']+)' "
    r"(?:is used twice|is already used by an? (?P<first>[a-z][a-z ]*))$"
)
""":class:`sim.contract.UniqueIds`' words for an id used again."""


def _unwrap(t: Any) -> list[Any]:
    """The alternatives of a type: Annotated and Optional/Union taken apart."""
    if get_origin(t) is Annotated:
        return _unwrap(get_args(t)[0])
    if get_origin(t) in (Union, types.UnionType):
        return [x for a in get_args(t) for x in _unwrap(a)]
    return [t]


def _child(t: Any, seg: str | int) -> list[Any]:
    out: list[Any] = []
    for alt in _unwrap(t):
        if isinstance(alt, type) and issubclass(alt, BaseModel):
            field = alt.model_fields.get(str(seg))
            if field is not None:
                out.append(field.annotation)
        elif get_origin(alt) in (list, tuple) and isinstance(seg, int):
            out.extend(get_args(alt)[:1])
        elif get_origin(alt) is dict and isinstance(seg, str):
            out.extend(get_args(alt)[1:2])
    return out


def known_fields(model: type[BaseModel], loc: Path_) -> set[str]:
    """The field names the model accepts at ``loc`` (a union's alternatives pooled)."""
    candidates: list[Any] = [model]
    for seg in loc:
        # A segment no candidate knows is a union tag pydantic adds to locations.
        candidates = [c for t in candidates for c in _child(t, seg)] or candidates
    names: set[str] = set()
    for t in candidates:
        for alt in _unwrap(t):
            if isinstance(alt, type) and issubclass(alt, BaseModel):
                names |= {f.alias or n for n, f in alt.model_fields.items()}
    return names


def untagged(model: type[BaseModel], loc: Path_) -> Path_:
    """``loc`` without the union tags pydantic adds to it (``share.bool``, ``c.MonsterSpec``):
    a segment no type at its place knows, where that place is a union, and which names
    one of its alternatives (an unknown field is the field the error is about, and kept)."""
    candidates: list[Any] = [model]
    kept: list[str | int] = []
    for seg in loc:
        children = [c for t in candidates for c in _child(t, seg)]
        if children:
            kept.append(seg)
            candidates = children
            continue
        alternatives = [a for t in candidates for a in _unwrap(t) if a is not type(None)]
        chosen = [a for a in alternatives if _tag_of(a) == seg]
        if len(alternatives) < 2 or not isinstance(seg, str) or not (chosen or "[" in seg):
            kept.append(seg)  # not a tag: the field the error is about (a misspelt one)
        elif chosen:
            candidates = chosen  # the alternative the error is in: its fields next
    return tuple(kept)


def _tag_of(alternative: Any) -> str | None:
    """The tag pydantic puts in an error's location for a union's alternative: a model's
    or a plain type's name (``MonsterSpec``, ``bool``, ``float``); a constrained or generic
    one's has brackets (``list[int]``, ``function-after[...]``), matched by them."""
    return getattr(alternative, "__name__", None) if isinstance(alternative, type) else None


def one_per_field(model: type[BaseModel], found: list[Problem]) -> list[Problem]:
    """One problem for each field: a value that fits none of a union's alternatives fails
    each of them (``share: [1, 2]``, for ``bool | float``), and pydantic says so once for
    each, at the field with the alternative's tag; here they are one problem at the field
    itself (``[1, 2] is not true or false, nor a number``), the same words said once."""
    merged: dict[Path_, list[str]] = {}
    for loc, message in found:
        said = merged.setdefault(untagged(model, loc), [])
        if message not in said:
            said.append(message)
    return [(loc, _either(messages)) for loc, messages in merged.items()]


def _either(messages: list[str]) -> str:
    """Messages of one field's alternatives as one: ``X is not a, nor b``, or joined."""
    if len(messages) == 1:
        return messages[0]
    head, sep, _ = messages[0].partition(" is not ")
    prefix = head + sep
    if sep and all(m.startswith(prefix) for m in messages):
        return prefix + ", nor ".join(m.removeprefix(prefix) for m in messages)
    return "; or ".join(messages)


def hint(model: type[BaseModel], err: Any, message: str) -> str:
    """``message`` with "did you mean" for an unknown field or a misspelt choice, and for a
    share given as a percent (35 for 0.35) what it is."""
    kind, loc = err["type"], tuple(err["loc"])
    share = _share_hint(model, err, message)
    if share is not None:
        return share
    if kind == "extra_forbidden" and loc:
        return message + did_you_mean(str(loc[-1]), known_fields(model, loc[:-1]))
    if kind in ("literal_error", "enum") and isinstance(err.get("input"), str):
        return message + did_you_mean(err["input"], _choices(err))
    return message


def _share_hint(model: type[BaseModel], err: Any, message: str) -> str | None:
    """``35 is more than 1: a share of the side's men, 0 to 1 (0.35 for 35 %)`` for a
    :class:`~sim.contract.bases.Share` given a number from 1 to 100; None otherwise."""
    value, ctx = err.get("input"), err.get("ctx") or {}
    if err["type"] != "less_than_equal" or ctx.get("le") != 1 or isinstance(value, bool):
        return None
    # a percent as a person writes one (35, 12.5), not a number a tool tried (1.4999988)
    if not isinstance(value, int | float) or not 1 < value <= 100 or round(value, 2) != value:
        return None
    shares = [m for info in _fields_at(model, tuple(err["loc"])) for m in info.metadata]
    of = next((m.of for m in shares if isinstance(m, Share)), None)
    if of is None:
        return None
    shown = message.split(" is more than ", 1)[0]
    return f"{shown} is more than 1: a share of {of}, 0 to 1 ({value / 100:g} for {value:g} %)"


def _fields_at(model: type[BaseModel], loc: Path_) -> list[FieldInfo]:
    """The pydantic fields ``loc`` may name (one for each model it may be in)."""
    loc = untagged(model, loc)
    if not loc:
        return []
    parents: list[Any] = [model]
    for seg in loc[:-1]:
        parents = [c for t in parents for c in _child(t, seg)] or parents
    return [
        field
        for t in parents
        for alt in _unwrap(t)
        if isinstance(alt, type)
        and issubclass(alt, BaseModel)
        and (field := alt.model_fields.get(str(loc[-1]))) is not None
    ]


def hint_known(message: str) -> str:
    """``unknown weapon 'x'; known: a, b`` with "did you mean" added when one is close."""
    m = _UNKNOWN.match(message)
    if m is None:
        return message
    if len(m[1]) > SHOWN_CHARS:  # a name of any length the file gave: its start and length
        message = message.replace(
            f"'{m[1]}'", f"'{m[1][: SHOWN_CHARS - 2]}…' ({len(m[1]):,} characters)", 1
        )
    suggestion = did_you_mean(m[1], [c.strip() for c in m[2].split(",")])
    return message if not suggestion else f"{message.split('; known:', maxsplit=1)[0]}{suggestion}"


def said_twice(data: Any, lines: dict[Path_, int], where: Path_, message: str) -> str:
    """An id used again (``side id 'usa' is used twice``, :class:`~sim.contract.UniqueIds`)
    with the line of its first use: ``… (first on line 83)``; any other message as it is.

    The first use is the earliest ``id`` in the file holding the same id, of the kind the
    message names (``sides`` for a side, ``task_forces`` for a task force) where one is,
    else at the same depth as ``where`` (a becmi monster's id beside a character's, not its
    side's, which may share it)."""
    m = _TWICE.match(message)
    if m is None:
        return message
    kind = m["first"] or m["what"] or ""
    earlier: list[Path_] = []
    for path in lines:
        if path == where:
            break
        if path and path[-1] == "id" and _value(data, path) == m["id"]:
            earlier.append(path)
    ranked = sorted(earlier, key=lambda p: (_kind_of(p) != kind, len(p) != len(where)))
    return f"{message} (first on line {lines[ranked[0]]})" if ranked else message


def _kind_of(path: Path_) -> str:
    """What an item's ``id`` at ``path`` is the id of, by its list: ``sides`` → ``side``."""
    if len(path) < 3 or not isinstance(path[-2], int):
        return ""
    return str(path[-3]).replace("_", " ").removesuffix("s")


def _value(data: Any, path: Path_) -> Any:
    try:
        return _get(data, path)
    except (KeyError, IndexError, TypeError):
        return None


def _has_default(model: type[BaseModel], loc: Path_) -> bool:
    """True when the field at ``loc`` may be left out (it has a default)."""
    parents: list[Any] = [model]
    for seg in loc[:-1]:
        parents = [c for t in parents for c in _child(t, seg)] or parents
    fields = [
        alt.model_fields.get(str(loc[-1]))
        for t in parents
        for alt in _unwrap(t)
        if isinstance(alt, type) and issubclass(alt, BaseModel)
    ]
    return bool(fields) and all(f is not None and not f.is_required() for f in fields)


def _repair(
    model: type[BaseModel], data: Any, errors: list[Any]
) -> tuple[Any, dict[Path_, list[int]], set[str]] | None:
    """Data without unknown fields and erroneous list items; survivors by list; ids left out.

    An erroneous field outside any list item is left out when it has a
    default; otherwise nothing can be checked further (None).
    """
    removed: dict[Path_, set[int]] = {}
    extras: list[Path_] = []
    renames = misspelt(model, errors)
    for err in errors:
        loc = tuple(err["loc"])
        if loc in renames or (err["type"] == "missing" and loc in renames.values()):
            continue
        item = _innermost_item(data, loc)
        if err["type"] == "extra_forbidden" or (
            item is None and loc and _has_default(model, loc) and _present(data, loc)
        ):
            extras.append(loc)
            continue
        if item is None:
            return None
        removed.setdefault(item[:-1], set()).add(int(item[-1]))
    fixed = copy.deepcopy(data)
    dropped_ids: set[str] = set()
    for loc in extras:
        parent = _get(fixed, loc[:-1])
        if isinstance(parent, dict):
            parent.pop(str(loc[-1]), None)
    for typo, right in renames.items():
        parent = _get(fixed, typo[:-1])
        parent[str(right[-1])] = parent.pop(str(typo[-1]))
    survivors: dict[Path_, list[int]] = {}
    for path in sorted(removed, key=len, reverse=True):
        items = _get(fixed, path)
        survivors[path] = [i for i in range(len(items)) if i not in removed[path]]
        dropped_ids |= {str(items[i]["id"]) for i in removed[path] if _has_id(items[i])}
        items[:] = [items[i] for i in survivors[path]]
    return fixed, survivors, dropped_ids


def misspelt(model: type[BaseModel], errors: list[Any]) -> dict[Path_, Path_]:
    """Misspelt keys whose suggestion is a missing field beside them: typo -> right path."""
    missing = {tuple(e["loc"]) for e in errors if e["type"] == "missing"}
    out: dict[Path_, Path_] = {}
    for err in errors:
        loc = tuple(err["loc"])
        if err["type"] != "extra_forbidden" or not loc:
            continue
        known = known_fields(model, loc[:-1])
        suggestion = did_you_mean(str(loc[-1]), known)
        right = (*loc[:-1], suggestion.split("'")[1]) if suggestion else None
        if right is not None and right in missing and right not in out.values():
            out[loc] = right
    return out


def _present(data: Any, loc: Path_) -> bool:
    try:
        _get(data, loc)
    except (KeyError, IndexError, TypeError):
        return False
    return True


def _has_id(item: Any) -> bool:
    return isinstance(item, dict) and isinstance(item.get("id"), str)


def _get(data: Any, path: Path_) -> Any:
    for seg in path:
        data = data[seg]
    return data


def _innermost_item(data: Any, loc: Path_) -> Path_ | None:
    """The longest prefix of ``loc`` naming an item of a list in ``data``, if any."""
    best: Path_ | None = None
    node = data
    for i, seg in enumerate(loc):
        if isinstance(node, list) and isinstance(seg, int) and 0 <= seg < len(node):
            best = loc[: i + 1]
            node = node[seg]
        elif isinstance(node, dict) and seg in node:
            node = node[seg]
        else:
            break
    return best


def _to_original(path: Path_, survivors: dict[Path_, list[int]]) -> Path_:
    out: Path_ = ()
    for seg in path:
        moved = seg
        if isinstance(seg, int) and out in survivors and seg < len(survivors[out]):
            moved = survivors[out][seg]
        out = (*out, moved)
    return out


def cross_problems_after_repair(
    model: type[BaseModel],
    data: Any,
    errors: list[Any],
    cross_check: Callable[[Any], list[Problem]],
) -> list[Problem]:
    """The cross-field problems of the repaired data, in original positions (see module doc).

    Two passes of :func:`_repaired_problems`: the data without its erroneous
    items, then with those items mended where they can be.
    """
    found, survivors = _repaired_problems(model, data, errors, cross_check)
    out = _beside_left_out(found, data, survivors)
    mended, rest, items, fields = _mend(model, data, errors)
    if items:
        again, _ = _repaired_problems(model, mended, rest, cross_check)
        out += [p for p in _in_mended_items(again, items, fields) if p not in out]
        # and what only a mended item's presence makes, outside it: a sibling with its id,
        # a unit in its hex (with the item left out, the first pass could not see them)
        out += [p for p in _beside_mended_items(again, found, items, fields) if p not in out]
    return out


def _beside_mended_items(
    again: list[Problem], first: list[Problem], items: set[Path_], fields: dict[Path_, Any]
) -> list[Problem]:
    """The mended pass's problems outside every mended item that the first pass (the items
    left out) did not have, but those naming a value the mending lent."""
    return [
        (where, message)
        for where, message in again
        if (where, message) not in first
        and not any(where[: len(i)] == i for i in items)
        and not any(_names(message, value) for value in fields.values())
    ]


def _names(message: str, value: Any) -> bool:
    """True when ``message`` names ``value``: a text as a word of its own, a list of plain
    values as Python writes it (a sibling's hex ``[5, 8]`` lent to a unit whose ``at`` was
    no hex, in "hex [5, 8] already holds 'b1'"). A number alone is not checked: a real
    problem may give the same number, "hex [14, 10]" beside a lent 14."""
    if isinstance(value, list) and value and all(_plain(v) for v in value):
        return str(value) in message
    if not isinstance(value, str) or value == "":
        return False
    return re.search(rf"(?<![\w.]){re.escape(str(value))}(?![\w])", message) is not None


def _plain(value: Any) -> bool:
    """A number or a text (not a bool, which a list of them would write as ``True``)."""
    return isinstance(value, int | float | str) and not isinstance(value, bool)


def _beside_left_out(
    found: list[Problem], data: Any, survivors: dict[Path_, list[int]]
) -> list[Problem]:
    """The problems but those about what holds a left-out item (an emptied list): a
    consequence, not a problem of its own."""
    left_out = [
        (*path, i)
        for path, kept in survivors.items()
        for i in range(_length(data, path))
        if i not in kept
    ]
    return [(w, m) for w, m in found if not any(item[: len(w)] == w for item in left_out)]


def _in_mended_items(
    found: list[Problem], items: set[Path_], fields: dict[Path_, Any]
) -> list[Problem]:
    """The problems inside a mended item, but not at a field the mending set, nor naming a
    value it lent the item (a sibling's ``kind: heavy_cruiser`` lent to a misspelt
    carrier makes "a heavy_cruiser carries no aircraft": the mending's, not the file's)."""
    return [
        (where, message)
        for where, message in found
        if any(where[: len(i)] == i for i in items)
        and not any(where[: len(f)] == f for f in fields)
        and not any(
            where[: len(f) - 1] == f[:-1] and _names(message, value) for f, value in fields.items()
        )
    ]


def _repaired_problems(
    model: type[BaseModel],
    data: Any,
    errors: list[Any],
    cross_check: Callable[[Any], list[Problem]],
) -> tuple[list[Problem], dict[Path_, list[int]]]:
    """Cross problems of ``data`` with the items ``errors`` name left out (:func:`_repair`), in
    original positions, but those naming a left-out item (a consequence); and the surviving
    items of each list. None of either when the repaired data still does not validate."""
    repaired = _repair(model, data, errors)
    if repaired is None:
        return [], {}
    fixed, survivors, dropped = repaired
    try:
        scenario = model.model_validate(fixed)
    except ValidationError:
        return [], {}
    found = [(_to_original(tuple(p), survivors), m) for p, m in cross_check(scenario)]
    return [(w, m) for w, m in found if not any(f"'{d}'" in m for d in dropped)], survivors


def _mend(
    model: type[BaseModel], data: Any, errors: list[Any]
) -> tuple[Any, list[Any], set[Path_], dict[Path_, Any]]:
    """Data whose erroneous list items are mended where they can be; what is left wrong.

    Returns the mended data, the errors not mended (their items are left out
    as :func:`_repair` does), the mended items and the mended fields with the
    value each was lent (:data:`_DEFAULT` for a default).
    """
    by_item: dict[Path_, list[Any]] = {}
    rest: list[Any] = []
    for err in errors:
        loc = tuple(err["loc"])
        item = _innermost_item(data, loc)
        if item is None or err["type"] in {"extra_forbidden", "missing"}:
            rest.append(err)
        else:
            by_item.setdefault(item, []).append(err)
    fixed = copy.deepcopy(data)
    items: set[Path_] = set()
    fields: dict[Path_, Any] = {}
    for item, errs in by_item.items():
        mended = _mend_item(model, data, fixed, item, errs, by_item)
        if mended is None:
            rest.extend(errs)
        else:
            items.add(item)
            fields |= mended
    return fixed, rest, items, fields


def _mend_item(
    model: type[BaseModel],
    data: Any,
    fixed: Any,
    item: Path_,
    errs: list[Any],
    erroneous: dict[Path_, list[Any]],
) -> dict[Path_, Any] | None:
    """Mend ITEM's bad fields in FIXED (its default, a sibling's value, or else the first
    choice its own error names); the value lent each field; None if one cannot be."""
    siblings = [
        (*item[:-1], i) for i in range(_length(data, item[:-1])) if (*item[:-1], i) not in erroneous
    ]
    plan: dict[Path_, Any] = {}
    for err in errs:
        loc = tuple(err["loc"])
        rel = loc[len(item) :]
        if not rel or rel[0] == "id" or not _present(data, loc):
            return None
        if _has_default(model, loc):
            plan[loc] = _DEFAULT
            continue
        donor = next((s for s in siblings if _present(data, (*s, *rel))), None)
        if donor is not None:
            plan[loc] = copy.deepcopy(_get(data, (*donor, *rel)))
            continue
        bound = _bound(err)
        if bound is not None:  # a lone item's number out of range: the nearest it may be
            plan[loc] = bound
            continue
        choices = _choices(err)
        if not choices:  # a lone item: a choice of its own error's, or nothing to lend
            return None
        near = close_names(str(err.get("input")), choices)  # what "did you mean" offers
        plan[loc] = near[0] if near else choices[0]
    for loc, value in plan.items():
        parent = _get(fixed, loc[:-1])
        if value is _DEFAULT:
            parent.pop(loc[-1], None)
        else:
            parent[loc[-1]] = value
    return plan


@dataclass(frozen=True)
class Repaired:
    """A file's data repaired until it validates (:func:`repaired`).

    Attributes:
        model: the repaired data, validated.
        renamed: each unknown key read as the field it may have meant (typo -> field).
        kept: each round's surviving items, by list (as :func:`_repair` gives them).
        refused: every field a round refused, at its place in the data as given.
    """

    model: BaseModel
    renamed: dict[Path_, Path_]
    kept: tuple[dict[Path_, list[int]], ...]
    refused: frozenset[Path_]

    def original(self, path: Path_) -> Path_:
        """``path`` in :attr:`model` at its place in the data as given (the items left out
        before it counted back in)."""
        return _through(path, self.kept)


def _through(path: Path_, kept: Sequence[dict[Path_, list[int]]]) -> Path_:
    """``path`` after rounds of repair that kept ``kept``, at its place before the first."""
    for survivors in reversed(kept):
        path = _to_original(path, survivors)
    return path


REPAIR_ROUNDS = 8
"""Most rounds :func:`repaired` takes: each leaves out more (a refused field, then the item
it left without a field it needs), so a file's rounds are few."""


def repaired(model: type[BaseModel], data: Any, errors: list[Any]) -> Repaired | None:
    """``data``, whose validation as ``model`` gave ``errors``, repaired as
    :func:`cross_problems_after_repair` repairs a scenario (:func:`_repair`: unknown fields
    and refused fields that have a default left out, refused list items left out), and
    again while what is left does not validate (a factor whose misspelt ``value:`` was left
    out has neither values nor a range: it is left out then). An unknown key is first read
    as the field its "did you mean" names, when the data does not give that field
    (``desing: lhs`` as ``design: lhs``); a required field refused is left unset (None).
    Validated as :func:`~sim.contract.bases.validate_plain` does; None when no round
    validates (an error at no field, or at one that neither has a default nor is in a list
    item).

    For the checks that come after a file's schema (a study's factor paths): each may be
    run on what this keeps unless it reads a field :attr:`Repaired.refused` names."""
    fixed = copy.deepcopy(data)
    renamed = _meant(model, data, errors)  # misspelt's, and those of fields with a default
    for typo, right in renamed.items():
        parent = _get(fixed, typo[:-1])
        parent[str(right[-1])] = parent.pop(str(typo[-1]))
    lenient = _lenient(model)
    kept: list[dict[Path_, list[int]]] = []
    refused: set[Path_] = set()
    for _ in range(REPAIR_ROUNDS):
        try:
            valid = validate_plain(lenient, fixed)
        except ValidationError as exc:
            errs = exc.errors()
        else:
            return Repaired(valid, renamed, tuple(kept), frozenset(refused))
        refused |= {_through(untagged(model, tuple(e["loc"])), kept) for e in errs}
        again = _repair(lenient, fixed, errs)
        if again is None:
            return None
        fixed, survivors, _ = again
        kept.append(survivors)
    return None


def _meant(model: type[BaseModel], data: Any, errors: list[Any]) -> dict[Path_, Path_]:
    """Unknown keys whose "did you mean" names a field the data does not give: typo ->
    that field (one typo for each). :func:`misspelt`'s, whose field is a required one
    missing, are among them."""
    out: dict[Path_, Path_] = {}
    for err in errors:
        loc = tuple(err["loc"])
        if err["type"] != "extra_forbidden" or not loc:
            continue
        suggestion = did_you_mean(str(loc[-1]), known_fields(model, loc[:-1]))
        right = (*loc[:-1], suggestion.split("'")[1]) if suggestion else None
        if right is not None and not _present(data, right) and right not in out.values():
            out[loc] = right
    return out


@cache
def _lenient(model: type[BaseModel]) -> type[BaseModel]:
    """``model`` with each required field unset (None) when left out: a repair leaves out a
    required field it refused, as it does one that has a default."""
    unset: dict[str, Any] = {
        name: (field.annotation, FieldInfo.merge_field_infos(field, default=None))
        for name, field in model.model_fields.items()
        if field.is_required()
    }
    if not unset:
        return model
    return create_model(model.__name__, __base__=model, **unset)


def _bound(err: Any) -> int | float | None:
    """For a number out of its range (``strength: 0`` where it must be ≥ 1), the nearest
    value the range allows: the bound itself, or the next whole number past an open one."""
    ctx = err.get("ctx") or {}
    value = err.get("input")
    number = isinstance(value, int | float) and not isinstance(value, bool)
    for key, step in (("ge", 0), ("le", 0), ("gt", 1), ("lt", -1)):
        limit = ctx.get(key)
        if not number or isinstance(limit, bool) or not isinstance(limit, int | float):
            continue
        if step == 0:
            return limit
        if isinstance(value, int) and isinstance(limit, int):
            return limit + step
    return None


def _choices(err: Any) -> list[str]:
    """The values a misspelt choice (a literal or enum error) could have been."""
    if err["type"] not in ("literal_error", "enum"):
        return []
    return _QUOTED.findall(str(err.get("ctx", {}).get("expected", "")))


_DEFAULT = object()
"""A mended field left out, so that its default applies."""


def _length(data: Any, path: Path_) -> int:
    return len(_get(data, path))
