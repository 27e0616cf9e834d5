"""A musket fork that takes a loss to 0 casualties must take its fatigue with it.

Under the default ``fatigue_from: rounded`` fatigue is drawn from the rounded casualties c,
Uniform(c, 3c): a loss that rounds to 0 takes no fatigue draw and adds none — its
``fatigue_value`` is 0.0 and its ``fatigue_added`` 0 (docs/rules/musket.md, *Fatigue*;
``rules/results.py:_after``), whatever the dice. ``fork --set result.casualties=0`` kept
the event's fatigue (1st Rhode Island's volley at seq 5: 0 casualties, "+24 fatigue"), the
target took 24 fatigue from a loss of no men, and ``verify`` called the fork lawful. A
fork recomputes nothing in the event (docs/replay-tools.md: the rules act on the changed
event as logged), so ``audit_change`` refuses what no dice could make, as it refuses a
flattop attack whose damage its hits do not make: set the fatigue too.
"""

from __future__ import annotations

import json
from pathlib import Path

from engine.log import MemorySink
from sim import api
from sim.replay.file import ReplayLike
from sim.replay.fork import _fork_header
from sim.rulesets.musket.model.events import Fired, Meleed
from sim.rulesets.musket.model.options import MusketOptions
from sim.rulesets.musket.reading.audit import audit, audit_change
from tests.forge import invoke

ROOT = Path(__file__).resolve().parents[2]
STONE_WALL = ROOT / "replays" / "stone_wall-s1862.jsonl"
CHANCELLORSVILLE = ROOT / "replays" / "chancellorsville-s1863.jsonl"
VOLLEY = 5
"""1st Rhode Island Light, Battery A, on Phillips' Legion: 14 casualties, 24.37… fatigue
drawn, 24 added."""
MELEE = 33
"""The 24th Georgia's charge on the 63rd New York: 5 and 4 casualties, 7 and 13 fatigue."""

NO_CHECK = (
    "; 0 casualties require no morale check for the loss (p = c/(c + 25) = 0, no check "
    f"draw): result.morale_check_p must be 0.0, not {14 / (14 + 25)}"
)
"""What else the volley's 14 casualties forked to 0 keep (tests/cli/test_fork_morale_check.py):
the chance of a check, c/(c + 25)."""
KEPT = (
    "0 casualties add no fatigue (fatigue_from: rounded, no fatigue draw): "
    "result.fatigue_value must be 0.0, not 24.37198443550566, and result.fatigue_added 0, "
    "not 24" + NO_CHECK
)
REFUSED = (
    "battlesim: error: --set result.casualties=0: the rules could not make musket.fired "
    f"(seq 5) so: {KEPT}\n"
)
NO_P = "result.morale_check_p=0"
"""The volley's chance of a check, at 0 with its loss (it required none)."""


def _fork(out: Path, *sets: str, replay: Path = STONE_WALL, at: int = VOLLEY) -> list[str]:
    changes = [a for s in sets for a in ("--set", s)]
    result = invoke("fork", str(replay), "--at", str(at), *changes, "--out", str(out))
    return [str(result.exit_code), result.stdout, result.stderr]


def test_a_loss_forked_to_0_keeping_its_fatigue_is_refused(tmp_path: Path) -> None:
    out = tmp_path / "f.jsonl"
    assert _fork(out, "result.casualties=0") == ["2", "", REFUSED]
    assert not out.exists()
    half = _fork(out, "result.casualties=0", "result.fatigue_added=0", NO_P)
    assert half[:2] == ["2", ""]
    assert half[2].endswith(
        "(fatigue_from: rounded, no fatigue draw): result.fatigue_value must be 0.0, "
        "not 24.37198443550566\n"
    )
    assert not out.exists()


def test_a_loss_forked_to_0_with_no_fatigue_is_fought_and_verifies(tmp_path: Path) -> None:
    """The lawful fork: the target takes neither men nor fatigue from the volley (nor the
    chance of a check)."""
    out = tmp_path / "f.jsonl"
    code, stdout, stderr = _fork(
        out, "result.casualties=0", "result.fatigue_value=0", "result.fatigue_added=0", NO_P
    )
    assert (code, stderr) == ("0", ""), stdout + stderr
    fired = json.loads(out.read_text().splitlines()[1 + VOLLEY])["result"]
    assert (fired["casualties"], fired["fatigue_value"], fired["fatigue_added"]) == (0, 0.0, 0)
    parent, child = api.load_replay(STONE_WALL), api.load_replay(out)
    before, after = parent.after(VOLLEY - 1).units["phil"], child.after(VOLLEY).units["phil"]
    assert (after.strength, after.fatigue) == (before.strength, before.fatigue)
    verified = invoke("verify", str(out))
    assert (verified.exit_code, verified.stdout) == (
        0,
        f"OK: {out}: {child.count} events, intact, lawful, re-simulates byte for byte\n",
    )


