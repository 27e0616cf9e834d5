"""Fuzzing in CI (issue 12, items 7 and 13): mutated inputs never crash, forgeries never verify.

Hypothesis mutates scenarios (as data and as text), replays (with the hash
chain recomputed, so the mutation reaches the parser, the shape checks, the
audit and the re-simulation behind the chain), study files and ``fork
--set`` values.  Each run is bounded by ``max_examples`` (no clock), and
derandomized so that CI is reproducible (``BATTLESIM_FUZZ_SCALE`` runs more,
at random, for a deeper search).  Any exception escaping a command,
a traceback, or an exit code outside {0, 1, 2} fails.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

import yaml
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

import sim.cli.outcomes.batch  # noqa: F401  # registers study
from engine.log import MemorySink
from sim import api
from sim.scenario.load import ScenarioError, read_yaml, validate_data
from tests.forge import bodies, invoke, reseal

ROOT = Path(__file__).resolve().parents[2]
SCENARIOS = {
    "musket": ROOT / "scenarios" / "stone_wall.yaml",
    "becmi": ROOT / "scenarios" / "tavern_brawl.yaml",
    "flattop": ROOT / "scenarios" / "carrier_duel.yaml",
}
REPLAYS = {
    "musket": ROOT / "replays" / "napoleonic_brigade-s1815.jsonl",
    "becmi": ROOT / "replays" / "tavern_brawl-s377.jsonl",
    "flattop": ROOT / "replays" / "coral_sea-s1942.jsonl",
    "format1": ROOT / "tests" / "data" / "replays" / "stone_wall-s1862.format1.jsonl",
}
SCALE = int(os.environ.get("BATTLESIM_FUZZ_SCALE", "1"))
"""``BATTLESIM_FUZZ_SCALE=20 pytest tests/security/test_fuzz.py``: 20x the examples, random."""
FUZZ = settings(
    max_examples=40 * SCALE,
    deadline=None,
    derandomize=SCALE == 1,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**70), 2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=6,
)
NUMBER = st.one_of(
    st.sampled_from([0, 1, -1, 2, 6, 1000]),
    st.integers(-5, 3000),
    st.floats(-5, 3000, allow_nan=False),
)


def _no_crash(args: list[str], allowed: set[int]) -> int:
    result = invoke(*args)
    assert result.exception is None or isinstance(result.exception, SystemExit), (
        args,
        repr(result.exception),
    )
    assert "Traceback" not in result.output
    assert result.exit_code in allowed, (args, result.exit_code, result.output)
    return result.exit_code


def _leaves(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Paths of every number in ``value`` (not bools), skipping turn and round limits."""
    if isinstance(value, dict):
        items: Any = value.items()
    elif isinstance(value, list):
        items = enumerate(value)
    else:
        ok = isinstance(value, int | float) and not isinstance(value, bool)
        return [path] if ok else []
    return [p for k, v in items if k != "limit" for p in _leaves(v, (*path, k))]


def _get(data: Any, path: tuple[Any, ...]) -> Any:
    for key in path:
        data = data[key]
    return data


def _near(value: int | float) -> st.SearchStrategy[int | float]:
    """Values near ``value`` (of its type) most of the time, anything else sometimes."""
    if isinstance(value, int):
        near: st.SearchStrategy[Any] = st.sampled_from([0, 1, value - 1, value + 1, 2 * value])
        near = near | st.integers(0, max(2 * value, 10))
    else:
        near = st.sampled_from([0.0, value / 2, value * 2]) | st.floats(0, max(2 * value, 10))
    return near | near | NUMBER


def _set(data: Any, path: tuple[Any, ...], value: Any) -> None:
    for key in path[:-1]:
        data = data[key]
    data[path[-1]] = value


def _short(data: dict[str, Any]) -> None:
    """At most 4 turns or rounds: the property needs many battles, not long ones."""
    for key in ("turns", "rounds"):
        if isinstance(data.get(key), dict):
            data[key]["limit"] = min(data[key]["limit"], 4)


