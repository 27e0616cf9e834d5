"""battlesim peer benchmark: the engine's marginal cost per resolution against a plain-SimPy peer.

A report, not a pass/fail test (issue 32's first target).  The reference
battle (``lines.py``, 200 regiments a side) is written as a scenario file
at 20 turns and at 1 turn, and each is fought by ``battlesim run`` in a
fresh child measured by ``wait4``:

* **engine marginal cost per resolution** = (CPU of the 20-turn run − CPU of
  the 1-turn run) / (fire resolutions of the first − those of the second):
  start-up, scenario loading and set-up cancel out, what is left is what
  each further resolution costs the whole battle path (rules, events,
  lines, chain, draws, digests, SimPy and the turn kernel);
* **plain-SimPy peer**: the same resolutions (turns 2 to 20: each one's
  V, m and target read back from the 20-turn replay) done by one SimPy
  process per unit, each waking once a turn and doing its turn's fire
  arithmetic (``bench_scale.bare_loop``'s: casualty range, a uniform,
  random rounding, fatigue, the morale check) with ``random.Random``,
  each resolution appended to an in-memory list as a dict event; timed in
  this process after a warm-up;
* **bare loop**: the same resolutions through ``bench_scale.bare_loop``
  (no SimPy, no events), for the issue's second figure.

``x peer`` = peer CPU per resolution / engine marginal CPU per resolution,
repetition by repetition (the issue's target: at least 0.12).  Every
variant runs once per repetition, the order alternating; medians (min–max)
of CPU time; a loaded-machine line on top.  ``--before PATH`` also runs
the ``battlesim`` of the source tree at PATH (its ``engine`` and ``sim``
first on ``PYTHONPATH``, the working folder kept off ``sys.path`` by
``python -P``) in the same repetitions, for a before/after table from one
run; ``--after PATH`` measures another tree than this one as "after".

``--instructions`` counts instructions instead of CPU time (``valgrind
--tool=callgrind``, whole processes, ``PYTHONHASHSEED=0``, every ``.pyc``
compiled natively beforehand into one temporary ``PYTHONPYCACHEPREFIX``, so
each tree imports alike whatever its own ``__pycache__`` holds): the engine's
``battlesim run`` of 20 turns minus that of 1 turn, and the peer and the
bare loop each as a child that does its work twice minus one that does it
once (the first call is the warm-up, as in the timed mode).  The counts do
not move with the machine's load; ``--reps`` passes (default 2) show they
repeat.  Instructions are not time: the peer's SimPy loop and the engine's
pydantic serializer do not run at the same instructions per cycle.
"""

from __future__ import annotations

import argparse
import gc
import json
import math
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench_scale import bare_loop
from common import ROOT, Timed, fmt_spread, load_line, machine, run_child, table, timed

HERE = Path(__file__).resolve().parent
PER_SIDE = 200
TURNS = 20

Resolution = tuple[int, int, float, float, int]
"""(turn, firing unit's index, V, m, target's index) of one fire resolution."""


def write_scenario(path: Path, per_side: int, turns: int) -> None:
    """The reference battle as a scenario file (JSON is YAML): the data ``lines.py`` builds."""
    from lines import lines_scenario

    scenario = lines_scenario(per_side, turns)
    data = scenario.model_dump(mode="json", exclude_unset=True)
    path.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")


def read_resolutions(path: Path, per_side: int) -> list[Resolution]:
    """Every fire resolution the replay records, in order."""
    from lines import lines_scenario

    scenario = lines_scenario(per_side, 1)
    index = {u.id: i for i, u in enumerate(u for s in scenario.sides for u in s.units)}
    out: list[Resolution] = []
    with path.open(encoding="utf-8") as fh:
        for line in fh:
            if '"musket.fired"' in line:
                r = json.loads(line)
                res = r["result"]
                out.append(
                    (r["turn"], index[r["unit"]], res["v"], res["modifier"], index[r["target"]])
                )
    return out


