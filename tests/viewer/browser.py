"""Driving a viewer page in headless Chromium (the system's, through Playwright).

Used by the browser tests and by ``make screenshots`` (docs/images/viewer-*.png).
Chromium comes from the system packages (``make test`` installs it where it can:
``.ci/chromium``); Playwright's own browser download is never used.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = ["Loaded", "chromium_path", "launch", "open_page"]

NAMES = ("chromium-headless-shell", "chromium", "chromium-browser", "google-chrome")
"""The first found is used: Debian's headless shell (what Playwright runs headless by default;
the viewer's tests cost 0.81x the CPU they cost in the full browser), else a full Chromium."""


def chromium_path() -> str | None:
    """The system Chromium: ``$BATTLESIM_CHROMIUM`` when set (None unless it names an
    executable file), else the first of NAMES on PATH (as ``.ci/chromium`` looks for it)."""
    named = os.environ.get("BATTLESIM_CHROMIUM")
    if named:
        return named if os.path.isfile(named) and os.access(named, os.X_OK) else None
    return next((p for n in NAMES if (p := shutil.which(n))), None)


@contextmanager
def launch() -> Iterator[Any]:
    """A headless Chromium browser (Playwright pointed at the system binary)."""
    from playwright.sync_api import sync_playwright

    path = chromium_path()
    if path is None:
        raise RuntimeError("no Chromium on this machine: apt-get install chromium-headless-shell")
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=path, args=["--no-sandbox"])
        try:
            yield browser
        finally:
            browser.close()


@dataclass
class Loaded:
    """A page with the viewer started, and every console error and page error it raised."""

    page: Any
    errors: list[str] = field(default_factory=list)


_TABS: dict[int, Any] = {}
"""Each browser's one tab (by the browser's ``id``), which every :func:`open_page` loads."""


def _tab(browser: Any) -> Any:
    """The browser's tab, opened the first time (and again if one was closed).

    A page of its own for each viewer page started a renderer process each time,
    about 0.3 CPU seconds, most of what a browser test costs; a navigation reuses
    the tab's process and makes a new document (its DOM, scripts and timers are the
    new page's alone; the viewer keeps nothing in storage)."""
    tab = _TABS.get(id(browser))
    if tab is None or tab.is_closed() or tab.context.browser is not browser:
        tab = _TABS[id(browser)] = browser.new_page()
    return tab


@contextmanager
def open_page(browser: Any, html: Path, width: int = 1400, height: int = 1000) -> Iterator[Loaded]:
    """Open ``html`` from disk in the browser's tab at this size and wait until the viewer
    says it is ready; the errors heard are this page's alone, and the tab is left blank."""
    page = _tab(browser)
    page.set_viewport_size({"width": width, "height": height})
    loaded = Loaded(page)
    heard = {
        "console": lambda m: loaded.errors.append(m.text) if m.type == "error" else None,
        "pageerror": lambda e: loaded.errors.append(str(e)),
        "request": lambda r: (
            None
            if r.url.startswith(("file:", "data:", "blob:"))
            else loaded.errors.append(f"network request: {r.url}")
        ),
    }
    for event, listener in heard.items():
        page.on(event, listener)
    try:
        page.goto(html.resolve().as_uri())
        page.wait_for_selector("body.ready", timeout=15_000)
        yield loaded
    finally:
        for event, listener in heard.items():
            page.remove_listener(event, listener)
        if not page.is_closed():
            page.goto("about:blank")  # the viewer's document and its timers end here
            page.mouse.move(0, 0)  # where a new page's pointer is: no row of the next hovered
