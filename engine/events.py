"""Immutable events, and the registry that parses any logged line into one.

Every event is a frozen pydantic model with a ``Literal`` ``type`` tag, a
``schema_version``, the ``seq`` the log gave it, the ``turn`` and simulation
``time`` it happened at, and, when another event caused it, that event's
``cause`` seq.  Rulesets subclass :class:`Event` and register their classes
with an :class:`EventRegistry`, which parses lines through one
discriminated union.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping
from typing import Annotated, Any, ClassVar, Literal, NamedTuple, TypeVar, Union

from pydantic import BaseModel, ConfigDict, Field, GetCoreSchemaHandler, TypeAdapter
from pydantic_core import core_schema

__all__ = [
    "D6",
    "D20",
    "Draw",
    "Event",
    "EventRegistry",
    "Override",
    "Snapshot",
    "TurnEnded",
    "UnknownEventType",
    "Upcaster",
    "assemble",
    "same_shape",
    "trusted",
    "whole_dump",
]

M = TypeVar("M", bound=BaseModel)
_IMMUTABLE = (str, int, float, bool, type(None))
_MISSING = object()
_Shape = tuple[dict[str, Any], frozenset[str], tuple[str, ...]]
_SHAPES: dict[type[BaseModel], _Shape] = {}
_set = object.__setattr__
_new = object.__new__
# pydantic's slots, set through their descriptors (what ``object.__setattr__`` ends up doing)
_set_fields_set = BaseModel.__dict__["__pydantic_fields_set__"].__set__
_set_extra = BaseModel.__dict__["__pydantic_extra__"].__set__
_set_private = BaseModel.__dict__["__pydantic_private__"].__set__


def _shape(cls: type[BaseModel]) -> _Shape:
    """A model's fields in declaration order with their defaults, the required
    ones, and every field's name in order.

    Raises:
        TypeError: the model has validators (which a trusted build would
            skip) or a default that instances may not share.
    """
    decorators = cls.__pydantic_decorators__
    if decorators.field_validators or decorators.model_validators or decorators.validators:
        raise TypeError(f"{cls.__name__} has validators: it cannot be built trusted")
    template: dict[str, Any] = {}
    required = []
    for name, info in cls.model_fields.items():
        default = info.default
        if info.is_required():
            template[name] = _MISSING
            required.append(name)
        elif info.default_factory is not None or type(default) not in _IMMUTABLE:
            raise TypeError(f"{cls.__name__}.{name}: only immutable defaults may be filled in")
        else:
            template[name] = default
    return template, frozenset(required), tuple(template)


def trusted(cls: type[M], fields: dict[str, Any]) -> M:
    """Build ``cls`` from ``fields`` without validating them: for rule code's hot path.

    The caller guarantees every value has its field's exact type (``float``
    where the field is a float, a model instance for a nested model, a
    :class:`Draw` for a draw), so the model is what validation would have
    made of them and serialises to the same line; defaults fill the rest,
    in declaration order.  A build costs about a third of validating, less
    when ``fields`` names every field in declaration order (then they are
    copied as they are).  Reading a file still validates strictly; and with
    :attr:`engine.log.EventLog.check_lines` on (the test suite), every
    written event is validated again from its line and must write the same
    line back.  Like ``model_construct`` (which is slower), it sets the
    instance's ``__dict__`` and pydantic's bookkeeping attributes directly.

    Raises:
        TypeError: a field is unknown or a required one is missing, or the
            class cannot be built this way (see :func:`_shape`).
    """
    shape = _SHAPES.get(cls)
    if shape is None:
        shape = _SHAPES[cls] = _shape(cls)
    template, required, names = shape
    if len(fields) == len(names) and tuple(fields) == names:  # all, in order: nothing to fill in
        data = fields.copy()
    else:
        data = template.copy()
        data.update(fields)  # known keys keep their declaration order
        if len(data) != len(template) or not fields.keys() >= required:
            unknown = sorted(set(fields) - set(template))
            missing = sorted(required - set(fields))
            raise TypeError(f"{cls.__name__}: unknown fields {unknown}, missing {missing}")
    model = _new(cls)  # assemble(cls, data, set(fields)) in line: one call fewer a record
    _set(model, "__dict__", data)
    _set_fields_set(model, set(fields))
    _set_extra(model, None)
    _set_private(model, None)
    return model


def assemble(cls: type[M], data: dict[str, Any], fields_set: set[str]) -> M:
    """An instance of ``cls`` holding ``data`` as it is: no validation, no defaults.

    The low-level step of :func:`trusted` and of the contract's trusted rows:
    ``data`` must hold every field, in declaration order, each of its exact
    type; ``fields_set`` becomes pydantic's record of the fields given.  It
    sets the instance's ``__dict__`` and pydantic's bookkeeping slots directly,
    as ``model_construct`` does (which is slower).
    """
    model = _new(cls)
    _set(model, "__dict__", data)
    _set_fields_set(model, fields_set)
    _set_extra(model, None)
    _set_private(model, None)
    return model


_DRAW_ARRAY = core_schema.tuple_schema(
    [core_schema.str_schema(), core_schema.int_schema(), core_schema.float_schema()]
)


class Draw(NamedTuple):
    """One uniform draw taken from a named stream: its name, index and value.

    A plain named tuple (a fifth of a model's cost to build, and draws are
    the commonest record), written as the JSON array ``[stream, i, u]``
    (format 4; formats 1–3 wrote an object ``{"stream", "i", "u"}``, which
    :func:`engine.replayfile.formats.draws_as_arrays` turns into this shape on read).
    In an event, a ``Draw`` passes validation as it is (the stream built
    it); anything else must be exactly such an array.
    """

    stream: str
    i: int
    u: float

    @classmethod
    def __get_pydantic_core_schema__(
        cls, source: object, handler: GetCoreSchemaHandler
    ) -> core_schema.CoreSchema:
        """A Draw as it is, else a ``[str, int, float]`` array made one."""
        array = core_schema.no_info_after_validator_function(lambda t: cls(*t), _DRAW_ARRAY)
        return core_schema.json_or_python_schema(
            json_schema=array,
            python_schema=core_schema.union_schema([core_schema.is_instance_schema(cls), array]),
        )


class Event(BaseModel):
    """Base of every logged event.

    Subclasses set ``type`` to a ``Literal`` tag (``"<ruleset>.<name>"``)
    and may raise ``schema_version`` when their shape changes.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    since_format: ClassVar[int] = 1
    """The first replay format version whose files may hold this event type."""
    older_formats: ClassVar[dict[int, int]] = {}
    """Schema version of this type in files of an older format, where it differed
    from today's (format 1 is always 1): ``{2: 1}`` for a type raised in format 3."""
    older_rules: ClassVar[dict[str, int]] = {}
    """Schema version of this type in replays fought under earlier versions of its ruleset
    (the header's ``ruleset_version``), where it differed from today's: ``{"1": 2, "2": 2}``
    for a type raised to version 3 when its rules became version 3, in the same replay
    format. A file fought under one of them may hold the type at that version (read by the
    registry's upcasters) or at today's (its re-simulations and forks are written so)."""

    type: str
    schema_version: int = 1
    seq: int = -1
    turn: int
    time: float
    cause: int | None = None

    def stamped(self, seq: int) -> Event:
        """Set ``seq`` on a fresh, unshared event and return it (the log's stamp).

        :meth:`engine.log.EventLog.stamp` does this (inline, as it is done
        once per event), once, before the event is applied or written; it is
        the one write to a frozen event.

        Raises:
            ValueError: the event already has a seq.
        """
        if self.seq != -1:
            raise ValueError(f"event already stamped with seq {self.seq}")
        self.__dict__["seq"] = seq
        self.__pydantic_fields_set__.add("seq")
        return self


