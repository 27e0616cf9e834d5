"""Replay format 5 has random derivation 2's dice; formats 1-4 keep derivation 1's, everywhere.

A battle is always fought again with the dice it began with: ``verify``
re-simulates a format 1-4 replay under derivation 1, and ``fork`` of one
writes a format-4 child (the newest format with those dice) that shares the
parent's battle up to the change.  A header claiming the other derivation's
format re-simulates to other dice and never verifies.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine.replayfile import formats
from engine.version import FORMAT_VERSION
from sim import api
from tests.forge import GOLDEN, ROOT, bodies, edit_header, forge, invoke

FIXTURES = ROOT / "tests" / "data" / "replays"
FORMAT4 = sorted(p.name.removesuffix(".format4.jsonl") for p in FIXTURES.glob("*.format4.jsonl"))


def test_each_format_has_its_derivation_and_is_fought_again_in_its_own_dice() -> None:
    """Formats 1-4 hold derivation 1's dice and are re-simulated as format 4; 5 is derivation 2."""
    assert FORMAT_VERSION == 5
    assert [formats.derivation_of(v) for v in formats.FORMATS] == [1, 1, 1, 1, 2]
    assert [formats.resimulation_format(v) for v in formats.FORMATS] == [4, 4, 4, 4, 5]


def test_every_golden_of_format4_is_kept_as_a_fixture() -> None:
    """The seven goldens as format 4 wrote them are fixtures, one per shipped golden."""
    assert sorted(p.stem for p in (ROOT / "replays").glob("*.jsonl")) == FORMAT4


@pytest.mark.parametrize("name", FORMAT4)
def test_a_format4_replay_loads_shows_and_verifies_byte_for_byte(name: str) -> None:
    """A format-4 golden re-simulates under derivation 1, in format 4: byte for byte."""
    path = FIXTURES / f"{name}.format4.jsonl"
    assert api.load_replay(path).replay.header.format_version == 4
    assert invoke("show", str(path)).exit_code == 0
    result = invoke("verify", str(path))
    assert (result.exit_code, result.stdout.endswith("re-simulates byte for byte\n")) == (0, True)


def _first_dice_differ(path: Path) -> str:
    """The mismatch verify names: the first event that drew dice (a musket fire), at its
    first draw's value (``[stream, index, u]``: another derivation, another u), the draws
    named before what they decided."""
    seq = next(e.seq for e in api.load_replay(path).events if e.type == "musket.fired")
    return (
        f"MISMATCH at seq {seq} (line {seq + 2}): event musket.fired differs from "
        "re-simulation in: result.draws.0.2;"
    )


def test_a_format5_replay_claiming_format4_never_verifies(tmp_path: Path) -> None:
    """Derivation 2's dice under a format-4 header (re-chained) re-simulate otherwise: mismatch."""
    path = forge(tmp_path, lambda t: edit_header(t, lambda h: h.update(format_version=4)))
    result = invoke("verify", str(path))
    assert result.exit_code == 1
    assert result.stdout.startswith(_first_dice_differ(path))


def test_a_format4_replay_claiming_format5_never_verifies(tmp_path: Path) -> None:
    """Derivation 1's dice under a format-5 header (re-chained) re-simulate otherwise: mismatch."""
    source = FIXTURES / "stone_wall-s1862.format4.jsonl"
    path = forge(tmp_path, lambda t: edit_header(t, lambda h: h.update(format_version=5)), source)
    result = invoke("verify", str(path))
    assert result.exit_code == 1
    assert result.stdout.startswith(_first_dice_differ(path))


def _failed_check(path: Path) -> int:
    """The seq of the first failed musket morale check in ``path``."""
    loaded = api.load_replay(path)
    return next(e.seq for e in loaded.events if e.type == "musket.morale_tested" and not e.passed)


@pytest.mark.parametrize(("source", "written"), [("format4", 4), ("format3", 4)])
def test_a_fork_of_an_older_replay_keeps_its_dice_and_verifies(
    tmp_path: Path, source: str, written: int
) -> None:
    """A fork of a format 3 or 4 replay is format 4, equal to its parent before the change."""
    parent = FIXTURES / f"stone_wall-s1862.{source}.jsonl"
    at = _failed_check(parent)
    out = tmp_path / "child.jsonl"
    result = invoke(
        "fork", str(parent), "--at", str(at), "--set", "passed=true", "--set", "after=good",
        "--out", str(out),
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert json.loads(out.read_text().split("\n", 1)[0])["format_version"] == written
    before = api.load_replay(parent).events[:at]
    assert api.load_replay(out).events[:at] == before  # same dice up to the change
    assert invoke("verify", str(out)).exit_code == 0


def test_a_fork_of_today_s_replay_is_today_s_format(tmp_path: Path) -> None:
    """A fork of a format-5 replay is format 5, line for line its parent up to the change."""
    at = _failed_check(GOLDEN)
    out = tmp_path / "child.jsonl"
    result = invoke(
        "fork", str(GOLDEN), "--at", str(at), "--set", "passed=true", "--set", "after=good",
        "--out", str(out),
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert json.loads(out.read_text().split("\n", 1)[0])["format_version"] == 5
    assert bodies(out)[1 : at + 1] == bodies(GOLDEN)[1 : at + 1]
    assert invoke("verify", str(out)).exit_code == 0


def test_a_fork_refuses_a_parent_that_is_not_its_own_battle_before_the_change(
    tmp_path: Path,
) -> None:
    """A format-5 replay relabelled 4 (re-chained) forks to other dice: refused, nothing written.

    The child would verify (it is its own battle) while claiming to share its
    parent's battle up to the change; fork compares the prefix as it fights.
    """
    path = forge(tmp_path, lambda t: edit_header(t, lambda h: h.update(format_version=4)))
    at = _failed_check(path)
    first = next(e.seq for e in api.load_replay(path).events if e.type == "musket.fired")
    out = tmp_path / "child.jsonl"
    result = invoke("fork", str(path), "--at", str(at), "--set", "passed=true", "--out", str(out))
    assert result.exit_code == 2
    assert result.output.count("\n") == 1
    assert f"before seq {at}: event {first} (musket.fired) differs in: result" in result.output
    assert sorted(p.name for p in tmp_path.iterdir()) == [path.name]  # no child, no .partial


def test_a_format1_parent_forks_only_before_its_first_snapshot_s_place(tmp_path: Path) -> None:
    """Format 1 had no snapshots: past turn 10's, today's seqs are one higher, so refused."""
    parent = FIXTURES / "stone_wall-s1862.format1.jsonl"
    events = api.load_replay(parent).events
    tenth = next(e.seq for e in events if e.type == "engine.turn_ended" and e.turn == 10)
    late = next(e for e in events if e.seq > tenth + 1 and e.type == "musket.morale_tested")
    flipped = "passed=false" if late.passed else "passed=true"  # type: ignore[attr-defined]
    out = tmp_path / "child.jsonl"
    result = invoke("fork", str(parent), "--at", str(late.seq), "--set", flipped, "-o", str(out))
    assert result.exit_code == 2
    assert result.output == (
        f"battlesim: error: --at {late.seq}: a format-1 replay, written before snapshots, "
        f"forks only before seq {tenth + 1}, where today's re-simulation writes the turn-10 "
        "snapshot it lacks and numbers every later event one higher\n"
    )
    assert not out.exists()
