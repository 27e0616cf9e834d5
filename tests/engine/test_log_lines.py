"""The log's byte path writes exactly the text path's lines, whatever the sink holds back."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.log import GENESIS, EventLog, FileSink, MemorySink, line_body, seal, seal_bytes
from tests.engine.conftest import Ping, make_header, write_log
from tests.engine.test_trusted import Shot, _fields

# Text a line body can hold: any code point but a lone surrogate (no UTF-8 for it).
_TEXT = st.text(st.characters(exclude_categories=("Cs",)))


@given(_TEXT, _TEXT)
def test_seal_bytes_is_seal_encoded(previous: str, inner: str) -> None:
    """Sealing the UTF-8 bytes gives the UTF-8 of the sealed text, and the same hash."""
    body = "{" + inner + "}"
    line, h = seal(previous, body)
    assert seal_bytes(previous.encode(), body.encode()) == (line.encode(), h.encode())


def test_line_body_is_model_dump_json() -> None:
    """An event's line body is its model_dump_json, nested models and draws included."""
    shot = Shot(**{**_fields(), "note": 'é\n"\\\u2028'})  # type: ignore[arg-type]
    for event in (shot, Ping(turn=1, time=1e16, n=-(2**70), cause=3)):
        assert line_body(event) == event.model_dump_json().encode()
    assert b'"draws":[["1/fire/a",0,0.25]]' in line_body(shot)


def test_memory_sink_keeps_the_text_path_lines() -> None:
    """A log into a MemorySink (handed bytes) keeps the very text lines seal() makes."""
    lines = write_log(4)
    h, expected = GENESIS, []
    for written in lines:
        line, h = seal(h, written[: written.rindex(',"h":"')] + "}")
        expected.append(line)
    assert lines == expected


class _TextSink(MemorySink):
    """A sink that takes text only (as a third party's might)."""

    takes_bytes = False

    def write(self, line: str | bytes) -> None:
        assert isinstance(line, str)
        super().write(line)


def _fight(sink: MemorySink | FileSink) -> list[int]:
    """A 40-event, 4-turn log into ``sink``; with a FileSink, its size on disk after
    each turn's flush."""
    log = EventLog(make_header(), sink)
    sizes = []
    for i in range(40):
        log.write(log.stamp(Ping(turn=1 + i // 10, time=float(i), n=i)))
        if i % 10 == 9:
            log.flush()
            if isinstance(sink, FileSink):
                sizes.append(sink.partial.stat().st_size)
    log.close(final_turn=4, final_state_digest="sha256:" + "0" * 64)
    return sizes


@pytest.mark.parametrize("name", ["r.jsonl", "r.jsonl.gz"])
def test_file_bytes_do_not_depend_on_what_the_sink_holds(
    tmp_path: Path, name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Held back 1 byte or 1 MiB at a time, plain or gzip, the file is the same bytes:
    the log's lines, one a line; each flush puts every line so far on disk."""
    files, sizes = [], []
    for buffer, folder in ((1, "a"), (1 << 20, "b")):
        monkeypatch.setattr(FileSink, "BUFFER", buffer)
        (tmp_path / folder).mkdir()
        sizes.append(_fight(FileSink(tmp_path / folder / name)))
        files.append((tmp_path / folder / name).read_bytes())
    assert files[0] == files[1]
    memory = MemorySink()
    _fight(memory)
    text = gzip.decompress(files[0]) if name.endswith(".gz") else files[0]
    assert text.decode() == "".join(line + "\n" for line in memory.lines)
    if not name.endswith(".gz"):
        ends = [sum(len(line) + 1 for line in memory.lines[: 1 + 10 * t]) for t in (1, 2, 3, 4)]
        assert sizes == [ends, ends]


def test_abandoned_file_sink_writes_nothing_more(tmp_path: Path) -> None:
    """abandon() drops the lines held and removes the partial file."""
    sink = FileSink(tmp_path / "r.jsonl")
    sink.write(b"{}")
    sink.abandon()
    assert list(tmp_path.iterdir()) == []


def test_a_text_only_sink_gets_the_same_lines_as_text() -> None:
    """A sink without ``takes_bytes`` is handed text: the same lines as a MemorySink's."""
    text, memory = _TextSink(), MemorySink()
    _fight(text)
    _fight(memory)
    assert text.lines == memory.lines
    assert len(text.lines) == 42
