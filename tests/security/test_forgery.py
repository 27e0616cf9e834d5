"""Downgrade and lenient-parse forgeries (issue 12, item 1): none verifies, none crashes.

Every forgery here has its hash chain recomputed, as a careful forger
would, so the chain itself is no help: the strict reader and the
per-format shape checks must refuse each one.
"""

from __future__ import annotations

import gzip
import json
import re
from pathlib import Path
from typing import Any

import pytest

from tests.forge import FORMAT1, FORMAT4, GOLDEN, ROOT, bodies, edit_header, forge, invoke, reseal


def _verify_refuses(path: Path, fragment: str) -> str:
    """``verify`` exits 1 (damaged), one line on stdout naming ``fragment``, no traceback."""
    result = invoke("verify", str(path))
    assert result.exit_code == 1, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)
    assert result.stdout.startswith("DAMAGED at ")
    assert result.stdout.count("\n") == 1
    assert fragment in result.stdout
    return result.stdout


def _without_first_schema_version(texts: list[str]) -> list[str]:
    return [texts[0], texts[1].replace('"schema_version":1,', "", 1), *texts[2:]]


def test_deleting_schema_version_from_one_event_is_refused(tmp_path: Path) -> None:
    """The issue's reproducer: an event without schema_version no longer slips into upcasting."""
    path = forge(tmp_path, _without_first_schema_version)
    _verify_refuses(path, "(seq 0): bad event: event has no 'schema_version'")


@pytest.mark.parametrize("version", [1, 0, -7, True, "2", 2.0, None])
def test_header_format_version_forgeries_are_refused(tmp_path: Path, version: Any) -> None:
    """format_version 1 on a format-2 file, 0, -7, true, "2", 2.0 or null: never OK."""

    def change(header: dict[str, Any]) -> None:
        header["format_version"] = version

    path = forge(tmp_path, lambda t: edit_header(t, change))
    if (
        type(version) is int and version == 1
    ):  # a format-2 file does not have format 1's shape: fired is at schema 2
        _verify_refuses(path, "(seq 3): bad event: schema_version 2: format 1 writes musket.fired")
    else:
        _verify_refuses(path, f"{path}:1: format_version {version!r} is not a replay format")


@pytest.mark.parametrize("source", [FORMAT1, GOLDEN])
@pytest.mark.parametrize(("value", "fragment"), [(True, "source"), ("../../x.yaml", "file name")])
def test_header_source_is_checked_in_every_format(
    tmp_path: Path, source: Path, value: Any, fragment: str
) -> None:
    """The header's source is a scenario file name (text, no folders) in format 1 and 2."""

    def change(header: dict[str, Any]) -> None:
        header["source"] = value

    path = forge(tmp_path, lambda t: edit_header(t, change), source=source)
    _verify_refuses(path, f"{path}:1: bad header: ")
    _verify_refuses(path, fragment)


@pytest.mark.parametrize("field", ["rules_digest", "scenario_digest", "engine_version"])
def test_format1_header_digests_and_versions_are_compared(tmp_path: Path, field: str) -> None:
    """A format-1 replay with a forged digest or version is a mismatch at line 1."""

    def change(header: dict[str, Any]) -> None:
        header[field] = "sha256:" + "0" * 64 if "digest" in field else "9.9.9"

    path = forge(tmp_path, lambda t: edit_header(t, change), source=FORMAT1)
    result = invoke("verify", str(path))
    assert result.exit_code == 1
    assert result.stdout == f"MISMATCH at line 1: header differs from re-simulation in: {field}\n"


def test_format1_footer_is_compared(tmp_path: Path) -> None:
    """A format-1 replay whose footer digest was forged does not verify."""

    def edit(texts: list[str]) -> list[str]:
        footer = json.loads(texts[-1])
        footer["final_state_digest"] = "sha256:" + "1" * 64
        return [*texts[:-1], json.dumps(footer, separators=(",", ":"))]

    result = invoke("verify", str(forge(tmp_path, edit, source=FORMAT1)))
    assert result.exit_code == 1
    assert "footer differs from re-simulation in: final_state_digest" in result.stdout


