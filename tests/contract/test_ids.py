"""sim.contract.ids.UniqueIds: the duplicate-id check of a scenario's cross_check."""

from __future__ import annotations

from sim.contract.ids import UniqueIds
from sim.contract.models import Problem


def test_an_id_used_again_is_one_problem_at_the_later_place_saying_what_used_it() -> None:
    """Same kind: 'used twice'; another kind: 'already used by a/an <kind>'; no kind: 'id'."""
    problems: list[Problem] = [(("name",), "kept")]
    ids = UniqueIds(problems)
    assert ids.add("hornet", ("ships", 0, "id"), "ship")
    assert ids.add("t1", ("strikes", 0, "id"), "attack")
    assert not ids.add("hornet", ("ships", 1, "id"), "ship")
    assert not ids.add("hornet", ("bases", 0, "id"), "base")
    assert not ids.add("t1", ("strikes", 1, "id"), "strike")
    assert not ids.add("t1", ("x",))
    assert ids.problems is problems
    assert problems == [
        (("name",), "kept"),
        (("ships", 1, "id"), "ship id 'hornet' is used twice"),
        (("bases", 0, "id"), "base id 'hornet' is already used by a ship"),
        (("strikes", 1, "id"), "strike id 't1' is already used by an attack"),
        (("x",), "id 't1' is already used by an attack"),
    ]
    assert ids.first == {"hornet": "ship", "t1": "attack"}
