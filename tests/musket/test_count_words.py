"""musket's audit words a count of one as one: "1 casualty", "1 prisoner", "1 hex" (each
said "1 …s"), and more than one in the plural, through :func:`sim.text.grammar.count`.

The audit's lines are what ``verify`` says of a replay whose event the rules could not have
made (``INVARIANT broken at seq …``), and what ``fork`` says of a change the rules could
not make; none is stored in a replay. Here each is drawn from the golden stone wall's own
events, changed as a hand-edited file would be; the reach of ``rout_contagion`` is
tests/musket/test_rout_contagion.py's.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from sim import api
from sim.rulesets.musket.model.events import Fired, MoraleTested
from sim.rulesets.musket.reading.audit import audit

ROOT = Path(__file__).resolve().parents[2]
STONE_WALL = ROOT / "replays" / "stone_wall-s1862.jsonl"
VOLLEY = 5
"""The 1st Rhode Island's fire on Phillips' Legion: drew 14.26, 14 casualties."""
CHECK = 8
"""The 63rd New York's morale check for its loss: passes, good to good."""


@pytest.fixture(scope="module")
def stone_wall() -> Any:
    return api.load_replay(STONE_WALL)


@pytest.mark.parametrize(("casualties", "said"), [(1, "1 casualty"), (2, "2 casualties")])
def test_casualties_not_the_value_rounded(stone_wall: Any, casualties: int, said: str) -> None:
    fired = stone_wall.event(VOLLEY)
    assert isinstance(fired, Fired) and fired.result.casualties == 14
    result = fired.result.model_copy(update={"casualties": casualties})
    edited = fired.model_copy(update={"result": result})
    before = stone_wall.after(VOLLEY - 1)
    assert audit(stone_wall.scenario, before, edited) == (
        f"{said} is not {fired.result.value} rounded"
    )


@pytest.mark.parametrize(("prisoners", "said"), [(1, "1 prisoner"), (3, "3 prisoners")])
def test_prisoners_given_up_without_routing(stone_wall: Any, prisoners: int, said: str) -> None:
    check = stone_wall.event(CHECK)
    assert isinstance(check, MoraleTested)
    assert (check.unit, check.before, check.after, check.prisoners) == ("63ny", "good", "good", 0)
    edited = check.model_copy(update={"prisoners": prisoners})
    assert audit(stone_wall.scenario, stone_wall.after(CHECK - 1), edited) == (
        f"63ny does not rout in this check (good -> good), so it gives up no prisoners: "
        f"prisoners must be 0, not {prisoners}"
    )
