"""``--until-ci W``: a pilot sizes each point's run, a fresh confirmatory sample is summarised.

Stopping as soon as an interval is narrow enough biases small proportions
down: a point stops early when it happens to have seen few wins (at p = 0.03,
W = 0.05 the old rule's mean estimate was 0.0235, −22 %). The shipped rule,
``pilot``, stops on a decision made before the summarised runs are fought:

1. **Pilot**: the first :func:`pilot_runs` replications of every point (whole
   chunks; an eighth of the runs the worst case p = ½ needs, at most a
   quarter of ``--runs`` before it is rounded up to a whole chunk).
2. **Sizing**: for each side, the proportion in the pilot's Wilson 95 %
   interval nearest ½ (the least favourable value the pilot allows); the
   confirmatory sample is the fewest runs whose Wilson half-width at that
   proportion is at most W, for every side (:func:`confirm_runs`), rounded
   up to whole chunks and capped at ``--runs`` less the pilot.
3. **Confirmation**: those replications are fought; the point's summary
   (win rates, losses, turns, comparisons, indices) is over them alone.

The confirmatory sample's size depends on the pilot only, never on its own
results, so its proportion k/n is an unbiased estimate and its Wilson
interval keeps Wilson's coverage; the pilot runs stay in the tables, marked
(``runs_wide.pilot``, each point's ``pilot`` in ``summary.json``).
:func:`simulate` measures bias and coverage of both rules on Bernoulli
draws (``python -m sim.batch.planning.stopping``).

A study made before this rule (its plan has no ``stopping``) stopped by the
old ``sequential`` rule and is summarised over all its runs, as it was.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final, Literal

from sim.batch.methods.stats import Z95, wilson
from sim.text.grammar import count

__all__ = [
    "PILOT",
    "SEQUENTIAL",
    "Rule",
    "confirm_runs",
    "half_width",
    "needed",
    "pilot_problem",
    "pilot_runs",
    "rule_of",
    "simulate",
    "summarised",
]

Rule = Literal["pilot", "sequential"]
PILOT: Final = "pilot"
SEQUENTIAL: Final = "sequential"


def half_width(p: float, n: int, z: float = Z95) -> float:
    """The Wilson half-width of a proportion ``p`` observed in ``n`` runs."""
    z2 = z * z
    return z / (1 + z2 / n) * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n))


def needed(p: float, w: float, cap: int) -> int:
    """The fewest runs (at most ``cap``) whose Wilson half-width at ``p`` is at most ``w``."""
    if half_width(p, cap) > w:
        return cap
    low, high = 1, cap  # half_width falls as n grows: bisect for the first n that meets w
    while low < high:
        mid = (low + high) // 2
        if half_width(p, mid) <= w:
            high = mid
        else:
            low = mid + 1
    return low


def _chunks(n: int, chunk: int) -> int:
    return math.ceil(n / chunk) * chunk


def pilot_runs(w: float, replications: int, chunk: int) -> int:
    """Pilot replications: ⌈min(z²/32W², R/4)⌉ rounded up to whole chunks (at least one).

    z²/4W² runs give a half-width of W at p = ½ (the worst case): the pilot is an eighth of it.
    """
    try:
        need = Z95 * Z95 / (32 * w * w)
    except (ZeroDivisionError, OverflowError):  # w so small its square is 0: no pilot is enough
        need = math.inf
    quarter = min(need, replications / 4)
    return min(replications, _chunks(max(1, math.ceil(quarter)), chunk))


def pilot_problem(
    w: float, replications: int, chunk: int, runs_name: str, chunk_name: str
) -> str | None:
    """Why a stopping width ``w`` cannot run in ``replications`` (the pilot leaves no
    confirmatory sample), or None; the runs and chunk size named as the user gave them
    (``--runs`` or a study file's ``replications``)."""
    pilot = pilot_runs(w, replications, chunk)
    if pilot < replications:
        return None
    least = replications + 1  # the fewest runs that leave the pilot a run to confirm
    while pilot_runs(w, least, chunk) >= least:
        least += 1
    return (
        f"its pilot takes {count(pilot, 'run')} of a point, leaving none of {runs_name} "
        f"{replications} "
        f"for the confirmatory sample: raise {runs_name} (at least {least}) or lower "
        f"{chunk_name}"
    )


def sizing_p(k: int, n: int) -> float:
    """The proportion in the Wilson 95 % interval of k of n nearest ½."""
    iv = wilson(k, n)
    return min(max(0.5, iv.low), iv.high)


def confirm_runs(
    pilot_wins: Sequence[int], pilot_done: int, w: float, replications: int, chunk: int
) -> tuple[int, bool]:
    """Confirmatory replications after a pilot, and whether ``--runs`` cut them short.

    ``pilot_wins``: each side's wins among the pilot's ``pilot_done`` completed
    runs. The runs are whole chunks, at most ``--runs`` less the pilot.
    """
    pilot = pilot_runs(w, replications, chunk)
    cap = replications - pilot
    if cap <= 0:
        return 0, True
    if pilot_done == 0:  # every pilot run failed: nothing to size with, plan the worst case
        return cap, True
    n = max((needed(sizing_p(k, pilot_done), w, cap + 1) for k in pilot_wins), default=1)
    return min(cap, _chunks(n, chunk)), n > cap


def rule_of(plan: dict[str, Any]) -> Rule | None:
    """The stopping rule a stored plan ran with (None: no ``--until-ci``)."""
    if plan.get("until_ci") is None:
        return None
    rule: Rule = plan.get("stopping", SEQUENTIAL)
    return rule


def summarised(plan: dict[str, Any]) -> str:
    """A SQL condition on ``runs`` true for the runs a summary is over (the pilot's are not)."""
    if rule_of(plan) != PILOT:
        return "TRUE"
    first = pilot_runs(plan["until_ci"], plan["replications"], plan["chunk_size"])
    return f"replication >= {first}"


# ---------------------------------------------------------------- simulation


@dataclass(frozen=True)
class Simulated:
    """What a stopping rule gives over many simulated points with true proportion ``p``."""

    rule: Rule
    p: float
    mean: float
    coverage: float
    met: float
    runs: float
    """Mean runs fought per point (the pilot's included)."""
    reps: int

    @property
    def bias(self) -> float:
        """Relative bias of the mean estimate."""
        return self.mean / self.p - 1


def simulate(  # the settings of one simulated study
    rule: Rule, p: float, w: float, replications: int, chunk: int, reps: int, seed: int
) -> Simulated:
    """Apply ``rule`` to ``reps`` points of Bernoulli(``p``) runs drawn by numpy (seeded).

    Each point's win count is drawn chunk by chunk exactly as a study commits
    chunks; the reported estimate is what the summary reports (the
    confirmatory sample's k/n for ``pilot``, all runs' for ``sequential``).
    """
    import numpy as np  # noqa: PLC0415  # numpy only when simulating

    rng = np.random.default_rng(seed)
    est = np.empty(reps)
    cov = met = runs = 0
    for i in range(reps):
        k, n, fought = _one(rule, p, w, replications, chunk, rng)
        iv = wilson(k, n)
        est[i] = iv.p
        cov += iv.low <= p <= iv.high
        met += iv.half_width <= w
        runs += fought
    return Simulated(rule, p, float(est.mean()), cov / reps, met / reps, runs / reps, reps)


def _one(
    rule: Rule, p: float, w: float, replications: int, chunk: int, rng: Any
) -> tuple[int, int, int]:
    """(wins, runs summarised, runs fought) of one simulated point."""
    if rule == SEQUENTIAL:
        k = n = 0
        while n < replications:
            size = min(chunk, replications - n)
            k, n = k + int(rng.binomial(size, p)), n + size
            if wilson(k, n).half_width <= w:
                break
        return k, n, n
    n0 = pilot_runs(w, replications, chunk)
    k0 = int(rng.binomial(n0, p))
    n1, _ = confirm_runs([k0, n0 - k0], n0, w, replications, chunk)
    return int(rng.binomial(n1, p)), n1, n0 + n1


def table(
    ps: Sequence[float], w: float, replications: int, chunk: int, reps: int, seed: int
) -> list[str]:
    """Bias and coverage of both rules at each p (``python -m sim.batch.planning.stopping``)."""
    lines = [
        f"W = {w:g}, --runs {replications}, chunks of {chunk}, {reps} simulated points per row "
        f"(numpy seed {seed})",
        f"{'rule':<11} {'p':>6} {'mean p̂':>8} {'bias':>7} {'coverage':>9} {'met W':>6} {'runs':>6}",
    ]
    for p in ps:
        for rule in (PILOT, SEQUENTIAL):
            s = simulate(rule, p, w, replications, chunk, reps, seed)
            lines.append(
                f"{rule:<11} {p:>6.2f} {s.mean:>8.4f} {100 * s.bias:>+6.1f}% "
                f"{100 * s.coverage:>8.1f}% {100 * s.met:>5.1f}% {s.runs:>6.1f}"
            )
    return lines


def main(argv: Sequence[str]) -> int:
    """``python -m sim.batch.planning.stopping``: the table of docs/batch.md; it takes no
    arguments (``--help`` says what it prints), and needs numpy (the study extra)."""
    if argv and argv[0] in ("-h", "--help"):
        print(
            "usage: python -m sim.batch.planning.stopping\n"
            "Prints the bias and coverage of the --until-ci rule (pilot) and of stopping at the "
            "first chunk whose interval is narrow enough (sequential), simulated on plain "
            "Bernoulli draws (docs/batch.md); it takes no arguments."
        )
        return 0
    if argv:
        print(
            f"python -m sim.batch.planning.stopping: takes no arguments (got {argv[0]!r}); "
            "--help says what it prints",
            file=sys.stderr,
        )
        return 2
    try:
        import numpy  # noqa: F401, PLC0415
    except ImportError:
        print(
            "python -m sim.batch.planning.stopping: needs numpy, in the study extra: "
            "pip install 'battlesim[study]'",
            file=sys.stderr,
        )
        return 2
    print("\n".join(table((0.03, 0.06, 0.2, 0.5), 0.05, 1000, 20, 2000, 1)))
    return 0


if __name__ == "__main__":  # pragma: no cover - exercised by the docs example
    sys.exit(main(sys.argv[1:]))
