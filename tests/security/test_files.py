"""Input files with bounds, output files without loss (issue 12, items 2, 4 and 6)."""

from __future__ import annotations

import gzip
import os
import shutil
import zlib
from pathlib import Path

import pytest

from engine.safety.files import FileProblem, gunzip_bounded, read_bounded
from tests.forge import GOLDEN, invoke

SCENARIO = Path(__file__).resolve().parents[2] / "scenarios" / "stone_wall.yaml"
OTHER = GOLDEN.parents[3] / "replays" / "napoleonic_brigade-s1815.jsonl"
CURRENT = GOLDEN.parents[3] / "replays" / "stone_wall-s1862.jsonl"
"""What stone_wall.yaml fights today (GOLDEN is the musket rules v1 battle)."""


# gzip (item 2)


def test_a_second_gzip_member_is_refused(tmp_path: Path) -> None:
    """The issue's reproducer: gzip -c a >x.gz; gzip -c b >>x.gz no longer verifies as a."""
    path = tmp_path / "x.jsonl.gz"
    path.write_bytes(gzip.compress(GOLDEN.read_bytes()) + gzip.compress(OTHER.read_bytes()))
    result = invoke("verify", str(path))
    assert (result.exit_code, result.stdout) == (
        1,
        f"DAMAGED: {path}: a second gzip member after the compressed replay (one member only)\n",
    )


def test_trailing_bytes_after_the_gzip_member_are_refused(tmp_path: Path) -> None:
    """Bytes after the one member (not a member themselves) are refused too."""
    path = tmp_path / "x.jsonl.gz"
    path.write_bytes(gzip.compress(GOLDEN.read_bytes()) + b"\n")
    result = invoke("verify", str(path))
    assert result.exit_code == 1
    assert "trailing data after the compressed replay" in result.stdout


def test_a_gzip_bomb_stops_at_the_cap() -> None:
    """1 MiB of zeros stops at the cap: never more than cap + 1 bytes are decompressed."""
    bomb = gzip.compress(bytes(1 << 20))
    with pytest.raises(FileProblem, match="decompresses to more than 4096 bytes"):
        gunzip_bounded(bomb, limit=4096)
    data, complete = gunzip_bounded(bomb, limit=1 << 20)  # exactly the cap: allowed
    assert (len(data), complete) == (1 << 20, True)


