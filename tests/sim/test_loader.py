"""Tests of sim.scenario.load: a broken scenario is refused with file, line, field, message."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from sim.scenario import load as loader
from sim.scenario.load import MAX_BYTES, Located, ScenarioError, load_scenario, parse_yaml

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "data"
CORPUS = DATA / "bad_scenarios"
VALID = DATA / "valid_small.yaml"


def _expected() -> dict[str, list[str]]:
    """EXPECTED.txt as {file name: its error lines, in order}."""
    out: dict[str, list[str]] = {}
    for line in (CORPUS / "EXPECTED.txt").read_text(encoding="utf-8").splitlines():
        if line and not line.startswith("#"):
            out.setdefault(line.split(":", 1)[0], []).append(line)
    return out


EXPECTED = _expected()
CORPUS_FILES = sorted(p.name for p in CORPUS.glob("*.yaml"))


def _problems(path: Path) -> list[Located]:
    with pytest.raises(ScenarioError) as info:
        load_scenario(path)
    return info.value.problems


def _lines(path: Path) -> list[str]:
    return [str(p) for p in _problems(path)]


def test_valid_small_scenario_loads() -> None:
    """The scenario every corpus file varies is itself valid, so each variation is the fault."""
    ruleset, scenario = load_scenario(VALID)
    assert ruleset.name == "musket"
    assert scenario.model_dump(include={"name", "seed"}) == {"name": "Ford at Elk Creek", "seed": 3}


def test_expected_lists_exactly_the_corpus() -> None:
    """EXPECTED.txt has an entry for every corpus file and none for a missing one."""
    assert sorted(EXPECTED) == CORPUS_FILES
    assert len(CORPUS_FILES) == 38


def test_every_corpus_file_starts_with_a_comment() -> None:
    """Each corpus file's first line is a comment saying what is wrong with it."""
    firsts = {n: (CORPUS / n).read_text(encoding="utf-8").split("\n", 1)[0] for n in CORPUS_FILES}
    assert {n: f[:2] for n, f in firsts.items()} == dict.fromkeys(CORPUS_FILES, "# ")


@pytest.mark.parametrize("name", CORPUS_FILES)
def test_corpus_file_lists_its_exact_errors(name: str) -> None:
    """load_scenario raises ScenarioError listing exactly the expected file:line: field: message."""
    assert _lines(CORPUS / name) == [f"{CORPUS}/{line}" for line in EXPECTED[name]]


def test_problem_names_file_line_field_and_message() -> None:
    """A problem's parts are separate attributes, not only text."""
    path = CORPUS / "unknown_field.yaml"
    assert _problems(path) == [Located(str(path), 24, "sides.0.units.0.colour", "unknown field")]


def test_error_text_is_one_line_per_problem() -> None:
    """ScenarioError's message is its problems joined by newlines, in order."""
    path = CORPUS / "several_cross_errors.yaml"
    with pytest.raises(ScenarioError) as info:
        load_scenario(path)
    assert str(info.value) == "\n".join(f"{CORPUS}/{x}" for x in EXPECTED[path.name])


@pytest.mark.parametrize(
    ("name", "fields"),
    [
        (
            "several_schema_errors.yaml",
            ["turns.limit", "sides.0.units.1.quality", "sides.1.retreat", "sides.1.units.0.at.1"],
        ),
        (
            "several_cross_errors.yaml",
            [
                "victory.objectives.0.held_by",
                "sides.0.units.0.order.target",
                "sides.0.units.1.weapon",
                "sides.1.units.0.at",
            ],
        ),
    ],
)
def test_several_errors_are_all_listed(name: str, fields: list[str]) -> None:
    """A file with four mistakes gets four problems, not just the first."""
    assert [p.field for p in _problems(CORPUS / name)] == fields


