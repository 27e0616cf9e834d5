"""No write follows a planted link (issue 25, item 1).

Every writer creates its files afresh (``engine.safety.atomic``): a symbolic link,
a dangling link or a hard link planted under the final name or the
``.partial`` name is never written through, and a study's own folders
(``plots/``, ``export/``, ``replays/``) that are links are refused.  The
family — link kinds × writers × names — is drawn by Hypothesis.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import sim.cli.outcomes.batch  # noqa: F401  # registers batch, study, rerun, export, campaign
from engine.log import FileSink
from engine.safety.atomic import atomic_write_text, claim_partial, own_folder, replacing
from sim import api
from sim.outputs import OutputError
from tests.forge import GOLDEN, invoke

ROOT = Path(__file__).resolve().parents[2]
BRAWL = ROOT / "scenarios" / "tavern_brawl.yaml"
CAMPAIGN = ROOT / "scenarios" / "delve_campaign.yaml"
VICTIM = b"DATA\n"

KINDS = ("symlink", "dangling", "hardlink")


def _plant(kind: str, at: Path, victim: Path) -> None:
    if kind == "symlink":
        at.symlink_to(victim)
    elif kind == "dangling":
        at.symlink_to(victim.with_name("created-outside"))
    else:
        os.link(victim, at)


@pytest.fixture(scope="module")
def study(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A two-run study of the brawl to rerun and export."""
    out = tmp_path_factory.mktemp("study") / "st"
    result = invoke("batch", str(BRAWL), "--runs", "2", "--out", str(out), "--no-plots")
    assert result.exit_code == 0, result.output
    return out


def _writers(study: Path) -> dict[str, tuple[Callable[[Path], int], str]]:
    """name → (write into folder D, exit code), and the file name it writes in D."""

    def cli(*args: str) -> Callable[[Path], int]:
        def write(folder: Path) -> int:
            return invoke(*(a.replace("{D}", str(folder)) for a in args)).exit_code

        return write

    def api_run(folder: Path) -> int:
        try:
            api.run(BRAWL, out=folder / "out.jsonl")
        except (OSError, OutputError):
            return 2
        return 0

    return {
        "run": (cli("run", str(BRAWL), "--out", "{D}/out.jsonl"), "out.jsonl"),
        "run-gz": (cli("run", str(BRAWL), "--out", "{D}/out.jsonl.gz"), "out.jsonl.gz"),
        "fork": (cli("fork", str(GOLDEN), "--at", "3", "--out", "{D}/out.jsonl"), "out.jsonl"),
        "rerun": (cli("rerun", str(study), "1", "--out", "{D}/out.jsonl"), "out.jsonl"),
        "campaign": (cli("campaign", str(CAMPAIGN), "--out", "{D}"), "1-barricade.jsonl"),
        "api": (api_run, "out.jsonl"),
    }


WRITERS = ("run", "run-gz", "fork", "rerun", "campaign", "api")


