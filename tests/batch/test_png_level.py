"""Plots are written at zlib's fastest level (``sim.outputs.PNG_LEVEL``), with the pixels a
default-level file holds: PNG is lossless, so only the file's size and the time change.
The study, calibration and history plots (``plotting.save``) and a report's charts
(``battlesim report --png``) alike."""

from __future__ import annotations

import struct
import zlib
from pathlib import Path

import pytest
from matplotlib.figure import Figure
from PIL import Image

from sim.batch.charts import plotting
from tests.batch.helpers import invoke

ROOT = Path(__file__).resolve().parents[2]


def _figure() -> Figure:
    fig = Figure(figsize=(3, 2), layout="constrained")
    ax = fig.add_subplot()
    ax.plot([0, 1, 2], [1, 3, 2], marker="o")
    ax.set_title("a plot")
    return fig


def _idat(path: Path) -> bytes:
    """The PNG's image data: its IDAT chunks joined (a zlib stream)."""
    data, at, out = path.read_bytes(), 8, b""
    while at < len(data):
        (length,), kind = struct.unpack(">I", data[at : at + 4]), data[at + 4 : at + 8]
        if kind == b"IDAT":
            out += data[at + 8 : at + 8 + length]
        at += 12 + length
    return out


def test_a_plot_is_written_fast_with_the_same_pixels(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The fast file's zlib stream says level 1, and it holds the default file's pixels."""
    fast = plotting.save(_figure(), tmp_path / "fast.png")
    monkeypatch.setattr(plotting, "PNG_LEVEL", 6)
    default = plotting.save(_figure(), tmp_path / "default.png")
    # the zlib header's FLEVEL bits (RFC 1950): 0 is the fastest, 2 the default level
    assert (_idat(fast)[1] >> 6, _idat(default)[1] >> 6) == (0, 2)
    assert zlib.decompress(_idat(fast)) == zlib.decompress(_idat(default))
    with Image.open(fast) as a, Image.open(default) as b:
        assert a.size == b.size and a.tobytes() == b.tobytes()


def test_a_reports_charts_are_written_fast(tmp_path: Path) -> None:
    """``battlesim report --png`` writes its charts with its own ``savefig``: level 1 too."""
    charts = tmp_path / "charts"
    replay = ROOT / "replays" / "stone_wall-s1862.jsonl"
    result = invoke("report", replay, "-o", tmp_path / "r.html", "--png", charts)
    assert result.exit_code == 0, result.output
    pngs = sorted(charts.glob("*.png"))
    assert len(pngs) >= 3
    assert {p.name: _idat(p)[1] >> 6 for p in pngs} == {p.name: 0 for p in pngs}
