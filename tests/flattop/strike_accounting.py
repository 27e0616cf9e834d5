"""Where a strike's air factors go, strike by strike, over a history case's runs (a script).

Fights the case's scenario at its own seeds (run *r* with ``run_seed(case seed, 0, r)``,
as ``battlesim history`` does) and, for each strike and each of its attacks, averages over
the runs: the AF launched, the AF lost to the CAP, the AA fire (factor, hit table, the
matrix's expected hits, hits rolled, AF shot down and AF spoiled), the AF and attacking
factors that attack, the matrix cell (the attack's expected hits) and the hits rolled; and
what the same attack would expect with every AF launched and no defence.  Then the share
of runs in which each declared target ends crippled or sunk.  docs/rules/flattop.md,
*Where the Midway dive bombers' hits go*, shows the table and the command:

    .venv/bin/python tests/flattop/strike_accounting.py midway_dive_bombers
    .venv/bin/python tests/flattop/strike_accounting.py midway_dive_bombers \\
        --set modifier_aa_dive_bombers=-4

Only fitting cases may be named (``split: held_out`` cases are refused).
"""

from __future__ import annotations

import argparse
import json
import tempfile
from collections import defaultdict
from pathlib import Path
from typing import Any

import yaml

from sim.api import run
from sim.batch.inputs.seeds import run_seed
from sim.rulesets.flattop.model.tables import MATRIX, column_index

ROOT = Path(__file__).resolve().parents[2]
SUITE = ROOT / "sim" / "history" / "suite"


def _scenario(case_id: str, point: dict[str, Any], tmp: Path) -> tuple[Path, dict[str, Any]]:
    case = yaml.safe_load((SUITE / f"{case_id}.yaml").read_text())
    if case.get("split", "fitting") != "fitting":
        raise SystemExit(f"{case_id} is {case['split']}: only fitting cases are accounted")
    source = (SUITE / case["scenario"]).resolve()
    if not source.exists():
        source = (ROOT / case["scenario"]).resolve()
    data = yaml.safe_load(source.read_text())
    sets = {**case.get("set", {}), **{f"options.{k}": v for k, v in point.items()}}
    for path, value in sets.items():
        node = data
        *parents, last = path.split(".")
        for key in parents:
            node = node.setdefault(key, {})
        node[last] = value
    out = tmp / source.name
    out.write_text(yaml.safe_dump(data, sort_keys=False, allow_unicode=True))
    return out, case


def unopposed(af: int, table: int, scale: int) -> float:
    """The matrix's expected hits of ``af`` AF at ``scale`` factors each on ``table``."""
    if af <= 0:
        return 0.0
    tenths = MATRIX[table][column_index(af * scale)]
    return 0.0 if tenths is None else tenths / 10


def _tally(sums: dict[tuple[str, ...], float], meta: dict[str, Any], e: dict[str, Any]) -> None:
    """Add one event's air factors, fire and hits to the sums."""
    t, s = e.get("type"), e.get("strike")
    if t == "flattop.launched":
        for i, af in enumerate(e["attacks"]):
            sums[(s, str(i), "launched")] += af
    elif t == "flattop.air_combat" and e["target"] in ("bombers", "strike"):
        for i, af in enumerate(e["attack_losses"]):
            sums[(s, str(i), "cap")] += af
    elif t == "flattop.after_attack_kills":  # cap_kills_after_attack: the CAP's, after
        for i, af in enumerate(e["attack_losses"]):
            sums[(s, str(i), "cap_after")] += af
    elif t == "flattop.anti_aircraft":
        r = e["result"]
        sums[(s, "aa", "fired")] += 1
        sums[(s, "aa", "factor")] += r["factors"]
        sums[(s, "aa", "cell")] += r["cell"] or 0
        sums[(s, "aa", "hits")] += r["hits"]
        meta["aa"][s] = (r["hit_table"], r["column"])
        for i, af in enumerate(e["attack_losses"]):
            sums[(s, str(i), "aa_kill")] += af
        for i, af in enumerate(e.get("attack_spoiled") or []):
            sums[(s, str(i), "aa_spoil")] += af
    elif t == "flattop.attacked":
        i, r = str(e["attack"]), e["result"]
        sums[(s, i, "made")] += 1
        sums[(s, i, "factors")] += r["factors"]
        sums[(s, i, "cell")] += r["cell"] or 0
        sums[(s, i, "hits")] += r["hits"]


