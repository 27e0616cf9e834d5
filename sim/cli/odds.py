"""``battlesim odds`` subcommands: exact outcome distributions of single resolutions.

Loaded only when an odds subcommand is asked for (the group lives in :mod:`sim.cli`).
"""

from __future__ import annotations

import json
from fractions import Fraction
from typing import Any

import click

from sim.cli.common import Command
from sim.rulesets.becmi.odds import to_hit_odds
from sim.rulesets.becmi.options import BecmiOptions
from sim.rulesets.flattop.odds import hit_odds
from sim.rulesets.musket.odds import CasualtyOdds, casualty_odds, guns_lost_odds
from sim.rulesets.musket.options import MusketOptions

__all__ = ["becmi_odds", "flattop_odds", "musket_fire", "musket_melee"]


def _exact(ctx: click.Context, param: click.Parameter, value: Any) -> Fraction:
    """Read a decimal number exactly (``-40``, ``12.5``, ``1/3``)."""
    del ctx
    if isinstance(value, Fraction):
        return value
    try:
        number = Fraction(str(value))
    except (ValueError, ZeroDivisionError):
        raise click.BadParameter(f"{value!r} is not a number", param=param) from None
    if abs(number) > _LARGEST or number.denominator > _LARGEST:
        raise click.BadParameter(
            f"{value!r} is out of range (at most {_LARGEST:.0e} in size, or as fine)", param=param
        )
    return number