def test_format1_may_not_hold_snapshot_events(tmp_path: Path) -> None:
    """Format 1 had no engine.snapshot: a 'format 1' file holding one is refused."""
    snapshot = json.loads(next(t for t in bodies(FORMAT4) if '"engine.snapshot"' in t))

    def edit(texts: list[str]) -> list[str]:
        footer = json.loads(texts[-1])
        snapshot["seq"] = footer["events"]
        footer["events"] += 1
        line = json.dumps(snapshot, separators=(",", ":"), ensure_ascii=False)
        return [*texts[:-1], line, json.dumps(footer, separators=(",", ":"))]

    out = _verify_refuses(forge(tmp_path, edit, source=FORMAT1), "does not exist in format 1")
    assert "'engine.snapshot'" in out


def test_format1_may_not_have_a_fork(tmp_path: Path) -> None:
    """A 'format 1' header with a fork (format 2's field) is refused."""

    def change(header: dict[str, Any]) -> None:
        header["fork"] = {"parent": "p", "parent_digest": "d", "at_seq": 0}

    path = forge(tmp_path, lambda t: edit_header(t, change), source=FORMAT1)
    _verify_refuses(path, "bad header: format 1 headers have no 'fork' field")


def test_format1_is_never_gzip(tmp_path: Path) -> None:
    """Format 1 files were plain text: a gzip 'format 1' replay is refused."""
    path = tmp_path / "old.jsonl.gz"
    path.write_bytes(gzip.compress(FORMAT1.read_bytes(), mtime=0))
    _verify_refuses(path, "format 1 replays are never gzip-compressed")


def test_format1_of_a_ruleset_born_in_format2_is_refused(tmp_path: Path) -> None:
    """becmi did not exist in format 1: a becmi replay claiming format 1 is refused."""
    source = ROOT / "replays" / "tavern_brawl-s377.jsonl"

    def change(header: dict[str, Any]) -> None:
        header["format_version"] = 1

    path = forge(tmp_path, lambda t: edit_header(t, change), source=source)
    _verify_refuses(path, "ruleset 'becmi' did not exist in format 1")


@pytest.mark.parametrize(
    ("edit", "fragment"),
    [
        (lambda b: b.replace('"turn":1,', '"turn":1,"turn":1,', 1), "duplicate key 'turn'"),
        (lambda b: b.replace('"turn":1,', '"turn":true,', 1), "(seq 0): bad event: "),
        (lambda b: b.replace('"time":0.0,', '"time":0,', 1), "writer's exact form"),
        (lambda b: b.replace('"cause":null,', '"cause":Infinity,', 1), "Infinity"),
        (lambda b: b.replace('"cause":null,', '"cause":1e999,', 1), "out of range"),
        (lambda b: b.replace('"cause":null,', '"cause":' + "9" * 5000 + ",", 1), "out of range"),
        (
            lambda b: b.replace('"cause":null,', '"cause":' + "[" * 5000 + "]" * 5000 + ",", 1),
            "nested",
        ),
        (lambda b: b.replace('"unit":"69ny"', '"unit":"\\u001b[2J"', 1), "control characters"),
    ],
)
def test_lenient_event_text_is_refused(tmp_path: Path, edit: Any, fragment: str) -> None:
    """Duplicate keys, coerced types, Infinity, huge ints, deep nesting, ESC: refused at seq 0."""
    path = forge(tmp_path, lambda t: [t[0], edit(t[1]), *t[2:]])
    assert "(seq 0)" in _verify_refuses(path, fragment)


@pytest.mark.parametrize(
    ("edit", "fragment"),
    [
        (lambda b: re.sub(r'"events":(\d+)', r'"events":\1,"events":\1', b), "duplicate key"),
        (lambda b: b.replace('"footer":true', '"footer":1'), "bad footer"),
        (lambda b: re.sub(r'"events":(\d+)', r'"events":\1.0', b), "bad footer"),
        (lambda b: b[:-1] + ',"extra":0}', "bad footer"),
    ],
)
def test_lenient_footer_is_refused(tmp_path: Path, edit: Any, fragment: str) -> None:
    """A footer with a repeated, coerced or extra field is refused."""
    path = forge(tmp_path, lambda t: [*t[:-1], edit(t[-1])])
    _verify_refuses(path, fragment)


