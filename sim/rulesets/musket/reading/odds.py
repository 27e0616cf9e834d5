"""Exact odds of one musket combat results calculation (seed 003).

The casualty value x is Uniform(L, H) — or, with the Alternative
Calculation, the mean of two such draws, triangular on [L, H] — and is then
randomly rounded, so P(c = k) = ∫ density(x) · tent(x − k) dx, computed here
in exact rationals.  From it follow the morale-check probability
Σ P(k)·k/(k+25), the fatigue range and mean, and the guns lost by a battery.

:data:`RESOLUTIONS` offers them as ``battlesim odds musket-fire`` and
``musket-melee`` (docs/odds.md), through the ruleset's ``odds`` hook.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from sim.contract import (
    OddsInputError,
    OddsParam,
    OddsResolution,
    OddsResult,
    distribution_json,
    distribution_table,
)
from sim.odds.exact import integrate_product, tent, triangular, uniform
from sim.rulesets.musket.model.options import MusketOptions

__all__ = [
    "FIRE",
    "MELEE",
    "RESOLUTIONS",
    "CasualtyOdds",
    "casualty_odds",
    "guns_lost_odds",
    "render",
]


@dataclass(frozen=True)
class CasualtyOdds:
    """The exact distribution of casualties of one calculation, and what follows."""

    effective: Fraction
    low: Fraction
    high: Fraction
    distribution: dict[int, Fraction]
    mean: Fraction
    morale_check_p: Fraction
    fatigue_min: int
    fatigue_max: int
    fatigue_mean: Fraction
    alternative: bool = False


MAX_OUTCOMES = 2_000
"""Widest casualty range enumerated exactly (each outcome is one exact integral)."""


def _number(x: float, digits: int) -> str:
    """``x`` to ``digits`` significant digits as ``:g`` writes it below 1,000 (``5.4``,
    ``10.64``); from 1,000 in full with thousands separators (``25,500.1``, ``5,000,000``),
    where ``:g`` wrote ``1080`` and ``2.55e+04``."""
    if abs(x) < 1000:
        return f"{x:.{digits}g}"
    decimals = max(0, digits - len(str(int(abs(x)))))
    text = f"{x:,.{decimals}f}"
    return text.rstrip("0").rstrip(".") if "." in text else text


def casualty_odds(
    v: Fraction,
    m: Fraction,
    lcv: Fraction,
    hcv: Fraction,
    alternative: bool = False,
    fatigue_factor: Fraction = Fraction(1),
) -> CasualtyOdds:
    """Exact odds for combat value ``v``, modifier ``m`` (percent), LCV and HCV.

    Args:
        fatigue_factor: 1 for fire; 3/2 in melee, 2 for the melee's loser.

    Raises:
        ValueError: LCV below 0 or above HCV, V below 0, or more than
            :data:`MAX_OUTCOMES` outcomes.
    """
    if v < 0 or lcv < 0 or hcv < lcv:
        raise ValueError(f"need V >= 0 and 0 <= LCV <= HCV, not V {v}, LCV {lcv}, HCV {hcv}")
    e = max(Fraction(0), v * (1 + m / 100))
    low, high = lcv * e / 1000, hcv * e / 1000
    if high - low > MAX_OUTCOMES:
        raise ValueError(
            f"the casualty value spans [{_number(float(low), 6)}, {_number(float(high), 6)}]: "
            "more than "
            f"{MAX_OUTCOMES:,} outcomes to enumerate exactly (lower V or HCV)"
        )
    if high == low:
        k, f = math.floor(low), low - math.floor(low)
        dist = {k: 1 - f, k + 1: f} if f else {k: Fraction(1)}
    else:
        density = triangular(low, high) if alternative else uniform(low, high)
        dist = {}
        for k in range(math.floor(low), math.floor(high) + 2):
            p = integrate_product(density, tent(k))
            if p:
                dist[k] = p
    mean = sum((k * p for k, p in dist.items()), Fraction(0))
    check = sum((p * Fraction(k, k + 25) for k, p in dist.items() if k > 0), Fraction(0))
    present = [k for k, p in dist.items() if p]
    # fatigue is Uniform(c, 3c) × factor, randomly rounded: its extremes and its mean 2c·factor
    fmin = math.floor(min(present) * fatigue_factor)
    fmax = math.ceil(3 * max(present) * fatigue_factor)
    return CasualtyOdds(
        e, low, high, dist, mean, check, fmin, fmax, 2 * mean * fatigue_factor, alternative
    )


def guns_lost_odds(dist: dict[int, Fraction], men_per_gun: int = 25) -> dict[int, Fraction]:
    """Guns lost by a battery: floor(c/25) plus one with probability (c mod 25)/25."""
    out: dict[int, Fraction] = {}
    for c, p in dist.items():
        whole, rest = divmod(c, men_per_gun)
        extra = Fraction(rest, men_per_gun)
        out[whole] = out.get(whole, Fraction(0)) + p * (1 - extra)
        if extra:
            out[whole + 1] = out.get(whole + 1, Fraction(0)) + p * extra
    return {g: p for g, p in sorted(out.items()) if p}


def _as_json(o: CasualtyOdds, guns: dict[int, Fraction] | None) -> dict[str, Any]:
    out: dict[str, Any] = {
        **distribution_json(o.distribution),
        "effective": float(o.effective),
        "low": float(o.low),
        "high": float(o.high),
        "morale_check_p": float(o.morale_check_p),
        "fatigue": {"min": o.fatigue_min, "max": o.fatigue_max, "mean": float(o.fatigue_mean)},
    }
    if guns is not None:
        out["guns_lost"] = {str(g): float(p) for g, p in guns.items()}
        out["guns_lost_mean"] = float(sum(g * p for g, p in guns.items()))
    return out


def _as_lines(o: CasualtyOdds, guns: dict[int, Fraction] | None) -> list[str]:
    shape = "triangular" if o.alternative else "uniform"
    lines = [
        f"effective value {float(o.effective):,.2f}; casualty value {shape} on "
        f"[{_number(float(o.low), 4)}, {_number(float(o.high), 4)}]",
        *distribution_table(o.distribution, "casualties"),
        f"mean {_number(float(o.mean), 6)} (exactly {o.mean}); morale check required with "
        f"probability {float(o.morale_check_p):.6f}",
        f"fatigue added: {o.fatigue_min:,}..{o.fatigue_max:,}, "
        f"mean {_number(float(o.fatigue_mean), 6)}",
    ]
    if guns is not None:
        lines += ["against a battery (25 men a gun):", *distribution_table(guns, "guns lost")]
    return lines


def render(o: CasualtyOdds, guns: dict[int, Fraction] | None) -> OddsResult:
    """The text and JSON of one calculation's odds (and of the guns lost, when given)."""
    return OddsResult(tuple(_as_lines(o, guns)), _as_json(o, guns))


