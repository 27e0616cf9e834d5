"""The to-hit arithmetic and the table look-ups, as pure functions.

``H = THAC0 − AC`` (seed 001 L9) is the d20 roll needed, adjusted at the
plateaus above 20 and below 2 (seed 001 L10–L14) exactly as rules-notes §3
states:

* above 20: for each threshold T = 20, 30, 40, … in order, if H > T then
  H = max(T, H − 4);
* below 2: for each threshold T = 2, −10, −20, … in order, if H < T then
  H = min(T, H + 4) (option ``low_plateaus`` [ours]: the seed names 2 and −10
  and then "etc."; ``two_and_minus_10`` stops after those two);
* if H is still negative, the roll needed is 2 and −H is added to damage.
"""

from __future__ import annotations

from dataclasses import dataclass

from sim.rulesets.becmi.model.data import (
    ABILITY_ADJUSTMENTS,
    COLUMN_OF_CLASS,
    DEATH_RAY,
    NORMAL_MAN_THAC0,
    THAC0_ROWS,
)

__all__ = [
    "HitDice",
    "Needed",
    "ability_adjustment",
    "character_thac0",
    "death_ray_save",
    "monster_thac0",
    "needed",
    "parse_hd",
    "plateau",
]


def plateau(h: int, every_10: bool = True) -> tuple[int, list[tuple[int, int, int]]]:
    """Apply the plateau adjustments to a basic to-hit ``h``.

    Args:
        every_10: continue the low thresholds past −10 in steps of 10 [ours];
            False stops after 2 and −10.

    Returns:
        (adjusted H, the steps taken as ``(threshold, before, after)``).
    """
    steps: list[tuple[int, int, int]] = []
    t = 20
    while h > t:
        after = max(t, h - 4)
        steps.append((t, h, after))
        h, t = after, t + 10
    t = 2
    while h < t and (every_10 or t >= -10):
        after = min(t, h + 4)
        steps.append((t, h, after))
        h, t = after, (-10 if t == 2 else t - 10)
    return h, steps


@dataclass(frozen=True)
class Needed:
    """The roll needed to hit, with its derivation."""

    h: int
    """THAC0 − AC, before the plateaus."""
    steps: list[tuple[int, int, int]]
    adjusted: int
    """H after the plateaus (may be negative)."""
    needed: int
    """The d20 result (after roll modifiers) that hits."""
    damage_bonus: int
    """−H when the adjusted H is negative (seed 001 L14), else 0."""


def needed(thac0: int, ac: int, every_10: bool = True) -> Needed:
    """The roll needed by an attacker of ``thac0`` against armour class ``ac``.

    Args:
        every_10: option ``low_plateaus`` is ``every_10`` (see :func:`plateau`).
    """
    h = thac0 - ac
    adjusted, steps = plateau(h, every_10)
    if adjusted < 0:
        return Needed(h, steps, adjusted, 2, -adjusted)
    return Needed(h, steps, adjusted, adjusted, 0)


def ability_adjustment(score: int) -> int:
    """The standard adjustment of an ability score 3–18 [src] (rules-notes §3)."""
    for low, high, adj in ABILITY_ADJUSTMENTS:
        if low <= score <= high:
            return adj
    raise ValueError(f"ability score {score} is outside 3-18")


def character_thac0(cls: str, level: int, rank: str | None = None) -> int:
    """THAC0 of a character from the seed's table (seed 001 L21–L44).

    A normal man has 20 (L21); a demi-human with an attack rank uses the D-H
    column, otherwise every class uses its column by level.
    """
    if cls == "normal_man":
        return NORMAL_MAN_THAC0
    for _line, thac0, mu, ct, f, dh, _hd in THAC0_ROWS:
        if rank is not None:
            if dh == rank:
                return thac0
            continue
        levels = {"M-U": mu, "C/T": ct, "F": f}[COLUMN_OF_CLASS[cls]]
        if levels is not None and levels[0] <= level <= levels[1]:
            return thac0
    raise ValueError(f"no THAC0 for {cls} level {level} rank {rank}")