# item 7: every scenario that validates produces a replay that verifies


@settings(FUZZ, max_examples=60 * SCALE)
@given(name=st.sampled_from(sorted(SCENARIOS)), data=st.data())
def test_every_scenario_that_validates_produces_a_replay_that_verifies(
    name: str, data: st.DataObject
) -> None:
    """Numbers anywhere in a scenario of each ruleset changed: valid → its replay verifies."""
    file = SCENARIOS[name]
    scenario, lines = read_yaml(file)
    if name != "flattop":  # its strikes launch at set hours: its turns stay as they are
        _short(scenario)
    paths = _leaves(scenario)
    for path in data.draw(st.lists(st.sampled_from(paths), min_size=1, max_size=2)):
        _set(scenario, path, data.draw(_near(_get(scenario, path))))
    try:
        ruleset, sc = validate_data(scenario, lines, str(file))
    except ScenarioError:
        event("refused")
        return
    event(f"valid {name}")
    sink = MemorySink()
    seed = data.draw(st.integers(0, 2**63 - 1))
    ruleset.simulate(sc, api.make_header(ruleset, sc, seed, file.name), sink)
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "r.jsonl"
        out.write_text("".join(f"{x}\n" for x in sink.lines), encoding="utf-8")
        result = api.verify_replay(out)
    assert result.ok, (result.damage, result.mismatch, result.violation)


# item 13: scenarios as text


@FUZZ
@given(name=st.sampled_from(sorted(SCENARIOS)), data=st.data())
def test_mutated_scenario_text_never_crashes_validate(name: str, data: st.DataObject) -> None:
    """Bytes inserted, deleted or replaced in a scenario: validate exits 0 or 2, one answer."""
    text = SCENARIOS[name].read_bytes()
    for _ in range(data.draw(st.integers(1, 3))):
        at = data.draw(st.integers(0, len(text)))
        cut = data.draw(st.integers(0, 8))
        text = text[:at] + data.draw(st.binary(max_size=6)) + text[at + cut :]
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "s.yaml"
        path.write_bytes(text)
        _no_crash(["validate", str(path)], {0, 2})


# item 13: replays with the chain recomputed


def _mutate_line(body: str, data: st.DataObject) -> str:
    op = data.draw(st.sampled_from(["set", "delete", "add", "duplicate", "text", "replace"]))
    if op == "text":
        at = data.draw(st.integers(0, len(body)))
        return (
            body[:at] + data.draw(st.text(max_size=4)) + body[at + data.draw(st.integers(0, 4)) :]
        )
    if op == "replace":
        return json.dumps(data.draw(JSON))
    record = json.loads(body)
    keys = sorted(record)
    key = data.draw(st.sampled_from(keys))
    if op == "set":
        record[key] = data.draw(JSON)
    elif op == "delete":
        del record[key]
    elif op == "add":
        record[data.draw(st.text(max_size=6))] = data.draw(JSON)
    else:  # a repeated key, as only text can hold it
        return body[:-1] + f",{json.dumps(key)}:{json.dumps(data.draw(JSON))}}}"
    return json.dumps(record, separators=(",", ":"), ensure_ascii=False)


@settings(FUZZ, max_examples=120 * SCALE)
@given(name=st.sampled_from(sorted(REPLAYS)), data=st.data())
def test_resealed_replay_mutations_never_verify_and_never_crash(
    name: str, data: st.DataObject
) -> None:
    """One line changed, dropped or swapped, chain recomputed: verify exits 1 or 2, never 0."""
    texts = bodies(REPLAYS[name])
    i = data.draw(st.integers(0, len(texts) - 1))
    op = data.draw(st.sampled_from(["mutate", "mutate", "mutate", "drop", "swap"]))
    if op == "drop":
        del texts[i]
    elif op == "swap":
        j = data.draw(st.integers(0, len(texts) - 1))
        texts[i], texts[j] = texts[j], texts[i]
    else:
        texts[i] = _mutate_line(texts[i], data)
    forged = reseal(texts) if texts else ""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "r.jsonl"
        path.write_text(forged, encoding="utf-8")
        same = forged == REPLAYS[name].read_text(encoding="utf-8")
        code = _no_crash(["verify", str(path)], {0, 1, 2})
        event(f"verify exit {code}")
        assert (code == 0) == same, "a changed replay verified"
        _no_crash(["show", str(path)], {0, 2})


