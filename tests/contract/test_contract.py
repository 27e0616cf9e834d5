"""One suite holds every tool to the ruleset contract, for every ruleset and the toy plugin.

The requirements are the shipped ones of :mod:`sim.conformance` (what
``battlesim check-ruleset`` checks), parametrized over
:data:`tests.contract.cases.CASES`: a new ruleset (an entry point in
``battlesim.rulesets``) passes or fails them without a new test.  Each case
is fought once (the module-scoped ``battle``).  The checks that test the
engine's own machinery rather than a ruleset stay here.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from engine import log
from sim.conformance import REQUIREMENTS, Battle, Requirement, RequirementFailed
from sim.conformance.battle import Family
from sim.contract import get_ruleset
from tests.contract.cases import CASES, Case

_FAMILIES: dict[str, Family] = {}
"""Each ruleset's cases, as ``check-ruleset`` groups them: a check that fights in fresh
processes fights all of a ruleset's scenarios in one (``same-bytes-in-other-processes``)."""


def _family(ruleset: str, tmp_path_factory: pytest.TempPathFactory) -> Family:
    if ruleset not in _FAMILIES:
        mine = tuple(c.scenario for c in CASES if c.ruleset == ruleset and c.scenario is not None)
        _FAMILIES[ruleset] = Family(mine, tmp_path_factory.mktemp(f"family-{ruleset}"))
    return _FAMILIES[ruleset]


@pytest.fixture(scope="module", params=CASES, ids=[c.id for c in CASES])
def battle(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Battle:
    """The case's ruleset and scenario, fought once with ``battlesim run`` when first read."""
    case: Case = request.param
    return Battle(
        get_ruleset(case.ruleset),
        case.scenario,
        tmp_path_factory.mktemp(case.id),
        _family(case.ruleset, tmp_path_factory),
    )


@pytest.mark.parametrize("requirement", REQUIREMENTS, ids=[r.id for r in REQUIREMENTS])
def test_requirement(requirement: Requirement, battle: Battle) -> None:
    """The shipped requirement holds on the case (else its message and how to meet it)."""
    try:
        requirement.check(battle)
    except RequirementFailed as exc:
        pytest.fail(f"{requirement.id}: {exc}\nhow to meet it: {requirement.hint}", pytrace=False)


def test_every_event_line_is_what_validating_the_event_writes(
    battle: Battle, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Fought again with the line check on, every event line of the replay was checked.

    Rule code builds hot events without validation (``engine.events.trusted``);
    :func:`engine.log.check_line` validates each again from its line and
    requires the same line back, so the replay is what validation would write.
    The log writes each line from the serializer's bytes: the text is the
    event's ``model_dump_json``.  (The engine's check itself is counted here:
    ``event-lines-validate`` relies on it.)
    """
    checked: list[str] = []

    def counting(event: Any, body: bytes) -> None:
        text = body.decode()
        checked.append(text)
        assert text == event.model_dump_json()
        real_check(event, body)

    real_check = log.check_line
    monkeypatch.setattr(log, "check_line", counting)
    monkeypatch.setattr(log.EventLog, "check_lines", True)
    again = tmp_path / "again.jsonl"
    assert battle.scenario is not None, f"ruleset {battle.ruleset.name!r} ships no scenario"
    assert battle.cli("run", battle.scenario, "--out", again).exit_code == 0
    assert again.read_bytes() == battle.replay.read_bytes()
    events = again.read_text(encoding="utf-8").splitlines()[1:-1]
    assert checked == [line[: line.rindex(',"h":')] + "}" for line in events]
