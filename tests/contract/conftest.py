"""The toy ``pips`` and the ``phalanx`` rulesets installed as real plugins for the contract suite.

A distribution ``pips-toy`` is written to a temporary directory — its
``METADATA`` and an ``entry_points.txt`` declaring ``pips`` in the
``battlesim.rulesets`` group — and the directory is put on ``sys.path``, so
``importlib.metadata`` finds it exactly as it finds an installed package.
It is removed again after the contract tests.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from sim.contract import registry

ENTRY_POINTS = (
    "[battlesim.rulesets]\n"
    "pips = tests.contract.toy:RULESET\n"
    "phalanx = tests.contract.phalanx:RULESET\n"
)


def install_plugin(where: Path, name: str, entry_points: str) -> Path:
    """Write distribution ``name``'s metadata and entry points under ``where``; return it."""
    dist = where / f"{name.replace('-', '_')}-0.1.dist-info"
    dist.mkdir(parents=True)
    (dist / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 0.1\n")
    (dist / "entry_points.txt").write_text(entry_points)
    return where


def install_toy(where: Path) -> Path:
    """Write the ``pips-toy`` distribution's metadata under ``where``; return the directory."""
    return install_plugin(where, "pips-toy", ENTRY_POINTS)


@pytest.fixture(scope="package", autouse=True)
def toy_plugin(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """The toy plugin is installed for the contract suite (this package), then uninstalled."""
    where = str(install_toy(tmp_path_factory.mktemp("site")))
    sys.path.insert(0, where)
    yield
    sys.path.remove(where)
    registry._loaded.pop("pips", None)
    registry._loaded.pop("phalanx", None)
