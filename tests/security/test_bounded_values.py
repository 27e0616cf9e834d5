"""Every command-line value is bounded, acyclic plain data (issue 25, item 2).

``fork --set`` and ``--sweep`` read their values through the one check,
:func:`sim.scenario.values.parse_value`: a self-referencing or exploding
alias, or nesting past the bound, is refused in one line before any work.
The family — hostile YAML values × the places that take them — is drawn by
Hypothesis.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import sim.cli.outcomes.batch  # noqa: F401  # registers batch
from sim.scenario.load import MAX_DEPTH
from sim.scenario.values import MAX_VALUES, ValueProblem, parse_value
from tests.forge import GOLDEN, invoke

ROOT = Path(__file__).resolve().parents[2]
BRAWL = ROOT / "scenarios" / "tavern_brawl.yaml"
CHECK = next(
    str(json.loads(line)["seq"])
    for line in GOLDEN.read_text(encoding="utf-8").splitlines()
    if '"type":"musket.morale_tested"' in line
)
"""The golden's first morale check: its ``passed`` field is a --set target."""


def _bomb(width: int, depth: int) -> str:
    """``width ** depth`` values from ``depth`` anchors, each listing the last ``width`` times."""
    parts = ["&a0 [" + ", ".join(["x"] * width) + "]"]
    for i in range(1, depth):
        parts.append(f"&a{i} [" + ", ".join([f"*a{i - 1}"] * width) + "]")
    return "[" + ", ".join(parts) + "]"


SELF = st.sampled_from(["&a [*a]", "&a [1, [2, *a]]", "&a {k: *a}", "[&b [*b], 1]"])
BOMBS = st.builds(_bomb, st.integers(2, 9), st.integers(2, 9))
DEEP = st.integers(MAX_DEPTH + 1, 400).map(lambda n: "[" * n + "]" * n)
HOSTILE = st.one_of(SELF, BOMBS, DEEP)

WHERE = st.sampled_from(["event", "state", "sweep"])


def _refused(where: str, value: str, tmp_path: Path) -> tuple[int, str, list[Path]]:
    out = tmp_path / "out"
    if where == "event":
        args = ["fork", str(GOLDEN), "--at", CHECK, "--set", f"passed={value}"]
        args += ["--out", str(out)]
    elif where == "state":
        args = ["fork", str(GOLDEN), "--at", "3", "--set"]
        args += [f"state.units.1ri.morale_cause={value}", "--out", str(out)]
    else:
        args = ["batch", str(BRAWL), "--runs", "1", "--out", str(out)]
        args += ["--sweep", f"monster_morale={value}"]
    result = invoke(*args)
    return result.exit_code, result.stderr, list(tmp_path.iterdir())


@settings(
    max_examples=30,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(value=HOSTILE, where=WHERE)
def test_a_hostile_value_is_refused_in_one_line_before_any_work(
    tmp_path_factory: pytest.TempPathFactory, value: str, where: str
) -> None:
    """A cycle, an alias bomb or nesting past the bound: exit 2, one line naming the
    option, nothing written (it used to loop for ever in the plain-value walk)."""
    tmp_path = tmp_path_factory.mktemp("v")
    code, stderr, left = _refused(where, value, tmp_path)
    assert code == 2, stderr
    assert stderr.count("\n") == 1, stderr
    assert ("--sweep" if where == "sweep" else "--set") in stderr
    assert left == []


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("&a [*a]", "aliases (*a) are not allowed in a value"),
        (_bomb(9, 9), "aliases (*a0) are not allowed in a value"),
        ("[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1), f"nested deeper than {MAX_DEPTH} levels"),
        ("[" + ", ".join(["1"] * MAX_VALUES) + "]", f"too large: more than {MAX_VALUES} values"),
        (str(2**64), f"{2**64} is out of range (a replay holds integers from"),
        ("!!python/object:os.system x", "tag 'tag:yaml.org,2002:python/object:os.system'"),
    ],
)
def test_each_bound_has_its_message(text: str, message: str) -> None:
    """Each bound names itself: aliases, depth, size, a replay's integer range, tags."""
    with pytest.raises(ValueProblem) as caught:
        parse_value(text)
    assert message in str(caught.value)


def test_a_deep_value_is_read_no_further_than_its_depth_bound(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """50,000 ``[`` are refused once past the 100th level: no YAML event is read beyond
    it, where reading on to the count's bound (10,001 events) cost PyYAML's scanner time
    quadratic in the open levels, 10 CPU s a command."""
    import yaml

    read = [0]
    parse = yaml.parse

    def counted(*args: object, **kwargs: object) -> object:
        for event in parse(*args, **kwargs):  # type: ignore[arg-type]
            read[0] += 1
            yield event

    monkeypatch.setattr(yaml, "parse", counted)
    with pytest.raises(ValueProblem, match=f"nested deeper than {MAX_DEPTH} levels"):
        parse_value("[" * 50_000)
    assert read[0] == 1 + 1 + (MAX_DEPTH + 1)  # stream and document start, 101 levels


def test_a_value_at_the_bounds_is_plain_data() -> None:
    """Just inside every bound the value is read, as fresh lists (no shared node)."""
    nested = "[" * (MAX_DEPTH - 1) + "]" * (MAX_DEPTH - 1)
    value = parse_value(nested)
    depth = 0
    while value:
        value, depth = value[0], depth + 1
    assert depth == MAX_DEPTH - 2
    big = parse_value("[" + ", ".join(["1"] * (MAX_VALUES - 1)) + "]")
    assert big == [1] * (MAX_VALUES - 1)
    assert parse_value("&a 7") == 7  # an anchor nobody refers to is harmless


def test_a_control_character_in_a_set_path_is_refused_before_writing(tmp_path: Path) -> None:
    """``fork --set`` with a control character in a state name (issue 25 item 4): a replay
    can hold none, so the fork is refused (exit 2, one line) and nothing is written."""
    out = tmp_path / "f.jsonl"
    args = ["fork", str(GOLDEN), "--at", "3", "--set", "state.units.1ri\x07.morale_cause=x"]
    result = invoke(*args, "--out", str(out))
    assert result.exit_code == 2, result.output
    assert result.stderr == (
        "battlesim: error: --set 'state.units.1ri\\x07.morale_cause=x': control character "
        "\\x07 in 'state.units.1ri\\x07.morale_cause' (a replay holds none but newline "
        "and tab)\n"
    )
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    ("value", "said"),
    [
        ("9" * 100_000, "a 100000-digit number is out of range"),
        ("[" + "1," * 50_000 + "]", f"too large: more than {MAX_VALUES} values"),
        ("[" * 50_000, "nested deeper than 100 levels"),
    ],
)
def test_a_huge_set_value_is_echoed_by_its_start_and_length(value: str, said: str) -> None:
    """``run --set`` and ``fork --set`` of a 100,000-digit number or 50,000 ``[`` echoed the
    whole value in their one-line error (50-100 KB); as ``--sweep`` does, the line now
    shows the first 40 characters typed and how many there were. (50,000 ``[`` are refused
    as nested too deep once past the 100th: reading on to the count's bound took PyYAML's
    scanner 10 CPU s a command.)"""
    change = f"passed={value}"
    shown = f"'{change[:40]}... ({len(change)} characters)'"
    run = invoke("run", str(BRAWL), "--set", change)
    fork = invoke("fork", str(GOLDEN), "--at", CHECK, "--set", change)
    assert [run.exit_code, run.stderr] == [2, f"{BRAWL}: --set {shown}: {said}\n"]
    assert [fork.exit_code, fork.stderr] == [2, f"battlesim: error: --set {shown}: {said}\n"]
