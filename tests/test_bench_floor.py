"""benchmarks/bench_floor.py (``make bench-floor``): every piece it times still runs
against the code it measures (its resumes once stubbed a battle with fewer fields than
the musket ruleset's ``waits_for`` reads, and the benchmark failed before timing anything)."""

from __future__ import annotations

import gc
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_every_piece_of_the_floor_benchmark_runs_on_a_small_battle() -> None:
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        import bench_floor

        work = bench_floor.pieces(4, 40)
        for name, piece in work.items():
            if name != "_meta":
                piece()
        # the lines battle: 5 turns, 8 units, each on hold, which waits for every phase but
        # the melee (musket.battle.waits_for: a unit on hold never charges)
        assert work["resumes"]() == 5 * 8 * 4
        folder = Path(work["_meta"]()["dir"])
        assert (folder / "replay.jsonl").is_file()
        del work, piece
        gc.collect()
        assert not folder.exists(), "the benchmark's scratch folder outlives its work"
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))
