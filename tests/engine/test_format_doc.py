"""docs/replay-format.md describes the format this battlesim writes (its title said 4 when
the writer wrote 5)."""

from __future__ import annotations

import re
import typing
from pathlib import Path

from engine.version import FORMAT_VERSION

DOC = Path(__file__).resolve().parents[2] / "docs" / "replay-format.md"


def test_the_page_is_titled_with_the_format_written_today() -> None:
    title = DOC.read_text(encoding="utf-8").splitlines()[0]
    assert title == f"# Replay file format (format version {FORMAT_VERSION})"


def _sections() -> dict[str, str]:
    """The page's ``### `name` `` sections by name (an event type, or ``Casualties``)."""
    found: dict[str, str] = {}
    for part in re.split(r"\n(?=#{2,3} )", DOC.read_text(encoding="utf-8")):
        named = re.match(r"### `([\w.]+)`", part)
        if named:
            found[named.group(1)] = part
    return found


def _rows(section: str) -> dict[str, str]:
    """Each field a table row names in its first cell (``lcv``, ``hcv`` both), to its row."""
    rows: dict[str, str] = {}
    for line in section.splitlines():
        if line.startswith("| `"):
            for name in re.findall(r"`(\w+)`", line.split("|")[1]):
                rows[name] = line
    return rows


def test_the_musket_event_tables_name_every_field_and_every_choice() -> None:
    """Each musket event class (and ``Casualties``) has its section, a row per field of its
    own, and every value a ``Literal`` field may hold in that row: the page had left out
    four fields of ``meleed``, ``prisoners`` of ``morale_tested``, and reasons added with
    rules version 3 (``fall_back``, ``heavy_losses``, ``charge``…)."""
    from engine.events import Event
    from sim.rulesets.musket.model import events

    sections = _sections()
    classes = [events.Casualties, *events.Event.__subclasses__()]
    musket = [c for c in classes if c.__module__ == events.__name__]
    problems = []
    for cls in musket:
        tag = cls.model_fields["type"].default if "type" in cls.model_fields else cls.__name__
        if tag not in sections:
            problems.append(f"{tag}: no section")
            continue
        rows = _rows(sections[tag])
        for name, field in cls.model_fields.items():
            if name in Event.model_fields:
                continue
            if name not in rows:
                problems.append(f"{tag}.{name}: no row")
                continue
            if "| morale state |" in rows[name]:
                continue  # the states are named once, above the tables
            literal = [a for a in typing.get_args(field.annotation) if isinstance(a, str)]
            inner = [typing.get_args(a) for a in typing.get_args(field.annotation)]
            literal += [v for args in inner for v in args if isinstance(v, str)]
            problems += [f"{tag}.{name}: {v!r}" for v in literal if f'"{v}"' not in rows[name]]
    assert problems == []


def test_the_page_names_every_morale_state() -> None:
    from sim.rulesets.musket.model.events import MoraleState

    text = DOC.read_text(encoding="utf-8")
    named = re.search(r"Morale states\s+are (.*?)\.\n", text, re.DOTALL)
    assert named is not None
    line = named.group(1)
    assert [s for s in typing.get_args(MoraleState) if f'"{s}"' not in line] == []