def _compute(values: Mapping[str, Any], factor: Fraction) -> OddsResult:
    """The odds of one calculation from the command's values, at fatigue factor ``factor``."""
    try:
        o = casualty_odds(
            values["value"],
            values["modifier"],
            values["lcv"],
            values["hcv"],
            values["alternative"],
            factor,
        )
    except ValueError as exc:
        raise OddsInputError(str(exc)) from None
    return render(o, guns_lost_odds(o.distribution) if values["target_artillery"] else None)


def _fire(values: Mapping[str, Any]) -> OddsResult:
    return _compute(values, Fraction(1))


def _melee(values: Mapping[str, Any]) -> OddsResult:
    loser = values["loser"]
    factor = _DEFAULTS.melee_loser_fatigue_factor if loser else _DEFAULTS.melee_fatigue_factor
    odds = _compute(values, Fraction(str(factor)))
    if loser or _DEFAULTS.melee_winner_tests:
        return odds
    said = (  # the seed's check, which the rules' default leaves to the loser
        "a melee's winner takes no morale check for these losses under the default rules "
        "(option melee_winner_tests, ours: off); the probability is the check's if it did"
    )
    return OddsResult((*odds.lines, said), odds.data)


_DEFAULTS = MusketOptions()


def _exact(number: float) -> Fraction:
    """An option's default as the command line reads it: exactly, from its decimal text."""
    return Fraction(str(number))


def _params(lcv: float, hcv: float, lcv_help: str, hcv_help: str) -> tuple[OddsParam, ...]:
    """The parameters of both calculations, with their LCV and HCV defaults and help."""
    return (
        OddsParam("value", "exact", "Combat value V.", required=True),
        OddsParam("modifier", "exact", "Modifier m in percent, e.g. -40.", default=0),
        OddsParam("alternative", "flag", "The Alternative Calculation."),
        OddsParam("target_artillery", "flag", "Also the distribution of guns lost by a battery."),
        OddsParam("lcv", "exact", lcv_help, default=_exact(lcv)),
        OddsParam("hcv", "exact", hcv_help, default=_exact(hcv)),
    )


FIRE = OddsResolution(
    name="musket-fire",
    summary="Exact casualties of one volley (combat value V, modifier M).",
    params=_params(
        _DEFAULTS.fire_lcv,
        _DEFAULTS.fire_hcv,
        "Low Combat Value L per 1000: the casualty range starts at L x E / 1000.",
        "High Combat Value H per 1000: the casualty range ends at H x E / 1000.",
    ),
    compute=_fire,
    examples=("--value 1800 --modifier -40",),
)
"""``battlesim odds musket-fire``: one volley with the fire LCV/HCV, fatigue factor 1."""

MELEE = OddsResolution(
    name="musket-melee",
    summary="Exact casualties of one side in a melee.",
    params=(
        *_params(
            _DEFAULTS.melee_lcv,
            _DEFAULTS.melee_hcv,
            "Melee Low Combat Value L per 1000: the range starts at L x E / 1000.",
            "Melee High Combat Value H per 1000: the range ends at H x E / 1000.",
        ),
        OddsParam("loser", "flag", "Fatigue of the melee's loser (x2, not x1.5)."),
    ),
    compute=_melee,
    examples=("--value 450 --loser",),
    description="V is the opposing side's strength.",
)
"""``battlesim odds musket-melee``: one side's losses in a melee, at the melee fatigue factor."""

RESOLUTIONS = (FIRE, MELEE)
"""The musket ruleset's ``odds``."""
