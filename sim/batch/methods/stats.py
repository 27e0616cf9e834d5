"""Binomial confidence intervals for win probabilities: Wilson, Clopper–Pearson, Jeffreys.

* ``wilson`` (default): the score interval, Wilson (1927);
* ``clopper-pearson``: the exact interval from the binomial tails, Clopper & Pearson (1934):
  [B(α/2; k, n − k + 1), B(1 − α/2; k + 1, n − k)], B the beta quantile;
* ``jeffreys``: the equal-tailed posterior interval under the Jeffreys prior
  Beta(½, ½): [B(α/2; k + ½, n − k + ½), B(1 − α/2; k + ½, n − k + ½)], with the
  lower end 0 when k = 0 and the upper 1 when k = n (Brown, Cai & DasGupta 2001).

Each returns an :class:`Interval`; :func:`proportion` picks one by name.
:class:`Estimate` is any estimate with its interval and the method's name
(a calibration target's, a historical case's measure).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Concatenate, Final, Literal, ParamSpec, get_args

__all__ = [
    "METHODS",
    "Z95",
    "Estimate",
    "Interval",
    "clopper_pearson",
    "clustered",
    "jeffreys",
    "proportion",
    "wilson",
    "wilson_cc",
]

Z95: Final = 1.959963984540054
"""The 97.5 % quantile of the standard normal: a two-sided 95 % interval."""
ALPHA: Final = 0.05
P = ParamSpec("P")

Method = Literal["wilson", "clopper-pearson", "jeffreys"]
METHODS: Final[tuple[str, ...]] = get_args(Method)


@dataclass(frozen=True)
class Interval:
    """An estimated proportion ``p = k / n`` and its interval ``[low, high]``."""

    k: int
    n: int
    p: float
    low: float
    high: float

    @property
    def half_width(self) -> float:
        """Half the interval's width (the ``--until-ci`` criterion)."""
        return (self.high - self.low) / 2


@dataclass(frozen=True)
class Estimate:
    """An estimate over ``n`` runs and its interval ``[low, high]``, named by ``method``."""

    value: float
    low: float
    high: float
    n: int
    method: str


def _proportion(
    interval: Callable[Concatenate[int, int, P], Interval],
) -> Callable[Concatenate[int, int, P], Interval]:
    """``interval`` of ``k`` successes in ``n`` trials, refusing ``k`` outside 0 … ``n``
    (ValueError) and giving, with no trials, the unknown proportion: NaN in [0, 1]."""

    @functools.wraps(interval)
    def checked(k: int, n: int, /, *args: P.args, **kwargs: P.kwargs) -> Interval:
        if not 0 <= k <= n:
            raise ValueError(f"{interval.__name__}: need 0 <= k <= n, got k={k}, n={n}")
        if n == 0:
            return Interval(0, 0, math.nan, 0.0, 1.0)
        return interval(k, n, *args, **kwargs)

    return checked


@_proportion
def wilson(k: int, n: int, z: float = Z95) -> Interval:
    """The Wilson score interval of ``k`` successes in ``n`` trials.

    centre = (p̂ + z²/2n) / (1 + z²/n);
    half-width = z / (1 + z²/n) · √(p̂(1 − p̂)/n + z²/4n²).
    With no trials the proportion is unknown: ``p`` is NaN and the interval [0, 1].

    Raises:
        ValueError: ``k`` is negative or more than ``n``.
    """
    p = k / n
    z2 = z * z
    denom = 1 + z2 / n
    centre = (p + z2 / (2 * n)) / denom
    half = z / denom * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n))
    # low <= p <= high holds exactly; clamp away the last bit of rounding (e.g. k = 0).
    return Interval(k, n, p, min(p, max(0.0, centre - half)), max(p, min(1.0, centre + half)))


@_proportion
def wilson_cc(k: int, n: int, z: float = Z95) -> Interval:
    """The Wilson score interval with continuity correction (Newcombe 1998a, method 4).

    low = (2np̂ + z² − 1 − z√(z² − 2 − 1/n + 4p̂(n(1 − p̂) + 1))) / 2(n + z²), 0 when k = 0;
    high = (2np̂ + z² + 1 + z√(z² + 2 − 1/n + 4p̂(n(1 − p̂) − 1))) / 2(n + z²), 1 when k = n.

    Raises:
        ValueError: ``k`` is negative or more than ``n``.
    """
    p = k / n
    z2 = z * z
    denom = 2 * (n + z2)
    low = 0.0
    if k > 0:
        low = 2 * n * p + z2 - 1 - z * math.sqrt(z2 - 2 - 1 / n + 4 * p * (n * (1 - p) + 1))
        low /= denom
    high = 1.0
    if k < n:
        high = 2 * n * p + z2 + 1 + z * math.sqrt(z2 + 2 - 1 / n + 4 * p * (n * (1 - p) - 1))
        high /= denom
    return Interval(k, n, p, min(p, max(0.0, low)), max(p, min(1.0, high)))