@pytest.mark.parametrize(
    "digest",
    ["\\ud800sha256:" + "0" * 64, "sha256:" + "0" * 63, "sha256:" + "A" * 64, "md5:0", ""],
)
def test_a_footer_digest_not_in_its_form_is_refused_by_every_reader(
    tmp_path: Path, digest: str
) -> None:
    """A resealed footer whose final_state_digest is not the writer's `sha256:` and 64 hex
    digits is damaged: verify says so at the footer (it said MISMATCH), and show exits 2 (it
    printed the table and exited 0)."""

    def edit(texts: list[str]) -> list[str]:
        said = re.sub(
            r'"final_state_digest":"[^"]*"', lambda _: f'"final_state_digest":"{digest}"', texts[-1]
        )
        return [*texts[:-1], said]

    path = forge(tmp_path, edit)
    _verify_refuses(path, "bad footer: final_state_digest is not 'sha256:' and 64 hex digits")
    shown = invoke("show", str(path))
    assert shown.exit_code == 2 and "bad footer" in shown.stderr, shown.output


def test_header_with_a_duplicate_key_is_refused(tmp_path: Path) -> None:
    """A header repeating a key (the second would win in a lenient reader) is refused."""
    path = forge(tmp_path, lambda t: [t[0].replace('"seed":1862', '"seed":1,"seed":1862'), *t[1:]])
    _verify_refuses(path, "duplicate key 'seed'")


def test_header_seed_true_is_refused(tmp_path: Path) -> None:
    """A header seed of ``true`` is not coerced to 1."""

    def change(header: dict[str, Any]) -> None:
        header["seed"] = True

    _verify_refuses(forge(tmp_path, lambda t: edit_header(t, change)), "bad header: seed")


def test_diff_does_not_call_a_forgery_identical(tmp_path: Path) -> None:
    """diff of a downgraded forgery against its original: refused (exit 2), never 'identical'."""
    path = forge(tmp_path, _without_first_schema_version)
    result = invoke("diff", str(GOLDEN), str(path))
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr.startswith(f"battlesim: error: {path}:2 (seq 0): bad event: ")


@pytest.mark.parametrize("command", [["show"], ["why", "--", "{p}", "3"], ["report"]])
def test_forgeries_never_crash_any_reader(tmp_path: Path, command: list[str]) -> None:
    """show, why and report refuse a forgery with exit 2 and one line, no traceback."""
    path = forge(tmp_path, lambda t: [t[0], t[1].replace('"turn":1,', '"turn":1e999,', 1), *t[2:]])
    args = (
        [a.format(p=path) for a in command] if "{p}" in "".join(command) else [*command, str(path)]
    )
    result = invoke(*args)
    assert result.exit_code == 2
    assert result.stderr.count("\n") == 1 and "out of range" in result.stderr


def test_the_originals_still_verify() -> None:
    """The golden replay and the format-1 fixture (re-sealed unchanged) verify: no false alarms."""
    assert invoke("verify", str(GOLDEN)).exit_code == 0
    assert reseal(bodies(FORMAT1)) == FORMAT1.read_text(encoding="utf-8")
    assert invoke("verify", str(FORMAT1)).exit_code == 0


def test_a_forged_event_naming_no_unit_is_an_invariant_break_not_a_crash(tmp_path: Path) -> None:
    """A resealed event about a unit that is not in the battle: exit 1 at its seq, no KeyError."""

    def edit(texts: list[str]) -> list[str]:
        return [texts[0], texts[1].replace('"unit":"69ny"', '"unit":"ghost"', 1), *texts[2:]]

    result = invoke("verify", str(forge(tmp_path, edit)))
    assert result.exit_code == 1
    assert result.stdout.startswith("INVARIANT broken at seq 0 (line 2): cannot follow from ")
    assert "'ghost'" in result.stdout


