"""battlesim engine benchmark: the engine against the bare loop, an army-size sweep, start-up.

A report, not a pass/fail test.  Every figure is CPU time (wall time beside
it), the median with min–max of paired repetitions interleaved in one run,
after a warm-up; see benchmarks/README.md.

1. **Engine vs bare loop**: the reference battle (``lines.py``: two lines of
   N regiments a side, all holding and firing) fought through the real path
   (``sim.api.make_header`` + ``ruleset.simulate`` into a ``FileSink``), and a
   plain-Python loop doing the same fire arithmetic for the same resolutions
   (the "bare limit").  Ratio = bare CPU / engine CPU: the engine's
   throughput as a fraction of the bare loop's.
2. **Army-size sweep**: µs of CPU per resolution at 25 … 3,200 a side, and
   each size's cost over the 25-a-side cost.
3. **Start-up**: CPU of ``battlesim --version`` and ``--help`` over the CPU of
   importing pydantic + simpy + click + yaml.
4. A line that flags a loaded machine.

``--before PATH`` measures a second source tree (e.g. an export of ``main``)
in the same run, interleaved repetition by repetition, for a before/after
table.  Each measurement runs in a fresh child process.
"""

from __future__ import annotations

import argparse
import gc
import json
import math
import os
import random
import sys
import tempfile
import time
from functools import partial
from pathlib import Path
from typing import Any

from common import ROOT, Timed, fmt_spread, load_line, machine, run_child, spread, table, timed

HERE = Path(__file__).resolve().parent
SIZES = (25, 50, 100, 200, 400, 800, 1600, 3200)
QUICK_SIZES = (25, 400, 3200)
RESOLUTIONS = 12_000  # per size: turns = RESOLUTIONS / (2 N), at least 3
QUICK_RESOLUTIONS = 4_000

# --------------------------------------------------------------------------- the child


def bare_loop(inputs: list[tuple[float, float, int]], n_units: int, lcv: float, hcv: float) -> int:
    """The fire arithmetic of each resolution inline, with ``random.Random``: the bare limit.

    Per resolution: effective value, [low, high], a uniform draw, random
    rounding, fatigue Uniform(c, 3c) randomly rounded and capped, the
    morale-check probability and its draw.  No events, SimPy, pydantic or file.
    """
    lo, hi = lcv / 1000.0, hcv / 1000.0
    fatigue = [0] * n_units
    rnd = random.Random(1863).random
    floor = math.floor
    checks = 0
    for v, m, target in inputs:
        e = max(v * (1.0 + m / 100.0), 0.0)
        low, high = lo * e, hi * e
        x = low + (high - low) * rnd()
        n = floor(x)
        c = n + 1 if rnd() < x - n else n
        if c > 0:
            f = c + 2.0 * c * rnd()
            n = floor(f)
            added = n + 1 if rnd() < f - n else n
            fatigue[target] += max(0, min(added, 10_000 - fatigue[target]))
            if rnd() < c / (c + 25.0):
                checks += 1
    return checks


def _fight(per_side: int, resolutions: int, path: Path) -> tuple[Timed, Any]:
    from lines import lines_scenario, turns_for

    from engine.log import FileSink
    from sim import api
    from sim.contract import get_ruleset

    scenario = lines_scenario(per_side, turns_for(per_side, resolutions))
    ruleset = get_ruleset("musket")
    gc.collect()

    def work() -> Any:
        header = api.make_header(ruleset, scenario, scenario.seed, source="bench_scale.py")
        return ruleset.simulate(scenario, header, FileSink(path))

    return timed(work)[0], scenario


def _inputs(path: Path, scenario: Any) -> tuple[list[tuple[float, float, int]], int, int]:
    """(V, m, target index) of each fire resolution in the replay; resolutions and events."""
    index = {u.id: i for i, u in enumerate(u for s in scenario.sides for u in s.units)}
    rows = []
    events = 0
    with path.open(encoding="utf-8") as fh:
        for line in fh:
            if '"musket.fired"' in line:
                r = json.loads(line)
                rows.append((r["result"]["v"], r["result"]["modifier"], index[r["target"]]))
            events += 1
    return rows, len(rows), events - 2