@settings(
    max_examples=24,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(
    writer=st.sampled_from(WRITERS),
    kind=st.sampled_from(KINDS),
    partial=st.booleans(),
)
def test_no_writer_follows_a_planted_link(
    tmp_path: Path, study: Path, writer: str, kind: str, partial: bool
) -> None:
    """A link at the replay's final or ``.partial`` name: the victim outside keeps its
    bytes, no file appears outside, and whatever the writer says, the final name is a
    regular file of its own (exit 0) or the refusal is exit 2."""
    base = Path(tempfile.mkdtemp(dir=tmp_path))  # Hypothesis may draw one example twice
    folder, outside = base / "d", base / "outside"
    folder.mkdir(parents=True)
    outside.mkdir()
    victim = outside / "victim.txt"
    victim.write_bytes(VICTIM)
    write, name = _writers(study)[writer]
    planted = folder / (name + ".partial" if partial else name)
    _plant(kind, planted, victim)
    code = write(folder)
    assert victim.read_bytes() == VICTIM
    assert sorted(p.name for p in outside.iterdir()) == ["victim.txt"]
    assert code in (0, 2)
    if code == 0:
        final = folder / name
        assert final.is_file() and not final.is_symlink()
        assert final.stat().st_ino != victim.stat().st_ino
    if partial:  # a link at .partial is never taken for a leftover
        assert code == 2


def test_the_refusal_names_the_partial_and_says_what_to_do(tmp_path: Path) -> None:
    """The issue's reproducer: one line naming the planted name, exit 2, victim intact."""
    victim = tmp_path / "victim.txt"
    victim.write_bytes(VICTIM)
    out = tmp_path / "out.jsonl"
    (tmp_path / "out.jsonl.partial").symlink_to(victim)
    result = invoke("run", str(BRAWL), "--out", str(out))
    assert (result.exit_code, result.stderr) == (
        2,
        f"battlesim: error: cannot write replay: {out}.partial: is a symbolic link, not a "
        "leftover battlesim made (it never writes through one): remove it\n",
    )
    assert victim.read_bytes() == VICTIM


def test_a_killed_runs_leftover_is_replaced_not_reused(tmp_path: Path) -> None:
    """A regular ``.partial`` with one link and no writer is a killed run's: it is removed
    and the name created afresh (a new inode), and the run completes."""
    out = tmp_path / "out.jsonl"
    leftover = tmp_path / "out.jsonl.partial"
    half = GOLDEN.read_bytes()[:200]  # a replay cut short where a killed run stopped
    leftover.write_bytes(half)
    with leftover.open("rb") as held:  # keeps the old inode from being reused at once
        sink = FileSink(out)
        assert os.fstat(sink._file.fileno()).st_ino != os.fstat(held.fileno()).st_ino
        assert held.read() == half  # removed, never truncated
        sink.abandon()
    for cut in (half, half[:9], b""):  # its header cut anywhere, or nothing written yet
        leftover.write_bytes(cut)
        assert invoke("run", str(BRAWL), "--out", str(out), "--force").exit_code == 0
        assert not leftover.exists() and invoke("verify", str(out)).exit_code == 0


def test_a_file_of_the_users_at_the_partial_name_is_refused_not_removed(tmp_path: Path) -> None:
    """A regular file at ``<out>.partial`` that no replay begins as (notes of the user's)
    was removed as a killed run's leftover without a word; it is refused, kept as it was."""
    out = tmp_path / "out.jsonl"
    notes = tmp_path / "out.jsonl.partial"
    notes.write_bytes(b"my notes, not a replay\n")
    result = invoke("run", str(BRAWL), "--out", str(out))
    assert result.exit_code == 2
    assert "out.jsonl.partial: is no replay battlesim began (a file of yours?)" in result.stderr
    assert notes.read_bytes() == b"my notes, not a replay\n" and not out.exists()


def test_a_partial_being_written_is_refused(tmp_path: Path) -> None:
    """While one writer holds ``.partial``, a second is refused and the first is untouched."""
    out = tmp_path / "out.jsonl"
    fd = claim_partial(out)
    try:
        with pytest.raises(BlockingIOError, match="another battlesim process"):
            claim_partial(out)
        assert os.fstat(fd).st_ino == (tmp_path / "out.jsonl.partial").stat().st_ino
    finally:
        os.close(fd)


@pytest.mark.parametrize("kind", KINDS)
def test_an_atomic_write_replaces_a_link_at_the_final_name(tmp_path: Path, kind: str) -> None:
    """``atomic_write_text`` over a link: the link is replaced by the new file, its target kept."""
    victim = tmp_path / "victim.txt"
    victim.write_bytes(VICTIM)
    final = tmp_path / "summary.json"
    _plant(kind, final, victim)
    atomic_write_text(final, "{}\n")
    assert not final.is_symlink() and final.read_text() == "{}\n"
    assert victim.read_bytes() == VICTIM
    assert not (tmp_path / "created-outside").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(["victim.txt", "summary.json"])


def test_a_temporary_name_taken_by_a_link_is_passed_over(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The temporary name is fresh: a link planted under the first name tried is never
    opened; the next name is taken and the victim keeps its bytes."""
    victim = tmp_path / "victim.txt"
    victim.write_bytes(VICTIM)
    names = iter([b"\x00\x00\x00\x01", b"\x00\x00\x00\x02"])
    monkeypatch.setattr(os, "urandom", lambda n: next(names))
    first = tmp_path / f".r.html.{os.getpid()}.00000001.tmp"
    first.symlink_to(victim)
    with replacing(tmp_path / "r.html") as fh:
        assert (tmp_path / f".r.html.{os.getpid()}.00000002.tmp").is_file()
        fh.write(b"page")
    assert (tmp_path / "r.html").read_text() == "page" and victim.read_bytes() == VICTIM


def test_own_folder_refuses_a_link(tmp_path: Path) -> None:
    """A study's own folder that is a symbolic link is refused, named, never followed."""
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "plots").symlink_to(tmp_path / "elsewhere")
    with pytest.raises(OSError, match="is a symbolic link") as caught:
        own_folder(tmp_path / "plots")
    assert caught.value.filename == str(tmp_path / "plots")
    assert own_folder(tmp_path / "new" / "made") == tmp_path / "new" / "made"


def test_export_into_a_linked_export_folder_is_refused(tmp_path: Path, study: Path) -> None:
    """``export`` of a study whose ``export/`` is a link to a folder outside: exit 2, one
    line, nothing written outside."""
    copy = tmp_path / "st"
    shutil.copytree(study, copy)
    outside = tmp_path / "outside"
    outside.mkdir()
    (copy / "export").symlink_to(outside)
    result = invoke("export", str(copy), "--format", "csv")
    assert result.exit_code == 2, result.output
    assert result.stderr == (
        f"battlesim: error: {copy}/export: is a symbolic link; battlesim writes only "
        "into folders it made: remove it\n"
    )
    assert list(outside.iterdir()) == []


@pytest.mark.parametrize("what", ["a symbolic link", "a file"])
def test_resume_into_a_linked_plots_folder_is_refused(tmp_path: Path, what: str) -> None:
    """``batch --resume`` of a study whose ``plots/`` is a link or a file: exit 2 before
    any run (it was refused once every run was fought), nothing outside."""
    out = tmp_path / "st"
    args = ["batch", str(BRAWL), "--runs", "2", "--out", str(out)]
    assert invoke(*args, "--no-plots").exit_code == 0
    outside = tmp_path / "outside"
    outside.mkdir()
    if what == "a file":
        (out / "plots").write_text("mine\n")
    else:
        (out / "plots").symlink_to(outside)
    result = invoke(*args, "--resume")
    assert result.exit_code == 2, result.output
    assert result.stderr == (
        f"battlesim: error: {str(out / 'plots')!r} is {what}, not the study's folder of "
        "plots: remove it (or add --no-plots)\n"
    )
    assert list(outside.iterdir()) == []


def test_a_linked_study_database_is_refused(tmp_path: Path) -> None:
    """A ``study.duckdb`` that is a link (DuckDB would write through it): exit 2."""
    out = tmp_path / "st"
    out.mkdir()
    victim = tmp_path / "victim.txt"
    victim.write_bytes(VICTIM)
    (out / "study.duckdb").symlink_to(victim)
    result = invoke("batch", str(BRAWL), "--runs", "2", "--out", str(out), "--resume")
    assert result.exit_code == 2, result.output
    assert "study.duckdb' is a symbolic link" in result.stderr
    assert victim.read_bytes() == VICTIM


def test_a_linked_spill_folder_is_refused(tmp_path: Path) -> None:
    """``study.duckdb.tmp``, where DuckDB spills what does not fit its memory, planted as a
    link to a folder outside: --resume is refused, and nothing is written there (DuckDB
    wrote its temporary files through it)."""
    out = tmp_path / "st"
    args = ["batch", str(BRAWL), "--runs", "2", "--out", str(out), "--no-plots"]
    assert invoke(*args).exit_code == 0
    outside = tmp_path / "outside"
    outside.mkdir()
    (out / "study.duckdb.tmp").symlink_to(outside)
    result = invoke(*args, "--resume")
    assert result.exit_code == 2, result.output
    assert result.stderr == (
        f"battlesim: error: {str(out / 'study.duckdb.tmp')!r} is a symbolic link; battlesim "
        "writes a study only into files it made: remove it\n"
    )
    assert list(outside.iterdir()) == []


def test_a_hard_link_or_a_fifo_at_the_studys_log_is_refused(tmp_path: Path) -> None:
    """A hard link at ``study.duckdb.wal`` (--resume had DuckDB write its log over the file
    it named) or a FIFO there (--resume and verify blocked for ever, deaf to SIGTERM):
    refused in one line, exit 2, the other file untouched."""
    out = tmp_path / "st"
    args = ["batch", str(BRAWL), "--runs", "2", "--out", str(out), "--no-plots"]
    assert invoke(*args).exit_code == 0
    wal = out / "study.duckdb.wal"
    victim = tmp_path / "victim.txt"
    victim.write_bytes(VICTIM)
    os.link(victim, wal)
    result = invoke(*args, "--resume")
    assert (result.exit_code, result.stderr) == (
        2,
        f"battlesim: error: {str(wal)!r} is a file with 1 other name (a hard link); "
        "battlesim writes a study only into files it made: remove it\n",
    )
    assert victim.read_bytes() == VICTIM
    wal.unlink()
    os.mkfifo(wal)
    for command in ([*args, "--resume"], ["verify", str(out), "--sample", "0"]):
        result = invoke(*command)
        assert result.exit_code == 2, result.output
        assert "study.duckdb.wal' is not a regular file" in result.stderr
    wal.unlink()
    assert invoke("verify", str(out), "--sample", "0").exit_code == 0


def test_the_writers_memory_cap_grows_with_the_rows_planned(tmp_path: Path) -> None:
    """16 MiB and 128 bytes a keyed row: a run's row and its units' final rows, for every
    run planned (a 16 MB cap ended a 59,000-run study in DuckDB's FATAL checkpoint error,
    and the resumes after it), set once the database is open."""
    from sim.batch.inputs.target import load_target
    from sim.batch.planning.plan import StudyPlan
    from sim.batch.storage.opening import open_store

    target = load_target(BRAWL)
    units = sum(len(rs.units(sc, rs.initial_state(sc))) for rs, sc in target.scenarios())
    plan = StudyPlan(target=target, replications=59_000, seed=1)
    store = open_store(plan, tmp_path / "st", plan.design_points())
    try:
        [(limit,)] = store.con.execute("SELECT current_setting('memory_limit')").fetchall()
    finally:
        store.close()
    rows = 59_000 * (1 + units)
    assert limit == f"{16 + -(-rows * 128 // 2**20)}.0 MiB"


@pytest.mark.parametrize("name", ["a" * 250 + ".html", "é" * 123 + ".html"])
def test_a_name_near_the_limit_still_gets_a_temporary_name_beside_it(
    tmp_path: Path, name: str
) -> None:
    """A legal name of 250 bytes (or 251: two-byte letters) is written: the hidden temporary
    name beside it is cut to fit 255 bytes, not refused as too long in the user's name (a
    reviewer's finding), and none is left behind."""
    atomic_write_text(tmp_path / name, "page")
    assert [p.name for p in tmp_path.iterdir()] == [name]
    assert (tmp_path / name).read_text() == "page"


def test_a_full_disk_names_the_file_being_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """os.write's error on a full disk names no file: every command said `battlesim: error:
    No space left on device` (or `cannot write : …`). The atomic writer and the replay's
    sink name their final path on it; nothing is left at it."""
    import errno

    real = os.write

    def full(fd: int, data: Any) -> int:
        if len(data) > 3:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return real(fd, data)

    monkeypatch.setattr(os, "write", full)
    final = tmp_path / "summary.json"
    with pytest.raises(OSError) as caught:
        atomic_write_text(final, "more than three bytes")
    assert (caught.value.errno, caught.value.filename) == (errno.ENOSPC, str(final))
    assert list(tmp_path.iterdir()) == []
    monkeypatch.undo()
    replay = tmp_path / "r.jsonl"
    sink = FileSink(replay)
    monkeypatch.setattr(sink, "_fh", _FullFile())
    sink.write("a line")
    with pytest.raises(OSError) as caught:
        sink.flush()
    assert caught.value.filename == str(replay)
    sink.abandon()


class _FullFile:
    """A file whose every write finds the disk full."""

    closed = False

    def write(self, data: bytes) -> int:
        import errno

        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    def flush(self) -> None:
        return None

    def close(self) -> None:
        return None


def test_a_png_folder_that_cannot_be_made_leaves_the_existing_page(tmp_path: Path) -> None:
    """report -o PAGE --png DIR, DIR a link to nothing: the page was written over, then the
    folder failed (exit 2). The folder is made first; the old page is left as it was."""
    page = tmp_path / "page.html"
    other = GOLDEN.with_name("chancellorsville-s1863.format4.jsonl")
    assert invoke("report", str(other), "-o", str(page)).exit_code == 0
    before = page.read_bytes()  # another battle's page: a page written over would differ
    (tmp_path / "png").symlink_to(tmp_path / "nowhere")
    result = invoke(
        "report", str(GOLDEN), "-o", str(page), "--force", "--png", str(tmp_path / "png")
    )
    assert result.exit_code == 2, result.output
    assert page.read_bytes() == before
    assert not (tmp_path / "nowhere").exists()


def test_a_campaign_that_fails_leaves_the_folders_earlier_campaign_whole(tmp_path: Path) -> None:
    """Each battle's replay is put in place only once the whole campaign is fought: one
    that failed in its second battle had put its first battle's new replay over the old
    one, beside the old second replay and the old campaign.json."""
    campaign = ROOT / "scenarios" / "fredericksburg_campaign.yaml"
    out = tmp_path / "c"
    assert invoke("campaign", str(campaign), "--seed", "3", "-o", str(out)).exit_code == 0
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    victim = tmp_path / "victim.txt"
    victim.write_bytes(VICTIM)
    (out / "2-chancellorsville.jsonl.partial").symlink_to(victim)
    failed = invoke("campaign", str(campaign), "--seed", "4", "-o", str(out), "--force")
    assert failed.exit_code == 2, failed.output
    (out / "2-chancellorsville.jsonl.partial").unlink()
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before
    assert victim.read_bytes() == VICTIM


def test_an_export_that_fails_midway_leaves_every_old_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """exporting_together holds every file beside its final name before any is put in
    place: from another file system (each copied), a full disk at the third copy had put
    the first two new files beside the old others. Every old file stays; nothing of the
    failed export is left; the error names the file."""
    import errno

    from engine.safety import atomic

    finals = [tmp_path / f"{n}.csv" for n in ("study", "points", "runs", "unit_finals")]
    for f in finals:
        f.write_text("OLD\n")
    real_replace, real_copy = os.replace, atomic._copy
    copies: list[int] = []

    def other_fs(src: Any, dst: Any, **kw: Any) -> None:
        if kw.get("src_dir_fd") is not None:  # the private folder is on another file system
            raise OSError(errno.EXDEV, os.strerror(errno.EXDEV))
        real_replace(src, dst, **kw)

    def filling(source: int, target: int) -> None:
        copies.append(1)
        if len(copies) == 3:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        real_copy(source, target)

    monkeypatch.setattr(atomic.os, "replace", other_fs)
    monkeypatch.setattr(atomic, "_copy", filling)
    with pytest.raises(OSError) as caught, atomic.exporting_together(finals) as temps:
        for temp in temps:
            temp.write_text("NEW\n")
    assert (caught.value.errno, caught.value.filename) == (errno.ENOSPC, str(finals[2]))
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(f.name for f in finals)
    assert all(f.read_text() == "OLD\n" for f in finals)
    monkeypatch.setattr(atomic, "_copy", real_copy)
    with atomic.exporting_together(finals) as temps:  # the same, whole: every file new
        for temp in temps:
            temp.write_text("NEW\n")
    assert all(f.read_text() == "NEW\n" for f in finals)
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(f.name for f in finals)


def test_a_study_database_kept_elsewhere_behind_a_link_is_read(tmp_path: Path) -> None:
    """Only to read, a link at study.duckdb is followed to the file it names (verify said
    it was "not a regular file"); a FIFO behind a link at its log is still refused."""
    out = tmp_path / "st"
    assert invoke("batch", str(BRAWL), "--runs", "2", "--out", str(out), "-q").exit_code == 0
    kept = tmp_path / "kept"
    kept.mkdir()
    (out / "study.duckdb").rename(kept / "study.duckdb")
    (out / "study.duckdb").symlink_to(kept / "study.duckdb")
    assert invoke("verify", str(out), "--sample", "0").exit_code == 0
    os.mkfifo(kept / "log")
    (out / "study.duckdb.wal").symlink_to(kept / "log")
    result = invoke("verify", str(out), "--sample", "0")
    assert result.exit_code == 2 and "study.duckdb.wal' is not a regular file" in result.stderr


def test_a_campaigns_held_replay_stays_locked_until_it_is_put_in_place(tmp_path: Path) -> None:
    """A battle's replay held at its .partial until the campaign ends is locked all the
    while: another writer of the same name is refused, never taking it for a killed run's
    leftover to remove."""
    from sim.batch.inputs.campaign import HeldSink

    out = tmp_path / "1-fredericksburg.jsonl"
    held = HeldSink(out)
    held.write(GOLDEN.read_text(encoding="utf-8").splitlines()[0])
    held.close()  # the battle ended: held, not yet in place
    with pytest.raises(BlockingIOError):
        FileSink(out)
    held.commit()
    assert out.is_file() and not out.with_name(out.name + ".partial").exists()
    FileSink(out).abandon()  # free again
