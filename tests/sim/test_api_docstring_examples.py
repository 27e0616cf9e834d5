"""The docstring examples of the Python API run as a notebook would run them.

``sim.api``'s examples are marked ``+SKIP`` (they write files), so doctest never ran them:
the fork at seq 39 of seed 7 forked a volley, not a morale check, and ``ReplayFile``'s
example promised 125 events of a 48-event golden.
"""

from __future__ import annotations

import doctest
import os
from pathlib import Path

import pytest

import sim.api
import sim.replay.file

ROOT = Path(__file__).resolve().parents[2]


def _run(source: str, scope: dict[str, object]) -> object:
    """One example as a notebook cell runs it: an expression's value, else None."""
    try:
        code = compile(source, "<docstring>", "eval")
    except SyntaxError:
        exec(compile(source, "<docstring>", "exec"), scope)
        return None
    return eval(code, scope)


def test_the_api_module_examples_run_in_order_each_as_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every example of ``sim.api``'s docstring runs (its /tmp/ paths in a scratch folder),
    and the last says where the fork and its parent part: at the fork's own seq, 58."""
    monkeypatch.chdir(ROOT)  # the example names scenarios/stone_wall.yaml from the checkout
    examples = doctest.DocTestParser().get_examples(sim.api.__doc__ or "")
    scope: dict[str, object] = {}
    values = [_run(e.source.replace("/tmp/", f"{tmp_path}{os.sep}"), scope) for e in examples]
    assert len(values) == 7
    assert values[-1] == 58


def test_the_replay_file_example_holds(monkeypatch: pytest.MonkeyPatch) -> None:
    """``sim.replay.file``'s doctest gives the golden's own count and last turn, (48, 2)."""
    monkeypatch.chdir(ROOT)
    result = doctest.testmod(sim.replay.file)
    assert (result.attempted, result.failed) == (3, 0)