def peer(resolutions: list[Resolution], n_units: int, lcv: float, hcv: float) -> int:
    """The plain-SimPy peer: one process per unit, a dict event per resolution in a list.

    Each unit's process wakes once a turn (a SimPy timeout of one turn) and
    does its resolutions of that turn with ``bare_loop``'s arithmetic.
    Returns the number of events recorded.
    """
    import simpy

    by_unit: list[dict[int, list[tuple[float, float, int]]]] = [{} for _ in range(n_units)]
    first = min(r[0] for r in resolutions)
    last = max(r[0] for r in resolutions)
    for turn, who, v, m, target in resolutions:
        by_unit[who].setdefault(turn, []).append((v, m, target))
    lo, hi = lcv / 1000.0, hcv / 1000.0
    fatigue = [0] * n_units
    rnd = random.Random(1863).random
    floor = math.floor
    events: list[dict[str, Any]] = []
    append = events.append
    env = simpy.Environment()

    def unit(uid: int) -> simpy.events.ProcessGenerator:
        mine = by_unit[uid]
        for turn in range(first, last + 1):
            yield env.timeout(20)
            for v, m, target in mine.get(turn, ()):
                e = max(v * (1.0 + m / 100.0), 0.0)
                low, high = lo * e, hi * e
                x = low + (high - low) * rnd()
                n = floor(x)
                c = n + 1 if rnd() < x - n else n
                added = 0
                check = False
                if c > 0:
                    f = c + 2.0 * c * rnd()
                    n = floor(f)
                    added = n + 1 if rnd() < f - n else n
                    added = max(0, min(added, 10_000 - fatigue[target]))
                    fatigue[target] += added
                    check = rnd() < c / (c + 25.0)
                append(
                    {
                        "turn": turn,
                        "time": env.now,
                        "unit": uid,
                        "target": target,
                        "casualties": c,
                        "fatigue_added": added,
                        "morale_check": check,
                    }
                )

    for uid in range(n_units):
        env.process(unit(uid))
    env.run()
    return len(events)


_WARM = """
import json, sys, time
from sim import api

long_s, short_s, out, k = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
best = {"long": float("inf"), "short": float("inf")}
for i in range(k + 1):  # the first of each is a warm-up (lazy imports, caches)
    for key, scen in (("long", long_s), ("short", short_s)) if i % 2 else (
        ("short", short_s), ("long", long_s)
    ):
        start = time.process_time()
        api.run(scen, out=out, force=True)
        if i:
            best[key] = min(best[key], time.process_time() - start)
print(json.dumps(best))
"""
"""A warm child (``--warm K``): ``api.run`` of the long and the short battle K times each
after a warm-up, alternating, in one process; the fastest CPU time of each."""


def _warm(
    tree: str | None, long_s: Path, short_s: Path, out: Path, k: int
) -> tuple[dict[str, float], float, float]:
    """The fastest warm CPU seconds of the long and the short battle in one child of ``tree``;
    with the child's own CPU and wall time (for the load line)."""
    env = dict(os.environ)
    env["PYTHONPATH"] = (tree or str(ROOT)) + os.pathsep + env.get("PYTHONPATH", "")
    command = [sys.executable, "-P", "-c", _WARM, str(long_s), str(short_s), str(out), str(k)]
    done = run_child(command, env)
    if done.returncode != 0:
        raise SystemExit(f"battlesim run failed ({tree}):\n{done.stderr}")
    best: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
    return best, done.cpu, done.wall


def _command(tree: str | None, scenario: Path, out: Path) -> tuple[list[str], dict[str, str]]:
    """``python -P -m sim run``: ``-P`` keeps the working folder (this tree) off ``sys.path``,
    so the tree first on ``PYTHONPATH`` is the one measured."""
    env = dict(os.environ)
    env["PYTHONPATH"] = (tree or str(ROOT)) + os.pathsep + env.get("PYTHONPATH", "")
    command = [sys.executable, "-P", "-m", "sim", "run", str(scenario), "-o", str(out), "--force"]
    return command, env


