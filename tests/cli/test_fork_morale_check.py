"""A musket fork that takes a loss to 0 casualties must take its morale check with it.

A loss of c casualties requires a morale check with p = c/(c + 25), one draw when c > 0
(docs/rules/musket.md, *Morale checks*; ``rules/results.py:_after``): a loss of 0 takes no
draw, its ``morale_check_p`` is 0.0 and no check is required for it — not for the loss
(``loss``) nor for heavy losses (``heavy_losses``, which counts men lost). The one check a
loss of 0 can require is a unit's at maximum fatigue that takes fatigue (``max_fatigue``,
only with ``fatigue_from: unrounded``, which draws fatigue from the casualty value), and
then it must. ``fork --set result.casualties=0`` (with its fatigue at 0) kept the 24th
Georgia's volley's check at seq 7: the 63rd New York checked morale "for the loss" of no
men, and ``verify`` called the fork lawful. ``audit_change`` now refuses it, naming the
fields, as it refuses the fatigue such a loss keeps (tests/cli/test_fork_fatigue.py).
"""

from __future__ import annotations

import json
from pathlib import Path

from engine.log import MemorySink
from sim import api
from sim.replay.fork import _fork_header
from sim.rulesets.musket.model.events import Fired, Meleed
from sim.rulesets.musket.model.options import MusketOptions
from sim.rulesets.musket.reading.audit import audit, audit_change
from tests.forge import invoke

ROOT = Path(__file__).resolve().parents[2]
STONE_WALL = ROOT / "replays" / "stone_wall-s1862.jsonl"
CHANCELLORSVILLE = ROOT / "replays" / "chancellorsville-s1863.jsonl"
VOLLEY = 7
"""The 24th Georgia's volley on the 63rd New York: 28 casualties, a check for the loss (the
63rd checks at seq 8)."""
MELEE = 55
"""Cobb's charge on the 69th New York: the 69th loses 8 and checks for heavy losses."""
NO_FATIGUE = ("result.casualties=0", "result.fatigue_value=0", "result.fatigue_added=0")


def _fork(out: Path, *sets: str, replay: Path = STONE_WALL, at: int = VOLLEY) -> list[str]:
    changes = [a for s in sets for a in ("--set", s)]
    result = invoke("fork", str(replay), "--at", str(at), *changes, "--out", str(out))
    return [str(result.exit_code), result.stdout, result.stderr]


def _p(casualties: int) -> float:
    """The seed's chance of a check, c/(c + 25)."""
    return casualties / (casualties + 25.0)


def test_a_loss_forked_to_0_keeping_its_check_is_refused(tmp_path: Path) -> None:
    out = tmp_path / "f.jsonl"
    volley = api.load_replay(STONE_WALL).event(VOLLEY)
    assert isinstance(volley, Fired) and volley.result.casualties == 28
    assert volley.result.morale_check_reason == "loss"
    assert _fork(out, *NO_FATIGUE) == [
        "2",
        "",
        "battlesim: error: --set result.casualties=0, result.fatigue_value=0, "
        "result.fatigue_added=0: the rules could not make musket.fired (seq 7) so: 0 "
        "casualties require no morale check for the loss (p = c/(c + 25) = 0, no check "
        f"draw): result.morale_check_p must be 0.0, not {_p(28)}, and result.morale_check "
        "false, not true, and result.morale_check_reason null, not loss\n",
    ]
    assert not out.exists()


def test_its_fatigue_and_its_check_are_named_in_one_line(tmp_path: Path) -> None:
    """``result.casualties=0`` alone: both what the fatigue and what the check must be."""
    out = tmp_path / "f.jsonl"
    code, stdout, stderr = _fork(out, "result.casualties=0", at=5)
    assert (code, stdout) == ("2", "")
    assert stderr == (
        "battlesim: error: --set result.casualties=0: the rules could not make musket.fired "
        "(seq 5) so: 0 casualties add no fatigue (fatigue_from: rounded, no fatigue draw): "
        "result.fatigue_value must be 0.0, not 24.37198443550566, and result.fatigue_added "
        "0, not 24; 0 casualties require no morale check for the loss (p = c/(c + 25) = 0, "
        f"no check draw): result.morale_check_p must be 0.0, not {_p(14)}\n"
    )


def test_a_loss_forked_to_0_with_no_check_is_fought_and_verifies(tmp_path: Path) -> None:
    """The lawful fork: no check follows the volley (the parent's check at seq 8 is gone)."""
    out = tmp_path / "f.jsonl"
    checks = ("result.morale_check_p=0", "result.morale_check=false")
    code, stdout, stderr = _fork(out, *NO_FATIGUE, *checks, "result.morale_check_reason=null")
    assert (code, stderr) == ("0", ""), stdout + stderr
    child = api.load_replay(out)
    assert [e.seq for e in child.iter_events() if getattr(e, "cause", None) == VOLLEY] == []
    assert api.load_replay(STONE_WALL).event(VOLLEY + 1).cause == VOLLEY
    verified = invoke("verify", str(out))
    assert (verified.exit_code, verified.stdout) == (
        0,
        f"OK: {out}: {child.count} events, intact, lawful, re-simulates byte for byte\n",
    )


