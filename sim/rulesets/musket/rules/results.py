"""One combat results calculation with its draws, as an event payload.

The steps and their draws, in this order on one stream (docs/rules/musket.md):

1. casualty value x ~ Uniform(L, H): one draw, or two averaged with the
   Alternative Calculation (seed 003 L17);
2. random rounding of x to casualties c: one draw (seed 003 L5);
3. for a battery, guns lost from c at 25 men a gun: one draw (seed 003 L7),
   unless option ``guns_lost_to_any_loss`` is off and the loss is not from
   enemy artillery or infantry fire;
4. fatigue Uniform(c, 3c) × factor, randomly rounded: two draws when c > 0
   (seed 003 L9); with option ``fatigue_from: unrounded``, from x instead of c
   (two draws when x > 0);
5. whether a morale check is required, p = c/(c+25): one draw when c > 0
   (seed 003 L11-L15). Without it, a check is still required of a unit at maximum
   fatigue [src], or of one the loss leaves at ``rout_loss`` or more lost (option
   ``heavy_loss_check``, ours): no draw.
"""

from __future__ import annotations

from collections.abc import Callable
from math import floor as _floor
from typing import Literal

from engine.events import Draw, assemble
from engine.rng import Stream
from sim.rulesets.musket.model.events import Casualties
from sim.rulesets.musket.model.options import MusketOptions
from sim.rulesets.musket.model.state import UnitState
from sim.rulesets.musket.rules import combat

__all__ = ["casualty_roll", "finish", "fire_result", "seed_gun_loss"]

_EVERY_FIELD = set(Casualties.model_fields)
"""A :class:`Casualties` is built with every field given: its one fields set, shared (a nested
record is never stamped; nothing adds to it)."""


class _Roll:
    """The casualty value and rounding, kept open until fatigue's factor is known (made by
    :func:`casualty_roll`)."""

    __slots__ = (
        "alternative",
        "casualties",
        "draws",
        "effective",
        "hcv",
        "high",
        "lcv",
        "low",
        "m",
        "modifiers",
        "rng",
        "value",
        "x",
    )
    alternative: bool
    casualties: int
    draws: list[Draw]
    effective: float
    hcv: float
    high: float
    lcv: float
    low: float
    m: float
    modifiers: dict[str, float]
    rng: Stream
    value: float
    x: float


def _casualties(
    draw: Callable[[], Draw], v: float, m: float, lcv: float, hcv: float, alternative: bool
) -> tuple[float, float, float, float, int, list[Draw]]:
    """Steps 1–2 from the value ``v`` and the modifiers' sum ``m``: (effective value, low,
    high, the drawn value, the rounded casualties, the draws).

    combat.casualty_range (with effective_value), combat.uniform_between and
    combat.random_round written out: the same expressions, the same floats (a resolution is
    the battle's commonest step).
    """
    e = v * (1.0 + m / 100.0)
    e = e if e > 0.0 else 0.0  # max(0.0, e), NaN and -0.0 alike
    low = lcv * e / combat.BASELINE
    high = hcv * e / combat.BASELINE
    first = draw()
    draws = [first]
    x = low + (high - low) * first.u
    if alternative:
        # [ours] average the two real-valued draws, then round once.
        second = draw()
        draws.append(second)
        x = (x + (low + (high - low) * second.u)) / 2.0
    rounding = draw()
    draws.append(rounding)
    n = _floor(x)
    return e, low, high, x, (n + 1 if rounding.u < x - n else n), draws


def casualty_roll(
    rng: Stream, v: float, modifiers: dict[str, float], lcv: float, hcv: float, alternative: bool
) -> _Roll:
    """Steps 1–2: draw the casualty value and round it."""
    roll = _Roll()
    # floats as the event's fields hold them (rule code passes int percentages)
    roll.rng, roll.value = rng, float(v)
    roll.modifiers = modifiers = {k: float(x) for k, x in modifiers.items()} if modifiers else {}
    roll.lcv, roll.hcv, roll.alternative = float(lcv), float(hcv), alternative
    roll.m = m = sum(modifiers.values(), 0.0)
    (roll.effective, roll.low, roll.high, roll.x, roll.casualties, roll.draws) = _casualties(
        rng.draw, v, m, lcv, hcv, alternative
    )
    return roll


def seed_gun_loss(source: str | None) -> bool:
    """Whether a loss comes from a source seed 003 L7 names: enemy artillery or infantry fire.

    Args:
        source: the firing unit's kind, or None for a melee loss.
    """
    return source in ("artillery", "infantry")


_After = tuple[int, float, int, float, Literal["loss", "max_fatigue", "heavy_losses"] | None]
"""What :func:`_after` gives: guns lost, fatigue value, fatigue added, the check's p, its reason."""


