"""same-bytes-in-other-processes fights in fresh processes whose hash seeds order sets of the
battles' ids otherwise than the checking process (a review's plugin chose its target as
``next(iter({'b1', 'b2'}))``: under the fixed seeds 1 and 2, which order that pair alike, it
passed 33 of 33 checks whenever the check itself ran under seed 1)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

CHOOSE = """
import json, sys
from pathlib import Path
from sim.conformance import checks_run
from sim.conformance.battle import Family
checks_run._ids = lambda family: set(json.loads(sys.argv[1]))
print(json.dumps(checks_run._hash_seeds(Family((), Path(".")))))
"""

FIRST = "import json, sys; print(next(iter(set(json.loads(sys.argv[1])))))"


def _python(code: str, seed: str, *args: str) -> str:
    env = {**os.environ, "PYTHONHASHSEED": seed, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-c", code, *args], capture_output=True, text=True, env=env, check=True
    )
    return done.stdout.strip()


def test_the_seeds_chosen_order_a_pair_otherwise_than_the_check_does() -> None:
    """Checked under hash seed 1, the pair {b1, b2}: each seed chosen yields the other first."""
    pair = json.dumps(["b1", "b2"])
    seeds = json.loads(_python(CHOOSE, "1", pair))
    assert len(seeds) == 2 and "1" not in seeds
    here = _python(FIRST, "1", pair)
    assert [_python(FIRST, s, pair) for s in seeds] == [{"b1": "b2", "b2": "b1"}[here]] * 2
    # the old fixed pair agreed with this process: the fault went unseen
    assert _python(FIRST, "2", pair) == here


def test_with_fewer_than_two_ids_the_fixed_seeds_stand() -> None:
    assert json.loads(_python(CHOOSE, "1", json.dumps(["solo"]))) == ["1", "2"]