def test_alias_bomb_is_refused_quickly(monkeypatch: pytest.MonkeyPatch) -> None:
    """Billion laughs stops at the node limit: MAX_NODES + 1 values counted, not a billion,
    and each node of the file built once, the rest of its aliases counted, not built again:
    the builder is called at most once for the root and once for each child a node of the
    composed file names (the graph's edges), a few hundred calls for 200,001 values."""
    path = CORPUS / "alias_bomb.yaml"
    built, builders = 0, []
    real = loader._Builder.build

    def counting(self: Any, node: Any, where: Any) -> Any:
        nonlocal built
        built += 1
        if self not in builders:
            builders.append(self)
        return real(self, node, where)

    monkeypatch.setattr(loader._Builder, "build", counting)
    problems = _problems(path)
    assert [str(p) for p in problems] == [
        f"{path}:4: lol5.0.6.8.8.7.9: document too large: "
        "more than 200000 values (alias expansion?)"
    ]
    assert [b.nodes for b in builders] == [loader.MAX_NODES + 1]
    seen: dict[int, Any] = {}
    todo = [yaml.compose(path.read_text(encoding="utf-8"), Loader=loader.CoreLoader)]
    while todo:
        node = todo.pop()
        if id(node) not in seen:
            seen[id(node)] = node
            pairs = node.value if isinstance(node, yaml.MappingNode) else []
            kids = node.value if isinstance(node, yaml.SequenceNode) else []
            todo.extend([*kids, *(part for pair in pairs for part in pair)])
    edges = sum(
        len(n.value) * (2 if isinstance(n, yaml.MappingNode) else 1)
        for n in seen.values()
        if isinstance(n, yaml.MappingNode | yaml.SequenceNode)
    )
    assert built <= 1 + edges < 400