def test_a_format1_record_in_a_later_shape_is_refused(tmp_path: Path) -> None:
    """A 'schema 1' fired event that already has morale_check_reason is not schema 1."""

    def edit(texts: list[str]) -> list[str]:
        i = next(n for n, t in enumerate(texts) if '"musket.fired"' in t)
        texts[i] = texts[i].replace(
            '"morale_check":', '"morale_check_reason":null,"morale_check":', 1
        )
        return texts

    out = _verify_refuses(forge(tmp_path, edit, source=FORMAT1), "is not a schema-1 record")
    assert "upgrade" not in out


def test_a_format1_record_missing_a_field_is_refused(tmp_path: Path) -> None:
    """A 'schema 1' fired event without its draws: refused as damage, never a KeyError."""

    def edit(texts: list[str]) -> list[str]:
        i = next(n for n, t in enumerate(texts) if '"musket.fired"' in t)
        record = json.loads(texts[i])
        del record["result"]["draws"]
        texts[i] = json.dumps(record, separators=(",", ":"))
        return texts

    out = _verify_refuses(forge(tmp_path, edit, source=FORMAT1), "(seq 3): bad event: ")
    assert "draws" in out


def test_a_forged_fork_in_the_header_is_damage_not_a_crash(tmp_path: Path) -> None:
    """A header fork setting a strength negative (resealed): DAMAGED at line 1, exit 1."""

    def change(header: dict[str, Any]) -> None:
        header["fork"] = {
            "at_seq": 3,
            "earlier": None,
            "event": {},
            "parent": "p.jsonl",
            "parent_digest": "sha256:" + "0" * 64,
            "state": {"units.1ri.strength": -5},
        }

    path = forge(tmp_path, lambda t: edit_header(t, change))
    out = _verify_refuses(path, f"{path}:1: the header's fork cannot be re-simulated: ")
    assert "cannot be negative" in out


