"""How tests/data/replays/stone_wall-s1862.format1.jsonl was made (kept for the record).

Format 1 (before snapshots, forks and gzip) stored ``musket.fired`` and
``musket.meleed`` at schema version 1, without ``morale_check_reason``, and
had no ``engine.snapshot`` events.  This script rewrites a current golden
replay into that exact shape, by hand as it were (snapshots dropped, ``seq``
and ``cause`` renumbered, the footer's count adjusted) and re-seals the hash
chain: ``python tests/data/replays/make_format1.py``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT))

from engine.canonical import canonical_json  # noqa: E402
from engine.log import GENESIS, seal  # noqa: E402


def _strip(result: dict[str, object]) -> dict[str, object]:
    return {k: v for k, v in result.items() if k != "morale_check_reason"}


def _renumber(lines: list[str]) -> dict[int, int]:
    """Old seq -> seq once the snapshot lines are gone."""
    kept = [json.loads(x)["seq"] for x in lines[1:-1] if '"engine.snapshot"' not in x]
    return {seq: i for i, seq in enumerate(kept)}


def to_format1(lines: list[str]) -> list[str]:
    """Rewrite current replay lines as format 1, re-sealed."""
    out, h = [], GENESIS
    renumber = _renumber(lines)
    for n, line in enumerate(lines):
        data = {k: v for k, v in json.loads(line).items() if k != "h"}
        if data.get("type") == "engine.snapshot":
            continue
        if n == 0:
            data["format_version"] = 1
            body = canonical_json(data)
        elif data.get("footer"):
            data["events"] = len(renumber)
            body = json.dumps(data, separators=(",", ":"))
        else:
            data["seq"] = renumber[data["seq"]]
            if data["cause"] is not None:
                data["cause"] = renumber[data["cause"]]
            if data.get("type") == "musket.fired":
                data["schema_version"] = 1
                data["result"] = _strip(data["result"])
            elif data.get("type") == "musket.meleed":
                data["schema_version"] = 1
                for key in ("attacker_losses", "defender_losses"):
                    data[key] = _strip(data[key])
            body = json.dumps(data, separators=(",", ":"), ensure_ascii=False)
        sealed, h = seal(h, body)
        out.append(sealed)
    return out


if __name__ == "__main__":
    source = ROOT / "replays" / "stone_wall-s1862.jsonl"
    target = Path(__file__).with_name("stone_wall-s1862.format1.jsonl")
    lines = source.read_text(encoding="utf-8").split("\n")[:-1]
    target.write_text("\n".join(to_format1(lines)) + "\n", encoding="utf-8")
    print(f"wrote {target.relative_to(ROOT)}")
