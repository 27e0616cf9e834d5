"""The log's file format and the reader's integrity checks."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine.events import EventRegistry
from engine.log import Header
from engine.replayfile.reader import ReplayError, read_replay
from engine.version import FORMAT_VERSION
from tests.engine.conftest import REGISTRY, Ping, write_log


def _registry(_: Header) -> EventRegistry:
    return REGISTRY


def _write(tmp_path: Path, lines: list[str], tail: str = "\n") -> Path:
    path = tmp_path / "r.jsonl"
    path.write_text("\n".join(lines) + tail, encoding="utf-8")
    return path


def test_layout_is_header_events_footer(lines: list[str]) -> None:
    """Line 1 is the header, then one line per event, then the footer."""
    head = json.loads(lines[0])
    assert head["format"] == "battlesim-replay"
    assert head["format_version"] == FORMAT_VERSION == 5
    assert [json.loads(x)["seq"] for x in lines[1:-1]] == [0, 1, 2, 3, 4]
    assert json.loads(lines[-1])["footer"] is True
    assert json.loads(lines[-1])["events"] == 5


def test_round_trip_is_lossless(tmp_path: Path, lines: list[str]) -> None:
    """Reading a written log gives back the same events, field for field."""
    replay = read_replay(_write(tmp_path, lines), _registry)
    assert replay.events == [
        Ping(seq=i, turn=1 + i // 2, time=float(i), n=i * 10) for i in range(5)
    ]
    assert replay.footer is not None and replay.footer.events == 5


def test_edited_line_is_located(tmp_path: Path, lines: list[str]) -> None:
    """Changing one digit of event seq 2 breaks the chain at seq 2."""
    lines[3] = lines[3].replace('"n":20', '"n":21')
    with pytest.raises(ReplayError) as err:
        read_replay(_write(tmp_path, lines), _registry)
    assert (err.value.line, err.value.seq) == (4, 2)
    assert "hash chain broken" in err.value.message


def test_deleted_line_is_located(tmp_path: Path, lines: list[str]) -> None:
    """Dropping event seq 1 is caught at the line where seq 1 should be."""
    del lines[2]
    with pytest.raises(ReplayError) as err:
        read_replay(_write(tmp_path, lines), _registry)
    assert (err.value.line, err.value.seq) == (3, 1)


def test_reordered_lines_are_located(tmp_path: Path, lines: list[str]) -> None:
    """Swapping seq 3 and 4 is caught at seq 3."""
    lines[4], lines[5] = lines[5], lines[4]
    with pytest.raises(ReplayError) as err:
        read_replay(_write(tmp_path, lines), _registry)
    assert err.value.seq == 3


def test_missing_footer_is_truncation(tmp_path: Path, lines: list[str]) -> None:
    """A file that stops after an event is reported truncated after that seq."""
    with pytest.raises(ReplayError) as err:
        read_replay(_write(tmp_path, lines[:-1]), _registry)
    assert err.value.message == "incomplete: no footer after seq 4 (a run stopped before the end?)"
    assert err.value.kind == "incomplete"
    assert err.value.seq == 5


def test_a_header_alone_is_incomplete_with_no_events(tmp_path: Path, lines: list[str]) -> None:
    """A file that stops after its header says it has no events (not "after seq -1")."""
    with pytest.raises(ReplayError) as err:
        read_replay(_write(tmp_path, lines[:1]), _registry)
    assert (
        err.value.message
        == "incomplete: no event and no footer after the header (a run stopped before the end?)"
    )
    assert (err.value.kind, err.value.line, err.value.seq) == ("incomplete", 2, 0)


def test_truncated_prefix_is_readable_when_allowed(tmp_path: Path, lines: list[str]) -> None:
    """A crash leaves a prefix that can still be read, event by event."""
    replay = read_replay(_write(tmp_path, lines[:4]), _registry, allow_truncated=True)
    assert [e.seq for e in replay.events] == [0, 1, 2]
    assert replay.footer is None


def test_half_written_last_line_is_truncation(tmp_path: Path, lines: list[str]) -> None:
    """A last line cut mid-write (no newline) is reported as truncated at that line."""
    text = "\n".join(lines[:4]) + "\n" + lines[4][:20]
    path = tmp_path / "r.jsonl"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ReplayError) as err:
        read_replay(path, _registry)
    assert (err.value.line, err.value.message) == (
        5,
        "incomplete: the last line was cut short (a run stopped while writing?)",
    )


def test_newer_format_is_refused_clearly(tmp_path: Path) -> None:
    """A replay from a newer format version names both versions."""
    lines = write_log(1)
    head = json.loads(lines[0])
    head.pop("h")
    head["format_version"] = 99
    from engine.canonical import canonical_json
    from engine.log import GENESIS, seal

    lines[0] = seal(GENESIS, canonical_json(head))[0]
    with pytest.raises(ReplayError) as err:
        read_replay(_write(tmp_path, lines), _registry)
    assert err.value.message == (
        "replay format version 99 is newer than this battlesim reads (5); upgrade battlesim"
    )


def test_not_a_replay_is_refused(tmp_path: Path) -> None:
    """A file that is not a replay fails at line 1 without a traceback-worthy error."""
    path = tmp_path / "x.jsonl"
    path.write_text("hello\n", encoding="utf-8")
    with pytest.raises(ReplayError) as err:
        read_replay(path, _registry)
    assert (str(err.value), err.value.kind) == (f"{path}:1: not a battlesim replay", "not_replay")


def test_a_replay_an_editor_saved_with_a_byte_order_mark_is_told_so(tmp_path: Path) -> None:
    """A replay saved again by an editor that puts a UTF-8 byte-order mark first was "not a
    battlesim replay" and no more: still refused (the bytes the chain covers changed), the
    line now says what is in the way."""
    golden = Path(__file__).resolve().parents[2] / "replays" / "stone_wall-s1862.jsonl"
    path = tmp_path / "saved.jsonl"
    path.write_bytes(b"\xef\xbb\xbf" + golden.read_bytes())
    with pytest.raises(ReplayError) as err:
        read_replay(path, _registry)
    assert (str(err.value), err.value.kind) == (
        f"{path}:1: not a battlesim replay: it starts with a UTF-8 byte-order mark, which "
        "battlesim never writes (was it saved by an editor?)",
        "not_replay",
    )


def test_a_replay_converted_to_crlf_line_ends_is_told_so(tmp_path: Path, lines: list[str]) -> None:
    """A replay whose lines end in CR LF (an editor's, git's autocrlf) was refused as 'line
    has no hash-chain link "h"', though every line holds one: still damaged (the bytes the
    chain covers changed), the line now says what is in the way, at the first CR."""
    golden = Path(__file__).resolve().parents[2] / "replays" / "stone_wall-s1862.jsonl"
    path = tmp_path / "saved.jsonl"
    path.write_bytes(golden.read_bytes().replace(b"\n", b"\r\n"))
    with pytest.raises(ReplayError) as err:
        read_replay(path, _registry)
    assert (str(err.value), err.value.kind) == (
        f"{path}:1: line ends in a carriage return: battlesim writes LF line ends only (was "
        "the file converted to CRLF, by an editor or git's autocrlf?)",
        "damaged",
    )
    lines[3] += "\r"  # one line edited in an editor that kept its own line end
    with pytest.raises(ReplayError) as err:
        read_replay(_write(tmp_path, lines), _registry)
    assert (err.value.line, err.value.seq, err.value.kind) == (4, 2, "damaged")
    assert err.value.message.startswith("line ends in a carriage return")


def test_unknown_event_type_is_named(tmp_path: Path) -> None:
    """An event type the registry does not know is named in the error."""
    lines = write_log(2)
    empty = EventRegistry([])
    with pytest.raises(ReplayError) as err:
        read_replay(_write(tmp_path, lines), lambda _: empty)
    assert err.value.seq == 0
    assert "unknown event type 'test.ping'" in err.value.message
