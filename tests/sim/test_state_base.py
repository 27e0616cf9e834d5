"""The state base and the Ruleset's defaults: what a plugin gets for free, pinned exactly."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Literal

import pytest
from pydantic import BaseModel, Field

from engine.events import Draw, Event, EventRegistry
from sim.contract import Measure, Outcome, Reading, SideResult, StateBase, UnitRow, applies
from sim.contract.defaults import plain_narrate, summary_of_losses
from tests.contract.toy import RULESET as PIPS
from tests.contract.toy import PipsScenario


class Hit(Event):
    """A test event: ``n`` points off ``who``."""

    type: Literal["t.hit"] = "t.hit"
    who: str
    n: int
    draws: list[Draw] = Field(default_factory=list)


class Heal(Event):
    """A test event: ``n`` points back."""

    type: Literal["t.heal"] = "t.heal"
    who: str
    n: int


class Body(BaseModel):
    """Nested state: a mutable pydantic model."""

    hp: int
    hit_by: list[int] = Field(default_factory=list)


class Toy(StateBase):
    """Bodies by id."""

    bodies: dict[str, Body]

    @applies(Hit)
    def hit(self, e: Hit) -> None:
        """Points off, and who struck."""
        self.bodies[e.who].hp -= e.n
        self.bodies[e.who].hit_by.append(e.seq)


def _toy() -> Toy:
    return Toy(bodies={"a": Body(hp=5), "b": Body(hp=3)})


def test_apply_calls_the_method_marked_for_the_event_class() -> None:
    """A Hit of 2 at seq 4 takes a from 5 to 3 hp and records seq 4."""
    state = _toy()
    state.apply(Hit(seq=4, turn=1, time=0.0, who="a", n=2))
    assert state.bodies["a"] == Body(hp=3, hit_by=[4])
    assert state.bodies["b"] == Body(hp=3)


def test_an_event_no_method_applies_is_refused_by_name() -> None:
    """Forgetting an event class fails loudly at its first event, naming class and type."""
    with pytest.raises(TypeError, match=r"Toy has no @applies\(Heal\) method for 't.heal'"):
        _toy().apply(Heal(turn=1, time=0.0, who="a", n=1))


def test_two_methods_for_one_event_class_are_refused_when_the_class_is_made() -> None:
    """Two @applies(Hit) methods in one class is a TypeError at class creation."""
    with pytest.raises(TypeError, match="Twice: second and first both apply Hit"):

        class Twice(StateBase):
            @applies(Hit)
            def first(self, e: Hit) -> None: ...

            @applies(Hit)
            def second(self, e: Hit) -> None: ...


def test_a_subclass_redefining_a_method_replaces_what_it_applied() -> None:
    """Overriding ``hit`` with an @applies(Heal) method leaves Hit unapplied and Heal applied."""

    class Other(Toy):
        @applies(Heal)
        def hit(self, e: Heal) -> None:
            self.bodies[e.who].hp += e.n

    assert set(Other.appliers) == {Heal}
    assert set(Toy.appliers) == {Hit}


def test_restore_of_a_json_round_tripped_snapshot_equals_the_state() -> None:
    """snapshot is the model's JSON data (ended first); restore gives back an equal state."""
    state = _toy()
    state.apply(Hit(seq=9, turn=2, time=1.5, who="b", n=3))
    data = state.snapshot()
    assert data == {
        "ended": False,
        "bodies": {"a": {"hp": 5, "hit_by": []}, "b": {"hp": 0, "hit_by": [9]}},
    }
    assert Toy.restore(json.loads(json.dumps(data))) == state


def test_the_ruleset_derives_apply_snapshot_and_restore_from_a_state_base() -> None:
    """The toy plugin gives none of the three; its Ruleset's come from its StateBase."""
    scenario = PipsScenario.model_validate(
        {
            "ruleset": "pips",
            "name": "t",
            "sides": [
                {
                    "id": "x",
                    "name": "X",
                    "fighters": [{"id": "a", "name": "A", "pips": 2, "at": 0}],
                },
                {
                    "id": "y",
                    "name": "Y",
                    "fighters": [{"id": "b", "name": "B", "pips": 1, "at": 1}],
                },
            ],
        }
    )
    state = PIPS.initial_state(scenario)
    data = PIPS.snapshot(state)
    assert data["fighters"]["b"] == {"id": "b", "side": "y", "pips": 1, "downed_by": None}
    assert PIPS.restore(scenario, json.loads(json.dumps(data))) == state


