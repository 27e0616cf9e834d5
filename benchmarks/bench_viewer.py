"""Viewer benchmark: build the report page of a large battle and drive it in headless Chromium.

A generated musket battle (the engine benchmark's layout: 420 units, or 120
with ``--quick``) is fought to a replay; then ``battlesim report``'s work is
timed (fold + page), the page's size is read, and Chromium (the system's, via
Playwright) loads it and steps through it: time to ready, per event step, per
turn step, End and Home.  Figures, not a pass/fail test.

    .venv/bin/python benchmarks/bench_viewer.py [--quick] [--turns N]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.bench_engine import FULL, QUICK, build_scenario  # noqa: E402
from engine.log import FileSink  # noqa: E402
from sim import api  # noqa: E402
from sim.contract import get_ruleset  # noqa: E402
from sim.replay.viewer.model import battle_view  # noqa: E402
from sim.replay.viewer.report import report_page  # noqa: E402
from tests.viewer.browser import launch, open_page  # noqa: E402


def _timed_keys(page: object, key: str, times: int) -> float:
    """Mean milliseconds per key press, the page's own work included (it runs synchronously)."""
    t0 = time.perf_counter()
    for _ in range(times):
        page.keyboard.press(key)  # type: ignore[attr-defined]
    page.evaluate("() => document.body.dataset.position")  # type: ignore[attr-defined]
    return 1000 * (time.perf_counter() - t0) / times


def main() -> None:
    """Run the benchmark and print one JSON object of figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="120 units instead of 420")
    parser.add_argument("--turns", type=int, default=40)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-viewer-") as folder:  # removed at the end
        print(json.dumps(_figures(Path(folder), args.quick, args.turns), indent=2))


def _figures(out: Path, quick: bool, turns: int) -> dict[str, object]:
    """Write the battle and its page under ``out``, then time the fold, the page and the viewer."""
    scenario = build_scenario(QUICK if quick else FULL, turns)
    ruleset = get_ruleset("musket")
    replay = out / "big.jsonl"
    ruleset.simulate(scenario, api.make_header(ruleset, scenario, scenario.seed), FileSink(replay))
    loaded = api.load_replay(replay)
    t0 = time.process_time()
    view = battle_view(loaded)
    t1 = time.process_time()
    html = report_page(view)
    t2 = time.process_time()
    page_path = out / "big.html"
    page_path.write_text(html, encoding="utf-8")
    figures: dict[str, object] = {
        "units": len(view.first),
        "events": len(loaded.events),
        "turns": len(view.lists["keyframes"]) - 1,
        "frames": view.meta["frames"],
        "fold_cpu_s": round(t1 - t0, 2),
        "page_cpu_s": round(t2 - t1, 2),
        "page_mib": round(len(html.encode()) / 2**20, 2),
    }
    with launch() as browser:
        t3 = time.perf_counter()
        with open_page(browser, page_path) as v:
            figures["ready_s"] = round(time.perf_counter() - t3, 2)
            p = v.page
            figures["narrative_items"] = p.locator(".narrative li").count()
            figures["ms_per_event_step"] = round(_timed_keys(p, "ArrowRight", 50), 1)
            figures["ms_per_turn_step"] = round(_timed_keys(p, "PageDown", 10), 1)
            figures["ms_end"] = round(_timed_keys(p, "End", 1), 1)
            figures["ms_home"] = round(_timed_keys(p, "Home", 1), 1)
            figures["narrative_items_at_end"] = p.locator(".narrative li").count()
            figures["console_errors"] = len(v.errors)
    return figures


if __name__ == "__main__":
    main()
