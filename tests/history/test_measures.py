"""Each measure kind read from a run, on unit rows built by hand."""

from __future__ import annotations

from typing import Any

import pytest

from sim.contract import Measure, UnitRow
from sim.history.case import MeasureSpec
from sim.history.measures import BattleRecord, RunRecord, value_of


def row(
    uid: str,
    side: str,
    kind: str,
    at: tuple[int, int] | None,
    now: int,
    initial: int,
    status: tuple[str, ...] = (),
) -> UnitRow:
    unit = "guns" if kind == "artillery" else "men"
    return UnitRow(
        id=uid,
        name=uid,
        side=side,
        side_name=side,
        kind=kind,
        position=at,
        strength=Measure(name="strength", value=now, unit=unit),
        initial=Measure(name="strength", value=initial, unit=unit),
        status=list(status),
    )


def spec(**fields: Any) -> MeasureSpec:
    base = {"id": "m", "label": "m", "historical": 0, "accept": {"max": 1}, "source": "s"}
    return MeasureSpec.model_validate({**base, **fields})


TURNS = [
    [row("a", "usa", "infantry", (5, 6), 400, 400), row("b", "usa", "infantry", (7, 6), 300, 300)],
    [row("a", "usa", "infantry", (5, 5), 380, 400), row("b", "usa", "infantry", (7, 5), 300, 300)],
    [row("a", "usa", "infantry", (5, 4), 300, 400), row("b", "usa", "infantry", (7, 4), 270, 300)],
    [row("a", "usa", "infantry", (5, 3), 200, 400), row("b", "usa", "infantry", (7, 4), 240, 300)],
]
FINAL = [
    row("a", "usa", "infantry", None, 100, 400, ("routed",)),
    row("b", "usa", "infantry", (7, 5), 240, 300),
    row("g", "usa", "artillery", (7, 9), 5, 6),
    row("w", "csa", "infantry", (5, 2), 450, 500),
]
EVENTS = [
    {"type": "musket.fired", "unit": "g", "target": "w", "result": {"casualties": 9}},
    {"type": "musket.fired", "unit": "x", "target": "a", "result": {"casualties": 120}},
    {"type": "musket.fired", "unit": "y", "target": "b", "result": {"casualties": 15}},
]
RUN = RunRecord([BattleRecord(None, "csa", FINAL, TURNS, EVENTS)], "csa")


def test_win_and_status() -> None:
    """The run's winner, and a unit's final status words."""
    assert value_of(RUN, spec(kind="win", side="csa")) == 1.0
    assert value_of(RUN, spec(kind="win", side="usa")) == 0.0
    assert value_of(RUN, spec(kind="status", unit="a", word="routed")) == 1.0
    assert value_of(RUN, spec(kind="status", unit="b", word="routed")) == 0.0


def test_reaches_reads_every_turn_end() -> None:
    """Unit a stood on (5, 3) at the end of turn 4 only, and left it."""
    assert value_of(RUN, spec(kind="reaches", side="usa", hexes=[[5, 3]])) == 1.0
    assert value_of(RUN, spec(kind="reaches", side="usa", hexes=[[6, 3]])) == 0.0
    assert value_of(RUN, spec(kind="reaches", side="csa", hexes=[[5, 3]])) == 0.0


def test_loss_at_the_end_and_after_contact() -> None:
    """Men only (the battery's guns are not men): 360 of 700 at the end; the first loss
    is in turn 2, so one turn after contact is turn 3: 130 of 700."""
    loss = spec(kind="loss", side="usa", unit="men")
    assert value_of(RUN, loss) == pytest.approx(360 / 700)
    assert value_of(RUN, loss.model_copy(update={"after_contact": 1})) == pytest.approx(130 / 700)
    assert value_of(RUN, loss.model_copy(update={"after_contact": 9})) == pytest.approx(260 / 700)
    amount = loss.model_copy(update={"share": False})
    assert value_of(RUN, amount) == 360.0


