"""Fast strict decoding of event lines: msgspec decoders compiled from the pydantic event models.

The event models stay the authoring surface (a plugin writes pydantic
models); :func:`compile_event` turns one into a msgspec-typed ``TypedDict``
of the same fields, types and bounds (and one per nested model), once per
class.  :func:`decode_exact` reads a
line's body with it and accepts the line only when msgspec's encoding of
what it read is byte for byte the body: then the line is exactly the
writer's serialisation, and the event is assembled from the decoded values
without validating again.

It is a speed device only, never the judge.  Whatever it does not accept —
a class it cannot compile (validators, serializers, aliases, ``Any``, a
constraint it cannot express), a line it cannot decode, one whose
re-encoding differs (a float msgspec writes otherwise, ``4`` for ``4.0``,
an escape, a key out of order) — it returns ``None`` for, and the pydantic
path (:func:`engine.replayfile.checks._event`) reads the line and words any refusal.
So the fast path never accepts a line the pydantic path would refuse:

- field types, ``Literal`` tags and ``ge``/``le`` bounds are the model's;
  unknown fields are refused at every level; integers are bounded to the
  64-bit signed range (the strict JSON reader's range, narrowed: a larger
  one goes to the pydantic path);
- the body's bytes must equal the encoding of the decoded values, in
  declaration order, so no key is missing, repeated, reordered or written
  in another form; a line whose text may hold a control character never
  comes here (the caller's check).

``tests/engine/test_decoders.py`` decodes every golden's events both ways
and demands equal events.
"""

from __future__ import annotations

import types
from collections.abc import Callable
from typing import Annotated, Any, Literal, NotRequired, TypedDict, Union, get_args, get_origin

import annotated_types
import msgspec
from pydantic import BaseModel
from pydantic.fields import FieldInfo

from engine.events import Draw, Event, EventRegistry, assemble

__all__ = [
    "FastEvent",
    "check_exact",
    "compile_event",
    "decode_exact",
    "decode_written",
    "fast_decoder",
]

_INT64 = (-(2**63), 2**63 - 1)
_PLAIN_TYPES = (int, str, float, bool)
_Convert = Callable[[Any], Any]
_Check = Callable[[Any], None]


class _Unsupported(TypeError):
    """A model the fast path does not compile (it is read by pydantic alone)."""


class _NotExact(ValueError):
    """An object whose keys are not its model's fields in declaration order."""


class FastEvent:
    """One event class's compiled decoder: a msgspec ``TypedDict`` and how to build the event."""

    __slots__ = ("_build", "_check", "_decoder", "_encode", "schema_version")

    def __init__(self, cls: type[Event]) -> None:
        if "h" in cls.model_fields:  # the line's chain link: a body holding one is a forgery
            raise _Unsupported(f"{cls.__name__} has a field named 'h'")
        struct, build, check = _model(cls)
        self._decoder = msgspec.json.Decoder(struct)
        self._encode = msgspec.json.Encoder().encode
        self._build = build
        self._check = check
        self.schema_version: int = cls.model_fields["schema_version"].default


def compile_event(cls: type[Event]) -> FastEvent | None:
    """The fast decoder of ``cls``, or None when only pydantic may read it."""
    try:
        return FastEvent(cls)
    except _Unsupported:
        return None


_COMPILED: dict[type[Event], FastEvent | None] = {}


def fast_decoder(registry: EventRegistry, tag: str) -> FastEvent | None:
    """The compiled decoder of the class ``registry`` holds for ``tag`` (once per class).

    Compiled the first time a reader asks, from the registered pydantic
    class; None when that class is read by pydantic alone.

    Raises:
        UnknownEventType: ``tag`` is not registered.
    """
    cls = registry.cls(tag)
    if cls not in _COMPILED:
        _COMPILED[cls] = compile_event(cls)
    return _COMPILED[cls]


def decode_exact(fast: FastEvent, body: bytes) -> Event | None:
    """The event whose exact writer's line body is ``body``; None: let pydantic read it."""
    try:
        data = fast._decoder.decode(body)
        if fast._encode(data) != body or data["schema_version"] != fast.schema_version:
            return None
        event: Event = fast._build(data)
    except (msgspec.MsgspecError, _NotExact):
        return None
    return event


