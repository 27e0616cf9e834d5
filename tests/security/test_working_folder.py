"""A study run in a folder never imports code from that folder.

multiprocessing starts a pool's forkserver (and ``spawn`` its workers, and Dask's
local cluster its workers) as ``python -c ...``, which puts the working directory first
on ``sys.path``; the forkserver then imports the worker module before anything else
(Python 3.11 ignores the path it is handed). A folder a user received is data, never
code: battlesim starts its worker processes under ``PYTHONSAFEPATH=1``
(``sim.batch.execution.executors.safe_path``).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any, ClassVar

import pytest

from sim.batch.execution import executors
from sim.batch.execution.executors import (
    SAFE_PATH,
    SET_BY,
    forget_safe_path,
    open_executor,
    safe_path,
)
from tests.forkserver import REAL

ROOT = Path(__file__).resolve().parents[2]
STONE_WALL = str(ROOT / "scenarios" / "stone_wall.yaml")

_PLANTED = ("sim/__init__.py", "multiprocessing/__init__.py", "numpy.py", "duckdb.py")
"""Modules a worker process or its server imports, planted in the folder the study runs in:
each writes a line into ``imported.txt`` when it is imported."""


def _plant(folder: Path) -> Path:
    marker = folder / "imported.txt"
    for name in _PLANTED:
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(
            f"open({str(marker)!r}, 'a').write({name!r} + '\\n')\nraise ImportError('planted')\n",
            encoding="utf-8",
        )
    return marker


def test_a_study_on_two_workers_in_a_folder_of_planted_modules_imports_none(
    tmp_path: Path,
) -> None:
    """The real console script (its own pool's forkserver starts in the study's folder):
    the study completes and no planted module was imported by any process."""
    marker = _plant(tmp_path)
    env = {k: v for k, v in os.environ.items() if k != SAFE_PATH}
    done = subprocess.run(
        [str(REAL), "batch", STONE_WALL, "--runs", "4", "--jobs", "2", "--no-plots", "-q",
         "--out", "out"],
        cwd=tmp_path, env=env, capture_output=True, text=True, check=False, timeout=300,
    )  # fmt: skip
    assert not marker.exists(), marker.read_text() + done.stderr
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "out" / "study.duckdb").is_file()


@pytest.mark.parametrize("before", [None, ""])
def test_safe_path_is_set_while_it_lasts_and_then_as_it_was(
    monkeypatch: pytest.MonkeyPatch, before: str | None
) -> None:
    """Unset (or empty, which Python reads as unset): 1 inside, then as it was."""
    if before is None:
        monkeypatch.delenv(SAFE_PATH, raising=False)
    else:
        monkeypatch.setenv(SAFE_PATH, before)
    with safe_path():
        assert os.environ[SAFE_PATH] == "1"
    assert os.environ.get(SAFE_PATH) == before


def test_safe_path_leaves_a_users_value_and_a_later_change_alone(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A user's own value stays; a value someone else set meanwhile is not undone."""
    monkeypatch.setenv(SAFE_PATH, "yes")
    with safe_path():
        assert os.environ[SAFE_PATH] == "yes"
    assert os.environ[SAFE_PATH] == "yes"
    monkeypatch.delenv(SAFE_PATH)
    with safe_path():
        os.environ[SAFE_PATH] = "2"
    assert os.environ[SAFE_PATH] == "2"


class _Cluster:
    """A stand-in LocalCluster that notes what its workers would be started with."""

    seen: ClassVar[list[str | None]] = []

    def __init__(self, **_: Any) -> None:
        _Cluster.seen.append(os.environ.get(SAFE_PATH))

    def close(self) -> None:
        pass


class _Client:
    def __init__(self, *_: Any, **__: Any) -> None:
        pass

    def get_executor(self, **_: Any) -> SimpleNamespace:
        return SimpleNamespace()

    def run(self, *_: Any, **__: Any) -> dict[str, Any]:  # on every worker: it has none
        return {}

    def close(self) -> None:
        pass