def _beta(q: float, a: float, b: float) -> float:
    """The ``q`` quantile of the Beta(``a``, ``b``) distribution: ``scipy.special.betaincinv``,
    the value ``scipy.stats.beta.ppf`` gives bit for bit (``tests/batch/test_quantiles.py``),
    without importing ``scipy.stats`` (0.4 s of CPU a process)."""
    from scipy.special import betaincinv  # type: ignore[import-untyped]  # noqa: PLC0415  # slow import

    return float(betaincinv(a, b, q))


@_proportion
def clopper_pearson(k: int, n: int) -> Interval:
    """The exact (Clopper–Pearson) 95 % interval of ``k`` successes in ``n`` trials."""
    low = 0.0 if k == 0 else _beta(ALPHA / 2, k, n - k + 1)
    high = 1.0 if k == n else _beta(1 - ALPHA / 2, k + 1, n - k)
    return Interval(k, n, k / n, low, high)


@_proportion
def jeffreys(k: int, n: int) -> Interval:
    """The Jeffreys 95 % interval of ``k`` successes in ``n`` trials."""
    low = 0.0 if k == 0 else _beta(ALPHA / 2, k + 0.5, n - k + 0.5)
    high = 1.0 if k == n else _beta(1 - ALPHA / 2, k + 0.5, n - k + 0.5)
    return Interval(k, n, k / n, low, high)


def proportion(k: int, n: int, method: str = "wilson") -> Interval:
    """The 95 % interval of ``k`` of ``n`` by ``method`` (one of :data:`METHODS`).

    Raises:
        ValueError: an unknown method, or ``k`` outside 0 … ``n``.
    """
    if method == "wilson":
        return wilson(k, n)
    if method == "clopper-pearson":
        return clopper_pearson(k, n)
    if method == "jeffreys":
        return jeffreys(k, n)
    raise ValueError(f"unknown interval {method!r}: one of {', '.join(METHODS)}")


def clustered(p: float, se: float, n: int, clusters: int, method: str = "wilson") -> Interval:
    """The 95 % interval of a proportion ``p`` of ``n`` correlated trials in ``clusters``
    clusters, whose clustered standard error is ``se`` > 0 (Korn & Graubard 1998).

    The trials count as their effective number, n_eff = p(1 − p)/se² (at most ``n``: a
    design effect below one is not taken as more information than the trials hold),
    shrunk by (z/t)², t the 97.5 % quantile of Student's t with ``clusters`` − 1 degrees of
    freedom, n* = n_eff·(z/t)²; the interval is ``method``'s on p·n* successes in n*
    trials, the formulas above taken at those (fractional) counts. With ``wilson`` this is
    Wilson's interval with t for z on n_eff. Where p·n* = 0 or n* (it never is for se >
    0), the ends are 0 and 1 as for ``k`` = 0 and ``n``.

    Raises:
        ValueError: an unknown method, ``se`` not above 0, or fewer than two clusters.
    """
    from scipy.special import stdtrit  # noqa: PLC0415

    if method not in METHODS:
        raise ValueError(f"unknown interval {method!r}: one of {', '.join(METHODS)}")
    if not se > 0 or clusters < 2:
        raise ValueError("a clustered interval needs se > 0 and two clusters or more")
    t = float(stdtrit(clusters - 1, 1 - ALPHA / 2))
    size = min(float(n), p * (1 - p) / se**2) * (Z95 / t) ** 2
    x = p * size
    if method == "wilson":
        z2 = Z95 * Z95
        denom = 1 + z2 / size
        centre = (p + z2 / (2 * size)) / denom
        half = Z95 / denom * math.sqrt(p * (1 - p) / size + z2 / (4 * size * size))
        low, high = centre - half, centre + half
    else:
        jeffreys_prior = 0.5 if method == "jeffreys" else 0.0
        a_low, b_low = x + jeffreys_prior, size - x + 1 - jeffreys_prior
        a_high, b_high = x + 1 - jeffreys_prior, size - x + jeffreys_prior
        low = 0.0 if x <= 0 else _beta(ALPHA / 2, a_low, b_low)
        high = 1.0 if x >= size else _beta(1 - ALPHA / 2, a_high, b_high)
    return Interval(round(p * n), n, p, min(p, max(0.0, low)), max(p, min(1.0, high)))
