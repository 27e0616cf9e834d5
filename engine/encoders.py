"""Event lines on msgspec: encoders compiled from the pydantic event models, the same bytes.

The event models stay the authoring surface; a line is what pydantic's
serializer writes for the event (``model_dump_json``).  :func:`line_body`
writes it with msgspec where that is provably the same text, and with
pydantic everywhere else:

* **per class, once** (the first time an event of the class is written):
  the class is compiled when every field, at every level of nesting, is of
  a type both write alike — ``int``, ``float``, ``str``, ``bool``, None,
  ``Literal`` tags, :class:`~engine.events.Draw`, a nested model that is
  itself compiled, and optionals, unions, lists, tuples and str-keyed dicts
  of those (``Annotated`` bounds do not change the text) — and nothing
  changes what pydantic writes: no serializers, computed fields, aliases,
  ``exclude``, a root model or a ``ser_json_*`` setting.  ``exclude_if``
  fields are left out exactly when their condition holds, as pydantic does.
  ``Any`` (a snapshot's state, an override's value), enums, sets, dates...
  are pydantic's alone;
* **per line**: the model's ``__dict__`` (a nested model's too, through
  the encoder's hook) is encoded as it is, so each value must be of the
  exact kind its field is: a model's fields must be in declaration order
  (checked), and a nested model must be of a class the event's annotations
  name (checked).  msgspec writes a float of 1e16 or more as ``1e16``
  where pydantic writes ``1e+16``: a body holding a digit, ``e`` and a
  digit is written again by pydantic (that also catches such text inside a
  string: slower, never different).  Anything msgspec refuses (a lone
  surrogate, a value of another type) goes to pydantic, which writes or
  refuses it as before.

The values are the exact types their fields declare whenever the event was
validated or built by :func:`engine.events.trusted` as documented (each
value of its field's exact type).  A trusted build that breaks that
contract with an int in a float field is written ``3`` here where pydantic
wrote ``3.0``: the test suite's line check (:func:`engine.log.check_line`), which validates every
written line again and demands pydantic's text back, refuses such a line
(before, pydantic's own conversion hid the slip), and
``tests/engine/test_encoders.py`` compares both writers on every event of
every golden replay.
"""

from __future__ import annotations

import re
import types
from collections.abc import Callable
from typing import Annotated, Any, Literal, Union, get_args, get_origin

import annotated_types
import msgspec
from pydantic import BaseModel
from pydantic.fields import FieldInfo

from engine.events import Draw, Event

__all__ = ["compiled", "line_body", "pydantic_body"]

_SAFE_CONFIG = frozenset(
    {
        "frozen",
        "extra",
        "title",
        "strict",
        "validate_assignment",
        "validate_default",
        "revalidate_instances",
        "populate_by_name",
        "use_attribute_docstrings",
        "defer_build",
    }
)
"""``model_config`` keys that leave a model's JSON as its fields in order."""
_PLAIN = (int, float, str, bool, type(None))
_EXPONENT = re.compile(rb"[0-9]e[0-9]").search
"""A float msgspec writes without the ``+`` pydantic writes (``1e16``), or such text."""


class _Unsupported(TypeError):
    """A class whose lines only pydantic writes."""


class _Fallback(Exception):
    """This event's line is pydantic's to write."""


_Plan = tuple[tuple[str, ...], tuple[tuple[str, Callable[[Any], Any]], ...]]
"""A model's field names in order, and its ``exclude_if`` fields with their conditions."""

_PLANS: dict[type[BaseModel], _Plan] = {}
_LINES: dict[type[Event], Callable[[Event], bytes] | None] = {}


def pydantic_body(event: Event) -> bytes:
    """The line body as pydantic writes it: ``event.model_dump_json()``, encoded."""
    return type(event).__pydantic_serializer__.to_json(event)


def _plan(cls: type[BaseModel], nested: set[type[BaseModel]]) -> _Plan:
    """The plan of ``cls`` (checked once); nested models it names are added to ``nested``.

    Raises:
        _Unsupported: pydantic might write another text than its fields in order.
    """
    found = _PLANS.get(cls)
    if found is not None:
        _nested_of(cls, nested)
        return found
    decorators = cls.__pydantic_decorators__
    if (
        decorators.field_serializers
        or decorators.model_serializers
        or decorators.computed_fields
        or cls.__pydantic_root_model__
        or not set(cls.model_config) <= _SAFE_CONFIG
        or cls.model_config.get("extra") == "allow"
    ):
        raise _Unsupported(f"{cls.__name__}: serializers or settings")
    excluded = []
    for name, info in cls.model_fields.items():
        if info.alias or info.serialization_alias or info.exclude:
            raise _Unsupported(f"{cls.__name__}.{name}: an alias or excluded")
        condition = getattr(info, "exclude_if", None)
        if condition is not None:
            excluded.append((name, condition))
        _check(info.annotation, info.metadata, nested)
    plan: _Plan = (tuple(cls.model_fields), tuple(excluded))
    _PLANS[cls] = plan
    return plan


