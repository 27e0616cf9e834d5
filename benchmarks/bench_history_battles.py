"""battlesim history-battle benchmark: the CPU of the battles ``battlesim history`` fights.

A report, not a pass/fail test (issue 32: "fast enough to fit history").  Each
repetition starts one child per tree that loads every scenario of the shipped
historical suite's lone-battle cases (``sim/history/suite/scenarios/``, no
campaign) and fights each ``--runs`` times in process, the way a study's or the
history command's worker does (``sim.batch.execution.worker.fight``: the replay's
lines discarded, the outcome kept), seeds 1000, 1001, ...  The child reports the
CPU of its fighting alone (``time.process_time`` around the loop: start-up and
loading left out) for each scenario and in all, and a digest of every outcome, which
must be the same for every tree (a change that moved a result is not a speed-up).

``--before PATH`` also runs the source tree at PATH (its ``engine`` and ``sim``
first on ``PYTHONPATH``, ``python -P`` keeping the working folder off ``sys.path``)
in the same repetitions, the order alternating: medians (min–max), and after / before
repetition by repetition.  A loaded-machine line on top.

    .venv/bin/python benchmarks/bench_history_battles.py --runs 100 --reps 5
    git worktree add /tmp/before HEAD~3
    .venv/bin/python benchmarks/bench_history_battles.py --before /tmp/before
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

from common import fmt_spread, load_line, machine, table  # noqa: E402

_CHILD = """
import hashlib, json, sys, time
from pathlib import Path
from sim.batch.execution.worker import fight, prepare
from sim.batch.inputs.target import load_target
runs, folder = int(sys.argv[1]), Path(sys.argv[2])
digest, per, total = hashlib.sha256(), {}, 0.0
for path in sorted(folder.glob("*.yaml")):
    prepared = prepare(load_target(path), {})
    if prepared.scenario is None:
        continue  # a campaign: not a lone battle
    ruleset = prepared.scenario[0].name
    c0 = time.process_time()
    outcomes = [fight(prepared, 1000 + s, draws=False).outcome for s in range(runs)]
    cpu = time.process_time() - c0
    per[path.stem] = [ruleset, cpu]
    total += cpu
    digest.update(json.dumps(outcomes, sort_keys=True).encode())
print(json.dumps({"cpu": total, "per": per, "digest": digest.hexdigest()}))
"""


def fight_tree(tree: str, runs: int) -> dict[str, Any]:
    """One child fighting every lone-battle case's scenario ``runs`` times in ``tree``."""
    env = {**os.environ, "PYTHONPATH": tree, "PYTHONHASHSEED": "0"}
    env.pop("BATTLESIM_CHECK_LINES", None)
    folder = ROOT / "sim" / "history" / "suite" / "scenarios"
    done = subprocess.run(
        [sys.executable, "-P", "-c", _CHILD, str(runs), str(folder)],
        capture_output=True, text=True, check=False, cwd=tree, env=env,
    )  # fmt: skip
    if done.returncode != 0:
        raise SystemExit(f"{tree}: the child failed:\n{done.stderr}")
    found: dict[str, Any] = json.loads(done.stdout)
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=100, help="runs of each scenario (100)")
    parser.add_argument("--reps", type=int, default=5, help="interleaved repetitions (5)")
    parser.add_argument("--before", metavar="PATH", help="a second source tree to compare")
    parser.add_argument("--json", type=Path, help="where to write the results")
    args = parser.parse_args()
    if args.runs < 1 or args.reps < 1:
        parser.error("--runs and --reps must be at least 1")
    trees = [("after", str(ROOT))]
    if args.before:
        trees.insert(0, ("before", str(Path(args.before).resolve())))
    start, c0, w0 = machine(), time.process_time(), time.perf_counter()
    found: dict[str, list[dict[str, Any]]] = {name: [] for name, _ in trees}
    for rep in range(args.reps):
        order = trees if rep % 2 == 0 else trees[::-1]
        for name, tree in order:
            found[name].append(fight_tree(tree, args.runs))
            print(f"rep {rep + 1}/{args.reps} {name}: {found[name][-1]['cpu']:.2f} CPU s",
                  file=sys.stderr)  # fmt: skip
    children = os.times()
    cpu = time.process_time() - c0 + children.children_user + children.children_system
    digests = {r["digest"] for runs in found.values() for r in runs}
    rows = []
    for name, _ in trees:
        totals = [r["cpu"] for r in found[name]]
        runs_fought = args.runs * len(found[name][0]["per"])
        rows.append([name, fmt_spread(totals, 2), fmt_spread(totals, 3, 1000 / runs_fought)])
    if args.before:
        paired = [a["cpu"] / b["cpu"] for a, b in zip(found["after"], found["before"], strict=True)]
        rows.append(["after / before", fmt_spread(paired, 3), ""])
    line = load_line(start["loadavg"], list(os.getloadavg()), cpu, time.perf_counter() - w0)
    text = "\n".join(
        [
            line,
            f"{args.runs} runs of each of {len(found['after'][0]['per'])} scenarios, "
            f"{args.reps} repetitions; the outcomes "
            + ("the same in every tree" if len(digests) == 1 else "DIFFER between trees"),
            "",
            table(rows, ["tree", "CPU s, all battles", "ms a battle"]),
        ]
    )
    print(text)
    res = {
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "machine": start,
        "runs": args.runs,
        "reps": args.reps,
        "found": found,
        "same_outcomes": len(digests) == 1,
        "table": text,
    }
    path = args.json or HERE / "results-history-battles.json"
    path.write_text(json.dumps(res, indent=1) + "\n", encoding="utf-8")
    print(f"\nwrote {path}", file=sys.stderr)
    if len(digests) != 1:
        sys.exit(1)


if __name__ == "__main__":
    main()
