"""Fixtures of the viewer tests: the golden replays' pages, and one headless Chromium."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from sim.cli import cli
from tests.viewer.browser import chromium_path, launch

ROOT = Path(__file__).resolve().parents[2]
GOLDENS = sorted((ROOT / "replays").glob("*.jsonl"))


@pytest.fixture(scope="session")
def pages(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """``battlesim report`` of every golden replay, by replay stem."""
    out = tmp_path_factory.mktemp("pages")
    made = {}
    for replay in GOLDENS:
        page = out / f"{replay.stem}.html"
        result = CliRunner().invoke(cli, ["report", str(replay), "-o", str(page)])
        assert result.exit_code == 0, result.output
        made[replay.stem] = page
    return made


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    """Headless system Chromium; the tests skip without it, except in CI where they fail."""
    missing = chromium_path() is None
    try:
        import playwright  # noqa: F401
    except ImportError:
        missing = True
    if missing:
        if os.environ.get("CI"):
            pytest.fail("CI has no Chromium (.ci/run installs it) or Playwright (the dev extra)")
        pytest.skip(
            "no system Chromium or Playwright here (apt-get install chromium-headless-shell)"
        )
    with launch() as b:
        yield b