def test_worst_unit_and_thresholds() -> None:
    """Unit a lost 300 of 400 (0.75), b 60 of 300; at_least turns it into a yes or no."""
    worst = spec(kind="unit_loss_max", side="usa", unit="men")
    assert value_of(RUN, worst) == 0.75
    assert value_of(RUN, worst.model_copy(update={"at_least": 0.75})) == 1.0
    assert value_of(RUN, worst.model_copy(update={"at_least": 0.76})) == 0.0


def test_ratios_give_the_runs_pair() -> None:
    """usa lost 360 men, csa 50; the artillery's part of usa's loss: none of it
    (the battery fired at csa), the 135 fired by x and y being infantry not in the rows."""
    ratio = value_of(RUN, spec(kind="loss_ratio", side="usa", over="csa", unit="men"))
    assert ratio == (360.0, 50.0)
    share = spec(
        kind="loss_from",
        side="csa",
        unit="men",
        by_kind="artillery",
        event="musket.fired",
        amount="result.casualties",
    )
    assert value_of(RUN, share) == (9.0, 50.0)


def test_an_amount_left_out_of_the_line_reads_its_default() -> None:
    """A musket.meleed leaves its prisoners out of the line at 0 (its default): summed
    as an amount, such an event gives 0, not a KeyError that stops the run."""
    events = [
        {"type": "musket.meleed", "unit": "h", "target": "a", "prisoners": 40},
        {"type": "musket.meleed", "unit": "h", "target": "b"},
    ]
    final = [*FINAL, row("h", "csa", "cavalry", (6, 4), 300, 300)]
    run = RunRecord([BattleRecord(None, "csa", final, TURNS, events)], "csa")
    taken = spec(
        kind="loss_from",
        side="usa",
        unit="men",
        by_kind="cavalry",
        event="musket.meleed",
        amount="prisoners",
    )
    assert value_of(run, taken) == (40.0, 360.0)


def test_a_kind_refuses_fields_it_does_not_read() -> None:
    """A typo in a case becomes an error, not a silently ignored field."""
    with pytest.raises(ValueError, match="kind win does not read hexes"):
        spec(kind="win", side="usa", hexes=[[1, 1]])
    with pytest.raises(ValueError, match="kind loss needs unit"):
        spec(kind="loss", side="usa")


def test_outcome_loss_reads_the_outcomes_losses() -> None:
    """A flattop strike's unit rows count the aircraft aloft (0 once landed), so a side's
    air factors lost are read from the outcome's losses, the ruleset's own count."""
    battle = BattleRecord(
        None, "allied", [], losses={"allied": {"air_factors": 3.0}, "japan": {"air_factors": 6.0}}
    )
    run = RunRecord([battle], "allied")
    lost = spec(kind="outcome_loss", side="allied", loss="air_factors")
    assert value_of(run, lost) == 3.0
    assert value_of(run, spec(kind="outcome_loss", side="japan", loss="air_factors")) == 6.0
    one = spec(kind="outcome_loss", side="allied", loss="air_factors", at_most=1)
    assert (value_of(run, one), one.statistic) == (0.0, "probability")
    with pytest.raises(ValueError, match="kind outcome_loss needs loss"):
        spec(kind="outcome_loss", side="allied")
    with pytest.raises(ValueError, match="kind outcome_loss does not read unit"):
        spec(kind="outcome_loss", side="allied", loss="air_factors", unit="air factors")


MELEES = [
    {"type": "musket.melee", "unit": "a", "target": "w", "result": {"winner": "w", "close": True}},
    {"type": "musket.melee", "unit": "w", "target": "b", "result": {"winner": "w", "close": 1}},
    {"type": "musket.melee", "unit": "b", "target": "w", "result": {"winner": "b"}},
    {"type": "musket.fired", "unit": "a", "target": "w", "result": {"winner": "w"}},
    {"type": "musket.melee", "unit": "z", "target": "w", "result": {"winner": "w"}},
]
MELEE_RUN = RunRecord([BattleRecord(None, "csa", FINAL, [], MELEES, turns_played=7)], "csa")