def test_oversized_file_is_refused_quickly(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A file one byte over 2 MiB is refused before parsing, whatever it holds."""
    path = tmp_path / "big.yaml"
    text = VALID.read_bytes()
    path.write_bytes(text + b"#" * (MAX_BYTES + 1 - len(text)))
    assert path.stat().st_size == 2 * 1024 * 1024 + 1

    def never(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("a file over the limit must not be parsed")

    monkeypatch.setattr(loader.yaml, "compose", never)
    problems = _lines(path)
    assert problems == [f"{path}:1: file too large (limit 2097152 bytes)"]


def test_file_of_exactly_the_limit_is_read(tmp_path: Path) -> None:
    """A file of exactly MAX_BYTES bytes is not too large: the limit is inclusive."""
    path = tmp_path / "limit.yaml"
    text = VALID.read_bytes()
    path.write_bytes(text + b"#" * (MAX_BYTES - len(text)))
    assert load_scenario(path)[1].model_dump(include={"name"}) == {"name": "Ford at Elk Creek"}


def test_alias_chain_nesting_is_refused(tmp_path: Path) -> None:
    """Aliases that nest a document 600 deep are refused at depth 100, not a RecursionError."""
    path = tmp_path / "chain.yaml"
    chain = [f"x{k}: &x{k} [*x{k - 1}]" for k in range(1, 600)]
    path.write_text("\n".join(["ruleset: musket", "x0: &x0 [1]", *chain]) + "\n")
    field = "x98" + ".0" * 99
    assert _lines(path) == [f"{path}:2: {field}: nested deeper than 100 levels"]


def test_block_nesting_is_refused_at_the_first_line_too_deep(tmp_path: Path) -> None:
    """Mappings nested 150 deep are refused on line 100, whose key is the 101st level."""
    path = tmp_path / "deep.yaml"
    path.write_text("".join(f"{' ' * k}k{k}:\n" for k in range(150)) + " " * 150 + "x\n")
    assert _lines(path) == [f"{path}:100: nested deeper than 100 levels"]


def test_non_utf8_bytes_are_refused_at_their_line(tmp_path: Path) -> None:
    """Latin-1 bytes in a name are reported as not UTF-8, on the line they are on."""
    path = tmp_path / "latin1.yaml"
    path.write_bytes(VALID.read_bytes().replace(b"Ford at Elk Creek", b"Gu\xe9 de l'\xc9lan"))
    assert _lines(path) == [f"{path}:3: not UTF-8 text"]


def test_zero_byte_file_is_empty(tmp_path: Path) -> None:
    """A file with no bytes at all is an empty file, not a crash."""
    path = tmp_path / "zero.yaml"
    path.write_bytes(b"")
    assert _lines(path) == [f"{path}:1: empty file"]


def test_missing_file_cannot_be_read(tmp_path: Path) -> None:
    """A path that does not exist is one plain problem naming the file, no line number."""
    path = tmp_path / "nope.yaml"
    assert _lines(path) == [f"{path}: no such file"]


def test_python_tag_never_executes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The python/object/apply tag is refused and its shell command never runs."""
    monkeypatch.chdir(tmp_path)
    path = CORPUS / "python_tag.yaml"
    assert "touch pwned.marker" in path.read_text(encoding="utf-8")
    assert _lines(path) == [
        f"{path}:3: name: tag 'tag:yaml.org,2002:python/object/apply:os.system' is not allowed"
    ]
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "a: !!python/name:os.system x\n",
            "f:1: a: tag 'tag:yaml.org,2002:python/name:os.system' is not allowed",
        ),
        ("a: !custom []\n", "f:1: a: tag '!custom' is not allowed"),
        ("a: !custom {}\n", "f:1: a: tag '!custom' is not allowed"),
        ("a: !!set {}\n", "f:1: a: tag 'tag:yaml.org,2002:set' is not allowed"),
        ("a: !!omap [{b: 1}]\n", "f:1: a: tag 'tag:yaml.org,2002:omap' is not allowed"),
        ("a: !!str [b]\n", "f:1: a: tag 'tag:yaml.org,2002:str' is not allowed"),
        ("a: !!binary aGk=\n", "f:1: a: tag 'tag:yaml.org,2002:binary' is not allowed"),
        ("a: !!map b\n", "f:1: a: tag 'tag:yaml.org,2002:map' is not allowed"),
        ("a: !!int lots\n", "f:1: a: 'lots' is not a valid int"),
        ("a: !!float abc\n", "f:1: a: 'abc' is not a valid float"),
        ("a: !!bool maybe\n", "f:1: a: 'maybe' is not a valid bool"),
        ("b: &b {c: 1}\na:\n  <<: *b\n", "f:3: a: merge keys ('<<') are not allowed"),
        ("a: 1\na: 2\n", "f:2: a: duplicate key"),
        ("? [1]\n: 2\n", "f:1: keys must be text"),
        ("a: *nowhere\n", "f:1: not valid YAML: found undefined alias 'nowhere'"),
        (
            "a: 1\n---\nb: 2\n",
            "f:2: not valid YAML: expected a single document in the stream (line 1), "
            "but found another document",
        ),
        (
            "a: 1\nb: x\x00\n",
            "f:2: not valid YAML: unacceptable character #x0000: "
            "special characters are not allowed",
        ),
        # the three commonest mistakes of layout, each with what it usually means
        (
            "a: 1\n b: 2\n",
            "f:2: not valid YAML: mapping values are not allowed here (a 'key:' where none can "
            "begin: check this line's indentation, or quote a value that holds ': ')",
        ),
        (
            "a: b: c\n",
            "f:1: not valid YAML: mapping values are not allowed here (a 'key:' where none can "
            "begin: check this line's indentation, or quote a value that holds ': ')",
        ),
        (
            "s:\n  - id: a\n    n: 1\n  u: 3\n",
            "f:4: not valid YAML: while parsing a block collection (line 2), expected <block "
            "end>, but found '?' (line 4 starts where line 2's block does, but is the other "
            "kind: a block is all '- ' items or all 'key:' lines)",
        ),
        (
            "a: 1\n- b\n",
            "f:2: not valid YAML: while parsing a block mapping (line 1), expected <block end>, "
            "but found '-' (line 2 starts where line 1's block does, but is the other kind: a "
            "block is all '- ' items or all 'key:' lines)",
        ),
        (
            "s:\n  - id: a\n   n: 1\n",
            "f:3: not valid YAML: while parsing a block collection (line 2), expected <block "
            "end>, but found '<block mapping start>' (line 3 is indented as no part of line "
            "2's block is: YAML nests by spaces)",
        ),
        (
            "s:\n\t- a\n",
            "f:2: not valid YAML: found character '\\t' that cannot start any token (a tab: "
            "YAML wants spaces to indent, and after a ':' or '-')",
        ),
    ],
)
def test_parse_yaml_refuses_with_location(text: str, expected: str) -> None:
    """Tags, bad explicit values, merge keys, duplicates and bad YAML each get one located line."""
    with pytest.raises(ScenarioError) as info:
        parse_yaml(text, "f")
    assert [str(p) for p in info.value.problems] == [expected]


