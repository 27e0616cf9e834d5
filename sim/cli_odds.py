"""``battlesim odds``: exact outcome distributions of single resolutions."""

from __future__ import annotations

import json
from fractions import Fraction
from typing import Any

import click

from sim.cli import cli
from sim.musket.options import MusketOptions
from sim.odds.musket import CasualtyOdds, casualty_odds, guns_lost_odds

__all__ = ["odds"]


def _exact(ctx: click.Context, param: click.Parameter, value: Any) -> Fraction:
    """Read a decimal number exactly (``-40``, ``12.5``, ``1/3``)."""
    del ctx
    if isinstance(value, Fraction):
        return value
    try:
        return Fraction(str(value))
    except (ValueError, ZeroDivisionError):
        raise click.BadParameter(f"{value!r} is not a number", param=param) from None


def _table(dist: dict[int, Fraction], label: str) -> list[str]:
    lines = [f"{label:>10}  {'probability':>11}  {'cumulative':>10}"]
    cumulative = Fraction(0)
    for k, p in dist.items():
        cumulative += p
        bar = "#" * round(60 * float(p))
        lines.append(f"{k:>10}  {float(p):>11.6f}  {float(cumulative):>10.6f}  {bar}")
    return lines


def _as_json(o: CasualtyOdds, guns: dict[int, Fraction] | None) -> dict[str, Any]:
    out: dict[str, Any] = {
        "distribution": {str(k): float(p) for k, p in o.distribution.items()},
        "exact": {str(k): str(p) for k, p in o.distribution.items()},
        "mean": float(o.mean),
        "mean_exact": str(o.mean),
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


def _report(o: CasualtyOdds, guns: dict[int, Fraction] | None, as_json: bool) -> None:
    if as_json:
        click.echo(json.dumps(_as_json(o, guns)))
        return
    click.echo(
        f"effective value {float(o.effective):,.2f}; casualty value uniform on "
        f"[{float(o.low):.4g}, {float(o.high):.4g}]"
    )
    for line in _table(o.distribution, "casualties"):
        click.echo(line)
    click.echo(
        f"mean {float(o.mean):.6g} (exactly {o.mean}); morale check required with "
        f"probability {float(o.morale_check_p):.6f}"
    )
    click.echo(f"fatigue added: {o.fatigue_min}..{o.fatigue_max}, mean {float(o.fatigue_mean):.6g}")
    if guns is not None:
        click.echo("against a battery (25 men a gun):")
        for line in _table(guns, "guns lost"):
            click.echo(line)


@cli.group()
def odds() -> None:
    """Exact odds of one resolution: what a dice calculator gives, for these tables."""


def _common(f: Any) -> Any:
    for option in reversed(
        [
            click.option("--value", callback=_exact, required=True, help="Combat value V."),
            click.option(
                "--modifier",
                callback=_exact,
                default="0",
                show_default=True,
                help="Modifier m in percent, e.g. -40.",
            ),
            click.option("--alternative", is_flag=True, help="The Alternative Calculation."),
            click.option(
                "--target-artillery",
                is_flag=True,
                help="Also the distribution of guns lost by a battery.",
            ),
            click.option("--json", "as_json", is_flag=True, help="Print one JSON object."),
        ]
    ):
        f = option(f)
    return f


_DEFAULTS = MusketOptions()


@odds.command("musket-fire")
@_common
@click.option("--lcv", callback=_exact, default=str(_DEFAULTS.fire_lcv), show_default=True)
@click.option("--hcv", callback=_exact, default=str(_DEFAULTS.fire_hcv), show_default=True)
def musket_fire(
    value: Fraction,
    modifier: Fraction,
    alternative: bool,
    target_artillery: bool,
    as_json: bool,
    lcv: Fraction,
    hcv: Fraction,
) -> None:
    """Exact casualties of one volley of combat value V with modifier M."""
    o = casualty_odds(value, modifier, lcv, hcv, alternative)
    _report(o, guns_lost_odds(o.distribution) if target_artillery else None, as_json)


@odds.command("musket-melee")
@_common
@click.option("--lcv", callback=_exact, default=str(_DEFAULTS.melee_lcv), show_default=True)
@click.option("--hcv", callback=_exact, default=str(_DEFAULTS.melee_hcv), show_default=True)
@click.option("--loser", is_flag=True, help="Fatigue of the melee's loser (x2, not x1.5).")
def musket_melee(
    value: Fraction,
    modifier: Fraction,
    alternative: bool,
    target_artillery: bool,
    as_json: bool,
    lcv: Fraction,
    hcv: Fraction,
    loser: bool,
) -> None:
    """Exact casualties of one side in a melee: V is the *opposing* side's strength."""
    factor = Fraction(
        str(_DEFAULTS.melee_loser_fatigue_factor if loser else _DEFAULTS.melee_fatigue_factor)
    )
    o = casualty_odds(value, modifier, lcv, hcv, alternative, factor)
    _report(o, guns_lost_odds(o.distribution) if target_artillery else None, as_json)
