"""A fork of a ``musket.meleed`` is held to its ``stand_test`` (option ``cavalry_stand_test``)
as the live audit holds it, save its dice.

``audit_change`` did not look at the stand test at all: a fork could drop a test that was
due (``--set stand_test=null``), break its value (``stand_test.morale_value=5`` against
base + modifiers of -2), fail a defender who then went on to lose the melee only
disrupted, un-routing it (``loser_state=disrupted``), or fail a test with the melee still
weighed against a defender in good order — and ``verify`` called each fork lawful. What
no roll decides is now held, as ``reading/audit.py:_stand`` holds a live event: the test
taken exactly when due, its value from the defender's quality and the option, and a
failed test's melee fought against a routed defender. The roll against its draw and the
verdict against the roll are dice, free in a fork as a morale check's are (docs/
replay-tools.md: a check "passed" on a roll that fails it breaks its dice on purpose).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sim import api
from sim.replay.fork import parse_assignment
from sim.rulesets.musket.model.events import Meleed
from sim.rulesets.musket.reading.audit import audit, audit_change
from tests.forge import invoke
from tests.musket.test_cavalry_stand_test import SHAKY, STEADY, _data

MELEE = 2
"""The cavalry's charge on the line (seed 3): its stand test, then the melee."""
FAILED = "def failed its stand test"


@pytest.fixture(scope="module")
def battles(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """``fail``: quality F at -3 fails (value -2), the cavalry wins, the line routed, weighed
    at 95.75 (383 / 4); ``pass``: quality A at +3 stands (value 9) and wins, the cavalry
    disrupted, the line weighed at 383."""
    folder = tmp_path_factory.mktemp("stand")
    made = {}
    for name, quality, shift in (("fail", SHAKY, -3), ("pass", STEADY, 3)):
        # the battles as described were made with a line weighed as formed (rules v7's)
        options = {"charge_test": False, "cavalry_stand_test": shift, "cavalry_vs_line": None}
        scenario = folder / f"{name}.yaml"
        scenario.write_text(json.dumps(_data(options=options, limit=2, **quality)))
        made[name] = folder / f"{name}.jsonl"
        api.run(scenario, seed=3, out=made[name])
    return made


def _melee(replay: Path) -> Meleed:
    event = api.load_replay(replay).event(MELEE)
    assert isinstance(event, Meleed) and event.stand_test is not None
    return event


def _fork(replay: Path, out: Path, *sets: str) -> tuple[int, str, str]:
    changes = [a for s in sets for a in ("--set", s)]
    result = invoke("fork", str(replay), "--at", str(MELEE), *changes, "--out", str(out))
    return result.exit_code, result.stdout, result.stderr


def test_the_battles_are_as_described(battles: dict[str, Path]) -> None:
    failed, stood = _melee(battles["fail"]), _melee(battles["pass"])
    assert failed.stand_test is not None and stood.stand_test is not None
    assert (failed.stand_test.passed, failed.stand_test.morale_value) == (False, -2)
    assert (failed.winner, failed.loser_state) == ("att", "routed")
    assert failed.odds is not None and failed.odds.defender_strength == 95.75
    assert (stood.stand_test.passed, stood.winner, stood.loser_state) == (True, "def", "disrupted")
    assert stood.odds is not None and stood.odds.defender_strength == 383.0


@pytest.mark.parametrize(
    ("battle", "sets", "said"),
    [
        ("fail", ("stand_test=null",), "def took no stand test, against the rules"),
        ("fail", ("stand_test.morale_value=5",), "stand test value is not base + modifiers"),
        ("fail", ("stand_test.base=6", "stand_test.morale_value=3"),
         "def's stand test is not its quality's value with the option"),
        ("fail", ("loser_state=disrupted",), f"{FAILED} but lost the melee disrupted"),
        ("pass", ("stand_test.passed=false",), f"{FAILED} but was not weighed as routed"),
        ("pass", ("stand_test.roll=6", "stand_test.passed=false"),
         f"{FAILED} but was not weighed as routed"),
    ],
)  # fmt: skip
def test_a_fork_the_rules_could_not_make_of_the_stand_test_is_refused(
    tmp_path: Path, battles: dict[str, Path], battle: str, sets: tuple[str, ...], said: str
) -> None:
    out = tmp_path / "f.jsonl"
    code, stdout, stderr = _fork(battles[battle], out, *sets)
    given = ", ".join(f"{s.split('=')[0]}={json.dumps(_value(s))}" for s in sets)
    assert (code, stdout, stderr) == (
        2,
        "",
        f"battlesim: error: --set {given}: the rules could not make musket.meleed (seq 2) "
        f"so: {said}\n",
    )
    assert not out.exists()


def _value(assignment: str) -> object:
    return parse_assignment(assignment)[1]


@pytest.mark.parametrize(
    "sets",
    [
        ("stand_test.passed=false", "odds.defender_strength=95.75"),
        ("stand_test.roll=6", "stand_test.passed=false", "odds.defender_strength=95.75"),
    ],
)
def test_a_failed_verdict_with_the_melee_weighed_as_routed_forks_and_verifies(
    tmp_path: Path, battles: dict[str, Path], sets: tuple[str, ...]
) -> None:
    """The line that stood fails instead, the melee weighed against it routed (÷ 4): it is
    routed before the melee, whoever wins it, and the fork verifies — the roll of 1 that
    "fails" against 9 included (its dice broken on purpose), as one of 6."""
    out = tmp_path / "f.jsonl"
    code, stdout, stderr = _fork(battles["pass"], out, *sets)
    assert (code, stderr) == (0, ""), stdout + stderr
    assert api.load_replay(out).after(MELEE).units["def"].morale == "routed"
    verified = invoke("verify", str(out))
    assert (verified.exit_code, verified.stdout.split(":")[0]) == (0, "OK"), verified.stdout


def test_audit_change_leaves_the_dice_to_the_live_audit(battles: dict[str, Path]) -> None:
    """A roll other than its draw's, or a verdict against the roll, is what the dice
    could make: audit_change takes it, the live audit does not."""
    loaded = api.load_replay(battles["fail"])
    event, state = _melee(battles["fail"]), loaded.after(MELEE - 1)
    test = event.stand_test
    assert test is not None
    for changed in ({"roll": 6}, {"passed": True}):
        forked = event.model_copy(update={"stand_test": test.model_copy(update=changed)})
        assert audit_change(loaded.scenario, state, forked) is None
        assert "do not follow from the draw and value" in (
            audit(loaded.scenario, state, forked) or ""
        )
    assert audit(loaded.scenario, state, event) is None
