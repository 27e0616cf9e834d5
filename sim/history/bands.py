"""Each musket case's attacker ÷ defender loss ratio beside CDB90's band (docs/history.md).

``cdb90_bands.json`` beside this module holds only summary figures derived
from the jrnold/CDB90 data set (ODC-By 1.0; ``tools/cdb90_bands.py`` derives
them): for each band — an era and the defender's posture — the number of
battles and the 10/25/50/75/90 % quantiles of the attacker's casualties over
the defender's. A musket case's file says which band it belongs to and who
attacked (its ``loss_band``: :class:`sim.history.case.LossBand`); the case is
fought with one more (unshown) ``loss_ratio`` measure, and ``battlesim
history`` prints the estimate beside its band. A ratio above the band's 90th
percentile needs a sourced reason (:attr:`CaseBand.reason`), or it is flagged.
"""

from __future__ import annotations

import decimal
import itertools
import math
from dataclasses import dataclass

from sim.history.case import Case, MeasureSpec
from sim.history.cdb90 import BANDS, band_names
from sim.history.cdb90 import data as _data

__all__ = [
    "BANDS",
    "Band",
    "CaseBand",
    "band_measure",
    "band_names",
    "band_of",
    "case_band",
    "figure",
    "placement",
]

RATIO_ID = "cdb90_loss_ratio"
"""The id of the measure a case is fought with for its band (never shown among its measures)."""


@dataclass(frozen=True)
class CaseBand:
    """A musket case's band: which CDB90 band, who attacked, and any sourced reason."""

    band: str
    attacker: str
    defender: str
    battle: str | None = None
    """A campaign's battle to read (its ``id``); None for a lone scenario."""
    reason: str | None = None
    """Why a ratio above the band's 90th percentile is right here, with its source."""


@dataclass(frozen=True)
class Band:
    """One CDB90 band: its label, battle count, quantiles (p10 … p90) and largest ratio."""

    id: str
    label: str
    battles: int
    quantiles: dict[str, float]
    max: float
    max_battle: str


def figure(q: float) -> str:
    """A band's figure to three significant figures, as the data file's decimal is rounded
    by hand (half up: 2.175 is 2.18, where the float's own ``.3g`` gives 2.17)."""
    with decimal.localcontext(rounding=decimal.ROUND_HALF_UP):
        return f"{decimal.Decimal(repr(q)):.3g}"


def attribution() -> str:
    """The line that credits the figures' source and licence."""
    data = _data()
    return f"{data['attribution']}; {data['license']}."


def band_of(name: str) -> Band:
    """The band called ``name`` (a key of the data file's ``bands``)."""
    b = _data()["bands"][name]
    return Band(name, b["label"], b["battles"], b["quantiles"], b["max"], b["max_battle"])


def case_band(case: Case) -> CaseBand | None:
    """The band a case's file gives (``loss_band``), else None."""
    given = case.spec.loss_band
    if given is None:
        return None
    return CaseBand(given.band, given.attacker, given.defender, given.battle, given.reason)


def band_measure(case: Case) -> MeasureSpec | None:
    """The loss-ratio measure a musket case with a band is fought with, else None."""
    found = case_band(case)
    if found is None:
        return None
    band = band_of(found.band)
    return MeasureSpec(
        id=RATIO_ID,
        label="attacker ÷ defender loss (men)",
        kind="loss_ratio",
        side=found.attacker,
        over=found.defender,
        unit="men",
        battle=found.battle,
        historical=band.quantiles["p50"],
        accept={"max": band.quantiles["p90"]},
        source=attribution(),
    )


def placement(value: float, band: Band) -> str:
    """Where ``value`` falls in the band: ``below p10``, ``p25–p50``, ``above p90``…"""
    if math.isnan(value):
        return "n/a"
    qs = list(band.quantiles.items())
    if value < qs[0][1]:
        return f"below {qs[0][0]}"
    for (lo_name, lo), (hi_name, hi) in itertools.pairwise(qs):
        if lo <= value <= hi:
            return f"{lo_name}–{hi_name}"
    return f"above {qs[-1][0]}"
