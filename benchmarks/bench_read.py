"""battlesim reading benchmark: scenario loading, strict event decoding and the replay tools.

A report, not a pass/fail test.  Three parts, each a ratio against a
baseline measured in the same run, medians (min-max) of interleaved
repetitions, CPU time, after a warm-up:

* **load**: ``load_scenario`` of a large generated scenario (the reference
  battle of ``lines.py``, 3,200 regiments a side, about 0.85 MB of YAML)
  on libyaml against the same call with libyaml switched off (the pure
  composer, the way it loaded before); also ``parse_yaml`` alone.
* **decode**: the strict decode of each event line of a replay, as the
  reader does it now (the compiled msgspec decoder, pydantic for the lines
  it leaves) against the pydantic path alone (strict JSON, validation and
  the exact-text check), per event.
* **tools**: ``verify``, ``diff`` (against the same battle at another seed)
  and ``report`` of a large replay (200 regiments a side, 300 turns: about
  86,000 events), each a fresh child measured by ``wait4``, as a multiple of
  the CPU of the ``battlesim run`` that wrote the replay; ``--before PATH``
  runs every command from another source tree too (e.g. ``git archive main``),
  interleaved, each against its own run; ``--tools verify`` measures only some.

Run ``.venv/bin/python benchmarks/bench_read.py`` (``--parts load decode``
for some; ``--quick`` for a smaller replay).  Figures go to stdout and
``benchmarks/results-read.json``.
"""

from __future__ import annotations

import argparse
import gc
import json
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml
from bench_replay import _trees
from common import fmt_spread, load_line, machine, run_child, table
from lines import lines_scenario

HERE = Path(__file__).resolve().parent
PARTS = ("load", "decode", "tools")
TOOLS = ("verify", "diff", "report")


def _cpu(work: Callable[[], Any]) -> float:
    gc.collect()
    start = time.process_time()
    work()
    return time.process_time() - start


def _interleaved(variants: dict[str, Callable[[], Any]], reps: int) -> dict[str, list[float]]:
    """CPU seconds of each variant, ``reps`` times, the order alternating."""
    for work in variants.values():
        work()  # warm-up
    found: dict[str, list[float]] = {k: [] for k in variants}
    order = list(variants)
    for rep in range(reps):
        for name in order if rep % 2 == 0 else reversed(order):
            found[name].append(_cpu(variants[name]))
    return found


def _ratios(found: dict[str, list[float]], new: str, old: str) -> list[float]:
    return [a / b for a, b in zip(found[new], found[old], strict=True)]


def big_scenario(folder: Path, per_side: int = 3200) -> Path:
    """A large scenario file: two lines of ``per_side`` regiments, in block YAML."""
    data = lines_scenario(per_side, 3).model_dump(mode="json", exclude_defaults=True)
    data = {"ruleset": "musket", **data}
    path = folder / "big.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return path


def part_load(folder: Path, reps: int) -> dict[str, Any]:
    """load_scenario and parse_yaml of a large scenario, libyaml against the pure composer."""
    from sim.scenario import load as loader

    path = big_scenario(folder)
    text = path.read_text(encoding="utf-8")
    fast_loader = loader._CLoader

    def pure(work: Callable[[], Any]) -> Callable[[], Any]:
        def run() -> Any:
            loader._CLoader = None
            try:
                return work()
            finally:
                loader._CLoader = fast_loader

        return run

    def load() -> Any:
        return loader.load_scenario(path)

    def parse() -> Any:
        return loader.parse_yaml(text, str(path))

    assert repr(pure(parse)()) == repr(parse())  # the same data and line map
    found = _interleaved(
        {
            "load libyaml": load,
            "load pure": pure(load),
            "parse libyaml": parse,
            "parse pure": pure(parse),
        },
        reps,
    )
    return {
        "bytes": len(text.encode()),
        "cpu": found,
        "load x pure": _ratios(found, "load libyaml", "load pure"),
        "parse x pure": _ratios(found, "parse libyaml", "parse pure"),
    }


