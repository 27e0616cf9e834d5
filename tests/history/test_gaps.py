"""The known gaps (sim/history/gaps/): cases kept as data while they fail at the defaults.

docs/history.md, *Known gaps*, shows exactly what ``battlesim history --suite
sim/history/gaps`` prints, and this test holds it to that: when a change to the
rules or a set-up moves a gap's figures, the page must say so — and a gap that
closes (exit 0) belongs back in the shipped suite.
"""

from __future__ import annotations

from pathlib import Path

from sim.history import SUITE, load_suite
from tests.batch.helpers import invoke
from tests.readme_examples import console_examples, fenced_blocks

ROOT = Path(__file__).resolve().parents[2]
GAPS = SUITE.parent / "gaps"
COMMAND = "battlesim history --suite sim/history/gaps --jobs 2"


def _doc_example() -> list[str]:
    text = (ROOT / "docs" / "history.md").read_text(encoding="utf-8")
    for lang, start, body in fenced_blocks(text):
        if lang == "text":
            for example in console_examples(start, body):
                if example.command == COMMAND:
                    assert example.expected is not None
                    return example.expected
    raise AssertionError(f"docs/history.md shows no `$ {COMMAND}`")


def test_the_gaps_still_fail_as_the_doc_shows() -> None:
    """Each gap is a valid case with sources, it still fails, and the page prints its table."""
    cases = load_suite(GAPS)
    assert [c.id for c in cases] == ["coral_sea_shoho"]
    assert all(len(m.source.split()) >= 5 for c in cases for m in c.spec.measures)
    result = invoke("history", "--suite", GAPS, "--jobs", "2", "-q")
    assert result.exit_code == 1
    lines = result.stdout.splitlines()
    assert lines[-1] == f"0 of {len(cases)} cases pass."
    assert [x.rstrip() for x in _doc_example()] == [x.rstrip() for x in lines]