class TurnEnded(Event):
    """Engine event closing a turn: the digest of the whole state at that point.

    Readers use it to name the first turn whose state differs and to flush
    the file once a turn.
    """

    type: Literal["engine.turn_ended"] = "engine.turn_ended"
    state_digest: str


class Snapshot(Event):
    """Engine event: the whole state (plain JSON) at the end of a turn.

    Written every :data:`engine.recorder.SNAPSHOT_EVERY` turns so a reader can
    start a fold from the nearest one instead of from the first event.  It
    changes nothing when applied.
    """

    since_format: ClassVar[int] = 2
    type: Literal["engine.snapshot"] = "engine.snapshot"
    state: dict[str, Any]


class Override(Event):
    """Engine event: a counterfactual set a state field (``battlesim fork``).

    ``path`` walks the state by attribute, mapping key or list index
    (``units.1ri.strength``); ``value`` must have the type of the value it
    replaces.
    """

    since_format: ClassVar[int] = 2
    type: Literal["engine.override"] = "engine.override"
    path: str
    value: Any


D6 = Annotated[int, Field(ge=1, le=6)]
"""A six-sided die as it can show: 1 to 6 (a fork setting it to 0 is refused)."""
D20 = Annotated[int, Field(ge=1, le=20)]
"""A twenty-sided die: 1 to 20."""

