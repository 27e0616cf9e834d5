"""libyaml and the pure-Python composer give the loader the same data, line map and messages.

The loader composes with libyaml (a speed device) and falls back to PyYAML's
pure-Python composer on any doubt; these tests parse every shipped YAML file,
every bad scenario and a seeded set of damaged variants of them both ways and
demand the same outcome: equal data and line maps, or the same error lines.
"""

from __future__ import annotations

import gc
import random
from pathlib import Path
from typing import Any

import pytest

from sim.scenario import load as loader
from sim.scenario.load import MAX_DEPTH, ScenarioError, parse_yaml

ROOT = Path(__file__).resolve().parents[2]
SHIPPED = sorted(
    p
    for folder in ("scenarios", "tests/data", "docs", "examples")
    if (ROOT / folder).is_dir()
    for p in (ROOT / folder).rglob("*.yaml")
)
_INSERTS: tuple[str, ...] = (
    ":",
    ": ",
    "[",
    "]",
    "{",
    "}",
    "&a ",
    "*a",
    "\t",
    "'",
    '"',
    "- ",
    "!!int ",
    "#",
    "\n",
)
_INSERTS += ("  ", "? ", "|", ">", "<<: *a", ",", "\r\n", "\u2028", "\x85", "\ufeff", "%YAML 1.1\n")
_INSERTS += ("?", " ?", "[? a]")
_INSERTS += ("---\n", "...\n", "\\", "0x1F", "1e3", "yes", "~", "\x7f", "é", "\x01")


def _outcome(text: str, *, fast: bool, monkeypatch: pytest.MonkeyPatch) -> tuple[Any, ...]:
    """(data, line map) or the error lines, parsed by libyaml first (fast) or by PyYAML alone."""
    with monkeypatch.context() as patch:
        if not fast:
            patch.setattr(loader, "_CLoader", None)
        try:
            data, lines = parse_yaml(text, "f.yaml")
        except ScenarioError as exc:
            return ("error", [str(p) for p in exc.problems])
    return ("ok", repr(data), sorted(lines.items(), key=repr))


def _same(text: str, monkeypatch: pytest.MonkeyPatch) -> tuple[Any, ...]:
    fast = _outcome(text, fast=True, monkeypatch=monkeypatch)
    assert fast == _outcome(text, fast=False, monkeypatch=monkeypatch), repr(text[:200])
    return fast


