"""A replay long in turns: a real header, then N ``engine.turn_ended`` events, correctly chained.

The shape that made ``show --unit`` and ``report`` grow with the replay's
length in turns (issue 31): a real battle has few turns and many events a
turn; this one has one event a turn.  The header is the stone-wall golden's
(its scenario and digests, so every tool opens it), each turn ends with the
state digest that golden recorded at its first turn's end, and the footer
counts the events; every line is sealed by the writer's own chain function.
It does not re-simulate (``verify`` finds turn 1 differs, reading every
line to the end first).

``python benchmarks/long_turns.py OUT --turns 200000``.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from engine.log import GENESIS, seal

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = ROOT / "replays" / "stone_wall-s1862.jsonl"
MINUTES = 20.0


def write_long_turns(out: Path, turns: int, golden: Path = GOLDEN) -> int:
    """Write the replay to ``out``; return its event count (= ``turns``)."""
    lines = golden.read_text(encoding="utf-8").splitlines()
    header = lines[0]
    first_end = next(json.loads(line) for line in lines if '"engine.turn_ended"' in line)
    digest = first_end["state_digest"]
    previous = json.loads(header)["h"]
    assert seal(GENESIS, header[: -len(',"h":"' + previous + '"}')] + "}")[1] == previous
    with out.open("w", encoding="utf-8") as fh:
        fh.write(header + "\n")
        for seq in range(turns):
            body = (
                f'{{"type":"engine.turn_ended","schema_version":1,"seq":{seq},"turn":{seq + 1},'
                f'"time":{MINUTES * (seq + 1)!r},"cause":null,"state_digest":"{digest}"}}'
            )
            line, previous = seal(previous, body)
            fh.write(line + "\n")
        footer = json.dumps(
            {"footer": True, "events": turns, "final_turn": turns, "final_state_digest": digest},
            separators=(",", ":"),
        )
        fh.write(seal(previous, footer)[0] + "\n")
    return turns


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--turns", type=int, default=200_000)
    args = parser.parse_args()
    print(f"wrote {args.out}: {write_long_turns(args.out, args.turns):,} turns")


if __name__ == "__main__":
    main()
