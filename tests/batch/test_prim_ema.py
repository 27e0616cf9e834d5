"""discover's PRIM against ema_workbench's on the same runs and thresholds.

Each run is a row for ema (the point's factor values, numbers as floats, and
whether the outcome held); both peel and paste with α = 0.05 and stop at a 5 %
minimum mass. discover follows ema's algorithm (its "lenient1" objective, its
quantile peels and pastes, its stopping rules), so the two trajectories hold
the same runs step by step; the box taken from ema's trajectory is chosen by
discover's rule (the densest with at least half the coverage; ties: more
coverage, then earlier). The boxes must restrict the same factors on the same
sides, each bound within one step of the factor's values (ema's bounds are
quantiles between two values, discover's the values the study has), and the
quasi-p-values must be equal. ema keeps its peeled box only when the box's density
reaches its ``threshold`` (else it returns the whole space); discover shows its densest
box at any density, so ema is given the smallest threshold above 0 (its cases of
interest, y >= threshold, are still the runs where the outcome holds). Skipped
without ema_workbench, an optional reference (``pip install
'ema_workbench>=2.5,<3'``; the ``dev`` extra has it).

Factors of words are left out: ema 2.5.3 cannot peel one under pandas 2
(``TypeError: Invalid value '{'rifle'}' for dtype 'float64'`` when it writes
the level set into its box); discover peels them as ema's code means to, a
level at a time (tests/batch/test_discover.py).
"""

from __future__ import annotations

import logging
import os
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from sim.batch.discovery.discover import study_data
from sim.batch.methods.prim import Box, Data, find_boxes
from tests.batch.helpers import SCENARIOS, invoke
from tests.readme_examples import ALSO_RUN_BY_HELP, shared_command

pytestmark = pytest.mark.filterwarnings("ignore:The inplace keyword")


def _references() -> tuple[Any, Any]:
    """pandas and ema's PRIM module, imported when a test first needs them (skipped without
    them): not when the file is collected, since ema's import walks the stack's source for
    its loggers (about 2.5 CPU seconds), and every xdist worker collects every file."""
    pd = pytest.importorskip("pandas")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # ema warns about optional parts it lacks
        prim = pytest.importorskip("ema_workbench.analysis.prim")
    return pd, prim


def _ema(data: Data) -> tuple[Any, Any, dict[str, Any], list[tuple[int, int]]]:
    """ema's chosen box: its limits, the initial limits, quasi-p-values and trajectory."""
    pd, prim = _references()
    keep = [i for i, n in enumerate(data.runs) if n > 0]
    rows = [data.values[i] for i in keep for _ in range(data.runs[i])]
    y = np.array([r < data.holds[i] for i in keep for r in range(data.runs[i])], dtype=bool)
    x = pd.DataFrame(rows, columns=data.factors)
    for j, name in enumerate(data.factors):
        if data.numeric(j):
            x[name] = x[name].astype(float)
    logging.disable(logging.WARNING)
    try:
        # threshold: a case of interest is y >= it (True, for any threshold in (0, 1]), and ema
        # keeps its peeled box only if the box's mean reaches it, else it returns the whole
        # space ("dump box"); discover shows the densest box whatever its density, so the
        # comparison takes ema's box at any density: the smallest threshold above 0
        box = prim.Prim(x, y, threshold=1e-9, peel_alpha=0.05, paste_alpha=0.05, mass_min=0.05)
        found = box.find_box()
    finally:
        logging.disable(logging.NOTSET)
    t = found.peeling_trajectory
    steps = [(int(n), int(k)) for n, k in zip(t.n, t.k, strict=True)]
    total = int(y.sum())
    i = 0
    for s, (n, k) in enumerate(steps):
        if k / total >= 0.5 and (k / n, k) > (steps[i][1] / steps[i][0], steps[i][1]):
            i = s
    (_, table), *_ = found.inspect(i, style="data")
    qp = table.iloc[:, 2:4].to_numpy()  # per factor: its low bound's qp, its high bound's
    names = list(table.index)
    return found.box_lims[i], found.box_lims[0], {n: qp[k] for k, n in enumerate(names)}, steps


def _sides(data: Data, ours: Box) -> set[tuple[str, str]]:
    return {(data.factors[s.factor], s.bound) for s in ours.significance}


def _ema_sides(data: Data, lims: Any, init: Any) -> set[tuple[str, str]]:
    out = set()
    for j, name in enumerate(data.factors):
        if not data.numeric(j):
            if lims.at[0, name] != init.at[0, name]:
                out.add((name, "levels"))
            continue
        if lims.at[0, name] != init.at[0, name]:
            out.add((name, "low"))
        if lims.at[1, name] != init.at[1, name]:
            out.add((name, "high"))
    return out


def _within_one_step(values: list[float], ours: float, theirs: float) -> bool:
    """At most one of the factor's values lies between the two bounds (one admits it)."""
    low, high = min(ours, theirs), max(ours, theirs)
    return (
        len({v for v in values if low <= v <= high and v not in (ours, theirs)})
        + (1 if ours in values and theirs in values and ours != theirs else 0)
        <= 1
    )


def _check(data: Data) -> Box:
    """Both boxes: the same trajectory, restrictions, quasi-p-values; bounds within a step."""
    (ours,) = find_boxes(data, 1, 0.05, 0.05, 0.5)
    lims, init, qps, steps = _ema(data)
    assert [(s.runs, s.holds) for s in ours.trajectory] == steps
    assert _sides(data, ours) == _ema_sides(data, lims, init)
    for j, lim in enumerate(ours.limits):
        name = data.factors[j]
        if lim is None:
            continue
        if lim.levels is not None:
            assert set(lim.levels) == set(lims.at[0, name])
            continue
        assert lim.low is not None and lim.high is not None
        values = sorted({float(v[j]) for v in data.values})
        assert _within_one_step(values, float(lim.low), float(lims.at[0, name]))
        assert _within_one_step(values, float(lim.high), float(lims.at[1, name]))
    for s in ours.significance:
        theirs = qps[data.factors[s.factor]][0 if s.bound in ("low", "levels") else 1]
        assert s.qp == pytest.approx(theirs, rel=1e-9, abs=1e-300)
    return ours


