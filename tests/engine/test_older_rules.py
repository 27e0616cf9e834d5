"""An event type raised to a new schema version in today's replay format: the replays fought
under the rules versions it names in ``older_rules`` still read (upcast), and verify compares
their re-simulation event by event; a file of any other rules version is held to today's
shape (Eli's story: a rule changes an event's shape, old replays still load)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, ClassVar, Literal

import pytest

from engine.comparison.replay import verify
from engine.events import Event, EventRegistry
from engine.log import GENESIS, EventLog, Header, Sink, seal
from engine.replayfile.formats import ShapeError, check_event_line, schema_versions_in
from engine.replayfile.reader import ReplayError, read_replay
from engine.replayfile.sinks import FileSink
from engine.version import FORMAT_VERSION
from tests.engine.conftest import make_header


class Hit(Event):
    """Version 1, as the rules of version 1 recorded it."""

    type: Literal["test.hit"] = "test.hit"
    n: int


class HitV2(Event):
    """Version 2 adds ``doubled``: files fought under rules version 1 hold version 1."""

    type: Literal["test.hit"] = "test.hit"
    schema_version: int = 2
    older_rules: ClassVar[dict[str, int]] = {"1": 1}
    n: int
    doubled: int


def _v1_v2(data: dict[str, Any]) -> dict[str, Any]:
    return {**data, "doubled": 2 * data["n"]}


OLD = EventRegistry([Hit])
NEW = EventRegistry([HitV2], {("test.hit", 1): _v1_v2})


def _header(rules: str) -> Header:
    return make_header().model_copy(update={"ruleset_version": rules})


def _fight(header: Header, sink: Sink, *, v2: bool, doubled: int = 2) -> None:
    log = EventLog(header, sink)
    for i in range(3):
        n = 10 * i
        hit = (
            HitV2(turn=1, time=0.0, n=n, doubled=doubled * n) if v2 else Hit(turn=1, time=0.0, n=n)
        )
        log.write(log.stamp(hit))
    log.close(final_turn=1, final_state_digest="sha256:" + "0" * 64)


def _file(tmp_path: Path, rules: str, *, v2: bool) -> Path:
    path = tmp_path / f"rules{rules}-v{2 if v2 else 1}.jsonl"
    _fight(_header(rules), FileSink(path), v2=v2)
    return path


def test_the_lawful_versions_are_the_formats_and_the_older_rules() -> None:
    """Under rules 1 a format-5 file holds test.hit at 1 or 2; under rules 2, at 2 only;
    format 1 holds every type at 1."""
    assert schema_versions_in(FORMAT_VERSION, HitV2, "1") == (1, 2)
    assert schema_versions_in(FORMAT_VERSION, HitV2, "2") == (2,)
    assert schema_versions_in(FORMAT_VERSION, HitV2, None) == (2,)
    assert schema_versions_in(1, HitV2, "1") == (1,)


def test_a_replay_of_the_older_rules_reads_upcast(tmp_path: Path) -> None:
    """Version-1 lines of a file fought under rules 1 read as version 2, ``doubled`` made
    by the upcaster; a re-simulation's version-2 lines under rules 1 read as they are."""
    old = _file(tmp_path, "1", v2=False)
    replay = read_replay(old, lambda _: NEW)
    assert [(type(e), e.n, e.doubled) for e in replay.events] == [  # type: ignore[attr-defined]
        (HitV2, 0, 0),
        (HitV2, 10, 20),
        (HitV2, 20, 40),
    ]
    assert replay.upcast == 3
    again = read_replay(_file(tmp_path, "1", v2=True), lambda _: NEW)
    assert (again.upcast, again.events) == (0, replay.events)


def test_a_replay_of_todays_rules_is_held_to_todays_shape(tmp_path: Path) -> None:
    """The same version-1 lines under a header of rules 2: damaged at the first, naming
    the version the format writes and, for a plugin author who raised the version and
    forgot older_rules, where an older line reads and the class whose older_rules leaves
    out the file's rules version (the fix: name it there)."""
    old = _file(tmp_path, "2", v2=False)
    with pytest.raises(ReplayError) as refused:
        read_replay(old, lambda _: NEW)
    assert str(refused.value) == (
        f"{old}:2 (seq 0): bad event: schema_version 1: format {FORMAT_VERSION} writes "
        "test.hit at schema version 2 (a line of test.hit before it changed shape reads where "
        "its class's older_rules names the rules version it was fought under; "
        "HitV2.older_rules does not name this file's, '2')"
    )


