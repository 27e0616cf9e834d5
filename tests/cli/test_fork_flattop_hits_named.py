"""A flattop fork refused for its hits names the field to set and the value it must take.

Pat's "what if the dive bombers had hit Shoho twice" on the golden Coral Sea: ``fork --at 9
--set hits_taken=2`` was refused with "hits after are not hits before + hits taken", which
named no field as ``--set`` takes it nor the value the rules give, where musket's refusals
say ``result.fatigue_value must be 0.0, not …``. It now says ``hits_after must be 2 (shoho's
0 hits before + hits_taken 2), not 5``, and a status the hits do not make names the status.
"""

from __future__ import annotations

from pathlib import Path

from tests.forge import invoke

ROOT = Path(__file__).resolve().parents[2]
CORAL_SEA = ROOT / "replays" / "coral_sea-s1942.jsonl"
ATTACK = 9
"""Lexington's dive bombers on Shoho: 5 hits of her 5, sunk."""


def _fork(out: Path, *sets: str) -> list[str]:
    changes = [a for s in sets for a in ("--set", s)]
    result = invoke("fork", str(CORAL_SEA), "--at", str(ATTACK), *changes, "--out", str(out))
    return [str(result.exit_code), result.stderr]


def test_hits_taken_changed_alone_names_hits_after_and_its_value(tmp_path: Path) -> None:
    assert _fork(tmp_path / "f.jsonl", "hits_taken=2") == [
        "2",
        "battlesim: error: --set hits_taken=2: the rules could not make flattop.attacked "
        "(seq 9) so: hits_after must be 2 (shoho's 0 hits before + hits_taken 2), not 5\n",
    ]


def test_a_status_the_hits_do_not_make_names_the_status(tmp_path: Path) -> None:
    assert _fork(tmp_path / "f.jsonl", "hits_taken=2", "hits_after=2") == [
        "2",
        "battlesim: error: --set hits_taken=2, hits_after=2: the rules could not make "
        "flattop.attacked (seq 9) so: 2/5 hits leave shoho afloat: status_after must be "
        "afloat, not sunk\n",
    ]
