"""The sweep that chose musket rules version 3's defaults (docs/rules/musket.md,
*Choosing the defaults*): the fitting history cases fought at each combination of
option values, beside the conduct figures.

    .venv/bin/python tests/sim/musket_fit.py --grid rout_loss=0.25,0.3 \\
        --grid closing_loss_step=0.03,0.05 [--runs 200] [--max-runs 200] [--case ID ...]

Each musket case of the suite whose ``split`` is ``fitting`` (or each ``--case``, which
must be) is fought with its own seed and runs (``battlesim history --case ID``, or
``--runs``), with the options of the point set in every battle's scenario, and each
measure's 95 % interval is judged against its accepted range: PASS inside, FAIL wholly
outside, INCONCLUSIVE otherwise. A case is fought again with twice the runs while a measure
is inconclusive, as ``battlesim history`` does, up to ``--max-runs`` (default the suite's
1,600); ``--max-runs 200`` with the cases' own 200 runs judges every case on its first 200
runs, no doubling. A held-out case is never fought here. Each measure's line ends with the
record's p, and each point's with how many records lie beyond the runs' spread (record's p
below 0.1; docs/history.md, *The record among the runs*): a finer reading than the count of
passes, for a protocol that says before its run how it will use it.
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
from sim.history.run import MAX_RUNS, run_case  # noqa: E402
from tests.sim.musket_conduct import with_options  # noqa: E402

SUITE = ROOT / "sim" / "history" / "suite"


def _split(path: Path) -> str:
    for line in path.read_text().splitlines():
        if line.startswith("split:"):
            return line.split(":", 1)[1].strip()
    return "fitting"


def fitting_cases(ids: list[str]) -> list[Path]:
    """The musket cases of the suite whose ``split`` is ``fitting`` (or the ``ids`` named,
    each of which must be fitting): a held-out case is never fought here."""
    if ids:
        paths = [SUITE / f"{i}.yaml" for i in ids]
        for p in paths:
            if _split(p) != "fitting":
                raise SystemExit(f"{p.name} is held out: its results are not read while fitting")
        return paths
    found = []
    for p in sorted(SUITE.glob("*.yaml")):
        if _split(p) != "fitting":
            continue
        case = load_case(p)
        if all(ruleset.name == "musket" for ruleset, _ in case.target.scenarios()):
            found.append(p)
    return found


def verdict(low: float, high: float, lo: float | None, hi: float | None) -> str:
    """PASS when the interval lies within the accepted range, FAIL when wholly outside it,
    else INCONCLUSIVE (the suite's rule, docs/history.md)."""
    inside = (lo is None or low >= lo) and (hi is None or high <= hi)
    outside = (lo is not None and high < lo) or (hi is not None and low > hi)
    return "PASS" if inside else "FAIL" if outside else "INCONCLUSIVE"


def _parse(text: str) -> tuple[str, list[Any]]:
    name, values = text.split("=", 1)
    return name, [json.loads(v) if v not in ("none", "null") else None for v in values.split(",")]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--grid", action="append", default=[], metavar="OPTION=V1,V2")
    ap.add_argument("--case", action="append", default=[])
    ap.add_argument("--runs", type=int, default=None, help="runs per case (default: the case's)")
    ap.add_argument(
        "--max-runs",
        type=int,
        default=MAX_RUNS,
        help=f"double an inconclusive case's runs up to this many (default {MAX_RUNS})",
    )
    ap.add_argument(
        "--seed-offset",
        type=int,
        default=0,
        help="fight each case on its seed plus this (fresh runs: a choice's winner's curse)",
    )
    args = ap.parse_args()
    grid = [_parse(g) for g in args.grid]
    paths = fitting_cases(args.case)
    names = [n for n, _ in grid]
    for point in itertools.product(*(vs for _, vs in grid)):
        options = dict(zip(names, point, strict=True))
        tally = {"PASS": 0, "FAIL": 0, "INCONCLUSIVE": 0}
        beyond = 0  # records beyond the runs' spread (docs/history.md, The record among the runs)
        cells = []
        for path in paths:
            case = load_case(path)
            runs: dict[str, int] = {"runs": args.runs} if args.runs else {}
            if args.seed_offset:
                runs["seed"] = case.spec.seed + args.seed_offset
            spec = case.spec.model_copy(update=runs)
            case = dataclasses.replace(case, spec=spec, target=with_options(case.target, options))
            result = run_case(case, jobs=1, max_runs=args.max_runs)
            for m in result.measures:
                e, a = m.estimate, m.spec.accept
                v = verdict(e.low, e.high, a.min, a.max)
                tally[v] += 1
                rec = m.record
                beyond += rec is not None and rec.beyond
                cells.append(
                    f"{case.id}.{m.spec.id} = {e.value:.3g} [{e.low:.3g}, {e.high:.3g}] "
                    f"accept {a.min}..{a.max}: {v}"
                    + (f" (record's p {rec.p:.3g})" if rec is not None else "")
                )
        label = " ".join(f"{k}={v}" for k, v in options.items()) or "(defaults)"
        print(
            f"{label}: "
            + ", ".join(f"{n} {k.lower()}" for k, n in tally.items())
            + f"; {beyond} records beyond the runs' spread"
        )
        for c in cells:
            print("   ", c)
        sys.stdout.flush()


if __name__ == "__main__":
    main()
