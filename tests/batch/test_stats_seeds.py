"""Wilson intervals against the formula and published values; the seed spawning scheme."""

from __future__ import annotations

import hashlib
import math

import pytest

from sim.batch.inputs.seeds import battle_seed, derived_seed, run_seed
from sim.batch.methods.stats import Z95, wilson


def _formula(k: int, n: int) -> tuple[float, float]:
    """The Wilson score interval written out independently."""
    p, z = k / n, 1.959963984540054
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return centre - half, centre + half


@pytest.mark.parametrize(("k", "n"), [(0, 10), (5, 10), (50, 100), (10, 10), (1, 3), (97, 200)])
def test_wilson_matches_the_formula(k: int, n: int) -> None:
    """Each interval equals the written-out formula to 1e-12."""
    iv = wilson(k, n)
    low, high = _formula(k, n)
    assert iv.p == k / n
    assert iv.low == pytest.approx(max(0.0, low), abs=1e-12)
    assert iv.high == pytest.approx(min(1.0, high), abs=1e-12)


def test_wilson_published_values() -> None:
    """0/10 → [0, 0.2775]; 5/10 → [0.2366, 0.7634]; 50/100 → [0.4038, 0.5962] (4 places)."""
    assert (round(wilson(0, 10).low, 4), round(wilson(0, 10).high, 4)) == (0.0, 0.2775)
    assert (round(wilson(5, 10).low, 4), round(wilson(5, 10).high, 4)) == (0.2366, 0.7634)
    assert (round(wilson(50, 100).low, 4), round(wilson(50, 100).high, 4)) == (0.4038, 0.5962)
    assert wilson(50, 100).half_width == pytest.approx(0.0962, abs=5e-5)
    assert Z95 == 1.959963984540054  # scipy.stats.norm.ppf(0.975)


def test_wilson_of_nothing_is_the_whole_interval() -> None:
    """No trials: p unknown (NaN), interval [0, 1]; k > n is refused."""
    iv = wilson(0, 0)
    assert math.isnan(iv.p) and (iv.low, iv.high) == (0.0, 1.0)
    with pytest.raises(ValueError, match="0 <= k <= n"):
        wilson(3, 2)


def _sha(text: str) -> int:
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big") >> 1


def test_run_seed_is_sha256_of_study_seed_point_and_replication() -> None:
    """The documented scheme: SHA-256("battlesim-batch/1" NUL seed NUL point NUL rep), 63 bits."""
    assert run_seed(2024, 3, 17) == _sha("battlesim-batch/1\x002024\x003\x0017")
    assert run_seed(2024, 3, 17, crn=True) == _sha("battlesim-batch/1\x002024\x00*\x0017")
    assert battle_seed(99, 1) == _sha("battlesim-batch/1\x00campaign\x0099\x001")
    assert derived_seed(2024, "lhs") == _sha("battlesim-batch/1\x002024\x00lhs")
    assert 0 <= run_seed(2**63 - 1, 10**6, 10**6) < 2**63


def test_crn_seeds_depend_on_the_replication_only() -> None:
    """With CRN every point's replication r has one seed; without, points differ."""
    assert {run_seed(5, p, 2, crn=True) for p in range(4)} == {run_seed(5, 0, 2, crn=True)}
    assert len({run_seed(5, p, 2) for p in range(4)}) == 4
    assert len({run_seed(5, 0, r, crn=True) for r in range(4)}) == 4