def test_a_cut_gzip_stream_yields_its_prefix() -> None:
    """A stream cut short (a killed writer) gives the bytes it holds and says it is not complete."""
    whole = gzip.compress(b"abc\n" * 1000)
    data, complete = gunzip_bounded(whole[: len(whole) // 2])
    assert not complete and (b"abc\n" * 1000).startswith(data)


def test_damaged_gzip_is_reported() -> None:
    """Garbage after the gzip magic is damage, not a crash."""
    with pytest.raises(FileProblem, match="damaged gzip data"):
        gunzip_bounded(b"\x1f\x8b\x08\x00" + bytes(20))


def test_zlib_is_the_only_decompressor_used() -> None:
    """A raw deflate stream (no gzip header) is refused rather than guessed at."""
    with pytest.raises(FileProblem):
        gunzip_bounded(zlib.compress(b"x"))


# regular files only (item 4)


@pytest.mark.parametrize("command", ["verify", "show", "validate"])
def test_a_fifo_never_blocks(tmp_path: Path, command: str) -> None:
    """verify, show and validate on a FIFO exit 2 at once (opening it would wait for a writer)."""
    fifo = tmp_path / "pipe.jsonl"
    os.mkfifo(fifo)
    result = invoke(command, str(fifo))
    assert result.exit_code == 2
    assert "a FIFO (named pipe), not a regular file" in result.stderr


@pytest.mark.parametrize("command", ["verify", "show", "validate"])
def test_dev_zero_is_refused_without_reading(command: str) -> None:
    """show /dev/zero (a device that never ends) is refused before any read."""
    result = invoke(command, "/dev/zero")
    assert result.exit_code == 2
    assert "a device, not a regular file" in result.stderr


def test_read_bounded_reads_no_more_than_the_limit(tmp_path: Path) -> None:
    """A file one byte over the limit is refused; one of exactly the limit is read."""
    path = tmp_path / "f"
    path.write_bytes(b"x" * 11)
    with pytest.raises(FileProblem, match="file too large"):
        read_bounded(path, limit=10)
    assert read_bounded(path, limit=11) == b"x" * 11


# nothing lost (item 6)


def test_run_over_a_replay_keeps_it_when_the_run_fails(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A failure mid-run (disk full) leaves the old replay byte for byte, and no partial file."""
    out = tmp_path / "r.jsonl"
    shutil.copy(GOLDEN, out)
    before = out.read_bytes()
    from engine import log

    real = log.FileSink.write

    def full(self: log.FileSink, line: str) -> None:
        if self.count == 20:
            raise OSError(28, "No space left on device", str(self.partial))
        real(self, line)

    monkeypatch.setattr(log.FileSink, "write", full)
    result = invoke("run", str(SCENARIO), "--out", str(out))
    assert result.exit_code == 2
    assert result.stderr.count("\n") == 1 and "No space left on device" in result.stderr
    assert out.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.jsonl"]


def test_run_writes_the_final_name_only_when_complete(tmp_path: Path) -> None:
    """run --out writes <out>.partial and renames it: afterwards only the whole replay is there."""
    out = tmp_path / "r.jsonl"
    assert invoke("run", str(SCENARIO), "--out", str(out), "--seed", "1862").exit_code == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.jsonl"]
    assert out.read_bytes() == CURRENT.read_bytes()


@pytest.mark.parametrize("target", ["/dev/full", "/dev/zero"])
def test_run_never_writes_over_a_device(target: str) -> None:
    """run --out /dev/full is refused before the battle (exit 2, one line); the device is
    left alone. (The writer refuses it too: ``engine.safety.atomic.check_target``.)"""
    result = invoke("run", str(SCENARIO), "--out", target)
    assert result.exit_code == 2
    assert result.stderr == (
        f"battlesim: error: --out {target}: {target!r} is not a regular file; "
        "battlesim writes only files\n"
    )
    assert not Path(target + ".partial").exists()


KILL_RUN = """
import os, signal, sys
from engine.log import EventLog
from sim import api

flushes = 0
real = EventLog.flush

def flush_then_die(self):
    global flushes
    real(self)
    flushes += 1
    if flushes == 1:  # after the first turn's lines reached the OS (the golden has two)
        os.kill(os.getpid(), signal.SIGKILL)

EventLog.flush = flush_then_die
api.run(sys.argv[1], out=sys.argv[2], force=True)  # over a file that is no replay
"""


@pytest.mark.parametrize("name", ["r.jsonl", "r.jsonl.gz"])
def test_a_killed_run_leaves_a_readable_prefix_that_verify_calls_incomplete(
    tmp_path: Path, name: str
) -> None:
    """SIGKILL after turn 1's flush: the old replay is intact, the prefix is in <out>.partial."""
    import signal
    import subprocess
    import sys

    out = tmp_path / name
    out.write_bytes(b"the old replay\n")
    cmd = [sys.executable, "-c", KILL_RUN, str(SCENARIO), str(out)]
    done = subprocess.run(cmd, check=False, cwd=SCENARIO.parents[1], capture_output=True)
    assert done.returncode == -signal.SIGKILL, done.stderr.decode()
    assert out.read_bytes() == b"the old replay\n"
    partial = tmp_path / f"{name}.partial"
    result = invoke("verify", str(partial))
    assert result.exit_code == 1
    assert result.stdout.startswith("INCOMPLETE at seq ")
    assert "no footer after seq" in result.stdout
    # The prefix is exactly the golden replay's first lines, up to the end of turn 1.
    raw = partial.read_bytes()
    prefix = gunzip_bounded(raw)[0] if name.endswith(".gz") else raw
    assert CURRENT.read_bytes().startswith(prefix)
    assert prefix.count(b'"type":"engine.turn_ended"') == 1


@pytest.mark.parametrize("name", ["r.jsonl", "r.jsonl.gz"])
def test_a_run_past_the_file_size_limit_names_its_replay(tmp_path: Path, name: str) -> None:
    """A write refused by the OS mid-battle (here the file size limit: EFBIG, as a
    full disk gives ENOSPC) carries no file name: run still names the replay, in
    one line, exit 2, and leaves no partial file."""
    import resource
    import subprocess
    import sys

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096))  # the golden is ~60 KB

    out = tmp_path / name
    cmd = [sys.executable, "-m", "sim", "run", str(SCENARIO), "--out", str(out)]
    done = subprocess.run(
        cmd, check=False, cwd=SCENARIO.parents[1], capture_output=True, text=True, preexec_fn=limit
    )
    assert done.returncode == 2, done.stderr
    assert done.stderr == f"battlesim: error: cannot write replay: {out}: File too large\n"
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("cut", [1, 4, 8])
def test_a_gzip_replay_cut_in_its_trailer_never_verifies(tmp_path: Path, cut: int) -> None:
    """A gzip replay whose last bytes (the member's CRC-32 and length, so never
    checked) are cut off holds every line, yet it is a truncated file: INCOMPLETE,
    exit 1; the same bytes with the trailer whole verify."""
    whole = gzip.compress(GOLDEN.read_bytes(), mtime=0)
    path = tmp_path / "r.jsonl.gz"
    path.write_bytes(whole)
    assert invoke("verify", str(path)).exit_code == 0
    path.write_bytes(whole[:-cut])
    result = invoke("verify", str(path))
    assert result.exit_code == 1, result.stdout
    assert result.stdout.startswith("INCOMPLETE at ")
    assert "gzip stream was cut short" in result.stdout


@pytest.mark.parametrize("target", ["/dev/full", "/dev/null"])
def test_the_writer_itself_never_writes_over_a_device(target: str) -> None:
    """Behind every command's check: the atomic writer refuses anything but a regular file,
    and leaves nothing beside it."""
    from engine.safety.atomic import atomic_write_text

    with pytest.raises(OSError, match="not a regular file; battlesim writes only files"):
        atomic_write_text(target, "x")


@pytest.mark.parametrize("command", ["verify", "show", "validate"])
def test_a_first_line_nested_a_hundred_thousand_deep_is_named(tmp_path: Path, command: str) -> None:
    """It was `battlesim: error: input nested too deeply`, naming no file (the check of
    whether a file is a replay hit Python's recursion limit)."""
    deep = tmp_path / "deep.jsonl"
    deep.write_text("[" * 100_000 + "]" * 100_000 + "\n")
    result = invoke(command, str(deep))
    assert result.exit_code == 2
    assert str(deep) in result.stderr and "nested too deeply" not in result.stderr


def test_run_over_a_deeply_nested_file_asks_for_force(tmp_path: Path) -> None:
    out = tmp_path / "out.jsonl"
    out.write_text("[" * 100_000 + "]" * 100_000 + "\n")
    result = invoke("run", str(SCENARIO), "--out", str(out))
    assert result.exit_code == 2
    assert "the file is not a replay battlesim wrote; add --force" in result.stderr


@pytest.mark.skipif(not Path("/proc/self/mem").exists(), reason="Linux's /proc")
@pytest.mark.parametrize("command", ["verify", "show"])
def test_a_file_no_read_returns_is_named(command: str) -> None:
    """/proc/self/mem is a regular file every read of which fails: one line naming it."""
    result = invoke(command, "/proc/self/mem")
    assert result.exit_code == 2
    assert result.stderr == (
        "battlesim: error: /proc/self/mem: cannot be read: Input/output error\n"
    )


def test_a_deeply_nested_file_where_schema_or_campaign_write_is_named(tmp_path: Path) -> None:
    """`schema -o` and `campaign --out` over a file nested 100,000 deep: 'not ours', as a
    replay's check says (both said `input nested too deeply`, naming nothing)."""
    deep = "[" * 100_000 + "]" * 100_000 + "\n"
    schema = tmp_path / "deep.json"
    schema.write_text(deep)
    result = invoke("schema", "-o", str(schema))
    assert result.exit_code == 2 and "nested too deeply" not in result.stderr
    assert str(schema) in result.stderr
    folder = tmp_path / "c"
    folder.mkdir()
    (folder / "campaign.json").write_text(deep)
    campaign = Path(__file__).resolve().parents[2] / "scenarios" / "delve_campaign.yaml"
    result = invoke("campaign", str(campaign), "--out", str(folder))
    assert result.exit_code == 2 and "nested too deeply" not in result.stderr
    assert "campaign.json" in result.stderr