def _battles(
    tree: str | None, part: str, long_s: Path, short_s: Path, stem: Path, warm: int
) -> tuple[dict[str, float], float, float]:
    """One tree's CPU seconds of a repetition: ``part`` ``long`` or ``short`` (one
    ``battlesim run``), or ``both`` (one warm child); with the CPU and wall time spent."""
    if part == "both":
        return _warm(tree, long_s, short_s, stem.with_suffix(".warm.jsonl"), warm)
    scen = long_s if part == "long" else short_s
    command, env = _command(tree, scen, stem.with_suffix(f".{part}.jsonl"))
    done = run_child(command, env)
    if done.returncode != 0:
        raise SystemExit(f"battlesim run failed ({tree}):\n{done.stderr}")
    return {part: Timed(done.cpu, done.wall).cpu}, done.cpu, done.wall


def _fight_once(
    trees: list[tuple[str, str | None]],
    tmp: Path,
    per_side: int,
    child_env: Callable[[dict[str, str]], dict[str, str]] = lambda env: env,
) -> tuple[dict[str, int], list[Resolution]]:
    """Each tree's long and short battle (``tmp``'s long.yaml and short.yaml) fought once:
    the first tree's resolutions (long, short, marginal: how many), and those after turn 1.
    Trees that fought different battles are refused."""
    counts: dict[str, int] = {}
    for name, tree in trees:
        for key in ("long", "short"):
            out = tmp / f"{name}-{key}.jsonl"
            command, env = _command(tree, tmp / f"{key}.yaml", out)
            done = run_child(command, child_env(env))
            if done.returncode != 0:
                raise SystemExit(f"battlesim run failed ({name}):\n{done.stderr}")
            counts[f"{name}-{key}"] = sum(1 for _ in read_resolutions(out, per_side))
    if len({counts[f"{n}-long"] for n, _ in trees}) != 1:
        raise SystemExit(f"the trees fought different battles: {counts}")
    first = trees[0][0]
    marginal = [r for r in read_resolutions(tmp / f"{first}-long.jsonl", per_side) if r[0] > 1]
    sizes = {
        "long": counts[f"{first}-long"],
        "short": counts[f"{first}-short"],
        "marginal": len(marginal),
    }
    return sizes, marginal


def measure(
    trees: list[tuple[str, str | None]], reps: int, per_side: int, turns: int, warm: int = 0
) -> dict[str, Any]:
    """Every variant once per repetition, the order alternating; CPU seconds of each.

    With ``warm`` > 0 a tree's long and short battles are fought in one warm child
    per repetition (:data:`_WARM`), each the fastest of ``warm``.
    """
    cpu = wall = 0.0
    found: dict[str, Any] = {name: {"long": [], "short": []} for name, _ in trees}
    found["peer"], found["bare"] = [], []
    with tempfile.TemporaryDirectory(prefix="battlesim-bench-") as tmp:
        long_s, short_s = Path(tmp) / "long.yaml", Path(tmp) / "short.yaml"
        write_scenario(long_s, per_side, turns)
        write_scenario(short_s, per_side, 1)
        sizes, marginal = _fight_once(trees, Path(tmp), per_side)
        from lines import lines_scenario

        o = lines_scenario(per_side, 1).options
        n_units = 2 * per_side
        bare_inputs = [(v, m, target) for _, _, v, m, target in marginal]
        work: dict[str, Callable[[], Any]] = {
            "peer": lambda: peer(marginal, n_units, o.fire_lcv, o.fire_hcv),
            "bare": lambda: bare_loop(bare_inputs, n_units, o.fire_lcv, o.fire_hcv),
        }
        for fn in work.values():  # warm-up
            fn()
        variants: list[tuple[str, str | None, str | None]] = [
            (name, tree, key)
            for name, tree in trees
            for key in (("both",) if warm else ("long", "short"))
        ]
        variants += [("peer", None, None), ("bare", None, None)]
        for rep in range(reps):
            print(f"repetition {rep + 1}/{reps}", file=sys.stderr)
            for name, tree, part in variants if rep % 2 == 0 else list(reversed(variants)):
                if part is None:
                    gc.collect()
                    t, _ = timed(work[name])
                    found[name].append(t.cpu)
                    cpu, wall = cpu + t.cpu, wall + t.wall
                    continue
                got, c, w = _battles(tree, part, long_s, short_s, Path(tmp) / name, warm)
                for key, seconds in got.items():
                    found[name][key].append(seconds)
                cpu, wall = cpu + c, wall + w
    found["resolutions"] = sizes
    found["_cpu"], found["_wall"] = cpu, wall
    return found