_LARGEST = 10**9
"""Bound on option numbers: no table of these rules comes near it, and 1e308 would run forever."""


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
    shape = "triangular" if o.alternative else "uniform"
    click.echo(
        f"effective value {float(o.effective):,.2f}; casualty value {shape} on "
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


def _odds(
    value: Fraction,
    modifier: Fraction,
    lcv: Fraction,
    hcv: Fraction,
    alternative: bool,
    factor: Fraction = Fraction(1),
) -> CasualtyOdds:
    try:
        return casualty_odds(value, modifier, lcv, hcv, alternative, factor)
    except ValueError as exc:
        raise click.UsageError(str(exc)) from None


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


@click.command("musket-fire", cls=Command)
@_common
@click.option(
    "--lcv",
    callback=_exact,
    default=str(_DEFAULTS.fire_lcv),
    show_default=True,
    help="Low Combat Value L per 1000: the casualty range starts at L x E / 1000.",
)
@click.option(
    "--hcv",
    callback=_exact,
    default=str(_DEFAULTS.fire_hcv),
    show_default=True,
    help="High Combat Value H per 1000: the casualty range ends at H x E / 1000.",
)
def musket_fire(
    value: Fraction,
    modifier: Fraction,
    alternative: bool,
    target_artillery: bool,
    as_json: bool,
    lcv: Fraction,
    hcv: Fraction,
) -> None:
    """Exact casualties of one volley (combat value V, modifier M).

    \b
    Example:
      battlesim odds musket-fire --value 1800 --modifier -40
    """
    o = _odds(value, modifier, lcv, hcv, alternative)
    _report(o, guns_lost_odds(o.distribution) if target_artillery else None, as_json)


@click.command("musket-melee", cls=Command)
@_common
@click.option(
    "--lcv",
    callback=_exact,
    default=str(_DEFAULTS.melee_lcv),
    show_default=True,
    help="Melee Low Combat Value L per 1000: the range starts at L x E / 1000.",
)
@click.option(
    "--hcv",
    callback=_exact,
    default=str(_DEFAULTS.melee_hcv),
    show_default=True,
    help="Melee High Combat Value H per 1000: the range ends at H x E / 1000.",
)
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
    """Exact casualties of one side in a melee.

    V is the *opposing* side's strength.

    \b
    Example:
      battlesim odds musket-melee --value 450 --loser
    """
    factor = Fraction(
        str(_DEFAULTS.melee_loser_fatigue_factor if loser else _DEFAULTS.melee_fatigue_factor)
    )
    o = _odds(value, modifier, lcv, hcv, alternative, factor)
    _report(o, guns_lost_odds(o.distribution) if target_artillery else None, as_json)


def _table_arg(ctx: click.Context, param: click.Parameter, value: str) -> int:
    del ctx
    if value == "*":
        return 0
    if value.isdigit() and 1 <= int(value) <= 15:
        return int(value)
    raise click.BadParameter(f"{value!r} is not a hit table (* or 1..15)", param=param)


@click.command("flattop", cls=Command)
@click.option(
    "--hit-table",
    required=True,
    callback=_table_arg,
    help="The attacker's basic hit table: * or 1..15.",
)
@click.option("--factors", type=click.IntRange(1), required=True, help="Attacking factors.")
@click.option(
    "--modifier",
    type=int,
    default=0,
    show_default=True,
    help="Hit-table modifier (crippled +2, anchored +2, clouds -2, night -4).",
)
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def flattop_odds(hit_table: int, factors: int, modifier: int, as_json: bool) -> None:
    """Exact hits of one attack (revised Hit Table Matrix and CRT).

    \b
    Example:
      battlesim odds flattop --hit-table 7 --factors 12 --modifier -2
    """
    o = hit_odds(hit_table, factors, modifier)
    if as_json:
        click.echo(
            json.dumps(
                {
                    "distribution": {str(k): float(p) for k, p in o.distribution.items()},
                    "exact": {str(k): str(p) for k, p in o.distribution.items()},
                    "mean": float(o.mean),
                    "mean_exact": str(o.mean),
                    "hit_table": o.hit_table,
                    "column": o.column,
                    "cell": float(o.cell) if o.cell is not None else None,
                }
            )
        )
        return
    if o.hit_table is None:
        click.echo("below the * row: no attack")
    else:
        cell = f"{float(o.cell):.1f}" if o.cell is not None else "-- (no effect)"
        click.echo(f"hit table {o.hit_table}, {factors} factors (column {o.column}): cell {cell}")
    for line in _table(o.distribution, "hits"):
        click.echo(line)
    click.echo(f"mean {float(o.mean):.6g} (exactly {o.mean})")


_COVERS = [
    f"{a}-{k}" for a in ("quarter", "half", "three_quarters", "full") for k in ("soft", "hard")
]


@click.command("becmi", cls=Command)
@click.option("--thac0", type=click.IntRange(-20, 40), required=True, help="Attacker's THAC0.")
@click.option("--ac", type=click.IntRange(-40, 20), required=True, help="Target's armour class.")
@click.option(
    "--range",
    "range_band",
    type=click.Choice(["short", "medium", "long"]),
    default=None,
    help="Missile range band.",
)
@click.option("--cover", type=click.Choice(_COVERS), default=None, help="Target's cover.")
@click.option(
    "--natural-1-misses/--no-natural-1-misses",
    default=True,
    show_default=True,
    help="A natural 1 always misses.",
)
@click.option(
    "--natural-20-hits/--no-natural-20-hits",
    default=False,
    show_default=True,
    help="A natural 20 always hits.",
)
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def becmi_odds(
    thac0: int,
    ac: int,
    range_band: str | None,
    cover: str | None,
    natural_1_misses: bool,
    natural_20_hits: bool,
    as_json: bool,
) -> None:
    """Roll needed, damage bonus and chance to hit of one attack.

    \b
    Example:
      battlesim odds becmi --thac0 19 --ac 9 --range long --cover half-soft
    """
    options = BecmiOptions(natural_1_misses=natural_1_misses, natural_20_hits=natural_20_hits)
    o = to_hit_odds(thac0, ac, range_band, cover, options)
    if as_json:
        click.echo(
            json.dumps(
                {
                    "distribution": {"hit": float(o.p_hit), "miss": float(1 - o.p_hit)},
                    "exact": {"hit": str(o.p_hit), "miss": str(1 - o.p_hit)},
                    "mean": float(o.p_hit),
                    "needed": o.needed,
                    "die_needed": o.die_needed,
                    "damage_bonus": o.damage_bonus,
                    "p_hit": float(o.p_hit),
                    "h": o.h,
                    "modifiers": o.modifiers,
                }
            )
        )
        return
    mods = ", ".join(f"{k} {v:+d}" for k, v in o.modifiers.items()) or "none"
    click.echo(
        f"THAC0 {thac0} - AC {ac} = H {o.h} -> needs {o.needed}"
        f"{f', +{o.damage_bonus} damage' if o.damage_bonus else ''}; modifiers: {mods}"
    )
    if o.die_needed is None:
        click.echo("full hard cover: it cannot be hit")
    else:
        face = (
            "no face reaches it by its total"
            if o.die_needed > 20
            else "every face reaches it"
            if o.die_needed <= 1
            else f"the d20 must show {o.die_needed} or more"
        )
        click.echo(f"{face} (naturals as set); p(hit) = {float(o.p_hit):.4f} (exactly {o.p_hit})")