# item 13: study files


@FUZZ
@given(data=st.data())
def test_mutated_study_files_never_crash(data: st.DataObject) -> None:
    """A study file with values replaced by any JSON: exit 2 with a message, never a crash."""
    study, _ = read_yaml(ROOT / "scenarios" / "stone_wall_study.yaml")
    study["scenario"] = str(SCENARIOS["musket"])
    paths = [p for p in _all_paths(study) if p]
    for path in data.draw(st.lists(st.sampled_from(paths), min_size=1, max_size=3)):
        try:
            _set(study, path, data.draw(JSON))
        except (KeyError, IndexError, TypeError):
            continue  # an earlier change removed the parent
    with tempfile.TemporaryDirectory() as tmp:
        file = Path(tmp) / "study.yaml"
        file.write_text(yaml.safe_dump(study), encoding="utf-8")
        # --resume of an empty folder: the file is read and checked, then no run is fought.
        _no_crash(["study", str(file), "--out", str(Path(tmp) / "o"), "--resume"], {2})


def _all_paths(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [path]
    if isinstance(value, dict):
        for k, v in value.items():
            out += _all_paths(v, (*path, k))
    elif isinstance(value, list):
        for k, v in enumerate(value):
            out += _all_paths(v, (*path, k))
    return out


# item 13: fork --set values

GOLDEN = ROOT / "replays" / "stone_wall-s1862.jsonl"
STATE_FIELDS = ["strength", "fatigue", "morale", "men_lost", "guns_lost", "formation", "x"]
UNITS = ["69ny", "28ma", "1ri", "cobb", "nope"]
VALUES = st.one_of(
    st.sampled_from(["-5", "0", "7", "true", "null", "[]", ".nan", ".inf", "~", "'x'", "1e999"]),
    st.integers(-100, 1000).map(str),
    st.text(alphabet="abc0123456789.-[]{}:,'\" ", max_size=8),
)


@settings(FUZZ, max_examples=30 * SCALE)
@given(data=st.data())
def test_fork_set_values_never_crash_and_every_fork_made_verifies(data: st.DataObject) -> None:
    """fork --set with fuzzed paths and values: exit 0 or 2; a fork that is written verifies."""
    lines = bodies(GOLDEN)
    at = data.draw(st.integers(0, len(lines) - 3))
    record = json.loads(lines[at + 1])
    field = data.draw(
        st.one_of(
            st.sampled_from(sorted(record)),
            st.builds(
                lambda u, f: f"state.units.{u}.{f}",
                st.sampled_from(UNITS),
                st.sampled_from(STATE_FIELDS),
            ),
            st.builds(lambda u: f"state.units.{u}.strength", st.sampled_from(UNITS[:4])),
            st.text(alphabet="abc._0", min_size=1, max_size=8),
        )
    )
    value = data.draw(VALUES | st.integers(0, 400).map(str))
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "f.jsonl"
        args = [
            "fork",
            str(GOLDEN),
            "--at",
            str(at),
            "--set",
            f"{field}={value}",
            "--out",
            str(out),
        ]
        if _no_crash(args, {0, 2}) == 0:
            event("fork written")
            assert _no_crash(["verify", str(out)], {0, 1}) == 0, "a fork that does not verify"
        else:
            assert not out.exists()
