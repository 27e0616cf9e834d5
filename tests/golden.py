"""Golden replays: one per shipped scenario at a fixed seed, in ``replays/``.

Regenerating them is an explicit, reviewed act: ``make golden`` (which runs
``python tests/golden.py regenerate``: it rewrites only the replays whose bytes changed, and
says which), then read the diff before committing.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def checkout_on(path: list[str], pythonpath: str | None) -> list[str]:
    """The script's ``sys.path``: the checkout ahead of the installed packages but after the
    folders ``pythonpath`` names, so a changed copy of the code put first on ``PYTHONPATH``
    is the one fought, as ``battlesim`` itself fights it (the checkout went first, and
    ``PYTHONPATH=eli make golden`` fought the checkout and rewrote nothing); without the
    script's own folder, ``tests/``, whose ``tests/sim`` is no ``sim``."""
    here = str(Path(__file__).resolve().parent)
    kept = [p for p in path if not p or os.path.abspath(p) != here]
    given = {os.path.abspath(p) for p in (pythonpath or "").split(os.pathsep) if p}
    last = max((i for i, p in enumerate(kept) if p and os.path.abspath(p) in given), default=-1)
    return [*kept[: last + 1], str(ROOT), *kept[last + 1 :]]


if __name__ == "__main__":
    sys.path[:] = checkout_on(sys.path, os.environ.get("PYTHONPATH"))
else:  # imported by the tests, which fight the checkout
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
    """Fight every golden battle afresh; replace only the replays whose bytes changed, and say
    which did."""
    changed = 0
    with tempfile.TemporaryDirectory(prefix="golden-") as tmp:
        for scenario, seed in GOLDEN.items():
            out = golden_path(scenario, seed)
            new = Path(tmp) / out.name
            api.run(ROOT / "scenarios" / scenario, seed=seed, out=new)
            name = out.relative_to(ROOT)
            if out.is_file() and out.read_bytes() == new.read_bytes():
                print(f"unchanged {name}")
                continue
            partial = out.with_name(out.name + ".partial")
            shutil.copyfile(new, partial)
            partial.replace(out)  # deliberate
            changed += 1
            print(f"wrote {name}")
    review = ": review the diff" if changed else ""
    code = Path(api.__file__).resolve().parent
    print(f"{changed} of {len(GOLDEN)} golden replays rewritten{review} (fought by {code})")


if __name__ == "__main__":
    if sys.argv[1:] != ["regenerate"]:
        sys.exit("usage: python tests/golden.py regenerate")
    regenerate()