def test_a_version_neither_names_is_refused_naming_both() -> None:
    """A line at version 0 in a file of rules 1: the refusal names both lawful versions."""
    with pytest.raises(ShapeError) as refused:
        check_event_line(FORMAT_VERSION, HitV2, {"type": "test.hit", "schema_version": 0}, "1")
    assert str(refused.value) == (
        f"schema_version 0: format {FORMAT_VERSION} under rules v1 writes test.hit at schema "
        "version 1 or 2"
    )


def test_verify_compares_an_older_rules_replay_event_by_event(tmp_path: Path) -> None:
    """verify: the old file against today's re-simulation (version-2 lines) is OK, its
    version-1 lines compared by value, the rest byte for byte (its chain of links parts
    after the first); a re-simulation that differs in a value is a mismatch naming that
    field, not the shapes'; a file of today's lines, under either rules version, is compared
    byte for byte."""
    old = _file(tmp_path, "1", v2=False)
    same = verify(old, lambda _: NEW, lambda h, sink: _fight(h, sink, v2=True))
    assert (same.ok, same.upcast, same.older_rules, same.events) == (True, True, True, 3)
    other = verify(old, lambda _: NEW, lambda h, sink: _fight(h, sink, v2=True, doubled=3))
    assert other.mismatch is not None
    assert other.mismatch.reason == (
        "event test.hit differs from re-simulation in: doubled (recorded at schema version 1 "
        "and upcast to 2 on reading, its upcasters making doubled: a difference there may be "
        "theirs)"
    )
    for rules in ("2", "1"):  # today's rules, and a re-simulation's lines under the older
        todays = _file(tmp_path, rules, v2=True)
        exact = verify(todays, lambda _: NEW, lambda h, sink: _fight(h, sink, v2=True))
        assert (exact.ok, exact.upcast, exact.older_rules) == (True, False, False)
        assert exact.mismatch is None


@pytest.mark.parametrize(
    ("older", "upcasters", "said"),
    [
        ({1: 1}, {("test.hit", 1): _v1_v2}, "a rules version is text ('1'), as headers hold it"),
        ({"1": 2}, {("test.hit", 1): _v1_v2}, "2 is not a schema version below 2"),
        ({"1": 1}, {}, "no upcaster for ('test.hit', 1): a record at version 1 could not be "
         "brought to 2"),
    ],
)  # fmt: skip
def test_an_older_rules_entry_that_could_never_be_read_is_refused(
    older: dict[Any, int], upcasters: dict[tuple[str, int], Any], said: str
) -> None:
    """An ``int`` rules version never matches a header's text, a version not below the
    class's own is no older shape, and one no upcaster chain brings up could not be read:
    each is refused when the registry is made, naming the class and the entry."""
    bad = type("Bad", (HitV2,), {"__annotations__": {}, "older_rules": older})
    with pytest.raises(ValueError) as refused:
        EventRegistry([bad], upcasters)
    key = next(iter(older))
    assert str(refused.value) == f"event class Bad: older_rules[{key!r}]: {said}"


