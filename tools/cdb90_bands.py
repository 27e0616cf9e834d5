"""Derive sim/history/cdb90_bands.json: attacker ÷ defender casualty ratios in CDB90.

Reads three tables of the jrnold/CDB90 data set (a tidy CDB90, the CAA
Database of Battles, version 1990; data under the Open Data Commons
Attribution License, ODC-By 1.0) and writes only summary figures: for each
band (an era and a defensive posture), how many battles, the 10/25/50/75/90 %
quantiles of the attacker's casualties over the defender's, and the largest.
The data set itself is not shipped.

    git clone https://github.com/jrnold/CDB90      # commit e0b35ec4d798…, data version 9.0.3
    python tools/cdb90_bands.py CDB90/ --commit e0b35ec4d798cec3bb4e6970c0f6bb7aa69e2f4c \\
        > sim/history/cdb90_bands.json

Definitions (the same as issue 30's figures):

* a battle's ratio is ``cas`` of its attacker (``belligerents.attacker == 1``)
  over ``cas`` of its defender (``attacker == 0``); battles where either is
  missing or the defender's is 0 are left out;
* American Civil War: ``battles.war == "AMERICAN CIVIL WAR"``;
* Napoleonic: ``battles.war == "THE NAPOLEONIC WARS"`` and the first active
  period (``active_periods.atp_number == 1``) starting in 1800–1815;
* prepared defence: the defender's primary posture ``battles.post1`` is
  ``PD`` (prepared defence) or ``FD`` (fortified defence); every other
  posture (``HD`` hasty defence, ``DL`` delay, ``WD`` withdrawal) is not;
* quantiles: linear interpolation between order statistics (numpy's default,
  Hyndman & Fan type 7).
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

QUANTILES = (0.10, 0.25, 0.50, 0.75, 0.90)
PREPARED = ("PD", "FD")


def _rows(folder: Path, name: str) -> list[dict[str, str]]:
    with (folder / "data" / f"{name}.csv").open(encoding="utf-8", newline="") as f:
        return list(csv.DictReader(f))


def _quantile(xs: list[float], q: float) -> float:
    """Type 7: x[h] with h = (n − 1)·q, interpolated linearly."""
    s = sorted(xs)
    h = (len(s) - 1) * q
    lo = int(h)
    hi = min(lo + 1, len(s) - 1)
    return s[lo] + (h - lo) * (s[hi] - s[lo])


def bands(folder: Path) -> dict[str, dict[str, Any]]:
    """Each band's battle count, quantiles and largest ratio, from a CDB90 checkout."""
    battles = {r["isqno"]: r for r in _rows(folder, "battles")}
    cas: dict[str, dict[str, str]] = {}
    for r in _rows(folder, "belligerents"):
        cas.setdefault(r["isqno"], {})[r["attacker"]] = r["cas"]
    start: dict[str, int] = {}
    for r in _rows(folder, "active_periods"):
        when = r["start_time_min"] or r["start_time_max"] or r["end_time_min"]
        if r["atp_number"] == "1" and when:
            start[r["isqno"]] = int(when[:4])

    def ratio(i: str) -> float | None:
        try:
            a, d = float(cas[i]["1"]), float(cas[i]["0"])
        except (KeyError, ValueError):
            return None
        return a / d if d > 0 else None

    def acw(i: str) -> bool:
        return battles[i]["war"] == "AMERICAN CIVIL WAR"

    def napoleonic(i: str) -> bool:
        return battles[i]["war"] == "THE NAPOLEONIC WARS" and 1800 <= start.get(i, 0) <= 1815

    def prepared(i: str) -> bool:
        return battles[i]["post1"] in PREPARED

    wanted: dict[str, tuple[str, Callable[[str], bool]]] = {
        "acw": ("American Civil War, every posture", acw),
        "acw_prepared": ("American Civil War, prepared defence", lambda i: acw(i) and prepared(i)),
        "acw_not_prepared": (
            "American Civil War, no prepared defence",
            lambda i: acw(i) and not prepared(i),
        ),
        "napoleonic": ("Napoleonic wars 1800–1815, every posture", napoleonic),
        "napoleonic_prepared": (
            "Napoleonic wars 1800–1815, prepared defence",
            lambda i: napoleonic(i) and prepared(i),
        ),
        "napoleonic_not_prepared": (
            "Napoleonic wars 1800–1815, no prepared defence",
            lambda i: napoleonic(i) and not prepared(i),
        ),
    }
    out: dict[str, dict[str, Any]] = {}
    for key, (label, chosen) in wanted.items():
        found = sorted(
            (r, battles[i]["name"])
            for i in sorted(battles, key=int)
            if chosen(i) and (r := ratio(i)) is not None
        )
        xs = [r for r, _ in found]
        out[key] = {
            "label": label,
            "battles": len(xs),
            "quantiles": {f"p{round(q * 100)}": round(_quantile(xs, q), 3) for q in QUANTILES},
            "max": round(xs[-1], 3),
            "max_battle": found[-1][1].title(),
        }
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("cdb90", type=Path, help="a checkout of github.com/jrnold/CDB90")
    parser.add_argument("--commit", required=True, help="the checkout's commit (recorded)")
    args = parser.parse_args(argv)
    version = _rows(args.cdb90, "version")[0]["version"]
    data = {
        "source": "jrnold/CDB90 (https://github.com/jrnold/CDB90), a tidy version of CDB90, "
        "the CAA Database of Battles, version 1990 (US Army Concepts Analysis Agency)",
        "license": "Open Data Commons Attribution License (ODC-By) 1.0, "
        "http://opendatacommons.org/licenses/by/; the original CDB90 data is public domain",
        "attribution": "Summary figures derived from jrnold/CDB90 (Jeffrey B. Arnold), "
        "data version " + version + ", commit " + args.commit + ", by tools/cdb90_bands.py",
        "commit": args.commit,
        "data_version": version,
        "ratio": "attacker casualties ÷ defender casualties (belligerents.cas), one per battle",
        "quantile_method": "linear interpolation between order statistics (Hyndman & Fan "
        "type 7, numpy's default)",
        "prepared": "the defender's primary posture battles.post1 is PD (prepared defence) "
        "or FD (fortified defence)",
        "bands": bands(args.cdb90),
    }
    sys.stdout.write(json.dumps(data, indent=2, ensure_ascii=False) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