def test_a_ruleset_raising_as_it_fights_a_battle_again_is_its_bug_not_the_files(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A replay with no fork whose ruleset raises when it is fought again: nothing of the
    file changed the battle, so the ruleset is named, with where it raised (exit 2 in the
    tools), not "the header's fork cannot be re-simulated" (DAMAGED, exit 1)."""
    import dataclasses

    from engine.log import MemorySink
    from sim import api
    from sim.contract import HookError
    from sim.replay import header as header_module

    loaded = api.load_replay(GOLDEN)

    def broken(state: Any, event: Any) -> None:
        raise ValueError("apply broke")

    ruleset = dataclasses.replace(loaded.ruleset, apply=broken)
    monkeypatch.setattr(header_module, "header_scenario", lambda _h, _p: (ruleset, loaded.scenario))
    with pytest.raises(HookError) as caught:
        header_module.simulate_into(loaded.header, MemorySink())
    line = broken.__code__.co_firstlineno + 1
    assert str(caught.value) == (
        "ruleset 'musket': fighting the battle again raised ValueError: apply broke "
        f"(at test_forgery.py:{line})"
    )


def _lone_surrogate(texts: list[str]) -> list[str]:
    """The first event's unit id ended by ``\\ud800``: JSON escapes may name a lone surrogate,
    which no UTF-8 text holds and no writer writes."""
    return [
        texts[0],
        re.sub(r'"unit":"([^"]*)"', r'"unit":"\1\\ud800"', texts[1], count=1),
        *texts[2:],
    ]


def test_a_lone_surrogate_in_an_event_is_damage_in_every_reader(tmp_path: Path) -> None:
    """A resealed event holding ``\\ud800`` was read, then could not be written back:
    verify blamed the ruleset (`fighting the battle again raised PydanticSerializationError
    … (at main.py:587)`, exit 2) and show, why and report said `PydanticSerializationError:
    … surrogates not allowed`. It is a line no writer wrote: damaged at its line."""
    path = forge(tmp_path, _lone_surrogate)
    _verify_refuses(path, f"{path}:2 (seq 0): bad event: event is not in the writer's exact form")
    for args in (["show", str(path)], ["why", str(path), "3"], ["report", str(path)]):
        result = invoke(*args)
        assert result.exit_code == 2, (args, result.output)
        assert result.stderr.startswith(f"battlesim: error: {path}:2 (seq 0): bad event: "), args
        assert result.stderr.count("\n") == 1, args


@pytest.mark.parametrize(
    "command",
    [
        ["show"],
        ["show", "{p}", "--events"],
        ["show", "{p}", "--events", "--json"],
        ["report", "{p}", "-o", "{p}.html"],
        ["why", "{p}", "3"],
        ["fork", "{p}", "--at", "5", "--set", "range=2"],
    ],
)
def test_a_forged_event_naming_no_unit_is_damage_to_every_folding_reader(
    tmp_path: Path, command: list[str]
) -> None:
    """The resealed event about a unit not in the battle that verify calls an invariant break:
    show, why and fork said `battlesim: error: KeyError: 'ghost' (at state.py:173)`, as if
    battlesim had failed, then `cannot follow from the battle so far: KeyError('ghost')`; it
    is the file's line that cannot follow, named by line and seq, and the field that names
    no unit of the battle is said in words."""

    def edit(texts: list[str]) -> list[str]:
        return [texts[0], texts[1].replace('"unit":"69ny"', '"unit":"ghost"', 1), *texts[2:]]

    path = forge(tmp_path, edit)
    args = [a.format(p=path) for a in command] if len(command) > 1 else [*command, str(path)]
    result = invoke(*args)
    assert result.exit_code == 2
    assert result.stderr == (
        f"battlesim: error: {path}:2 (seq 0): cannot follow from the battle so far: "
        "unit: unknown unit 'ghost'\n"
    )


@pytest.mark.parametrize(
    ("source", "kind", "field", "words"),
    [
        ("stone_wall-s1862.jsonl", "musket.fired", "target", "unknown unit"),
        ("stone_wall-s1862.jsonl", "musket.side_broken", "side", "unknown side"),
        ("tavern_brawl-s377.jsonl", "becmi.struck", "target", "unknown unit"),
        ("coral_sea-s1942.jsonl", "flattop.air_combat", "strike", "unknown unit"),
    ],
)
def test_a_forged_event_s_unknown_id_is_said_in_words_by_show_events_json(
    tmp_path: Path, source: str, kind: str, field: str, words: str
) -> None:
    """`show --events --json` of a golden whose first `kind` event names 'ghost' in `field`
    (resealed) said `cannot follow from the battle so far: KeyError('ghost')`; it names the
    file, the line and seq of that event (line = its index + 1, seq = line - 2), and the field
    and what it should name, exit 2 as for any damaged file."""
    texts = bodies(ROOT / "replays" / source)
    at = next(i for i, t in enumerate(texts) if t.startswith(f'{{"type":"{kind}",'))
    texts[at] = re.sub(f'"{field}":"[^"]+"', f'"{field}":"ghost"', texts[at], count=1)
    path = tmp_path / "f.jsonl"
    path.write_text(reseal(texts), encoding="utf-8")
    result = invoke("show", str(path), "--events", "--json")
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == (
        f"battlesim: error: {path}:{at + 1} (seq {at - 1}): cannot follow from the battle so "
        f"far: {field}: {words} 'ghost'\n"
    )


def test_verify_says_a_forged_side_in_words(tmp_path: Path) -> None:
    """verify of the golden whose side_broken names side 'ghost' (resealed): the fold fails
    at that event, an invariant broken (exit 1) said in words, not `KeyError('ghost')`."""
    texts = bodies(ROOT / "replays" / "stone_wall-s1862.jsonl")
    at = next(i for i, t in enumerate(texts) if t.startswith('{"type":"musket.side_broken",'))
    texts[at] = re.sub('"side":"[^"]+"', '"side":"ghost"', texts[at], count=1)
    path = tmp_path / "f.jsonl"
    path.write_text(reseal(texts), encoding="utf-8")
    result = invoke("verify", str(path))
    assert (result.exit_code, result.stderr) == (1, "")
    assert result.stdout == (
        f"INVARIANT broken at seq {at - 1} (line {at + 1}): cannot follow from the battle so "
        "far: side: unknown side 'ghost'\n"
    )