def test_the_wall_grid_gives_the_same_box_and_the_same_quasi_p_values() -> None:
    """4 × 4 grid, 20 runs a point; the outcome holds 18 times in the region, once outside.

    ema says cover ≥ -35 and fire ≤ 25 where discover says ≥ -30 and ≤ 20: no value lies
    between, so both boxes hold the same 80 runs, 72 where the outcome holds."""
    grid = [(c, f) for c in (-50, -40, -30, -20) for f in (10, 20, 30, 40)]
    data = Data(
        factors=["cover", "fire"],
        values=[[c, f] for c, f in grid],
        runs=[20] * 16,
        holds=[18 if c >= -30 and f <= 20 else 1 for c, f in grid],
    )
    ours = _check(data)
    assert (ours.runs, ours.holds) == (80, 72)
    assert _sides(data, ours) == {("cover", "low"), ("fire", "high")}


def test_a_latin_hypercube_like_design_gives_the_same_box() -> None:
    """200 points of 3 factors with whole values 0–100, 10 runs each; the outcome holds
    with chance 0.8 where a > 60 and b < 50, else 0.1 (seeded). Before discover took ema's
    objective and stopping rules it also cut a's top value (a ≤ 99, qp 0.54); now the
    restrictions are ema's, and a ≥ 62 and b ≤ 49 are the significant ones."""
    rng = np.random.default_rng(7)
    pts = np.round(rng.uniform(0, 100, size=(200, 3)))
    chance = np.where((pts[:, 0] > 60) & (pts[:, 1] < 50), 0.8, 0.1)
    holds = rng.binomial(10, chance)
    data = Data(
        factors=["a", "b", "c"],
        values=[[float(v) for v in row] for row in pts],
        runs=[10] * 200,
        holds=[int(h) for h in holds],
    )
    ours = _check(data)
    assert ("a", "high") not in _sides(data, ours)
    significant = {(data.factors[s.factor], s.bound) for s in ours.significance if s.qp <= 0.05}
    assert {("a", "low"), ("b", "high")} <= significant


@pytest.mark.parametrize("seed", [1, 2, 3, 4, 5, 6])
def test_random_designs_give_the_same_box(seed: int) -> None:
    """Seeded designs of 2–4 factors (grids with repeated values, or whole numbers drawn
    uniformly), 5–30 runs a point (some points with none), and a region of higher chance
    in a corner, an edge or the middle of a factor: the same box as ema's each time."""
    rng = np.random.default_rng(seed)
    k = int(rng.integers(2, 5))
    npoints = int(rng.integers(30, 120))
    if seed % 2:
        levels = [np.arange(int(rng.integers(3, 8))) * 10.0 for _ in range(k)]
        pts = np.array([[rng.choice(lv) for lv in levels] for _ in range(npoints)])
    else:
        pts = np.round(rng.uniform(0, 50, size=(npoints, k)))
    runs = rng.integers(5, 31, size=npoints)
    runs[rng.random(npoints) < 0.05] = 0
    cut = rng.uniform(0.3, 0.7, size=k) * pts.max(axis=0)
    region = (pts[:, 0] >= cut[0]) & (np.abs(pts[:, 1] - cut[1]) < 0.3 * pts[:, 1].max())
    holds = rng.binomial(runs, np.where(region, 0.7, 0.15))
    data = Data(
        factors=[f"f{j}" for j in range(k)],
        values=[[float(v) for v in row] for row in pts],
        runs=[int(n) for n in runs],
        holds=[int(h) for h in holds],
    )
    _check(data)


SHIPPED = "battlesim study scenarios/stone_wall_study.yaml --runs 40 --out sw-quick"
"""README.md's and the study command's help's cut of the shipped study (one run serves them
all, :func:`tests.readme_examples.shared_command`); the tables are the same for any --jobs."""


@pytest.fixture(scope="module")
def shipped(tmp_path_factory: pytest.TempPathFactory, across_workers: Path) -> Path:
    """The shipped stone-wall study, cut to 40 runs a point (a pilot of 20, then 20): the run
    README.md's example made for the pages and the help examples when it is done (``make
    test`` runs README.md's batch section first, tests/units.py), else fought here (its
    command's pool would cost more than this process's one worker)."""
    assert SHIPPED in ALSO_RUN_BY_HELP  # README.md and the help run it as printed
    where = tmp_path_factory.mktemp("shipped")
    # run=False: only a finished run is taken, so the environment is never used to run it
    done = shared_command(SHIPPED, where, dict(os.environ), across_workers, run=False)
    if done is not None:
        assert done.returncode == 0, done.stdout
        return where / "sw-quick"
    out = where / "sw"
    result = invoke(
        "study", SCENARIOS / "stone_wall_study.yaml", "--runs", "40", "--out", out,
        "--jobs", "1", "--quiet",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    return out


@pytest.mark.parametrize("measure", ["usa_men_lost >= 541", "csa_men_lost >= 100"])
def test_the_shipped_study_gives_the_same_box(shipped: Path, measure: str) -> None:
    """On the shipped study's runs, each question's box is ema's."""
    data = study_data(shipped, measure)
    assert 0 < sum(data.holds) < sum(data.runs)
    _check(data)
