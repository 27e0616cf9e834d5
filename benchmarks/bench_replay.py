"""battlesim replay-tools benchmark: time and peak memory of every replay tool by replay size.

A report, not a pass/fail test.  For replays of growing length (the
reference battle of ``lines.py``, 50 regiments a side, more turns), each
command runs in a fresh child measured by ``wait4`` (see ``common.py``):
CPU and wall time, peak RSS, and both as a multiple of the ``battlesim run``
that wrote the replay.  Commands: run, verify, show, show --turn (early and
late), show --unit, show --events, why, diff (against another seed, and
against a fork of the same battle; output lines are counted), fork, report.
Repetitions are interleaved (every command once per repetition).
``--before PATH`` also runs every command from another source tree (its
``engine`` and ``sim`` first on ``PYTHONPATH``, e.g. an export of ``main``),
interleaved with this one, each against its own ``run``.

Run ``.venv/bin/python benchmarks/bench_replay.py`` (``--quick``: shorter
replays; ``--turns 400 2000``: chosen lengths); figures go to stdout and
``benchmarks/results-replay.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import yaml
from common import fmt_spread, load_line, machine, run_child, table
from lines import lines_scenario

HERE = Path(__file__).resolve().parent
PER_SIDE = 50
TURNS = (20, 100, 400)
QUICK_TURNS = (10, 40)


def _commands(folder: Path, turns: int, seqs: dict[str, Any]) -> dict[str, list[str]]:
    """The commands to measure, by label, for the replay ``a.jsonl`` in ``folder``."""
    bs = str(Path(sys.executable).parent / "battlesim")
    a, b = str(folder / "a.jsonl"), str(folder / "b.jsonl")
    return {
        "run": [bs, "run", str(folder / "s.yaml"), "--out", str(folder / "r.jsonl"), "--force"],
        "verify": [bs, "verify", a],
        "show": [bs, "show", a],
        "show --turn 5": [bs, "show", a, "--turn", "5"],
        f"show --turn {turns - 5}": [bs, "show", a, "--turn", str(turns - 5)],
        "show --unit n0": [bs, "show", a, "--unit", "n0"],
        "show --events": [bs, "show", a, "--events"],
        "why": [bs, "why", a, str(seqs["why"])],
        "diff (other seed)": [bs, "diff", a, b],
        "diff (fork)": [bs, "diff", a, str(folder / "f0.jsonl")],
        "fork": [
            bs,
            "fork",
            a,
            "--at",
            str(seqs["fork"]),
            "--set",
            "passed=true",
            "--set",
            f"after={seqs['held']}",
            "--out",
            str(folder / "f.jsonl"),
            "--force",
        ],
        "report": [bs, "report", a, "--out", str(folder / "r.html"), "--force"],
    }


def _prepare(folder: Path, turns: int, per_side: int) -> tuple[dict[str, Any], int]:
    """Write the scenario and both replays; pick the seqs why and fork work on."""
    sc = lines_scenario(per_side, turns)
    (folder / "s.yaml").write_text(yaml.safe_dump(sc.model_dump(mode="json")), encoding="utf-8")
    bs = str(Path(sys.executable).parent / "battlesim")
    for name, seed in (("a", sc.seed), ("b", sc.seed + 1)):
        out = str(folder / f"{name}.jsonl")
        done = run_child([bs, "run", str(folder / "s.yaml"), "--seed", str(seed), "--out", out])
        if done.returncode != 0:
            raise SystemExit(f"run failed: {done.stderr}")
    checks = []
    events = 0
    with (folder / "a.jsonl").open(encoding="utf-8") as fh:
        for line in fh:
            events += 1
            if '"musket.morale_tested"' in line and '"passed":false' in line:
                event = json.loads(line)
                if event["before"] != event["after"]:  # one that changed the unit
                    checks.append((event["seq"], event["before"]))
    if not checks:
        raise SystemExit("the battle has no failed morale check to fork at")
    # why: the last failed check (its cause chain); fork: the one nearest the middle that,
    # made to pass and leave the unit as it was, changes the battle (a fork whose change
    # the rules do not act on is refused)
    a, f0 = str(folder / "a.jsonl"), str(folder / "f0.jsonl")
    middle = len(checks) // 2
    for fork, held in sorted(checks, key=lambda c: abs(checks.index(c) - middle)):
        sets = ["--set", "passed=true", "--set", f"after={held}"]
        done = run_child([bs, "fork", a, "--at", str(fork), *sets, "-o", f0])
        if done.returncode == 0:
            return {"why": checks[-1][0], "fork": fork, "held": held}, events - 2
    raise SystemExit(f"fork failed: {done.stderr}")


def _trees(before: str | None) -> dict[str, dict[str, str] | None]:
    """The source trees measured, by name: the environment each tree's commands run in."""
    trees: dict[str, dict[str, str] | None] = {"after": None}
    if before is not None:
        env = dict(os.environ)
        env["PYTHONPATH"] = str(Path(before).resolve())
        trees = {"before": env, "after": None}
    return trees