VALGRIND = "/usr/bin/valgrind"

_WORK = """
import gc, json, sys
sys.path.insert(0, sys.argv[1])
from bench_peer import peer
from bench_scale import bare_loop

kind, path, k = sys.argv[2], sys.argv[3], int(sys.argv[4])
with open(path, encoding="utf-8") as fh:
    data = json.load(fh)
marginal = [tuple(r) for r in data["marginal"]]
n, lcv, hcv = data["n_units"], data["lcv"], data["hcv"]
bare_inputs = [(v, m, target) for _, _, v, m, target in marginal]
for i in range(2):  # two collections whatever k is, so they cancel in the difference
    gc.collect()
    if i < k:
        if kind == "peer":
            peer(marginal, n, lcv, hcv)
        else:
            bare_loop(bare_inputs, n, lcv, hcv)
"""
"""A child for ``--instructions``: the peer or the bare loop ``k`` (1 or 2) times over the
resolutions in a JSON file, after a ``gc.collect()`` each of two rounds; the count of k=2
minus that of k=1 is one warm call."""


def callgrind_total(text: str) -> int:
    """The instructions a callgrind output file counts: its ``totals:`` line (or
    ``summary:``, which older files write instead)."""
    found: dict[str, int] = {}
    for line in text.splitlines():
        key, _, value = line.partition(":")
        if key in ("totals", "summary") and value.strip():
            found[key] = int(value.split()[0])
    if not found:
        raise ValueError("no totals: or summary: line in the callgrind output")
    return found.get("totals", found.get("summary", 0))


def same_bytecode(env: dict[str, str], cache: Path) -> dict[str, str]:
    """``env`` with every ``.pyc`` read from and written to ``cache``: each tree's modules
    compiled once, in a native run before any count, whatever its own ``__pycache__`` holds
    or ``PYTHONDONTWRITEBYTECODE`` says, and nothing written into the trees."""
    env = dict(env)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPYCACHEPREFIX"] = str(cache)
    return env


def count(command: list[str], env: dict[str, str], out: Path) -> int:
    """Instructions of ``command``'s whole process under callgrind (children not traced)."""
    env = dict(env)
    env["PYTHONHASHSEED"] = "0"  # string hashes, and so set and dict orders, fixed
    done = subprocess.run(
        [VALGRIND, "--tool=callgrind", f"--callgrind-out-file={out}", *command],
        capture_output=True,
        text=True,
        check=False,
        cwd=ROOT,
        env=env,
    )
    if done.returncode != 0:
        raise SystemExit(f"under callgrind, {' '.join(command[:4])} failed:\n{done.stderr}")
    total = callgrind_total(out.read_text(encoding="utf-8", errors="replace"))
    out.unlink()
    return total


def per_resolution(long: int, short: int, resolutions: int) -> float:
    """Instructions per resolution of a difference of two counts."""
    if resolutions <= 0:
        raise ValueError("the longer run must do more resolutions")
    return (long - short) / resolutions


def agreement(values: list[int]) -> float:
    """The passes' largest relative difference: (max - min) / min."""
    return (max(values) - min(values)) / min(values) if min(values) else 0.0


