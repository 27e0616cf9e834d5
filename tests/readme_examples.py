"""README examples: the fenced ``console`` and ``sh`` blocks, as commands to run.

The scheme (documented in README.md, "How the examples are tested"):

* a ```` ```console ```` block holds ``$ command`` lines, each followed by
  its expected output; a line ``…`` in the expected output stands for any
  lines (one or more) left out;
* a ```` ```sh ```` block holds commands only (``# comments`` are dropped,
  a trailing ``\\`` continues a line); each must exit 0 (``diff``: 0 or 1).
  Lines starting with ``make`` are not run (``make test`` is what runs the test);
* a ```` ```python ```` block runs as one script and must exit 0.

Commands run with bash, in order, in one scratch directory holding copies of
``scenarios/``, ``replays/`` and ``docs/``, with battlesim on ``PATH``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

__all__ = ["Example", "console_examples", "examples", "fenced_blocks", "matches"]

FENCE = re.compile(r"^```(\w*)\s*$")


@dataclass
class Example:
    """One command, where it is in the README, and its expected output (console) or None (sh)."""

    line: int
    command: str
    expected: list[str] | None = field(default=None)


def fenced_blocks(text: str) -> list[tuple[str, int, list[str]]]:
    out: list[tuple[str, int, list[str]]] = []
    lang, start, body = None, 0, []
    for n, line in enumerate(text.splitlines(), 1):
        fence = FENCE.match(line)
        if fence and lang is None:
            lang, start, body = fence.group(1), n + 1, []
        elif line.strip() == "```" and lang is not None:
            out.append((lang, start, body))
            lang = None
        elif lang is not None:
            body.append(line)
    return out


def console_examples(start: int, body: list[str]) -> list[Example]:
    found: list[Example] = []
    for k, line in enumerate(body):
        if line.startswith("$ "):
            found.append(Example(start + k, line[2:], []))
        elif found and found[-1].expected is not None:
            found[-1].expected.append(line)
    return found


def _sh(start: int, body: list[str]) -> list[Example]:
    found: list[Example] = []
    pending = ""
    for k, raw in enumerate(body):
        line = re.sub(r"\s+#\s.*$", "", raw).rstrip()
        if not line or line.lstrip().startswith("#"):
            continue
        if line.endswith("\\"):
            pending += line[:-1] + " "
            continue
        command = (pending + line.strip()).strip()
        pending = ""
        if not command.startswith("make"):
            found.append(Example(start + k, command))
    return found


def examples(readme: Path) -> list[Example]:
    """Every runnable example of ``readme``, in order."""
    found: list[Example] = []
    for lang, start, body in fenced_blocks(readme.read_text(encoding="utf-8")):
        if lang == "console":
            found += console_examples(start, body)
        elif lang == "sh":
            found += _sh(start, body)
        elif lang == "python":
            found.append(Example(start, "python - <<'README'\n" + "\n".join(body) + "\nREADME"))
    return found


def matches(expected: list[str], actual: list[str]) -> bool:
    """True when ``actual`` is ``expected`` with each ``…`` line standing for 1+ lines."""
    if not expected:
        return not actual
    head, rest = expected[0], expected[1:]
    if head.strip() == "…":
        return any(matches(rest, actual[k:]) for k in range(1, len(actual) + 1))
    return bool(actual) and actual[0].rstrip() == head.rstrip() and matches(rest, actual[1:])