Upcaster = Callable[[dict[str, Any]], dict[str, Any]]
"""Turns one stored event of a type at version v into the shape of version v + 1."""


def same_shape(data: dict[str, Any]) -> dict[str, Any]:
    """The upcaster of a version that changed what is recorded, not the shape.

    E.g. a version that began to fill the optional ``cause``: an older record
    keeps the value it had (no cause), which is what it recorded.
    """
    return data


def whole_dump(model: BaseModel) -> dict[str, Any]:
    """``model.model_dump()`` with every field, those a dump leaves out at their default
    (``exclude_if``) too: what a fork may set (``--set prisoners=40`` on an event whose
    line has none)."""
    data = model.model_dump()
    for name in type(model).model_fields:
        if name not in data:
            data[name] = _plain(getattr(model, name))
    return data


def _plain(value: Any) -> Any:
    """A value as ``model_dump`` writes it: models as dicts, in lists, tuples and dicts too."""
    if isinstance(value, BaseModel):
        return value.model_dump()
    if isinstance(value, list | tuple):
        return type(value)(_plain(v) for v in value)
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return value


class UnknownEventType(ValueError):
    """Raised when a line names an event type no registry knows."""


class EventRegistry:
    """The set of event classes one ruleset may log, and their parser.

    Args:
        classes: event classes, each with a distinct ``Literal`` ``type``.
        upcasters: ``(type, v) -> function`` turning a stored version-``v``
            record of ``type`` into version ``v + 1``; applied in a chain on
            read until the record reaches its class's ``schema_version``.
        since_format: the first replay format version the ruleset was
            written in; a file claiming an older format is a forgery. Left out, it
            reads 1, as it always has, and :attr:`since_format_stated` is False (the
            contract suite asks a ruleset to state it).

    Raises:
        ValueError: two classes share a tag, an ``older_rules`` entry no upcaster chain
            reads, or an upcaster that would never be applied (its type unregistered, or
            its version not below its class's ``schema_version``).
    """

    def __init__(
        self,
        classes: Iterable[type[Event]],
        upcasters: Mapping[tuple[str, int], Upcaster] | None = None,
        *,
        since_format: int | None = None,
    ) -> None:
        self.since_format = 1 if since_format is None else since_format
        self.since_format_stated = since_format is not None
        """Whether the ruleset gave ``since_format`` (not the default 1)."""
        self._classes: dict[str, type[Event]] = {}
        self._upcasters = dict(upcasters or {})
        every: tuple[type[Event], ...] = (TurnEnded, Snapshot, Override, *classes)
        for cls in every:
            tag = cls.model_fields["type"].default
            if not isinstance(tag, str) or tag in self._classes:
                raise ValueError(f"event class {cls.__name__} needs a unique type tag")
            self._classes[tag] = cls
            self._check_older_rules(tag, cls)
        for key in self._upcasters:
            self._check_upcaster(key)
        union: Any = Union[tuple(self._classes.values())]  # noqa: UP007
        self._adapter: TypeAdapter[Event] = TypeAdapter(
            Annotated[union, Field(discriminator="type")]
        )

    def _check_upcaster(self, key: tuple[str, int]) -> None:
        """An upcaster ``(type, v)`` for a registered type below its class's schema version:
        any other is never applied (a version left unraised, a misspelt type).

        Raises:
            ValueError: naming the upcaster and what it would need.
        """
        tag, version = key
        cls = self._classes.get(tag)
        if cls is None:
            raise ValueError(f"upcaster {key!r}: no event class of the registry has type {tag!r}")
        current: int = cls.model_fields["schema_version"].default
        if type(version) is not int or not 1 <= version < current:
            raise ValueError(
                f"upcaster {key!r} is never applied: {cls.__name__} is at schema version "
                f"{current}, and ({tag!r}, v) turns a stored version-v record into v + 1 (raise "
                f"{cls.__name__}.schema_version when its shape changes)"
            )

    def _check_older_rules(self, tag: str, cls: type[Event]) -> None:
        """Each ``older_rules`` entry a rules version (text, as headers hold it) naming an
        older schema version that the upcasters bring to the class's own.

        Raises:
            ValueError: naming the class and the entry (an ``int`` version would never match
                a header's ``ruleset_version``, and every replay it meant would be refused).
        """
        current: int = cls.model_fields["schema_version"].default
        for rules, version in cls.older_rules.items():
            where = f"event class {cls.__name__}: older_rules[{rules!r}]"
            if not isinstance(rules, str):
                raise ValueError(
                    f"{where}: a rules version is text ({str(rules)!r}), as headers hold it"
                )
            if type(version) is not int or not 1 <= version < current:
                raise ValueError(f"{where}: {version!r} is not a schema version below {current}")
            missing = [v for v in range(version, current) if (tag, v) not in self._upcasters]
            if missing:
                raise ValueError(
                    f"{where}: no upcaster for ({tag!r}, {missing[0]}): a record at version "
                    f"{version} could not be brought to {current}"
                )

    @property
    def types(self) -> tuple[str, ...]:
        """Return the registered type tags, sorted."""
        return tuple(sorted(self._classes))

    @property
    def classes(self) -> tuple[type[Event], ...]:
        """The registered event classes, the engine's own first, then as given."""
        return tuple(self._classes.values())

    def knows(self, cls: type[Event]) -> bool:
        """True when ``cls`` itself is registered (its tag, and that class, not another)."""
        tag = cls.model_fields["type"].default
        return isinstance(tag, str) and self._classes.get(tag) is cls

    def cls(self, tag: object) -> type[Event]:
        """Return the class registered for ``tag``.

        Raises:
            UnknownEventType: ``tag`` is not a registered type (or not text).
        """
        found = self._classes.get(tag) if isinstance(tag, str) else None
        if found is None:
            raise UnknownEventType(f"unknown event type {tag!r}")
        return found

    def parse(
        self,
        data: dict[str, Any],
        *,
        strict: bool = False,
        prepare: Callable[[type[Event], dict[str, Any]], dict[str, Any]] | None = None,
    ) -> Event:
        """Validate one decoded line into its event class.

        Args:
            strict: exact JSON types only (no ``true`` for a number, no
                ``"5"`` for an int), as :mod:`engine.replayfile.reader` reads files.
            prepare: applied to the record once upcast, before validation
                (the reader's change of an older format's draw shape).

        Raises:
            UnknownEventType: the ``type`` is not registered.
            pydantic.ValidationError: the fields do not fit the class.
        """
        tag = data.get("type")
        if not isinstance(tag, str) or tag not in self._classes:
            raise UnknownEventType(f"unknown event type {tag!r}")
        record = self.upcast(tag, data)
        if prepare is not None:
            record = prepare(self._classes[tag], record)
        if strict:
            # JSON mode: arrays may fill tuples, but no type is coerced.
            return self._adapter.validate_json(json.dumps(record), strict=True)
        return self._adapter.validate_python(record)

    def upcast(self, tag: str, data: dict[str, Any]) -> dict[str, Any]:
        """Bring a stored record up to its class's current ``schema_version``.

        Raises:
            UnknownEventType: the record is newer than this code, no upcaster covers a
                version it needs, or an upcaster raised on it (a record not of its
                version, or an upcaster that does not read it: the message says both).
        """
        current: int = self._classes[tag].model_fields["schema_version"].default
        version = data.get("schema_version", 1)
        if not isinstance(version, int) or version > current:
            raise UnknownEventType(
                f"event type {tag!r} schema version {version!r} is newer than this "
                f"battlesim reads ({current}); upgrade battlesim"
            )
        while version < current:
            step = self._upcasters.get((tag, version))
            if step is None:
                raise UnknownEventType(f"no upcaster for {tag!r} from schema version {version}")
            try:
                data = {**step(data), "schema_version": version + 1}
            except Exception as exc:  # whatever the ruleset's upcaster raises
                # A record not in the shape of its version (a forgery), or an upcaster that
                # does not read it (the ruleset's): no crash, a refusal naming both.
                raise UnknownEventType(
                    f"{tag!r} is not a schema-{version} record, or its upcaster "
                    f"({tag!r}, {version}) is wrong: {_upcaster_failed(exc)}"
                ) from None
            version += 1
        return data


def _upcaster_failed(exc: Exception) -> str:
    """How an upcaster failed on a record: a key it reads that the record lacks, in words (a
    forged record missing a field: ``the record has no 'result', which the upcaster reads``);
    anything else as raised, for the upcaster's author."""
    if type(exc) is KeyError and len(exc.args) == 1 and isinstance(exc.args[0], str):
        return f"the record has no {exc.args[0]!r}, which the upcaster reads"
    return f"it raised {type(exc).__name__}: {exc}"