def test_dask_and_local_pools_start_their_workers_under_safe_path(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A Dask local cluster is made, and a local pool lives, with the variable set; after
    either the environment is as it was."""
    monkeypatch.delenv(SAFE_PATH, raising=False)
    fake = SimpleNamespace(LocalCluster=_Cluster, Client=_Client)
    monkeypatch.setattr(executors, "import_module", lambda name: fake)
    _Cluster.seen = []
    with open_executor("dask", 2):
        pass
    assert _Cluster.seen == ["1"]
    assert SAFE_PATH not in os.environ
    with open_executor("local", 2):  # its workers start as chunks are submitted
        assert os.environ[SAFE_PATH] == "1"
    assert SAFE_PATH not in os.environ


def test_overlapping_blocks_keep_it_set_until_the_last_one_ends(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Two studies on threads: the one that ends first does not take the variable from the
    other (its workers started later would look in the folder again); the last one puts it
    back."""
    monkeypatch.delenv(SAFE_PATH, raising=False)
    first, second = safe_path(), safe_path()
    first.__enter__()
    second.__enter__()
    first.__exit__(None, None, None)
    assert os.environ[SAFE_PATH] == "1"
    second.__exit__(None, None, None)
    assert SAFE_PATH not in os.environ
    assert SET_BY not in os.environ


def test_a_worker_drops_what_the_studys_process_set(monkeypatch: pytest.MonkeyPatch) -> None:
    """forget_safe_path, run as the worker module is imported: in another process than the
    one that set them, both variables go; in that process, or for a user's own value,
    nothing changes."""
    monkeypatch.setenv(SAFE_PATH, "1")
    monkeypatch.setenv(SET_BY, str(os.getpid()))
    forget_safe_path()
    assert (os.environ[SAFE_PATH], os.environ[SET_BY]) == ("1", str(os.getpid()))
    monkeypatch.setenv(SET_BY, str(os.getpid() + 1))
    forget_safe_path()
    assert SAFE_PATH not in os.environ and SET_BY not in os.environ
    monkeypatch.setenv(SAFE_PATH, "1")  # the user's own, no SET_BY
    forget_safe_path()
    assert os.environ[SAFE_PATH] == "1"


_LATER_POOL = """
import multiprocessing, os, sys
from sim.batch.execution.executors import open_executor

def env(q):
    q.put(os.environ.get("PYTHONSAFEPATH"))

if __name__ == "__main__":
    with open_executor("local", 2) as ex:  # a study's pool starts the forkserver
        during = ex.submit(os.getpid).result() > 0
    ctx = multiprocessing.get_context("forkserver")  # then the user's own, from the same server
    q = ctx.Queue()
    p = ctx.Process(target=env, args=(q,))
    p.start()
    print(during, q.get(), os.environ.get("PYTHONSAFEPATH"))
    p.join()
"""


def test_a_pool_forked_later_from_the_same_server_does_not_inherit_it(tmp_path: Path) -> None:
    """The forkserver outlives the study and a notebook's own pool forks from it: its
    processes (and the study's process after the study) have no PYTHONSAFEPATH."""
    script = tmp_path / "later.py"
    script.write_text(_LATER_POOL, encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k not in (SAFE_PATH, SET_BY)}
    done = subprocess.run(
        [sys.executable, str(script)], cwd=tmp_path, env=env, capture_output=True, text=True,
        check=False, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["True", "None", "None"]


def test_a_block_interrupted_half_way_is_finished_by_the_next(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A Ctrl-C inside safe_path's own steps leaves the mark (written first, removed last):
    the next block treats the variable as its own, sets it, and puts it back."""
    monkeypatch.setattr(executors, "_safe_before", None)
    mine = str(os.getpid())
    for left in ({SET_BY: mine}, {SET_BY: mine, SAFE_PATH: "1"}):  # exit cut short; entry
        monkeypatch.delenv(SAFE_PATH, raising=False)
        for name, value in left.items():
            monkeypatch.setenv(name, value)
        with safe_path():
            assert os.environ[SAFE_PATH] == "1"
        assert SAFE_PATH not in os.environ and SET_BY not in os.environ


def test_a_process_with_a_block_open_keeps_it_when_the_worker_module_loads(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Variables inherited from another process's block look like a user's; a block opened
    here keeps them, and importing the worker module inside it does not drop them."""
    monkeypatch.setenv(SAFE_PATH, "1")
    monkeypatch.setenv(SET_BY, str(os.getpid() + 1))
    with safe_path():
        forget_safe_path()
        assert os.environ[SAFE_PATH] == "1"
    forget_safe_path()
    assert SAFE_PATH not in os.environ


def test_a_child_forked_inside_a_block_has_none_open(monkeypatch: pytest.MonkeyPatch) -> None:
    """os.fork inside a block (another thread's study): the child starts with no block open
    and a fresh lock, so its own blocks set and put back the variable as usual."""
    monkeypatch.delenv(SAFE_PATH, raising=False)
    with safe_path():
        pid = os.fork()
        if pid == 0:  # pragma: no cover - the child
            ok = executors._safe_users == 0 and not executors._SAFE_LOCK.locked()
            os._exit(0 if ok else 1)
        _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
