"""Encodings and leftovers (issue 25, items 9 and 11).

A file name that is not UTF-8 and a terminal that is not UTF-8 never end a
command in a traceback-like line; Ctrl-C and SIGTERM leave no ``.partial``
and no ``.tmp``; a read-only study says so; matplotlib's cache note stays off
stderr.
"""

from __future__ import annotations

import gzip
import json
import os
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest

import sim.cli.outcomes.batch  # noqa: F401  # registers batch
from sim.batch.storage import store as store_module
from sim.batch.storage.store import Store, StoreError
from tests.forge import GOLDEN, invoke

ROOT = Path(__file__).resolve().parents[2]
BRAWL = ROOT / "scenarios" / "tavern_brawl.yaml"
NOT_UTF8 = os.fsdecode(b"sc\xff")
"""``sc`` and the byte 0xff, as Python reads such a file name (``"sc\\udcff"``)."""


def _cli(
    *args: str, env: dict[str, str] | None = None, cwd: Path | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", "from sim.cli import main; main()", *args],
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, **(env or {})},
        cwd=cwd,
    )


# encodings (item 9)


def test_a_scenario_file_name_that_is_not_utf8_runs_and_verifies(tmp_path: Path) -> None:
    """``sc\\xff.yaml`` runs: the header's ``source`` holds U+FFFD for the byte, the replay
    verifies (it used to end in ``UnicodeEncodeError … surrogates not allowed``)."""
    scenario = tmp_path / f"{NOT_UTF8}.yaml"
    scenario.write_bytes(BRAWL.read_bytes())
    out = tmp_path / f"{NOT_UTF8}.jsonl"
    result = invoke("run", str(scenario), "--out", str(out))
    assert result.exit_code == 0, result.output
    header = json.loads(out.read_text(encoding="utf-8").split("\n", 1)[0])
    assert header["source"] == "sc\ufffd.yaml"
    assert invoke("verify", str(out)).exit_code == 0


def test_a_study_folder_that_is_not_utf8_is_refused_in_one_line(tmp_path: Path) -> None:
    """``batch --out $'st\\xff dir'``: exit 2, one line, no folder (DuckDB would fail with
    ``std::bad_cast``)."""
    out = tmp_path / f"{NOT_UTF8} dir"
    result = invoke("batch", str(BRAWL), "--runs", "1", "--out", str(out))
    assert result.exit_code == 2
    assert result.stderr == (
        f"battlesim: error: '{tmp_path}/sc\\xff dir': a study folder's name must be UTF-8 "
        "text (its database, DuckDB, cannot open any other): choose another name\n"
    )
    assert not out.exists()


def test_a_latin1_terminal_gets_escapes_not_an_error(tmp_path: Path) -> None:
    """Under ``PYTHONIOENCODING=latin-1`` the em dash of the outcome line is printed as
    ``\\u2014`` and run exits 0 (it used to exit 2 after writing the replay)."""
    out = tmp_path / "r.jsonl"
    done = _cli("run", str(BRAWL), "--out", str(out), env={"PYTHONIOENCODING": "latin-1"})
    assert (done.returncode, done.stderr) == (0, "")
    assert "after 4 rounds \\u2014 Thorgrim" in done.stdout
    assert invoke("verify", str(out)).exit_code == 0


def test_a_replay_path_that_is_not_utf8_prints_as_an_escape(tmp_path: Path) -> None:
    """``verify o\\xff.jsonl`` on a strict UTF-8 terminal: the byte is printed as an
    escape and the answer is OK (it used to end in ``UnicodeEncodeError``)."""
    out = tmp_path / f"{NOT_UTF8}.jsonl"
    out.write_bytes((GOLDEN.parents[3] / "replays" / "stone_wall-s1862.jsonl").read_bytes())
    done = _cli("verify", os.fsdecode(out), env={"PYTHONIOENCODING": "utf-8"}, cwd=tmp_path)
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout.startswith(f"OK: {tmp_path}/sc\\udcff.jsonl: ")


# leftovers (item 11)

_INTERRUPT = """
import os, signal, sys
import engine.safety.atomic, engine.replayfile.sinks
sig = getattr(signal, sys.argv[1])
# a Ctrl-C at a terminal: Python's own handler, as at any start where SIGINT is not ignored
# (a shell's `cmd &` starts its children with SIGINT ignored, and they would inherit it)
signal.signal(signal.SIGINT, signal.default_int_handler)
if sys.argv[2] == "flush":  # mid-battle: the .partial holds turns already
    real_flush = engine.replayfile.sinks.FileSink.flush
    def flush(self):
        real_flush(self)
        os.kill(os.getpid(), sig)
    engine.replayfile.sinks.FileSink.flush = flush
else:  # a report's temporary file complete, not yet renamed
    real_commit = engine.safety.atomic.commit
    def commit(temp, final):
        os.kill(os.getpid(), sig)
        real_commit(temp, final)
    engine.safety.atomic.commit = commit
from sim.cli import main
sys.argv = ["battlesim", *sys.argv[3:]]
main()
"""


def _interrupted(signal_name: str, where: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", _INTERRUPT, signal_name, where, *args],
        capture_output=True,
        text=True,
        check=False,
    )


