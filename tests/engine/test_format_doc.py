"""docs/replay-format.md describes the format this battlesim writes (its title said 4 when
the writer wrote 5)."""

from __future__ import annotations

from pathlib import Path

from engine.version import FORMAT_VERSION

DOC = Path(__file__).resolve().parents[2] / "docs" / "replay-format.md"


def test_the_page_is_titled_with_the_format_written_today() -> None:
    title = DOC.read_text(encoding="utf-8").splitlines()[0]
    assert title == f"# Replay file format (format version {FORMAT_VERSION})"