def test_unquoted_clock_time_is_text() -> None:
    """`start: 14:00` unquoted is the text "14:00", not YAML 1.1's base-60 integer 840."""
    data, _ = parse_yaml("start: 14:00\n", "f")
    assert data == {"start": "14:00"}
    _, scenario = load_scenario(VALID)
    assert scenario.model_dump(include={"turns"}) == {
        "turns": {"limit": 4, "minutes": 20, "start": "14:00", "night": False}
    }


def test_unquoted_date_is_text() -> None:
    """An unquoted date stays the text the author typed, not a datetime.date."""
    assert parse_yaml("name: 2024-01-01\n", "f")[0] == {"name": "2024-01-01"}


def test_line_map_names_each_key_line() -> None:
    """parse_yaml maps each field path to the line of its key, and list items to theirs."""
    _, lines = parse_yaml("a:\n  b: 1\n  c:\n    - 2\n    - 3\n", "f")
    assert lines == {
        (): 1,
        ("a",): 1,
        ("a", "b"): 2,
        ("a", "c"): 3,
        ("a", "c", 0): 4,
        ("a", "c", 1): 5,
    }


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("ab:-[]{}&*!<>#'\" \n\t,?|.0129%@`")), max_size=60))
def test_parse_yaml_raises_only_scenario_errors(text: str) -> None:
    """Whatever text it is given, parse_yaml returns data or raises ScenarioError, never else."""
    try:
        parse_yaml(text, "f")
    except ScenarioError as exc:
        assert all(p.file == "f" and p.line >= 1 for p in exc.problems)


@pytest.mark.parametrize(
    ("text", "field", "command"),
    [
        ("name: A study\nscenario: stone_wall.yaml\n", "scenario", "battlesim study FILE"),
        ("campaign: A delve\nbattles: []\n", "campaign", "battlesim campaign FILE"),
    ],
)
def test_study_or_campaign_file_is_named_as_such(
    tmp_path: Path, text: str, field: str, command: str
) -> None:
    """A study or campaign file given as a scenario says what it is and which command runs it."""
    path = tmp_path / "other.yaml"
    path.write_text(text)
    with pytest.raises(ScenarioError) as caught:
        load_scenario(path)
    (problem,) = caught.value.problems
    line = 2 if field == "scenario" else 1
    assert (problem.line, problem.field) == (line, field)
    assert problem.message.startswith("not a scenario: this is a ")
    assert command in problem.message


SHIPPED = DATA.parents[1] / "scenarios"


def _varied(tmp_path: Path, name: str, line: int, old: str, new: str) -> Path:
    """A copy of the shipped scenario ``name`` with ``old`` changed to ``new`` on ``line``."""
    lines = (SHIPPED / name).read_text(encoding="utf-8").split("\n")
    assert old in lines[line - 1]
    lines[line - 1] = lines[line - 1].replace(old, new)
    out = tmp_path / name
    out.write_text("\n".join(lines), encoding="utf-8")
    return out


