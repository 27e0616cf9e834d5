"""Golden replays: one per shipped scenario at a fixed seed, in ``replays/``.

Regenerating them is an explicit, reviewed act: ``make golden`` (which runs
``python tests/golden.py regenerate``), then read the diff before committing.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from sim import api  # noqa: E402

GOLDEN = {
    "stone_wall.yaml": 1862,
    "napoleonic_brigade.yaml": 1815,
    "chancellorsville.yaml": 1863,
    "tavern_brawl.yaml": 377,
    "dungeon_skirmish.yaml": 3,
    "coral_sea.yaml": 1942,
    "carrier_duel.yaml": 688,
}


def golden_path(scenario: str, seed: int) -> Path:
    """Where the golden replay of ``scenario`` at ``seed`` lives."""
    return ROOT / "replays" / f"{Path(scenario).stem}-s{seed}.jsonl"


def regenerate() -> None:
    """Write every golden replay afresh."""
    for scenario, seed in GOLDEN.items():
        out = golden_path(scenario, seed)
        api.run(ROOT / "scenarios" / scenario, seed=seed, out=out, force=True)  # deliberate
        print(f"wrote {out.relative_to(ROOT)}")


if __name__ == "__main__":
    if sys.argv[1:] != ["regenerate"]:
        sys.exit("usage: python tests/golden.py regenerate")
    regenerate()