def test_events_counts_the_events_that_match() -> None:
    """Four musket.melee events (the fired one is another type); w won three; usa's units
    a and b started two of them (z is no unit of the battle); w, csa's, was the target of
    three; ``close: true`` is not ``close: 1``, and a missing field matches nothing."""
    melee = spec(kind="events", event="musket.melee")
    assert value_of(MELEE_RUN, melee) == 4.0
    won = melee.model_copy(update={"where": {"result.winner": "w"}})
    assert value_of(MELEE_RUN, won) == 3.0
    assert value_of(MELEE_RUN, melee.model_copy(update={"side": "usa"})) == 2.0
    on_csa = melee.model_copy(update={"side": "csa", "side_field": "target"})
    assert value_of(MELEE_RUN, on_csa) == 3.0
    usa_won = melee.model_copy(update={"side": "usa", "where": {"result.winner": "w"}})
    assert value_of(MELEE_RUN, usa_won) == 1.0
    assert value_of(MELEE_RUN, melee.model_copy(update={"where": {"result.close": True}})) == 1.0
    assert value_of(MELEE_RUN, melee.model_copy(update={"where": {"result.close": 1}})) == 1.0
    assert value_of(MELEE_RUN, melee.model_copy(update={"where": {"result.nope": 1}})) == 0.0
    once = spec(kind="events", event="musket.melee", side="csa", at_least=1)
    assert (value_of(MELEE_RUN, once), once.statistic) == (1.0, "probability")
    assert melee.statistic == "mean"


def test_units_below_counts_units_at_or_under_a_share_of_their_strength() -> None:
    """usa's men: a ends at 100 of 400 (0.25), b at 240 of 300 (0.8); the battery's guns
    are not men. None is at 0; one at or under 0.25; both at or under 0.8."""
    below = spec(kind="units_below", side="usa", unit="men")
    assert value_of(RUN, below) == 0.0
    assert value_of(RUN, below.model_copy(update={"share": 0.25})) == 1.0
    assert value_of(RUN, below.model_copy(update={"share": 0.2499})) == 0.0
    assert value_of(RUN, below.model_copy(update={"share": 0.8})) == 2.0
    guns = spec(kind="units_below", side="usa", unit="guns", share=5 / 6)
    assert value_of(RUN, guns) == 1.0
    only_art = spec(kind="units_below", side="usa", unit="men", share=1, kinds=["artillery"])
    assert value_of(RUN, only_art) == 0.0
    some = spec(kind="units_below", side="usa", unit="men", share=0.25, at_least=1)
    assert (value_of(RUN, some), some.statistic) == (1.0, "probability")
    with pytest.raises(ValueError, match="units_below takes share: a number from 0 to 1"):
        spec(kind="units_below", side="usa", unit="men", share=1.5)
    with pytest.raises(ValueError, match="units_below takes share: a number"):
        spec(kind="units_below", side="usa", unit="men", share=True)
    with pytest.raises(ValueError, match="kind loss takes share: true or false"):
        spec(kind="loss", side="usa", unit="men", share=0.5)


def test_duration_is_the_last_turn_played() -> None:
    """The outcome's turn count; a campaign battle never fought lasted 0 turns."""
    assert value_of(MELEE_RUN, spec(kind="duration")) == 7.0
    assert value_of(MELEE_RUN, spec(kind="duration", battle="later")) == 0.0
    long = spec(kind="duration", at_least=7)
    assert (value_of(MELEE_RUN, long), long.statistic) == (1.0, "probability")
    with pytest.raises(ValueError, match="kind duration does not read side"):
        spec(kind="duration", side="usa")


def test_new_kinds_refuse_what_they_do_not_read() -> None:
    with pytest.raises(ValueError, match="kind events needs event"):
        spec(kind="events")
    with pytest.raises(ValueError, match="side_field names where"):
        spec(kind="events", event="x", side_field="target")
    with pytest.raises(ValueError, match="kind loss does not read where"):
        spec(kind="loss", side="usa", unit="men", where={"a": 1})
    with pytest.raises(ValueError, match=r"should match pattern"):
        spec(kind="events", event="x", where={"a..b": 1})
