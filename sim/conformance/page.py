"""Checks of a viewer page as text: well formed, nothing fetched, its embedded data decoded.

The report requirements read pages through these; the viewer's tests use them too.
"""

from __future__ import annotations

import base64
import gzip
import json
import re
from html.parser import HTMLParser
from typing import Any

__all__ = ["NETWORK", "embedded", "well_formed"]

VOID = {"meta", "link", "br", "img", "input", "hr", "wbr", "source", "col", "area"}
NETWORK = re.compile(
    r"""(?:src|href|action|poster)\s*=\s*["']?\s*(?:https?:)?//|\bfetch\s*\(|XMLHttpRequest"""
    r"""|WebSocket|EventSource|sendBeacon|@import|url\(\s*["']?(?:https?:)?//|\bimport\s*\(""",
    re.IGNORECASE,
)


class _Balance(HTMLParser):
    """Every element opened is closed, in order (SVG's self-closed elements count as closed)."""

    def __init__(self) -> None:
        super().__init__()
        self.stack: list[str] = []
        self.problems: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag not in VOID:
            self.stack.append(tag)

    def handle_endtag(self, tag: str) -> None:
        if not self.stack or self.stack[-1] != tag:
            self.problems.append(f"</{tag}> closes {self.stack[-1:]} at {self.getpos()}")
        else:
            self.stack.pop()


def well_formed(page: str) -> list[str]:
    """Problems with the page's element nesting; [] when every element is closed in order."""
    parser = _Balance()
    parser.feed(page)
    parser.close()
    return parser.problems + [f"<{t}> never closed" for t in parser.stack]


def embedded(page: str) -> list[dict[str, Any]]:
    """The battle data embedded in a page, decoded as the page's script decodes it.

    Raises:
        ValueError: a data block whose script type does not fit its encoding.
    """
    out = []
    pattern = r'<script type="([^"]+)" class="battle-data" data-pane="\d+"([^>]*)>(.*?)</script>'
    for kind, attrs, body in re.findall(pattern, page, re.DOTALL):
        if 'data-encoding="gzip+base64"' in attrs:
            if kind != "text/plain":
                raise ValueError(f"gzip+base64 battle data in a {kind!r} script")
            out.append(json.loads(gzip.decompress(base64.b64decode(body))))
        else:
            if kind != "application/json":
                raise ValueError(f"JSON battle data in a {kind!r} script")
            out.append(json.loads(body))
    return out