@pytest.mark.parametrize(("signal_name", "code"), [("SIGINT", 130), ("SIGTERM", 143)])
@pytest.mark.parametrize("name", ["r.jsonl", "r.jsonl.gz"])
def test_an_interrupted_run_leaves_no_partial(
    tmp_path: Path, signal_name: str, code: int, name: str
) -> None:
    """Ctrl-C (or SIGTERM) after the first turn is written: exit 130 (143), ``.partial``
    removed (as replay-format.md says), an old replay at ``--out`` untouched."""
    out = tmp_path / name
    old = gzip.compress(GOLDEN.read_bytes()) if name.endswith(".gz") else GOLDEN.read_bytes()
    out.write_bytes(old)
    done = _interrupted(signal_name, "flush", "run", str(BRAWL), "--out", str(out), "--force")
    assert done.returncode == code, done.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == [name]
    assert out.read_bytes() == old


@pytest.mark.parametrize(("signal_name", "code"), [("SIGINT", 130), ("SIGTERM", 143)])
def test_an_interrupted_report_leaves_no_tmp(tmp_path: Path, signal_name: str, code: int) -> None:
    """SIGTERM (or Ctrl-C) with the report's temporary file complete: no ``.tmp`` left."""
    done = _interrupted(
        signal_name, "commit", "report", str(GOLDEN), "-o", str(tmp_path / "r.html")
    )
    assert done.returncode == code, done.stderr
    assert list(tmp_path.iterdir()) == []


def test_an_interrupted_fork_and_campaign_leave_no_partial(tmp_path: Path) -> None:
    """The same for fork and campaign (the writers that make a replay through the API)."""
    fork = _interrupted(
        "SIGTERM", "flush", "fork", str(GOLDEN), "--at", "3", "--set",
        "state.units.1ri.morale_cause=7",
        "--out", str(tmp_path / "f.jsonl"),
    )  # fmt: skip
    assert fork.returncode == 143, fork.stderr
    campaign = ROOT / "scenarios" / "delve_campaign.yaml"
    camp = _interrupted("SIGINT", "flush", "campaign", str(campaign), "--out", str(tmp_path / "c"))
    assert camp.returncode == 130, camp.stderr
    left = sorted(str(p.relative_to(tmp_path)) for p in tmp_path.rglob("*"))
    assert not [p for p in left if p.endswith(".partial")], left


def test_a_read_only_study_says_so(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """DuckDB refused on a read-only file system: the line says read-only, not "in use"."""
    db = tmp_path / "study.duckdb"
    db.write_bytes(b"")

    def refuse(*args: object, **kwargs: object) -> None:
        raise duckdb.IOException(f'IO Error: Cannot open file "{db}": Read-only file system')

    monkeypatch.setattr(store_module.duckdb, "connect", refuse)
    with pytest.raises(StoreError) as caught:
        Store.open(db)
    assert str(caught.value) == (
        f"cannot open '{db}' to write: its file system is read-only "
        "(a study is resumed where it can be written)"
    )


def test_a_study_in_use_still_says_so(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A lock held by another process is named as such: the program and its PID, and that
    it may be a notebook's connection (a read-only one holds the lock too), without DuckDB's
    advice to open the file read-only, which a battlesim command cannot take."""
    db = tmp_path / "study.duckdb"
    db.write_bytes(b"")
    held = (
        'IO Error: Could not set lock on file "x": Conflicting lock is held in /usr/bin/python3'
        " (PID 7) by user me. However, you would be able to open this database in read-only "
        "mode, e.g. by using the -readonly parameter in the CLI."
    )

    def refuse(*args: object, **kwargs: object) -> None:
        raise duckdb.IOException(held)

    monkeypatch.setattr(store_module.duckdb, "connect", refuse)
    with pytest.raises(StoreError) as raised:
        Store.open(db)
    assert str(raised.value) == (
        f"cannot open {str(db)!r}: in use by another process (/usr/bin/python3, PID 7): "
        "another battlesim, or a connection to the study such as a notebook's, even a "
        "read-only one; close it and try again"
    )


def test_matplotlibs_cache_note_stays_off_stderr(tmp_path: Path) -> None:
    """With no writable config folder (``HOME`` a file) matplotlib gets a private cache
    folder (0700, the user's) and stderr stays empty."""
    home = tmp_path / "home-is-a-file"
    home.write_text("")
    env = {k: v for k, v in os.environ.items() if k not in ("MPLCONFIGDIR", "XDG_CONFIG_HOME")}
    done = subprocess.run(
        [sys.executable, "-c", "from sim.cli import main; main()", "report", str(GOLDEN),
         "-o", str(tmp_path / "r.html"), "--png", str(tmp_path / "png")],
        capture_output=True, text=True, check=False,
        env={**env, "HOME": str(home), "TMPDIR": str(tmp_path)},
    )  # fmt: skip
    assert (done.returncode, done.stderr) == (0, ""), done.stderr
    private = tmp_path / f"battlesim-{os.getuid()}" / "matplotlib"
    assert private.is_dir() and private.stat().st_mode & 0o777 == 0o700
