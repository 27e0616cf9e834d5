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
from pathlib import Path
from types import SimpleNamespace
from typing import Any, ClassVar

import pytest

from sim.batch.execution import executors
from sim.batch.execution.executors import SAFE_PATH, open_executor, safe_path
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
