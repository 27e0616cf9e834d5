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

import pytest

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


def _left(loaded: api.LoadedReplay, seq: int = MELEE) -> tuple[str, int, int]:
    """The melee's loser, its men after the melee's casualties (its strength before the
    melee less the casualties the melee event records for it) and those casualties."""
    melee = loaded.event(seq)
    assert isinstance(melee, Meleed)
    loser = melee.target if melee.winner == melee.unit else melee.unit
    lost = (melee.defender_losses if loser == melee.target else melee.attacker_losses).casualties
    return loser, loaded.after(seq - 1).units[loser].strength - lost, lost


def test_more_men_taken_than_the_loser_has_left_is_refused(tmp_path: Path) -> None:
    """``prisoners=99999`` on a melee was taken as the loser's whole strength, the narrative
    said 99999 and ``verify`` called the fork lawful: the melee's prisoners (and pursuit:
    below) may not pass the men the loser has after its melee casualties (96)."""
    loaded = api.load_replay(CHANCELLORSVILLE)
    _, left, _ = _left(loaded)
    assert left == 104 - 8
    out = tmp_path / "f.jsonl"
    for changes, taken in (
        (["prisoners=99999"], "99999 prisoners"),
        ([f"prisoners={left + 1}"], f"{left + 1} prisoners"),
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
    """The bound is what the rules can take: all the loser has left, as prisoners, forks
    and verifies (as pursuit and prisoners together: below)."""
    _, left, _ = _left(api.load_replay(CHANCELLORSVILLE))
    out = tmp_path / "f.jsonl"
    result = invoke(
        "fork", str(CHANCELLORSVILLE), "--at", str(MELEE), "--set", f"prisoners={left}",
        "--out", str(out),
    )  # fmt: skip
    assert result.exit_code == 0, result.stderr
    assert api.verify_replay(out).ok


PURSUED = 37
"""In the Albuera battle fought with a pursuit (below): the 2nd Hussars beat the 48th Foot."""


def test_more_men_taken_by_a_pursuit_than_are_left_is_refused(
    albuera: Path, tmp_path: Path
) -> None:
    """A cavalry winner's pursuit and the prisoners together may not pass the men the loser
    has after its melee casualties; all of them may be taken, and that fork verifies."""
    loaded = api.load_replay(albuera)
    melee = loaded.event(PURSUED)
    assert isinstance(melee, Meleed) and melee.pursuit_losses and melee.prisoners
    loser, left, lost = _left(loaded, PURSUED)
    assert loser == "48ft"
    most = left - melee.prisoners
    out = tmp_path / "f.jsonl"
    args = ["fork", str(albuera), "--at", str(PURSUED), "--out", str(out), "--set"]
    result = invoke(*args, f"pursuit_losses={most + 1}")
    assert [result.exit_code, result.stdout, result.stderr] == [
        2,
        "",
        f"battlesim: error: --set pursuit_losses={most + 1}: the rules could not make "
        f"musket.meleed (seq {PURSUED}) so: 48ft gives up {most + 1} men to the pursuit and "
        f"{melee.prisoners} prisoners, more than the {left} men it has after losing {lost} in "
        "the melee\n",
    ]
    assert not out.exists()
    result = invoke(*args, f"pursuit_losses={most}")
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


def _refused(at: int, change: str, problem: str, out: Path, shown: str = "") -> None:
    """``fork --at at --set change`` on the golden Chancellorsville exits 2 with the audit's
    one line naming the change (``shown``: as fork echoes it) and ``problem``, and writes
    nothing."""
    result = invoke(
        "fork", str(CHANCELLORSVILLE), "--at", str(at), "--set", change, "--out", str(out)
    )
    assert [result.exit_code, result.stdout, result.stderr] == [
        2,
        "",
        f"battlesim: error: --set {shown or change}: the rules could not make musket.meleed "
        f"(seq {at}) so: {problem}\n",
    ]
    assert not out.exists()


DISRUPTS = 36
"""Cobb's Legion (infantry) charges the 69th New York in good order: disrupted, no men taken."""
CAPTURES = 77
"""Cobb's Legion charges the 5th Maine Battery: captured (option guns_captured, the default)."""


def test_prisoners_from_a_melee_that_does_not_rout_its_loser_are_refused(tmp_path: Path) -> None:
    """Only a melee that routs its loser takes the rout's prisoners (``rout_prisoners_share``;
    the loser in good order or disrupted before it, routed by it), and, with a cavalry
    winner, its pursuit's (``cavalry_pursuit_prisoners``). An infantry winner's melee that
    disrupts the 69th took ``prisoners=10`` and verified; the routing melee forked to leave
    it disrupted kept its 24; both are refused as a check that does not rout is."""
    loaded = api.load_replay(CHANCELLORSVILLE)
    for seq, before, after in ((DISRUPTS, "good", "disrupted"), (MELEE, "disrupted", "routed")):
        melee = loaded.event(seq)
        assert isinstance(melee, Meleed)
        assert (melee.winner, melee.target, melee.loser_state) == ("cobb", "69ny", after)
        assert loaded.after(seq - 1).units["69ny"].morale == before
        assert loaded.after(seq - 1).units["cobb"].kind == "infantry"
    _refused(
        DISRUPTS,
        "prisoners=10",
        "69ny does not rout in this melee (good -> disrupted), so it gives up no prisoners: "
        "prisoners must be 0, not 10",
        tmp_path / "a.jsonl",
    )
    _refused(
        MELEE,
        "loser_state=disrupted",
        "69ny does not rout in this melee (disrupted -> disrupted), so it gives up no "
        "prisoners: prisoners must be 0, not 24",
        tmp_path / "b.jsonl",
        'loser_state="disrupted"',
    )


def test_a_pursuit_by_a_winner_that_is_not_cavalry_is_refused(tmp_path: Path) -> None:
    """Only cavalry pursues, and only infantry or artillery it beats and does not capture
    (``rules/melee.py:pursuit_loss``): ``pursuit_losses=5`` on Cobb's Legion's melee (an
    infantry winner) passed, being within the 72 men the 69th had left after its 24
    prisoners; it is refused."""
    _refused(
        MELEE,
        "pursuit_losses=5",
        "cobb, the melee's winner, is infantry, and only cavalry pursues: pursuit_losses "
        "must be 0, not 5",
        tmp_path / "f.jsonl",
    )


def test_a_captured_battery_gives_up_no_prisoners_and_takes_no_pursuit(tmp_path: Path) -> None:
    """A battery a melee captures (``guns_captured``) is eliminated whole: no pursuit follows
    and no prisoners are counted apart (``rules/melee.py:decide_melee``)."""
    loaded = api.load_replay(CHANCELLORSVILLE)
    melee = loaded.event(CAPTURES)
    assert isinstance(melee, Meleed)
    assert (melee.target, melee.loser_state, melee.prisoners) == ("5me", "eliminated", 0)
    assert loaded.after(CAPTURES - 1).units["5me"].kind == "artillery"
    assert loaded.scenario.options.guns_captured
    _refused(
        CAPTURES,
        "prisoners=1",
        "5me is a battery the melee captures (guns_captured), so it gives up no prisoners: "
        "prisoners must be 0, not 1",
        tmp_path / "f.jsonl",
    )
    taken = lineage.with_fields(melee, {"pursuit_losses": 1})
    assert lineage.audit_problem(loaded, taken) == (
        "5me is a battery the melee captures (guns_captured), so no pursuit follows: "
        "pursuit_losses must be 0, not 1"
    )


@pytest.fixture(scope="module")
def albuera(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Albuera, the Vistula Lancers and hussars against Colborne, fought with a cavalry
    pursuit that takes half the loser's men left and half of those prisoner."""
    out = tmp_path_factory.mktemp("albuera") / "a.jsonl"
    result = invoke(
        "run",
        str(ROOT / "scenarios" / "albuera_colborne.yaml"),
        "--set",
        "options.cavalry_pursuit_share=0.5",
        "--set",
        "options.cavalry_pursuit_prisoners=0.5",
        "--out",
        str(out),
    )
    assert result.exit_code == 0, result.output
    return out


def test_a_cavalry_pursuit_takes_prisoners_without_a_rout(albuera: Path, tmp_path: Path) -> None:
    """The 2nd Hussars beat the 48th Foot twice: once in order (disrupted: no rout, so its
    prisoners are the pursuit's alone), once already routed; each melee's pursuit and
    prisoners are lawful, and a fork that changes them (within what is left) still is."""
    loaded = api.load_replay(albuera)
    found = []
    for event, state in loaded.fold():
        if isinstance(event, Meleed) and event.pursuit_losses:
            winner, loser = state.units[event.winner], state.units[event.target]
            found.append((winner.kind, loser.morale, event.loser_state, event.prisoners > 0))
            assert lineage.audit_problem(loaded, event) is None
            fewer = {"pursuit_losses": 1, "prisoners": 1}
            assert lineage.audit_problem(loaded, lineage.with_fields(event, fewer)) is None
    assert found == [("cavalry", "good", "disrupted", True), ("cavalry", "routed", "routed", True)]


def test_verify_fails_a_fork_an_older_battlesim_wrote_with_such_a_pursuit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A fork written before the audit held pursuit and prisoners to when the rules take
    them (made here with that part of the audit left out) fails ``verify``: ``INVARIANT``
    at the melee, exit 1, saying why."""
    from sim.rulesets.musket.reading import audit

    out = tmp_path / "old.jsonl"
    with monkeypatch.context() as patched:
        patched.setattr(audit, "_melee_taken", lambda *_: None)
        made = invoke(
            "fork", str(CHANCELLORSVILLE), "--at", str(MELEE), "--set", "pursuit_losses=5",
            "--out", str(out),
        )  # fmt: skip
        assert made.exit_code == 0, made.output
    result = invoke("verify", str(out))
    assert (result.exit_code, result.stdout) == (
        1,
        f"INVARIANT broken at seq {MELEE} (line {MELEE + 2}): musket.meleed: cobb, the melee's "
        "winner, is infantry, and only cavalry pursues: pursuit_losses must be 0, not 5\n",
    )
