"""docs/rules/musket.md's *Every fit at a glance* has a row for every fit's protocol, in the
order the protocols stand in the page, and its counts are the table's: a fit added without
its row, or a row whose fit was renamed, fails here."""

from __future__ import annotations

import re
from pathlib import Path

PAGE = Path(__file__).resolve().parents[1] / "docs" / "rules" / "musket.md"
PROTOCOL = re.compile(r"^#### (.*): the protocol, fixed before any run", re.M)


def _ledger(text: str) -> list[list[str]]:
    start = text.index("### Every fit at a glance")
    section = text[start : text.index("\n### ", start + 1)]
    rows = [line for line in section.splitlines() if re.match(r"\| \d+ \|", line)]
    return [[cell.strip() for cell in row.strip("|").split("|")] for row in rows]


def test_every_protocol_has_its_row_in_order() -> None:
    text = PAGE.read_text(encoding="utf-8")
    rows = _ledger(text)
    assert [r[2] for r in rows] == [f"*{title}*" for title in PROTOCOL.findall(text)]
    assert [int(r[0]) for r in rows] == list(range(1, len(rows) + 1))


PENDING = "pending: protocol committed, not yet run"
"""The outcome of a fit whose protocol is committed and whose run is still to come: its row
stands from the protocol's commit, and only the last row may be pending."""


def test_only_the_last_fit_may_be_pending() -> None:
    rows = _ledger(PAGE.read_text(encoding="utf-8"))
    assert all(r[7] != PENDING for r in rows[:-1])


def test_the_summary_counts_are_the_tables() -> None:
    """The fits, the adoptions (a bold outcome) and those kept at the neutral."""
    text = PAGE.read_text(encoding="utf-8")
    rows = [r for r in _ledger(text) if r[7] != PENDING]
    adopted = [r for r in rows if r[7].startswith("**v")]
    kept = [r for r in rows if r[7] == "neutral"]
    assert len(adopted) + len(kept) == len(rows)
    assert [r[7].split(":")[0] for r in adopted] == ["**v4**", "**v4**", "**v5**", "**v6**",
                                                     "**v7**", "**v8**"]  # fmt: skip
    assert f"**{len(rows)} fits," in text
    assert (
        f"Six fits changed a default (rules versions 4 to 8);\n  the other {len(kept)} kept" in text
    )
