"""battlesim engine benchmark: a large musket battle streamed to a replay file.

A report, not a pass/fail test.  Machines are shared and noisy, so every
time is the median of several repetitions, and the ratios compare runs
interleaved in the same process.  What it measures (see benchmarks/README.md):

1. a generated battle of 420 units (two armies of 210 regiments and
   batteries in facing lines) fought to a 40-turn limit, and its events by type;
2. streaming it through the real path (``sim.api.make_header`` +
   ``ruleset.simulate`` into ``engine.log.FileSink``): wall seconds, events/s;
3. a bare-Python baseline doing the same fire-resolution arithmetic with
   ``random.Random`` and ``sim.rulesets.musket.rules.combat``, and engine/baseline ratios;
4. peak memory (tracemalloc and ru_maxrss, a fresh subprocess per size) at
   40, 80 and 160 turns of the same armies.

Run ``make bench`` (or ``.venv/bin/python benchmarks/bench_engine.py``);
``--quick`` runs a smaller battle.  Figures go to stdout and to
``benchmarks/results.json``.
"""

from __future__ import annotations

import argparse
import gc
import json
import math
import os
import platform
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
import tracemalloc
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from engine.log import FileSink, MemorySink, Sink
from sim import api
from sim.contract import Ruleset, get_ruleset
from sim.rulesets.musket.model.scenario import MusketScenario, cross_check
from sim.rulesets.musket.rules import combat

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))  # benchmarks/common.py, also when imported as benchmarks.bench_engine

from common import load_line, machine, table  # noqa: E402

SEED = 1863
MIB = 1024.0 * 1024.0

# Lethality lowered from the defaults (fire 5/25, melee 10/50 per 1000) so the
# armies are not shot away early and the 160-turn battle still fights in its
# last turns (events keep growing with length, ~x3.3 from 40 to 160 turns).
OPTIONS: dict[str, Any] = {"fire_lcv": 1, "fire_hcv": 5, "melee_lcv": 3, "melee_hcv": 15}


# --------------------------------------------------------------------------- scenario


@dataclass(frozen=True)
class Layout:
    """Per-side unit counts of the generated battle."""

    front: int  # front line: infantry, every 7th slot a battery
    second: int  # second line: cavalry (charge) and infantry (engage)
    rear_guns: int  # batteries on the ridge behind

    @property
    def per_side(self) -> int:
        return self.front + self.second + self.rear_guns


FULL = Layout(front=105, second=60, rear_guns=45)  # 210 a side, 420 units
QUICK = Layout(front=30, second=18, rear_guns=12)  # 60 a side, 120 units