def check_exact(fast: FastEvent, body: bytes) -> bool:
    """True when :func:`decode_exact` would accept ``body``, without building the event
    (only the value of a field the writer may leave out, to test it as the writer does).

    The same decode, re-encoding and checks of every object's keys (their order,
    and no value the writer leaves out) as ``decode_exact``, walked over the
    decoded values: for :func:`engine.log.check_line`, which asks only whether a
    line reads back as itself (the suite checks every line a test writes).
    """
    try:
        data = fast._decoder.decode(body)
        if fast._encode(data) != body or data["schema_version"] != fast.schema_version:
            return False
        fast._check(data)
    except (msgspec.MsgspecError, _NotExact):
        return False
    return True


def decode_written(fast: FastEvent, body: bytes) -> Event | None:
    """The event of a body a writer has just written, byte for byte (None: let pydantic read it).

    For ``verify``'s lines that equal its re-simulation's own: the text is
    the writer's serialisation, so it is decoded and built without encoding
    it again to compare (:func:`decode_exact` does that for any other line).
    """
    try:
        event: Event = fast._build(fast._decoder.decode(body))
    except (msgspec.MsgspecError, _NotExact):
        return None
    return event


def _plain(cls: type[BaseModel]) -> None:
    """Raise :class:`_Unsupported` unless the model's lines are its fields' values alone."""
    decorators = cls.__pydantic_decorators__
    if (
        decorators.field_validators
        or decorators.model_validators
        or decorators.validators
        or decorators.field_serializers
        or decorators.model_serializers
        or decorators.computed_fields
        or decorators.root_validators
    ):
        raise _Unsupported(f"{cls.__name__} has validators or serializers")
    if cls.model_config.get("extra") == "allow":
        raise _Unsupported(f"{cls.__name__} allows extra fields")
    if cls.__pydantic_root_model__ or cls.model_config.get("strict"):
        raise _Unsupported(f"{cls.__name__} is a root model or strict")


def _model(cls: type[BaseModel]) -> tuple[Any, _Convert, _Check]:
    """A TypedDict with ``cls``'s fields, a function making the model from one, and one
    raising :class:`_NotExact` where the first would, making nothing."""
    _plain(cls)
    fields: list[tuple[str, Any]] = []
    converters: dict[str, _Convert] = {}
    checkers: dict[str, _Check] = {}
    optional: dict[str, tuple[Callable[[Any], bool], FieldInfo]] = {}
    for name, info in cls.model_fields.items():
        if info.alias or info.serialization_alias or info.validation_alias or info.exclude:
            raise _Unsupported(f"{cls.__name__}.{name} has an alias or is excluded")
        kind, convert, check_value = _type(info.annotation, info.metadata)
        left_out = getattr(info, "exclude_if", None)
        if left_out is not None:  # the writer leaves the field out when left_out(value)
            if info.is_required() or not left_out(info.get_default(call_default_factory=True)):
                raise _Unsupported(f"{cls.__name__}.{name}: excluded, its default written")
            optional[name] = (left_out, info)
            kind = NotRequired[kind]
        fields.append((name, kind))
        if convert is not None:
            converters[name] = convert
        if check_value is not None:
            checkers[name] = check_value
    spec: Any = TypedDict(f"{cls.__name__}Spec", dict(fields))  # type: ignore[misc]  # made at run time
    names = tuple(name for name, _ in fields)
    everything = frozenset(names)
    items = tuple(converters.items())
    checks = tuple(checkers.items())
    maybe = tuple(optional.items())

    def in_order(data: dict[str, Any]) -> tuple[str, ...]:
        """The keys, refused unless they are the fields in order (some left out may be missing)."""
        keys = tuple(data)
        # msgspec ignores unknown keys, and keeps the text's order
        if keys != names and (not maybe or keys != tuple(n for n in names if n in data)):
            raise _NotExact(cls.__name__)
        return keys

    def build(data: dict[str, Any]) -> Any:
        keys = in_order(data)
        for name, convert in items:
            if name in data:
                data[name] = convert(data[name])
        if len(keys) == len(names):
            for name, (left_out, _) in maybe:
                if left_out(data[name]):  # a value the writer never writes
                    raise _NotExact(cls.__name__)
            return assemble(cls, data, set(everything))
        full = {
            n: data[n] if n in data else optional[n][1].get_default(call_default_factory=True)
            for n in names
        }
        for name, (left_out, _) in maybe:
            if name in data and left_out(data[name]):
                raise _NotExact(cls.__name__)
        return assemble(cls, full, set(keys))

    def check(data: dict[str, Any]) -> None:
        in_order(data)
        for name, check_value in checks:
            if name in data:
                check_value(data[name])
        for name, (left_out, _) in maybe:
            if name in data:  # the writer's test reads the value build would hold
                value = converters[name](data[name]) if name in converters else data[name]
                if left_out(value):
                    raise _NotExact(cls.__name__)

    return spec, build, check


