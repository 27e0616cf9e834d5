"""CDB90's summary figures, shipped beside this module as ``cdb90_bands.json``.

Read by :mod:`sim.history.bands` (the bands and their quantiles) and by
:mod:`sim.history.case` (the band names a case's ``loss_band`` may give),
which the bands module reads in turn: the file is read here, below both.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

__all__ = ["BANDS", "band_names", "data"]

BANDS = Path(__file__).with_name("cdb90_bands.json")
"""The summary figures and their attribution."""


@cache
def data() -> dict[str, Any]:
    """The data file, read once."""
    found: dict[str, Any] = json.loads(BANDS.read_text(encoding="utf-8"))
    return found


def band_names() -> list[str]:
    """The bands CDB90's figures hold (the data file's ``bands``), in its order."""
    return list(data()["bands"])
