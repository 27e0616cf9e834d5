"""sim.scenario.patch: a scenario's own text with fields set reads back as its data with them
set, and keeps every comment; what it cannot edit plainly it refuses (None)."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest

from sim.scenario.load import parse_yaml
from sim.scenario.patch import set_fields

SCENARIOS = Path(__file__).resolve().parents[2] / "scenarios"
Keys = tuple[str | int, ...]


def _leaves(node: Any, keys: Keys = ()) -> list[tuple[Keys, Any]]:
    if isinstance(node, dict):
        return [leaf for k, v in node.items() for leaf in _leaves(v, (*keys, k))]
    if isinstance(node, list):
        return [leaf for i, v in enumerate(node) for leaf in _leaves(v, (*keys, i))]
    return [(keys, node)]


def _mappings(node: Any, keys: Keys = ()) -> list[Keys]:
    """The keys of every mapping in ``node`` (the top level's first)."""
    found: list[Keys] = [keys] if isinstance(node, dict) else []
    items = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(
        node, list) else ()  # fmt: skip
    for k, v in items:
        found += _mappings(v, (*keys, k))
    return found


def _other(value: Any) -> Any:
    """A value of the same kind that differs from ``value``."""
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return value + 7
    if isinstance(value, float):
        return value / 2 + 0.25
    if value is None:
        return 3
    return f"{value} (set)"


def _set(data: Any, keys: Keys, value: Any) -> Any:
    out = copy.deepcopy(data)
    node = out
    for key in keys[:-1]:
        node = node.setdefault(key, {}) if isinstance(node, dict) else node[key]
    node[keys[-1]] = value
    return out


def _comments(text: str) -> list[str]:
    return [line[line.index("#") :] for line in text.splitlines() if line.lstrip().startswith("#")]


@pytest.mark.parametrize("path", sorted(SCENARIOS.glob("*.yaml")), ids=lambda p: p.stem)
def test_every_shipped_scenario_reads_back_as_its_data_with_the_fields_set(path: Path) -> None:
    """For a spread of each shipped file's values (about six, evenly spaced: block and flow
    mappings, quoted and plain scalars), a key added to a spread of
    its mappings (a side whose last value is a list of units, a task force's ships…), and an
    option and a nested mapping the file leaves out: the edited text parses to the data with
    those set, and every whole-line comment is still there."""
    text = path.read_text(encoding="utf-8")
    data, _ = parse_yaml(text, str(path))
    leaves = [leaf for leaf in _leaves(data) if leaf[0]]
    step = max(1, len(leaves) // 6)
    edits: list[tuple[Keys, Any]] = [(keys, _other(v)) for keys, v in leaves[::step]]
    mappings = _mappings(data)  # a key added to each (about 6): a side, a unit, a strike…
    picked = mappings[:3] + mappings[3 :: max(1, len(mappings) // 6)]  # the first side's too
    edits += [((*keys, "probe"), "08") for keys in picked]
    edits.append((("options", "an_option_left_out"), 0.5))
    edits.append((("a_mapping_left_out", "inner", "leaf"), True))
    edited = set_fields(text, edits)
    assert edited is not None
    expected = data
    for keys, value in edits:
        expected = _set(expected, keys, value)
    assert parse_yaml(edited, str(path))[0] == expected
    assert _comments(edited) == _comments(text)


def test_a_value_is_replaced_where_it_stands_and_a_missing_key_joins_its_mapping() -> None:
    text = (
        "# sources\n"
        "name: x   # the name\n"
        'when: "08:00"\n'
        "units:\n"
        "  - {id: a, strength: 500}   # a note\n"
        "  - id: b\n"
        "    strength: 300\n"
        "options:\n"
        "  fire_scale: 1.0   # ours\n"
        "empty: {}\n"
    )
    edits: list[tuple[Keys, Any]] = [
        (("units", 0, "strength"), 450),
        (("units", 0, "quality"), "B"),
        (("units", 1, "strength"), 250),
        (("units", 1, "quality"), "C"),
        (("options", "fire_scale"), 0.8),
        (("options", "rout_loss"), 0.25),
        (("empty", "k"), 1),
        (("when",), "09:20"),
    ]
    assert set_fields(text, edits) == (
        "# sources\n"
        "name: x   # the name\n"
        "when: '09:20'\n"
        "units:\n"
        "  - {id: a, strength: 450, quality: B}   # a note\n"
        "  - id: b\n"
        "    strength: 250\n"
        "    quality: C\n"
        "options:\n"
        "  fire_scale: 0.8   # ours\n"
        "  rout_loss: 0.25\n"
        "empty: {k: 1}\n"
    )


def test_a_key_joins_the_item_it_belongs_to_not_the_next() -> None:
    """A block mapping whose last value is a nested list ends where its last item ends: the
    new key goes there, not after the next item's start (it joined side b, or broke)."""
    text = "sides:\n  - id: a\n    units:\n      - u1\n  - id: b\n    units: []\n"
    assert set_fields(text, [(("sides", 0, "morale"), 2)]) == (
        "sides:\n  - id: a\n    units:\n      - u1\n    morale: 2\n  - id: b\n    units: []\n"
    )
    text = "side:\n  tfs:\n    - id: a\n      ships:\n        - x\n  strikes: []\n"
    assert parse_yaml(set_fields(text, [(("side", "tfs", 0, "cap"), 2)]) or "", "t")[0] == {
        "side": {"tfs": [{"id": "a", "ships": ["x"], "cap": 2}], "strikes": []}
    }


def test_text_that_reads_as_a_number_in_the_core_schema_stays_text() -> None:
    """Scenarios are read in YAML 1.2's core schema: "1e5", "08" and "0o17" are numbers
    there unless quoted (YAML 1.1's dumper left them bare)."""
    edited = set_fields("a: x\n", [(("a",), "1e5"), (("b",), "08"), (("c",), "0o17")])
    assert edited is not None
    assert parse_yaml(edited, "t")[0] == {"a": "1e5", "b": "08", "c": "0o17"}


@pytest.mark.parametrize(
    ("text", "keys"),
    [
        ("{a: , b: 1}\n", ("a",)),  # an empty value: nothing stands where it goes
        ("a:\nb: 1\n", ("a",)),
        ("a: [b: 1]\n", ("a", 0, "c")),  # a pair in a flow list: no braces to add to
        ("x: {k: 1}\na: [b: 1]\n", ("a", 0, "c")),
        ("a: &x {b: 1}\nc: *x\n", ("a", "b")),  # an anchor: the edit would reach c too
        ("base: {b: 1}\nc:\n  <<: {b: 1}\n  d: 2\n", ("c", "d")),  # a merge key
        ("units: []\n", ("units", 0, "strength")),  # a list item to create
        ("a: [1, 2]\n", ("a", 5)),  # past the list's end
        ("a: 1\n", ("a", "b")),  # a key under a number
    ],
)
def test_what_it_cannot_edit_plainly_it_refuses(text: str, keys: Keys) -> None:
    assert set_fields(text, [(keys, 3)]) is None


def test_a_trailing_comma_in_a_flow_mapping_takes_no_second_one() -> None:
    edited = set_fields("x: {a: 1, b: 2, }\n", [(("x", "c"), 3)])
    assert edited is not None and parse_yaml(edited, "t")[0] == {"x": {"a": 1, "b": 2, "c": 3}}


def test_a_block_scalar_becomes_one_line_and_the_next_key_keeps_its_own() -> None:
    text = "description: >\n  two\n  lines\nseed: 1\n"
    assert set_fields(text, [(("description",), "one")]) == "description: one\nseed: 1\n"


def test_a_value_that_does_not_fit_on_one_line_is_refused() -> None:
    assert set_fields("a: x\n", [(("a",), "two\nlines")]) is None
    assert set_fields("a: x\n", [(("a",), [1, 2])]) is None


def test_a_value_already_held_is_left_as_written() -> None:
    """25 set to 25.0, "1" to "1", true to true: the text is not respelled (it read ``25.0``
    and ``'1'``, an unchanged line changed); 1 set to true and "1" to 1 are changes."""
    text = 'a: 25   # c\nb: "1"\nc: true\nd: 1\ne: "1"\n'
    edits: list[tuple[Keys, Any]] = [
        (("a",), 25.0), (("b",), "1"), (("c",), True), (("d",), True), (("e",), 1)
    ]  # fmt: skip
    assert set_fields(text, edits) == 'a: 25   # c\nb: "1"\nc: true\nd: true\ne: 1\n'


def test_a_mark_notes_the_comment_beside_a_changed_value_with_what_it_was() -> None:
    """With a mark, the comment ending a changed value's line is kept behind "mark: <key>
    was <old text>", its ``#`` at its column (one space at least); two values changed on one
    line share one note; a note already in the file (a fit of a fitted file) is kept behind
    the new one; a line without a comment, a comment on another line of a flow mapping, and
    a ``#`` inside quotes are left alone; a CRLF line keeps its CR."""
    text = (
        "a: 24       # rolled\n"
        "b: long   # c\n"
        "c: 1\n"
        "u: {id: x, ac: 6, hp: 6, n: 'a #1'}  # the puncher\n"
        "v: {p: 1,\n"
        "    q: 2}  # about q\n"
        "w: 'x # y'\n"
        "h: [[4, 3], [5, 3]]  # hexes\n"
        "r: 3   # calibrated: r was 2; ours\r\n"
    )
    edits: list[tuple[Keys, Any]] = [
        (("a",), 7),
        (("b",), "longer than the gap"),
        (("c",), 2),
        (("u", "ac"), 4),
        (("u", "hp"), 9),
        (("v", "p"), 5),
        (("w",), "z # w"),
        (("h", 1, 0), 6),
        (("r",), 4),
    ]
    assert set_fields(text, edits, mark="calibrated") == (
        "a: 7        # calibrated: a was 24; rolled\n"
        "b: longer than the gap # calibrated: b was long; c\n"
        "c: 2\n"
        "u: {id: x, ac: 4, hp: 9, n: 'a #1'}  # calibrated: ac was 6, hp was 6; the puncher\n"
        "v: {p: 5,\n"
        "    q: 2}  # about q\n"
        "w: 'z # w'\n"
        "h: [[4, 3], [6, 3]]  # calibrated: h.1.0 was 5; hexes\n"
        "r: 4   # calibrated: r was 3; calibrated: r was 2; ours\r\n"
    )