def test_libyaml_is_installed_here() -> None:
    """The fast path exists in the test environment, so the comparisons compare two paths."""
    assert loader._CLoader is not None


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_shipped_file_parses_the_same_both_ways(
    path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each shipped YAML file gives the same data and line map, or the same errors, both ways."""
    text = path.read_text(encoding="utf-8")
    _same(text, monkeypatch)


def test_shipped_scenarios_take_the_fast_path() -> None:
    """Every shipped scenario without a '?' in its data is composed by libyaml."""
    texts = [p.read_text(encoding="utf-8") for p in (ROOT / "scenarios").glob("*.yaml")]
    texts = [t for t in texts if not loader._PURE_ONLY.search(t)]
    assert len(texts) >= 15
    assert [loader._parse_fast(t, "f.yaml") is None for t in texts] == [False] * len(texts)


@pytest.mark.parametrize("path", SHIPPED[::3], ids=lambda p: str(p.relative_to(ROOT)))
def test_damaged_variants_parse_the_same_both_ways(
    path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Seeded insertions, deletions and cuts of a shipped file: the same outcome both ways."""
    text = path.read_text(encoding="utf-8")
    rng = random.Random(f"loader-paths:{path.name}")
    for _ in range(25):
        at = rng.randrange(len(text) + 1)
        choice = rng.randrange(3)
        if choice == 0:
            variant = text[:at] + rng.choice(_INSERTS) + text[at:]
        elif choice == 1:
            variant = text[:at] + text[at + rng.randrange(1, 8) :]
        else:
            variant = text[:at]
        _same(variant, monkeypatch)


@pytest.mark.parametrize(
    "text",
    [
        "[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1),
        "[" * MAX_DEPTH + "]" * MAX_DEPTH,
        "[" * 5000 + "]" * 5000,
        "a:\n" + "".join(" " * (i + 1) + "b:\n" for i in range(MAX_DEPTH + 5)),
        "a: &a [*a]\n",
        "a: &a {b: *a}\n",
        "a: &x [1, 2]\nb: &y [*x, *x]\nc: &z [*y, *y, *y]\nd: [*z, *z]\n",
        "a: &x [[[[[[[[[[1]]]]]]]]]]\n" + "".join(f"b{i}: &x{i} [*x]\n" for i in range(1)),
        "a: *nowhere\n",
        "\ufeffa: 1\n",
        "a: 1\r\nb: 2\r\n",
        "a: 1\rb: 2\r",
        "a: 'x\u2028y'\nb: 2\n",
        "a: \x07\n",
        "a: 1\n---\nb: 2\n",
        "",
        "# only a comment\n",
        "a: !!python/object:os.system x\n",
        "a: 12:30\nb: 2024-01-01\nc: yes\nd: True\n",
        "? [a, b]\n: 1\n",
        "a:\n\t- 1\n",
        "># a comment\n an empty document\n",
        "a: |-#x\n  b\n",
    ],
)
def test_hostile_and_odd_documents_parse_the_same_both_ways(
    text: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Deep nesting, alias cycles and bombs, byte-order marks, odd line ends: the same outcome."""
    _same(text, monkeypatch)


def test_excess_depth_falls_back_and_a_cycle_is_refused_after_the_pure_composer_agrees() -> None:
    """Nesting past MAX_DEPTH is left to the pure composer; a cycle is refused by the builder."""
    deep = "[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1)
    ok = "[" * (MAX_DEPTH - 1) + "]" * (MAX_DEPTH - 1)
    assert loader._parse_fast(deep, "f.yaml") is None
    assert loader._parse_fast(ok, "f.yaml") is not None
    with pytest.raises(ScenarioError) as info:
        loader._parse_fast("a: &a [*a]\n", "f.yaml")
    assert str(info.value) == f"f.yaml:1: a{'.0' * (MAX_DEPTH - 1)}: nested deeper than 100 levels"


def _alias_document(rng: random.Random) -> str:
    """Anchors whose aliases multiply (a bomb or not), mappings of them, a chain of aliases
    nesting deep, and perhaps a bad value or key put in at some level."""
    levels, fan = rng.randint(2, 6), rng.randint(2, 9)
    bad_at = rng.randrange(levels + 3)
    bad = rng.choice(["!!int lots", "'x\x01y'", "!!python/none ''", "{a: 1, a: 2}", "{<<: {}}"])
    lines = []
    chain = rng.choice([0, 0, MAX_DEPTH - 5, MAX_DEPTH - 1, MAX_DEPTH + 3])
    if chain:  # before the bomb or after it
        head = ["d0: &d0 [1]", *(f"d{k}: &d{k} [*d{k - 1}]" for k in range(1, chain))]
        lines += head if rng.random() < 0.5 else []
    lines.append(f"l0: &l0 [{', '.join(['lol'] * fan)}]")
    for k in range(1, levels):
        items = [f"*l{k - 1}"] * rng.randint(1, fan) + ([bad] if bad_at == k else [])
        rng.shuffle(items)
        lines.append(f"l{k}: &l{k} [{', '.join(items)}]")
        if rng.random() < 0.3:
            lines.append(f"m{k}: &m{k} {{x: *l{k}, y: *l{k - 1}}}")
    if chain:
        if not lines[0].startswith("d0"):
            lines += ["d0: &d0 [1]", *(f"d{k}: &d{k} [*d{k - 1}]" for k in range(1, chain))]
        lines.append(f"dd: [*d{chain - 1}, *l{levels - 1}]")
    if bad_at == levels:
        lines.append(f"tail: {bad}")
    lines.append(f"last: [*l{levels - 1}, *l{levels - 1}]")
    return "\n".join(lines) + "\n"


def test_a_document_that_must_fail_fails_as_a_whole_build_does(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The builder skips a node built cleanly once when a document must fail (an alias bomb):
    the same first problem, both ways, as a builder that builds every node again, over
    seeded documents of multiplying aliases, deep alias chains and bad values (the value
    limit lowered to 6,000, so that a whole build of a bomb is cheap; a chain of 103
    aliases, each one level deeper, holds 5,459 values)."""
    monkeypatch.setattr(loader, "MAX_NODES", 6_000)
    rng = random.Random("loader-paths:aliases")
    kinds: set[str] = set()
    for _ in range(60):
        text = _alias_document(rng)
        got = _same(text, monkeypatch)
        with monkeypatch.context() as patch:
            patch.setattr(loader, "_past_limits", lambda _root: False)
            whole = _same(text, monkeypatch)
        assert got == whole, text[:300]
        words = ("too large", "deeper", "duplicate", "merge", "tag", "not a valid", "")
        kinds.add("ok" if got[0] == "ok" else next(k for k in words if k in got[1][0]))
    assert kinds >= {"ok", "too large", "deeper", "duplicate", "merge", "tag", "not a valid"}


@pytest.mark.parametrize("fast", [True, False], ids=["libyaml", "pure"])
def test_parsing_leaves_no_yaml_object_for_the_cyclic_gc(
    fast: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every node and mark a parse makes is freed when the parse ends, by reference counting:
    none is left in a cycle for the cyclic GC (a loader kept as the builder's scalar
    constructor was one, with every node it built: 1,043 objects a load of stone_wall.yaml,
    which a battle started next froze into the oldest generation until a full collection)."""
    text = (ROOT / "scenarios" / "stone_wall.yaml").read_text(encoding="utf-8")
    if not fast:
        monkeypatch.setattr(loader, "_CLoader", None)
    parse_yaml(text, "f.yaml")  # first use: whatever the modules cache once
    gc.collect()
    debug = gc.get_debug()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        parse_yaml(text, "f.yaml")
        gc.collect()
        left = sorted({type(o).__module__ for o in gc.garbage if "yaml" in type(o).__module__})
    finally:
        gc.set_debug(debug)
        gc.garbage.clear()
    assert left == []
