"""The msgspec decoders compiled from the event models read what pydantic reads, and no more.

Every event line of every golden replay (and of the format-4 replays kept
under tests/data) is read both ways: by :func:`engine.replayfile.decoders.decode_exact`
and by the pydantic path (:func:`engine.replayfile.checks._event`); the events must be
equal, field by field, with the same Python types.  Lines the pydantic path
refuses, or whose text is not exactly the writer's, are never accepted by
the fast path (it returns None and leaves them to pydantic).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

from engine.events import Event, EventRegistry
from engine.replayfile import decoders
from engine.replayfile.checks import _event, _event_fast, _open
from engine.replayfile.reader import ReplayStream
from sim.replay.header import registry_for

ROOT = Path(__file__).resolve().parents[2]
REPLAYS = sorted((ROOT / "replays").glob("*.jsonl")) + sorted(
    (ROOT / "tests" / "data" / "replays").glob("*.format4.jsonl")
)


def _typed(value: Any) -> Any:
    """A value with every nested model and container spelt out with its exact types."""
    if isinstance(value, BaseModel):
        return (type(value), {k: _typed(v) for k, v in value.__dict__.items()})
    if isinstance(value, list | tuple):
        return (type(value), [_typed(v) for v in value])
    if isinstance(value, dict):
        return (dict, {k: _typed(v) for k, v in value.items()})
    return (type(value), value)


def _lines(path: Path) -> tuple[ReplayStream, list[Any]]:
    stream = ReplayStream(path, registry_for)
    return stream, list(stream.lines())


@pytest.mark.parametrize("path", REPLAYS, ids=lambda p: p.name)
def test_every_event_decodes_to_the_same_event_both_ways(path: Path) -> None:
    """msgspec and pydantic give equal events of identical types for each line of each replay."""
    stream, lines = _lines(path)
    fast_read = 0
    for line in lines:
        if line.type is None:
            continue  # parsed at once by the reader: not the writer's exact prefix
        data = _open(stream.name, line.mark.line, line.text, line.body, line.seq)
        slow = _event(
            stream.name,
            line.mark.line,
            (line.body, data),
            line.seq,
            stream.registry,
            stream.header.format_version,
        )
        fast = _event_fast(
            line.body, line.seq, stream.registry, line.type, stream.header.format_version
        )
        compiled_type = decoders.fast_decoder(stream.registry, line.type)
        if compiled_type is not None:  # check_line's walk accepts exactly what is built
            assert decoders.check_exact(compiled_type, line.body.encode()) is (fast is not None)
        if fast is None:
            continue
        fast_read += 1
        assert _typed(fast) == _typed(slow)
        assert fast.model_fields_set == slow.model_fields_set
        assert fast.model_dump_json() == slow.model_dump_json() == line.body
    compiled = {
        t for t in stream.registry.types if decoders.fast_decoder(stream.registry, t) is not None
    }
    expected = sum(1 for line in lines if line.type in compiled)
    assert fast_read == expected > len(lines) // 2


def test_every_registered_type_but_the_open_ones_compiles() -> None:
    """Each ruleset's event classes compile, except the two holding free-form values; a
    field a line may leave out (``exclude_if``: rules v3's additions, kept out of older
    versions' lines) compiles as a key that may be missing."""
    from sim.contract import get_ruleset

    for name in ("musket", "becmi", "flattop"):
        registry: EventRegistry = get_ruleset(name).registry
        missing = [t for t in registry.types if decoders.fast_decoder(registry, t) is None]
        assert missing == ["engine.override", "engine.snapshot"], name


def _fired() -> tuple[EventRegistry, str, dict[str, Any]]:
    """A real musket.fired line body from the stone-wall golden, and its registry."""
    stream, lines = _lines(ROOT / "replays" / "stone_wall-s1862.jsonl")
    line = next(line for line in lines if line.type == "musket.fired")
    return stream.registry, line.body, json.loads(line.body)


def _variants(body: str, data: dict[str, Any]) -> dict[str, str]:
    """Lines a forger might write, each not the writer's exact text or not lawful."""
    floats = [k for k, v in data.items() if type(v) is float and v.is_integer()]
    ints = [k for k, v in data.items() if type(v) is int and k != "seq"]
    key = floats[0]
    out = {
        "float written as int": body.replace(f'"{key}":{data[key]!r}', f'"{key}":{int(data[key])}'),
        "int of 2**64": body.replace(f'"{ints[0]}":{data[ints[0]]}', f'"{ints[0]}":{2**64}'),
        "int of 2**63": body.replace(f'"{ints[0]}":{data[ints[0]]}', f'"{ints[0]}":{2**63}'),
        "extra key": body[:-1] + ',"extra":1}',
        "h inside": body[:-1] + ',"h":"00"}',
        "space": body.replace(",", ", ", 1),
        "escaped letter": body.replace('"musket.fired"', '"musket.fir\\u0065d"'),
        "key repeated": body[:-1] + f',"{ints[0]}":{data[ints[0]]}}}',
        "bool for int": body.replace(f'"{ints[0]}":{data[ints[0]]}', f'"{ints[0]}":true'),
        "null for required": body.replace(f'"{key}":{data[key]!r}', f'"{key}":null'),
    }
    reordered = dict(reversed(list(data.items())))
    out["keys reordered"] = json.dumps(reordered, separators=(",", ":"))
    missing = dict(data)
    del missing["cause"]
    out["default left out"] = json.dumps(missing, separators=(",", ":"))
    inner = dict(data)
    inner["result"] = dict(reversed(list(data["result"].items())))
    out["nested keys reordered"] = json.dumps(inner, separators=(",", ":"))
    assert all(v != body for v in out.values())
    return out


def test_forged_texts_are_left_to_pydantic() -> None:
    """No text other than the writer's exact line is accepted by the fast decoder."""
    registry, body, data = _fired()
    fast = decoders.fast_decoder(registry, "musket.fired")
    assert decoders.decode_exact(fast, body.encode()) is not None
    assert decoders.check_exact(fast, body.encode())
    variants = _variants(body, data)
    refused = {name: decoders.decode_exact(fast, text.encode()) for name, text in variants.items()}
    assert refused == dict.fromkeys(refused)
    checked = {name: decoders.check_exact(fast, text.encode()) for name, text in variants.items()}
    assert checked == dict.fromkeys(checked, False)


def test_a_die_out_of_its_range_is_left_to_pydantic() -> None:
    """A d20 of 21 is not decoded fast: the bounds compile from the model's ge/le."""
    from sim.contract import get_ruleset

    registry = get_ruleset("becmi").registry
    _stream, lines = _lines(ROOT / "replays" / "tavern_brawl-s377.jsonl")
    line = next(line for line in lines if '"roll":' in line.body and line.type is not None)
    data = json.loads(line.body)
    assert (
        decoders.decode_exact(decoders.fast_decoder(registry, line.type), line.body.encode())
        is not None
    )
    roll = _find(data, "roll")
    forged = line.body.replace(f'"roll":{roll}', '"roll":21', 1)
    assert (
        decoders.decode_exact(decoders.fast_decoder(registry, line.type), forged.encode()) is None
    )


def _find(data: Any, key: str) -> Any:
    if isinstance(data, dict):
        if key in data:
            return data[key]
        for v in data.values():
            found = _find(v, key)
            if found is not None:
                return found
    if isinstance(data, list):
        for v in data:
            found = _find(v, key)
            if found is not None:
                return found
    return None


def test_a_model_with_a_validator_is_not_compiled() -> None:
    """A class whose validation does more than its types (a validator) is read by pydantic only."""
    from typing import Literal

    from pydantic import field_validator

    class Checked(Event):
        type: Literal["toy.checked"] = "toy.checked"
        n: int

        @field_validator("n")
        @classmethod
        def _odd(cls, n: int) -> int:
            return n

    assert decoders.compile_event(Checked) is None


RULES1 = ROOT / "tests" / "data" / "replays" / "stone_wall-s1862-musket-rules1.jsonl"
CHANCELLORSVILLE = ROOT / "replays" / "chancellorsville-s1863.jsonl"
CORAL_SEA = ROOT / "replays" / "coral_sea-s1942.jsonl"


def _both(path: Path, tag: str) -> list[tuple[Any, Event, Event | None]]:
    """Each ``tag`` line of ``path``: (line, pydantic's event, msgspec's event or None)."""
    stream, lines = _lines(path)
    out = []
    for line in lines:
        if line.type != tag:
            continue
        data = _open(stream.name, line.mark.line, line.text, line.body, line.seq)
        version = stream.header.format_version
        slow = _event(
            stream.name, line.mark.line, (line.body, data), line.seq, stream.registry, version
        )
        fast = decoders.decode_exact(
            decoders.fast_decoder(stream.registry, tag), line.body.encode()
        )
        out.append((line, slow, fast))
    assert out, f"no {tag} line in {path.name}"
    return out


@pytest.mark.parametrize(
    ("path", "tag", "field"),
    [
        (RULES1, "musket.meleed", "odds"),  # rules v1: odds and flank left out
        (CHANCELLORSVILLE, "musket.meleed", "odds"),  # rules v3: odds written
        (CORAL_SEA, "flattop.anti_aircraft", "attack_spoiled"),
    ],
)
def test_a_field_a_line_may_leave_out_decodes_as_pydantic_reads_it(
    path: Path, tag: str, field: str
) -> None:
    """Left out or written, the event is pydantic's, with its types and its set fields."""
    both = _both(path, tag)
    for _line, slow, fast in both:
        assert fast is not None
        assert _typed(fast) == _typed(slow)
        assert fast.model_fields_set == slow.model_fields_set
    written = [f'"{field}":' in line.body for line, _, _ in both]
    assert all(not w for w in written) if path == RULES1 else any(written)


def test_an_excluded_value_written_out_or_moved_is_left_to_pydantic() -> None:
    """``"odds":null`` (which the writer leaves out), ``"attack_spoiled":[]`` (the same),
    or an optional key out of its place: never decoded fast; pydantic refuses the first two."""
    registry = ReplayStream(RULES1, registry_for).registry
    melee = _both(RULES1, "musket.meleed")[0][0].body
    null_odds = melee[:-1] + ',"odds":null}'
    v3 = next(line.body for line, _, _ in _both(CHANCELLORSVILLE, "musket.meleed"))
    data = json.loads(v3)
    moved = dict(data)
    moved["odds"] = moved.pop("odds")  # odds after flank: not the declaration order
    assert "flank" in data and list(moved) != list(data)
    moved_text = json.dumps(moved, separators=(",", ":"))
    fast = decoders.fast_decoder(registry, "musket.meleed")
    for text in (null_odds, moved_text):
        assert decoders.decode_exact(fast, text.encode()) is None
        assert not decoders.check_exact(fast, text.encode())
    aa = _both(CORAL_SEA, "flattop.anti_aircraft")
    plain = next(line.body for line, _, _ in aa if '"attack_spoiled"' not in line.body)
    spoiled = plain[:-1] + ',"attack_spoiled":[]}'
    flattop = ReplayStream(CORAL_SEA, registry_for).registry
    aa_fast = decoders.fast_decoder(flattop, "flattop.anti_aircraft")
    assert decoders.decode_exact(aa_fast, spoiled.encode()) is None
    assert not decoders.check_exact(aa_fast, spoiled.encode())
    from engine.replayfile.checks import ReplayError

    for text, reg in ((null_odds, registry), (spoiled, flattop)):
        with pytest.raises(ReplayError):
            _event("x", 2, (text, json.loads(text)), json.loads(text)["seq"], reg, 5)


def _reordered_inside(value: Any, in_list: bool = False) -> Any:
    """Each copy of ``value`` with one nested object's keys reversed (below the top level),
    as (copy, whether that object is a list's element)."""
    if isinstance(value, dict):
        for key, item in value.items():
            if isinstance(item, dict) and len(item) > 1:
                yield {**value, key: dict(reversed(list(item.items())))}, False
            for inner, listed in _reordered_inside(item):
                yield {**value, key: inner}, listed
    elif isinstance(value, list):
        for i, item in enumerate(value):
            if isinstance(item, dict) and len(item) > 1:
                yield [*value[:i], dict(reversed(list(item.items()))), *value[i + 1 :]], True
            for inner, listed in _reordered_inside(item):
                yield [*value[:i], inner, *value[i + 1 :]], listed


@pytest.mark.parametrize("path", REPLAYS, ids=lambda p: p.name)
def test_a_nested_object_out_of_order_is_judged_alike_by_both(path: Path) -> None:
    """Every golden line with one nested object's keys reversed — in a field, a list's element
    or a dict's value: check_exact accepts it exactly when decode_exact builds an event (a
    free dict's order is data; a model's is its declaration order), and inside a list a model
    out of order is refused (the tavern brawl's pins)."""
    stream, lines = _lines(path)
    refused_in_lists = 0
    for line in lines:
        if line.type is None:
            continue
        fast = decoders.fast_decoder(stream.registry, line.type)
        if fast is None:
            continue
        for variant, listed in _reordered_inside(json.loads(line.body)):
            body = json.dumps(variant, separators=(",", ":"), ensure_ascii=False).encode()
            built = decoders.decode_exact(fast, body)
            assert decoders.check_exact(fast, body) is (built is not None)
            refused_in_lists += listed and built is None
    if path.name == "tavern_brawl-s377.jsonl":  # its wrestles hold lists of pins
        assert refused_in_lists > 0
