"""``show --unit`` holds memory flat in a replay's length in turns (issue 31).

A replay long in turns (a real header, then one ``engine.turn_ended`` a turn,
correctly chained: ``benchmarks/long_turns.py``) is shown unit by unit at two
lengths, 4x apart, both past the rows held in memory (lowered to 100 here, so
the test stays small); the traced peak (tracemalloc, not seconds) of the
longer one may exceed the shorter's by far less than one row a turn would
take.  The table it prints is the one the whole-table path prints.
"""

from __future__ import annotations

import json
import sys
import tracemalloc
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import click
import pytest

from sim.cli import common as common_module
from sim.cli.battles import show as show_module
from sim.cli.battles.table import stream_table, table
from sim.contract import get_ruleset
from sim.replay.file import ReplayFile
from sim.rulesets import trusted

ROOT = Path(__file__).resolve().parents[2]
UNIT = "1ri"
"""A unit of the stone-wall golden, whose header the long replays carry."""


def write_long(path: Path, turns: int) -> Path:
    """A replay of ``turns`` turns in which nothing changes (benchmarks/long_turns.py)."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        from long_turns import write_long_turns  # type: ignore[import-not-found]  # benchmarks/
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))
    write_long_turns(path, turns)
    return path


def _peak(path: Path, as_json: bool, monkeypatch: pytest.MonkeyPatch) -> tuple[int, list[str]]:
    """The traced peak of ``show --unit`` on ``path``, and its first and last output lines."""
    out: list[str] = []

    def keep(text: str = "", nl: bool = True) -> None:
        if len(out) < 3:
            out.append(text)
        else:
            out[-1] = text  # only the first lines and the last are kept: output is not memory

    monkeypatch.setattr(click, "echo", keep)
    monkeypatch.setattr(common_module, "say", keep)
    loaded = ReplayFile(path)
    tracemalloc.start()
    try:
        show_module._history(loaded, UNIT, None, as_json)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    return peak, out


def rows_checked_once(path: Path) -> None:
    """Build the rows of the one state every turn of ``path`` holds (the header's scenario's
    initial state: the turns only end) with the suite's trusted-row check on: each row
    built trusted must be what validating it makes (:mod:`sim.rulesets.trusted`)."""
    header = ReplayFile(path).header
    ruleset = get_ruleset(header.ruleset)
    scenario = ruleset.scenario_model.model_validate(header.scenario)
    assert trusted.CHECK_TRUSTED
    rows = ruleset.units(scenario, ruleset.initial_state(scenario))
    assert UNIT in [r.id for r in rows]
    ruleset.outcome(scenario, ruleset.initial_state(scenario))  # the outcome is built trusted too


@pytest.mark.parametrize("as_json", [False, True], ids=["table", "json"])
def test_show_unit_peak_does_not_grow_with_turns(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, as_json: bool
) -> None:
    """1,000 and 4,000 turns: the peaks differ by under 1 MiB (a row a turn held: ~5 MiB).

    Every turn's rows are the rows of one state, checked against validation once here;
    the 5,000 builds of those same rows are not checked again (that one check, repeated
    every turn under tracemalloc, was about nine tenths of this file's CPU)."""
    monkeypatch.setattr(show_module, "_KEEP", 100)
    short = write_long(tmp_path / "short.jsonl", 1000)
    long = write_long(tmp_path / "long.jsonl", 4000)
    rows_checked_once(short)
    monkeypatch.setattr(trusted, "CHECK_TRUSTED", False)
    small, _ = _peak(short, as_json, monkeypatch)
    large, lines = _peak(long, as_json, monkeypatch)
    assert large - small < 1024 * 1024, (small, large)
    if as_json:
        assert lines[-1].endswith(f'], "unit": "{UNIT}"}}')
    else:
        assert lines[-1].split()[0] == "4000"  # the last turn's row was printed


def test_long_json_history_is_the_json_echo_json_prints(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Streamed row by row, the JSON of a long history is byte for byte the one-object dump."""
    path = write_long(tmp_path / "r.jsonl", 50)
    monkeypatch.setattr(show_module, "_KEEP", 10)  # 51 rows: the streamed path
    printed: list[str] = []
    monkeypatch.setattr(
        click, "echo", lambda t="", nl=True: printed.append(t + ("\n" if nl else ""))
    )
    show_module._history(ReplayFile(path), UNIT, None, as_json=True)
    streamed = "".join(printed)
    data = json.loads(streamed)
    assert [r["turn"] for r in data["rows"]] == list(range(51))
    assert streamed == json.dumps(data, sort_keys=True) + "\n"


def _rows() -> list[dict[str, Any]]:
    """Rows with a late new column, a missing cell, text and numbers of varied width."""
    rows: list[dict[str, Any]] = [
        {"turn": t, "name": "x" * (t % 7), "n": t * 1.5} for t in range(30)
    ]
    rows[17]["late"] = "wide value"
    del rows[23]["name"]
    rows[25]["n"] = "text"
    return rows


@pytest.mark.parametrize("keep", [0, 5, 29, 30, 100])
def test_stream_table_prints_the_table_table_prints(keep: int) -> None:
    """Held or measured in a first pass, the streamed table is line for line table()'s."""
    rows = _rows()
    calls = 0

    def again() -> Iterator[dict[str, Any]]:
        nonlocal calls
        calls += 1
        return iter(rows)

    assert list(stream_table(again, keep=keep)) == table(rows)
    assert calls == (1 if len(rows) <= keep else 2)