def test_a_studys_kept_replay_in_its_rules_versions_shapes_is_the_same_battle(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`verify STUDY_DIR` compares each kept replay with the run fought again: one kept
    before the type changed shape (version-1 lines, rules 1) is the same battle when its
    events' values are the re-fought ones' (it said "differs"); not when a value differs, nor
    when a file of today's rules differs in its bytes."""
    from sim.batch.verification import verify as study_verify
    from sim.replay import header

    monkeypatch.setattr(header, "registry_for", lambda _: NEW)
    kept = _file(tmp_path, "1", v2=False)
    again = tmp_path / "again.jsonl"
    _fight(_header("1"), FileSink(again), v2=True)
    assert kept.read_bytes() != again.read_bytes()
    assert study_verify._same_in_older_shapes(kept, again.read_bytes())
    other = tmp_path / "other.jsonl"
    _fight(_header("1"), FileSink(other), v2=True, doubled=3)
    assert not study_verify._same_in_older_shapes(kept, other.read_bytes())
    todays = _file(tmp_path, "2", v2=True)
    assert not study_verify._same_in_older_shapes(todays, other.read_bytes())


def test_a_studys_verdict_says_which_kept_replays_were_matched_by_value() -> None:
    """The verdict said "3 kept replay(s) byte for byte" when some were matched by value;
    it says how many were, and --json gives them as replays_by_value."""
    from sim.batch.verification.verify import StudyCheck, verify_lines

    check = StudyCheck(study="st", runs=3, sample_seed=1, sampled=[0, 1, 2], replays=3)
    check.by_value = 2
    said = ", 3 kept replays the re-fought ones (1 byte for byte, 2 by value, in their rules "
    assert f"{said}version's event shapes)" in verify_lines(check)[-1]
    assert check.as_json()["replays_by_value"] == 2


@pytest.mark.parametrize("format_version", [2, 3, 4])
def test_an_older_formats_line_is_given_the_same_hint(format_version: int) -> None:
    """A file of format 2 or 3 holds a type at the schema version it had then, and reads
    through ``older_rules`` as today's format does: a plugin author who raised the version
    and forgot ``older_rules`` was told only that the format "writes" the new version,
    which it never did, without the hint a format-4 or -5 file's line gave. Format 1 holds
    every type at version 1 (no hint: ``older_rules`` does not reach it)."""
    data = {"type": "test.hit", "schema_version": 1}
    with pytest.raises(ShapeError) as refused:
        check_event_line(format_version, HitV2, data, "2")
    assert str(refused.value) == (
        f"schema_version 1: format {format_version} writes test.hit at schema version 2 (a "
        "line of test.hit before it changed shape reads where its class's older_rules names "
        "the rules version it was fought under; HitV2.older_rules does not name this file's, "
        "'2')"
    )
    check_event_line(1, HitV2, data, "2")  # format 1: version 1, lawful


def _divides(data: dict[str, Any]) -> dict[str, Any]:
    """An upcaster with a bug: version 1's ``n`` 0 divides by zero."""
    return {**data, "doubled": 2 * data["n"] // data["n"]}


def test_an_upcaster_that_raises_is_named_on_the_line_it_read(tmp_path: Path) -> None:
    """An upcaster raising what a malformed record seldom makes (ZeroDivisionError) escaped
    the reader: `verify` blamed "fighting the battle again", `show` printed the exception
    alone. It is a refusal at the line, naming the upcaster as well as the record."""
    old = _file(tmp_path, "1", v2=False)  # the first hit has n 0
    with pytest.raises(ReplayError) as refused:
        read_replay(old, lambda _: EventRegistry([HitV2], {("test.hit", 1): _divides}))
    assert str(refused.value) == (
        f"{old}:2 (seq 0): 'test.hit' is not a schema-1 record, or its upcaster "
        "('test.hit', 1) is wrong: it raised ZeroDivisionError: integer division or modulo "
        "by zero"
    )


def _leaves_n(data: dict[str, Any]) -> dict[str, Any]:
    """An upcaster with a bug: it renames nothing, so version 2's ``doubled`` is missing."""
    return dict(data)


def test_a_record_the_upcasters_leave_unfit_says_it_was_upcast(tmp_path: Path) -> None:
    """A version-1 line the upcasters bring to a record version 2 refuses was refused as any
    bad line ("bad event: test.hit.doubled: Field required"), nothing saying it had been upcast; the
    refusal names the stored and the class's version and the upcasters. A line of today's
    version gets no such words."""
    old = _file(tmp_path, "1", v2=False)
    with pytest.raises(ReplayError) as refused:
        read_replay(old, lambda _: EventRegistry([HitV2], {("test.hit", 1): _leaves_n}))
    assert str(refused.value) == (
        f"{old}:2 (seq 0): bad event: test.hit.doubled: Field required (stored at schema "
        "version 1, upcast to 2: a line not of version 1, or upcasters of test.hit that do not "
        "make version 2)"
    )
    todays = _file(tmp_path, "1", v2=True)
    lines, h = [], GENESIS
    for line in todays.read_text(encoding="utf-8").splitlines():
        body = line[: line.rindex(',"h":"')].replace(',"doubled":0', "", 1) + "}"
        sealed, h = seal(h, body)
        lines.append(sealed)
    todays.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(ReplayError) as refused:
        read_replay(todays, lambda _: NEW)
    assert str(refused.value) == f"{todays}:2 (seq 0): bad event: test.hit.doubled: Field required"


@pytest.mark.parametrize(
    ("classes", "key", "said"),
    [
        ([Hit], ("test.hit", 1), " is never applied: Hit is at schema version 1, and "
         "('test.hit', v) turns a stored version-v record into v + 1 (raise "
         "Hit.schema_version when its shape changes)"),
        ([HitV2], ("test.hit", 2), " is never applied: HitV2 is at schema version 2, and "
         "('test.hit', v) turns a stored version-v record into v + 1 (raise "
         "HitV2.schema_version when its shape changes)"),
        ([HitV2], ("test.hits", 1), ": no event class of the registry has type 'test.hits'"),
    ],
)  # fmt: skip
def test_an_upcaster_that_would_never_be_applied_is_refused(
    classes: list[type[Event]], key: tuple[str, int], said: str
) -> None:
    """Eli writes the upcaster and forgets to raise the class's schema_version (or keys it by
    the version it makes, or misspells the type): the registry took it, it was never applied,
    and the golden replay read as damaged ("point_blank: Field required") while
    check-ruleset passed. The registry refuses it when made, naming it."""
    upcasters = {("test.hit", 1): _v1_v2} if classes == [HitV2] else {}
    with pytest.raises(ValueError) as refused:
        EventRegistry(classes, {**upcasters, key: _v1_v2})
    assert str(refused.value) == f"upcaster {key!r}{said}"


def test_a_mismatch_the_upcaster_made_points_to_it(tmp_path: Path) -> None:
    """An upcaster filling the new field wrongly (3n for 2n) made the old replay "differ from
    re-simulation in: doubled", as if the rules had changed; the mismatch says the recorded
    line was upcast, and which fields its upcasters made. Seq 0 (n 0) is the same either
    way: seq 1. A difference in a field the line held as stored (``n``) gets no such words."""
    old = _file(tmp_path, "1", v2=False)
    wrong = EventRegistry([HitV2], {("test.hit", 1): lambda d: {**d, "doubled": 3 * d["n"]}})
    result = verify(old, lambda _: wrong, lambda h, sink: _fight(h, sink, v2=True))
    assert result.mismatch is not None
    assert (result.mismatch.seq, result.mismatch.reason) == (
        1,
        "event test.hit differs from re-simulation in: doubled (recorded at schema version 1 "
        "and upcast to 2 on reading, its upcasters making doubled: a difference there may be "
        "theirs)",
    )

    def one_more(header: Header, sink: Sink) -> None:  # n 11 at seq 1, doubled still 2 x 10
        log = EventLog(header, sink)
        for i in range(3):
            log.write(log.stamp(HitV2(turn=1, time=0.0, n=10 * i + (i == 1), doubled=20 * i)))
        log.close(final_turn=1, final_state_digest="sha256:" + "0" * 64)

    other = verify(old, lambda _: NEW, one_more)
    assert other.mismatch is not None
    assert other.mismatch.reason == "event test.hit differs from re-simulation in: n"


def test_an_older_formats_mismatch_the_upcaster_made_points_to_it() -> None:
    """The same in a format-1 file, compared event by event: musket.fired's upcaster from
    version 1 filling morale_check_reason wrongly (always "loss") is named with the first
    volley whose reason the right upcaster does not make "loss"."""
    from sim.replay.header import simulate_into
    from sim.rulesets.musket import RULESET
    from sim.rulesets.musket.model import events

    fixture = Path(__file__).resolve().parents[1] / "data/replays/stone_wall-s1862.format1.jsonl"

    def loss(data: dict[str, Any]) -> dict[str, Any]:
        up = events._fired_v1_v2(data)
        return {**up, "result": {**up["result"], "morale_check_reason": "loss"}}

    wrong = EventRegistry(
        [c for c in RULESET.registry.classes if c.__module__ == events.__name__],
        {**events.UPCASTERS, ("musket.fired", 1): loss},
    )
    result = verify(fixture, lambda _: wrong, simulate_into)
    lines = fixture.read_text(encoding="utf-8").splitlines()
    fired = [json.loads(x) for x in lines[1:] if '"musket.fired"' in x]
    first = next(
        d["seq"] for d in fired if events._fired_v1_v2(d)["result"]["morale_check_reason"] != "loss"
    )
    assert result.mismatch is not None
    assert (result.mismatch.seq, result.mismatch.reason) == (
        first,
        "event musket.fired differs from re-simulation in: result.morale_check_reason "
        "(recorded at schema version 1 and upcast to 2 on reading, its upcasters making "
        "result.morale_check_reason: a difference there may be theirs)",
    )