def _old_fork(tmp_path: Path) -> Path:
    """The fork an older battlesim wrote of ``--at 5 --set result.casualties=0``: the
    volley's 24 fatigue kept."""
    parent = api.load_replay(STONE_WALL)
    header = _fork_header(parent, VOLLEY, {"result.casualties": 0}, {})
    sink = MemorySink()
    parent.ruleset.simulate(parent.scenario, header, sink)
    path = tmp_path / "old.jsonl"
    path.write_text("".join(line + "\n" for line in sink.lines), encoding="utf-8")
    kept = json.loads(path.read_text().splitlines()[1 + VOLLEY])["result"]
    assert (kept["casualties"], kept["fatigue_added"]) == (0, 24)
    return path


def test_verify_finds_a_fork_that_kept_the_fatigue(tmp_path: Path) -> None:
    """verify holds the fork's changed event to audit_change: INVARIANT broken, exit 1."""
    old = _old_fork(tmp_path)
    verified = invoke("verify", str(old))
    assert (verified.exit_code, verified.stdout) == (
        1,
        f"INVARIANT broken at seq 5 (line 7): musket.fired: {KEPT}\n",
    )


def test_a_fork_of_such_a_fork_that_keeps_its_change_is_refused(tmp_path: Path) -> None:
    old, out = _old_fork(tmp_path), tmp_path / "f.jsonl"
    code, stdout, stderr = _fork(out, "state.units.69ny.strength=100", replay=old, at=22)
    assert (code, stdout) == ("2", "")
    assert stderr == (
        "battlesim: error: --at 22: its parent's change at seq 5 (result.casualties=0), which "
        f"this fork keeps: the rules could not make musket.fired (seq 5) so: {KEPT}\n"
    )


def _volley() -> tuple[ReplayLike, Fired]:
    loaded = api.load_replay(STONE_WALL)
    event = loaded.event(VOLLEY)
    assert isinstance(event, Fired)
    return loaded, event


def test_audit_change_holds_the_fatigue_only_where_no_draw_is_taken() -> None:
    """Rounded: 0 casualties add nothing; 3 casualties may add the 24 (no die is held).
    Unrounded, the fatigue is drawn from the value x (14.26), so 0 casualties may add it;
    a value of 0 may not. The live audit holds it too. (A loss of 0 has no chance of a
    check: each is changed with its ``morale_check_p`` at 0.)"""
    loaded, event = _volley()
    sc, state = loaded.scenario, loaded.after(VOLLEY - 1)

    def changed(**fields: object) -> Fired:
        if fields.get("casualties") == 0:
            fields = {"morale_check_p": 0.0, **fields}
        return event.model_copy(update={"result": event.result.model_copy(update=fields)})

    assert audit_change(sc, state, changed(casualties=3)) is None
    zero = changed(casualties=0)
    said = audit_change(sc, state, zero)
    assert said is not None and said.startswith("0 casualties add no fatigue")
    assert audit(sc, state, zero) == said
    lawful = changed(casualties=0, fatigue_value=0.0, fatigue_added=0)
    assert audit_change(sc, state, lawful) is None
    options = MusketOptions(**{**sc.options.model_dump(), "fatigue_from": "unrounded"})
    unrounded = sc.model_copy(update={"options": options})
    assert audit_change(unrounded, state, zero) is None
    assert audit_change(unrounded, state, changed(casualties=0, value=0.0)) == (
        "a casualty value of 0.0 adds no fatigue (fatigue_from: unrounded, no fatigue draw): "
        "result.fatigue_value must be 0.0, not 24.37198443550566, and result.fatigue_added 0, "
        "not 24"
    )


def test_a_melees_losses_are_held_so_too(tmp_path: Path) -> None:
    """Each side's loss in a melee: the defender's forked to 0 keeping its 13 fatigue is
    refused, naming the side; with its fatigue at 0 it is fought and verifies."""
    out = tmp_path / "m.jsonl"
    loaded = api.load_replay(CHANCELLORSVILLE)
    melee = loaded.event(MELEE)
    assert isinstance(melee, Meleed) and melee.defender_losses.fatigue_added == 13
    zero = "defender_losses.casualties=0"
    no_p = "defender_losses.morale_check_p=0"
    code, stdout, stderr = _fork(out, zero, no_p, replay=CHANCELLORSVILLE, at=MELEE)
    assert (code, stdout) == ("2", "")
    assert stderr.startswith(
        "battlesim: error: --set defender_losses.casualties=0, defender_losses.morale_check_p=0: "
        "the rules could not make "
        "musket.meleed (seq 33) so: 0 casualties add no fatigue (fatigue_from: rounded, no "
        "fatigue draw): defender_losses.fatigue_value must be 0.0, not "
    )
    assert stderr.endswith(", and defender_losses.fatigue_added 0, not 13\n")
    fatigue = ("defender_losses.fatigue_value=0", "defender_losses.fatigue_added=0")
    code, stdout, stderr = _fork(out, zero, no_p, *fatigue, replay=CHANCELLORSVILLE, at=MELEE)
    assert (code, stderr) == ("0", ""), stdout + stderr
    assert invoke("verify", str(out)).exit_code == 0
