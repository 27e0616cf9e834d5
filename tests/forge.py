"""A careful forger's tools: edit replay lines and recompute the hash chain.

The chain only proves that nobody edited a file *without* recomputing it;
these helpers recompute it so that tests reach the checks behind it.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from click.testing import CliRunner, Result

from engine.canonical import canonical_json
from engine.log import GENESIS, seal
from sim.cli import cli

ROOT = Path(__file__).resolve().parents[1]
GOLDEN = ROOT / "tests" / "data" / "replays" / "stone_wall-s1862-musket-rules1.jsonl"
"""The stone wall golden replay as musket rules version 1 wrote it (kept when version 2
regenerated replays/): the battle these forgery tests were written against."""
FORMAT1 = ROOT / "tests" / "data" / "replays" / "stone_wall-s1862.format1.jsonl"
FORMAT4 = ROOT / "tests" / "data" / "replays" / "stone_wall-s1862.format4.jsonl"
"""The stone_wall golden as format 4 wrote it (random derivation 1): 12 turns, a snapshot."""


def bodies(path: Path) -> list[str]:
    """The lines of a replay without their ``"h"`` members."""
    lines = path.read_text(encoding="utf-8").split("\n")[:-1]
    return [line[: line.rindex(',"h":"')] + "}" for line in lines]


def reseal(texts: list[str]) -> str:
    """The file text of ``texts`` (line bodies) with a freshly computed chain."""
    out, h = [], GENESIS
    for body in texts:
        line, h = seal(h, body)
        out.append(line)
    return "\n".join(out) + "\n"


def header_body(data: dict[str, Any]) -> str:
    """A header body as the writer writes it (canonical JSON)."""
    return canonical_json(data)


def forge(
    tmp_path: Path, edit: Callable[[list[str]], list[str]], source: Path = GOLDEN, name: str = "f"
) -> Path:
    """Write ``source`` with its line bodies edited by ``edit`` and the chain recomputed."""
    path = tmp_path / f"{name}.jsonl"
    path.write_text(reseal(edit(bodies(source))), encoding="utf-8")
    return path


def edit_header(texts: list[str], change: Callable[[dict[str, Any]], None]) -> list[str]:
    """``texts`` with the header decoded, changed in place and written canonically."""
    header = json.loads(texts[0])
    change(header)
    return [canonical_json(header), *texts[1:]]


def invoke(*args: str) -> Result:
    """Run the CLI in-process; stdout and stderr separate."""
    return CliRunner().invoke(cli, list(args), prog_name="battlesim")
