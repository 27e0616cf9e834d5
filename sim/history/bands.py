"""Each musket case's attacker ÷ defender loss ratio beside CDB90's band (docs/history.md).

``cdb90_bands.json`` beside this module holds only summary figures derived
from the jrnold/CDB90 data set (ODC-By 1.0; ``tools/cdb90_bands.py`` derives
them): for each band — an era and the defender's posture — the number of
battles and the 10/25/50/75/90 % quantiles of the attacker's casualties over
the defender's. :data:`CASE_BANDS` says which band each musket case belongs
to and who attacked; the case is fought with one more (unshown) ``loss_ratio``
measure, and ``battlesim history`` prints the estimate beside its band. A
ratio above the band's 90th percentile needs a sourced reason
(:attr:`CaseBand.reason`), or it is flagged.
"""

from __future__ import annotations

import itertools
import json
import math
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from sim.history.case import Case, MeasureSpec

__all__ = ["BANDS", "CASE_BANDS", "Band", "CaseBand", "band_measure", "band_of", "placement"]

BANDS = Path(__file__).with_name("cdb90_bands.json")
"""The summary figures and their attribution."""

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


CASE_BANDS: dict[str, CaseBand] = {
    "stone_wall_first_hour": CaseBand("acw_prepared", "usa", "csa"),
    "marye_heights_day": CaseBand("acw_prepared", "usa", "csa"),
    "chancellorsville_works": CaseBand("acw_prepared", "csa", "usa"),
    "quatre_bras_hedge": CaseBand("napoleonic", "french", "allies"),
    "fredericksburg_campaign": CaseBand("acw_prepared", "usa", "csa", battle="fredericksburg"),
    # the cases written on 2026-12-03 (the attacker: the side with the charge orders; prepared:
    # the defender fought from works or a position it had held and improved beforehand)
    "cold_harbor": CaseBand("acw_prepared", "usa", "csa"),  # entrenched lines (CDB90: PD)
    "fort_wagner": CaseBand(
        "acw_prepared",
        "usa",
        "csa",  # an earthwork fort
        reason=(
            "the record's own ratio is above p90: 1,515 Union lost (246 killed, 880 wounded,"
            " 389 missing) against 174 Confederate (36 killed, 133 wounded, 5 missing), both"
            ' from one return (Wikipedia, "Second Battle of Fort Wagner", its note 2; the same'
            ' totals at basd.net, "Battery Wagner"), 8.7, or 6.7 killed and wounded only.'
        ),
    ),
    "upton_spotsylvania": CaseBand("acw_prepared", "usa", "csa"),  # the Mule Shoe's works
    "sunken_road": CaseBand("acw_prepared", "usa", "csa"),  # the lane, fence rails piled since dawn
    "little_round_top": CaseBand("acw_not_prepared", "csa", "usa"),  # a hill held that hour
    "first_minnesota": CaseBand("acw_not_prepared", "usa", "csa"),  # a counter-charge in the open
    "albuera_colborne": CaseBand("napoleonic", "french", "british"),
    "albuera_fusiliers": CaseBand("napoleonic", "allies", "french"),
    "bussaco_light_division": CaseBand("napoleonic", "french", "allies"),
    "maida_kempt": CaseBand("napoleonic", "french", "british"),
    "waterloo_derlon": CaseBand("napoleonic", "french", "allies"),
    # late cases (2026-12-04, docs/history.md: fitting only)
    "garcia_hernandez": CaseBand("napoleonic", "kgl", "french"),
}
"""Each musket case's band, by case id. A new musket case adds its line here: the band
(``acw_prepared`` when the defender held works or a prepared position, else
``acw_not_prepared``; ``napoleonic`` for 1800–1815, whose prepared-defence band has too few
battles to use), the attacking and defending sides' ids, and for a campaign the battle. A
``reason`` is written only as docs/history.md's *When a ratio above p90 gets a reason* says: the
record's own ratio for the episode above p90, and the simulated one within 1.5 times it."""


@dataclass(frozen=True)
class Band:
    """One CDB90 band: its label, battle count, quantiles (p10 … p90) and largest ratio."""

    id: str
    label: str
    battles: int
    quantiles: dict[str, float]
    max: float
    max_battle: str


@cache
def _data() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(BANDS.read_text(encoding="utf-8"))
    return data


def attribution() -> str:
    """The line that credits the figures' source and licence."""
    data = _data()
    return f"{data['attribution']}; {data['license']}."


def band_of(name: str) -> Band:
    """The band called ``name`` (a key of the data file's ``bands``)."""
    b = _data()["bands"][name]
    return Band(name, b["label"], b["battles"], b["quantiles"], b["max"], b["max_battle"])


def band_measure(case: Case) -> MeasureSpec | None:
    """The loss-ratio measure a musket case with a band is fought with, else None."""
    found = CASE_BANDS.get(case.id)
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