def test_a_lone_item_with_a_misspelt_choice_still_has_its_other_fields_checked(
    tmp_path: Path,
) -> None:
    """Thorgrim is the only character of his side, so no sibling can lend him a class: the
    class is mended with a choice its own error names, and his misspelt target is
    reported in the same pass (a newcomer's review found it only after the class was fixed)."""
    path = _varied(tmp_path, "tavern_brawl.yaml", 26, "class: fighter", "class: figher")
    lines = (path.read_text(encoding="utf-8")).split("\n")
    lines[32] = lines[32].replace("target: grub", "target: grubb")
    path.write_text("\n".join(lines), encoding="utf-8")
    assert [(p.line, p.field, p.message) for p in _problems(path)] == [
        (
            26,
            "sides.0.characters.0.class",
            "'figher' is not one of 'normal_man', 'fighter', 'cleric', 'thief', 'magic_user', "
            "'dwarf', 'elf' or 'halfling'; did you mean 'fighter'?",
        ),
        (33, "sides.0.characters.0.target", "no combatant 'grubb'; did you mean 'grub'?"),
    ]


def test_no_problem_is_reported_of_a_value_the_mending_lent(tmp_path: Path) -> None:
    """Shoho's kind misspelt: a sibling, the heavy cruiser Aoba, lends its kind so the rest of
    the carrier is checked, and "a heavy_cruiser carries no aircraft", the lent kind's
    problem and not the file's, is not reported."""
    path = _varied(tmp_path, "coral_sea.yaml", 142, "light_carrier", "light_carier")
    assert [(p.line, p.field) for p in _problems(path)] == [
        (142, "sides.1.task_forces.0.ships.0.kind")
    ]


def test_a_lone_items_choice_is_mended_with_the_one_did_you_mean_offers(tmp_path: Path) -> None:
    """``class: dwarff`` on a level-12 Thorgrim with an attack rank: mended as a dwarf (the
    suggestion), not as the first choice, a normal man, who would have been told "only
    dwarves, elves and halflings have ranks" (a reviewer's finding)."""
    path = _varied(tmp_path, "tavern_brawl.yaml", 26, "class: fighter", "class: dwarff")
    lines = path.read_text(encoding="utf-8").split("\n")
    lines[26] = "        level: 12\n        attack_rank: C"
    path.write_text("\n".join(lines), encoding="utf-8")
    assert [(p.line, p.field) for p in _problems(path)] == [(26, "sides.0.characters.0.class")]


def test_a_real_problem_that_gives_the_lent_number_is_still_reported(tmp_path: Path) -> None:
    """1ri's strength is text, so a sibling lends it 14 (116pa's); its hex [14, 10] is off
    the map all the same, and says so though it gives the number 14 (a reviewer's finding:
    a lent number hid it)."""
    path = _varied(tmp_path, "stone_wall.yaml", 68, "strength: 260", "strength: 14")
    lines = path.read_text(encoding="utf-8").split("\n")
    lines[78] = lines[78].replace("strength: 6,", "strength: lots,")
    lines[79] = lines[79].replace("at: [6, 10]", "at: [14, 10]")
    path.write_text("\n".join(lines), encoding="utf-8")
    assert [(p.line, p.field, p.message) for p in _problems(path)] == [
        (79, "sides.0.units.5.strength", "'lots' is not an integer"),
        (80, "sides.0.units.5.at", "hex [14, 10] is off the 14x12 map"),
    ]


def test_a_scenario_error_crosses_to_another_process_whole() -> None:
    """Pickled back from a worker, the error keeps its problems and its text (rebuilt from
    its message, a str, it was joined letter by letter)."""
    import pickle

    problems = [Located("a.yaml", 3, "options.fire_hcv", "too low"), Located("a.yaml", 0, "", "x")]
    again = pickle.loads(pickle.dumps(ScenarioError(problems)))
    assert isinstance(again, ScenarioError)
    assert (again.problems, str(again)) == (
        problems,
        "a.yaml:3: options.fire_hcv: too low\na.yaml: x",
    )


