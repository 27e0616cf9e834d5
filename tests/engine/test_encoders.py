"""The msgspec line writer writes exactly pydantic's text, or leaves the line to pydantic.

Every event of every golden replay is written both ways and compared with
the line on disk; then the edges the writer must hand back: floats pydantic
writes with ``e+``, ``exclude_if`` fields, a field out of order, a nested
model of a class its field does not name, ``Any``, a serializer, a value
msgspec refuses.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Literal

import pytest
from pydantic import BaseModel, ConfigDict, Field, field_serializer
from pydantic_core import PydanticSerializationError

from engine import encoders
from engine.events import D6, Draw, Event
from engine.log import UntrustedLine, check_line, line_body
from sim.contract import get_ruleset

ROOT = Path(__file__).resolve().parents[2]
GOLDENS = sorted((ROOT / "replays").glob("*.jsonl"))


def _pydantic(event: Event) -> bytes:
    return type(event).__pydantic_serializer__.to_json(event)


@pytest.mark.parametrize("path", GOLDENS, ids=[p.name for p in GOLDENS])
def test_every_golden_line_is_written_alike(path: Path) -> None:
    """Each event read back from a golden writes its own line's body, by msgspec where compiled."""
    lines = path.read_text(encoding="utf-8").splitlines()
    registry = get_ruleset(json.loads(lines[0])["ruleset"]).registry
    by_msgspec = 0
    for line in lines[1:-1]:
        data = json.loads(line)
        del data["h"]
        event = registry.parse(data)
        body = line[: line.rindex(',"h":')] + "}"
        assert line_body(event).decode() == body
        assert _pydantic(event).decode() == body
        by_msgspec += encoders.compiled(type(event))
    assert by_msgspec > 0.9 * (len(lines) - 2)  # every class but the snapshot's


class Inner(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    a: float
    b: list[Draw]


class Sub(Inner):
    extra: int = 7


class Shot(Event):
    type: Literal["test.shot"] = "test.shot"
    x: float
    die: D6 = 1
    tags: dict[str, float] = Field(default_factory=dict)
    inner: Inner | None = None
    gone: int | None = Field(None, exclude_if=lambda v: v is None)
    name: str = ""


class Loose(Event):
    type: Literal["test.loose"] = "test.loose"
    value: Any


class Styled(Event):
    type: Literal["test.styled"] = "test.styled"
    x: float

    @field_serializer("x")
    def _x(self, x: float) -> str:
        return f"{x:.1f}"


def test_classes_compiled_or_not() -> None:
    assert encoders.compiled(Shot)
    assert not encoders.compiled(Loose)  # Any: pydantic writes by the value's type
    assert not encoders.compiled(Styled)  # a serializer
    assert line_body(Styled(turn=1, time=0.0, x=2.0)) == _pydantic(Styled(turn=1, time=0.0, x=2.0))
    loose = Loose(turn=1, time=0.0, value={"k": [1, 2.5, 1e16]})
    assert line_body(loose) == _pydantic(loose)


@pytest.mark.parametrize(
    "x", [0.0, -0.0, 1.5, 1e15, 1e16, -1e16, 1.2345e17, 1e308, 1e-5, 1e-7, 5e-324, 0.1 + 0.2]
)
def test_floats_as_pydantic_writes_them(x: float) -> None:
    """``1e+16`` (pydantic) where msgspec writes ``1e16``: those lines are pydantic's."""
    shot = Shot(turn=1, time=x, x=x, tags={"t": x}, inner=Inner(a=x, b=[Draw("s", 0, 0.5)]))
    assert line_body(shot) == _pydantic(shot)


def test_nan_and_infinity_as_pydantic_writes_them() -> None:
    for x in (float("nan"), float("inf"), float("-inf")):
        shot = Shot(turn=1, time=0.0, x=x, tags={"t": x})
        assert line_body(shot) == _pydantic(shot)
        assert b'"x":null' in line_body(shot)


def test_exclude_if_fields() -> None:
    bare = Shot(turn=1, time=0.0, x=1.0)
    full = Shot(turn=1, time=0.0, x=1.0, gone=3)
    assert b"gone" not in line_body(bare)
    assert b'"gone":3' in line_body(full)
    assert line_body(bare) == _pydantic(bare)
    assert line_body(full) == _pydantic(full)


def test_text_and_wide_ints() -> None:
    for name in ('é\u2028\x00\x1f"\\/', "\U0001f600", "e1e2 3e4"):  # the last: digit e digit
        shot = Shot(turn=2**70, time=0.0, x=1.0, name=name)
        assert line_body(shot) == _pydantic(shot)


def test_a_lone_surrogate_is_refused_as_pydantic_refuses_it() -> None:
    shot = Shot(turn=1, time=0.0, x=1.0, name="\ud800")
    with pytest.raises(PydanticSerializationError):
        _pydantic(shot)
    with pytest.raises(PydanticSerializationError):
        line_body(shot)


def test_fields_out_of_order_are_written_in_declaration_order() -> None:
    """A model whose ``__dict__`` is not in field order: pydantic's order wins."""
    shot = Shot(turn=1, time=0.0, x=1.0, name="n")
    data = shot.__dict__
    data["x"] = data.pop("x")  # moved to the end
    assert list(data)[-1] == "x"
    assert line_body(shot) == _pydantic(shot)


def test_a_nested_model_of_another_class_is_pydantics() -> None:
    """A subclass instance in a field that names its base: pydantic writes the base's fields."""
    inner = Sub(a=1.0, b=[])
    shot = Shot.model_construct(turn=1, time=0.0, x=1.0, inner=inner)
    expected = _pydantic(shot)
    assert b"extra" not in expected
    assert line_body(shot) == expected


def test_a_trusted_build_of_another_type_is_caught_by_the_line_check() -> None:
    """An int in a float field breaks the contract of :func:`~engine.events.trusted`
    (exact types): the line is not pydantic's (``3`` for ``3.0``), and the line check says so."""
    shot = Shot.model_construct(turn=1, time=0.0, x=3)
    body = line_body(shot)
    assert b'"x":3,' in body
    with pytest.raises(UntrustedLine, match="validated"):
        check_line(shot, body.decode())