def account(case_id: str, point: dict[str, Any], runs: int | None) -> dict[str, Any]:
    """Sums over the runs, keyed by strike and attack; and each target's end status."""
    sums: dict[tuple[str, ...], float] = defaultdict(float)
    status: dict[tuple[str, str], int] = defaultdict(int)
    meta: dict[str, Any] = {"attacks": {}, "aa": {}}
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        scenario, case = _scenario(case_id, point, tmp)
        n = runs if runs is not None else int(case.get("runs", 200))
        for r in range(n):
            seed = run_seed(int(case["seed"]), 0, r)
            replay = tmp / "r.jsonl"
            res = run(scenario, seed, replay, force=True)
            lines = [json.loads(x) for x in replay.read_text().splitlines()]
            spec = lines[0]["scenario"]
            strikes = {s["id"]: s for side in spec["sides"] for s in side["strikes"]}
            scale = spec["options"].get("attack_factor_scale", 2)
            for e in lines[1:]:
                _tally(sums, meta, e)
            for s, strike in strikes.items():
                for i, a in enumerate(strike["attacks"]):
                    meta["attacks"][(s, i)] = (a, strike["name"], scale)
            for sid, ship in res.state.ships.items():
                status[(sid, ship.status)] += 1
    return {"sums": sums, "status": status, "meta": meta, "runs": n}


def main() -> None:
    """Print the accounting as Markdown tables."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("case", help="a fitting flattop case id")
    parser.add_argument("--set", action="append", default=[], help="OPTION=VALUE")
    parser.add_argument("--runs", type=int, default=None, help="default: the case's runs")
    args = parser.parse_args()
    point = {}
    for spec in args.set:
        name, _, value = spec.partition("=")
        point[name] = yaml.safe_load(value)
    out = account(args.case, point, args.runs)
    sums, n, meta = out["sums"], out["runs"], out["meta"]
    from sim.rulesets.flattop.model.options import FlattopOptions

    opts = FlattopOptions(**point)
    print(f"{args.case}, {n} runs, {point or 'defaults'}: means per run")
    print()
    print(
        "| strike, attack | AF launched | unopposed expected hits | lost to CAP | AA: factor, "
        "table, column, expected hits, hits | AA shot down | AA spoiled | AF attacking | "
        "factors | expected hits (cell) | hits |"
    )
    print("|" + "---|" * 11)
    for (s, i), (a, name, scale) in meta["attacks"].items():
        k = str(i)
        launched = sums[(s, k, "launched")] / n
        table = opts.hit_table(a["aircraft"], a.get("weapon") or _weapon(a["aircraft"]))
        fired = sums[(s, "aa", "fired")]
        aa = "none"
        if fired:
            row, col = meta["aa"][s]
            aa = (
                f"{sums[(s, 'aa', 'factor')] / fired:.1f}, {row}, {col}, "
                f"{sums[(s, 'aa', 'cell')] / fired:.2f}, {sums[(s, 'aa', 'hits')] / fired:.2f}"
            )
        attacking = sums[(s, k, "factors")] / scale / n
        print(
            f"| {name}, {a['factors']} AF {a['aircraft']} on {a.get('target')} | "
            f"{launched:.2f} | {unopposed(round(launched), table, scale):.1f} | "
            f"{_cap(sums, s, k, n)} | {aa if i == 0 else '(the same fire)'} | "
            f"{sums[(s, k, 'aa_kill')] / n:.2f} | {sums[(s, k, 'aa_spoil')] / n:.2f} | "
            f"{attacking:.2f} | {sums[(s, k, 'factors')] / n:.2f} | "
            f"{sums[(s, k, 'cell')] / n:.2f} | {sums[(s, k, 'hits')] / n:.2f} |"
        )
    print()
    targets = sorted({a.get("target") for a, _, _ in meta["attacks"].values()} - {None})
    print("| ship | afloat | crippled | sunk |")
    print("|---|---|---|---|")
    for sid in targets:
        cells = [f"{out['status'][(sid, w)] / n:.3f}" for w in ("afloat", "crippled", "sunk")]
        print(f"| {sid} | " + " | ".join(cells) + " |")


def _cap(sums: dict[tuple[str, ...], float], s: str, k: str, n: int) -> str:
    """AF the CAP shot down before the attack, and after it (``cap_kills_after_attack``)
    when it shot any down then: ``1.20 (+0.85 after)``."""
    before, after = sums[(s, k, "cap")] / n, sums[(s, k, "cap_after")] / n
    return f"{before:.2f}" + (f" (+{after:.2f} after)" if sums[(s, k, "cap_after")] else "")


def _weapon(aircraft: str) -> str:
    return {"dive_bomber": "ap_bomb", "torpedo_bomber": "torpedo"}.get(aircraft, "gp_bomb")


if __name__ == "__main__":
    main()