def _nested_of(cls: type[BaseModel], nested: set[type[BaseModel]]) -> None:
    for info in cls.model_fields.values():
        _check(info.annotation, info.metadata, nested)


def _check(annotation: Any, metadata: list[Any], nested: set[type[BaseModel]]) -> None:
    """Raise :class:`_Unsupported` unless both writers write values of ``annotation`` alike."""
    if not all(isinstance(item, annotated_types.BaseMetadata) for item in metadata):
        raise _Unsupported(f"metadata {metadata!r}")  # bounds and lengths change no text
    origin, args = get_origin(annotation), get_args(annotation)
    if origin is Annotated:
        _check(args[0], _metadata(args[1:]), nested)
    elif annotation in _PLAIN or annotation is Draw:
        return
    elif origin is Literal:
        if not all(a is None or type(a) in (str, int, bool) for a in args):
            raise _Unsupported(f"{annotation!r}")
    elif isinstance(annotation, type) and issubclass(annotation, BaseModel):
        if annotation not in nested:
            nested.add(annotation)
            _plan(annotation, nested)
    elif origin in (Union, types.UnionType, list) or (origin is tuple and args):
        for arg in args:
            if arg is not ...:
                _check(arg, [], nested)
    elif origin is dict and len(args) == 2 and args[0] is str:
        _check(args[1], [], nested)
    else:
        raise _Unsupported(f"{annotation!r}")


def _metadata(items: tuple[Any, ...]) -> list[Any]:
    """What ``Annotated`` adds to a type (a ``Field``'s bounds with the rest)."""
    more: list[Any] = []
    for item in items:
        if isinstance(item, FieldInfo):
            if item.alias or item.serialization_alias or item.exclude:
                raise _Unsupported(f"{item!r}")
            more.extend(item.metadata)
        else:
            more.append(item)
    return more


def _fields(model: BaseModel, plan: _Plan) -> dict[str, Any]:
    """The model's fields as pydantic writes them: in order, ``exclude_if`` ones left out."""
    data = model.__dict__
    names, excluded = plan
    if tuple(data) != names:
        raise _Fallback
    if excluded:
        data = data.copy()
        for name, condition in excluded:
            if condition(data[name]):
                del data[name]
    return data


def _compile(cls: type[Event]) -> Callable[[Event], bytes] | None:
    """The msgspec writer of ``cls``'s line bodies, or None (pydantic writes them)."""
    nested: set[type[BaseModel]] = set()
    try:
        plan = _plan(cls, nested)
    except _Unsupported:
        return None
    plans = {model: _PLANS[model] for model in nested}

    def hook(value: Any) -> Any:
        found = plans.get(type(value))
        if found is None:  # not a model this event's fields name: pydantic's to write
            raise _Fallback
        return _fields(value, found)

    encode = msgspec.json.Encoder(enc_hook=hook).encode

    def write(event: Event) -> bytes:
        return encode(_fields(event, plan))

    return write


def compiled(cls: type[Event]) -> bool:
    """True when msgspec writes ``cls``'s lines (those :func:`line_body` does not hand back)."""
    if cls not in _LINES:
        _LINES[cls] = _compile(cls)
    return _LINES[cls] is not None


def line_body(event: Event) -> bytes:
    """The event's line without its hash: exactly ``event.model_dump_json()``, encoded.

    Written by msgspec where its text is provably pydantic's (see the
    module's notes), else by pydantic's serializer itself.
    """
    cls = type(event)
    write = _LINES.get(cls, _fallback)
    if write is _fallback:
        write = _LINES[cls] = _compile(cls)
    if write is not None:
        try:
            body = write(event)
        except (_Fallback, TypeError, ValueError, OverflowError, msgspec.EncodeError):
            pass
        else:
            if _EXPONENT(body) is None:
                return body
    return cls.__pydantic_serializer__.to_json(event)


def _fallback(event: Event) -> bytes:  # pragma: no cover - a sentinel, never called
    return pydantic_body(event)