def measure_instructions(
    trees: list[tuple[str, str | None]], passes: int, per_side: int, turns: int
) -> dict[str, Any]:
    """Every count once per pass: each tree's long and short ``battlesim run``, and the
    peer's and the bare loop's child at k=1 and k=2."""
    found: dict[str, Any] = {name: {"long": [], "short": []} for name, _ in trees}
    for kind in ("peer", "bare"):
        found[kind] = {"1": [], "2": []}
    with tempfile.TemporaryDirectory(prefix="battlesim-bench-") as tmp:
        long_s, short_s = Path(tmp) / "long.yaml", Path(tmp) / "short.yaml"
        write_scenario(long_s, per_side, turns)
        write_scenario(short_s, per_side, 1)
        pycache = Path(tmp) / "pycache"
        sizes, marginal = _fight_once(
            trees, Path(tmp), per_side, lambda env: same_bytecode(env, pycache)
        )  # natively, and every .pyc written
        from lines import lines_scenario

        o = lines_scenario(per_side, 1).options
        inputs = Path(tmp) / "resolutions.json"
        inputs.write_text(
            json.dumps(
                {
                    "marginal": marginal,
                    "n_units": 2 * per_side,
                    "lcv": o.fire_lcv,
                    "hcv": o.fire_hcv,
                }
            ),
            encoding="utf-8",
        )
        work_env = same_bytecode(dict(os.environ), pycache)
        work_env["PYTHONPATH"] = str(ROOT) + os.pathsep + work_env.get("PYTHONPATH", "")

        def work(kind: str, k: str) -> list[str]:
            return [sys.executable, "-P", "-c", _WORK, str(HERE), kind, str(inputs), k]

        for kind in ("peer", "bare"):  # natively once: the children's .pyc written
            done = run_child(work(kind, "1"), work_env)
            if done.returncode != 0:
                raise SystemExit(f"the {kind} child failed:\n{done.stderr}")
        grind = Path(tmp) / "callgrind.out"
        for p in range(passes):
            for name, tree in trees:
                for key, scen in (("long", long_s), ("short", short_s)):
                    print(f"pass {p + 1}/{passes}: {name} {key} run", file=sys.stderr)
                    command, env = _command(tree, scen, Path(tmp) / f"{name}-{key}.jsonl")
                    found[name][key].append(count(command, same_bytecode(env, pycache), grind))
            for kind in ("peer", "bare"):
                for k in ("1", "2"):
                    print(f"pass {p + 1}/{passes}: {kind} x{k}", file=sys.stderr)
                    found[kind][k].append(count(work(kind, k), work_env, grind))
    found["resolutions"] = sizes
    return found


def render_instructions(res: dict[str, Any]) -> str:
    m = res["machine"]
    found = res["found"]
    r = found["resolutions"]
    per = r["long"] - r["short"]
    out = [
        f"battlesim peer benchmark, instructions (callgrind), {res['date']}",
        f"machine: {m['platform']}, Python {m['python']}, commit {m['commit']}; "
        f"load average {m['loadavg'][0]:.2f} at start, {res['loadavg_end'][0]:.2f} at end "
        "(instruction counts do not depend on it)",
        "",
        f"Reference battle, {res['per_side']} a side: `battlesim run` of {res['turns']} turns "
        f"({r['long']:,} resolutions) minus 1 turn ({r['short']:,}); the peer and the bare loop "
        f"do the {r['marginal']:,} resolutions of turns 2-{res['turns']}, a child doing it "
        "twice minus one doing it once.",
        f"Whole processes under valgrind --tool=callgrind, PYTHONHASHSEED=0; {res['reps']} "
        "passes, each figure the first pass's, the passes' largest difference beside it.",
        "",
    ]

    def pr(a: str, b: str, key: str, n: int) -> list[float]:
        return [per_resolution(x, y, n) for x, y in zip(found[key][a], found[key][b], strict=True)]

    peer = pr("2", "1", "peer", r["marginal"])
    bare = pr("2", "1", "bare", r["marginal"])
    rows = []
    engines: dict[str, list[float]] = {}
    for name in res["trees"]:
        eng = pr("long", "short", name, per)
        engines[name] = eng
        rows.append(
            [
                f"engine ({name})",
                f"{eng[0] / 1e3:,.1f} k",
                f"{peer[0] / eng[0]:.4f}",
                f"{bare[0] / eng[0]:.4f}",
                f"{100 * agreement([round(e) for e in eng]):.3f} %",
                f"{found[name]['long'][0] / 1e6:,.1f} M",
                f"{found[name]['short'][0] / 1e6:,.1f} M",
                f"{100 * max(agreement(found[name][k]) for k in ('long', 'short')):.3f} %",
            ]
        )
    if len(res["trees"]) == 2:
        b, a = (engines[n][0] for n in res["trees"])
        rows.append(["after / before", f"{a / b:.4f}", "", "", "", "", "", ""])
    for label, kind, per_res in (("plain-SimPy peer", "peer", peer), ("bare loop", "bare", bare)):
        rows.append(
            [
                label,
                f"{per_res[0] / 1e3:,.2f} k",
                "1" if kind == "peer" else "",
                "1" if kind == "bare" else "",
                f"{100 * agreement([round(x) for x in per_res]):.3f} %",
                f"{found[kind]['2'][0] / 1e6:,.1f} M",
                f"{found[kind]['1'][0] / 1e6:,.1f} M",
                f"{100 * max(agreement(found[kind][k]) for k in ('1', '2')):.3f} %",
            ]
        )
    out.append(
        table(
            rows,
            [
                "what",
                "instr/res",
                "peer / engine",
                "bare / engine",
                "passes differ",
                "long (x2) count",
                "short (x1) count",
                "counts differ",
            ],
        )
    )
    out += [
        "",
        "   peer / engine = the peer's instructions per resolution over the engine's marginal",
        "   instructions per resolution (the timed x peer's orientation; issue 32's target for",
        "   the timed figure: >= 0.12); bare / engine likewise. Instructions are not time: the",
        "   instructions per cycle of SimPy's loop and of pydantic's Rust serializer differ.",
    ]
    return "\n".join(out)


