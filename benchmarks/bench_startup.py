"""battlesim start-up benchmark: CPU of `battlesim --version`, `--help` and completion.

A report, not a pass/fail test. Each command runs in a fresh process; its
CPU time (user + system of the child) is compared with the bare baseline
``python -c "import pydantic, simpy, click, yaml"`` — the libraries every
command needs anyway. Repetitions are interleaved (baseline, then each
command, round after round) so that each round meets the same machine load;
the first round is a warm-up (file cache) and is dropped. Medians with
min–max are printed; the target (issue 11) is a ratio of at most 1.5.

Run ``make bench-startup`` (or ``.venv/bin/python benchmarks/bench_startup.py
[--reps N]``). Figures go to stdout and to ``benchmarks/results-startup.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from common import load_line

HERE = Path(__file__).resolve().parent
BIN = Path(sys.executable).parent
TARGET = 1.5


def _commands(bin_dir: Path) -> dict[str, tuple[list[str], dict[str, str]]]:
    python = str(bin_dir / "python")
    return {
        "baseline (import pydantic, simpy, click, yaml)": (
            [python, "-c", "import pydantic, simpy, click, yaml"],
            {},
        ),
        "battlesim --version": ([str(bin_dir / "battlesim"), "--version"], {}),
        "battlesim --help": ([str(bin_dir / "battlesim"), "--help"], {}),
        "python -m sim --version": ([python, "-m", "sim", "--version"], {}),
        "completion: battlesim batch --ru<TAB>": (
            [str(bin_dir / "battlesim")],
            {
                "_BATTLESIM_COMPLETE": "bash_complete",
                "COMP_WORDS": "battlesim batch --ru",
                "COMP_CWORD": "2",
            },
        ),
    }


def _cpu(argv: list[str], env: dict[str, str]) -> tuple[float, float]:
    """CPU seconds (user + system) and wall seconds of one run in a fresh process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(
        argv,
        env={**os.environ, **env},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        check=True,
    )
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, wall


def _measure(reps: int, bin_dir: Path) -> dict[str, dict[str, list[float]]]:
    commands = _commands(bin_dir)
    runs: dict[str, dict[str, list[float]]] = {k: {"cpu": [], "wall": []} for k in commands}
    for round_ in range(reps + 1):
        for name, (argv, env) in commands.items():
            cpu, wall = _cpu(argv, env)
            if round_:  # round 0 warms the file cache
                runs[name]["cpu"].append(cpu)
                runs[name]["wall"].append(wall)
        print(f"round {round_}/{reps}", file=sys.stderr)
    return runs


def _report(
    runs: dict[str, dict[str, list[float]]], start_load: Sequence[float]
) -> dict[str, object]:
    base = statistics.median(next(iter(runs.values()))["cpu"])
    rows = {}
    load = os.getloadavg()
    cpu = sum(sum(r["cpu"]) for r in runs.values())
    wall = sum(sum(r["wall"]) for r in runs.values())
    print(load_line(start_load, load, cpu, wall))
    print(f"{'command':<46} {'CPU ms (median, min-max)':>26} {'wall ms':>8} {'x baseline':>10}")
    for name, r in runs.items():
        cpu, wall = statistics.median(r["cpu"]), statistics.median(r["wall"])
        ratio = cpu / base
        span = f"{cpu * 1e3:6.0f} ({min(r['cpu']) * 1e3:.0f}-{max(r['cpu']) * 1e3:.0f})"
        print(f"{name:<46} {span:>26} {wall * 1e3:8.0f} {ratio:10.2f}")
        rows[name] = {"cpu_median_s": cpu, "wall_median_s": wall, "ratio": ratio, **r}
    worst = max(r["ratio"] for k, r in rows.items() if k.startswith("battlesim --"))
    print(f"--version/--help: {worst:.2f} x baseline (target <= {TARGET})")
    return {"commands": rows, "load_avg": load, "target": TARGET, "worst_ratio": worst}


def main() -> None:
    """Measure, print the table, write results-startup.json."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=15, help="Interleaved rounds (default 15).")
    parser.add_argument(
        "--bin",
        type=Path,
        default=BIN,
        help="The venv's bin folder to measure (default: this Python's; another checkout's "
        "to compare before and after).",
    )
    args = parser.parse_args()
    start_load = os.getloadavg()
    result = _report(_measure(args.reps, args.bin), start_load)
    (HERE / "results-startup.json").write_text(json.dumps(result, indent=2) + "\n")


if __name__ == "__main__":
    main()