def test_a_state_that_is_no_state_base_needs_its_own_hooks() -> None:
    """A plain state with the default apply is refused with a message saying what to do."""
    broken = replace(PIPS, initial_state=lambda sc: object())
    with pytest.raises(TypeError, match="give the hook, or derive the state from StateBase"):
        broken.apply(object(), Hit(turn=1, time=0.0, who="a", n=1))


def test_the_default_summary_is_one_line_of_losses_per_side() -> None:
    """Each side: its name, then its losses as 'value unit', joined by commas."""
    men = Measure(name="men", value=120, unit="men")
    guns = Measure(name="guns", value=2, unit="guns")
    outcome = Outcome(
        winner="u",
        winner_name="Union",
        reason="r",
        turns=3,
        sides={
            "u": SideResult(name="Union", losses=[men, guns]),
            "c": SideResult(name="Confederate", losses=[]),
        },
    )
    assert summary_of_losses(outcome) == [
        "Union: lost 120 men, 2 guns",
        "Confederate: lost nothing",
    ]


def test_the_default_narrative_is_the_type_and_own_fields_without_draws() -> None:
    """Base fields (seq, turn, time, cause...) and the draws are left out; the rest in order."""
    event = Hit(seq=3, turn=2, time=0.5, who="a", n=2, draws=[Draw("2/x", 0, 0.25)])
    assert plain_narrate(None, None, event) == "turn 2: t.hit who=a n=2"


def test_the_default_measures_are_unit_strengths_and_side_totals() -> None:
    """Side totals only where a side's units share one measure; then every unit's strength."""

    def row(uid: str, side: str, name: str, value: int) -> UnitRow:
        m = Measure(name=name, value=value, unit=name)
        return UnitRow(id=uid, name=uid.upper(), side=side, side_name=side.upper(), kind="k",
                       position=None, strength=m, initial=m)  # fmt: skip

    rows = [row("a", "x", "men", 10), row("b", "x", "men", 5), row("c", "y", "men", 4),
            row("d", "y", "guns", 2)]  # fmt: skip
    ruleset = replace(PIPS, units=lambda sc, st: rows)  # the default follows the new units
    got = ruleset.measures(None, None)
    assert got[0] == Reading(
        scope="side", subject="x", name="X", measure=Measure(name="men", value=15, unit="men")
    )
    assert [(r.scope, r.subject, r.measure.value) for r in got] == [
        ("side", "x", 15), ("unit", "a", 10), ("unit", "b", 5), ("unit", "c", 4), ("unit", "d", 2)
    ]  # fmt: skip


def test_a_hook_given_is_kept_as_given() -> None:
    """Only defaults are filled in: a ruleset's own measures and restore are left alone."""

    def mine(sc: object, st: object) -> list[Reading]:
        return []

    ruleset = replace(PIPS, measures=mine, restore=PIPS.restore)
    assert ruleset.measures is mine
    assert ruleset.restore is PIPS.restore


def test_a_method_overridden_without_a_mark_still_applies_its_event() -> None:
    """Redefining ``hit`` plainly keeps Hit dispatched to it: the override runs, by name."""

    class Doubled(Toy):
        def hit(self, e: Hit) -> None:
            self.bodies[e.who].hp -= 2 * e.n

    state = Doubled(bodies={"a": Body(hp=5)})
    state.apply(Hit(seq=1, turn=1, time=0.0, who="a", n=2))
    assert Doubled.appliers == {Hit: "hit"}
    assert state.bodies["a"].hp == 1


def test_set_fields_are_refused_when_the_class_is_made() -> None:
    """A set (here inside a nested model) would make the snapshot's order follow the hash seed."""

    class Tags(BaseModel):
        seen: set[str] = Field(default_factory=set)

    with pytest.raises(TypeError, match=r"Bad\.tags: a set has no fixed order"):

        class Bad(StateBase):
            tags: dict[str, Tags]


def test_a_ruleset_with_the_default_restore_can_be_hashed() -> None:
    """The derived restore compares by identity, so the Ruleset stays hashable (a dict key)."""
    assert {PIPS: "pips"}[PIPS] == "pips"


def test_applied_events_are_the_marked_classes_bases_first() -> None:
    """Toy applies Hit; a subclass adding Heal applies Hit then Heal; the registry of them."""

    class Healing(Toy):
        @applies(Heal)
        def heal(self, e: Heal) -> None:
            self.bodies[e.who].hp += e.n

    assert Toy.applied_events() == (Hit,)
    assert Healing.applied_events() == (Hit, Heal)
    registry = EventRegistry(Healing.applied_events())
    assert registry.types == (
        "engine.override",
        "engine.snapshot",
        "engine.turn_ended",
        "t.heal",
        "t.hit",
    )
    assert registry.knows(Heal) and not EventRegistry(Toy.applied_events()).knows(Heal)
