"""Write the viewer screenshots that docs/viewer.md shows: ``make screenshots``.

Each page is a golden replay's (or a fork's) report, driven in headless
Chromium to a moment worth showing.  Run from the repository root.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from sim import api  # noqa: E402
from sim.replay.fork import fork, parse_assignment  # noqa: E402
from sim.replay.report import write_diff, write_report  # noqa: E402
from sim.rulesets.musket.model.events import MoraleTested  # noqa: E402
from tests.viewer.browser import launch, open_page  # noqa: E402

OUT = ROOT / "docs" / "images"


def _turn_end(page: Any, presses: int) -> None:
    page.keyboard.press("Home")
    for _ in range(presses):
        page.keyboard.press("PageDown")


def _shot(browser: Any, html: Path, name: str, steps: Any, out: Path) -> Path:
    with open_page(browser, html, height=1400) as v:
        steps(v.page)
        path = out / f"viewer-{name}.png"
        v.page.screenshot(path=str(path))
        if v.errors:
            raise RuntimeError(f"{name}: {v.errors}")
    return path


def shots(out: Path = OUT) -> list[Path]:
    """Write every screenshot into ``out``; return their paths."""
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="viewer-shots-") as pages_dir:  # the pages shot
        return _shots(out, Path(pages_dir))


def _shots(out: Path, tmp: Path) -> list[Path]:
    pages = {}
    for stem in ("stone_wall-s1862", "tavern_brawl-s377", "coral_sea-s1942"):
        pages[stem] = tmp / f"{stem}.html"
        write_report(api.load_replay(ROOT / "replays" / f"{stem}.jsonl"), pages[stem])
    parent = api.load_replay(ROOT / "replays" / "stone_wall-s1862.jsonl")
    check = next(  # the 69th New York's first failed morale check: it holds
        e
        for e in parent.events
        if isinstance(e, MoraleTested) and e.unit == "69ny" and not e.passed
    )
    sets = [parse_assignment(s) for s in ("passed=true", f"after={check.before}")]
    held = fork(parent, check.seq, sets, tmp / "held.jsonl")
    write_report(api.load_replay(held), tmp / "held.html", parent=parent)  # its outcome too
    write_diff(parent, api.load_replay(held), tmp / "diff.html")

    def musket(page: Any) -> None:
        _turn_end(page, 4)
        page.click('.units-table tr[data-unit="69ny"]')

    def becmi(page: Any) -> None:
        _turn_end(page, 2)
        page.click(".narrative li[data-i]:nth-child(2)")

    def flattop(page: Any) -> None:
        page.keyboard.press("Home")
        for _ in range(5):
            page.keyboard.press("ArrowRight")

    def charts(page: Any) -> None:
        _turn_end(page, 6)
        page.locator(".charts").scroll_into_view_if_needed()

    def whatif(page: Any) -> None:
        _turn_end(page, 3)

    def diff(page: Any) -> None:
        page.keyboard.press("PageDown")
        page.keyboard.press("PageDown")

    with launch() as browser:
        return [
            _shot(browser, pages["stone_wall-s1862"], "musket", musket, out),
            _shot(browser, pages["tavern_brawl-s377"], "becmi", becmi, out),
            _shot(browser, pages["coral_sea-s1942"], "flattop", flattop, out),
            _shot(browser, pages["stone_wall-s1862"], "charts", charts, out),
            _shot(browser, tmp / "held.html", "whatif", whatif, out),
            _shot(browser, tmp / "diff.html", "diff", diff, out),
        ]


if __name__ == "__main__":
    for p in shots():
        print(f"wrote {p.relative_to(ROOT)}")