def render(res: dict[str, Any]) -> str:
    m = res["machine"]
    found = res["found"]
    r = found["resolutions"]
    out = [
        f"battlesim peer benchmark, {res['date']}",
        f"machine: {m['platform']}, Python {m['python']}, {m['cpu_count']} CPUs "
        f"({m['cpus_usable']} usable), commit {m['commit']}",
        res["load_line"],
        "",
        f"Reference battle, {res['per_side']} a side: "
        + (
            f"`api.run` in one warm child a tree and repetition, fastest of {res['warm']}, "
            if res.get("warm")
            else "`battlesim run` "
        )
        + f"of {res['turns']} turns "
        f"({r['long']:,} resolutions) minus 1 turn ({r['short']:,}); the peer and the bare "
        f"loop do the {r['marginal']:,} resolutions of turns 2-{res['turns']}.",
        f"CPU us per resolution, medians (min-max) of {res['reps']} interleaved repetitions.",
        "",
    ]
    per = r["long"] - r["short"]
    peer = [1e6 * c / r["marginal"] for c in found["peer"]]
    bare = [1e6 * c / r["marginal"] for c in found["bare"]]
    rows = []
    for name in res["trees"]:
        eng = [
            1e6 * (a - b) / per
            for a, b in zip(found[name]["long"], found[name]["short"], strict=True)
        ]
        x_peer = [p / e for p, e in zip(peer, eng, strict=True)]
        x_bare = [b / e for b, e in zip(bare, eng, strict=True)]
        rows.append(
            [
                f"engine ({name})",
                fmt_spread(eng),
                fmt_spread(x_peer, 3),
                fmt_spread(x_bare, 3),
                fmt_spread(found[name]["long"], 2),
                fmt_spread(found[name]["short"], 2),
            ]
        )
    if len(res["trees"]) == 2:  # the change itself, paired repetition by repetition
        before, after = (
            [a - b for a, b in zip(found[n]["long"], found[n]["short"], strict=True)]
            for n in res["trees"]
        )
        paired = [a / b for a, b in zip(after, before, strict=True)]
        rows.append(["after / before", fmt_spread(paired, 3), "", "", "", ""])
    rows.append(["plain-SimPy peer", fmt_spread(peer, 2), "1", "", "", ""])
    rows.append(["bare loop", fmt_spread(bare, 2), "", "1", "", ""])
    out.append(
        table(
            rows,
            [
                "what",
                "us CPU/res",
                "x peer",
                "x bare",
                f"{res['turns']}-turn CPU s",
                "1 turn CPU s",
            ],
        )
    )
    out += [
        "",
        "   x peer = peer CPU / engine marginal CPU per resolution, repetition by repetition",
        "   (issue 32's target: >= 0.12); x bare likewise with the bare loop;",
        "   after / before: the after tree's marginal CPU over the before tree's, per repetition.",
    ]
    return "\n".join(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--reps",
        type=int,
        help="interleaved repetitions (default 5); with --instructions, passes (default 2)",
    )
    parser.add_argument("--before", metavar="PATH", help="a second source tree to compare")
    parser.add_argument("--after", metavar="PATH", help="the tree measured as 'after' (this one)")
    parser.add_argument("--per-side", type=int, default=PER_SIDE, help="regiments a side (200)")
    parser.add_argument("--turns", type=int, default=TURNS, help="turns of the long run (20)")
    parser.add_argument(
        "--warm",
        type=int,
        default=0,
        metavar="K",
        help="fight each tree's battles K times in one warm child a repetition (api.run, "
        "fastest of K after a warm-up) instead of one `battlesim run` each",
    )
    parser.add_argument(
        "--instructions",
        action="store_true",
        help="count instructions under valgrind --tool=callgrind instead of timing (load-free)",
    )
    parser.add_argument("--json", type=Path, help="where to write the results")
    args = parser.parse_args()
    if args.reps is None:
        args.reps = 2 if args.instructions else 5
    if args.reps < 1:
        parser.error("--reps must be at least 1")
    if args.instructions and args.warm:
        parser.error("--warm is for the timed mode; --instructions counts whole processes")
    if args.instructions and not (shutil.which(VALGRIND) or shutil.which("valgrind")):
        parser.error(f"--instructions needs valgrind ({VALGRIND} not found)")
    sys.path.insert(0, str(HERE))
    after = str(Path(args.after).resolve()) if args.after else str(ROOT)
    trees: list[tuple[str, str | None]] = [("after", after)]
    if args.before:
        trees = [("before", str(Path(args.before).resolve())), ("after", after)]
    start = machine()
    if args.instructions:
        main_instructions(args, trees, start)
        return
    found = measure(trees, args.reps, args.per_side, args.turns, args.warm)
    end_load = os.getloadavg()
    cpu, wall = found.pop("_cpu"), found.pop("_wall")
    res: dict[str, Any] = {
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "machine": start,
        "loadavg_end": list(end_load),
        "per_side": args.per_side,
        "turns": args.turns,
        "reps": args.reps,
        "warm": args.warm,
        "trees": [name for name, _ in trees],
        "found": found,
        "load_line": load_line(start["loadavg"], end_load, cpu, wall),
    }
    publish(res, render(res), args.json or HERE / "results-peer.json")


def main_instructions(
    args: argparse.Namespace, trees: list[tuple[str, str | None]], start: dict[str, Any]
) -> None:
    """``--instructions``: count, print, write ``results-peer-instructions.json``."""
    w0 = time.perf_counter()
    found = measure_instructions(trees, args.reps, args.per_side, args.turns)
    res: dict[str, Any] = {
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "machine": start,
        "loadavg_end": list(os.getloadavg()),
        "per_side": args.per_side,
        "turns": args.turns,
        "reps": args.reps,
        "trees": [name for name, _ in trees],
        "found": found,
        "wall_s": time.perf_counter() - w0,
    }
    path = args.json or HERE / "results-peer-instructions.json"
    publish(res, render_instructions(res), path, f" ({res['wall_s']:.0f} s)")


def publish(res: dict[str, Any], text: str, path: Path, note: str = "") -> None:
    """Print the table ``text`` and write ``res`` with it to ``path`` as JSON."""
    res["table"] = text
    print(text)
    path.write_text(json.dumps(res, indent=1) + "\n", encoding="utf-8")
    print(f"\nwrote {path}{note}", file=sys.stderr)


if __name__ == "__main__":
    main()
