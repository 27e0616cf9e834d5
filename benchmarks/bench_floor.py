"""battlesim floor benchmark: what the framework's fixed pieces cost per resolution.

A report, not a pass/fail test.  It fights the reference battle (``lines.py``,
400 regiments a side by default) once through the real path, then times,
over that battle's own events, each piece of work the framework does for
every battle whatever its rules:

* **line**: each event's JSON line (pydantic's serializer);
* **chain**: each line sealed with its BLAKE2b chain hash;
* **draws**: each recorded draw made again from its named stream;
* **build**: each event (and nested record) built again without validation,
  as rule code builds it (:func:`engine.events.trusted`);
* **apply + digest**: each event applied to a fresh state through the
  projection, and the state's digest at every turn end;
* **resumes**: one SimPy process a unit, each resumed by the turn kernel in
  every phase it waits for (the battle's own count), doing nothing else.

Beside them: the whole battle (``engine``), the bare loop of ``bench_scale``
(the same fire arithmetic with ``random.Random``), and what is left of the
battle once the fixed pieces are taken off: the rules and the glue between
them.  Every figure is CPU µs per fire resolution, the median (min–max) of
paired repetitions interleaved in one process, after a warm-up.  The
``x bare`` column is the bare loop's CPU over the piece's, repetition by
repetition (the median and min–max of those ratios): a piece alone
costing more than the whole budget of a target (``--target``, as a
fraction of the bare loop) shows the target cannot be met with that piece.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

from bench_scale import _inputs, bare_loop
from common import ROOT, fmt_spread, load_line, machine, table, timed

HERE = Path(__file__).resolve().parent


def _records(events: list[Any]) -> list[tuple[type, dict[str, Any]]]:
    """Every model in the events (nested ones first) with its fields, as rule code builds them."""
    from pydantic import BaseModel

    out: list[tuple[type, dict[str, Any]]] = []

    def walk(model: BaseModel) -> None:
        for value in model.__dict__.values():
            if isinstance(value, BaseModel):
                walk(value)
        out.append((type(model), dict(model.__dict__)))

    for event in events:
        walk(event)
    return out


def _draws(events: list[Any]) -> list[tuple[str, int]]:
    """(stream name, draws) of each run of draws the events record, in order."""
    runs: list[tuple[str, int]] = []

    def walk(value: Any) -> None:
        if isinstance(value, dict):
            for v in value.values():
                walk(v)
        elif isinstance(value, list):
            if value and all(isinstance(d, list) and len(d) == 3 for d in value):
                for name, _, _ in value:
                    if runs and runs[-1][0] == name:
                        runs[-1] = (name, runs[-1][1] + 1)
                    else:
                        runs.append((name, 1))
            else:
                for v in value:
                    walk(v)

    for event in events:
        walk(event.model_dump(mode="json"))
    return runs


def _resumes(scenario: Any, turns: int) -> Callable[[], int]:
    """One process a unit resumed by the kernel in each phase it waits for; nothing else."""
    from types import SimpleNamespace

    import simpy

    from engine.kernel import TurnKernel
    from sim.rulesets.musket.battle import waits_for
    from sim.rulesets.musket.model.data import COUNTER_PHASES, PHASES

    orders = {u.id: u.order for s in scenario.sides for u in s.units}
    phases = COUNTER_PHASES if scenario.options.counter_charge is not None else PHASES
    view = SimpleNamespace(  # all that waits_for reads of a battle
        order_kinds=lambda uid: frozenset((orders[uid].kind,)),
        options=scenario.options,
        kernel=SimpleNamespace(phases=phases),
    )
    units = [waits_for(view, uid) for uid in orders]  # type: ignore[arg-type]

    def fight() -> int:
        env = simpy.Environment()
        kernel = TurnKernel(env, phases, scenario.turns.minutes)
        count = [0]

        def unit(rank: int, waits: tuple[str, ...]) -> simpy.events.ProcessGenerator:
            order = (rank,)
            while True:
                for phase in waits:
                    yield kernel.phase(phase, order)
                    count[0] += 1

        for rank, waits in enumerate(units):
            env.process(unit(rank, waits))
        kernel.start(turns, lambda turn: False)
        kernel.run()
        return count[0]

    return fight


def pieces(per_side: int, resolutions: int) -> dict[str, Callable[[], Any]]:
    """The battle, the bare loop and each fixed piece, as work to time."""
    from lines import lines_scenario, turns_for

    from engine.canonical import text_digest
    from engine.events import trusted
    from engine.log import FileSink, line_body, seal_bytes
    from engine.projection import Projection
    from engine.rng import Streams
    from sim import api
    from sim.contract import get_ruleset

    scenario = lines_scenario(per_side, turns_for(per_side, resolutions))
    ruleset = get_ruleset("musket")
    folder = tempfile.TemporaryDirectory(prefix="battlesim-floor-")  # removed with the work
    tmp = folder.name
    path = Path(tmp) / "replay.jsonl"

    def engine() -> None:
        assert folder  # the folder lives as long as the work that writes in it
        header = api.make_header(ruleset, scenario, scenario.seed, source="bench_floor.py")
        ruleset.simulate(scenario, header, FileSink(path))

    engine()
    inputs, _, _ = _inputs(path, scenario)
    replay = api.load_replay(path)
    events = list(replay.events)
    bodies = [line_body(e) for e in events]
    records = _records(events)
    draws = _draws(events)
    o = scenario.options
    snapshot_json = ruleset.snapshot_json
    assert snapshot_json is not None

    def line() -> None:
        for e in events:
            line_body(e)

    def chain() -> None:
        h = b"0" * 32
        for body in bodies:
            h = seal_bytes(h, body)[1]

    def redraw() -> None:
        streams = Streams(scenario.seed)
        for name, n in draws:
            stream = streams.stream(name)
            for _ in range(n):
                stream.draw()

    def build() -> None:
        for cls, fields in records:
            trusted(cls, fields)

    def apply_digest() -> None:
        projection = Projection(ruleset.initial_state(scenario), ruleset.apply)
        for e in events:
            projection.apply(e)
            if e.type == "engine.turn_ended":
                text_digest(snapshot_json(projection.state))

    return {
        "engine": engine,
        "bare": partial(bare_loop, inputs, 2 * per_side, o.fire_lcv, o.fire_hcv),
        "line": line,
        "chain": chain,
        "draws": redraw,
        "build": build,
        "apply + digest": apply_digest,
        "resumes": _resumes(scenario, scenario.turns.limit),
        "_meta": lambda: {
            "resolutions": len(inputs),
            "events": len(events),
            "draws": sum(n for _, n in draws),
            "records": len(records),
            "bytes": sum(len(b) + 36 for b in bodies),
            "dir": tmp,
        },
    }


FIXED = ("line", "chain", "draws", "build", "apply + digest", "resumes")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--per-side", type=int, default=400, help="regiments a side (400)")
    parser.add_argument("--resolutions", type=int, default=8_000, help="about this many (8,000)")
    parser.add_argument("--reps", type=int, default=5, help="interleaved repetitions (5)")
    parser.add_argument(
        "--target", type=float, default=0.05, help="a target, as x the bare loop (0.05)"
    )
    parser.add_argument("--json", type=Path, default=None, help="where to write the results")
    args = parser.parse_args()
    sys.path.insert(0, str(HERE))
    start_load = os.getloadavg()
    work = pieces(args.per_side, args.resolutions)
    meta = work.pop("_meta")()
    names = list(work)
    cpu: dict[str, list[float]] = {n: [] for n in names}
    used_cpu = used_wall = 0.0
    for name in names:  # warm-up
        work[name]()
    for rep in range(args.reps):
        for name in names if rep % 2 == 0 else reversed(names):
            gc.collect()
            t, _ = timed(work[name])
            cpu[name].append(t.cpu / meta["resolutions"] * 1e6)
            used_cpu, used_wall = used_cpu + t.cpu, used_wall + t.wall
    shutil.rmtree(meta.pop("dir"), ignore_errors=True)
    bare = statistics.median(cpu["bare"])
    fixed = [sum(cpu[n][r] for n in FIXED) for r in range(args.reps)]
    rest = [cpu["engine"][r] - fixed[r] for r in range(args.reps)]
    rows = []
    for name, values in [*cpu.items(), ("fixed pieces, together", fixed), ("the rest", rest)]:
        paired = [b / v for b, v in zip(cpu["bare"], values, strict=True) if v > 0]
        rows.append([name, fmt_spread(values, 2), fmt_spread(paired, 3) if paired else "-"])
    budget = bare / args.target
    lines = [
        f"battlesim floor benchmark, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, "
        f"commit {machine()['commit']}",
        load_line(start_load, os.getloadavg(), used_cpu, used_wall),
        "",
        f"reference battle, {args.per_side} a side: {meta['resolutions']:,} fire resolutions, "
        f"{meta['events']:,} events, {meta['records']:,} records built, {meta['draws']:,} draws, "
        f"{meta['bytes'] / meta['events']:.0f} bytes a line",
        f"CPU us per resolution, medians (min-max) of {args.reps} interleaved repetitions",
        "",
        table(rows, ["piece", "us CPU / resolution", "x bare (paired)"]),
        "",
        f"budget at {args.target} x the bare loop: {budget:.1f} us a resolution; the fixed "
        f"pieces take {statistics.median(fixed) / budget:.0%} of it, leaving "
        f"{budget - statistics.median(fixed):.1f} us for the rules and the glue, which cost "
        f"{statistics.median(rest):.1f} us today.",
    ]
    results = {"meta": meta, "cpu_us_per_resolution": cpu, "fixed": fixed, "rest": rest}
    results |= {"target": args.target, "budget_us": budget, "machine": machine()}
    path = args.json or HERE / "results-floor.json"
    path.write_text(json.dumps(results, indent=2) + "\n")
    print("\n".join(lines))
    print(f"(written to {path.relative_to(ROOT) if path.is_relative_to(ROOT) else path})")


if __name__ == "__main__":
    main()
