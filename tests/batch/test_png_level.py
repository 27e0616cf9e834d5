"""Plots are written at zlib's fastest level (``plotting.PNG_LEVEL``), with the pixels a
default-level file holds: PNG is lossless, so only the file's size and the time change."""

from __future__ import annotations

import struct
import zlib
from pathlib import Path

import pytest
from matplotlib.figure import Figure
from PIL import Image

from sim.batch.charts import plotting


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
