"""Trusted events (built without validation) equal validated ones; check_line catches bad ones."""

from __future__ import annotations

from typing import Literal

import pytest
from pydantic import BaseModel, ConfigDict, field_validator

from engine.events import Draw, Event, trusted
from engine.log import EventLog, MemorySink, UntrustedLine, check_line
from tests.engine.conftest import make_header


class Loss(BaseModel):
    """A nested payload, as musket's ``Casualties`` is."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    value: float
    men: int
    draws: list[Draw]


class Shot(Event):
    """An event with defaults before and after its required fields."""

    type: Literal["test.shot"] = "test.shot"
    phase: str = "fire"
    unit: str
    factors: dict[str, float]
    loss: Loss
    note: str | None = None


def _fields() -> dict[str, object]:
    loss = trusted(Loss, {"value": 2.5, "men": 3, "draws": [Draw("1/fire/a", 0, 0.25)]})
    return {"turn": 2, "time": 2.0, "unit": "a", "factors": {"moved": 0.5}, "loss": loss}


def test_trusted_equals_validated_and_writes_the_same_line() -> None:
    """Trusted and validated builds are equal, set the same fields and dump the same text."""
    fast, checked = trusted(Shot, _fields()), Shot(**_fields())  # type: ignore[arg-type]
    assert fast == checked
    assert fast.model_fields_set == checked.model_fields_set == set(_fields())
    assert fast.model_dump_json() == checked.model_dump_json()
    assert list(fast.__dict__) == list(Shot.model_fields)  # declaration order, defaults filled
    assert (fast.phase, fast.seq, fast.cause) == ("fire", -1, None)


def test_trusted_with_every_field_equals_validated_in_any_order() -> None:
    """Every field given, in declaration order (copied as it is) or not (put in order):
    the same model, fields and line as validation's."""
    loss = {"value": 2.5, "men": 3, "draws": [Draw("1/fire/a", 0, 0.25)]}
    checked = Loss(**loss)  # type: ignore[arg-type]
    for given in (loss, dict(reversed(loss.items()))):
        fast = trusted(Loss, given)
        assert fast == checked and fast.model_fields_set == set(Loss.model_fields)
        assert list(fast.__dict__) == ["value", "men", "draws"]
        assert fast.model_dump_json() == checked.model_dump_json()
    assert trusted(Loss, loss).__dict__ is not loss  # the caller's dict is not taken over


def test_trusted_refuses_unknown_and_missing_fields() -> None:
    """A field the model lacks, or a required one left out, is refused by name."""
    with pytest.raises(TypeError, match=r"unknown fields \['range'\], missing \[\]"):
        trusted(Shot, {**_fields(), "range": 3})
    with pytest.raises(TypeError, match=r"unknown fields \[\], missing \['loss', 'unit'\]"):
        trusted(Shot, {"turn": 2, "time": 2.0, "factors": {}})


def test_trusted_refuses_models_it_would_build_wrongly() -> None:
    """A model with a validator (which would be skipped) or a mutable default is refused."""

    class Checked(BaseModel):
        n: int

        @field_validator("n")
        @classmethod
        def positive(cls, n: int) -> int:
            return abs(n)

    class Shared(BaseModel):
        items: list[int] = []

    with pytest.raises(TypeError, match="Checked has validators"):
        trusted(Checked, {"n": -1})
    with pytest.raises(TypeError, match=r"Shared.items: only immutable defaults"):
        trusted(Shared, {})


def _with_men(men: object) -> Shot:
    loss = trusted(Loss, {"value": 2.5, "men": men, "draws": []})
    return trusted(Shot, {**_fields(), "loss": loss}).stamped(0)


@pytest.mark.filterwarnings("ignore::UserWarning")  # pydantic warns of the float it writes
def test_check_line_catches_a_value_of_the_wrong_type() -> None:
    """men=3.0 trusted writes ``"men":3.0``, which no int field reads: the check refuses it."""
    good = _with_men(3)
    check_line(good, good.model_dump_json())
    bad = _with_men(3.0)
    assert '"men":3.0,' in bad.model_dump_json()
    with pytest.raises(UntrustedLine, match=r"(?s)Shot seq 0 does not validate: .*loss\.men"):
        check_line(bad, bad.model_dump_json())


def test_check_line_catches_a_line_that_reads_back_otherwise() -> None:
    """A line whose text validation would write differently (1.50 for 1.5) is refused with both."""
    good = _with_men(3)
    line = good.model_dump_json().replace('"value":2.5', '"value":2.50')
    with pytest.raises(UntrustedLine, match=r'wrote .*"value":2\.50,.* validated .*"value":2\.5,'):
        check_line(good, line)


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_log_checks_lines_only_when_asked(monkeypatch: pytest.MonkeyPatch) -> None:
    """Check on, the log refuses the bad event; off, it writes a line no reader accepts."""
    monkeypatch.setattr(EventLog, "check_lines", True)
    log = EventLog(make_header(), MemorySink())
    with pytest.raises(UntrustedLine):
        log.write(_with_men(3.0))
    monkeypatch.setattr(EventLog, "check_lines", False)
    sink = MemorySink()
    log = EventLog(make_header(), sink)
    log.write(_with_men(3.0))
    assert '"men":3.0,' in sink.lines[-1]


def test_check_line_reads_a_good_line_with_the_compiled_decoder(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A good line of a class the reader compiles is checked without pydantic's round trip.

    The bad lines above still reach pydantic (the compiled decoder does not
    accept them), which words the refusal; a good one never needs it.
    """
    good = _with_men(3)
    line = good.model_dump_json()
    calls: list[str] = []

    def counted(body: str, **kwargs: object) -> Shot:
        calls.append(body)
        raise AssertionError("pydantic was asked to validate a line the decoder reads")

    monkeypatch.setattr(Shot, "model_validate_json", counted)
    check_line(good, line)
    assert calls == []
