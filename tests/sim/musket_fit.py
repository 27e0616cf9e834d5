"""The sweep that chose musket rules version 3's defaults (docs/rules/musket.md,
*Choosing the defaults*): the fitting history cases fought at each combination of
option values, beside the conduct figures.

    .venv/bin/python tests/sim/musket_fit.py --grid rout_loss=0.25,0.3 \\
        --grid closing_loss_step=0.03,0.05 [--runs 200] [--case ID ...]

Each case is fought with its own runs and seeds (``battlesim history --case ID``), with
the options of the point set in every battle's scenario. Only cases whose ``split`` is
``fitting`` (or that have none, which means fitting) are fought: a held-out case's
results are never read here.
"""

from __future__ import annotations

import argparse
import dataclasses
import itertools
import json
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent.parent
sys.path.insert(0, str(ROOT))

from sim.history.case import load_case  # noqa: E402
from sim.history.run import run_case  # noqa: E402
from tests.sim.musket_conduct import with_options  # noqa: E402

FITTING = (
    "stone_wall_first_hour",
    "marye_heights_day",
    "quatre_bras_hedge",
    "chancellorsville_works",
    "fredericksburg_campaign",
)
SUITE = ROOT / "sim" / "history" / "suite"


def _split(path: Path) -> str:
    for line in path.read_text().splitlines():
        if line.startswith("split:"):
            return line.split(":", 1)[1].strip()
    return "fitting"


def _cases(ids: list[str]) -> list[Path]:
    paths = [SUITE / f"{i}.yaml" for i in ids]
    for p in paths:
        if _split(p) != "fitting":
            raise SystemExit(f"{p.name} is held out: its results are not read while fitting")
    return paths


def _parse(text: str) -> tuple[str, list[Any]]:
    name, values = text.split("=", 1)
    return name, [json.loads(v) if v not in ("none", "null") else None for v in values.split(",")]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--grid", action="append", default=[], metavar="OPTION=V1,V2")
    ap.add_argument("--case", action="append", default=[])
    ap.add_argument("--runs", type=int, default=None, help="runs per case (default: the case's)")
    args = ap.parse_args()
    grid = [_parse(g) for g in args.grid]
    paths = _cases(args.case or list(FITTING))
    names = [n for n, _ in grid]
    for point in itertools.product(*(vs for _, vs in grid)):
        options = dict(zip(names, point, strict=True))
        passed = total = 0
        cells = []
        for path in paths:
            case = load_case(path)
            spec = (
                case.spec if args.runs is None else case.spec.model_copy(update={"runs": args.runs})
            )
            case = dataclasses.replace(case, spec=spec, target=with_options(case.target, options))
            result = run_case(case, jobs=1)
            for m in result.measures:
                e = m.estimate
                total += 1
                passed += m.passed
                mark = "ok" if m.passed else "MISS"
                cells.append(f"{case.id}.{m.spec.id}={e.value:.3g}[{e.low:.3g},{e.high:.3g}]{mark}")
        label = " ".join(f"{k}={v}" for k, v in options.items()) or "(defaults)"
        print(f"{label}: {passed}/{total} pass")
        for c in cells:
            print("   ", c)


if __name__ == "__main__":
    main()
