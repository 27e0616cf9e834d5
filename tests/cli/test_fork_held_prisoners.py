"""A musket fork that makes a routing morale check hold must give back its prisoners.

With option ``rout_prisoners_share`` a unit that routs next to an enemy loses a share of
its men as the check's ``prisoners`` (``rules/morale.py:rout_prisoners``); a check that
does not rout the unit takes none (the live audit: ``gave up … without routing``).
``fork --at 35 --set passed=true --set after=good`` on the golden Quatre Bras, the 61e
Ligne's heavy-losses check that routed it with 94 men taken, kept the 94: the fork's
narrative read "passes, 94 men taken prisoner", the regiment that held lost them anyway,
and ``verify`` called the fork lawful. ``audit_change`` now refuses it, naming the field.
"""

from __future__ import annotations

from pathlib import Path

from sim import api
from sim.replay import lineage
from sim.rulesets.musket.model.events import Meleed, MoraleTested
from tests.forge import invoke

ROOT = Path(__file__).resolve().parents[2]
QUATRE_BRAS = ROOT / "replays" / "napoleonic_brigade-s1815.jsonl"
CHECK = 35
"""The 61e Ligne's heavy-losses check: rolled 6 against 3, routed, 94 men taken prisoner."""


def _fork(out: Path, *sets: str) -> list[str]:
    changes = [a for s in sets for a in ("--set", s)]
    result = invoke("fork", str(QUATRE_BRAS), "--at", str(CHECK), *changes, "--out", str(out))
    return [str(result.exit_code), result.stdout, result.stderr]


def test_a_routing_check_forked_to_hold_keeping_its_prisoners_is_refused(tmp_path: Path) -> None:
    check = api.load_replay(QUATRE_BRAS).event(CHECK)
    assert isinstance(check, MoraleTested)
    assert (check.unit, check.after, check.prisoners) == ("61l", "routed", 94)
    out = tmp_path / "held.jsonl"
    assert _fork(out, "passed=true", "after=good") == [
        "2",
        "",
        'battlesim: error: --set passed=true, after="good": the rules could not make '
        "musket.morale_tested (seq 35) so: 61l does not rout in this check (good -> good), "
        "so it gives up no prisoners: prisoners must be 0, not 94\n",
    ]
    assert not out.exists()


def test_the_check_held_with_its_prisoners_given_back_forks_and_verifies(tmp_path: Path) -> None:
    out = tmp_path / "held.jsonl"
    code, stdout, _ = _fork(out, "passed=true", "after=good", "prisoners=0")
    assert code == "0", stdout
    held = api.load_replay(out)
    assert held.event(CHECK).prisoners == 0
    assert api.verify_replay(out).ok


def test_a_check_that_still_routs_keeps_its_prisoners() -> None:
    """Only a check that no longer routs is refused: one whose roll and verdict change with
    the rout kept (the dice are free in a fork) keeps its 94 prisoners, as does the live
    check; one that gives up more men than the unit has is refused too."""
    loaded = api.load_replay(QUATRE_BRAS)
    check = loaded.event(CHECK)
    assert lineage.audit_problem(loaded, check) is None
    rolled = lineage.with_fields(check, {"roll": 5})
    assert lineage.audit_problem(loaded, rolled) is None
    unit = loaded.after(CHECK - 1).units["61l"]
    too_many = lineage.with_fields(check, {"prisoners": unit.strength + 1})
    assert lineage.audit_problem(loaded, too_many) == (
        f"61l gives up {unit.strength + 1} prisoners, more than the {unit.strength} men it has"
    )


CHANCELLORSVILLE = ROOT / "replays" / "chancellorsville-s1863.jsonl"
MELEE = 55
"""Cobb's Legion charges the 69th New York: routed, 24 men taken prisoner."""