def _bounds(metadata: list[Any]) -> msgspec.Meta:
    """The ``ge``/``le`` bounds of an int field, within the 64-bit signed range."""
    low, high = _INT64
    for item in metadata:
        if isinstance(item, annotated_types.Ge) and isinstance(item.ge, int):
            low = max(low, item.ge)
        elif isinstance(item, annotated_types.Le) and isinstance(item.le, int):
            high = min(high, item.le)
        else:
            raise _Unsupported(f"constraint {item!r}")
    return msgspec.Meta(ge=low, le=high)


def _type(annotation: Any, metadata: list[Any]) -> tuple[Any, _Convert | None, _Check | None]:
    """The msgspec type of one annotation, the conversion of a decoded value (None: as is),
    and the check of a decoded value that conversion makes (None: nothing to check)."""
    origin, args = get_origin(annotation), get_args(annotation)
    if origin is Annotated:
        extra = [m for m in args[1:] if not _is_fieldinfo(m)]
        for m in args[1:]:
            if _is_fieldinfo(m):
                extra.extend(m.metadata)
        return _type(args[0], [*metadata, *extra])
    if annotation is int:
        return Annotated[int, _bounds(metadata)], None, None
    if metadata:
        raise _Unsupported(f"constraints on {annotation!r}")
    if annotation in _PLAIN_TYPES or annotation is type(None):
        return annotation, None, None
    if annotation is Draw:
        return tuple[str, Annotated[int, _bounds([])], float], _draw, None
    if origin is Literal:
        if not all(type(a) in (str, int) and type(a) is not bool for a in args):
            raise _Unsupported(f"{annotation!r}")
        return annotation, None, None
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return _model(annotation)
    return _container(annotation, origin, args)


def _container(
    annotation: Any, origin: Any, args: tuple[Any, ...]
) -> tuple[Any, _Convert | None, _Check | None]:
    """The msgspec type of an optional, list, tuple or str-keyed dict annotation."""
    if origin in (Union, types.UnionType):
        rest = [a for a in args if a is not type(None)]
        if len(rest) != 1 or len(args) != 2:
            raise _Unsupported(f"{annotation!r}: only an optional type")
        inner, convert, check = _type(rest[0], [])
        return (
            inner | None,
            None if convert is None else _optional(convert),
            None if check is None else _optional(check),
        )
    if origin is list and len(args) == 1:
        inner, convert, check = _type(args[0], [])
        return (
            list[inner],  # type: ignore[valid-type]
            None if convert is None else _items(convert),
            None if check is None else _each(check),
        )
    if origin is tuple and args and ... not in args:
        specs = [_type(a, []) for a in args]
        if any(c is not None for _, c, _ in specs):
            raise _Unsupported(f"{annotation!r}: a tuple holding models or draws")
        return tuple[tuple(s for s, _, _ in specs)], None, None  # type: ignore[misc]
    if origin is dict and len(args) == 2 and args[0] is str:
        inner, convert, check = _type(args[1], [])
        return (
            dict[str, inner],  # type: ignore[valid-type]
            None if convert is None else _values(convert),
            None if check is None else _each_value(check),
        )
    raise _Unsupported(f"{annotation!r}")


def _is_fieldinfo(item: Any) -> bool:
    return isinstance(item, FieldInfo)


_draw = Draw._make


def _optional(convert: _Convert) -> _Convert:
    return lambda value: None if value is None else convert(value)


def _items(convert: _Convert) -> _Convert:
    return lambda value: [convert(v) for v in value]


def _values(convert: _Convert) -> _Convert:
    return lambda value: {k: convert(v) for k, v in value.items()}


def _each(check: _Check) -> _Check:
    def each(value: list[Any]) -> None:
        for v in value:
            check(v)

    return each


def _each_value(check: _Check) -> _Check:
    def each(value: dict[str, Any]) -> None:
        for v in value.values():
            check(v)

    return each
