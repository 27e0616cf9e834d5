"""The shipped historical suite passes, and docs/history.md shows exactly what it prints.

One run of ``battlesim history`` (every case, its fixed seeds and run counts, two
workers — the result is the same for any number) serves both checks. It is
deterministic: the same seeds give the same table on every machine.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from sim.history import SUITE, load_suite
from tests.batch.helpers import invoke
from tests.readme_examples import console_examples, fenced_blocks

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "history.md"
COMMAND = "battlesim history --jobs 2"


@pytest.fixture(scope="module")
def printed() -> tuple[int, list[str]]:
    """The shipped suite, fought once: exit code and the lines it printed."""
    result = invoke("history", "--jobs", "2", "-q")
    return result.exit_code, result.stdout.splitlines()


def _doc_example() -> list[str]:
    for lang, start, body in fenced_blocks(DOC.read_text(encoding="utf-8")):
        if lang == "text":  # a console example not run by the docs' runner: it is run here
            for example in console_examples(start, body):
                if example.command == COMMAND:
                    assert example.expected is not None
                    return example.expected
    raise AssertionError(f"docs/history.md shows no `$ {COMMAND}`")


def test_every_shipped_case_passes(printed: tuple[int, list[str]]) -> None:
    """Every case of the shipped suite reproduces the record within its accepted range."""
    code, lines = printed
    cases = load_suite(SUITE)
    assert lines[-1] == f"{len(cases)} of {len(cases)} cases pass."
    assert code == 0
    assert not [line for line in lines if line.rstrip().endswith("FAIL")]


def test_the_doc_shows_what_the_command_prints(printed: tuple[int, list[str]]) -> None:
    """docs/history.md's table, with every source, is the command's output, line for line."""
    assert [line.rstrip() for line in _doc_example()] == [line.rstrip() for line in printed[1]]


def test_every_measure_names_a_source() -> None:
    """Each measure of each shipped case says where its historical value comes from."""
    for case in load_suite(SUITE):
        for m in case.spec.measures:
            assert len(m.source.split()) >= 5, (case.id, m.id)


def test_every_shipped_scenario_states_its_sources() -> None:
    """The scenarios the suite fights say where their figures come from, and none is
    'flavour, not history'."""
    for path in sorted((SUITE / "scenarios").glob("*.yaml")):
        text = path.read_text(encoding="utf-8")
        assert "flavour, not history" not in text, path.name
        assert "Sources" in text or "sources are in their" in text, path.name