NUMBERS = (
    "[04, 010, 08, 0620, -010, 0x1F, 0o17, 0b110, 1_000, 14:00, 1e3, 1.5e3, 25E-1, .5, 1.,"
    " +3, .inf, -.inf, 1e999, 12e, e3, 0o8, 2024-01-01, =]"
)


@pytest.mark.parametrize("fast", [True, False], ids=["libyaml", "pure"])
def test_numbers_are_read_as_yaml_1_2_has_them(fast: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    """A leading zero is decimal (YAML 1.1 read 010 as 8 and 08 as text), an exponent needs
    no decimal point (1e3 was text); 0x, 0o and 0b keep their bases; base 60 and dates stay
    the text they are meant as, and so is a lone ``=`` (YAML 1.1's "value" tag, refused as
    a tag nobody wrote); on both parse paths alike."""
    if not fast:
        monkeypatch.setattr(loader, "_parse_fast", lambda _text, _file: None)
    data, _ = parse_yaml(NUMBERS, "f")
    assert data == [4, 10, 8, 620, -10, 31, 15, 6, 1000, "14:00", 1000.0, 1500.0, 2.5, 0.5,
                    1.0, 3, float("inf"), float("-inf"), float("inf"), "12e", "e3", "0o8",
                    "2024-01-01", "="]  # fmt: skip
    assert [type(v) for v in data[:10]] == [int] * 9 + [str]


def test_what_battlesim_writes_in_yaml_reads_back_as_written() -> None:
    """A calibration's scenario is written with the reader's own number rules: text the
    reader would take for a number (an id '08', '1e3', '0o17') is quoted."""
    from sim.scenario.load import dump_yaml

    data = {"id": "08", "x": "1e3", "t": "0o17", "n": 8, "f": 1.5, "b": True, "w": "yes",
            "at": "07:00", "e": "", "l": [1, "2"]}  # fmt: skip
    assert parse_yaml(dump_yaml(data, sort_keys=False), "f")[0] == data


def test_every_pattern_a_model_uses_has_plain_words() -> None:
    """Each string pattern a model of battlesim's declares (``StringConstraints(pattern=…)``:
    scenarios, campaigns, studies, calibrations, history cases) is said in words, never as
    "has not the expected form" (a case's measure id and an event field path were)."""
    import re

    declared = re.compile(r'StringConstraints\(pattern=r"([^"]+)"\)')
    sources = sorted((Path(loader.__file__).resolve().parents[1]).rglob("*.py"))
    patterns = {p for f in sources for p in declared.findall(f.read_text(encoding="utf-8"))}
    assert len(patterns) >= 5, patterns
    assert sorted(patterns - set(loader._PATTERNS)) == []


def test_a_list_of_mappings_too_short_is_said_by_its_count_not_its_text(tmp_path: Path) -> None:
    """A becmi scenario left with one side: the line names the field and the count, and
    does not echo the side's mapping as Python writes it (it said "sides: [{'id': 'party',
    … (499 characters) has 1 item: at least 2"). A list of plain values still shows itself."""
    data = yaml.safe_load((ROOT / "scenarios" / "tavern_brawl.yaml").read_text(encoding="utf-8"))
    data["sides"] = data["sides"][:1]
    path = tmp_path / "one_side.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    lines = _lines(path)
    line = next(x for x in lines if ": sides: " in x)
    assert line.endswith(": sides: the list has 1 item: at least 2"), lines
    assert "{" not in line
    err = {"type": "too_short", "ctx": {"actual_length": 1, "min_length": 2}, "input": [3]}
    assert loader._plain_message(err) == "[3] has 1 item: at least 2"