def _side_units(layout: Layout, si: int, rows: tuple[int, int, int]) -> list[dict[str, Any]]:
    """One army's units; ``si`` 0 is the north army, 1 the south."""
    me, foe = ("n", "s") if si == 0 else ("s", "n")
    front_row, second_row, rear_row = rows
    quality = "BCDCB" if si == 0 else "CBCDC"
    units: list[dict[str, Any]] = []
    for i in range(layout.front):
        at = [10 + i, front_row]
        if i % 7 == 3:
            units.append(
                {
                    "id": f"{me}f{i}",
                    "name": f"Front battery {i}",
                    "kind": "artillery",
                    "strength": 4 + i % 3,
                    "quality": quality[i % 5],
                    "weapon": "napoleon_12pdr",
                    "at": at,
                }
            )
            continue
        r = (i * 7 + si * 3) % 10
        kind = "hold" if r < 3 else "engage" if r < 7 else "charge"
        order: dict[str, Any] = {"kind": kind}
        if kind != "hold":
            order["target"] = f"{foe}f{i}"  # the regiment facing it
        units.append(
            {
                "id": f"{me}f{i}",
                "name": f"Front regiment {i}",
                "kind": "infantry",
                "strength": 350 + (i * 37) % 300,
                "quality": quality[i % 5],
                "weapon": "smoothbore" if i % 4 == 0 else "rifle_musket",
                "at": at,
                "order": order,
                "leader": i % 9 == 0,
                "formation": "column" if i % 11 == 0 else "line",
                "ammo": "low" if i % 13 == 5 else "full",
                "fatigue": (i * 71) % 400,
            }
        )
    for i in range(layout.second):
        slot = (i * layout.front) // layout.second
        cavalry = i % 3 == 0
        units.append(
            {
                "id": f"{me}r{i}",
                "name": f"{'Cavalry' if cavalry else 'Reserve'} {i}",
                "kind": "cavalry" if cavalry else "infantry",
                "strength": 250 + (i * 53) % 300 if cavalry else 400 + (i * 31) % 200,
                "quality": quality[(i + 2) % 5],
                "weapon": "carbine" if cavalry else "rifle_musket",
                "at": [10 + slot, second_row],
                "order": {
                    "kind": "charge" if cavalry else "engage",
                    "target": f"{foe}f{slot}",
                },
            }
        )
    for i in range(layout.rear_guns):
        units.append(
            {
                "id": f"{me}g{i}",
                "name": f"Reserve battery {i}",
                "kind": "artillery",
                "strength": 4 + i % 3,
                "quality": quality[i % 5],
                "weapon": "rifled_3in" if i % 2 else "napoleon_12pdr",
                "at": [10 + (i * layout.front) // layout.rear_guns, rear_row],
            }
        )
    return units


def build_scenario(layout: Layout, turns: int) -> MusketScenario:
    """Two armies in facing lines 7 hexes apart on a wide map, break thresholds 1.0.

    Raises:
        ValueError: the generated scenario fails the ruleset's cross checks.
    """
    width, height = layout.front + 20, 40
    north = (16, 14, 13)  # front, second line, rear batteries (rows)
    south = (23, 25, 26)

    def cols(a: float, b: float) -> range:
        return range(int(width * a), int(width * b))

    terrain = [
        {"terrain": "woods", "hexes": [[c, r] for c in cols(0.25, 0.33) for r in (17, 18, 21, 22)]},
        {"terrain": "fence", "hexes": [[c, 22] for c in cols(0.5, 0.65)]},
        {"terrain": "stone_wall", "hexes": [[c, 17] for c in cols(0.75, 0.85)]},
    ]
    sides = [
        {
            "id": sid,
            "name": f"Army of the {sid.title()}",
            "retreat": sid,
            "break_units": 1.0,
            "break_losses": 1.0,
            "units": _side_units(layout, si, rows),
        }
        for si, (sid, rows) in enumerate((("north", north), ("south", south)))
    ]
    data = {
        "ruleset": "musket",
        "name": f"Benchmark: {2 * layout.per_side} units, {turns} turns",
        "seed": SEED,
        "map": {"width": width, "height": height, "terrain": terrain},
        "turns": {"limit": turns, "minutes": 20},
        "options": OPTIONS,
        "sides": sides,
    }
    scenario = MusketScenario.model_validate(data)
    problems = cross_check(scenario)
    if problems:
        raise ValueError(f"generated scenario is invalid: {problems[:3]}")
    return scenario


# --------------------------------------------------------------------------- engine runs


class NullSink:
    """Discards every line: the engine's work without the file write."""

    def write(self, line: str) -> None:
        pass

    def flush(self) -> None:
        pass

    def close(self) -> None:
        pass


def fight(ruleset: Ruleset, scenario: MusketScenario, sink: Sink) -> tuple[float, Any]:
    """The real path: header, then simulate into ``sink``; returns (wall s, final state)."""
    gc.collect()
    t0 = time.perf_counter()
    header = api.make_header(ruleset, scenario, scenario.seed, source="bench_engine.py")
    state = ruleset.simulate(scenario, header, sink)
    return time.perf_counter() - t0, state


@dataclass
class ReplayStats:
    """What a replay's lines say (read after the timed run, never during it)."""

    by_type: Counter[str]
    fired: list[dict[str, Any]]  # each fire resolution's result, with its target
    footer: dict[str, Any]
    ended: dict[str, Any]  # the battle_ended event

    @property
    def events(self) -> int:
        return sum(self.by_type.values())

    def problem(self, limit: int) -> str | None:
        """Why this is not a battle fought to its turn limit, or None when it is."""
        if self.footer.get("events") != self.events:
            return f"footer says {self.footer.get('events')} events, the file has {self.events}"
        final = self.footer.get("final_turn")
        if final != limit or self.by_type["engine.turn_ended"] != limit:
            return f"the battle ended at turn {final} ({self.ended.get('reason')!r}), not {limit}"
        if self.by_type["musket.side_broken"]:
            return "an army broke although its thresholds are 1.0"
        return None


def replay_stats(lines: Iterable[str]) -> ReplayStats:
    """Events by type, fire results, footer and outcome from a replay's lines."""
    stats = ReplayStats(Counter(), [], {}, {})
    it = iter(lines)
    next(it)  # the header
    for line in it:
        record = json.loads(line)
        kind = record.get("type")
        if kind is None:
            stats.footer = record
            continue
        stats.by_type[kind] += 1
        if kind == "musket.fired":
            stats.fired.append({"target": record["target"], **record["result"]})
        elif kind == "musket.battle_ended":
            stats.ended = record
    return stats


# --------------------------------------------------------------------------- baseline

Inputs = list[tuple[float, float, int, bool]]


def baseline_inputs(scenario: MusketScenario, fired: list[dict[str, Any]]) -> tuple[Inputs, int]:
    """(V, m, target index, target is a battery) of each fire resolution, and the unit count."""
    index: dict[str, int] = {}
    artillery: set[str] = set()
    for side in scenario.sides:
        for unit in side.units:
            index[unit.id] = len(index)
            if unit.kind == "artillery":
                artillery.add(unit.id)
    rows = [(f["v"], f["modifier"], index[f["target"]], f["target"] in artillery) for f in fired]
    return rows, len(index)


def baseline_combat(inputs: Inputs, n_units: int, options: Any) -> tuple[float, int]:
    """The resolution arithmetic with musket's ``combat`` and ``random.Random``; no engine.

    Per resolution: effective value and [low, high], a uniform draw, random
    rounding, guns lost (batteries), fatigue Uniform(c, 3c) randomly rounded
    and capped, the morale-check probability and its draw.
    """
    lcv, hcv = options.fire_lcv, options.fire_hcv
    men_per_gun, fatigue_max = options.men_per_gun, options.fatigue_max
    fatigue = [0] * n_units
    rnd = random.Random(SEED).random
    checks = 0
    gc.collect()
    t0 = time.perf_counter()
    for v, m, target, battery in inputs:
        r = combat.casualty_range(v, m, lcv, hcv)
        x = combat.uniform_between(r.low, r.high, rnd())
        c = combat.random_round(x, rnd())
        if battery and c > 0:
            combat.guns_lost(c, men_per_gun, rnd())
        if c > 0:
            value = combat.fatigue_value(c, rnd())
            added = combat.random_round(value, rnd())
            fatigue[target] += max(0, min(added, fatigue_max - fatigue[target]))
        p = combat.morale_check_probability(c)
        if c > 0 and rnd() < p:
            checks += 1
    return time.perf_counter() - t0, checks


def baseline_inline(inputs: Inputs, n_units: int, options: Any) -> tuple[float, int]:
    """The same arithmetic written inline (no function calls): the floor of Python cost."""
    lcv, hcv = options.fire_lcv / 1000.0, options.fire_hcv / 1000.0
    men_per_gun, fatigue_max = options.men_per_gun, options.fatigue_max
    fatigue = [0] * n_units
    rnd = random.Random(SEED).random
    floor = math.floor
    checks = 0
    gc.collect()
    t0 = time.perf_counter()
    for v, m, target, battery in inputs:
        e = v * (1.0 + m / 100.0)
        e = max(e, 0.0)
        low, high = lcv * e, hcv * e
        x = low + (high - low) * rnd()
        n = floor(x)
        c = n + 1 if rnd() < x - n else n
        if c > 0:
            if battery:
                whole, rest = divmod(c, men_per_gun)
                _guns = whole + (1 if rnd() < rest / men_per_gun else 0)
            f = c + 2.0 * c * rnd()
            n = floor(f)
            added = n + 1 if rnd() < f - n else n
            fatigue[target] += max(0, min(added, fatigue_max - fatigue[target]))
            if rnd() < c / (c + 25.0):
                checks += 1
    return time.perf_counter() - t0, checks


# --------------------------------------------------------------------------- memory


def max_rss_bytes() -> int:
    """This process's peak resident set size (Linux reports KiB, macOS bytes)."""
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return rss if sys.platform == "darwin" else rss * 1024


def vm_hwm_bytes() -> int | None:
    """Linux only: peak RSS of this address space (``VmHWM``), a cross-check of ru_maxrss."""
    try:
        with open("/proc/self/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        return None
    return None


def child_memory(spec: dict[str, Any]) -> dict[str, Any]:
    """Run in a fresh subprocess: fight one battle length, report its memory."""
    trace = bool(spec["trace"])
    if trace:
        tracemalloc.start()
    layout = QUICK if spec["quick"] else FULL
    scenario = build_scenario(layout, spec["turns"])
    ruleset = get_ruleset("musket")
    with tempfile.TemporaryDirectory(prefix="battlesim-bench-") as tmp:
        path = Path(tmp) / "replay.jsonl"
        sink: Sink = FileSink(path) if spec["sink"] == "file" else MemorySink()
        gc.collect()
        rss_before = max_rss_bytes()
        heap_before = tracemalloc.get_traced_memory()[0] if trace else 0
        if trace:
            tracemalloc.reset_peak()
        wall, _ = fight(ruleset, scenario, sink)
        heap_peak = tracemalloc.get_traced_memory()[1] if trace else 0
        rss_after = max_rss_bytes()
        hwm = vm_hwm_bytes()
        if trace:
            tracemalloc.stop()
        if isinstance(sink, MemorySink):
            stats = replay_stats(sink.lines)
        else:
            with path.open(encoding="utf-8") as fh:
                stats = replay_stats(fh)
    return {
        "turns": spec["turns"],
        "sink": spec["sink"],
        "tracemalloc": trace,
        "turns_fought": stats.footer.get("final_turn"),
        "problem": stats.problem(spec["turns"]),
        "events": stats.events,
        "wall_s": wall,
        "heap_before_mib": heap_before / MIB if trace else None,
        "heap_peak_mib": heap_peak / MIB if trace else None,
        "rss_before_mib": rss_before / MIB,
        "rss_peak_mib": rss_after / MIB,
        "vmhwm_peak_mib": None if hwm is None else hwm / MIB,
    }


def run_child(spec: dict[str, Any]) -> dict[str, Any]:
    """Start a fresh interpreter for one memory measurement; return its JSON report.

    On Linux a process's ru_maxrss survives ``execve``: a child that Python
    starts directly (vfork + exec) reports at least the *parent's* peak RSS.
    So the child is started by ``/bin/sh``, which forks it from its own small
    address space (``"$@"; exit $?`` stops sh from exec-ing in place).
    """
    command = [sys.executable, str(Path(__file__).resolve()), "--child", json.dumps(spec)]
    if os.name == "posix" and Path("/bin/sh").exists():
        command = ["/bin/sh", "-c", '"$@"; exit $?', "sh", *command]
    done = subprocess.run(
        command,
        capture_output=True,
        text=True,
        check=False,
        cwd=ROOT,
    )
    if done.returncode != 0:
        raise RuntimeError(f"memory child {spec} failed:\n{done.stderr}")
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


# --------------------------------------------------------------------------- report


def machine_info() -> dict[str, Any]:
    """Platform, Python, CPUs, load, the repository commit and library versions."""
    from importlib.metadata import version

    return {
        **machine(),
        "machine": platform.machine(),
        "processor": platform.processor() or None,
        "implementation": platform.python_implementation(),
        "simpy": version("simpy"),
        "pydantic": version("pydantic"),
    }


def summary(times: list[float]) -> dict[str, Any]:
    return {
        "runs_s": [round(t, 6) for t in times],
        "median_s": statistics.median(times),
        "min_s": min(times),
        "max_s": max(times),
    }


def fmt(x: float | None, digits: int = 3) -> str:
    return "-" if x is None else f"{x:,.{digits}f}"


def render(res: dict[str, Any]) -> str:
    m, sc, b = res["machine"], res["scenario"], res["battle"]
    st, ns, bl, bi = res["streaming"], res["null_sink"], res["baseline"], res["baseline_inline"]
    out = [
        f"battlesim engine benchmark ({res['mode']}), {res['date']}",
        f"machine: {m['platform']}, Python {m['python']}, {m['cpu_count']} CPUs "
        f"({m['cpus_usable']} usable), simpy {m['simpy']}, pydantic {m['pydantic']}, "
        f"commit {m['commit']}",
        res["load_line"],
        "",
        f"1. Battle: {sc['units']} units ({sc['per_side']} a side: {sc['layout']}), "
        f"map {sc['map'][0]}x{sc['map'][1]}, turn limit {sc['turns']}, break thresholds 1.0",
        f"   fought {b['turns_fought']} turns, ran to the turn limit: {b['ran_to_turn_limit']}; "
        f"{b['events']:,} events, replay {b['replay_mib']:.1f} MiB",
        f"   outcome: {b['reason']}; men lost {b['men_lost']}, units eliminated {b['eliminated']}",
        "",
        table(
            [
                [k, f"{v:,}", f"{100 * v / b['events']:.1f}%"]
                for k, v in sorted(b["events_by_type"].items(), key=lambda kv: -kv[1])
            ],
            ["event type", "count", "share"],
        ),
        "",
        f"2-3. Throughput (median of {st['repetitions']} interleaved repetitions)",
        "",
        table(
            [
                [
                    "engine -> FileSink (real path)",
                    fmt(st["median_s"]),
                    f"{fmt(st['min_s'])}-{fmt(st['max_s'])}",
                    f"{st['events_per_s']:,.0f}",
                    fmt(st["us_per_event"], 1),
                    fmt(st["us_per_fire"], 1),
                ],
                [
                    "engine -> null sink (no file write)",
                    fmt(ns["median_s"]),
                    f"{fmt(ns['min_s'])}-{fmt(ns['max_s'])}",
                    f"{ns['events_per_s']:,.0f}",
                    fmt(ns["us_per_event"], 1),
                    fmt(ns["us_per_fire"], 1),
                ],
                [
                    "baseline: combat.py + random",
                    fmt(bl["median_s"], 4),
                    f"{fmt(bl['min_s'], 4)}-{fmt(bl['max_s'], 4)}",
                    f"{bl['resolutions_per_s']:,.0f}",
                    "-",
                    fmt(bl["us_per_resolution"], 2),
                ],
                [
                    "baseline: inline arithmetic",
                    fmt(bi["median_s"], 4),
                    f"{fmt(bi['min_s'], 4)}-{fmt(bi['max_s'], 4)}",
                    f"{bi['resolutions_per_s']:,.0f}",
                    "-",
                    fmt(bi["us_per_resolution"], 2),
                ],
            ],
            ["run", "median s", "min-max s", "items/s", "us/event", "us/fire res."],
        ),
        "",
        f"   items/s: events/s for the engine, fire resolutions/s for the baselines "
        f"({bl['resolutions']:,} fire resolutions, as in the battle)",
        f"   engine / baseline(combat.py) = {res['ratios']['engine_over_baseline']:,.0f}x "
        f"(per-repetition median {res['ratios']['engine_over_baseline_per_rep']:,.0f}x); "
        f"engine / baseline(inline) = {res['ratios']['engine_over_inline']:,.0f}x",
        f"   FileSink / null sink = {res['ratios']['file_over_null']:.3f} "
        f"(the file write's cost; within noise when near 1)",
        "",
        "4. Memory by battle length (same armies; a fresh subprocess per cell)",
        "",
    ]
    mem = res["memory"]
    rows = []
    for r in mem["sizes"]:
        rows.append(
            [
                f"{r['turns']} turns",
                f"{r['turns_fought']}",
                f"{r['events']:,}",
                fmt(r["wall_s"], 2),
                f"{r['events'] / r['wall_s']:,.0f}",
                fmt(r["heap_before_mib"], 1),
                fmt(r["heap_peak_mib"], 1),
                fmt(r["rss_before_mib"], 1),
                fmt(r["rss_peak_mib"], 1),
                fmt(r["control_heap_peak_mib"], 1),
            ]
        )
    out.append(
        table(
            rows,
            [
                "length",
                "fought",
                "events",
                "wall s",
                "events/s",
                "heap before",
                "heap peak",
                "rss before",
                "ru_maxrss",
                "MemorySink peak",
            ],
        )
    )
    g = mem["growth"]
    out += [
        "",
        f"   {mem['sizes'][-1]['turns']} vs {mem['sizes'][0]['turns']} turns: events x"
        f"{g['events']:.2f}, tracemalloc peak x{g['heap_peak']:.2f}, ru_maxrss x"
        f"{g['rss_peak']:.2f}; MemorySink control x{g['control_heap_peak']:.2f}",
        "   MiB. heap: tracemalloc in its own run, before simulate (scenario built) and its",
        "   peak while simulating; rss: ru_maxrss of a separate run without tracemalloc,",
        "   before simulate and at the end; MemorySink peak: tracemalloc peak of a control",
        "   run that keeps every line in memory (it must grow with length).",
        "",
        f"total benchmark time {res['total_s']:.0f} s",
    ]
    return "\n".join(out)


# --------------------------------------------------------------------------- main


def growth(sizes: list[dict[str, Any]], key: str) -> float:
    return float(sizes[-1][key] / sizes[0][key])


@dataclass
class Battle:
    """The first fight of the benchmark battle, and what the replay says about it."""

    report: dict[str, Any]
    inputs: Inputs
    n_units: int
    wall: float


def first_battle(ruleset: Ruleset, scenario: MusketScenario, path: Path) -> Battle:
    """Fight once into ``path``; check it ran to the turn limit; count events by type.

    Raises:
        RuntimeError: the battle ended early, or the footer disagrees with the file.
    """
    turns = scenario.turns.limit
    wall, state = fight(ruleset, scenario, FileSink(path))
    with path.open(encoding="utf-8") as fh:
        stats = replay_stats(fh)
    problem = stats.problem(turns)
    if problem is not None:
        raise RuntimeError(f"{problem}: the benchmark scenario needs retuning")
    outcome = ruleset.outcome(scenario, state).as_json()
    sides = outcome["sides"].values()
    inputs, n_units = baseline_inputs(scenario, stats.fired)
    size = path.stat().st_size
    report = {
        "turns_fought": stats.footer["final_turn"],
        "ran_to_turn_limit": True,
        "reason": stats.ended.get("reason"),
        "events": stats.events,
        "events_by_type": dict(stats.by_type.most_common()),
        "fire_resolutions": len(inputs),
        "replay_bytes": size,
        "replay_mib": size / MIB,
        "men_lost": sum(s["men_lost"] for s in sides),
        "eliminated": sum(s["eliminated"] for s in sides),
        "outcome": outcome,
    }
    return Battle(report, inputs, n_units, wall)


def throughput(
    ruleset: Ruleset, scenario: MusketScenario, path: Path, battle: Battle, reps: int
) -> dict[str, Any]:
    """Engine (FileSink, null sink) and baselines, interleaved rep by rep; medians and ratios."""
    options = scenario.options
    args = (battle.inputs, battle.n_units, options)
    times: dict[str, list[float]] = {"stream": [], "null": [], "base": [], "inline": []}
    for i in range(reps):
        print(f"repetition {i + 1}/{reps} ...", file=sys.stderr)
        if i == 0:
            times["stream"].append(battle.wall)  # the first fight counts as a repetition
        else:
            times["stream"].append(fight(ruleset, scenario, FileSink(path))[0])
        times["null"].append(fight(ruleset, scenario, NullSink())[0])
        times["base"].append(baseline_combat(*args)[0])
        times["inline"].append(baseline_inline(*args)[0])
    events = battle.report["events"]
    n_fire = len(battle.inputs)
    out = {name: summary(ts) | {"repetitions": reps} for name, ts in times.items()}
    for name in ("stream", "null"):
        s = out[name]
        s["events_per_s"] = events / s["median_s"]
        s["us_per_event"] = 1e6 * s["median_s"] / events
        s["us_per_fire"] = 1e6 * s["median_s"] / n_fire
    for name in ("base", "inline"):
        s = out[name]
        s["resolutions"] = n_fire
        s["resolutions_per_s"] = n_fire / s["median_s"]
        s["us_per_resolution"] = 1e6 * s["median_s"] / n_fire
    stream, null, base = out["stream"]["median_s"], out["null"]["median_s"], out["base"]["median_s"]
    per_rep = [e / b for e, b in zip(times["stream"], times["base"], strict=True)]
    out["ratios"] = {
        "engine_over_baseline": stream / base,
        "engine_over_baseline_per_rep": statistics.median(per_rep),
        "engine_over_inline": stream / out["inline"]["median_s"],
        "null_over_baseline": null / base,
        "file_over_null": stream / null,
    }
    return out


def measure_memory(lengths: list[int], quick: bool) -> dict[str, Any]:
    """Per length, three fresh subprocesses: ru_maxrss, tracemalloc, MemorySink control.

    Raises:
        RuntimeError: a battle did not run to its turn limit.
    """
    sizes = []
    for n in lengths:
        print(f"memory: {n} turns in fresh subprocesses ...", file=sys.stderr)
        common = {"turns": n, "quick": quick}
        rss = run_child({**common, "trace": False, "sink": "file"})
        heap = run_child({**common, "trace": True, "sink": "file"})
        control = run_child({**common, "trace": True, "sink": "memory"})
        for child in (rss, heap, control):
            if child["problem"] is not None:
                raise RuntimeError(f"{n}-turn battle: {child['problem']}")
        sizes.append(
            {
                "turns": n,
                "turns_fought": rss["turns_fought"],
                "events": rss["events"],
                "wall_s": rss["wall_s"],
                "rss_before_mib": rss["rss_before_mib"],
                "rss_peak_mib": rss["rss_peak_mib"],
                "vmhwm_peak_mib": rss["vmhwm_peak_mib"],
                "heap_before_mib": heap["heap_before_mib"],
                "heap_peak_mib": heap["heap_peak_mib"],
                "traced_wall_s": heap["wall_s"],
                "control_heap_peak_mib": control["heap_peak_mib"],
                "control_rss_peak_mib": control["rss_peak_mib"],
            }
        )
    return {
        "lengths": lengths,
        "sizes": sizes,
        "growth": {
            "events": growth(sizes, "events"),
            "heap_peak": growth(sizes, "heap_peak_mib"),
            "rss_peak": growth(sizes, "rss_peak_mib"),
            "control_heap_peak": growth(sizes, "control_heap_peak_mib"),
        },
    }


def profile_once(ruleset: Ruleset, scenario: MusketScenario, path: Path) -> None:
    """cProfile one fight; the top functions by own time go to stderr."""
    import cProfile
    import pstats

    prof = cProfile.Profile()
    prof.runcall(fight, ruleset, scenario, FileSink(path))
    pstats.Stats(prof, stream=sys.stderr).sort_stats("tottime").print_stats(25)


def benchmark(quick: bool, reps: int, profile: bool) -> dict[str, Any]:
    """Run every measurement; return the results (``render`` prints them)."""
    started, start_load, cpu0 = time.perf_counter(), os.getloadavg(), _cpu_s()
    layout = QUICK if quick else FULL
    turns = 20 if quick else 40
    ruleset = get_ruleset("musket")
    scenario = build_scenario(layout, turns)
    with tempfile.TemporaryDirectory(prefix="battlesim-bench-") as tmp:
        path = Path(tmp) / "battle.jsonl"
        print(f"fighting {2 * layout.per_side} units for {turns} turns ...", file=sys.stderr)
        battle = first_battle(ruleset, scenario, path)
        speed = throughput(ruleset, scenario, path, battle, reps)
        if profile:
            profile_once(ruleset, scenario, path)
    memory = measure_memory([turns, 2 * turns, 4 * turns], quick)
    wall = time.perf_counter() - started
    loaded = load_line(start_load, os.getloadavg(), _cpu_s() - cpu0, wall)
    return {
        "benchmark": "battlesim engine",
        "mode": "quick" if quick else "full",
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "command": " ".join([Path(sys.executable).name, *sys.argv]),
        "machine": machine_info(),
        "scenario": {
            "units": 2 * layout.per_side,
            "per_side": layout.per_side,
            "layout": f"{layout.front} front (every 7th a battery), {layout.second} second "
            f"line (1/3 cavalry), {layout.rear_guns} rear batteries",
            "map": [scenario.map.width, scenario.map.height],
            "turns": turns,
            "seed": scenario.seed,
            "options": OPTIONS,
            "break_units": 1.0,
            "break_losses": 1.0,
        },
        "battle": battle.report,
        "streaming": speed["stream"],
        "null_sink": speed["null"],
        "baseline": speed["base"],
        "baseline_inline": speed["inline"],
        "ratios": speed["ratios"],
        "memory": memory,
        "total_s": wall,
        "load_line": loaded,
    }


def _cpu_s() -> float:
    """CPU seconds (user + system) of this process and of its children reaped so far."""
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--quick", action="store_true", help="120 units, 20/40/80 turns, 3 reps")
    parser.add_argument("--reps", type=int, default=None, help="repetitions (default 5; quick 3)")
    parser.add_argument(
        "--json",
        type=Path,
        default=None,
        help="results file (default benchmarks/results.json; quick: results-quick.json)",
    )
    parser.add_argument("--profile", action="store_true", help="also cProfile one run (stderr)")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        print(json.dumps(child_memory(json.loads(args.child))))
        return 0
    reps = args.reps if args.reps is not None else 3 if args.quick else 5
    if reps < 1:
        parser.error("--reps must be at least 1")
    results = benchmark(args.quick, reps, args.profile)
    target = args.json or HERE / ("results-quick.json" if args.quick else "results.json")
    results["table"] = render(results)
    target.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    print(results["table"])
    print(f"\nresults written to {_shown(target)}")
    return 0


def _shown(path: Path) -> str:
    try:
        return str(path.resolve().relative_to(Path.cwd()))
    except ValueError:
        return str(path)


if __name__ == "__main__":
    sys.exit(main())