def part_decode(replay: Path, reps: int) -> dict[str, Any]:
    """Strict decode per event: the reader's path (msgspec first) against pydantic alone."""
    from engine.replayfile.checks import _event, _event_fast, _open
    from engine.replayfile.reader import ReplayStream
    from sim.replay.header import registry_for

    stream = ReplayStream(replay, registry_for)
    lines = [line for line in stream.lines() if line.type is not None]
    registry, version, name = stream.registry, stream.header.format_version, stream.name

    def pydantic() -> None:
        for line in lines:
            data = _open(name, line.mark.line, line.text, line.body, line.seq)
            _event(name, line.mark.line, (line.body, data), line.seq, registry, version)

    def reader() -> None:
        for line in lines:
            event = _event_fast(line.body, line.seq, registry, line.type or "", version)
            if event is None:
                data = _open(name, line.mark.line, line.text, line.body, line.seq)
                _event(name, line.mark.line, (line.body, data), line.seq, registry, version)

    fast = sum(
        1
        for line in lines
        if _event_fast(line.body, line.seq, registry, line.type or "", version) is not None
    )
    found = _interleaved({"msgspec": reader, "pydantic": pydantic}, reps)
    per_event = {k: [v / len(lines) * 1e6 for v in vs] for k, vs in found.items()}
    return {
        "events": len(lines),
        "fast_share": fast / len(lines),
        "us_per_event": per_event,
        "msgspec x pydantic": _ratios(found, "msgspec", "pydantic"),
    }


def _make_replays(folder: Path, per_side: int, turns: int) -> int:
    sc = lines_scenario(per_side, turns)
    (folder / "s.yaml").write_text(yaml.safe_dump(sc.model_dump(mode="json")), encoding="utf-8")
    bs = str(Path(sys.executable).parent / "battlesim")
    for name, seed in (("a", sc.seed), ("b", sc.seed + 1)):
        out = str(folder / f"{name}.jsonl")
        done = run_child([bs, "run", str(folder / "s.yaml"), "--seed", str(seed), "--out", out])
        if done.returncode != 0:
            raise SystemExit(f"run failed: {done.stderr}")
    with (folder / "a.jsonl").open(encoding="utf-8") as fh:
        return sum(1 for _ in fh) - 2


def part_tools(
    folder: Path, reps: int, before: str | None, tools: tuple[str, ...] = TOOLS
) -> dict[str, Any]:
    """The ``tools``' CPU over the run's, for each source tree, interleaved."""
    bs = str(Path(sys.executable).parent / "battlesim")
    a, b = str(folder / "a.jsonl"), str(folder / "b.jsonl")
    every = {
        "run": [bs, "run", str(folder / "s.yaml"), "--out", str(folder / "r.jsonl"), "--force"],
        "verify": [bs, "verify", a],
        "diff": [bs, "diff", a, b],
        "report": [bs, "report", a, "--out", str(folder / "r.html"), "--force"],
    }
    commands = {k: v for k, v in every.items() if k == "run" or k in tools}
    trees = _trees(before)
    runs = [(tree, label) for label in commands for tree in trees]
    found: dict[str, dict[str, list[float]]] = {t: {k: [] for k in commands} for t in trees}
    for rep in range(reps):
        for tree, label in runs if rep % 2 == 0 else list(reversed(runs)):
            print(f"tools: {tree} {label} ({rep + 1}/{reps})", file=sys.stderr)
            done = run_child(commands[label], env=trees[tree])
            if done.returncode not in (0, 1):  # diff exits 1: the battles differ
                raise SystemExit(f"{label} failed ({done.returncode}): {done.stderr[-2000:]}")
            found[tree][label].append(done.cpu)
    return {
        "cpu": found,
        "x run": {
            tree: {k: _ratios(cmds, k, "run") for k in commands if k != "run"}
            for tree, cmds in found.items()
        },
    }