def _after(
    draw: Callable[[], Draw],
    draws: list[Draw],
    c: int,
    x: float,
    target: UnitState,
    options: MusketOptions,
    fatigue_factor: float,
    source: str | None,
) -> _After:
    """Steps 3–5 from the rounded casualties ``c`` and the value ``x``, each draw appended
    to ``draws``: (guns lost, fatigue value, fatigue added, the check's p, its reason)."""
    guns = 0
    if (
        c > 0
        and target.kind == "artillery"
        and (options.guns_lost_to_any_loss or seed_gun_loss(source))
    ):
        d = draw()
        draws.append(d)
        guns = combat.guns_lost(c, options.men_per_gun, d.u)
    # Step 4: Uniform(c, 3c) × factor, randomly rounded and capped; c is the rounded
    # casualties, or the value x with ``fatigue_from: unrounded`` (combat.fatigue_value
    # and combat.random_round written out: the same expressions)
    base = c if options.fatigue_from == "rounded" else x
    fatigue_value, added = 0.0, 0
    if not base <= 0:  # the test as written before (not ``base > 0``: alike for any value)
        d = draw()
        draws.append(d)
        fatigue_value = value = (base + (3.0 * base - base) * d.u) * fatigue_factor
        n = _floor(value)
        d = draw()
        draws.append(d)
        rounded = n + 1 if d.u < value - n else n
        added = max(0, min(rounded, options.fatigue_max - target.fatigue))
    p = c / (c + 25.0) if c > 0 else 0.0  # combat.morale_check_probability written out
    reason: Literal["loss", "max_fatigue", "heavy_losses"] | None = None
    if c > 0:
        d = draw()
        draws.append(d)
        if d.u < p:
            reason = "loss"
    if reason is None:
        if target.fatigue >= options.fatigue_max and fatigue_value > 0:
            reason = "max_fatigue"  # a unit at maximum fatigue that takes more must check [src]
        elif c > 0 and options.heavy_loss_check:
            # [ours] a unit badly cut up checks after every loss: it has lost rout_loss or more
            # of its starting strength once this loss is taken
            limit, initial, strength = options.rout_loss, target.initial, target.strength
            if limit is not None and initial > 0:
                lost = min(guns if target.kind == "artillery" else c, strength)
                if (initial - strength + lost) >= limit * initial:
                    reason = "heavy_losses"
    return guns, fatigue_value, added, p, reason


def fire_result(
    rng: Stream,
    v: float,
    modifiers: dict[str, float],
    lcv: float,
    hcv: float,
    alternative: bool,
    target: UnitState,
    options: MusketOptions,
    source: str,
) -> Casualties:
    """``finish(casualty_roll(...), target, options, source=source)`` of a fire resolution
    (fatigue factor 1) in one call, without the open roll: the same expressions, the same
    draws in the same order, the same record (``tests/sim/test_combat.py`` compares the two).

    Args:
        modifiers: the percent modifiers as floats, a dict the record keeps as it is (the
            caller made it for this resolution).
    """
    m = sum(modifiers.values(), 0.0)
    draw = rng.draw
    effective, low, high, x, c, draws = _casualties(draw, v, m, lcv, hcv, alternative)
    after = _after(draw, draws, c, x, target, options, 1.0, source)
    return _payload(
        float(v),
        m,
        modifiers,
        float(lcv),
        float(hcv),
        alternative,
        effective,
        low,
        high,
        x,
        c,
        after,
        draws,
    )


def finish(
    roll: _Roll,
    target: UnitState,
    options: MusketOptions,
    fatigue_factor: float = 1.0,
    source: str | None = None,
) -> Casualties:
    """Steps 3–5: guns lost, fatigue and the morale-check draw; the event payload.

    Args:
        source: the firing unit's kind; None for a melee loss.
    """
    c, draws = roll.casualties, roll.draws
    after = _after(roll.rng.draw, draws, c, roll.x, target, options, fatigue_factor, source)
    return _payload(
        roll.value,
        roll.m,
        roll.modifiers,
        roll.lcv,
        roll.hcv,
        roll.alternative,
        roll.effective,
        roll.low,
        roll.high,
        roll.x,
        c,
        after,
        draws,
    )


def _payload(
    v: float,
    m: float,
    modifiers: dict[str, float],
    lcv: float,
    hcv: float,
    alternative: bool,
    effective: float,
    low: float,
    high: float,
    x: float,
    c: int,
    after: _After,
    draws: list[Draw],
) -> Casualties:
    """The event payload of a resolution: guns lost, fatigue and the check's reason from
    ``after`` (:func:`_after`); every field in declaration order, each of its exact type
    (check_line in the tests)."""
    guns, fatigue_value, added, p, reason = after
    return assemble(
        Casualties,
        {
            "v": v,
            "modifier": m,
            "modifiers": modifiers,
            "lcv": lcv,
            "hcv": hcv,
            "alternative": alternative,
            "effective": effective,
            "low": low,
            "high": high,
            "value": x,
            "casualties": c,
            "guns_lost": guns,
            "fatigue_value": fatigue_value,
            "fatigue_added": added,
            "morale_check_p": p,
            "morale_check": reason is not None,
            "morale_check_reason": reason,
            "draws": draws,
        },
        _EVERY_FIELD,
    )