def measure(
    turns: int, reps: int, trees: dict[str, dict[str, str] | None], per_side: int = PER_SIDE
) -> tuple[dict[str, Any], float, float]:
    """Every command of every tree on one replay size, ``reps`` interleaved repetitions."""
    cpu = wall = 0.0
    with tempfile.TemporaryDirectory(prefix="battlesim-bench-") as tmp:
        folder = Path(tmp)
        seqs, events = _prepare(folder, turns, per_side)
        found: dict[str, Any] = {
            "turns": turns,
            "per_side": per_side,
            "events": events,
            "bytes": (folder / "a.jsonl").stat().st_size,
            "trees": {tree: {} for tree in trees},
        }
        commands = _commands(folder, turns, seqs)
        runs = [(tree, label) for label in commands for tree in trees]
        for rep in range(reps):
            for tree, label in runs if rep % 2 == 0 else list(reversed(runs)):
                print(f"replay {turns} turns: {tree} {label} ({rep + 1}/{reps})", file=sys.stderr)
                done = run_child(commands[label], env=trees[tree])
                if done.returncode not in (0, 1):  # diff exits 1: the battles differ
                    raise SystemExit(f"{label} failed ({done.returncode}): {done.stderr[-2000:]}")
                row = found["trees"][tree].setdefault(label, [])
                row.append(
                    {
                        "cpu": done.cpu,
                        "wall": done.wall,
                        "maxrss_mib": done.maxrss_mib,
                        "stdout_lines": done.stdout.count("\n"),
                    }
                )
                cpu, wall = cpu + done.cpu, wall + done.wall
    return found, cpu, wall


def render(res: dict[str, Any]) -> str:
    out = [
        f"battlesim replay-tools benchmark ({res['mode']}), {res['date']}",
        res["load_line"],
        "",
        f"{res['per_side']} regiments a side holding and firing; medians (min-max) of "
        f"{res['reps']} interleaved repetitions; x run = over the run that wrote the replay",
        "",
    ]
    rows = []
    for size in res["sizes"]:
        for tree, commands in size["trees"].items():
            rows += _rows(size["events"], tree if len(size["trees"]) > 1 else "", commands)
    out.append(
        table(
            rows,
            ["replay: command", "CPU s", "wall s", "peak MiB", "CPU x run", "peak x run", "lines"],
        )
    )
    return "\n".join(out)


def _rows(events: int, tree: str, commands: dict[str, list[dict[str, Any]]]) -> list[list[str]]:
    rows = []
    run = commands["run"]
    for label, found in commands.items():
        cpu_x = [f["cpu"] / r["cpu"] for f, r in zip(found, run, strict=True)]
        rss_x = [f["maxrss_mib"] / r["maxrss_mib"] for f, r in zip(found, run, strict=True)]
        rows.append(
            [
                f"{events:,} events{' ' + tree if tree else ''}: {label}",
                fmt_spread([f["cpu"] for f in found], 2),
                fmt_spread([f["wall"] for f in found], 2),
                fmt_spread([f["maxrss_mib"] for f in found], 0),
                fmt_spread(cpu_x, 2),
                fmt_spread(rss_x, 2),
                f"{found[0]['stdout_lines']:,}",
            ]
        )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="10 and 40 turns")
    parser.add_argument("--reps", type=int, default=2, help="repetitions (default 2)")
    parser.add_argument("--json", type=Path, help="where to write the results")
    parser.add_argument("--turns", type=int, nargs="+", help="battle lengths (default 20 100 400)")
    parser.add_argument("--before", metavar="PATH", help="a second source tree to compare")
    parser.add_argument(
        "--per-side", type=int, default=PER_SIDE, help=f"regiments a side (default {PER_SIDE})"
    )
    args = parser.parse_args()
    start = machine()
    cpu = wall = 0.0
    sizes = []
    trees = _trees(args.before)
    for turns in args.turns or (QUICK_TURNS if args.quick else TURNS):
        found, c, w = measure(turns, args.reps, trees, args.per_side)
        sizes.append(found)
        cpu, wall = cpu + c, wall + w
    res: dict[str, Any] = {
        "mode": "quick" if args.quick else "full",
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "machine": start,
        "reps": args.reps,
        "before": args.before,
        "per_side": args.per_side,
        "sizes": sizes,
        "load_line": load_line(start["loadavg"], os.getloadavg(), cpu, wall),
    }
    res["table"] = render(res)
    print(res["table"])
    path = args.json or HERE / (
        "results-replay-quick.json" if args.quick else "results-replay.json"
    )
    path.write_text(json.dumps(res, indent=1) + "\n", encoding="utf-8")
    print(f"\nwrote {path}", file=sys.stderr)


if __name__ == "__main__":
    main()