def test_a_melees_loss_is_held_so_too(tmp_path: Path) -> None:
    """The 69th's 8 men forked to 0 cannot leave it checking for heavy losses."""
    out = tmp_path / "m.jsonl"
    melee = api.load_replay(CHANCELLORSVILLE).event(MELEE)
    assert isinstance(melee, Meleed) and melee.defender_losses.casualties == 8
    assert melee.defender_losses.morale_check_reason == "heavy_losses"
    zero = [f"defender_losses.{s.removeprefix('result.')}" for s in NO_FATIGUE]
    code, stdout, stderr = _fork(out, *zero, replay=CHANCELLORSVILLE, at=MELEE)
    assert (code, stdout) == ("2", "")
    assert stderr.endswith(
        "the rules could not make musket.meleed (seq 55) so: 0 casualties require no morale "
        "check for the loss (p = c/(c + 25) = 0, no check draw): "
        f"defender_losses.morale_check_p must be 0.0, not {_p(8)}, and "
        "defender_losses.morale_check false, not true, and "
        "defender_losses.morale_check_reason null, not heavy_losses\n"
    )
    checks = ("morale_check_p=0", "morale_check=false", "morale_check_reason=null")
    zero += [f"defender_losses.{s}" for s in checks]
    code, stdout, stderr = _fork(out, *zero, replay=CHANCELLORSVILLE, at=MELEE)
    assert (code, stderr) == ("0", ""), stdout + stderr
    assert invoke("verify", str(out)).exit_code == 0


def test_verify_finds_a_fork_that_kept_the_check(tmp_path: Path) -> None:
    """The fork an older battlesim wrote, its fatigue at 0 and its check kept: INVARIANT
    broken at the changed event, exit 1."""
    parent = api.load_replay(STONE_WALL)
    change = {"result.casualties": 0, "result.fatigue_value": 0, "result.fatigue_added": 0}
    sink = MemorySink()
    parent.ruleset.simulate(parent.scenario, _fork_header(parent, VOLLEY, change, {}), sink)
    old = tmp_path / "old.jsonl"
    old.write_text("".join(line + "\n" for line in sink.lines), encoding="utf-8")
    assert json.loads(sink.lines[1 + VOLLEY + 1])["cause"] == VOLLEY  # the check still taken
    verified = invoke("verify", str(old))
    assert (verified.exit_code, verified.stdout) == (
        1,
        "INVARIANT broken at seq 7 (line 9): musket.fired: 0 casualties require no morale "
        f"check for the loss (p = c/(c + 25) = 0, no check draw): result.morale_check_p must "
        f"be 0.0, not {_p(28)}, and result.morale_check false, not true, and "
        "result.morale_check_reason null, not loss\n",
    )


def test_at_maximum_fatigue_a_loss_of_0_that_takes_fatigue_must_check() -> None:
    """Unrounded, a loss of 0 with a casualty value above 0 draws fatigue; a target at
    maximum fatigue (900) then checks, ``max_fatigue``, as ``_after`` requires (no draw,
    p 0). Rounded, the same loss adds no fatigue and requires no check. The live audit
    holds the same."""
    loaded = api.load_replay(STONE_WALL)
    event, sc = loaded.event(VOLLEY), loaded.scenario
    assert isinstance(event, Fired)
    state = loaded.after(VOLLEY - 1)
    state.units["63ny"].fatigue = sc.options.fatigue_max
    options = MusketOptions(**{**sc.options.model_dump(), "fatigue_from": "unrounded"})
    unrounded = sc.model_copy(update={"options": options})

    def changed(**fields: object) -> Fired:
        zero = {"casualties": 0, "morale_check_p": 0.0, **fields}
        return event.model_copy(update={"result": event.result.model_copy(update=zero)})

    assert audit_change(unrounded, state, changed()) == (
        "0 casualties require no morale check for the loss (p = c/(c + 25) = 0, no check "
        "draw; 63ny is at maximum fatigue and takes fatigue: max_fatigue): "
        "result.morale_check_reason must be max_fatigue, not loss"
    )
    assert audit_change(unrounded, state, changed(morale_check_reason="max_fatigue")) is None
    none = changed(morale_check=False, morale_check_reason=None)
    said = audit_change(unrounded, state, none)
    assert said is not None and said.endswith(
        ": result.morale_check must be true, not false, and result.morale_check_reason "
        "max_fatigue, not null"
    )
    assert audit(unrounded, state, none) == said
    rounded = changed(fatigue_value=0.0, fatigue_added=0, morale_check_reason="max_fatigue")
    assert audit_change(sc, state, rounded) == (
        "0 casualties require no morale check for the loss (p = c/(c + 25) = 0, no check "
        "draw): result.morale_check must be false, not true, and result.morale_check_reason "
        "null, not max_fatigue"
    )
