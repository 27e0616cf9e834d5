"""Files a command writes as one set are replaced as one set: a Ctrl-C among the renames, a
full disk at the last file or a failed battle leaves the folder's old set, or the new one
whole, never one beside the other (invariant 4: nothing of the user's is lost)."""

from __future__ import annotations

import errno
import os
import resource
import signal
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from engine.safety import atomic
from sim.batch.inputs import campaign as campaign_module
from sim.batch.inputs.campaign import HeldSink
from sim.batch.inputs.target import load_campaign
from tests.batch.helpers import CAMPAIGN, battlesim_command, invoke
from tests.history.test_cli import suite


@pytest.fixture
def ctrl_c() -> Iterator[None]:
    """SIGINT raising KeyboardInterrupt in this test, as in a command (an earlier test in
    this worker may have left it ignored, or to another handler), put back after."""
    before = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, before)


def _interrupting(real: Callable[..., Any], after: int) -> Callable[..., Any]:
    """``real``, sending this process a SIGINT (a Ctrl-C) once its ``after``-th call ends."""
    calls = [0]

    def wrapped(*args: Any, **kwargs: Any) -> Any:
        done = real(*args, **kwargs)
        calls[0] += 1
        if calls[0] == after:
            os.kill(os.getpid(), signal.SIGINT)
        return done

    return wrapped


@pytest.mark.usefixtures("ctrl_c")
def test_a_ctrl_c_between_two_renames_of_an_export_lands_after_the_last(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The second of three files renamed over an old export, then Ctrl-C: the signal is
    held back until all three are in place, then raised (it had left one new table beside
    two old ones)."""
    finals = [tmp_path / f"{name}.csv" for name in ("study", "runs", "units")]
    for path in finals:
        path.write_text("old\n")
    real = os.replace

    def replace(src: Any, dst: Any, **kw: Any) -> None:
        real(src, dst, **kw)
        if Path(dst) == finals[0]:  # the first final name renamed over
            os.kill(os.getpid(), signal.SIGINT)

    monkeypatch.setattr(atomic.os, "replace", replace)
    with pytest.raises(KeyboardInterrupt), atomic.exporting_together(finals) as held:
        for path in held:
            path.write_text("new\n")
    assert [p.read_text() for p in finals] == ["new\n"] * 3
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(p.name for p in finals)


@pytest.mark.usefixtures("ctrl_c")
def test_a_campaign_interrupted_as_its_replays_are_put_in_place_is_one_campaign(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`battlesim campaign` over an earlier campaign's folder, Ctrl-C once its first replay
    is in place: every replay and campaign.json are the new campaign's (its first replay
    had stood beside the old second one and the old campaign.json), and no .partial is
    left."""
    first, second = tmp_path / "seed5", tmp_path / "seed6"
    for folder, seed in ((first, "5"), (second, "6")):
        assert invoke("campaign", CAMPAIGN, "--seed", seed, "-o", folder).exit_code == 0
    out = tmp_path / "out"
    assert invoke("campaign", CAMPAIGN, "--seed", "5", "-o", out).exit_code == 0
    monkeypatch.setattr(HeldSink, "commit", _interrupting(HeldSink.commit, after=1))
    with pytest.raises(KeyboardInterrupt):  # in this thread, as the command plays it
        campaign_module.play_campaign(load_campaign(CAMPAIGN), 6, out)
    names = sorted(p.name for p in second.iterdir())
    assert sorted(p.name for p in out.iterdir()) == names
    assert [(out / n).read_bytes() for n in names] == [(second / n).read_bytes() for n in names]


def test_a_rerun_whose_second_battle_fails_leaves_the_folders_replays_as_they_were(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`battlesim rerun` of a campaign run into a folder holding another run's replays:
    its second battle's write refused (a full disk), nothing is put in place; its first
    battle's replay had been, beside the other run's second."""
    study = tmp_path / "c"
    args = ["--runs", "2", "--out", study, "--jobs", "1", "--no-plots", "-q"]
    assert invoke("batch", CAMPAIGN, *args).exit_code == 0
    out = tmp_path / "r"
    assert invoke("rerun", study, "0", "--out", out).exit_code == 0
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    real = HeldSink.__init__
    made = [0]

    def full_on_the_second(self: HeldSink, path: Path, *rest: Any, **kw: Any) -> None:
        made[0] += 1
        if made[0] == 2:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(path))
        real(self, path, *rest, **kw)

    monkeypatch.setattr(HeldSink, "__init__", full_on_the_second)
    failed = invoke("rerun", study, "1", "--out", out, "--force")
    assert failed.exit_code == 2, failed.output
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before


def test_history_outputs_over_a_full_disk_keep_the_last_runs_three(tmp_path: Path) -> None:
    """`history -o DIR --force` whose plot the OS refuses (the file size limit, as a full
    disk): history.txt and history.json stay the last run's, beside its plot (they were the
    new run's), and the one line names the plot as the user named it."""
    folder = suite(tmp_path)
    out = tmp_path / "h"
    assert invoke("history", "--suite", folder, "-o", out, "-q").exit_code in (0, 1)
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    case = folder / "small.yaml"
    case.write_text(case.read_text().replace("A small case", "Another small case"))

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (20_000, 20_000))  # the plot is ~40 KB

    done = subprocess.run(
        [*battlesim_command(), "history", "--suite", str(folder), "-o", str(out), "--force",
         "-q"],
        check=False, capture_output=True, text=True, preexec_fn=limit,
    )  # fmt: skip
    assert done.returncode == 2, done.stderr
    assert done.stderr == f"battlesim: error: {out / 'history.png'}: {os.strerror(errno.EFBIG)}\n"
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before


def test_a_campaign_whose_summary_cannot_be_renamed_leaves_the_old_campaign_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every replay renamed into place, then campaign.json's rename refused (a full disk):
    the old replays are put back from the links kept beside them, so the folder is the old
    campaign, whole, and no link or .partial is left (the new replays had stood beside the
    old campaign.json, and the error said they could not be written)."""
    out = tmp_path / "out"
    assert invoke("campaign", CAMPAIGN, "--seed", "5", "-o", out).exit_code == 0
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    real = os.replace

    def full(src: Any, dst: Any, **kw: Any) -> None:
        if Path(dst).name == "campaign.json":
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(dst))
        real(src, dst, **kw)

    monkeypatch.setattr(atomic.os, "replace", full)
    with pytest.raises(OSError, match="No space left"):
        campaign_module.play_campaign(load_campaign(CAMPAIGN), 6, out)
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before