def render(res: dict[str, Any]) -> str:
    out = [f"battlesim reading benchmark, {res['date']}", res["load_line"], ""]
    rows: list[list[str]] = []
    if "load" in res:
        load = res["load"]
        for key in ("load libyaml", "load pure", "parse libyaml", "parse pure"):
            rows.append([f"scenario {key} (s)", fmt_spread(load["cpu"][key], 3)])
        rows.append(["scenario load, libyaml x pure", fmt_spread(load["load x pure"], 2)])
        rows.append(["scenario parse, libyaml x pure", fmt_spread(load["parse x pure"], 2)])
    if "decode" in res:
        dec = res["decode"]
        for key, values in dec["us_per_event"].items():
            rows.append([f"strict decode, {key} (us/event)", fmt_spread(values, 2)])
        rows.append(["strict decode, msgspec x pydantic", fmt_spread(dec["msgspec x pydantic"], 2)])
        rows.append(["  lines msgspec takes (share)", f"{dec['fast_share']:.3f}"])
    if "tools" in res:
        for tree, cmds in res["tools"]["x run"].items():
            run = res["tools"]["cpu"][tree]["run"]
            rows.append([f"{tree}: run (CPU s)", fmt_spread(run, 2)])
            for label, ratios in cmds.items():
                rows.append([f"{tree}: {label} CPU x run", fmt_spread(ratios, 2)])
    out.append(table(rows, ["measure", "median (min-max)"]))
    if "events" in res:
        out.append(
            f"\nreplay: {res['events']:,} events ({res['per_side']} a side, {res['turns']} turns)"
        )
    return "\n".join(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--parts", nargs="+", choices=PARTS, default=list(PARTS))
    parser.add_argument("--reps", type=int, default=5, help="repetitions (default 5)")
    parser.add_argument("--quick", action="store_true", help="a 50-a-side, 100-turn replay")
    parser.add_argument("--before", metavar="PATH", help="a second source tree for the tools")
    parser.add_argument(
        "--tools", nargs="+", choices=TOOLS, default=list(TOOLS), help="the tools part's commands"
    )
    parser.add_argument("--json", type=Path, default=HERE / "results-read.json")
    args = parser.parse_args()
    per_side, turns = (50, 100) if args.quick else (200, 300)
    start = machine()
    c0, w0 = time.process_time(), time.perf_counter()
    res: dict[str, Any] = {"date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())}
    with tempfile.TemporaryDirectory(prefix="battlesim-bench-") as tmp:
        folder = Path(tmp)
        if "load" in args.parts:
            print("load: large scenario", file=sys.stderr)
            res["load"] = part_load(folder, args.reps)
        if {"decode", "tools"} & set(args.parts):
            print(f"writing replays: {per_side} a side, {turns} turns", file=sys.stderr)
            res["events"] = _make_replays(folder, per_side, turns)
            res["per_side"], res["turns"] = per_side, turns
        if "decode" in args.parts:
            res["decode"] = part_decode(folder / "a.jsonl", max(3, args.reps // 2))
        own = (time.process_time() - c0, time.perf_counter() - w0)
        if "tools" in args.parts:
            res["tools"] = part_tools(folder, args.reps, args.before, tuple(args.tools))
    cpu = own[0] + sum(
        sum(sum(v) for v in t.values()) for t in res.get("tools", {}).get("cpu", {}).values()
    )
    res["machine"] = {"start": start, "end": machine()}
    res["load_line"] = load_line(
        start["loadavg"], res["machine"]["end"]["loadavg"], cpu, time.perf_counter() - w0
    )
    args.json.write_text(json.dumps(res, indent=1), encoding="utf-8")
    print(render(res))
    print(f"\nmedians of ratios: {_medians(res)}")


def _medians(res: dict[str, Any]) -> dict[str, float]:
    out = {}
    if "load" in res:
        out["load x pure"] = statistics.median(res["load"]["load x pure"])
    if "decode" in res:
        out["decode x pydantic"] = statistics.median(res["decode"]["msgspec x pydantic"])
    for tree, cmds in res.get("tools", {}).get("x run", {}).items():
        for label, ratios in cmds.items():
            out[f"{tree} {label} x run"] = statistics.median(ratios)
    return {k: round(v, 3) for k, v in out.items()}


if __name__ == "__main__":
    main()
