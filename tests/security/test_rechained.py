"""Re-chained forgeries of the header and the numbers never verify (issue 25, item 3).

Every forgery has its hash chain recomputed (``tests/forge.py``).  ``verify``
compares every header field against what re-simulation writes, exactly (a
number's JSON type included, in every format), checks ``source`` against the
scenario file it names, and refuses a fork record that does not describe a
fork ``battlesim fork`` makes.  The family — header fields × forgeries — is
drawn by Hypothesis.
"""

from __future__ import annotations

import gzip
import json
import shutil
import tempfile
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.forge import GOLDEN, ROOT, bodies, edit_header, forge, invoke, reseal

FORMAT3 = ROOT / "tests" / "data" / "replays" / "stone_wall-s1862.format3.jsonl"
OTHER_SCENARIO = "tavern_brawl.yaml"  # shipped, of another ruleset and name

DIGEST = "sha256:" + "0" * 64


def _verify(path: Path) -> tuple[int, str]:
    result = invoke("verify", str(path))
    assert result.exception is None or isinstance(result.exception, SystemExit)
    assert result.stdout.count("\n") == 1, result.output
    return result.exit_code, result.stdout


def _fork(at_seq: Any = 3, parent: Any = "stone_wall-s1862.jsonl", digest: Any = DIGEST) -> dict:
    return {"parent": parent, "parent_digest": digest, "at_seq": at_seq, "event": {}, "state": {}}


HEADER_FORGERIES: dict[str, tuple[Any, str]] = {
    "source": (OTHER_SCENARIO, "header differs from re-simulation in: source"),
    "fork-negative": (_fork(at_seq=-1, parent="x"), "fork at_seq -1 is not an event's seq"),
    "fork-beyond": (_fork(at_seq=10**6), "the header's fork at seq 1000000 changes nothing"),
    "fork-folder": (_fork(parent="../x.jsonl"), "fork parent '../x.jsonl' is not a replay file"),
    "fork-digest": (_fork(digest="sha256:zz"), "fork parent_digest 'sha256:zz' is not"),
    "fork-earlier": (
        {**_fork(), "earlier": _fork(at_seq=-2)},
        "fork at_seq -2 is not an event's seq",
    ),
}


@settings(max_examples=12, deadline=None)
@given(kind=st.sampled_from(sorted(HEADER_FORGERIES)), gz=st.booleans())
def test_a_rechained_header_forgery_never_verifies(kind: str, gz: bool) -> None:
    """A renamed ``source`` or an invented fork record, chain recomputed, plain or
    gzip: exit 1, one line naming the field, never OK."""
    value, fragment = HEADER_FORGERIES[kind]
    field = "source" if kind == "source" else "fork"

    def change(header: dict[str, Any]) -> None:
        header[field] = value

    with tempfile.TemporaryDirectory() as tmp:
        path = forge(Path(tmp), lambda t: edit_header(t, change))
        if gz:
            packed = path.with_name(path.name + ".gz")
            packed.write_bytes(gzip.compress(path.read_bytes(), mtime=0))
            path = packed
        code, out = _verify(path)
    assert code == 1, out
    assert fragment in out, out


def test_the_issue_reproducer_renamed_source(tmp_path: Path) -> None:
    """``source`` renamed to another shipped scenario, chain recomputed: MISMATCH at line 1."""

    def change(header: dict[str, Any]) -> None:
        header["source"] = OTHER_SCENARIO

    code, out = _verify(forge(tmp_path, lambda t: edit_header(t, change)))
    assert (code, out) == (
        1,
        "MISMATCH at line 1: header differs from re-simulation in: source "
        f"('{ROOT / 'scenarios' / OTHER_SCENARIO}' is the scenario "
        "'Brawl at the Prancing Goat', not this battle's \"Stone wall at Marye's Heights\"); "
        "if this battle's scenario is a file of your own of that name, keep the replay beside "
        "it and verify it there\n",
    )


def test_a_source_beside_the_replay_is_the_one_checked(tmp_path: Path) -> None:
    """A scenario file beside the replay, of this battle's ruleset and name, confirms
    ``source``; the same name holding another scenario refutes it."""
    copy = tmp_path / GOLDEN.name
    shutil.copyfile(GOLDEN, copy)
    shutil.copyfile(ROOT / "scenarios" / "stone_wall.yaml", tmp_path / "stone_wall.yaml")
    assert _verify(copy)[0] == 0
    shutil.copyfile(ROOT / "scenarios" / OTHER_SCENARIO, tmp_path / "stone_wall.yaml")
    code, out = _verify(copy)
    assert code == 1 and f"source ('{tmp_path / 'stone_wall.yaml'}' is the scenario" in out


def test_a_source_found_nowhere_is_taken_as_written(tmp_path: Path) -> None:
    """A name no folder holds cannot be checked: the replay of a user's own scenario
    file kept elsewhere still verifies."""

    def change(header: dict[str, Any]) -> None:
        header["source"] = "my_own_copy.yaml"

    texts = edit_header(bodies(GOLDEN), change)
    # The header changed, so the re-simulation writes the same source: byte for byte.
    path = tmp_path / "f.jsonl"
    path.write_text(reseal(texts), encoding="utf-8")
    assert _verify(path)[0] == 0


def _float_times(texts: list[str]) -> list[int]:
    return [i for i, t in enumerate(texts) if i > 0 and '"time":' in t and ".0," in t]


@settings(max_examples=15, deadline=None)
@given(data=st.data())
def test_a_float_rewritten_as_an_int_in_an_older_format_is_refused(data: st.DataObject) -> None:
    """A format-3 replay whose ``"time":104.0`` is rewritten ``104`` (chain recomputed)
    is refused at that line: the strict parse alone reads 104 as 104.0."""
    texts = bodies(FORMAT3)
    i = data.draw(st.sampled_from(_float_times(texts)))
    record = json.loads(texts[i])
    time = record["time"]
    texts[i] = texts[i].replace(f'"time":{time!r}', f'"time":{int(time)}', 1)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "f.jsonl"
        path.write_text(reseal(texts), encoding="utf-8")
        code, out = _verify(path)
    assert code == 1
    assert out.startswith(f"DAMAGED at seq {record['seq']}: ")
    assert out.endswith(f"bad event: time: {int(time)} is written {time!r} (a float)\n")


def test_an_untouched_older_format_still_verifies() -> None:
    """The format-3 fixture itself verifies: every number is as its writer wrote it."""
    code, out = _verify(FORMAT3)
    assert code == 0, out