def test_a_negative_count_of_men_taken_is_refused(tmp_path: Path) -> None:
    """A negative ``prisoners`` or ``pursuit_losses`` gave the unit men it never had: the
    69th New York's fork with ``prisoners=-50`` ended at 146 of its 141 men, -5 lost, and
    ``verify`` called it lawful. Each is refused, naming the field, and nothing written."""
    melee = api.load_replay(CHANCELLORSVILLE).event(MELEE)
    assert isinstance(melee, Meleed)
    assert (melee.target, melee.prisoners) == ("69ny", 24)
    out = tmp_path / "f.jsonl"
    for at, source, field, value, kind in (
        (MELEE, CHANCELLORSVILLE, "prisoners", -50, "meleed"),
        (MELEE, CHANCELLORSVILLE, "pursuit_losses", -50, "meleed"),
        (CHECK, QUATRE_BRAS, "prisoners", -5, "morale_tested"),
    ):
        change = f"{field}={value}"
        result = invoke("fork", str(source), "--at", str(at), "--set", change, "--out", str(out))
        assert [result.exit_code, result.stdout, result.stderr] == [
            2,
            "",
            f"battlesim: error: --set {change}: the rules could not make musket.{kind} "
            f"(seq {at}) so: {field} cannot be negative ({value}): it counts men (guns, for a "
            "battery) lost\n",
        ]
        assert not out.exists()


def test_the_audit_that_verify_runs_refuses_a_negative_count(
    tmp_path: Path,
) -> None:
    """A fork an older battlesim wrote with one is no lawful battle: the audit, which
    ``verify`` runs on every event, says why."""
    loaded = api.load_replay(CHANCELLORSVILLE)
    negative = lineage.with_fields(loaded.event(MELEE), {"prisoners": -50})
    assert lineage.audit_problem(loaded, negative) == (
        "prisoners cannot be negative (-50): it counts men (guns, for a battery) lost"
    )


def _left(loaded: api.LoadedReplay) -> int:
    """The 69th New York's men after the melee's casualties: its strength before the
    melee less the casualties the melee event records for it."""
    melee = loaded.event(MELEE)
    assert isinstance(melee, Meleed)
    return loaded.after(MELEE - 1).units["69ny"].strength - melee.defender_losses.casualties


def test_more_men_taken_than_the_loser_has_left_is_refused(tmp_path: Path) -> None:
    """``prisoners=99999`` (or ``pursuit_losses``) on a melee was taken as the loser's
    whole strength, the narrative said 99999 and ``verify`` called the fork lawful: the
    two together may not pass the men the loser has after its melee casualties (96)."""
    loaded = api.load_replay(CHANCELLORSVILLE)
    left = _left(loaded)
    assert left == 104 - 8
    out = tmp_path / "f.jsonl"
    for changes, taken in (
        (["prisoners=99999"], "99999 prisoners"),
        (["pursuit_losses=99999"], "99999 men to the pursuit and 24 prisoners"),
        ([f"prisoners={left + 1}"], f"{left + 1} prisoners"),
        ([f"pursuit_losses={left - 23}"], f"{left - 23} men to the pursuit and 24 prisoners"),
    ):
        sets = [a for c in changes for a in ("--set", c)]
        result = invoke("fork", str(CHANCELLORSVILLE), "--at", str(MELEE), *sets, "--out", str(out))
        assert [result.exit_code, result.stdout, result.stderr] == [
            2,
            "",
            f"battlesim: error: --set {', '.join(changes)}: the rules could not make "
            f"musket.meleed (seq {MELEE}) so: 69ny gives up {taken}, more than the {left} men "
            "it has after losing 8 in the melee\n",
        ]
        assert not out.exists()


def test_every_man_left_may_be_taken(tmp_path: Path) -> None:
    """The bound is what the rules can take: all the loser has left, as pursuit and
    prisoners together, forks and verifies."""
    left = _left(api.load_replay(CHANCELLORSVILLE))
    for i, change in enumerate((f"prisoners={left}", f"pursuit_losses={left - 24}")):
        out = tmp_path / f"f{i}.jsonl"
        result = invoke(
            "fork", str(CHANCELLORSVILLE), "--at", str(MELEE), "--set", change, "--out", str(out)
        )
        assert result.exit_code == 0, result.stderr
        assert api.verify_replay(out).ok


def test_the_audit_that_verify_runs_refuses_more_men_than_are_left() -> None:
    """A fork an older battlesim wrote with such a count fails ``verify``: the audit it
    runs on every event says why."""
    loaded = api.load_replay(CHANCELLORSVILLE)
    taken = lineage.with_fields(loaded.event(MELEE), {"prisoners": 99999})
    assert lineage.audit_problem(loaded, taken) == (
        "69ny gives up 99999 prisoners, more than the 96 men it has after losing 8 in the melee"
    )