def child(spec: dict[str, Any]) -> dict[str, Any]:
    """One tree, every size once, after a warm-up; CPU and wall of engine and bare loop."""
    sys.path.insert(0, str(HERE))
    out: dict[str, Any] = {"sizes": {}}
    with tempfile.TemporaryDirectory(prefix="battlesim-bench-") as tmp:
        path = Path(tmp) / "replay.jsonl"
        _fight(25, 500, path)  # warm-up: imports, caches, the first pydantic validations
        for n in spec["sizes"]:
            engine, scenario = _fight(n, spec["resolutions"], path)
            inputs, resolutions, events = _inputs(path, scenario)
            o = scenario.options
            gc.collect()
            bare, _ = timed(partial(bare_loop, inputs, 2 * n, o.fire_lcv, o.fire_hcv))
            out["sizes"][str(n)] = {
                "turns": scenario.turns.limit,
                "resolutions": resolutions,
                "events": events,
                "bytes": path.stat().st_size,
                "engine_cpu": engine.cpu,
                "engine_wall": engine.wall,
                "bare_cpu": bare.cpu,
                "bare_wall": bare.wall,
            }
    return out


# --------------------------------------------------------------------------- the parent


def _env(tree: str | None) -> dict[str, str]:
    env = dict(os.environ)
    if tree is not None:
        env["PYTHONPATH"] = tree + os.pathsep + env.get("PYTHONPATH", "")
    return env


def engine_runs(
    trees: list[tuple[str, str | None]], sizes: tuple[int, ...], resolutions: int, reps: int
) -> tuple[dict[str, list[dict[str, Any]]], float, float]:
    """Each tree's children, interleaved (the order alternates by repetition)."""
    runs: dict[str, list[dict[str, Any]]] = {name: [] for name, _ in trees}
    cpu = wall = 0.0
    spec = json.dumps({"sizes": list(sizes), "resolutions": resolutions})
    for rep in range(reps):
        for name, tree in trees if rep % 2 == 0 else list(reversed(trees)):
            print(f"engine: {name}, repetition {rep + 1}/{reps}", file=sys.stderr)
            done = run_child([sys.executable, __file__, "--child", spec], _env(tree))
            if done.returncode != 0:
                raise SystemExit(f"benchmark child failed ({name}):\n{done.stderr}")
            runs[name].append(json.loads(done.stdout.strip().splitlines()[-1]))
            cpu, wall = cpu + done.cpu, wall + done.wall
    return runs, cpu, wall


STARTUP = {
    "battlesim --version": ["--version"],
    "battlesim --help": ["--help"],
    "import pydantic, simpy, click, yaml": None,
}


def startup_runs(
    trees: list[tuple[str, str | None]], reps: int
) -> tuple[dict[str, dict[str, list[float]]], float, float]:
    """CPU seconds of each start-up command, per tree, interleaved."""
    script = str(Path(sys.executable).parent / "battlesim")
    found: dict[str, dict[str, list[float]]] = {n: {k: [] for k in STARTUP} for n, _ in trees}
    cpu = wall = 0.0
    for rep in range(reps + 1):  # the first round warms the file cache and is dropped
        for name, tree in trees if rep % 2 == 0 else list(reversed(trees)):
            for what, args in STARTUP.items():
                command = (
                    [script, *args]
                    if args is not None
                    else [sys.executable, "-c", "import pydantic, simpy, click, yaml"]
                )
                done = run_child(command, _env(tree))
                if rep:
                    found[name][what].append(done.cpu)
                    cpu, wall = cpu + done.cpu, wall + done.wall
    return found, cpu, wall


def _per_res(run: dict[str, Any], n: int, key: str) -> float:
    size = run["sizes"][str(n)]
    return 1e6 * size[key] / size["resolutions"]