@dataclass(frozen=True)
class HitDice:
    """A monster's Hit Dice: ``dice`` and a ``plus`` (``4+1``: 4, +1; ``1-1``: 1, −1).

    ``half`` marks ½ HD (dice 0).
    """

    dice: int
    plus: int = 0
    half: bool = False

    @property
    def twice(self) -> int:
        """2 × HD as an integer (½ HD → 1); the plus is ignored."""
        return 1 if self.half else 2 * self.dice

    @property
    def key(self) -> int:
        """Order on the THAC0 table's HD rows: n+ sorts above n, n−1 with n (by default)."""
        return 2 * self.dice + (1 if self.plus > 0 else 0)

    def row_key(self, minus_row: str = "n") -> int:
        """:attr:`key`, but an n−k read as n−1 when ``minus_row`` (option
        ``minus_hd_row`` [ours]) is ``n_minus_1``: 2−1 on the "up to 1" row, not "1+ to 2"."""
        if minus_row == "n_minus_1" and self.plus < 0:
            return 2 * (self.dice - 1)
        return self.key

    def __str__(self) -> str:
        if self.half:
            return "1/2"
        return f"{self.dice}{self.plus:+d}" if self.plus else str(self.dice)


MAX_HD = 100
"""[ours] The most Hit Dice a monster may have: the Rules Cyclopedia's to-hit rows end at
"35+ up"; a bound keeps every figure a battle derives from them a 64-bit integer, as a
replay holds (a monster of 9,999,999,999,999,999,999 HD made a replay no tool could show)."""
MAX_HD_PLUS = 100
"""[ours] The largest plus or minus on the Hit Dice (``n+k``, ``n-k``)."""


def parse_hd(text: str) -> HitDice:
    """Read ``"1"``, ``"1+1"``, ``"1-1"`` or ``"1/2"``.

    Raises:
        ValueError: not one of those forms.
    """
    if text == "1/2":
        return HitDice(0, 0, half=True)
    head, sign, tail = text.partition("+") if "+" in text else text.partition("-")
    digits = head.isascii() and head.isdigit() and (not sign or (tail.isascii() and tail.isdigit()))
    if not digits or int(head[:5]) < 1:
        raise ValueError(f"Hit Dice {text!r}: write 1/2, n, n+k or n-k (n >= 1)")
    if (
        len(head.lstrip("0")) > 3
        or len(tail.lstrip("0")) > 3
        or int(head) > MAX_HD
        or (int(tail or 0) > MAX_HD_PLUS)
    ):
        raise ValueError(
            f"Hit Dice {text!r}: at most {MAX_HD} dice and a plus or minus of at most "
            f"{MAX_HD_PLUS} (the Rules Cyclopedia's tables end far below)"
        )
    plus = int(tail) if sign else 0
    return HitDice(int(head), plus if sign == "+" else -plus)


def monster_thac0(hd: HitDice, minus_row: str = "n") -> int:
    """THAC0 of a monster from its Hit Dice (seed 001 L22–L44, the HD column); an n−k
    reads n's row, or n−1's when ``minus_row`` is ``n_minus_1`` (:meth:`HitDice.row_key`)."""
    k = hd.row_key(minus_row)
    for _line, thac0, _mu, _ct, _f, _dh, (low, high) in THAC0_ROWS:
        above_low = low is None or k > 2 * low
        below_high = high is None or k <= 2 * high
        if above_low and below_high:
            return thac0
    raise AssertionError("the HD rows cover every Hit Dice")  # pragma: no cover


def death_ray_save(cls: str, level: int) -> int:
    """The d20 roll that saves vs Death Ray [src: Rules Cyclopedia]."""
    for first, last, number in DEATH_RAY[cls]:
        if first <= level <= last:
            return number
    raise ValueError(f"no Death Ray save for {cls} level {level}")
