"""Sweep flattop options over the historical suite's fitting flattop cases (a script, not a test).

Each point of the grid is fought as ``battlesim history --suite DIR`` over copies of the
chosen cases with ``set: {options.NAME: VALUE, ...}`` added (each case's own ``set:``
kept; an option left out of canonical data at its default, a ``later_option``, is written
into a copy of the case's scenario instead), so every point fights each case's own seeds
(common random numbers).  Prints one row per point: each measure's estimate with its
95 % interval and its verdict on the interval (pass: wholly inside the accepted range;
FAIL: wholly outside; ?: neither), then how many measures pass.  docs/rules/flattop.md,
*The AA table and the CAP against the suite*, shows the table and the command:

    .venv/bin/python tests/flattop/sweep_suite.py --case coral_sea_shoho \\
        --case coral_sea_tf17 --grid table_anti_aircraft=1,2,3 \\
        --grid cap_engagement=once_per_turn,every_raid

Only fitting cases may be named (``split: held_out`` cases are refused): defaults are
chosen on the fitting set alone (issue 30).
"""

from __future__ import annotations

import argparse
import itertools
import json
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import yaml

from sim.rulesets.flattop.model.options import FlattopOptions

ROOT = Path(__file__).resolve().parents[2]
SUITE = ROOT / "sim" / "history" / "suite"
BATTLESIM = Path(sys.executable).parent / "battlesim"


def _value(text: str) -> Any:
    """An option's value as YAML reads it (``1`` an int, ``true`` a bool, else text)."""
    return yaml.safe_load(text)


def _grid(specs: list[str]) -> list[dict[str, Any]]:
    names, values = [], []
    for spec in specs:
        name, _, vals = spec.partition("=")
        names.append(name)
        values.append([_value(v) for v in vals.split(",")])
    return [dict(zip(names, combo, strict=True)) for combo in itertools.product(*values)]


def _cases(ids: list[str]) -> dict[str, dict[str, Any]]:
    cases = {}
    for case_id in ids:
        data = yaml.safe_load((SUITE / f"{case_id}.yaml").read_text())
        if data.get("split", "fitting") != "fitting":
            raise SystemExit(f"{case_id} is {data['split']}: only fitting cases are swept")
        cases[case_id] = data
    return cases


def _later(name: str) -> bool:
    """An option left out of a scenario's canonical data at its default (``later_option``),
    which a case's ``set:`` path cannot reach: it is written into the scenario instead."""
    return FlattopOptions.model_fields[name].exclude_if is not None


def _with_options(scenario: Path, options: dict[str, Any]) -> None:
    """Replace the linked ``scenario`` with a copy that sets ``options``."""
    data = yaml.safe_load(scenario.read_text())
    data["options"] = {**(data.get("options") or {}), **options}
    scenario.unlink()
    scenario.write_text(yaml.safe_dump(data, sort_keys=False, allow_unicode=True))


def history_command(suite: Path, max_runs: int | None = None) -> list[str]:
    """``battlesim history`` over ``suite``; ``max_runs`` caps the doubling of an inconclusive
    case's runs (``--max-runs``; None: history's own cap, 1,600)."""
    cap = [] if max_runs is None else ["--max-runs", str(max_runs)]
    return [str(BATTLESIM), "history", "--suite", str(suite), "--json", "-q", "--jobs", "1", *cap]


def fight(
    cases: dict[str, dict[str, Any]], point: dict[str, Any], max_runs: int | None = None
) -> list[dict[str, Any]]:
    """The measures of every case at one point of the grid, as ``history --json`` gives them."""
    later = {k: v for k, v in point.items() if _later(k)}
    plain = {k: v for k, v in point.items() if k not in later}
    with tempfile.TemporaryDirectory() as tmp:
        suite = Path(tmp)
        (suite / "scenarios").mkdir()
        for shipped in (SUITE / "scenarios").iterdir():
            (suite / "scenarios" / shipped.name).symlink_to(shipped.resolve())
        for case_id, data in cases.items():
            copy = dict(data)
            copy["set"] = {**data.get("set", {}), **{f"options.{k}": v for k, v in plain.items()}}
            (suite / f"{case_id}.yaml").write_text(yaml.safe_dump(copy, sort_keys=False))
            if later:
                _with_options(suite / data["scenario"], later)
        out = subprocess.run(
            history_command(suite, max_runs),
            capture_output=True,
            text=True,
            check=False,
        )
        if out.returncode not in (0, 1):
            raise SystemExit(out.stderr)
        result = json.loads(out.stdout)
    return [dict(m, case=c["id"]) for c in result["cases"] for m in c["measures"]]


def verdict(m: dict[str, Any]) -> str:
    """pass: the whole 95 % interval within the accepted range; FAIL: wholly outside; else ?."""
    lo, hi = m["accept"].get("min"), m["accept"].get("max")
    low, high = m["low"], m["high"]
    if (lo is None or low >= lo) and (hi is None or high <= hi):
        return "pass"
    if (lo is not None and high < lo) or (hi is not None and low > hi):
        return "FAIL"
    return "?"


def _cell(m: dict[str, Any]) -> str:
    return f"{m['value']:.3g} [{m['low']:.3g}, {m['high']:.3g}] {verdict(m)}"


def main() -> None:
    """Fight the grid and print a Markdown table."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--case", action="append", required=True, help="a fitting case id")
    parser.add_argument("--grid", action="append", default=[], help="NAME=V1,V2,...")
    parser.add_argument(
        "--max-runs",
        type=int,
        default=None,
        help="cap on an inconclusive case's doubled runs (default: history's, 1,600); "
        "a case's own runs (200) stop the doubling",
    )
    args = parser.parse_args()
    cases = _cases(args.case)
    points = _grid(args.grid)
    header = False
    for point in points:
        measures = fight(cases, point, args.max_runs)
        if not header:
            names = [*point, *(f"{m['case']}.{m['id']}" for m in measures), "pass"]
            print("| " + " | ".join(names) + " |")
            print("|" + "---|" * len(names))
            header = True
        cells = [str(v) for v in point.values()] + [_cell(m) for m in measures]
        passed = sum(1 for m in measures if verdict(m) == "pass")
        print("| " + " | ".join([*cells, f"{passed}/{len(measures)}"]) + " |", flush=True)


if __name__ == "__main__":
    main()