def render(res: dict[str, Any]) -> str:
    m = res["machine"]
    out = [
        f"battlesim scale benchmark ({res['mode']}), {res['date']}",
        f"machine: {m['platform']}, Python {m['python']}, {m['cpu_count']} CPUs "
        f"({m['cpus_usable']} usable), commit {m['commit']}",
        res["load_line"],
        "",
        "1-2. Reference battle: two lines of N regiments a side, all holding and firing; "
        f"medians (min-max) of {res['reps']} paired interleaved repetitions, CPU time",
        "",
    ]
    rows = []
    for name, runs in res["engine"].items():
        base = [_per_res(r, res["sizes"][0], "engine_cpu") for r in runs]
        for n in res["sizes"]:
            eng = [_per_res(r, n, "engine_cpu") for r in runs]
            bare = [_per_res(r, n, "bare_cpu") for r in runs]
            ratio = [b / e for b, e in zip(bare, eng, strict=True)]
            flat = [e / b for e, b in zip(eng, base, strict=True)]
            wall = [_per_res(r, n, "engine_wall") for r in runs]
            rows.append(
                [
                    f"{name}: {n} a side",
                    f"{runs[0]['sizes'][str(n)]['resolutions']:,}",
                    fmt_spread(eng),
                    fmt_spread(wall),
                    f"{1e6 / spread(eng)['median']:,.0f}",
                    fmt_spread(bare, 2),
                    fmt_spread(ratio, 4),
                    fmt_spread(flat, 2),
                ]
            )
    out.append(
        table(
            rows,
            [
                "tree: army",
                "resolutions",
                "engine us CPU/res",
                "engine us wall/res",
                "res/CPU-s",
                "bare us CPU/res",
                "x bare loop",
                "cost / 25 a side",
            ],
        )
    )
    out += [
        "",
        "   x bare loop = bare CPU / engine CPU per resolution (same run, same resolutions);",
        "   cost / 25 a side = engine CPU per resolution at N over that at 25 a side.",
        "",
        f"3. Start-up: CPU seconds, medians (min-max) of {res['reps_startup']} interleaved runs",
        "",
    ]
    rows = []
    for name, found in res["startup"].items():
        imports = found["import pydantic, simpy, click, yaml"]
        for what, cpu in found.items():
            ratio = [c / i for c, i in zip(cpu, imports, strict=True)]
            rows.append([f"{name}: {what}", fmt_spread(cpu, 3), fmt_spread(ratio, 2)])
    out.append(table(rows, ["tree: command", "CPU s", "x the imports"]))
    return "\n".join(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="sizes 25, 400, 3200; fewer turns")
    parser.add_argument("--reps", type=int, default=3, help="paired repetitions (default 3)")
    parser.add_argument("--before", metavar="PATH", help="a second source tree to compare")
    parser.add_argument("--json", type=Path, help="where to write the results")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child is not None:
        print(json.dumps(child(json.loads(args.child))))
        return
    sizes = QUICK_SIZES if args.quick else SIZES
    resolutions = QUICK_RESOLUTIONS if args.quick else RESOLUTIONS
    trees: list[tuple[str, str | None]] = [("after", None)]
    if args.before:
        trees = [("before", str(Path(args.before).resolve())), ("after", str(ROOT))]
    start = machine()
    engine, cpu, wall = engine_runs(trees, sizes, resolutions, args.reps)
    startup, cpu2, wall2 = startup_runs(trees, max(args.reps, 5))
    end_load = os.getloadavg()
    res: dict[str, Any] = {
        "mode": "quick" if args.quick else "full",
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "machine": start,
        "loadavg_end": list(end_load),
        "sizes": list(sizes),
        "reps": args.reps,
        "reps_startup": max(args.reps, 5),
        "engine": engine,
        "startup": startup,
    }
    res["load_line"] = load_line(start["loadavg"], end_load, cpu + cpu2, wall + wall2)
    text = render(res)
    res["table"] = text
    print(text)
    path = args.json or HERE / ("results-scale-quick.json" if args.quick else "results-scale.json")
    path.write_text(json.dumps(res, indent=1) + "\n", encoding="utf-8")
    print(f"\nwrote {path}", file=sys.stderr)


if __name__ == "__main__":
    main()
